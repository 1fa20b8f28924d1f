/*
 * data/h5_internal.h - the HDF5 reading shared by the matrix loader
 * (h5_matrix.c) and the ann-benchmarks files (ann_benchmark.c). Internal to
 * sketchmm_data.
 *
 * Every function reports failures as an smm_status plus a message naming the
 * file and the path in it; callers switch HDF5's own error printing off
 * around their HDF5 calls with h5_quiet_begin() / h5_quiet_end().
 */
#ifndef SKETCHMM_DATA_H5_INTERNAL_H
#define SKETCHMM_DATA_H5_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <hdf5.h>

#include "data/dataset.h"

/* HDF5's automatic error-stack printing as it was before h5_quiet_begin(). */
typedef struct {
    H5E_auto2_t func;
    void *data;
} h5_quiet;

/* Save the current error printing into *q and switch it off. */
void h5_quiet_begin(h5_quiet *q);

/* Restore what h5_quiet_begin() saved. */
void h5_quiet_end(const h5_quiet *q);

/*
 * Open file read-only into *fid. DATASET_ERR_IO when the operating system cannot
 * open it for reading (missing file, no permission), DATASET_ERR_BAD_FORMAT when
 * HDF5 cannot (not HDF5, truncated, corrupt superblock).
 */
smm_status h5_open_read(const char *file, hid_t *fid, char *msg, size_t msg_size);

/* A 2-D dataset of integers or floating-point numbers, open for reading. */
typedef struct {
    hid_t id;          /* the dataset, H5I_INVALID_HID when closed */
    int64_t rows, cols;
    H5T_class_t cls;   /* H5T_INTEGER or H5T_FLOAT */
    const char *file;  /* for messages (not owned) */
    const char *path;
} h5_matrix;

/*
 * Open the dataset at `path` (absolute, e.g. "/train") of an open file and
 * check it: it exists, is a dataset, is 2-D with at least one row and one
 * column, holds integers or floats, and the file stores enough for the
 * values it claims (the size rule of data/dataset.h). DATASET_ERR_BAD_FORMAT
 * otherwise. On failure m->id is H5I_INVALID_HID.
 */
smm_status h5_matrix_open(hid_t fid, const char *file, const char *path, h5_matrix *m,
                          char *msg, size_t msg_size);

/* Close the dataset (a closed or never-opened m is fine). */
void h5_matrix_close(h5_matrix *m);

/*
 * Read the first `rows` rows (1 <= rows <= m->rows), converted by HDF5 to
 * mem_type (H5T_NATIVE_FLOAT, H5T_NATIVE_INT64, ...), into buf (rows * cols
 * elements). DATASET_ERR_BAD_FORMAT when the read fails (a corrupt or truncated
 * file) or the values cannot be converted.
 */
smm_status h5_matrix_read(const h5_matrix *m, int64_t rows, hid_t mem_type, void *buf,
                          char *msg, size_t msg_size);

/* The same for rows first .. first + rows - 1 (0 <= first, 1 <= rows, first + rows <= m->rows). */
smm_status h5_matrix_read_rows(const h5_matrix *m, int64_t first, int64_t rows, hid_t mem_type, void *buf,
                               char *msg, size_t msg_size);

/*
 * The first min(max_rows, m->rows) rows (max_rows 0: all) as floats into
 * *out, every value checked to be finite (DATASET_ERR_BAD_FORMAT naming the
 * first row and column that is not). On failure *out is empty.
 */
smm_status h5_matrix_load_floats(const h5_matrix *m, int64_t max_rows, dataset_matrix *out,
                                 char *msg, size_t msg_size);

/* The same for rows first .. first + rows - 1 (the bounds of h5_matrix_read_rows). */
smm_status h5_matrix_load_float_rows(const h5_matrix *m, int64_t first, int64_t rows, dataset_matrix *out,
                                     char *msg, size_t msg_size);

#endif /* SKETCHMM_DATA_H5_INTERNAL_H */
