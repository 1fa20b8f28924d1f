/*
 * sweep_dense.c - dense mode of sketchmm_sweep: approx_sgemm against
 * exact_sgemm on C = A * B, one row per (method, size). See sweep.h.
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
#include "sweep.h"

typedef struct {
    const sweep_config *cfg;
    const float *A, *B;
    float *Y, *Yhat;
    approx_options opts;
} dense_ctx;

static smm_status run_exact(void *ctx, double *seconds)
{
    const dense_ctx *c = ctx;
    const sweep_config *cfg = c->cfg;
    double t0 = metrics_now();
    smm_status s = exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, cfg->m, cfg->n, cfg->k,
                               1.0f, c->A, cfg->k, c->B, cfg->n, 0.0f, c->Y, cfg->n);
    *seconds = metrics_now() - t0;
    return s;
}

static smm_status run_approx(void *ctx, int variant, double *seconds)
{
    const dense_ctx *c = ctx;
    const sweep_config *cfg = c->cfg;
    (void)variant; /* one configuration per group */
    double t0 = metrics_now();
    smm_status s = approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, cfg->m, cfg->n, cfg->k,
                                1.0f, c->A, cfg->k, c->B, cfg->n, 0.0f, c->Yhat, cfg->n, &c->opts);
    *seconds = metrics_now() - t0;
    return s;
}

static void print_table(FILE *f, const sweep_run *run, const results_row *rows, int nrows,
                        double exact_s, double alignment)
{
    const sweep_config *cfg = run->cfg;
    fprintf(f, "\ndense: %s  m=%lld n=%lld k=%lld  threads=%d  isa=%s  seed=%llu  reps=%d\n",
            sweep_data_names[cfg->data], (long long)cfg->m, (long long)cfg->n, (long long)cfg->k,
            run->threads, run->isa, (unsigned long long)cfg->seed, cfg->reps);
    fprintf(f, "exact_sgemm (%s): %.6f s alone   alignment ||AB||_F/(||A||_F ||B||_F) = %.4f\n\n",
            exact_sgemm_impl(), exact_s, alignment);
    fprintf(f, "%-20s %10s %6s %10s %10s %9s %11s %11s %11s\n", "method", "size", "", "exact_s",
            "approx_s", "speedup", "nmse", "rel_fro", "max_abs");
    for (int i = 0; i < nrows; i++) {
        const results_row *r = &rows[i];
        const char *size_name = r->bits != 0 ? "bits" : "s";
        if (r->status != SMM_OK) {
            fprintf(f, "%-20s %10s %6d  failed: %s\n", r->method, size_name, (int)sweep_row_size(r),
                    smm_status_str((smm_status)r->status));
            continue;
        }
        fprintf(f, "%-20s %10s %6d %10.6f %10.6f %9.3g %11.4e %11.4e %11.4e\n", r->method, size_name,
                (int)sweep_row_size(r), r->exact_seconds, r->approx_seconds, r->speedup, r->nmse,
                r->rel_fro_error, r->max_abs_error);
    }
}

int sweep_dense(const sweep_run *run)
{
    const sweep_config *cfg = run->cfg;
    const char *prog = run->prog;
    int total = 0;
    for (int i = 0; i < cfg->nmethods; i++)
        total += sweep_sizes(cfg, SWEEP_MODE_DENSE, cfg->methods[i])->count;

    char msg[1024];
    sweep_vectors V;
    fprintf(stderr, "dense: loading %s (%lld x %lld) ...\n", sweep_data_names[cfg->data],
            (long long)(cfg->m + cfg->n), (long long)cfg->k);
    smm_status s = sweep_load_vectors(cfg, "train", cfg->m, "train", cfg->n, &V, msg, sizeof msg);
    if (s != SMM_OK) {
        fprintf(stderr, "%s: cannot load %s: %s%s%s\n", prog, sweep_data_names[cfg->data],
                smm_status_str(s), msg[0] ? ": " : "", msg);
        return SWEEP_EXIT_RUN_FAILED;
    }
    dense_ctx c = { cfg, V.a, NULL, NULL, NULL, APPROX_OPTIONS_INIT };
    float *B = sweep_alloc(cfg->k, cfg->n, sizeof(float));
    c.Y = sweep_alloc(cfg->m, cfg->n, sizeof(float));
    c.Yhat = sweep_alloc(cfg->m, cfg->n, sizeof(float));
    double *exact_times = malloc((size_t)cfg->reps * sizeof *exact_times);
    double *approx_times = malloc((size_t)cfg->reps * sizeof *approx_times);
    results_row *rows = calloc((size_t)(total > 0 ? total : 1), sizeof *rows);
    int exit_code = EXIT_SUCCESS;
    if (B == NULL || c.Y == NULL || c.Yhat == NULL || exact_times == NULL || approx_times == NULL ||
        rows == NULL) {
        fprintf(stderr, "%s: %s for %lld x %lld results\n", prog, smm_status_str(SMM_ERR_NO_MEMORY),
                (long long)cfg->m, (long long)cfg->n);
        exit_code = SWEEP_EXIT_RUN_FAILED;
        goto done;
    }
    for (int64_t t = 0; t < cfg->k; t++)
        for (int64_t j = 0; j < cfg->n; j++)
            B[t * cfg->n + j] = V.b[j * cfg->k + t];
    c.B = B;

    /* The exact product alone: reference values and baseline time. */
    fprintf(stderr, "[dense 0/%d] exact_sgemm m=%lld n=%lld k=%lld threads=%d (%s) ...\n", total,
            (long long)cfg->m, (long long)cfg->n, (long long)cfg->k, run->threads, exact_sgemm_impl());
    double exact_s;
    s = sweep_time_reference(cfg->warmup, cfg->reps, run_exact, &c, &exact_s);
    if (s != SMM_OK) {
        fprintf(stderr, "%s: exact_sgemm failed: %s\n", prog, smm_status_str(s));
        exit_code = SWEEP_EXIT_RUN_FAILED;
        goto done;
    }
    double alignment = metrics_fro_norm(c.Y, cfg->m * cfg->n) /
                       (metrics_fro_norm(c.A, cfg->m * cfg->k) * metrics_fro_norm(B, cfg->k * cfg->n));
    fprintf(stderr, "[dense 0/%d] exact_sgemm %.6f s, alignment %.4f\n", total, exact_s, alignment);

    /* One group per (method, size). */
    int nrows = 0;
    for (int mi = 0; mi < cfg->nmethods; mi++) {
        approx_method method = cfg->methods[mi];
        const sweep_list *sizes = sweep_sizes(cfg, SWEEP_MODE_DENSE, method);
        for (int si = 0; si < sizes->count; si++) {
            results_row *row = &rows[nrows++];
            sweep_row_init(row, run, "dense", method, sizes->v[si], cfg->m, cfg->n, cfg->k, alignment);
            c.opts = sweep_options(run, method, sizes->v[si]);
            fprintf(stderr, "[dense %d/%d] %s %s=%d ...", nrows, total, row->method,
                    sweep_size_name(method), (int)sizes->v[si]);
            smm_status status;
            s = sweep_time_rounds(cfg->warmup, cfg->reps, 1, run_exact, run_approx, &c, exact_times,
                                  approx_times, &status);
            sweep_row_times(row, status, exact_times, approx_times, cfg->reps);
            if (status == SMM_OK) {
                metrics_errors e;
                metrics_compare(c.Y, c.Yhat, cfg->m * cfg->n, &e);
                row->nmse = e.nmse;
                row->rel_fro_error = e.rel_fro_error;
                row->max_abs_error = e.max_abs_error;
                fprintf(stderr, " exact %.6f s, approx %.6f s, speedup %.3g, nmse %.4e\n",
                        row->exact_seconds, row->approx_seconds, row->speedup, row->nmse);
            } else {
                fprintf(stderr, " %s failed: %s\n", s != SMM_OK ? "exact_sgemm" : "approx_sgemm",
                        smm_status_str(status));
                exit_code = SWEEP_EXIT_RUN_FAILED;
            }
            if (sweep_append(run, row) != SMM_OK) {
                exit_code = SWEEP_EXIT_RUN_FAILED;
                goto done;
            }
        }
    }
    print_table(stdout, run, rows, nrows, exact_s, alignment);

done:
    free(rows);
    free(approx_times);
    free(exact_times);
    free(c.Yhat);
    free(c.Y);
    free(B);
    sweep_vectors_free(&V);
    return exit_code;
}
