/*
 * tune_topk.c - the tuner's exact_topk stage (tune.h): the block of scores
 * (rows per task, columns per block) exact_topk streams, raced on the
 * several-thread count with the SGEMM configuration chosen so far active.
 *
 * The problem: the 10 largest inner products of queries against database
 * vectors of dimension 784 (Fashion-MNIST's, the length the sweep's top-k
 * mode uses), uniform values in [0, 1) like pixel data; about 3 side^3
 * multiply-adds per thread (a 1024 x 8192 score matrix on two threads at
 * side 1024), so a call takes about as long as three of the SGEMM stages'
 * one-thread products.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "approx/exact_topk.h"
#include "tune/tune.h"

#define TOPK_MAX_QUERIES 1024
#define TOPK_MIN_QUERIES 64
#define TOPK_DIM 784
#define TOPK_K 10

typedef struct {
    tune_session *s;
    smm_context ctx;
    float *queries, *database;
    int64_t m, n;
    int64_t *idx;
    float *val;
    topk_shape blocks[TUNE_MAX_CANDIDATES];
    int count;
} topk_race;

static double topk_time(void *arg, int c)
{
    topk_race *r = arg;
    const double start = tune_now();
    const smm_status st = exact_topk_with(&r->ctx, &r->blocks[c], SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS,
                                          r->m, r->n, TOPK_DIM, r->queries, TOPK_DIM, r->database, TOPK_DIM,
                                          TOPK_K, r->idx, r->val, TOPK_K);
    return st == SMM_OK ? tune_now() - start : -1.0;
}

static void topk_name(void *arg, int c, char *buf, size_t size)
{
    const topk_race *r = arg;
    snprintf(buf, size, "block %lld x %lld", (long long)r->blocks[c].rows, (long long)r->blocks[c].cols);
}

void tune_stage_topk(tune_session *s, tuning_params *p, char *measured, size_t size)
{
    topk_race r;
    memset(&r, 0, sizeof r);
    r.s = s;
    r.ctx.isa = s->isa;
    r.ctx.threads = s->threads;
    const double scores = 3.0 * (double)s->side * (double)s->side * (double)s->side * s->threads / TOPK_DIM;
    r.m = (int64_t)sqrt(scores / 8.0);
    r.m = r.m < TOPK_MIN_QUERIES ? TOPK_MIN_QUERIES : r.m > TOPK_MAX_QUERIES ? TOPK_MAX_QUERIES : r.m;
    r.n = (int64_t)(scores / (double)r.m) / 64 * 64;
    r.n = r.n < 256 ? 256 : r.n;
    r.queries = smm_aligned_alloc((size_t)r.m * TOPK_DIM * sizeof(float));
    r.database = smm_aligned_alloc((size_t)r.n * TOPK_DIM * sizeof(float));
    r.idx = smm_aligned_alloc((size_t)r.m * TOPK_K * sizeof(int64_t));
    r.val = smm_aligned_alloc((size_t)r.m * TOPK_K * sizeof(float));
    if (r.queries && r.database && r.idx && r.val) {
        uint64_t state = 0x9E3779B97F4A7C15ull;
        for (int64_t i = 0; i < r.m * TOPK_DIM; i++)
            r.queries[i] = (float)((state = state * 6364136223846793005ull + 1442695040888963407ull) >> 40) * 0x1.0p-24f;
        for (int64_t i = 0; i < r.n * TOPK_DIM; i++)
            r.database[i] = (float)((state = state * 6364136223846793005ull + 1442695040888963407ull) >> 40) * 0x1.0p-24f;
        r.blocks[r.count++] = (topk_shape){ p->topk_rows, p->topk_cols };
        static const int64_t rows[] = { 128, 256, 384, 512 }, cols[] = { 1024, 2048, 4096 };
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
            for (size_t j = 0; j < sizeof cols / sizeof cols[0]; j++)
                if (rows[i] != p->topk_rows || cols[j] != p->topk_cols)
                    r.blocks[r.count++] = (topk_shape){ rows[i], cols[j] };
        s->stage = "[6/8] exact_topk block";
        topk_time(&r, 0); /* warm-up */
        tune_race_result res;
        tune_race(s, r.count, topk_time, topk_name, &r, &res);
        p->topk_rows = r.blocks[res.winner].rows;
        p->topk_cols = r.blocks[res.winner].cols;
        snprintf(measured, size, "topk %lldx%lld %.3fx", (long long)p->topk_rows, (long long)p->topk_cols,
                 res.score[res.winner]);
    }
    smm_aligned_free(r.queries);
    smm_aligned_free(r.database);
    smm_aligned_free(r.idx);
    smm_aligned_free(r.val);
}
