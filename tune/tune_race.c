/*
 * tune_race.c - timing candidate configurations against a baseline in
 * interleaved rounds, with successive halving (tune.h), and the progress
 * line.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tune/tune.h"

/* Rounds between two halvings of the field. */
#define ROUNDS_PER_CUT 2
/* Rounds after which a race down to the baseline and one candidate ends (the time left goes to later stages). */
#define SETTLED_ROUNDS 15

double tune_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void tune_report(tune_session *s, const char *detail)
{
    if (s->progress == NULL)
        return;
    char line[512];
    snprintf(line, sizeof line, "%s: %s%s%s", s->stage, detail, s->best[0] ? "; best " : "", s->best);
    s->progress(s->progress_arg, tune_now() - s->start, s->budget, line);
}

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct {
    double ratio[TUNE_MAX_ROUNDS]; /* baseline time / own time, per round */
    int n;
    int alive;
} lane;

/* The current score of every lane (median ratio; the baseline 1). */
static void score_all(const lane *lanes, int count, double *score)
{
    double v[TUNE_MAX_ROUNDS];
    for (int c = 0; c < count; c++) {
        if (c == 0 || lanes[c].n == 0) {
            score[c] = c == 0 ? 1.0 : 0.0;
            continue;
        }
        memcpy(v, lanes[c].ratio, (size_t)lanes[c].n * sizeof *v);
        score[c] = median(v, lanes[c].n);
    }
}

/* Drop the worse half of the live candidates other than the baseline. */
static void halve(lane *lanes, int count, const double *score)
{
    int alive = 0;
    for (int c = 1; c < count; c++)
        alive += lanes[c].alive;
    for (int drop = alive / 2; drop > 0; drop--) {
        int worst = -1;
        for (int c = 1; c < count; c++)
            if (lanes[c].alive && (worst < 0 || score[c] < score[worst]))
                worst = c;
        lanes[worst].alive = 0;
    }
}

void tune_race(tune_session *s, int count, tune_time_fn time, tune_name_fn name, void *arg, tune_race_result *r)
{
    lane *lanes = calloc((size_t)count, sizeof *lanes);
    double *seconds = malloc((size_t)count * sizeof *seconds);
    memset(r, 0, sizeof *r);
    r->count = count;
    if (lanes == NULL || seconds == NULL) {
        free(lanes);
        free(seconds);
        r->score[0] = 1.0;
        return;
    }
    for (int c = 0; c < count; c++)
        lanes[c].alive = 1;
    double score[TUNE_MAX_CANDIDATES];
    for (int round = 0; round < TUNE_MAX_ROUNDS; round++) {
        int alive = 0;
        for (int c = 0; c < count; c++)
            alive += lanes[c].alive;
        /* every live candidate once, from a different one each round */
        for (int i = 0; i < count; i++) {
            const int c = (i + round) % count;
            if (lanes[c].alive)
                seconds[c] = time(arg, c);
        }
        for (int c = 1; c < count; c++) {
            if (!lanes[c].alive)
                continue;
            if (!(seconds[c] > 0.0) || !(seconds[0] > 0.0)) {
                lanes[c].alive = 0; /* failed: out of the race */
                continue;
            }
            lanes[c].ratio[lanes[c].n++] = seconds[0] / seconds[c];
        }
        score_all(lanes, count, score);
        int best = 0;
        for (int c = 1; c < count; c++)
            if (lanes[c].n > 0 && score[c] > score[best])
                best = c;
        char what[96], detail[256];
        name(arg, best, what, sizeof what);
        snprintf(s->best, sizeof s->best, "%s %.3fx", what, score[best]);
        snprintf(detail, sizeof detail, "round %d, %d of %d candidates left", round + 1, alive, count);
        tune_report(s, detail);
        /* at least two rounds; then until the deadline, or a final pair has had SETTLED_ROUNDS */
        const int survivor_rounds = best > 0 ? lanes[best].n : 0;
        if (round >= 1 && (tune_now() >= s->stage_end || (alive <= 2 && survivor_rounds >= SETTLED_ROUNDS)))
            break;
        if (round % ROUNDS_PER_CUT == ROUNDS_PER_CUT - 1 && alive > 2)
            halve(lanes, count, score);
    }
    score_all(lanes, count, score);
    int best = 0;
    for (int c = 1; c < count; c++)
        if (lanes[c].n > 0 && score[c] > score[best])
            best = c;
    for (int c = 0; c < count; c++) {
        r->score[c] = score[c];
        r->rounds[c] = c == 0 ? lanes[1 < count ? 1 : 0].n : lanes[c].n;
    }
    r->winner = score[best] >= 1.0 + TUNE_MIN_GAIN ? best : 0;
    free(lanes);
    free(seconds);
}
