/*
 * sweep_progress.c - progress of a sweep on stderr: configurations done /
 * total, elapsed time and ETA (elapsed / done * remaining). On a terminal one
 * line redrawn in place (carriage return and erase to end of line), messages
 * printed above it; otherwise every step and message is a plain line, for
 * logs. See sweep.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "metrics.h"
#include "sweep_progress.h"

/* Seconds as "1h02m03s", "2m03s" or "3s". */
static void format_duration(double seconds, char *buf, size_t size)
{
    if (!(seconds >= 0.0) || seconds > 1e8) {
        snprintf(buf, size, "?");
        return;
    }
    long s = (long)(seconds + 0.5);
    if (s >= 3600)
        snprintf(buf, size, "%ldh%02ldm%02lds", s / 3600, s / 60 % 60, s % 60);
    else if (s >= 60)
        snprintf(buf, size, "%ldm%02lds", s / 60, s % 60);
    else
        snprintf(buf, size, "%lds", s);
}

/* "[done/total] elapsed 1m02s, ETA 3m04s" into buf. */
static void status_text(const sweep_progress *p, char *buf, size_t size)
{
    char elapsed[32], eta[32];
    double t = metrics_now() - p->start;
    format_duration(t, elapsed, sizeof elapsed);
    if (p->done > 0)
        format_duration(t / (double)p->done * (double)(p->total - p->done), eta, sizeof eta);
    else
        snprintf(eta, sizeof eta, "?");
    snprintf(buf, size, "[%lld/%lld] elapsed %s, ETA %s", (long long)p->done, (long long)p->total, elapsed,
             eta);
}

static void clear_line(sweep_progress *p)
{
    if (p->tty && p->drawn) {
        fputs("\r\033[K", stderr);
        p->drawn = 0;
    }
}

static void draw(sweep_progress *p)
{
    if (!p->tty)
        return;
    char text[160];
    status_text(p, text, sizeof text);
    fprintf(stderr, "\r\033[K%s", text);
    fflush(stderr);
    p->drawn = 1;
}

void sweep_progress_init(sweep_progress *p, int64_t total)
{
    p->done = 0;
    p->total = total;
    p->start = metrics_now();
    p->tty = isatty(STDERR_FILENO);
    p->drawn = 0;
    draw(p);
}

void sweep_progress_note(sweep_progress *p, const char *fmt, ...)
{
    clear_line(p);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    draw(p);
}

void sweep_progress_step(sweep_progress *p, const char *what)
{
    p->done++;
    char text[160];
    status_text(p, text, sizeof text);
    clear_line(p);
    fprintf(stderr, "%s %s\n", text, what);
    draw(p);
}

void sweep_progress_end(sweep_progress *p)
{
    clear_line(p);
    fflush(stderr);
}
