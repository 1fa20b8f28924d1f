/*
 * sweep_dense.c - dense mode of sketchmm_sweep: approximate products
 * (approx_plan_create on B, then approx_plan_multiply: the work of one
 * approx_sgemm call, its two phases timed apart) against exact_sgemm on
 * C = A * B, one row per (method, size) of a context. See sweep.h.
 *
 * A holds the first m vectors of the data as rows (m x k, row-major) and B
 * the next n as columns (k x n, row-major, an explicit transposed copy). On
 * Fashion-MNIST the vectors are training images, whose pairwise cosines are
 * high, which is where sign-random-projection estimates do well.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "metrics.h"
#include "sweep_data.h"
#include "sweep_run.h"

typedef struct {
    int64_t m, n, k;
    const float *A, *B;
    float *Y, *Yhat;
    approx_options opts;
} dense_ctx;

static smm_status run_exact(void *ctx, double *seconds)
{
    const dense_ctx *c = ctx;
    double t0 = metrics_now();
    smm_status s = exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, c->m, c->n, c->k,
                               1.0f, c->A, c->k, c->B, c->n, 0.0f, c->Y, c->n);
    *seconds = metrics_now() - t0;
    return s;
}

/* approx_sgemm's work as its two phases: sketch B (plan), then A and the estimates. */
static smm_status run_approx(void *ctx, int variant, double phases[SWEEP_PHASES])
{
    const dense_ctx *c = ctx;
    (void)variant; /* one configuration per group */
    approx_plan *plan = NULL;
    approx_phase_times times;
    approx_call call = APPROX_CALL_INIT;
    call.times = &times;
    double t0 = metrics_now();
    smm_status s = approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, c->k, c->n, c->B, c->n, &c->opts, NULL, &plan);
    double t1 = metrics_now();
    if (s == SMM_OK)
        s = approx_plan_multiply(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, c->m, 1.0f, c->A, c->k, 0.0f, c->Yhat,
                                 c->n, &call);
    double t2 = metrics_now();
    sweep_call_phases(&times, phases);
    approx_plan_free(plan);
    phases[0] = t1 - t0;
    phases[1] = t2 - t1;
    return s;
}

static void print_table(FILE *f, const sweep_run *run, const sweep_context *ctx, const results_row *rows,
                        int nrows, double exact_s, double alignment)
{
    const sweep_config *cfg = ctx->cfg;
    fprintf(f, "\ndense: %s  m=%lld n=%lld k=%lld  threads=%d  isa=%s  seed=%llu  reps=%d\n",
            sweep_data_names[cfg->data], (long long)cfg->m, (long long)cfg->n, (long long)cfg->k,
            ctx->threads, run->isa, (unsigned long long)cfg->seed, cfg->reps);
    fprintf(f, "exact_sgemm (%s): %.6f s alone   alignment ||AB||_F/(||A||_F ||B||_F) = %.4f\n\n",
            exact_sgemm_kernel_name(), exact_s, alignment);
    fprintf(f, "%-20s %10s %6s %10s %10s %10s %9s %11s %11s %11s\n", "method", "size", "", "exact_s",
            "approx_s", "encode_b_s", "speedup", "nmse", "rel_fro", "max_abs");
    for (int i = 0; i < nrows; i++) {
        const results_row *r = &rows[i];
        const char *size_name = r->bits != 0 ? "bits" : "s";
        if (r->status != SMM_OK) {
            fprintf(f, "%-20s %10s %6d  failed: %s\n", r->method, size_name, (int)sweep_row_size(r),
                    dataset_status_str((smm_status)r->status));
            continue;
        }
        fprintf(f, "%-20s %10s %6d %10.6f %10.6f %10.6f %9.3g %11.4e %11.4e %11.4e\n", r->method, size_name,
                (int)sweep_row_size(r), r->exact_seconds, r->approx_seconds, r->encode_b_seconds, r->speedup,
                r->nmse, r->rel_fro_error, r->max_abs_error);
    }
}

int sweep_dense(sweep_run *run, const sweep_context *ctx)
{
    const sweep_config *cfg = ctx->cfg;
    const char *prog = run->prog;
    int total = 0;
    for (int i = 0; i < ctx->count; i++)
        total += ctx->pending[i];

    char msg[1024];
    sweep_vectors V;
    sweep_progress_note(run->progress, "dense: loading %s (%lld x %lld) ...", sweep_data_names[cfg->data],
                        (long long)(cfg->m + cfg->n), (long long)cfg->k);
    smm_status s = sweep_load_vectors(cfg, "train", cfg->m, "train", cfg->n, &V, msg, sizeof msg);
    if (s != SMM_OK) {
        sweep_progress_note(run->progress, "%s: cannot load %s: %s%s%s", prog, sweep_data_names[cfg->data],
                            dataset_status_str(s), msg[0] ? ": " : "", msg);
        return SWEEP_EXIT_RUN_FAILED;
    }
    dense_ctx c = { cfg->m, cfg->n, cfg->k, V.a, NULL, NULL, NULL, APPROX_OPTIONS_INIT };
    float *B = sweep_alloc(cfg->k, cfg->n, sizeof(float));
    c.Y = sweep_alloc(cfg->m, cfg->n, sizeof(float));
    c.Yhat = sweep_alloc(cfg->m, cfg->n, sizeof(float));
    double *exact_times = malloc((size_t)cfg->reps * sizeof *exact_times);
    double *phase_times = malloc((size_t)cfg->reps * SWEEP_PHASES * sizeof *phase_times);
    results_row *rows = calloc((size_t)(total > 0 ? total : 1), sizeof *rows);
    int exit_code = EXIT_SUCCESS;
    if (B == NULL || c.Y == NULL || c.Yhat == NULL || exact_times == NULL || phase_times == NULL ||
        rows == NULL) {
        sweep_progress_note(run->progress, "%s: %s for %lld x %lld results", prog,
                            dataset_status_str(SMM_ERR_NO_MEMORY), (long long)cfg->m, (long long)cfg->n);
        exit_code = SWEEP_EXIT_RUN_FAILED;
        goto done;
    }
    for (int64_t t = 0; t < cfg->k; t++)
        for (int64_t j = 0; j < cfg->n; j++)
            B[t * cfg->n + j] = V.b[j * cfg->k + t];
    c.B = B;

    /* The exact product alone: reference values and baseline time. */
    sweep_progress_note(run->progress, "dense: exact_sgemm m=%lld n=%lld k=%lld threads=%d (%s) ...",
                        (long long)cfg->m, (long long)cfg->n, (long long)cfg->k, ctx->threads,
                        exact_sgemm_kernel_name());
    double exact_s;
    s = sweep_time_reference(cfg->warmup, cfg->reps, run_exact, &c, &exact_s);
    if (s != SMM_OK) {
        sweep_progress_note(run->progress, "%s: exact_sgemm failed: %s", prog, dataset_status_str(s));
        exit_code = SWEEP_EXIT_RUN_FAILED;
        goto done;
    }
    double alignment = metrics_fro_norm(c.Y, cfg->m * cfg->n) /
                       (metrics_fro_norm(c.A, cfg->m * cfg->k) * metrics_fro_norm(B, cfg->k * cfg->n));
    sweep_progress_note(run->progress, "dense: exact_sgemm %.6f s, alignment %.4f", exact_s, alignment);

    /* One group per pending (method, size). */
    int nrows = 0;
    for (int i = 0; i < ctx->count; i++) {
        if (!ctx->pending[i])
            continue;
        const sweep_point *p = &ctx->points[i];
        results_row *row = &rows[nrows++];
        sweep_row_init(row, run, ctx, p, alignment);
        c.opts = sweep_options(ctx, p);
        smm_status status;
        s = sweep_time_rounds(cfg->warmup, cfg->reps, 1, run_exact, run_approx, &c, exact_times, phase_times,
                              &status);
        if (status == SMM_OK) {
            metrics_errors e;
            metrics_compare(c.Y, c.Yhat, cfg->m * cfg->n, &e);
            row->nmse = e.nmse;
            row->rel_fro_error = e.rel_fro_error;
            row->max_abs_error = e.max_abs_error;
        }
        int rc = sweep_row_finish(run, row, status, s != SMM_OK ? "exact_sgemm" : "approx_plan", exact_times,
                                  phase_times, cfg->reps);
        if (rc != 0)
            exit_code = rc > 0 ? rc : -1;
        if (rc < 0)
            goto done;
    }
    sweep_progress_end(run->progress); /* clear the progress line of a terminal first */
    print_table(stdout, run, ctx, rows, nrows, exact_s, alignment);
    fflush(stdout);

done:
    free(rows);
    free(phase_times);
    free(exact_times);
    free(c.Yhat);
    free(c.Y);
    free(B);
    sweep_vectors_free(&V);
    return exit_code;
}
