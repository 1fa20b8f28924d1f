/*
 * tune.h - the tuner's internals (smm_tune, sketchmm/tuning.h): a session
 * (deadline, progress line, the threads to tune for), the race that times
 * candidate configurations against each other, and the stages that search
 * one part of the configuration each.
 *
 * Measuring on a shared, noisy machine. Every comparison is a race: the
 * candidates are timed in interleaved rounds (each round times every live
 * candidate once, starting from a different one each time), and a
 * candidate's score is the median over rounds of the baseline's time in
 * that round over its own, so a change of machine load between rounds hits
 * every candidate alike and cancels. Successive halving keeps the race
 * within its time: after a few rounds the worse half (by score) drops out,
 * the baseline always stays. The winner must beat the baseline by
 * TUNE_MIN_GAIN, else the baseline is kept: a configuration is never
 * changed on the strength of noise.
 */
#ifndef TUNE_TUNE_H
#define TUNE_TUNE_H

#include <stddef.h>
#include <stdint.h>

#include "sketchmm/tuning.h"
#include "common/smm_runtime.h"
#include "exact/tuning.h"

/* A candidate must be this much faster than the baseline to replace it (score >= 1 + TUNE_MIN_GAIN). */
#define TUNE_MIN_GAIN 0.01

/* The most candidates of one race, and rounds a candidate is timed in. */
#define TUNE_MAX_CANDIDATES 96
#define TUNE_MAX_ROUNDS 64

typedef struct {
    smm_isa isa;          /* the path being tuned (its row's path) */
    int threads;          /* the "several threads" count (1: the several-thread team copies the one-thread) */
    int64_t side;         /* the side of the SGEMM stages' square problems (tune_stage_kernel sets it) */
    double start, budget; /* monotonic seconds */
    double stage_end;     /* the current stage's deadline */
    smm_tune_progress_fn progress;
    void *progress_arg;
    const char *stage;    /* what is being measured, for the progress line */
    char best[160];       /* the best so far, for the progress line */
} tune_session;

/* Monotonic seconds. */
double tune_now(void);

/* Report progress: "<stage>: <detail>; best <best>". */
void tune_report(tune_session *s, const char *detail);

/*
 * One pass of candidate c's work (all the problems of its stage); returns
 * its seconds, or a negative value when it failed (out of memory: the
 * candidate drops out).
 */
typedef double (*tune_time_fn)(void *arg, int candidate);

/* Describe candidate c in a few words (for the progress line). */
typedef void (*tune_name_fn)(void *arg, int candidate, char *buf, size_t size);

typedef struct {
    int count;                 /* candidates, 0 the baseline */
    double score[TUNE_MAX_CANDIDATES]; /* median of baseline time / candidate time per round (1 for the baseline) */
    int rounds[TUNE_MAX_CANDIDATES];   /* rounds each was timed in */
    int winner;                /* the best scoring; 0 unless it beat the baseline by TUNE_MIN_GAIN */
} tune_race_result;

/*
 * Race `count` candidates (1 <= count <= TUNE_MAX_CANDIDATES; 0 the
 * baseline) until s->stage_end: interleaved rounds, at least two, the worse
 * half dropped after every few rounds while more than two remain, the
 * progress reported after each round. Returns the result in *r.
 */
void tune_race(tune_session *s, int count, tune_time_fn time, tune_name_fn name, void *arg, tune_race_result *r);

/* ---- the stages (each reads and updates *p, the configuration being built) ---- */

/* Shape, kc and mc on one thread (and the side of the SGEMM problems from the default's speed). */
void tune_stage_kernel(tune_session *s, tuning_params *p, char *measured, size_t size);

/* nc, one thread and several (products wider than the model's block). */
void tune_stage_nc(tune_session *s, tuning_params *p, char *measured, size_t size);

/* Split and mc for several threads. */
void tune_stage_threads(tune_session *s, tuning_params *p, char *measured, size_t size);

/* The prefetch distance, one thread and several. */
void tune_stage_prefetch(tune_session *s, tuning_params *p, char *measured, size_t size);

/* sup_max_macs: where the small-product path stops winning. */
void tune_stage_small(tune_session *s, tuning_params *p, char *measured, size_t size);

/* exact_topk's block of scores. */
void tune_stage_topk(tune_session *s, tuning_params *p, char *measured, size_t size);

/* The path of each batched 4x4 operation. */
void tune_stage_mat4(tune_session *s, tuning_params *p, char *measured, size_t size);

/* The whole configuration against the default one; falls back to the default where it does not win. */
void tune_stage_check(tune_session *s, tuning_params *p, const tuning_params *def, char *measured, size_t size);

#endif /* TUNE_TUNE_H */
