/*
 * sweep_grid.h - the configurations of a sweep (sweep_grid.c).
 */
#ifndef SKETCHMM_SWEEP_GRID_H
#define SKETCHMM_SWEEP_GRID_H

#include "results_h5.h"
#include "sweep_config.h"


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


/* "bits" or "sketch_dim": the name of a method's size. */
const char *sweep_size_name(sketch_method method);

#endif /* SKETCHMM_SWEEP_GRID_H */
