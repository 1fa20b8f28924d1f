/*
 * sweep_data.h - the input vectors of a context (sweep_data.c).
 */
#ifndef SKETCHMM_SWEEP_DATA_H
#define SKETCHMM_SWEEP_DATA_H

#include "sweep_config.h"


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


#endif /* SKETCHMM_SWEEP_DATA_H */
