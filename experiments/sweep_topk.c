/*
 * sweep_topk.c - top-k mode of sketchmm_sweep: approximate top-k
 * (approx_plan_create on the database, then approx_plan_topk: the work of
 * one approx_topk call, its two phases timed apart) against exact_topk, one
 * row per (method, size, candidates) of a context. See sweep.h.
 *
 * Queries (m x k) and database (n x k) are both stored one vector per row,
 * row-major; the product is queries * database^T, so every call passes the
 * database with transb = SMM_TRANS and ldb = k.
 *
 * Quality of a result (idx, val of m x topk), against the exact top-k E_i of
 * each query from the reference run of exact_topk, with every dot product
 * <a_i, b_j> recomputed in double here:
 *   recall          recall@topk as topk_recall.h defines it (shared with
 *                   sketchmm_bench topk): the mean over i of the share of
 *                   returned j with float(<a_i, b_j>) >= min over E_i of
 *                   float(<a_i, b_j'>): ties with the exact k-th value count
 *                   as hits, so the figure does not depend on how ties were
 *                   broken;
 *   recall_index    mean over i of |returned indices in E_i| / topk;
 *   max_value_error max |val - <a_i, b_j>| over every returned entry;
 *   recall_at_t     for t in 1, 10, 100 up to topk: recall of the first t
 *                   returned entries against the exact top-t (threshold the
 *                   smallest of the first t exact values), from the same call.
 * The recomputation costs 2 m topk k flops per result, nothing next to the
 * products; it runs outside the timed calls.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "topk_recall.h"
#include "sweep_data.h"
#include "sweep_run.h"

/* The cuts t of recall_at_t; a cut above topk is not measured (NaN). */
#define TOPK_NUM_CUTS 3
static const int64_t topk_cuts[TOPK_NUM_CUTS] = { 1, 10, 100 };

typedef struct {
    double recall, recall_index, max_value_error;
    double recall_at[TOPK_NUM_CUTS];
} topk_quality;

typedef struct {
    const float *Q, *D;        /* queries m x k, database n x k, row-major */
    int64_t m, n, k, K;
    int64_t *ref_idx;          /* exact top-K of the reference run, m x K */
    float *ref_thr;            /* per cut (TOPK_NUM_CUTS, then K), per query: topk_recall_thresholds */
    int64_t *idx;              /* output of the run being timed, m x K */
    float *val;
    const approx_options *opts; /* per variant */
    topk_quality *quality;     /* per variant, set after its first successful run */
    int *evaluated;            /* per variant */
} topk_ctx;

static smm_status run_exact(void *ctx, double *seconds)
{
    const topk_ctx *c = ctx;
    double t0 = metrics_now();
    smm_status s = exact_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, c->m, c->n, c->k, c->Q, c->k,
                              c->D, c->k, c->K, c->idx, c->val, c->K);
    *seconds = metrics_now() - t0;
    return s;
}

/* The quality of (c->idx, c->val) against the reference. */
static topk_quality evaluate(const topk_ctx *c)
{
    int64_t index_hits = 0;
    double max_err = 0.0;
    for (int64_t i = 0; i < c->m; i++) {
        const float *q = c->Q + i * c->k;
        const int64_t *ref = c->ref_idx + i * c->K;
        for (int64_t t = 0; t < c->K; t++) {
            int64_t j = c->idx[i * c->K + t];
            if (j < 0 || j >= c->n) { /* not a column: a miss with an unbounded error */
                max_err = INFINITY;
                continue;
            }
            for (int64_t u = 0; u < c->K; u++)
                if (ref[u] == j) {
                    index_hits++;
                    break;
                }
            double err = fabs((double)c->val[i * c->K + t] - topk_dot_double(q, c->D + j * c->k, c->k));
            if (!(err <= max_err)) /* NaN propagates */
                max_err = err;
        }
    }
    double total = (double)c->m * (double)c->K;
    topk_quality qual = { topk_recall(c->Q, c->D, c->m, c->n, c->k, c->idx, c->K, c->K,
                                      c->ref_thr + TOPK_NUM_CUTS * c->m),
                          (double)index_hits / total, max_err, { 0 } };
    for (int u = 0; u < TOPK_NUM_CUTS; u++)
        qual.recall_at[u] = topk_cuts[u] <= c->K ? topk_recall(c->Q, c->D, c->m, c->n, c->k, c->idx, c->K,
                                                               topk_cuts[u], c->ref_thr + u * c->m)
                                                 : NAN;
    return qual;
}

/* approx_topk's work as its two phases: sketch the database (plan), then the queries, estimates, refinement. */
static smm_status run_approx(void *ctx, int variant, double phases[SWEEP_PHASES])
{
    topk_ctx *c = ctx;
    approx_plan *plan = NULL;
    approx_phase_times times;
    approx_call call = APPROX_CALL_INIT;
    call.times = &times;
    double t0 = metrics_now();
    smm_status s = approx_plan_create(SMM_ROW_MAJOR, SMM_TRANS, c->k, c->n, c->D, c->k, &c->opts[variant], NULL,
                                      &plan);
    double t1 = metrics_now();
    if (s == SMM_OK)
        s = approx_plan_topk(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, c->m, c->Q, c->k, c->K, c->idx, c->val, c->K, &call);
    double t2 = metrics_now();
    sweep_call_phases(&times, phases);
    approx_plan_free(plan);
    phases[0] = t1 - t0;
    phases[1] = t2 - t1;
    if (s == SMM_OK && !c->evaluated[variant]) {
        c->quality[variant] = evaluate(c);
        c->evaluated[variant] = 1;
    }
    return s;
}

/*
 * The reference thresholds: float(min over the first t of the exact top-K of
 * <a_i, b_j>), in double, for each cut t (then K).
 */
static void reference_thresholds(topk_ctx *c)
{
    for (int u = 0; u <= TOPK_NUM_CUTS; u++) {
        const int64_t t = u < TOPK_NUM_CUTS ? topk_cuts[u] : c->K;
        if (t <= c->K)
            topk_recall_thresholds(c->Q, c->D, c->m, c->k, c->ref_idx, c->K, t, c->ref_thr + u * c->m);
    }
}

/*
 * ||Q D^T||_F / (||Q||_F ||D||_F) without forming Q D^T: ||Q D^T||_F^2 =
 * <Q^T Q, D^T D>_F, two k x k Gram matrices. NaN if they cannot be computed.
 */
static double alignment_from_grams(const topk_ctx *c)
{
    float *G = sweep_alloc(2 * c->k, c->k, sizeof(float));
    if (G == NULL)
        return NAN;
    float *H = G + c->k * c->k;
    smm_status s = exact_sgemm(SMM_ROW_MAJOR, SMM_TRANS, SMM_NO_TRANS, c->k, c->k, c->m, 1.0f, c->Q,
                               c->k, c->Q, c->k, 0.0f, G, c->k);
    if (s == SMM_OK)
        s = exact_sgemm(SMM_ROW_MAJOR, SMM_TRANS, SMM_NO_TRANS, c->k, c->k, c->n, 1.0f, c->D, c->k,
                        c->D, c->k, 0.0f, H, c->k);
    double inner = 0.0;
    for (int64_t t = 0; s == SMM_OK && t < c->k * c->k; t++)
        inner += (double)G[t] * (double)H[t];
    free(G);
    if (s != SMM_OK)
        return NAN;
    return sqrt(inner) / (metrics_fro_norm(c->Q, c->m * c->k) * metrics_fro_norm(c->D, c->n * c->k));
}

static void print_table(FILE *f, const sweep_run *run, const sweep_context *ctx, const results_row *rows,
                        int nrows, double exact_s, double alignment)
{
    const sweep_config *cfg = ctx->cfg;
    fprintf(f, "\ntopk: %s  queries=%lld database=%lld k=%lld topk=%lld  threads=%d  isa=%s  "
               "seed=%llu  reps=%d\n",
            sweep_data_names[cfg->data], (long long)cfg->queries, (long long)cfg->database,
            (long long)cfg->k, (long long)cfg->topk, ctx->threads, run->isa,
            (unsigned long long)cfg->seed, cfg->topk_reps);
    fprintf(f, "exact_topk: %.6f s alone   alignment ||AB||_F/(||A||_F ||B||_F) = %.4f\n\n", exact_s,
            alignment);
    fprintf(f, "%-20s %5s %6s %6s %10s %10s %10s %9s %8s %8s %8s %11s\n", "method", "size", "", "cand",
            "exact_s", "approx_s", "encode_b_s", "speedup", "recall", "rec@1", "rec_idx", "max_val_err");
    for (int i = 0; i < nrows; i++) {
        const results_row *r = &rows[i];
        const char *size_name = r->bits != 0 ? "bits" : "s";
        if (r->status != SMM_OK) {
            fprintf(f, "%-20s %5s %6d %6d  failed: %s\n", r->method, size_name, (int)sweep_row_size(r),
                    (int)r->candidates, dataset_status_str((smm_status)r->status));
            continue;
        }
        fprintf(f, "%-20s %5s %6d %6d %10.4f %10.4f %10.4f %9.3g %8.4f %8.4f %8.4f %11.3e\n", r->method,
                size_name, (int)sweep_row_size(r), (int)r->candidates, r->exact_seconds, r->approx_seconds,
                r->encode_b_seconds, r->speedup, r->recall, r->recall_at_1, r->recall_index,
                r->max_value_error);
    }
}

/* Per-group buffers, sized for the method with the most variants. */
typedef struct {
    approx_options *opts;
    topk_quality *quality;
    int *evaluated;
    smm_status *status;
    double *exact_times, *phase_times;
    const sweep_point **points;
} group_buffers;

static int group_buffers_alloc(group_buffers *g, int max_variants, int reps)
{
    size_t nv = (size_t)max_variants;
    g->opts = calloc(nv, sizeof *g->opts);
    g->points = calloc(nv, sizeof *g->points);
    g->quality = calloc(nv, sizeof *g->quality);
    g->evaluated = calloc(nv, sizeof *g->evaluated);
    g->status = calloc(nv, sizeof *g->status);
    g->exact_times = calloc((size_t)reps, sizeof *g->exact_times);
    g->phase_times = calloc(nv * (size_t)reps * SWEEP_PHASES, sizeof *g->phase_times);
    return g->opts && g->points && g->quality && g->evaluated && g->status && g->exact_times && g->phase_times;
}

static void group_buffers_free(group_buffers *g)
{
    free(g->opts);
    free(g->quality);
    free(g->evaluated);
    free(g->status);
    free(g->exact_times);
    free(g->phase_times);
    free(g->points);
}

/* Time one group (the pending configurations of one method) and append its rows; sweep_row_finish's codes. */
static int run_group(sweep_run *run, const sweep_context *ctx, topk_ctx *c, group_buffers *g, int nv,
                     double alignment, results_row *rows, int *nrows)
{
    const sweep_config *cfg = ctx->cfg;
    for (int v = 0; v < nv; v++) {
        g->opts[v] = sweep_options(ctx, g->points[v]);
        g->evaluated[v] = 0;
    }
    sweep_progress_note(run->progress, "topk: %s: %d configurations, %d rounds ...",
                        sketch_method_name(g->points[0]->method), nv, cfg->topk_reps);
    smm_status s = sweep_time_rounds(cfg->warmup, cfg->topk_reps, nv, run_exact, run_approx, c, g->exact_times,
                                     g->phase_times, g->status);
    int exit_code = 0;
    for (int v = 0; v < nv; v++) {
        results_row *row = &rows[(*nrows)++];
        sweep_row_init(row, run, ctx, g->points[v], alignment);
        if (g->status[v] == SMM_OK) {
            row->recall = g->quality[v].recall;
            row->recall_index = g->quality[v].recall_index;
            row->max_value_error = g->quality[v].max_value_error;
            row->recall_at_1 = g->quality[v].recall_at[0];
            row->recall_at_10 = g->quality[v].recall_at[1];
            row->recall_at_100 = g->quality[v].recall_at[2];
        }
        int rc = sweep_row_finish(run, row, g->status[v], s != SMM_OK ? "exact_topk" : "approx_plan_topk",
                                  g->exact_times, g->phase_times + (size_t)v * (size_t)cfg->topk_reps * SWEEP_PHASES,
                                  cfg->topk_reps);
        if (rc < 0)
            return -1;
        if (rc > 0)
            exit_code = rc;
    }
    return exit_code;
}

int sweep_topk(sweep_run *run, const sweep_context *ctx)
{
    const sweep_config *cfg = ctx->cfg;
    const char *prog = run->prog;
    int total = 0, max_variants = 1;
    for (int i = 0; i < ctx->count; i++)
        total += ctx->pending[i];
    for (int i = 0, run_len = 0; i < ctx->count; i++) {
        /* pending configurations of one method are a contiguous run of the context */
        run_len = (i > 0 && ctx->points[i].method == ctx->points[i - 1].method) ? run_len + ctx->pending[i]
                                                                                 : ctx->pending[i];
        if (run_len > max_variants)
            max_variants = run_len;
    }

    char msg[1024];
    sweep_vectors V;
    sweep_progress_note(run->progress, "topk: loading %s (%lld queries, %lld database vectors, k = %lld) ...",
                        sweep_data_names[cfg->data], (long long)cfg->queries, (long long)cfg->database,
                        (long long)cfg->k);
    smm_status s = sweep_load_vectors(cfg, "t10k", cfg->queries, "train", cfg->database, &V, msg,
                                      sizeof msg);
    if (s != SMM_OK) {
        sweep_progress_note(run->progress, "%s: cannot load %s: %s%s%s", prog, sweep_data_names[cfg->data],
                            dataset_status_str(s), msg[0] ? ": " : "", msg);
        return SWEEP_EXIT_RUN_FAILED;
    }
    topk_ctx c;
    memset(&c, 0, sizeof c);
    c.Q = V.a;
    c.D = V.b;
    c.m = cfg->queries;
    c.n = cfg->database;
    c.k = cfg->k;
    c.K = cfg->topk;
    c.ref_idx = sweep_alloc(c.m, c.K, sizeof(int64_t));
    c.ref_thr = sweep_alloc(c.m, TOPK_NUM_CUTS + 1, sizeof(float));
    c.idx = sweep_alloc(c.m, c.K, sizeof(int64_t));
    c.val = sweep_alloc(c.m, c.K, sizeof(float));
    group_buffers g;
    int buffers_ok = group_buffers_alloc(&g, max_variants, cfg->topk_reps);
    results_row *rows = calloc((size_t)(total > 0 ? total : 1), sizeof *rows);
    int exit_code = EXIT_SUCCESS;
    if (c.ref_idx == NULL || c.ref_thr == NULL || c.idx == NULL || c.val == NULL ||
        !buffers_ok || rows == NULL) {
        sweep_progress_note(run->progress, "%s: %s for the top-k results", prog,
                            dataset_status_str(SMM_ERR_NO_MEMORY));
        exit_code = SWEEP_EXIT_RUN_FAILED;
        goto done;
    }

    /* The exact top-k alone: ground truth and baseline time. */
    sweep_progress_note(run->progress, "topk: exact_topk queries=%lld database=%lld k=%lld topk=%lld threads=%d ...",
                        (long long)c.m, (long long)c.n, (long long)c.k, (long long)c.K, ctx->threads);
    double exact_s;
    s = sweep_time_reference(cfg->warmup, 1, run_exact, &c, &exact_s);
    if (s != SMM_OK) {
        sweep_progress_note(run->progress, "%s: exact_topk failed: %s", prog, dataset_status_str(s));
        exit_code = SWEEP_EXIT_RUN_FAILED;
        goto done;
    }
    memcpy(c.ref_idx, c.idx, (size_t)(c.m * c.K) * sizeof *c.idx);
    reference_thresholds(&c);
    double alignment = alignment_from_grams(&c);
    sweep_progress_note(run->progress, "topk: exact_topk %.4f s, alignment %.4f", exact_s, alignment);

    /* One group per method: its pending sizes and candidate counts. */
    int nrows = 0;
    c.opts = g.opts;
    c.quality = g.quality;
    c.evaluated = g.evaluated;
    for (int i = 0; i < ctx->count;) {
        int nv = 0, j = i;
        for (; j < ctx->count && ctx->points[j].method == ctx->points[i].method; j++)
            if (ctx->pending[j])
                g.points[nv++] = &ctx->points[j];
        i = j;
        if (nv == 0)
            continue;
        int rc = run_group(run, ctx, &c, &g, nv, alignment, rows, &nrows);
        if (rc != 0)
            exit_code = rc;
        if (rc < 0)
            goto done;
    }
    sweep_progress_end(run->progress); /* clear the progress line of a terminal first */
    print_table(stdout, run, ctx, rows, nrows, exact_s, alignment);
    fflush(stdout);

done:
    free(rows);
    group_buffers_free(&g);
    free(c.val);
    free(c.idx);
    free(c.ref_thr);
    free(c.ref_idx);
    sweep_vectors_free(&V);
    return exit_code;
}
