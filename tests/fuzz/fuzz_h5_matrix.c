/*
 * fuzz_h5_matrix - libFuzzer target of the HDF5 matrix loader of data/
 * (h5_matrix.c, the "FILE.h5:/PATH" data sets): the fuzz bytes are written
 * to a per-process temporary file and read as the dataset /x (and /g/x, a
 * dataset inside a group, loaded whole only: every HDF5 open costs). The
 * seed corpus (make_corpus.py) holds small HDF5 files with 2-D float32,
 * float64 and integer datasets, chunked and compressed ones, and near-valid
 * ones the loader must refuse (1-D and 3-D datasets, strings, compounds,
 * non-finite values, an empty matrix, a never-written one, a group at the
 * path).
 *
 * Checked besides the sanitizers (for /g/x those of a single load):
 *   - every status is one dataset.h documents; on failure the matrix is
 *     empty and the message is one non-empty line;
 *   - dataset_h5_matrix_shape and dataset_load_h5_matrix agree: the same
 *     failure status, or the same shape (a load may still fail on the values:
 *     a non-finite value or an unreadable chunk);
 *   - on success the matrix has at least one row and one column, claims no
 *     more values than DATASET_H5_MAX_EXPANSION times the file's bytes (the
 *     size rule of dataset.h, checked before allocating), every value is
 *     finite, and a load limited to 2 rows succeeds whenever the whole load
 *     did, giving its first rows;
 *   - no HDF5 file or object in one is left open after a call
 *     (H5Fget_obj_count).
 */
#include "fuzz_h5.h"

#include <math.h>

/* Bytes of the file under test (the size rule's bound). */
static size_t file_bytes;

/* rows x cols values within the size rule for a file of file_bytes (at least 1 byte per value). */
static int within_size_rule(int64_t rows, int64_t cols)
{
    return (unsigned __int128)rows * (unsigned __int128)cols <=
           (unsigned __int128)file_bytes * DATASET_H5_MAX_EXPANSION;
}

static void check_matrix(const dataset_matrix *m, smm_status s, const char *msg, int64_t max_rows)
{
    FUZZ_CHECK(documented(s), "status %d", (int)s);
    if (s != SMM_OK) {
        FUZZ_CHECK(m->rows == 0 && m->cols == 0 && m->data == NULL, "failed load left %lld x %lld",
                   (long long)m->rows, (long long)m->cols);
        FUZZ_CHECK(fuzz_has_msg(msg), "status %d without a one-line message", (int)s);
        return;
    }
    FUZZ_CHECK(m->rows >= 1 && m->cols >= 1 && m->data != NULL, "loaded %lld x %lld (data %p)", (long long)m->rows,
               (long long)m->cols, (void *)m->data);
    FUZZ_CHECK(max_rows == 0 || m->rows <= max_rows, "%lld rows for max_rows %lld", (long long)m->rows,
               (long long)max_rows);
    FUZZ_CHECK(within_size_rule(m->rows, m->cols), "%lld x %lld values loaded from a file of %zu bytes",
               (long long)m->rows, (long long)m->cols, file_bytes);
    for (int64_t i = 0; i < m->rows * m->cols; i++)
        FUZZ_CHECK(isfinite(m->data[i]), "value %lld = %g", (long long)i, (double)m->data[i]);
}

/* The load of a dataset inside a group (/g/x): whole, with the checks of any load. */
static void check_nested(const char *file, const char *path)
{
    char msg[1024] = "";
    dataset_matrix m = { 3, 3, NULL };
    smm_status s = dataset_load_h5_matrix(file, path, 0, &m, msg, sizeof msg);
    check_nothing_open("dataset_load_h5_matrix");
    check_matrix(&m, s, msg, 0);
    dataset_matrix_free(&m);
}

static void check_path(const char *file, const char *path)
{
    char msg[1024] = "";
    int64_t rows = -1, cols = -1;
    smm_status shape = dataset_h5_matrix_shape(file, path, &rows, &cols, msg, sizeof msg);
    check_nothing_open("dataset_h5_matrix_shape");
    FUZZ_CHECK(documented(shape), "shape status %d", (int)shape);
    if (shape != SMM_OK) {
        FUZZ_CHECK(rows == 0 && cols == 0, "failed shape call left %lld x %lld", (long long)rows, (long long)cols);
        FUZZ_CHECK(fuzz_has_msg(msg), "status %d without a one-line message", (int)shape);
    } else {
        FUZZ_CHECK(rows >= 1 && cols >= 1 && within_size_rule(rows, cols), "shape %lld x %lld of a file of %zu bytes",
                   (long long)rows, (long long)cols, file_bytes);
    }

    dataset_matrix all = { 3, 3, NULL };
    msg[0] = '\0';
    smm_status s_all = dataset_load_h5_matrix(file, path, 0, &all, msg, sizeof msg);
    check_nothing_open("dataset_load_h5_matrix");
    check_matrix(&all, s_all, msg, 0);
    if (shape != SMM_OK)
        FUZZ_CHECK(s_all == shape, "shape status %d but load status %d", (int)shape, (int)s_all);
    if (s_all == SMM_OK)
        FUZZ_CHECK(shape == SMM_OK && all.rows == rows && all.cols == cols,
                   "loaded %lld x %lld, shape said %lld x %lld (status %d)", (long long)all.rows,
                   (long long)all.cols, (long long)rows, (long long)cols, (int)shape);

    dataset_matrix few = { 3, 3, NULL };
    msg[0] = '\0';
    smm_status s_few = dataset_load_h5_matrix(file, path, 2, &few, msg, sizeof msg);
    check_nothing_open("dataset_load_h5_matrix (2 rows)");
    check_matrix(&few, s_few, msg, 2);
    if (s_all == SMM_OK) {
        /* the whole matrix loaded: its first rows load too, with the same values */
        FUZZ_CHECK(s_few == SMM_OK, "whole matrix loaded, 2 rows gave status %d: %s", (int)s_few, msg);
        FUZZ_CHECK(few.cols == all.cols && few.rows == (all.rows < 2 ? all.rows : 2),
                   "2-row load gave %lld x %lld of %lld x %lld", (long long)few.rows, (long long)few.cols,
                   (long long)all.rows, (long long)all.cols);
        FUZZ_CHECK(memcmp(few.data, all.data, (size_t)(few.rows * few.cols) * sizeof(float)) == 0,
                   "the first rows differ between the whole and the limited load");
    }
    dataset_matrix_free(&few);
    dataset_matrix_free(&all);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *file = fuzz_tmp_file("fuzz_h5_matrix", ".h5");
    fuzz_write_file(file, data, size);
    file_bytes = size;
    check_path(file, "/x");
    check_nested(file, "/g/x"); /* (each HDF5 open costs a 512 KiB cache: one call for this path) */
    /* HDF5 keeps freed blocks on its free lists: hand them back, so libFuzzer sees every
       allocation of the run freed and runs its (costly) leak check only after real leaks */
    H5garbage_collect();
    return 0;
}
