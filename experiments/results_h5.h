/*
 * results_h5.h - the HDF5 results file of one sweep (sketchmm_sweep).
 *
 * File layout
 *   /results   a 1-D dataset of compound rows, one per configuration, chunked
 *              and extendible (maximum size unlimited). Rows are appended one
 *              at a time and the file is flushed after each, so a sweep that
 *              is interrupted leaves a readable file holding every finished
 *              row. Field names are plain identifiers, so h5py gives a numpy
 *              structured array and pandas.DataFrame(f["results"][:]) works.
 *   attributes of the root group: strings (variable-length UTF-8, read by
 *              h5py as str) and integers describing the run; see
 *              results_set_attr_*() and the sweep driver for the names.
 *
 * Fields of /results (little-endian in the file, packed)
 *   method         fixed string, RESULTS_METHOD_LEN bytes, NUL-padded ("simhash")
 *   dataset        fixed string, RESULTS_DATASET_LEN bytes ("fashion-mnist", ...)
 *   m, n, k        int64    shape of the product: (m x k) * (k x n)
 *   bits           int32    sketch length per vector
 *   seed           uint64   hyperplane (and synthetic data) seed
 *   threads        int32    threads used for both the exact and the approximate product
 *   isa            fixed string, RESULTS_ISA_LEN bytes ("avx2", ...)
 *   status         int32    smm_status of the approximate product (0 = SMM_OK;
 *                           otherwise the float fields below are NaN)
 *   exact_seconds  float64  median wall time of exact_sgemm, timed in
 *                           alternation with this row's approx_sgemm runs
 *   approx_seconds float64  median wall time of approx_sgemm
 *   speedup        float64  exact_seconds / approx_seconds
 *   nmse           float64  mean((Y - Yhat)^2) / var(Y)
 *   rel_fro_error  float64  ||Y - Yhat||_F / ||Y||_F
 *   max_abs_error  float64  max |Y - Yhat|
 *   alignment      float64  ||A B||_F / (||A||_F ||B||_F)
 *
 * Functions return SMM_OK or SMM_ERR_IO (an HDF5 call failed),
 * SMM_ERR_NULL_POINTER, SMM_ERR_NO_MEMORY. They print nothing: HDF5's own
 * error printing is turned off by results_create().
 */
#ifndef SKETCHMM_EXPERIMENTS_RESULTS_H5_H
#define SKETCHMM_EXPERIMENTS_RESULTS_H5_H

#include <stddef.h>
#include <stdint.h>

#include "sketchmm/common.h"

#define RESULTS_METHOD_LEN 16
#define RESULTS_DATASET_LEN 32
#define RESULTS_ISA_LEN 16

/* One row of /results (see the field list above). */
typedef struct {
    char method[RESULTS_METHOD_LEN];
    char dataset[RESULTS_DATASET_LEN];
    int64_t m;
    int64_t n;
    int64_t k;
    int32_t bits;
    uint64_t seed;
    int32_t threads;
    char isa[RESULTS_ISA_LEN];
    int32_t status;
    double exact_seconds;
    double approx_seconds;
    double speedup;
    double nmse;
    double rel_fro_error;
    double max_abs_error;
    double alignment;
} results_row;

/* An open results file (opaque). */
typedef struct results_file results_file;

/*
 * Create (or truncate: an existing file is overwritten) the file at path with
 * an empty /results table. On failure *out is NULL and msg (when not NULL)
 * says why.
 */
smm_status results_create(const char *path, results_file **out, char *msg, size_t msg_size);

/* Attach (or replace) an attribute of the root group. */
smm_status results_set_attr_string(results_file *f, const char *name, const char *value);
smm_status results_set_attr_int64(results_file *f, const char *name, int64_t value);
smm_status results_set_attr_uint64(results_file *f, const char *name, uint64_t value);

/* Append one row to /results and flush the file to disk. */
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
