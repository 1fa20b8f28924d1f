/*
 * tune_sgemm.c - the tuner's SGEMM stages (tune.h): micro-kernel shape and
 * kc, mc and nc on one thread; split and mc on several threads; the
 * prefetch distance; the small-product threshold; the final check against
 * the default configuration.
 *
 * Problems are square products of side `side` (1024 on a core that does
 * 72 GFLOPS or more; smaller, down to 128, where one call of that side would
 * take longer than SIDE_SECONDS, e.g. the portable path), with operands filled once
 * and shared by every candidate. A candidate's time over several problems
 * is the sum of each problem's time over the baseline's first time on it,
 * so every problem counts alike whatever its size.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/smm_cache.h"
#include "exact/sgemm_driver.h"
#include "exact/sgemm_sup.h"
#include "tune/tune.h"

#define SIDE_MAX 1024
#define SIDE_MIN 128
#define SIDE_SECONDS 0.03     /* one call of the side's cube on one thread */
#define MAX_PROBLEMS 4
#define SMALL_SECONDS 0.002   /* a timing of small products repeats calls to last this long */

typedef struct {
    int64_t m, n, k;
    int threads;
} sgemm_problem;

/* A race of SGEMM configurations over a set of problems. */
typedef struct {
    tune_session *s;
    const float *A, *B;
    float *C;
    sgemm_problem problems[MAX_PROBLEMS];
    int nproblems;
    double reference[MAX_PROBLEMS]; /* the baseline's first time on each problem */
    tuning_params cand[TUNE_MAX_CANDIDATES];
    int count;
} sgemm_race;

/* One product of problem q with configuration p; seconds. */
static double time_product(const sgemm_race *r, const tuning_params *p, const sgemm_problem *q)
{
    sgemm_target t;
    sgemm_target_from(r->s->isa, p, q->threads, &t);
    const sgemm_view a = { r->A, q->k, 1 }, b = { r->B, q->n, 1 };
    const int sup = sgemm_sup_applies(&t, q->m, q->n, q->k);
    int calls = 0;
    const double start = tune_now();
    double elapsed;
    do { /* small products: repeat to SMALL_SECONDS */
        const smm_status st = sup ? sgemm_sup_run(&t, q->threads, q->m, q->n, q->k, 1.0f, a, b, 0.0f, r->C, q->n)
                                  : sgemm_driver_run(&t, q->threads, q->m, q->n, q->k, 1.0f, a, b, 0.0f, r->C, q->n);
        if (st != SMM_OK)
            return -1.0;
        calls++;
        elapsed = tune_now() - start;
    } while (elapsed < SMALL_SECONDS);
    return elapsed / calls;
}

static double race_time(void *arg, int c)
{
    sgemm_race *r = arg;
    double total = 0.0;
    for (int q = 0; q < r->nproblems; q++) {
        const double t = time_product(r, &r->cand[c], &r->problems[q]);
        if (t < 0.0)
            return -1.0;
        if (r->reference[q] <= 0.0)
            r->reference[q] = t; /* the first time measured: the baseline's, in its warm-up */
        total += t / r->reference[q];
    }
    return total;
}

static const char *split_word(sgemm_split split)
{
    return split == SGEMM_SPLIT_ROWS ? "rows" : split == SGEMM_SPLIT_COLUMNS ? "columns" : "auto";
}

static void race_name(void *arg, int c, char *buf, size_t size)
{
    const sgemm_race *r = arg;
    const tuning_params *p = &r->cand[c];
    const int team = r->problems[0].threads > 1 ? TUNING_MANY : TUNING_ONE;
    snprintf(buf, size, "%s kc %lld mc %lld nc %lld %s pf %lld", sgemm_kernels_for(r->s->isa)->shapes[p->shape].name,
             (long long)p->kc, (long long)p->team[team].mc, (long long)p->team[team].nc,
             split_word(p->team[team].split), (long long)p->team[team].prefetch);
}

/*
 * A race with operands for products up to 4 side^2 elements per operand
 * (side x side x side, and the wider ones of the stages); NULL when memory
 * is short (the stage is then skipped: the configuration keeps its values).
 */
static sgemm_race *race_new(tune_session *s)
{
    sgemm_race *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    r->s = s;
    const size_t floats = (size_t)(4 * s->side * s->side);
    float *A = smm_aligned_alloc(floats * sizeof(float)), *B = smm_aligned_alloc(floats * sizeof(float));
    r->C = smm_aligned_alloc(floats * sizeof(float));
    if (A == NULL || B == NULL || r->C == NULL) {
        smm_aligned_free(A);
        smm_aligned_free(B);
        smm_aligned_free(r->C);
        free(r);
        return NULL;
    }
    for (size_t i = 0; i < floats; i++) {
        A[i] = (float)((int)(i % 17) - 8) * 0.125f;
        B[i] = (float)((int)(i % 13) - 6) * 0.25f;
        r->C[i] = 0.0f;
    }
    r->A = A;
    r->B = B;
    return r;
}

static void race_delete(sgemm_race *r)
{
    if (r == NULL)
        return;
    smm_aligned_free((float *)r->A);
    smm_aligned_free((float *)r->B);
    smm_aligned_free(r->C);
    free(r);
}

static void add_problem(sgemm_race *r, int64_t m, int64_t n, int64_t k, int threads)
{
    r->problems[r->nproblems++] = (sgemm_problem){ m, n, k, threads };
}

/* Add candidate p when it is valid and not there yet. */
static void add_candidate(sgemm_race *r, const tuning_params *p)
{
    if (r->count >= TUNE_MAX_CANDIDATES || tuning_check(r->s->isa, p) != NULL)
        return;
    for (int c = 0; c < r->count; c++)
        if (tuning_params_equal(&r->cand[c], p))
            return;
    r->cand[r->count++] = *p;
}

/* The race, after a warm-up pass of the baseline (page faults, and the reference times). */
static void race(sgemm_race *r, tune_race_result *res)
{
    memset(r->reference, 0, sizeof r->reference);
    race_time(r, 0);
    tune_race(r->s, r->count, race_time, race_name, r, res);
}

/* Run the race; the winner (the baseline unless a candidate beat it) into *p; its score returned. */
static double run_race(sgemm_race *r, tuning_params *p)
{
    tune_race_result res;
    race(r, &res);
    *p = r->cand[res.winner];
    return res.score[res.winner];
}

/* ---- the side of the problems ---- */

/* Measure how fast one thread is on configuration p and size the problems from it (s->side). */
static void measure_side(tune_session *s, const tuning_params *p)
{
    s->side = 256;
    sgemm_race *r = race_new(s);
    if (r == NULL)
        return;
    const sgemm_problem q = { 256, 256, 256, 1 };
    time_product(r, p, &q);
    const double t = time_product(r, p, &q);
    race_delete(r);
    const double flops_per_second = t > 0.0 ? 2.0 * 256 * 256 * 256 / t : 1e9;
    const int64_t side = (int64_t)cbrt(SIDE_SECONDS * flops_per_second / 2.0) / 64 * 64;
    s->side = side < SIDE_MIN ? SIDE_MIN : side > SIDE_MAX ? SIDE_MAX : side;
}

/* ---- the stages ---- */

/* Rows of A per block for an A block of about `bytes`, a multiple of mr (at least mr). */
static int64_t mc_for_bytes(int64_t bytes, int64_t kc, int mr)
{
    const int64_t mc = bytes / (4 * kc) / mr * mr;
    return mc < mr ? mr : mc;
}

void tune_stage_kernel(tune_session *s, tuning_params *p, char *measured, size_t size)
{
    measure_side(s, p);
    const int64_t side = s->side;
    sgemm_race *r = race_new(s);
    if (r == NULL)
        return;
    add_problem(r, side, side, side, 1);
    add_candidate(r, p);
    const sgemm_kernels *row = sgemm_kernels_for(s->isa);
    const int64_t l2 = smm_caches()->l2.size > 0 ? smm_caches()->l2.size : 1 << 20;
    static const int64_t kcs[] = { 96, 128, 192, 256, 320, 384, 512 };
    for (int shape = 0; shape < row->nshapes; shape++) {
        tuning_params q;
        tuning_default_params(s->isa, shape, &q);
        q.team[TUNING_MANY] = p->team[TUNING_MANY]; /* untouched here; valid for the shape below */
        const int mr = row->shapes[shape].mr, nr = row->shapes[shape].nr;
        q.team[TUNING_MANY].mc = mc_for_bytes(l2 / 2, q.kc, mr);
        q.team[TUNING_MANY].nc = q.team[TUNING_ONE].nc;
        add_candidate(r, &q); /* the shape with the model's blocks */
        for (size_t ki = 0; ki < sizeof kcs / sizeof kcs[0]; ki++)
            for (int half = 1; half <= 2; half++) { /* A blocks of a quarter and a half of L2 */
                tuning_params c = q;
                c.kc = kcs[ki];
                c.team[TUNING_ONE].mc = mc_for_bytes(l2 * half / 4, c.kc, mr);
                c.team[TUNING_MANY].mc = c.team[TUNING_ONE].mc;
                c.team[TUNING_ONE].nc = c.team[TUNING_MANY].nc = q.team[TUNING_ONE].nc / nr * nr;
                add_candidate(r, &c);
            }
    }
    s->stage = "[1/8] kernel shape and kc, one thread";
    const double score = run_race(r, p);
    snprintf(measured, size, "kernel %.3fx at %lld", score, (long long)side);
    race_delete(r);
}

void tune_stage_threads(tune_session *s, tuning_params *p, char *measured, size_t size)
{
    const int64_t side = s->side;
    if (s->threads < 2) { /* one thread only: the several-thread team is the one-thread team */
        p->team[TUNING_MANY] = p->team[TUNING_ONE];
        snprintf(measured, size, "one thread only");
        return;
    }
    sgemm_race *r = race_new(s);
    if (r == NULL)
        return;
    const sgemm_shape *shape = &sgemm_kernels_for(s->isa)->shapes[p->shape];
    add_problem(r, side, side, side, s->threads);                       /* square */
    add_problem(r, 4 * shape->mr * s->threads, 2 * side, side, s->threads); /* a short m */
    add_problem(r, 2 * side, side / 4, side, s->threads);               /* a narrow n */
    add_candidate(r, p);
    tuning_params c = *p;
    c.team[TUNING_MANY] = p->team[TUNING_ONE];
    add_candidate(r, &c); /* the one-thread choice */
    static const sgemm_split splits[] = { SGEMM_SPLIT_AUTO, SGEMM_SPLIT_ROWS, SGEMM_SPLIT_COLUMNS };
    static const int64_t scale[] = { 1, 2, 4 };
    for (int si = 0; si < 3; si++)
        for (int mi = 0; mi < 3; mi++)
            for (int up = 0; up < 2; up++) {
                c = *p;
                c.team[TUNING_MANY].split = splits[si];
                const int64_t mc = p->team[TUNING_ONE].mc;
                c.team[TUNING_MANY].mc = up ? mc * scale[mi] : mc / scale[mi] / shape->mr * shape->mr;
                add_candidate(r, &c);
            }
    s->stage = "[3/8] split and mc, several threads";
    const double score = run_race(r, p);
    snprintf(measured, size, "split %.3fx at %dt", score, s->threads);
    race_delete(r);
}

void tune_stage_nc(tune_session *s, tuning_params *p, char *measured, size_t size)
{
    const int64_t side = s->side;
    sgemm_race *r = race_new(s);
    if (r == NULL)
        return;
    const int nr = sgemm_kernels_for(s->isa)->shapes[p->shape].nr;
    add_problem(r, side / 2, 4 * side, side, 1); /* wider than a block of most candidates */
    if (s->threads > 1)
        add_problem(r, side, 4 * side, side, s->threads);
    add_candidate(r, p);
    static const int64_t widths[] = { 1024, 2048, 3072, 4096, 6144, 8192 };
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        tuning_params c = *p;
        c.team[TUNING_ONE].nc = c.team[TUNING_MANY].nc = widths[w] / nr * nr;
        add_candidate(r, &c);
    }
    s->stage = "[2/8] nc";
    const double score = run_race(r, p);
    snprintf(measured, size, "nc %.3fx", score);
    race_delete(r);
}

void tune_stage_prefetch(tune_session *s, tuning_params *p, char *measured, size_t size)
{
    const int64_t side = s->side;
    static const int64_t distances[] = { 0, 4, 8, 16, 24, 32 };
    size_t used = 0;
    for (int team = 0; team < TUNING_TEAMS; team++) {
        if (team == TUNING_MANY && s->threads < 2) {
            p->team[TUNING_MANY].prefetch = p->team[TUNING_ONE].prefetch;
            break;
        }
        sgemm_race *r = race_new(s);
        if (r == NULL)
            return;
        add_problem(r, side, side, side, team == TUNING_ONE ? 1 : s->threads);
        add_candidate(r, p);
        for (size_t d = 0; d < sizeof distances / sizeof distances[0]; d++) {
            tuning_params c = *p;
            c.team[team].prefetch = distances[d];
            add_candidate(r, &c);
        }
        s->stage = team == TUNING_ONE ? "[4/8] prefetch distance, one thread" : "[4/8] prefetch distance, several threads";
        const double score = run_race(r, p);
        const int n = snprintf(measured + used, size - used, "%s%.3fx", used ? "/" : "prefetch ", score);
        used += n > 0 && (size_t)n < size - used ? (size_t)n : 0;
        race_delete(r);
    }
}

/* The small-product threshold: per cube side, the small-product path against the blocked one. */
void tune_stage_small(tune_session *s, tuning_params *p, char *measured, size_t size)
{
    if (sgemm_kernels_for(s->isa)->sup == NULL) {
        snprintf(measured, size, "no small-product path");
        return;
    }
    static const int64_t sides[] = { 32, 48, 64, 96, 128, 160, 192, 256, 320 };
    enum { NSIDES = sizeof sides / sizeof sides[0] };
    sgemm_race *r = race_new(s);
    if (r == NULL)
        return;
    const double stage_end = s->stage_end;
    int64_t last_win = 0; /* the largest side up to which the small-product path won every comparison */
    s->stage = "[5/8] small-product threshold";
    for (int i = 0; i < NSIDES && (i == 0 || tune_now() < stage_end); i++) {
        r->nproblems = 0;
        r->count = 0;
        add_problem(r, sides[i], sides[i], sides[i], 1);
        if (s->threads > 1)
            add_problem(r, sides[i], sides[i], sides[i], s->threads);
        tuning_params blocked = *p, small = *p;
        blocked.sup_max_macs = 0.0;
        small.sup_max_macs = (double)sides[i] * sides[i] * sides[i];
        r->cand[r->count++] = blocked;
        r->cand[r->count++] = small;
        /* each side gets an equal share of what is left */
        s->stage_end = tune_now() + (stage_end - tune_now()) / (NSIDES - i);
        tune_race_result res;
        race(r, &res);
        if (res.score[1] < 1.0)
            break;
        last_win = sides[i];
    }
    s->stage_end = stage_end;
    p->sup_max_macs = (double)last_win * last_win * last_win;
    snprintf(measured, size, "sup to %lld^3", (long long)last_win);
    race_delete(r);
}

void tune_stage_check(tune_session *s, tuning_params *p, const tuning_params *def, char *measured, size_t size)
{
    const int64_t side = s->side;
    sgemm_race *r = race_new(s);
    if (r == NULL)
        return;
    add_problem(r, side, side, side, 1);
    add_problem(r, side / 2, side / 2, side / 2, 1);
    if (s->threads > 1) {
        add_problem(r, 2 * side, side, side, s->threads);
        add_problem(r, side, side, side, s->threads);
    }
    /* the default's SGEMM core against the tuned one, everything else as tuned */
    tuning_params base = *p;
    base.shape = def->shape;
    base.kc = def->kc;
    base.team[TUNING_ONE] = def->team[TUNING_ONE];
    base.team[TUNING_MANY] = def->team[TUNING_MANY];
    r->cand[r->count++] = base;
    r->cand[r->count++] = *p;
    s->stage = "[8/8] tuned against default";
    tune_race_result res;
    race(r, &res);
    if (res.winner == 0)
        *p = base;
    snprintf(measured, size, "check %.3fx (%s)", res.score[1], res.winner ? "tuned kept" : "default kept");
    race_delete(r);
}
