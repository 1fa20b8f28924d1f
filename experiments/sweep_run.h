/*
 * sweep_run.h - one run of a sweep: what its rows share, its results file
 * (sweep_output.c), the timing scheme and rows (sweep_rounds.c) and the two
 * modes (sweep_dense.c, sweep_topk.c).
 */
#ifndef SKETCHMM_SWEEP_RUN_H
#define SKETCHMM_SWEEP_RUN_H

#include "results_h5.h"
#include "sweep_grid.h"
#include "sweep_progress.h"

/*
 * The configurations of one context still to run: points[0..count) of the
 * grid (same mode, dataset, shape, seed, threads), pending[i] == 1 for those
 * to run (not in this shard or already in the file: 0).
 */
typedef struct {
    const sweep_config *cfg;   /* a copy with data, seed, k, m, n, queries, database set */
    const sweep_point *points;
    const unsigned char *pending;
    int count;
    int threads;               /* resolved */
} sweep_context;


/* What every row of a run shares. */
typedef struct {
    const sweep_config *cfg;
    const char *prog;   /* argv[0], for messages */
    const char *isa;    /* name of the ISA path */
    results_file *rf;   /* NULL until the first row of a new file */
    sweep_progress *progress;
    int64_t appended;   /* rows appended by this run */
    int64_t stop_after; /* test hook SKETCHMM_SWEEP_TEST_STOP_AFTER; 0: none */
    /* what a new file's attributes record (sweep_output.c) */
    const char *spec;   /* canonical spec */
    int64_t grid_size;
    int argc;
    char **argv;
    char start_time[64], load_at_start[128];
} sweep_run;


/*
 * Where the rows of run go. When run->cfg->out exists and --overwrite is not
 * given, it is checked read-only first: it must hold the same spec and
 * every row must be sound (sweep_check_rows against grid); a file that is
 * not is refused with a message on stderr and left byte for byte as it was.
 * A sound one is reopened to append (resume) and *done receives the sorted
 * config hashes of its rows (*ndone of them). Otherwise nothing is written
 * yet: sweep_output_append creates the file with the first row, so a run
 * that fails before it (a data set that cannot be loaded) leaves no file,
 * or the old one with --overwrite. Returns -1 to go on, else the exit status.
 */
int sweep_output_open(sweep_run *run, const sweep_grid *grid, uint64_t **done, int64_t *ndone);

/*
 * Append a row (flushed). The first row of a new file creates it: the
 * table and every attribute of the run are written to a temporary file that
 * is renamed to --out in one step (results_create, results_publish), so the
 * file at --out always holds its spec. On failure msg says why.
 */
smm_status sweep_output_append(sweep_run *run, const results_row *row, char *msg, size_t msg_size);

/*
 * The end of the run: record end_time and close the file. Returns SMM_OK
 * (also when no file was created), or the failing status with a message on
 * stderr.
 */
smm_status sweep_output_close(sweep_run *run);


/*
 * The timing scheme of both modes. A group is a set of `nvariants`
 * approximate configurations compared with one exact call. exact(ctx,
 * &seconds) runs its call once and times it; approx(ctx, variant, phases)
 * runs one approximate call and times its SWEEP_PHASES phases: phases[0]
 * encoding B (approx_plan_create), phases[1] the rest (approx_plan_multiply
 * or approx_plan_topk), and from the phase times that call reports
 * (approx_call.times) phases[2] encoding A, phases[3] the estimate (top-k: choosing the
 * candidates), phases[4] the refinement (top-k only). Checking of results
 * happens outside the timed parts.
 *
 * First `warmup` untimed runs of variant 0, then `reps` rounds: one exact run,
 * then one run of every variant that has not failed. So a row's medians
 * come from runs made moments apart, under the same machine conditions.
 *
 * exact_times[r] and phase_times[(v * reps + r) * SWEEP_PHASES + phase] receive the
 * times, status[v] each variant's first failing status (SMM_OK if none; a
 * variant that failed is not run again). Returns SMM_OK, or the status of a
 * failing exact run: the group is abandoned then and every variant gets that
 * status.
 */
typedef smm_status (*sweep_exact_fn)(void *ctx, double *seconds);
#define SWEEP_PHASES 5
typedef smm_status (*sweep_approx_fn)(void *ctx, int variant, double phases[SWEEP_PHASES]);

/* After a plan call: phases[2..4] from the phase times it reported (see above). */
void sweep_call_phases(const approx_phase_times *t, double phases[SWEEP_PHASES]);

smm_status sweep_time_rounds(int warmup, int reps, int nvariants, sweep_exact_fn exact,
                             sweep_approx_fn approx, void *ctx, double *exact_times,
                             double *phase_times, smm_status *status);

/* `warmup` untimed then `reps` timed exact runs alone; the median time in *seconds. */
smm_status sweep_time_reference(int warmup, int reps, sweep_exact_fn exact, void *ctx,
                                double *seconds);

/*
 * A row for configuration p of a context: the configuration fields
 * (config_hash, config_index, mode, method, size, bytes_per_vector, dataset,
 * m, n, k, topk, candidates, seed, resolved threads, isa, alignment) and NaN
 * in every measured float field.
 */
void sweep_row_init(results_row *row, const sweep_run *run, const sweep_context *ctx,
                    const sweep_point *p, double alignment);

/*
 * The end of every row, both modes: set its status and, for SMM_OK, its
 * times (medians over reps rounds of exact_times and of variant's
 * phase_times: encode_b_seconds, rest_seconds, encode_a_seconds,
 * estimate_seconds, refine_seconds, and approx_seconds, the median of the
 * per-round totals encode B + rest) and speedup; report it on the progress line
 * (failed_call names the call that failed), append it to the file (flushed),
 * and apply the test hook SKETCHMM_SWEEP_TEST_STOP_AFTER. The quality fields
 * must be set before. Returns 0, SWEEP_EXIT_RUN_FAILED when the
 * configuration failed, or -1 when the row could not be written (stop).
 */
int sweep_row_finish(sweep_run *run, results_row *row, smm_status status, const char *failed_call,
                     const double *exact_times, const double *phase_times, int reps);

/* The row's size (bits or sketch_dim, by its method). */
int32_t sweep_row_size(const results_row *row);

/* Approximate options of the sweep for point p: its method, size and seed, the context's threads. */
approx_options sweep_options(const sweep_context *ctx, const sweep_point *p);

/* Allocate a * b elements of elem bytes; NULL on overflow or failure. */
void *sweep_alloc(int64_t a, int64_t b, size_t elem);


/*
 * Run the pending configurations of one context: load its data, time the
 * reference, time and check every pending configuration, append a row per
 * configuration (a failing configuration records its status), and print the
 * context's table on stdout. Returns 0, SWEEP_EXIT_RUN_FAILED when a
 * configuration or the context itself failed (messages on stderr), or -1
 * when a row could not be written (the run stops).
 */
int sweep_dense(sweep_run *run, const sweep_context *ctx);
int sweep_topk(sweep_run *run, const sweep_context *ctx);


#endif /* SKETCHMM_SWEEP_RUN_H */
