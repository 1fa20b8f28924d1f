/*
 * sketchmm_tune - measure this machine and write the exact core's tuning
 * file (smm_tune, sketchmm/tuning.h), or show the active configuration.
 *
 *   sketchmm_tune [--budget SECONDS] [--threads N] [--out PATH|none] [--quiet]
 *   sketchmm_tune --show
 *
 * Progress goes to stderr: one line redrawn in place on a terminal, a line
 * per stage and every few seconds otherwise. Exit status 0 on success, 1
 * when tuning or writing failed, 2 on a usage error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sketchmm.h"

#define LOG_EVERY_SECONDS 5.0

typedef struct {
    int tty;
    int quiet;
    double last_logged;
    char last_stage[64];
} progress_state;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: sketchmm_tune [--budget SECONDS] [--threads N] [--out PATH|none] [--quiet]\n"
            "       sketchmm_tune --show\n"
            "\n"
            "Measures micro-kernel shapes, cache blocks, threading splits, prefetch distances, the\n"
            "small-product threshold, exact_topk's block and the 4x4 kernels' paths on this machine,\n"
            "for the current ISA path (SKETCHMM_ISA), on one thread and on N threads, and writes the\n"
            "winning configuration to the tuning file the library reads on first use.\n"
            "\n"
            "  --budget SECONDS  wall time to spend, at least 10 (default %.0f)\n"
            "  --threads N       the several-thread count to tune for (default: SKETCHMM_NUM_THREADS\n"
            "                    or all the CPUs OpenMP sees)\n"
            "  --out PATH        the file to write (default: SKETCHMM_TUNING, else\n"
            "                    $XDG_CACHE_HOME/sketchmm/tuning-HASH.txt or ~/.cache/...);\n"
            "                    'none' writes nothing\n"
            "  --quiet           no progress line\n"
            "  --show            print the active configuration and where it came from, then exit\n",
            SMM_TUNE_DEFAULT_BUDGET);
}

static void on_progress(void *arg, double elapsed, double budget, const char *status)
{
    progress_state *ps = arg;
    if (ps->quiet)
        return;
    const int percent = budget > 0.0 ? (int)(100.0 * elapsed / budget + 0.5) : 0;
    if (ps->tty) {
        /* one line, redrawn: cut to the terminal's usual width */
        fprintf(stderr, "\r\033[K[%3d%%] %4.0f s / %.0f s  %.160s", percent > 100 ? 100 : percent, elapsed, budget,
                status);
        fflush(stderr);
        return;
    }
    /* a log: a line at each new stage, and every few seconds */
    const char *colon = strchr(status, ':');
    const size_t stage_len = colon != NULL ? (size_t)(colon - status) : strlen(status);
    const int new_stage = stage_len >= sizeof ps->last_stage || strncmp(ps->last_stage, status, stage_len) != 0 ||
                          ps->last_stage[stage_len] != '\0';
    if (new_stage || elapsed - ps->last_logged >= LOG_EVERY_SECONDS) {
        fprintf(stderr, "[%3d%%] %4.0f s / %.0f s  %s\n", percent > 100 ? 100 : percent, elapsed, budget, status);
        ps->last_logged = elapsed;
        snprintf(ps->last_stage, sizeof ps->last_stage, "%.*s", (int)(stage_len < 63 ? stage_len : 63), status);
    }
}

static int show(void)
{
    smm_exact_config c;
    const smm_status s = smm_exact_config_get(&c);
    if (s != SMM_OK) {
        fprintf(stderr, "sketchmm_tune: %s\n", smm_status_str(s));
        return 1;
    }
    char text[SMM_CONFIG_TEXT];
    smm_exact_config_describe(&c, text, sizeof text);
    printf("%s\n", text);
    return 0;
}

/* A number for option name from text; exits with status 2 when it does not parse. */
static double parse_number(const char *name, const char *text, double lo, double hi)
{
    char *end;
    errno = 0;
    const double v = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !(v >= lo && v <= hi)) {
        fprintf(stderr, "sketchmm_tune: %s wants a number in [%g, %g], not '%s'\n", name, lo, hi, text);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    smm_tune_options options = SMM_TUNE_OPTIONS_INIT;
    progress_state ps = { isatty(STDERR_FILENO), 0, -1e9, "" };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const int has_value = i + 1 < argc;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--show") == 0) {
            return show();
        } else if (strcmp(a, "--quiet") == 0) {
            ps.quiet = 1;
        } else if (strcmp(a, "--budget") == 0 && has_value) {
            options.budget_seconds = parse_number("--budget", argv[++i], 10.0, 86400.0);
        } else if (strcmp(a, "--threads") == 0 && has_value) {
            options.threads = (int)parse_number("--threads", argv[++i], 1.0, SMM_MAX_THREADS);
        } else if (strcmp(a, "--out") == 0 && has_value) {
            options.path = argv[++i];
            if (options.path[0] == '\0') {
                fprintf(stderr, "sketchmm_tune: --out wants a path or 'none'\n");
                return 2;
            }
        } else {
            fprintf(stderr, "sketchmm_tune: unknown option or missing value: %s\n", a);
            usage(stderr);
            return 2;
        }
    }
    const smm_status s = smm_tune(&options, on_progress, &ps);
    if (ps.tty && !ps.quiet)
        fprintf(stderr, "\n");
    smm_exact_config c;
    char text[SMM_CONFIG_TEXT] = "";
    if (smm_exact_config_get(&c) == SMM_OK)
        smm_exact_config_describe(&c, text, sizeof text);
    if (s != SMM_OK && s != SMM_ERR_FILE) {
        fprintf(stderr, "sketchmm_tune: %s\n", smm_status_str(s));
        return 1;
    }
    printf("%s\n", text);
    if (s == SMM_ERR_FILE) {
        fprintf(stderr, "sketchmm_tune: the tuning file could not be written (%s)\n",
                c.file[0] ? c.file : "no path: set SKETCHMM_TUNING or HOME");
        return 1;
    }
    return 0;
}
