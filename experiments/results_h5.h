/*
 * results_h5.h - the HDF5 results file of one sweep (sketchmm_sweep).
 *
 * File layout
 *   /results   a 1-D dataset of compound rows, one per configuration,
 *              extendible (maximum size unlimited), one row per chunk, each
 *              chunk with HDF5's Fletcher32 checksum (files of sketchmm 0.1
 *              before it have 64-row chunks without checksums, and are read
 *              all the same). Rows are appended one at a time and the file
 *              is flushed after each, so a sweep that is interrupted, even by
 *              SIGKILL between two appends, leaves a readable file holding
 *              every finished row; results_open() reopens it to append more
 *              (resume). Before every change, disk space well beyond what the
 *              change needs is reserved (posix_fallocate), so a full disk
 *              refuses the row before the file is touched; an append that
 *              fails all the same shrinks the table back to its rows. Field
 *              names are plain identifiers, so h5py gives a numpy structured
 *              array and pandas.DataFrame(f["results"][:]) works.
 *   attributes of the root group: strings (variable-length UTF-8, read by
 *              h5py as str) and integers describing the run; see
 *              results_set_attr_*() and the sweep driver for the names.
 *
 * Rows come in two modes (field `mode`):
 *   "dense"  C = A * B estimated whole by approx_sgemm and compared with
 *            exact_sgemm: one row per (method, size).
 *   "topk"   the topk largest entries of each row of A * B found by
 *            approx_topk and compared with exact_topk: one row per (method,
 *            size, candidates).
 * A method's size is `bits` for the four sketch families and `sketch_dim`
 * for the four classical methods; the other of the two fields is 0.
 * Fields a mode does not measure are NaN (float) or 0 (integer).
 *
 * Fields of /results (little-endian in the file, packed)
 *   config_hash    uint64   XXH3_64bits of the configuration's canonical string
 *                           (sweep_point_key in sweep.h): the key of resume and merge
 *   config_index   int64    the configuration's position in the sweep's grid
 *   mode           fixed string, RESULTS_MODE_LEN bytes, NUL-padded ("dense", "topk")
 *   method         fixed string, RESULTS_METHOD_LEN bytes (sketch_method_name(): "simhash", ...)
 *   dataset        fixed string, RESULTS_DATASET_LEN bytes ("fashion-mnist", ...)
 *   m, n, k        int64    shape of the product: (m x k) * (k x n); in topk
 *                           rows m queries, n database vectors
 *   bits           int32    sketch length per vector (sketch families; else 0)
 *   sketch_dim     int32    sketch dimension s (classical methods; else 0)
 *   bytes_per_vector int64  bytes of one encoded vector, approx_encoded_bytes(): a
 *                           sketch family's code words * 8 + 4 (the norm), 4 s for
 *                           the projections, ceil(M / 2) for pq and ceil(C / 2) for
 *                           maddness (4 s before sketchmm 0.4.0)
 *   topk           int32    topk rows: entries kept per row (K); dense rows 0
 *   candidates     int32    topk rows: candidates per row refined exactly; dense rows 0
 *   seed           uint64   seed of the method (and of synthetic data)
 *   threads        int32    threads used for both the exact and the approximate call
 *   isa            fixed string, RESULTS_ISA_LEN bytes ("avx2", ...)
 *   status         int32    smm_status of the row (0 = SMM_OK; otherwise that of
 *                           the failing call, and the float fields below are NaN)
 *   exact_seconds  float64  median wall time of the exact call (exact_sgemm /
 *                           exact_topk), timed in the same rounds as this row's
 *                           approximate runs
 *   approx_seconds float64  median over rounds of the approximate call's total time
 *                           (encode B + rest: the work of one-shot approx_sgemm /
 *                           approx_topk, sketching both sides included)
 *   encode_b_seconds float64 median time of approx_plan_create: sketching B
 *   rest_seconds   float64  median time of approx_plan_multiply / approx_plan_topk:
 *                           sketching A, the estimates, and for top-k the
 *                           selection and exact refinement of the candidates
 *                           Medians do not add up exactly to approx_seconds
 *   encode_a_seconds float64 median time of sketching A within rest_seconds
 *   estimate_seconds float64 median time of the estimate within rest_seconds
 *                           (writing C, or for top-k choosing the candidates)
 *   refine_seconds float64  median time of the exact refinement (top-k; 0 dense)
 *                           (the last three from the phase times the call reports, approx_call.times)
 *   speedup        float64  exact_seconds / approx_seconds
 *   nmse           float64  dense: mean((Y - Yhat)^2) / var(Y)
 *   rel_fro_error  float64  dense: ||Y - Yhat||_F / ||Y||_F
 *   max_abs_error  float64  dense: max |Y - Yhat|
 *   recall         float64  topk: recall@topk by value: the mean over rows i of
 *                           the share of returned columns j whose <a_i, b_j> is
 *                           at least the smallest <a_i, b_j'> of the exact top-k
 *                           (dot products in double, compared rounded to float),
 *                           so a column tied with the exact k-th counts as a hit
 *   recall_index   float64  topk: recall@topk by index: indices common to the
 *                           approximate and the exact top-k, over topk
 *   max_value_error float64 topk: max |returned value - <a_i, b_j>| over every
 *                           returned entry, the dot product in double
 *   recall_at_1, recall_at_10, recall_at_100 float64
 *                           topk: recall@t by value as `recall`, of the first t
 *                           returned entries against the exact top-t, from the
 *                           same top-K call; NaN when t > topk (and in dense rows)
 *   alignment      float64  ||A B||_F / (||A||_F ||B||_F)
 *
 * Functions return SMM_OK or DATASET_ERR_IO (an HDF5 call failed),
 * SMM_ERR_NULL_POINTER, SMM_ERR_NO_MEMORY. They print nothing: HDF5's own
 * error printing is turned off by results_create().
 */
#ifndef SKETCHMM_EXPERIMENTS_RESULTS_H5_H
#define SKETCHMM_EXPERIMENTS_RESULTS_H5_H

#include <stddef.h>
#include <stdint.h>

#include "sketchmm/common.h"
#include "data/dataset.h" /* DATASET_ERR_IO, DATASET_ERR_BAD_FORMAT */

#define RESULTS_MODE_LEN 8
#define RESULTS_METHOD_LEN 24
#define RESULTS_DATASET_LEN 32
#define RESULTS_ISA_LEN 16

/* One row of /results (see the field list above). */
typedef struct {
    uint64_t config_hash;
    int64_t config_index;
    char mode[RESULTS_MODE_LEN];
    char method[RESULTS_METHOD_LEN];
    char dataset[RESULTS_DATASET_LEN];
    int64_t m;
    int64_t n;
    int64_t k;
    int32_t bits;
    int32_t sketch_dim;
    int64_t bytes_per_vector;
    int32_t topk;
    int32_t candidates;
    uint64_t seed;
    int32_t threads;
    char isa[RESULTS_ISA_LEN];
    int32_t status;
    double exact_seconds;
    double approx_seconds;
    double encode_b_seconds;
    double rest_seconds;
    double encode_a_seconds;
    double estimate_seconds;
    double refine_seconds;
    double speedup;
    double nmse;
    double rel_fro_error;
    double max_abs_error;
    double recall;
    double recall_index;
    double max_value_error;
    double recall_at_1;
    double recall_at_10;
    double recall_at_100;
    double alignment;
} results_row;

/* An open results file (opaque). */
typedef struct results_file results_file;

/*
 * Call first in a program, before any other HDF5 call: no HDF5 exit handler
 * (HDF5 1.10's crashes on a file whose close failed after a write error),
 * no HDF5 error printing.
 */
void results_library_setup(void);

/*
 * Start a new results file for path with an empty /results table. It is
 * written as "<path>.tmp.<pid>" until results_publish() renames it to path
 * (replacing any file there) in one step, so path never holds a file
 * without its attributes; results_close() of a file never published deletes
 * it. On failure *out is NULL and msg (when not NULL) says why.
 */
smm_status results_create(const char *path, results_file **out, char *msg, size_t msg_size);

/*
 * Flush a file of results_create to disk (fsync) and rename it to its path.
 * The handle stays open for more rows. SMM_OK at once for a file of
 * results_open or one already published.
 */
smm_status results_publish(results_file *f, char *msg, size_t msg_size);

/*
 * Open an existing results file: read-only (writable 0) or to append rows
 * and set attributes (writable 1). DATASET_ERR_IO when it cannot be opened,
 * DATASET_ERR_BAD_FORMAT when it has no /results table with a config_hash field
 * (not a file of this driver, or of a version before resume). On failure
 * *out is NULL and msg says why.
 */
smm_status results_open(const char *path, int writable, results_file **out, char *msg, size_t msg_size);

/*
 * Every row, malloc'ed into *rows (NULL when there are none), *count rows.
 * A row whose chunk fails its checksum (or cannot be read) gives
 * DATASET_ERR_BAD_FORMAT when unreadable is NULL; otherwise *unreadable receives
 * a malloc'ed array of *count flags, 1 for such a row (its fields zeroed).
 */
smm_status results_read_rows(const results_file *f, results_row **rows, int64_t *count,
                             unsigned char **unreadable);

/*
 * A string attribute of the root group, malloc'ed into *value.
 * DATASET_ERR_BAD_FORMAT when it is missing or not a string.
 */
smm_status results_get_attr_string(const results_file *f, const char *name, char **value);

/* An integer attribute of the root group. DATASET_ERR_BAD_FORMAT when it is missing or not an integer. */
smm_status results_get_attr_int64(const results_file *f, const char *name, int64_t *value);

/* Copy every attribute of src's root group to dst's (strings and integers). */
smm_status results_copy_attrs(results_file *dst, const results_file *src);

/* Attach (or replace) an attribute of the root group. */
smm_status results_set_attr_string(results_file *f, const char *name, const char *value);
smm_status results_set_attr_int64(results_file *f, const char *name, int64_t value);
smm_status results_set_attr_uint64(results_file *f, const char *name, uint64_t value);

/*
 * Append one row to /results and flush the file. On failure (DATASET_ERR_IO) the
 * table keeps the rows it had, and every later change of this handle fails.
 */
smm_status results_append(results_file *f, const results_row *row);

/* Rows written so far. */
int64_t results_rows(const results_file *f);

/* Flush and close; accepts NULL. */
smm_status results_close(results_file *f);

/*
 * Copy src into a fixed-length field of `size` bytes: truncated to size - 1
 * characters and NUL-padded, so the file holds no stray bytes.
 */
void results_set_string(char *field, size_t size, const char *src);

#endif /* SKETCHMM_EXPERIMENTS_RESULTS_H5_H */
