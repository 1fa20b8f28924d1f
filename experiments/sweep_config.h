/*
 * sweep_config.h - what a sweep of sketchmm_sweep is: its data sets, modes,
 * methods, lists and shapes, and the configuration the command line and the
 * spec fill (sweep_options.h). The pieces of the driver:
 *
 *   sweep.c          main: the run's description, the results file (create,
 *                    resume or refuse), the grid run context by context
 *   sweep_options.c  every option in one table: flags, spec keys, help, defaults
 *   sweep_cli.c      the command line (--help, parsing and checks)
 *   sweep_spec.c     the spec file (JSON, json-c) and the canonical spec
 *   sweep_grid.c     the configurations: expansion, keys and hashes, shards
 *   sweep_progress.c done / total, elapsed and ETA on stderr
 *   sweep_merge.c    `sketchmm_sweep merge`: shard files into one (and
 *                    --salvage: the sound rows of a damaged file)
 *   sweep_check.c    the integrity of a results file's rows; sweep_check_main.c
 *                    `sketchmm_sweep check`
 *   sweep_output.c   the results file of a run: refused, resumed, or
 *                    created on the first row with the run's attributes
 *   sweep_data.c     the input vectors of a context (Fashion-MNIST, synthetic,
 *                    an HDF5 matrix or an ann-benchmarks file)
 *   sweep_rounds.c   the timing scheme shared by both modes, and the rows
 *   sweep_dense.c    dense mode: approx plans against exact_sgemm
 *   sweep_topk.c     top-k mode: approx top-k plans against exact_topk
 * Each has its own header; no two of them call each other round a loop.
 */
#ifndef SKETCHMM_SWEEP_CONFIG_H
#define SKETCHMM_SWEEP_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "sketchmm.h"
#include "data/dataset.h"

enum { SWEEP_EXIT_RUN_FAILED = 1, SWEEP_EXIT_USAGE = 2 };

/* Where the results go without --out. */
#define SWEEP_DEFAULT_OUT "results/sweep.h5"

/* Fashion-MNIST: 60000 training and 10000 test images. */
#define SWEEP_FMNIST_TRAIN 60000
#define SWEEP_FMNIST_TEST 10000

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
    SWEEP_DATA_ANN,
    SWEEP_DATA_TEXTURE
} sweep_data_kind;

#define SWEEP_NUM_DATA 7
/* The names of the data sets (sweep_data.c). */
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
    double beta;                                /* texture */
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


#endif /* SKETCHMM_SWEEP_CONFIG_H */
