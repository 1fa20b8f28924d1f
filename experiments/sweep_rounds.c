/*
 * sweep_rounds.c - the timing scheme both sweep modes share, and the fields
 * every row has. See sweep.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "metrics.h"
#include "sweep.h"

smm_status sweep_time_rounds(int warmup, int reps, int nvariants, sweep_exact_fn exact,
                             sweep_approx_fn approx, void *ctx, double *exact_times,
                             double *approx_times, smm_status *status)
{
    double unused;
    for (int v = 0; v < nvariants; v++)
        status[v] = SMM_OK;
    for (int r = 0; r < warmup && status[0] == SMM_OK; r++)
        status[0] = approx(ctx, 0, &unused);
    for (int r = 0; r < reps; r++) {
        smm_status s = exact(ctx, &exact_times[r]);
        if (s != SMM_OK) {
            for (int v = 0; v < nvariants; v++)
                status[v] = s;
            return s;
        }
        for (int v = 0; v < nvariants; v++)
            if (status[v] == SMM_OK)
                status[v] = approx(ctx, v, &approx_times[v * reps + r]);
    }
    return SMM_OK;
}

smm_status sweep_time_reference(int warmup, int reps, sweep_exact_fn exact, void *ctx,
                                double *seconds)
{
    double *times = malloc((size_t)reps * sizeof *times);
    if (times == NULL)
        return SMM_ERR_NO_MEMORY;
    smm_status s = SMM_OK;
    for (int r = 0; r < warmup + reps && s == SMM_OK; r++) {
        double t;
        s = exact(ctx, &t);
        if (r >= warmup)
            times[r - warmup] = t;
    }
    *seconds = s == SMM_OK ? metrics_median(times, reps) : NAN;
    free(times);
    return s;
}

const char *sweep_size_name(approx_method method)
{
    return approx_method_uses_bits(method) ? "bits" : "sketch_dim";
}

int32_t sweep_row_size(const results_row *row)
{
    return row->bits != 0 ? row->bits : row->sketch_dim;
}

void sweep_row_init(results_row *row, const sweep_run *run, const char *mode, approx_method method,
                    int32_t size, int64_t m, int64_t n, int64_t k, double alignment)
{
    const sweep_config *cfg = run->cfg;
    results_row r = { 0 };
    results_set_string(r.mode, sizeof r.mode, mode);
    results_set_string(r.method, sizeof r.method, approx_method_name(method));
    results_set_string(r.dataset, sizeof r.dataset, sweep_data_names[cfg->data]);
    results_set_string(r.isa, sizeof r.isa, run->isa);
    r.m = m;
    r.n = n;
    r.k = k;
    if (approx_method_uses_bits(method))
        r.bits = size;
    else
        r.sketch_dim = size;
    r.seed = cfg->seed;
    r.threads = run->threads;
    r.status = SMM_OK;
    r.exact_seconds = r.approx_seconds = r.speedup = NAN;
    r.nmse = r.rel_fro_error = r.max_abs_error = NAN;
    r.recall = r.recall_index = r.max_value_error = NAN;
    r.alignment = alignment;
    *row = r;
}

void sweep_row_times(results_row *row, smm_status status, const double *exact_times,
                     const double *approx_times, int reps)
{
    row->status = (int32_t)status;
    if (status != SMM_OK)
        return;
    row->exact_seconds = metrics_median(exact_times, reps);
    row->approx_seconds = metrics_median(approx_times, reps);
    row->speedup = row->exact_seconds / row->approx_seconds;
}

smm_status sweep_append(const sweep_run *run, const results_row *row)
{
    smm_status s = results_append(run->rf, row);
    if (s != SMM_OK)
        fprintf(stderr, "%s: cannot append to %s: %s\n", run->prog, run->cfg->out, smm_status_str(s));
    return s;
}

approx_options sweep_options(const sweep_run *run, approx_method method, int32_t size)
{
    approx_options opts;
    approx_options_init(&opts);
    opts.method = method;
    if (approx_method_uses_bits(method))
        opts.bits = size;
    else
        opts.sketch_dim = size;
    opts.seed = run->cfg->seed;
    opts.num_threads = run->threads;
    return opts;
}

void *sweep_alloc(int64_t a, int64_t b, size_t elem)
{
    if (a <= 0 || b <= 0 || a > INT64_MAX / b || (uint64_t)(a * b) > SIZE_MAX / elem)
        return NULL;
    return malloc((size_t)(a * b) * elem);
}
