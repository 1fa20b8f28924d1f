/*
 * sweep.h - the pieces of sketchmm_sweep and what they share.
 *
 *   sweep.c          main: the run's description, the results file (create,
 *                    resume or refuse), the grid run context by context
 *   sweep_cli.c      the command line (--help, parsing and checks)
 *   sweep_spec.c     the spec file (JSON, json-c) and the canonical spec
 *   sweep_grid.c     the configurations: expansion, keys and hashes, shards
 *   sweep_progress.c done / total, elapsed and ETA on stderr
 *   sweep_merge.c    `sketchmm_sweep merge`: shard files into one (and
 *                    --salvage: the sound rows of a damaged file)
 *   sweep_output.c   the results file of a run: refused, resumed, or
 *                    created on the first row with the run's attributes
 *   sweep_check.c    the integrity of a results file's rows
 *   sweep_data.c     the input vectors of a context (Fashion-MNIST, synthetic,
 *                    an HDF5 matrix or an ann-benchmarks file)
 *   sweep_rounds.c   the timing scheme shared by both modes, and the rows
 *   sweep_dense.c    dense mode: approx plans against exact_sgemm
 *   sweep_topk.c     top-k mode: approx top-k plans against exact_topk
 */
#ifndef SKETCHMM_EXPERIMENTS_SWEEP_H
#define SKETCHMM_EXPERIMENTS_SWEEP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sketchmm.h"
#include "data/dataset.h"
#include "results_h5.h"

enum { SWEEP_EXIT_RUN_FAILED = 1, SWEEP_EXIT_USAGE = 2 };

/*
 * The data sets. SWEEP_DATA_H5 and SWEEP_DATA_ANN read a file named by
 * sweep_config.data_file: --datasets FILE.h5:/PATH (any 2-D numeric HDF5
 * dataset, one vector per row) and --datasets ann:FILE.h5 (an
 * ann-benchmarks file, e.g. from sketchmm_make_ann).
 */
typedef enum {
    SWEEP_DATA_FASHION_MNIST,
    SWEEP_DATA_GAUSSIAN,
    SWEEP_DATA_LOWRANK,
    SWEEP_DATA_CLUSTERED,
    SWEEP_DATA_H5,
    SWEEP_DATA_ANN
} sweep_data_kind;

#define SWEEP_NUM_DATA 6
extern const char *const sweep_data_names[SWEEP_NUM_DATA];

/* Modes, as bits of sweep_config.modes. */
enum { SWEEP_MODE_DENSE = 1, SWEEP_MODE_TOPK = 2 };

/* The methods of sketchmm/approx.h: sketch_method (sketchmm/sketch.h), SKETCH_SIMHASH .. SWEEP_LAST_METHOD. */
#define SWEEP_LAST_METHOD SKETCH_MADDNESS
/*
 * The methods a sweep runs when neither --methods nor the spec names them:
 * SKETCH_SIMHASH .. SWEEP_DEFAULT_LAST_METHOD, the methods of
 * experiments/specs/default.json (tests/test_sweep.c checks that the two
 * describe the same grid). Methods after it would be opt-in (--methods).
 */
#define SWEEP_DEFAULT_LAST_METHOD SKETCH_MADDNESS
#define SWEEP_NUM_METHODS (SWEEP_LAST_METHOD - SKETCH_SIMHASH + 1)

/* A list of sizes (bits, sketch dimensions, candidate counts or thread counts); no value twice. */
#define SWEEP_MAX_LIST 64

/* The most configurations one sweep may have (a spec of a few lines could describe billions). */
#define SWEEP_MAX_GRID 1000000
typedef struct {
    int32_t v[SWEEP_MAX_LIST];
    int count;
} sweep_list;

/* A shape: dense m x n (A m x k times B k x n), top-k queries x database. */
#define SWEEP_MAX_SHAPES 16
typedef struct {
    int64_t rows, cols;
} sweep_shape;

/*
 * The sweep: its grid (every list below), how each configuration is
 * measured, and where the results go. Filled from defaults, then the spec
 * file (--spec), then the flags (sweep_cli.c, sweep_spec.c).
 */
typedef struct {
    /* the grid */
    unsigned modes;                             /* SWEEP_MODE_* bits */
    sweep_data_kind datasets[SWEEP_NUM_DATA];
    int ndatasets;
    sketch_method methods[SWEEP_NUM_METHODS];
    int nmethods;
    uint64_t seeds[SWEEP_MAX_LIST];
    int nseeds;
    sweep_list threads;                         /* 0: library default */
    sweep_shape shapes[SWEEP_MAX_SHAPES];       /* dense: m x n */
    int nshapes;
    sweep_shape topk_shapes[SWEEP_MAX_SHAPES];  /* top-k: queries x database */
    int ntopk_shapes;
    int64_t topk;                               /* entries kept per query */
    sweep_list candidates;                      /* only values in topk..(largest database) */
    sweep_list bits, sketch_dims;               /* dense */
    sweep_list topk_bits, topk_sketch_dims;     /* top-k */
    /*
     * The sizes each method runs with, per mode, index method -
     * SKETCH_SIMHASH: the lists above, or those of --sizes / --topk-sizes.
     * Read them with sweep_sizes().
     */
    sweep_list dense_sizes[SWEEP_NUM_METHODS], topk_sizes[SWEEP_NUM_METHODS];

    /* data parameters */
    int64_t k;                                  /* synthetic data; Fashion-MNIST has 784, files their own */
    double alignment;                           /* clustered */
    int64_t clusters;                           /* clustered */
    int64_t rank;                               /* lowrank */
    double noise;                               /* lowrank */
    const char *data_file;                      /* h5: "FILE:/PATH"; ann: FILE (one file data set per sweep) */
    char data_file_store[1024];                 /* where data_file points after parsing */

    /* measurement */
    int warmup, reps, topk_reps;

    /* the run (not part of the spec) */
    const char *out;
    const char *data_dir;                       /* fashion-mnist; NULL: env or default */
    const char *spec_path;                      /* --spec, or NULL */
    int shard_index, shard_count;               /* --shard i/N; 0/1 without it */
    int dry_run, overwrite;

    /*
     * One context of the grid (dataset, shapes, seed), set by the driver on a
     * copy of the configuration before loading its data (sweep_data.c reads
     * these): data, seed, k (784 for Fashion-MNIST, a file's columns), m x n,
     * queries x database.
     */
    sweep_data_kind data;
    uint64_t seed;
    int64_t m, n, queries, database;
} sweep_config;

/* ------------------------------------------------------------------------ */
/* sweep_grid.c: the configurations of a sweep                              */
/* ------------------------------------------------------------------------ */

/*
 * One configuration of the grid. Its order in the grid (index) is: mode
 * (dense, then top-k), dataset, shape, seed, threads, method, size, then
 * candidates (top-k), each in the order of its list.
 */
typedef struct {
    int64_t index;
    unsigned mode;                  /* SWEEP_MODE_DENSE or SWEEP_MODE_TOPK */
    sweep_data_kind data;
    int64_t m, n, k;                /* top-k: m queries, n database vectors */
    int32_t topk, candidates;       /* 0 in dense mode */
    uint64_t seed;
    int32_t threads;                /* as in the spec: 0 means the library default */
    sketch_method method;
    int32_t size;                   /* bits or sketch dimension, by the method */
    uint64_t hash;                  /* XXH3_64bits of sweep_point_key() */
} sweep_point;

typedef struct {
    sweep_point *points;
    int64_t count;
} sweep_grid;

/* Expand cfg's grid. SMM_ERR_NO_MEMORY on failure (grid empty then). */
smm_status sweep_grid_expand(const sweep_config *cfg, sweep_grid *grid);
void sweep_grid_free(sweep_grid *grid);

/*
 * The canonical string of a configuration, the key of resume and merge:
 * "mode=dense;dataset=clustered;clusters=10;alignment=0.9;m=..;n=..;k=..;
 * topk=0;candidates=0;seed=..;threads=..;method=simhash;bits=64;
 * sketch_dim=0;warmup=..;reps=..". Every field that changes what is
 * measured, nothing about the machine. File data sets add their file after
 * the dataset: "dataset=h5;file=vectors.h5:/train;..", "dataset=ann;file=x.h5;..".
 */
void sweep_point_key(const sweep_config *cfg, const sweep_point *p, char *buf, size_t size);

/* Room for any key of sweep_point_key (a file data set's name is at most 1023 bytes). */
#define SWEEP_KEY_MAX 4096

/* A short human description: "dense clustered 64x48x40 seed=7 threads=1 simhash bits=64". */
void sweep_point_describe(const sweep_point *p, char *buf, size_t size);

/* 1 when a and b share mode, dataset, shape, seed and threads (one data load, one reference). */
int sweep_point_same_context(const sweep_point *a, const sweep_point *b);

/*
 * Shard i of N: the contiguous block [*begin, *end) of the total
 * configurations, begin = floor(i total / N). Contiguous, not round-robin:
 * configurations that share a context (data, exact reference) and a timing
 * group stay together, so each shard loads each data set and times each
 * group once.
 */
void sweep_shard_range(int64_t total, int index, int count, int64_t *begin, int64_t *end);

/*
 * Bytes per sketched vector of dimension k: the code's words (sketch_code_words:
 * ceil(bits / 64) for the SimHash families, more for cross-polytope, whose
 * fields do not straddle words) times 8, plus 4 for the norm; or 4 s for the
 * classical methods. -1 when the library rejects the size.
 */
int64_t sweep_bytes_per_vector(sketch_method method, int32_t size, int64_t k);

/* ------------------------------------------------------------------------ */
/* sweep_spec.c: the spec file (JSON) and the canonical spec                */
/* ------------------------------------------------------------------------ */

/*
 * Read the JSON spec at path and pass each key to apply(name, value, ctx,
 * why, why_size) as the flag it stands for ("topk_bits": [256, 512] ->
 * "topk-bits", "256,512"; "sizes": {"srht": [8]} -> "sizes", "srht=8"), in
 * file order. apply returns 1 when the value is good, else 0 with why
 * (possibly empty) saying what is wrong with it. Returns 1, or 0 with a
 * one-line message in msg naming the file and the key (unknown key, a key
 * twice in one object, wrong type, bad value, empty or too long list,
 * unreadable file, invalid JSON).
 */
typedef int (*sweep_spec_apply_fn)(const char *flag, const char *value, void *ctx, char *why, size_t why_size);
int sweep_spec_load(const char *path, sweep_spec_apply_fn apply, void *ctx, char *msg, size_t msg_size);

/* The same for spec text text[0..len) (label names it in messages). */
int sweep_spec_parse(const char *label, const char *text, size_t len, sweep_spec_apply_fn apply, void *ctx,
                     char *msg, size_t msg_size);

/*
 * The effective spec of cfg as canonical JSON (one line, fixed key order,
 * every size list resolved per method): given back to --spec it gives the
 * same grid. malloc'ed; NULL when out of memory.
 */
char *sweep_spec_canonical(const sweep_config *cfg);

/* The spec format, for --help. */
void sweep_spec_help(FILE *f);

/* ------------------------------------------------------------------------ */
/* sweep_progress.c                                                         */
/* ------------------------------------------------------------------------ */

/*
 * Progress on stderr: configurations done / total, elapsed time and ETA. On
 * a terminal one line redrawn in place; otherwise plain lines.
 */
typedef struct {
    int64_t done, total;
    double start;
    int tty;
    int drawn;       /* a progress line is on screen (tty) */
} sweep_progress;

void sweep_progress_init(sweep_progress *p, int64_t total);
/* A message line (the progress line is cleared first and redrawn after). */
void sweep_progress_note(sweep_progress *p, const char *fmt, ...);
/* One more configuration done; what is a short description of its result. */
void sweep_progress_step(sweep_progress *p, const char *what);
/* Clear the progress line (tty), before other output; the next note or step redraws it. */
void sweep_progress_end(sweep_progress *p);

/* ------------------------------------------------------------------------ */
/* The run                                                                  */
/* ------------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------------ */
/* sweep_output.c: the results file of a run                                */
/* ------------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------------ */
/* sweep_check.c: the integrity of a results file's rows                    */
/* ------------------------------------------------------------------------ */

/*
 * Check rows[0..count) of a results file whose spec is cfg
 * (sweep_config_from_spec) and whose attribute grid_size is grid_size. A row
 * is bad when unreadable (may be NULL) marks it (its chunk fails its
 * checksum), when its mode, dataset or method is no known name or its size
 * fields do not fit its method, when its config_index lies outside
 * [0, grid_size), when its config_hash is not the hash of the key
 * (sweep_point_key) of its own configuration fields under cfg (for one of
 * the spec's thread counts the row's resolved count stands for), when grid
 * (may be NULL) holds another configuration at its config_index, or when an
 * earlier row holds the same configuration or config_index. reasons (may be
 * NULL) receives per row NULL when it is sound, else why it is bad (a
 * static string). Returns the number of bad rows (count when out of
 * memory); msg names the first few and why.
 */
int64_t sweep_check_rows(const sweep_config *cfg, int64_t grid_size, const sweep_grid *grid,
                         const results_row *rows, int64_t count, const unsigned char *unreadable,
                         const char **reasons, char *msg, size_t msg_size);

/*
 * A results file checked whole, as resume and merge check it: opened
 * read-only (results_open), its spec attribute read and parsed
 * (sweep_config_from_spec), its grid_size attribute, every row read and
 * checked (sweep_check_rows, without a grid). On SMM_OK the file stays open
 * in *file (results_close) and *spec, *rows (*count of them) and *why (per
 * row NULL or the reason it is bad; *nbad bad rows, msg naming the first
 * few) are malloc'ed for the caller; otherwise (the file cannot be opened,
 * is no results file of this driver, lacks its spec or grid_size, its spec
 * cannot be read) every output is NULL or 0 and msg says why.
 */
smm_status sweep_check_file(const char *path, results_file **file, char **spec, results_row **rows,
                            int64_t *count, const char ***why, int64_t *nbad, char *msg, size_t msg_size);

/*
 * `sketchmm_sweep check [--list] FILE.h5...` (sweep_check_main.c): each file
 * checked by sweep_check_file; one verdict line per file on stdout, the bad
 * rows named on stderr (--list: every bad row on stdout as
 * "FILE<TAB>ROW<TAB>CONFIG_INDEX<TAB>REASON"). argv[0] is the program,
 * argv[1] "check". Exit status 0 when every row of every file is sound, 1
 * when a file has bad rows, 2 when a file cannot be checked at all.
 */
int sweep_check_main(int argc, char **argv);

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

/* ------------------------------------------------------------------------ */
/* sweep_cli.c                                                              */
/* ------------------------------------------------------------------------ */

/*
 * Fill *cfg from the command line (and the spec file it names). Returns -1
 * to go on, else the exit status (0 after --help, SWEEP_EXIT_USAGE after
 * printing an error on stderr).
 */
int sweep_parse_args(int argc, char **argv, sweep_config *cfg);

/*
 * The configuration a stored spec (a results file's attribute spec, the
 * canonical JSON of sweep_spec_canonical) describes: defaults and the spec's
 * keys, without the checks that open data files. Enough for the keys of its
 * configurations (sweep_check_rows). Returns 1, or 0 with msg.
 */
int sweep_config_from_spec(const char *spec, sweep_config *cfg, char *msg, size_t msg_size);

/* The list as "a,b,c" into buf. */
void sweep_list_format(const sweep_list *list, char *buf, size_t size);

/* The sizes (bits or sketch dimensions) of a method in one mode (SWEEP_MODE_DENSE or SWEEP_MODE_TOPK). */
const sweep_list *sweep_sizes(const sweep_config *cfg, unsigned mode, sketch_method method);

/* Every method's sizes in one mode, as "simhash=32,64;srht=8,16" into buf. */
void sweep_sizes_format(const sweep_config *cfg, unsigned mode, char *buf, size_t size);

/* ------------------------------------------------------------------------ */
/* sweep_merge.c                                                            */
/* ------------------------------------------------------------------------ */

/*
 * `sketchmm_sweep merge [--overwrite] OUT.h5 IN.h5...`: argv[0] is the
 * program, argv[1] "merge". Returns the exit status.
 */
int sweep_merge_main(int argc, char **argv);

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

/*
 * What a data set offers one mode: vectors of dimension k from one pool
 * (shared = 1: A / the queries are vectors 0..na-1 of the pool, B / the
 * database the nb after them, so na + nb <= pool_a) or from two (shared = 0:
 * A / the queries from pool_a, B / the database from pool_b).
 *   fashion-mnist  k 784; dense one pool of 60000 train images; top-k the
 *                  10000 test images and the 60000 train images
 *   synthetic      k = cfg->k, one unlimited pool (INT64_MAX)
 *   h5             k and pool_a: columns and rows of the matrix; one pool
 *   ann            k: columns of /train; dense one pool (/train); top-k
 *                  /test and /train
 * Files are opened to read their shapes only. SMM_OK, or the loader's
 * status with msg naming the file.
 */
typedef struct {
    int64_t k, pool_a, pool_b;
    int shared;
} sweep_data_shape;

smm_status sweep_data_get_shape(const sweep_config *cfg, sweep_data_kind data, unsigned mode,
                                sweep_data_shape *shape, char *msg, size_t msg_size);

/*
 * How data set d of cfg is written in a spec, a message or the "dataset"
 * attribute: its name (sweep_data_names), "ann:FILE" or "FILE:/PATH"
 * (cfg->data_file). Returns buf.
 */
const char *sweep_data_label(const sweep_config *cfg, sweep_data_kind d, char *buf, size_t size);

/* A one-line description of the data of the configured modes. */
void sweep_data_params(const sweep_config *cfg, char *buf, size_t size);

/* ------------------------------------------------------------------------ */
/* sweep_rounds.c                                                           */
/* ------------------------------------------------------------------------ */

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

/* "bits" or "sketch_dim", and the row's size under that name. */
const char *sweep_size_name(sketch_method method);
int32_t sweep_row_size(const results_row *row);

/* Approximate options of the sweep for point p: its method, size and seed, the context's threads. */
approx_options sweep_options(const sweep_context *ctx, const sweep_point *p);

/* Allocate a * b elements of elem bytes; NULL on overflow or failure. */
void *sweep_alloc(int64_t a, int64_t b, size_t elem);

/* ------------------------------------------------------------------------ */
/* The modes: sweep_dense.c, sweep_topk.c                                   */
/* ------------------------------------------------------------------------ */

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

#endif /* SKETCHMM_EXPERIMENTS_SWEEP_H */
