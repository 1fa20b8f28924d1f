/*
 * ann_benchmark.c - nearest-neighbour benchmarks in the ann-benchmarks HDF5
 * layout (train, test, neighbors, distances and the root attributes
 * "distance" and "dimension"): reading with validation, the exact
 * inner-product answer via exact_topk, and writing. See data/dataset.h.
 */
#include "data/dataset.h"
#include "data/data_internal.h"
#include "data/h5_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sketchmm/approx.h"

/* The four datasets, in the order of ann_file.mat. */
enum { ANN_TRAIN, ANN_TEST, ANN_NEIGHBORS, ANN_DISTANCES, ANN_NUM };
static const char *const ANN_PATHS[ANN_NUM] = { "/train", "/test", "/neighbors", "/distances" };

/* An open, validated benchmark file. */
typedef struct {
    hid_t fid;
    h5_matrix mat[ANN_NUM];
    char distance[DATASET_ANN_DISTANCE_LEN];
} ann_file;

static void ann_close(ann_file *f)
{
    for (int i = 0; i < ANN_NUM; i++)
        h5_matrix_close(&f->mat[i]);
    if (f->fid >= 0)
        H5Fclose(f->fid);
    f->fid = H5I_INVALID_HID;
}

/* The string attribute `name` of the root group (fixed or variable length) into buf. */
static smm_status read_string_attr(hid_t root, const char *file, const char *name, char *buf,
                                   size_t size, char *msg, size_t msg_size)
{
    buf[0] = '\0';
    hid_t attr = H5Aopen(root, name, H5P_DEFAULT);
    hid_t ftype = attr >= 0 ? H5Aget_type(attr) : H5I_INVALID_HID;
    hid_t mtype = H5I_INVALID_HID;
    herr_t err = -1;
    if (ftype >= 0 && H5Tget_class(ftype) == H5T_STRING) {
        mtype = H5Tcopy(H5T_C_S1);
        H5Tset_cset(mtype, H5Tget_cset(ftype));
        if (H5Tis_variable_str(ftype) > 0) {
            char *str = NULL;
            H5Tset_size(mtype, H5T_VARIABLE);
            err = H5Aread(attr, mtype, &str);
            if (err >= 0 && str != NULL)
                snprintf(buf, size, "%s", str);
            if (str != NULL)
                H5free_memory(str);
        } else {
            size_t len = H5Tget_size(ftype);
            char *tmp = malloc(len + 1);
            if (tmp != NULL) {
                H5Tset_size(mtype, len);
                err = H5Aread(attr, mtype, tmp);
                tmp[len] = '\0';
                if (err >= 0)
                    snprintf(buf, size, "%s", tmp);
                free(tmp);
            }
        }
    }
    if (mtype >= 0)
        H5Tclose(mtype);
    if (ftype >= 0)
        H5Tclose(ftype);
    if (attr >= 0)
        H5Aclose(attr);
    if (err < 0) {
        dataset_msg(msg, msg_size, "%s: the root attribute \"%s\" is not a readable string", file, name);
        return DATASET_ERR_BAD_FORMAT;
    }
    return SMM_OK;
}

/* The single integer of the root attribute `name`. */
static smm_status read_int_attr(hid_t root, const char *file, const char *name, int64_t *value,
                                char *msg, size_t msg_size)
{
    hid_t attr = H5Aopen(root, name, H5P_DEFAULT);
    hid_t ftype = attr >= 0 ? H5Aget_type(attr) : H5I_INVALID_HID;
    hid_t space = attr >= 0 ? H5Aget_space(attr) : H5I_INVALID_HID;
    herr_t err = -1;
    if (ftype >= 0 && space >= 0 && H5Tget_class(ftype) == H5T_INTEGER &&
        H5Sget_simple_extent_npoints(space) == 1)
        err = H5Aread(attr, H5T_NATIVE_INT64, value);
    if (space >= 0)
        H5Sclose(space);
    if (ftype >= 0)
        H5Tclose(ftype);
    if (attr >= 0)
        H5Aclose(attr);
    if (err < 0) {
        dataset_msg(msg, msg_size, "%s: the root attribute \"%s\" is not a single integer", file, name);
        return DATASET_ERR_BAD_FORMAT;
    }
    return SMM_OK;
}

/* The attributes: "distance" into f->distance, "dimension" checked against d. */
static smm_status check_attributes(ann_file *f, const char *file, int64_t d, char *msg, size_t msg_size)
{
    hid_t root = H5Gopen2(f->fid, "/", H5P_DEFAULT);
    if (root < 0) {
        dataset_msg(msg, msg_size, "%s: cannot open the root group (corrupt file?)", file);
        return DATASET_ERR_BAD_FORMAT;
    }
    smm_status s = SMM_OK;
    f->distance[0] = '\0';
    if (H5Aexists(root, "distance") > 0)
        s = read_string_attr(root, file, "distance", f->distance, sizeof f->distance, msg, msg_size);
    if (s == SMM_OK && H5Aexists(root, "dimension") > 0) {
        int64_t dim = 0;
        s = read_int_attr(root, file, "dimension", &dim, msg, msg_size);
        if (s == SMM_OK && dim != d) {
            dataset_msg(msg, msg_size, "%s: attribute dimension = %lld, but /train has %lld columns",
                        file, (long long)dim, (long long)d);
            s = DATASET_ERR_BAD_FORMAT;
        }
    }
    H5Gclose(root);
    return s;
}

/* Check the shapes of the four open datasets (none empty) against each other. */
static smm_status check_shapes(const ann_file *f, const char *file, char *msg, size_t msg_size)
{
    const h5_matrix *train = &f->mat[ANN_TRAIN], *test = &f->mat[ANN_TEST];
    const h5_matrix *nb = &f->mat[ANN_NEIGHBORS], *dist = &f->mat[ANN_DISTANCES];
    if (train->cols != test->cols) {
        dataset_msg(msg, msg_size, "%s: /train has %lld columns and /test %lld; both need the same d",
                    file, (long long)train->cols, (long long)test->cols);
        return DATASET_ERR_BAD_FORMAT;
    }
    if (nb->cls != H5T_INTEGER) {
        dataset_msg(msg, msg_size, "%s: /neighbors holds floating-point values; expected integer indices", file);
        return DATASET_ERR_BAD_FORMAT;
    }
    if (nb->rows != test->rows || nb->cols > train->rows) {
        dataset_msg(msg, msg_size, "%s: /neighbors is %lld x %lld; expected %lld (rows of /test) x K "
                    "with 1 <= K <= %lld (rows of /train)", file, (long long)nb->rows,
                    (long long)nb->cols, (long long)test->rows, (long long)train->rows);
        return DATASET_ERR_BAD_FORMAT;
    }
    if (dist->rows != nb->rows || dist->cols != nb->cols) {
        dataset_msg(msg, msg_size, "%s: /distances is %lld x %lld, /neighbors %lld x %lld; they must match",
                    file, (long long)dist->rows, (long long)dist->cols, (long long)nb->rows,
                    (long long)nb->cols);
        return DATASET_ERR_BAD_FORMAT;
    }
    return SMM_OK;
}

/* Open and validate everything but the values. Expects error printing off. */
static smm_status ann_open(const char *file, ann_file *f, char *msg, size_t msg_size)
{
    memset(f, 0, sizeof *f);
    for (int i = 0; i < ANN_NUM; i++)
        f->mat[i].id = H5I_INVALID_HID;
    smm_status s = h5_open_read(file, &f->fid, msg, msg_size);
    for (int i = 0; s == SMM_OK && i < ANN_NUM; i++)
        s = h5_matrix_open(f->fid, file, ANN_PATHS[i], &f->mat[i], msg, msg_size);
    if (s == SMM_OK)
        s = check_shapes(f, file, msg, msg_size);
    if (s == SMM_OK)
        s = check_attributes(f, file, f->mat[ANN_TRAIN].cols, msg, msg_size);
    if (s != SMM_OK)
        ann_close(f);
    return s;
}

void dataset_ann_free(dataset_ann *a)
{
    if (a == NULL)
        return;
    dataset_matrix_free(&a->train);
    dataset_matrix_free(&a->test);
    free(a->neighbors);
    free(a->distances);
    memset(a, 0, sizeof *a);
}

smm_status dataset_ann_shape(const char *file, int64_t *train_rows, int64_t *test_rows,
                             int64_t *dim, int64_t *topk, char *msg, size_t msg_size)
{
    int64_t *outs[4] = { train_rows, test_rows, dim, topk };
    for (int i = 0; i < 4; i++)
        if (outs[i] != NULL)
            *outs[i] = 0;
    if (file == NULL) {
        dataset_msg(msg, msg_size, "dataset_ann_shape: NULL file");
        return SMM_ERR_NULL_POINTER;
    }
    h5_quiet q;
    h5_quiet_begin(&q);
    ann_file f;
    smm_status s = ann_open(file, &f, msg, msg_size);
    if (s == SMM_OK) {
        int64_t values[4] = { f.mat[ANN_TRAIN].rows, f.mat[ANN_TEST].rows, f.mat[ANN_TRAIN].cols,
                              f.mat[ANN_NEIGHBORS].cols };
        for (int i = 0; i < 4; i++)
            if (outs[i] != NULL)
                *outs[i] = values[i];
        ann_close(&f);
    }
    h5_quiet_end(&q);
    return s;
}

/* The neighbours and distances of the first q test rows into a (which has topk set). */
static smm_status load_answers(const ann_file *f, const char *file, int64_t q, dataset_ann *a,
                               char *msg, size_t msg_size)
{
    const int64_t K = a->topk, n = f->mat[ANN_TRAIN].rows;
    if (q > 0 && ((uint64_t)K > SIZE_MAX / sizeof(int64_t) / (uint64_t)q)) {
        dataset_msg(msg, msg_size, "%s: %lld x %lld neighbours do not fit in memory", file,
                    (long long)q, (long long)K);
        return SMM_ERR_OVERFLOW;
    }
    size_t count = (size_t)(q * K);
    a->neighbors = malloc((count > 0 ? count : 1) * sizeof(int64_t));
    a->distances = malloc((count > 0 ? count : 1) * sizeof(float));
    if (a->neighbors == NULL || a->distances == NULL) {
        dataset_msg(msg, msg_size, "%s: out of memory for %lld x %lld neighbours", file,
                    (long long)q, (long long)K);
        return SMM_ERR_NO_MEMORY;
    }
    smm_status s = h5_matrix_read(&f->mat[ANN_NEIGHBORS], q, H5T_NATIVE_INT64, a->neighbors, msg, msg_size);
    if (s == SMM_OK)
        s = h5_matrix_read(&f->mat[ANN_DISTANCES], q, H5T_NATIVE_FLOAT, a->distances, msg, msg_size);
    for (size_t t = 0; s == SMM_OK && t < count; t++) {
        if (a->neighbors[t] < 0 || a->neighbors[t] >= n) {
            dataset_msg(msg, msg_size, "%s: /neighbors(%lld, %lld) = %lld is not a row of /train (0..%lld)",
                        file, (long long)(t / (size_t)K), (long long)(t % (size_t)K),
                        (long long)a->neighbors[t], (long long)n - 1);
            s = DATASET_ERR_BAD_FORMAT;
        } else if (!isfinite(a->distances[t])) {
            dataset_msg(msg, msg_size, "%s: /distances(%lld, %lld) is not finite", file,
                        (long long)(t / (size_t)K), (long long)(t % (size_t)K));
            s = DATASET_ERR_BAD_FORMAT;
        }
    }
    return s;
}

smm_status dataset_load_ann(const char *file, int64_t max_train, int64_t max_test,
                            dataset_ann *out, char *msg, size_t msg_size)
{
    if (out != NULL)
        memset(out, 0, sizeof *out);
    if (file == NULL || out == NULL) {
        dataset_msg(msg, msg_size, "dataset_load_ann: NULL argument");
        return SMM_ERR_NULL_POINTER;
    }
    if (max_train < 0 || max_test < 0) {
        dataset_msg(msg, msg_size, "dataset_load_ann: negative max_train or max_test");
        return SMM_ERR_BAD_ARGUMENT;
    }
    h5_quiet q;
    h5_quiet_begin(&q);
    ann_file f;
    smm_status s = ann_open(file, &f, msg, msg_size);
    if (s == SMM_OK) {
        out->topk = f.mat[ANN_NEIGHBORS].cols;
        out->train_rows_in_file = f.mat[ANN_TRAIN].rows;
        out->test_rows_in_file = f.mat[ANN_TEST].rows;
        memcpy(out->distance, f.distance, sizeof out->distance);
        s = h5_matrix_load_floats(&f.mat[ANN_TRAIN], max_train, &out->train, msg, msg_size);
        if (s == SMM_OK)
            s = h5_matrix_load_floats(&f.mat[ANN_TEST], max_test, &out->test, msg, msg_size);
        if (s == SMM_OK && out->train.rows == out->train_rows_in_file)
            s = load_answers(&f, file, out->test.rows, out, msg, msg_size);
        ann_close(&f);
        if (s != SMM_OK)
            dataset_ann_free(out);
    }
    h5_quiet_end(&q);
    return s;
}

smm_status dataset_ann_ground_truth(const dataset_matrix *train, const dataset_matrix *test,
                                    int64_t topk, int64_t **neighbors, float **distances)
{
    if (neighbors != NULL)
        *neighbors = NULL;
    if (distances != NULL)
        *distances = NULL;
    if (train == NULL || test == NULL || neighbors == NULL || distances == NULL)
        return SMM_ERR_NULL_POINTER;
    if (train->cols != test->cols || topk < 1 || topk > train->rows)
        return SMM_ERR_BAD_ARGUMENT;
    const int64_t q = test->rows;
    if (q > 0 && (uint64_t)topk > SIZE_MAX / sizeof(int64_t) / (uint64_t)q)
        return SMM_ERR_OVERFLOW;
    size_t count = (size_t)(q * topk);
    int64_t *idx = malloc((count > 0 ? count : 1) * sizeof *idx);
    float *val = malloc((count > 0 ? count : 1) * sizeof *val);
    if (idx == NULL || val == NULL) {
        free(idx);
        free(val);
        return SMM_ERR_NO_MEMORY;
    }
    /* neighbours of test row i: the largest entries of row i of test * train^T */
    smm_status s = q == 0 ? SMM_OK
                          : exact_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, q, train->rows, train->cols,
                                       test->data, test->cols, train->data, train->cols, topk, idx, val, topk);
    if (s != SMM_OK) {
        free(idx);
        free(val);
        return s;
    }
    *neighbors = idx;
    *distances = val;
    return SMM_OK;
}

/* Write a rows x cols dataset `name` of file type ftype from buf of memory type mtype. */
static herr_t write_matrix(hid_t fid, const char *name, hid_t ftype, hid_t mtype, int64_t rows,
                           int64_t cols, const void *buf)
{
    hsize_t dims[2] = { (hsize_t)rows, (hsize_t)cols };
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t ds = space >= 0 ? H5Dcreate2(fid, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)
                          : H5I_INVALID_HID;
    herr_t err = ds >= 0 ? 0 : -1;
    if (err >= 0 && rows > 0 && cols > 0)
        err = H5Dwrite(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    if (ds >= 0 && H5Dclose(ds) < 0)
        err = -1;
    if (space >= 0)
        H5Sclose(space);
    return err;
}

/* The root attributes: "distance" as a variable-length UTF-8 string (what h5py reads as str), "dimension". */
static herr_t write_attributes(hid_t fid, const char *distance, int64_t dim)
{
    hid_t root = H5Gopen2(fid, "/", H5P_DEFAULT);
    hid_t scalar = H5Screate(H5S_SCALAR);
    hid_t stype = H5Tcopy(H5T_C_S1);
    herr_t err = (root < 0 || scalar < 0 || stype < 0) ? -1 : 0;
    if (err >= 0)
        err = H5Tset_size(stype, H5T_VARIABLE);
    if (err >= 0)
        err = H5Tset_cset(stype, H5T_CSET_UTF8);
    hid_t a = err >= 0 ? H5Acreate2(root, "distance", stype, scalar, H5P_DEFAULT, H5P_DEFAULT)
                       : H5I_INVALID_HID;
    if (a < 0 || H5Awrite(a, stype, &distance) < 0)
        err = -1;
    if (a >= 0)
        H5Aclose(a);
    a = err >= 0 ? H5Acreate2(root, "dimension", H5T_STD_I64LE, scalar, H5P_DEFAULT, H5P_DEFAULT)
                 : H5I_INVALID_HID;
    if (a < 0 || H5Awrite(a, H5T_NATIVE_INT64, &dim) < 0)
        err = -1;
    if (a >= 0)
        H5Aclose(a);
    if (stype >= 0)
        H5Tclose(stype);
    if (scalar >= 0)
        H5Sclose(scalar);
    if (root >= 0)
        H5Gclose(root);
    return err;
}

/* The checks of dataset_write_ann on a; SMM_OK or SMM_ERR_* with a message. */
static smm_status check_for_writing(const char *file, const dataset_ann *a, char *msg, size_t msg_size)
{
    const int64_t n = a->train.rows, q = a->test.rows, K = a->topk;
    if ((n > 0 && a->train.data == NULL) || (q > 0 && a->test.data == NULL) ||
        (q > 0 && (a->neighbors == NULL || a->distances == NULL))) {
        dataset_msg(msg, msg_size, "dataset_write_ann(%s): NULL train, test, neighbors or distances", file);
        return SMM_ERR_NULL_POINTER;
    }
    if (a->train.cols < 1 || a->train.cols != a->test.cols || q < 1 || K < 1 || K > n) {
        dataset_msg(msg, msg_size, "dataset_write_ann(%s): train %lld x %lld, test %lld x %lld and "
                    "topk %lld are inconsistent (same d >= 1, test rows >= 1, 1 <= topk <= train rows)", file,
                    (long long)n, (long long)a->train.cols, (long long)q, (long long)a->test.cols,
                    (long long)K);
        return SMM_ERR_BAD_ARGUMENT;
    }
    for (int64_t t = 0; t < q * K; t++)
        if (a->neighbors[t] < 0 || a->neighbors[t] >= n) {
            dataset_msg(msg, msg_size, "dataset_write_ann(%s): neighbour %lld of test row %lld is %lld, "
                        "not a train row", file, (long long)(t % K), (long long)(t / K),
                        (long long)a->neighbors[t]);
            return SMM_ERR_BAD_ARGUMENT;
        }
    return SMM_OK;
}

smm_status dataset_write_ann(const char *file, const dataset_ann *a, char *msg, size_t msg_size)
{
    if (file == NULL || a == NULL) {
        dataset_msg(msg, msg_size, "dataset_write_ann: NULL argument");
        return SMM_ERR_NULL_POINTER;
    }
    smm_status s = check_for_writing(file, a, msg, msg_size);
    if (s != SMM_OK)
        return s;
    h5_quiet q;
    h5_quiet_begin(&q);
    hid_t fid = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (fid < 0) {
        h5_quiet_end(&q);
        dataset_msg(msg, msg_size, "cannot create %s (directory missing or not writable?)", file);
        return DATASET_ERR_IO;
    }
    const int64_t K = a->topk;
    hid_t index_type = a->train.rows <= INT32_MAX ? H5T_STD_I32LE : H5T_STD_I64LE;
    herr_t err = write_matrix(fid, "train", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, a->train.rows, a->train.cols,
                              a->train.data);
    if (err >= 0)
        err = write_matrix(fid, "test", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, a->test.rows, a->test.cols,
                           a->test.data);
    if (err >= 0)
        err = write_matrix(fid, "neighbors", index_type, H5T_NATIVE_INT64, a->test.rows, K, a->neighbors);
    if (err >= 0)
        err = write_matrix(fid, "distances", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, a->test.rows, K, a->distances);
    if (err >= 0)
        err = write_attributes(fid, a->distance[0] != '\0' ? a->distance : DATASET_ANN_DISTANCE_DOT,
                               a->train.cols);
    if (H5Fclose(fid) < 0)
        err = -1;
    h5_quiet_end(&q);
    if (err < 0) {
        unlink(file);
        dataset_msg(msg, msg_size, "cannot write %s (disk full?); the partial file was removed", file);
        return DATASET_ERR_IO;
    }
    return SMM_OK;
}
