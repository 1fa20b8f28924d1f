/*
 * test_data_slices.c - the loaders of one slice of a database
 * (dataset_load_h5_rows, dataset_load_idx_image_rows,
 * dataset_idx_images_shape), as each rank of a sharded search reads its
 * block: every slice equals the same rows of the whole file read at once,
 * for contiguous and chunked HDF5 datasets, plain and gzipped IDX files;
 * slices out of range, damage and non-finite values inside the slice are
 * refused with a message naming the file, and a non-finite value outside
 * the slice is not read.
 */
#include <math.h>
#include <string.h>

#include <hdf5.h>
#include <zlib.h>

#include "data/dataset.h"
#include "test_tmpdir.h"
#include "test_util.h"

enum { ROWS = 37, COLS = 11 };

static const char *tmp(const char *name)
{
    static char path[1024];
    return test_tmp_path(name, path, sizeof path);
}

/* /plain (contiguous float32), /chunked (chunks of 4 rows, deflate) and /nan (row 30 holds a NaN). */
static void write_h5(const char *path, float *values)
{
    for (int i = 0; i < ROWS * COLS; i++)
        values[i] = (float)i * 0.25f - 3.0f;
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_int_ge(f, 0);
    hsize_t dims[2] = { ROWS, COLS }, chunk[2] = { 4, COLS };
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t plist = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(plist, 2, chunk);
    H5Pset_deflate(plist, 6);
    const char *names[3] = { "plain", "chunked", "nan" };
    for (int d = 0; d < 3; d++) {
        hid_t set = H5Dcreate2(f, names[d], H5T_IEEE_F32LE, space, H5P_DEFAULT, d == 1 ? plist : H5P_DEFAULT,
                               H5P_DEFAULT);
        ck_assert_int_ge(set, 0);
        float saved = values[30 * COLS + 4];
        if (d == 2)
            values[30 * COLS + 4] = NAN;
        ck_assert_int_ge(H5Dwrite(set, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), 0);
        values[30 * COLS + 4] = saved;
        H5Dclose(set);
    }
    H5Pclose(plist);
    H5Sclose(space);
    H5Fclose(f);
}

START_TEST(test_h5_slices)
{
    float values[ROWS * COLS];
    write_h5(tmp("v.h5"), values);
    const char *sets[2] = { "/plain", "/chunked" };
    const int64_t slices[][2] = { { 0, 1 }, { 0, ROWS }, { 5, 9 }, { 36, 1 }, { 3, 30 } };
    char msg[512];
    for (int d = 0; d < 2; d++)
        for (size_t u = 0; u < sizeof slices / sizeof slices[0]; u++) {
            dataset_matrix m = { 0, 0, NULL };
            const int64_t first = slices[u][0], count = slices[u][1];
            ck_assert_int_eq(dataset_load_h5_rows(tmp("v.h5"), sets[d], first, count, &m, msg, sizeof msg), SMM_OK);
            ck_assert_int_eq(m.rows, count);
            ck_assert_int_eq(m.cols, COLS);
            ck_assert_mem_eq(m.data, values + first * COLS, (size_t)(count * COLS) * sizeof(float));
            dataset_matrix_free(&m);
        }
    /* the NaN lies in row 30: slices without it load, a slice with it is refused naming the row */
    dataset_matrix m = { 0, 0, NULL };
    ck_assert_int_eq(dataset_load_h5_rows(tmp("v.h5"), "/nan", 0, 30, &m, msg, sizeof msg), SMM_OK);
    dataset_matrix_free(&m);
    ck_assert_int_eq(dataset_load_h5_rows(tmp("v.h5"), "/nan", 31, 6, &m, msg, sizeof msg), SMM_OK);
    dataset_matrix_free(&m);
    ck_assert_int_eq(dataset_load_h5_rows(tmp("v.h5"), "/nan", 28, 4, &m, msg, sizeof msg), DATASET_ERR_BAD_FORMAT);
    ck_assert_msg(strstr(msg, "(30, 4)") != NULL && m.data == NULL, "%s", msg);
    /* out of range, bad arguments, a missing dataset */
    ck_assert_int_eq(dataset_load_h5_rows(tmp("v.h5"), "/plain", 30, 8, &m, msg, sizeof msg), SMM_ERR_BAD_ARGUMENT);
    ck_assert_msg(strstr(msg, "37 rows") != NULL, "%s", msg);
    ck_assert_int_eq(dataset_load_h5_rows(tmp("v.h5"), "/plain", ROWS, 1, &m, msg, sizeof msg), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(dataset_load_h5_rows(tmp("v.h5"), "/plain", -1, 3, &m, msg, sizeof msg), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(dataset_load_h5_rows(tmp("v.h5"), "/plain", 0, 0, &m, msg, sizeof msg), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(dataset_load_h5_rows(tmp("v.h5"), "/none", 0, 1, &m, msg, sizeof msg), DATASET_ERR_BAD_FORMAT);
    ck_assert_int_eq(dataset_load_h5_rows(tmp("none.h5"), "/plain", 0, 1, &m, msg, sizeof msg), DATASET_ERR_IO);
    ck_assert_int_eq(dataset_load_h5_rows(NULL, "/plain", 0, 1, &m, msg, sizeof msg), SMM_ERR_NULL_POINTER);
    ck_assert_ptr_null(m.data);
}
END_TEST

/* An IDX image file of ROWS images of 1 x COLS pixels (pixel i * 7 mod 256), plain or gzipped; its bytes in *bytes. */
static size_t write_idx(const char *path, int gzipped, unsigned char *bytes)
{
    const unsigned char header[16] = { 0, 0, 8, 3, 0, 0, 0, ROWS, 0, 0, 0, 1, 0, 0, 0, COLS };
    memcpy(bytes, header, sizeof header);
    for (int i = 0; i < ROWS * COLS; i++)
        bytes[16 + i] = (unsigned char)(i * 7);
    const size_t len = 16 + ROWS * COLS;
    if (gzipped) {
        gzFile gz = gzopen(path, "wb");
        ck_assert_ptr_nonnull(gz);
        ck_assert_int_eq(gzwrite(gz, bytes, (unsigned)len), (int)len);
        ck_assert_int_eq(gzclose(gz), Z_OK);
    } else {
        FILE *f = fopen(path, "wb");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fwrite(bytes, 1, len, f), len);
        fclose(f);
    }
    return len;
}

START_TEST(test_idx_slices)
{
    unsigned char bytes[16 + ROWS * COLS];
    char msg[512];
    const char *names[2] = { "v.idx", "v.idx.gz" };
    for (int gz = 0; gz < 2; gz++) {
        write_idx(tmp(names[gz]), gz, bytes);
        int64_t count = 0, pixels = 0;
        ck_assert_int_eq(dataset_idx_images_shape(tmp(names[gz]), &count, &pixels, msg, sizeof msg), SMM_OK);
        ck_assert_int_eq(count, ROWS);
        ck_assert_int_eq(pixels, COLS);
        dataset_matrix whole = { 0, 0, NULL };
        ck_assert_int_eq(dataset_load_idx_images(tmp(names[gz]), 0, &whole, msg, sizeof msg), SMM_OK);
        const int64_t slices[][2] = { { 0, 1 }, { 0, ROWS }, { 5, 9 }, { 36, 1 } };
        for (size_t u = 0; u < sizeof slices / sizeof slices[0]; u++) {
            dataset_matrix m = { 0, 0, NULL };
            const int64_t first = slices[u][0], rows = slices[u][1];
            ck_assert_int_eq(dataset_load_idx_image_rows(tmp(names[gz]), first, rows, &m, msg, sizeof msg), SMM_OK);
            ck_assert_int_eq(m.rows, rows);
            ck_assert_int_eq(m.cols, COLS);
            ck_assert_mem_eq(m.data, whole.data + first * COLS, (size_t)(rows * COLS) * sizeof(float));
            dataset_matrix_free(&m);
        }
        dataset_matrix_free(&whole);
        dataset_matrix m = { 0, 0, NULL };
        ck_assert_int_eq(dataset_load_idx_image_rows(tmp(names[gz]), 30, 8, &m, msg, sizeof msg),
                         SMM_ERR_BAD_ARGUMENT);
        ck_assert_msg(strstr(msg, "37 images") != NULL, "%s", msg);
        ck_assert_int_eq(dataset_load_idx_image_rows(tmp(names[gz]), 0, 0, &m, msg, sizeof msg),
                         SMM_ERR_BAD_ARGUMENT);
        ck_assert_ptr_null(m.data);
    }

    /* a plain file one byte short: its length no longer matches its header, before any slice is read */
    FILE *f = fopen(tmp("short.idx"), "wb");
    ck_assert_ptr_nonnull(f);
    fwrite(bytes, 1, sizeof bytes - 1, f);
    fclose(f);
    dataset_matrix m = { 0, 0, NULL };
    ck_assert_int_eq(dataset_load_idx_image_rows(tmp("short.idx"), 0, 2, &m, msg, sizeof msg), DATASET_ERR_BAD_FORMAT);
    ck_assert_int_eq(dataset_idx_images_shape(tmp("short.idx"), &(int64_t){ 0 }, &(int64_t){ 0 }, msg, sizeof msg),
                     DATASET_ERR_BAD_FORMAT);

    /* a gzip file whose stored CRC is wrong: the stream is read to its end, so a slice at its start fails too */
    FILE *g = fopen(tmp("v.idx.gz"), "r+b");
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(fseek(g, -8, SEEK_END), 0);
    int c = fgetc(g);
    ck_assert_int_eq(fseek(g, -8, SEEK_END), 0);
    fputc(c ^ 0xff, g);
    fclose(g);
    ck_assert_int_eq(dataset_load_idx_image_rows(tmp("v.idx.gz"), 0, 2, &m, msg, sizeof msg), DATASET_ERR_BAD_FORMAT);
    ck_assert_msg(strstr(msg, "v.idx.gz") != NULL, "%s", msg);
    ck_assert_int_eq(dataset_load_idx_image_rows(tmp("none.idx"), 0, 2, &m, msg, sizeof msg), DATASET_ERR_IO);
    ck_assert_ptr_null(m.data);
}
END_TEST

static Suite *data_slices_suite(void)
{
    Suite *s = suite_create("data_slices");
    TCase *tc = tcase_create("slices");
    tcase_add_checked_fixture(tc, test_tmpdir_setup, test_tmpdir_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_h5_slices);
    tcase_add_test(tc, test_idx_slices);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(data_slices_suite());
}
