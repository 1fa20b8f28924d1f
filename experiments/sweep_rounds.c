/*
 * sweep_rounds.c - the timing scheme both sweep modes share, and the fields
 * every row has. See sweep.h.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "sweep_run.h"

smm_status sweep_time_rounds(int warmup, int reps, int nvariants, sweep_exact_fn exact,
                             sweep_approx_fn approx, void *ctx, double *exact_times,
                             double *phase_times, smm_status *status)
{
    double unused[SWEEP_PHASES];
    for (int v = 0; v < nvariants; v++)
        status[v] = SMM_OK;
    for (int r = 0; r < warmup && status[0] == SMM_OK; r++)
        status[0] = approx(ctx, 0, unused);
    for (int r = 0; r < reps; r++) {
        smm_status s = exact(ctx, &exact_times[r]);
        if (s != SMM_OK) {
            for (int v = 0; v < nvariants; v++)
                status[v] = s;
            return s;
        }
        for (int v = 0; v < nvariants; v++)
            if (status[v] == SMM_OK)
                status[v] = approx(ctx, v, &phase_times[((size_t)v * (size_t)reps + (size_t)r) * SWEEP_PHASES]);
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

int32_t sweep_row_size(const results_row *row)
{
    return row->bits != 0 ? row->bits : row->sketch_dim;
}

void sweep_row_init(results_row *row, const sweep_run *run, const sweep_context *ctx,
                    const sweep_point *p, double alignment)
{
    results_row r = { 0 };
    r.config_hash = p->hash;
    r.config_index = p->index;
    results_set_string(r.mode, sizeof r.mode, p->mode == SWEEP_MODE_DENSE ? "dense" : "topk");
    results_set_string(r.method, sizeof r.method, sketch_method_name(p->method));
    results_set_string(r.dataset, sizeof r.dataset, sweep_data_names[p->data]);
    results_set_string(r.isa, sizeof r.isa, run->isa);
    r.m = p->m;
    r.n = p->n;
    r.k = p->k;
    if (sketch_method_uses_bits(p->method))
        r.bits = p->size;
    else
        r.sketch_dim = p->size;
    r.bytes_per_vector = sweep_bytes_per_vector(p->method, p->size, p->k);
    r.topk = p->topk;
    r.candidates = p->candidates;
    r.seed = p->seed;
    r.threads = ctx->threads;
    r.status = SMM_OK;
    r.exact_seconds = r.approx_seconds = r.encode_b_seconds = r.rest_seconds = r.speedup = NAN;
    r.encode_a_seconds = r.estimate_seconds = r.refine_seconds = NAN;
    r.nmse = r.rel_fro_error = r.max_abs_error = NAN;
    r.recall = r.recall_index = r.max_value_error = NAN;
    r.recall_at_1 = r.recall_at_10 = r.recall_at_100 = NAN;
    r.alignment = alignment;
    *row = r;
}

void sweep_call_phases(const approx_phase_times *t, double phases[SWEEP_PHASES])
{
    phases[2] = t->encode_a;
    phases[3] = t->estimate;
    phases[4] = t->refine;
}

/* Medians of a variant's phases over reps rounds, and of the per-round totals (encode B + rest). */
static void phase_medians(const double *phase_times, int reps, results_row *row)
{
    double *t = malloc((size_t)reps * sizeof *t);
    double *out[SWEEP_PHASES] = { &row->encode_b_seconds, &row->rest_seconds, &row->encode_a_seconds,
                                  &row->estimate_seconds, &row->refine_seconds };
    for (int ph = 0; ph <= SWEEP_PHASES; ph++) {
        double *dst = ph < SWEEP_PHASES ? out[ph] : &row->approx_seconds;
        if (t == NULL) {
            *dst = NAN;
            continue;
        }
        for (int r = 0; r < reps; r++)
            t[r] = ph < SWEEP_PHASES ? phase_times[SWEEP_PHASES * r + ph]
                                     : phase_times[SWEEP_PHASES * r] + phase_times[SWEEP_PHASES * r + 1];
        *dst = metrics_median(t, reps);
    }
    free(t);
}

int sweep_row_finish(sweep_run *run, results_row *row, smm_status status, const char *failed_call,
                     const double *exact_times, const double *phase_times, int reps)
{
    char what[512];
    int len = snprintf(what, sizeof what, "%s %s %s %s=%d", row->mode, row->dataset, row->method,
                       row->bits != 0 ? "bits" : "sketch_dim", (int)sweep_row_size(row));
    if (row->candidates != 0 && len > 0 && (size_t)len < sizeof what)
        len += snprintf(what + len, sizeof what - (size_t)len, " candidates=%d", (int)row->candidates);
    size_t used = len > 0 && (size_t)len < sizeof what ? (size_t)len : sizeof what - 1;

    row->status = (int32_t)status;
    int rc = 0;
    if (status == SMM_OK) {
        row->exact_seconds = metrics_median(exact_times, reps);
        phase_medians(phase_times, reps, row);
        row->speedup = row->exact_seconds / row->approx_seconds;
        if (row->mode[0] == 'd')
            snprintf(what + used, sizeof what - used, ": exact %.4g s, approx %.4g s, speedup %.3g, nmse %.4e",
                     row->exact_seconds, row->approx_seconds, row->speedup, row->nmse);
        else
            snprintf(what + used, sizeof what - used, ": exact %.4g s, approx %.4g s, speedup %.3g, recall %.4f",
                     row->exact_seconds, row->approx_seconds, row->speedup, row->recall);
    } else {
        snprintf(what + used, sizeof what - used, ": %s failed: %s", failed_call, dataset_status_str(status));
        rc = SWEEP_EXIT_RUN_FAILED;
    }
    sweep_progress_step(run->progress, what);

    char msg[1024];
    smm_status s = sweep_output_append(run, row, msg, sizeof msg);
    if (s != SMM_OK) {
        sweep_progress_note(run->progress, "%s: cannot append to %s: %s", run->prog, run->cfg->out, msg);
        return -1;
    }
    run->appended++;
    if (run->stop_after > 0 && run->appended >= run->stop_after) {
        /* Test hook: die like a killed job, the row just flushed being the last. */
        fflush(NULL);
        raise(SIGKILL);
    }
    return rc;
}

approx_options sweep_options(const sweep_context *ctx, const sweep_point *p)
{
    approx_options opts;
    approx_options_init(&opts);
    opts.method = p->method;
    opts.size = p->size;
    opts.seed = p->seed;
    opts.flags = APPROX_BORROW_B; /* as approx_sgemm and approx_topk, which read the caller's op(B) */
    opts.num_threads = ctx->threads;
    if (p->mode == SWEEP_MODE_TOPK)
        opts.candidates = p->candidates;
    return opts;
}

void *sweep_alloc(int64_t a, int64_t b, size_t elem)
{
    if (a <= 0 || b <= 0 || a > INT64_MAX / b || (uint64_t)(a * b) > SIZE_MAX / elem)
        return NULL;
    return malloc((size_t)(a * b) * elem);
}
