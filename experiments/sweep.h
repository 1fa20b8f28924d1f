/*
 * sweep.h - the pieces of sketchmm_sweep and what they share.
 *
 *   sweep.c        main: the run's description, the results file, the modes
 *   sweep_cli.c    the command line (--help, parsing and checks)
 *   sweep_data.c   the input vectors of a mode (Fashion-MNIST or synthetic)
 *   sweep_rounds.c the timing scheme shared by both modes
 *   sweep_dense.c  dense mode: approx_sgemm against exact_sgemm
 *   sweep_topk.c   top-k mode: approx_topk against exact_topk
 */
#ifndef SKETCHMM_EXPERIMENTS_SWEEP_H
#define SKETCHMM_EXPERIMENTS_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "sketchmm.h"
#include "data/dataset.h"
#include "results_h5.h"

enum { SWEEP_EXIT_RUN_FAILED = 1, SWEEP_EXIT_USAGE = 2 };

typedef enum { SWEEP_DATA_FASHION_MNIST, SWEEP_DATA_GAUSSIAN, SWEEP_DATA_LOWRANK, SWEEP_DATA_CLUSTERED } sweep_data_kind;

#define SWEEP_NUM_DATA 4
extern const char *const sweep_data_names[SWEEP_NUM_DATA];

/* Modes, as bits of sweep_config.modes. */
enum { SWEEP_MODE_DENSE = 1, SWEEP_MODE_TOPK = 2 };

/* The eight methods of sketchmm/approx.h, APPROX_SIMHASH .. APPROX_CR_SAMPLING. */
#define SWEEP_NUM_METHODS 8

/* A list of sizes (bits, sketch dimensions or candidate counts) from the command line. */
#define SWEEP_MAX_LIST 64
typedef struct {
    int32_t v[SWEEP_MAX_LIST];
    int count;
} sweep_list;

typedef struct {
    unsigned modes;                             /* SWEEP_MODE_* bits */
    sweep_data_kind data;
    approx_method methods[SWEEP_NUM_METHODS];
    int nmethods;
    int warmup, threads;                        /* threads 0: library default */
    uint64_t seed;
    int64_t k;                                  /* synthetic data; 784 for Fashion-MNIST */
    double alignment;                           /* clustered */
    int64_t clusters;                           /* clustered */
    int64_t rank;                               /* lowrank */
    double noise;                               /* lowrank */
    const char *out;
    const char *data_dir;                       /* fashion-mnist; NULL: env or default */

    /* dense mode */
    int64_t m, n;
    sweep_list bits, sketch_dims;
    int reps;

    /* top-k mode */
    int64_t queries, database, topk;
    sweep_list topk_bits, topk_sketch_dims;
    sweep_list candidates;                      /* only values in topk..database */
    int topk_reps;

    /*
     * The sizes each method runs with, per mode, index method -
     * APPROX_SIMHASH: the lists above, or those of --sizes / --topk-sizes.
     * Read them with sweep_sizes().
     */
    sweep_list dense_sizes[SWEEP_NUM_METHODS], topk_sizes[SWEEP_NUM_METHODS];
} sweep_config;

/* What every row of a run shares. */
typedef struct {
    const sweep_config *cfg;
    const char *prog;   /* argv[0], for messages */
    int threads;        /* resolved thread count */
    const char *isa;    /* name of the ISA path */
    results_file *rf;
} sweep_run;

/* ------------------------------------------------------------------------ */
/* sweep_cli.c                                                              */
/* ------------------------------------------------------------------------ */

/*
 * Fill *cfg from the command line. Returns -1 to go on, else the exit status
 * (0 after --help, SWEEP_EXIT_USAGE after printing an error on stderr).
 */
int sweep_parse_args(int argc, char **argv, sweep_config *cfg);

/* The list as "a,b,c" into buf. */
void sweep_list_format(const sweep_list *list, char *buf, size_t size);

/* The sizes (bits or sketch dimensions) of a method in one mode (SWEEP_MODE_DENSE or SWEEP_MODE_TOPK). */
const sweep_list *sweep_sizes(const sweep_config *cfg, unsigned mode, approx_method method);

/* Every method's sizes in one mode, as "simhash=32,64;srht=8,16" into buf. */
void sweep_sizes_format(const sweep_config *cfg, unsigned mode, char *buf, size_t size);

/* ------------------------------------------------------------------------ */
/* sweep_data.c                                                             */
/* ------------------------------------------------------------------------ */

/* Two sets of vectors of dimension k, one vector per row (row-major, leading dimension k). */
typedef struct {
    const float *a;       /* na x k */
    const float *b;       /* nb x k */
    int64_t na, nb, k;
    dataset_matrix own[2];
} sweep_vectors;

/*
 * Load na + nb vectors: for Fashion-MNIST the first na images of split_a and
 * the first nb images of split_b (the images after the first na when both
 * splits are the same); synthetic data generates na + nb vectors (seed and
 * parameters of cfg) and splits them the same way. On failure msg says why
 * and *v is empty.
 */
smm_status sweep_load_vectors(const sweep_config *cfg, const char *split_a, int64_t na,
                              const char *split_b, int64_t nb, sweep_vectors *v,
                              char *msg, size_t msg_size);

void sweep_vectors_free(sweep_vectors *v);

/* A one-line description of the data of the configured modes. */
void sweep_data_params(const sweep_config *cfg, char *buf, size_t size);

/* ------------------------------------------------------------------------ */
/* sweep_rounds.c                                                           */
/* ------------------------------------------------------------------------ */

/*
 * The timing scheme of both modes. A group is a set of `nvariants`
 * approximate configurations compared with one exact call. exact(ctx,
 * &seconds) and approx(ctx, variant, &seconds) run their call once, time
 * only the call, and do any checking of the result outside the timed part.
 *
 * First `warmup` untimed runs of variant 0, then `reps` rounds: one exact run,
 * then one run of every variant that has not failed. So a row's two medians
 * come from runs made moments apart, under the same machine conditions.
 *
 * exact_times[r] and approx_times[v * reps + r] receive the times,
 * status[v] each variant's first failing status (SMM_OK if none; a variant
 * that failed is not run again). Returns SMM_OK, or the status of a failing
 * exact run: the group is abandoned then and every variant gets that status.
 */
typedef smm_status (*sweep_exact_fn)(void *ctx, double *seconds);
typedef smm_status (*sweep_approx_fn)(void *ctx, int variant, double *seconds);

smm_status sweep_time_rounds(int warmup, int reps, int nvariants, sweep_exact_fn exact,
                             sweep_approx_fn approx, void *ctx, double *exact_times,
                             double *approx_times, smm_status *status);

/* `warmup` untimed then `reps` timed exact runs alone; the median time in *seconds. */
smm_status sweep_time_reference(int warmup, int reps, sweep_exact_fn exact, void *ctx,
                                double *seconds);

/*
 * A row with the fields every row shares (mode, method, its size in bits or
 * sketch_dim, dataset, m, n, k, seed, threads, isa, alignment) and NaN in
 * every measured float field.
 */
void sweep_row_init(results_row *row, const sweep_run *run, const char *mode, approx_method method,
                    int32_t size, int64_t m, int64_t n, int64_t k, double alignment);

/*
 * Set a row's status and, for SMM_OK, its times (medians of reps runs) and
 * speedup. Leaves the other fields alone.
 */
void sweep_row_times(results_row *row, smm_status status, const double *exact_times,
                     const double *approx_times, int reps);

/* "bits" or "sketch_dim", and the row's size under that name. */
const char *sweep_size_name(approx_method method);
int32_t sweep_row_size(const results_row *row);

/* Append a row to the results file; prints an error and returns its status on failure. */
smm_status sweep_append(const sweep_run *run, const results_row *row);

/* Approximate options of the sweep for (method, size): seed and threads of the run. */
approx_options sweep_options(const sweep_run *run, approx_method method, int32_t size);

/* Allocate a * b elements of elem bytes; NULL on overflow or failure. */
void *sweep_alloc(int64_t a, int64_t b, size_t elem);

/* ------------------------------------------------------------------------ */
/* The modes: sweep_dense.c, sweep_topk.c                                   */
/* ------------------------------------------------------------------------ */

/*
 * Run one mode: load its data, time and check every configuration, append a
 * row per configuration (a failing configuration records its status), and
 * print the mode's table on stdout. Returns 0, or SWEEP_EXIT_RUN_FAILED when
 * a configuration or the mode itself failed (messages on stderr).
 */
int sweep_dense(const sweep_run *run);
int sweep_topk(const sweep_run *run);

#endif /* SKETCHMM_EXPERIMENTS_SWEEP_H */
