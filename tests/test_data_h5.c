/*
 * test_data_h5.c - the HDF5 side of data/ (target sketchmm_data): matrices
 * from any 2-D dataset ("file.h5:/path") and nearest-neighbour benchmarks in
 * the ann-benchmarks layout, on small files written here with the HDF5 C
 * API, and the tool sketchmm_make_ann (SKETCHMM_MAKE_ANN_EXE) end to end.
 * Every failure must come back as a status and a message naming the file,
 * with nothing printed by HDF5.
 */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hdf5.h>

#include "test_tmpdir.h"
#include "test_util.h"
#include "data/dataset.h"

#ifndef SKETCHMM_MAKE_ANN_EXE
#error "SKETCHMM_MAKE_ANN_EXE must name the sketchmm_make_ann executable"
#endif

/*
 * test_tmpdir/name in one of 8 static buffers used in turn, so a test body
 * may hold up to 8 paths at once (the helpers below use their own buffers).
 */
static const char *tmp_path(const char *name)
{
    static char path[8][1024];
    static int slot;
    slot = (slot + 1) % 8;
    return test_tmp_path(name, path[slot], sizeof path[slot]);
}

/* ------------------------------------------------------------------------ */
/* Writing fixtures                                                         */
/* ------------------------------------------------------------------------ */

static hid_t create_file(const char *path)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_msg(f >= 0, "H5Fcreate(%s) failed", path);
    return f;
}

/* A dataset of `rank` dimensions at name (intermediate groups created), file type ftype, from buf of mtype. */
static void put_dataset(hid_t loc, const char *name, hid_t ftype, hid_t mtype, int rank,
                        const hsize_t *dims, const void *buf)
{
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    ck_assert_int_ge(H5Pset_create_intermediate_group(lcpl, 1), 0);
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t ds = H5Dcreate2(loc, name, ftype, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_msg(ds >= 0, "H5Dcreate2(%s) failed", name);
    ck_assert_int_ge(H5Dwrite(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf), 0);
    H5Dclose(ds);
    H5Sclose(space);
    H5Pclose(lcpl);
}

static void put_matrix(hid_t loc, const char *name, hid_t ftype, hid_t mtype, hsize_t rows,
                       hsize_t cols, const void *buf)
{
    hsize_t dims[2] = { rows, cols };
    put_dataset(loc, name, ftype, mtype, 2, dims, buf);
}

/*
 * A rows x cols float32 dataset created but never written, so the file
 * stores none of its values; chunked in rows of cols values when `chunked`.
 */
static void put_unwritten(hid_t loc, const char *name, hsize_t rows, hsize_t cols, int chunked)
{
    hsize_t dims[2] = { rows, cols }, chunk[2] = { 1, cols };
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (chunked)
        ck_assert_int_ge(H5Pset_chunk(dcpl, 2, chunk), 0);
    hid_t ds = H5Dcreate2(loc, name, H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ck_assert_msg(ds >= 0, "H5Dcreate2(%s) failed", name);
    H5Dclose(ds);
    H5Pclose(dcpl);
    H5Sclose(space);
}

/* Value (i, j) of the test matrices: exact in float, negative ones too. */
static double value_at(int i, int j)
{
    return (double)(10 * i + j) - 7.5;
}

/*
 * A file with /f32 (5 x 3 float32), /f64 (float64), /i16 (int16), /u8
 * (uint8, values 10 i + j), /i64 (int64), /group/deep/m (float32), a 1-D and
 * a 3-D dataset, a string dataset, a compound dataset and a float32 matrix
 * holding a NaN.
 */
static void write_matrix_fixture(const char *path)
{
    enum { R = 5, C = 3 };
    float f32[R * C];
    double f64[R * C];
    int16_t i16[R * C];
    uint8_t u8[R * C];
    int64_t i64[R * C];
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
            f32[i * C + j] = (float)value_at(i, j);
            f64[i * C + j] = value_at(i, j);
            i16[i * C + j] = (int16_t)(value_at(i, j) + 0.5);
            u8[i * C + j] = (uint8_t)(10 * i + j);
            i64[i * C + j] = (int64_t)(value_at(i, j) + 0.5) * INT64_C(1000000);
        }
    hid_t f = create_file(path);
    put_matrix(f, "f32", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, R, C, f32);
    put_matrix(f, "f64", H5T_IEEE_F64BE, H5T_NATIVE_DOUBLE, R, C, f64);
    put_matrix(f, "i16", H5T_STD_I16LE, H5T_NATIVE_INT16, R, C, i16);
    put_matrix(f, "u8", H5T_STD_U8LE, H5T_NATIVE_UINT8, R, C, u8);
    put_matrix(f, "i64", H5T_STD_I64LE, H5T_NATIVE_INT64, R, C, i64);
    put_matrix(f, "group/deep/m", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, R, C, f32);
    hsize_t d1[1] = { R * C }, d3[3] = { 1, R, C };
    put_dataset(f, "vector", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, d1, f32);
    put_dataset(f, "cube", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 3, d3, f32);

    hid_t str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, 4);
    char text[2 * 2 * 4];
    memset(text, 'x', sizeof text);
    put_matrix(f, "strings", str, str, 2, 2, text);
    H5Tclose(str);

    typedef struct {
        float a;
        int32_t b;
    } pair;
    hid_t cmp = H5Tcreate(H5T_COMPOUND, sizeof(pair));
    H5Tinsert(cmp, "a", HOFFSET(pair, a), H5T_NATIVE_FLOAT);
    H5Tinsert(cmp, "b", HOFFSET(pair, b), H5T_NATIVE_INT32);
    pair pairs[4] = { { 1, 2 }, { 3, 4 }, { 5, 6 }, { 7, 8 } };
    put_matrix(f, "compound", cmp, cmp, 2, 2, pairs);
    H5Tclose(cmp);

    f32[4] = NAN;
    put_matrix(f, "nan", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, R, C, f32);
    H5Fclose(f);
}

/* The size of a file. */
static long file_size(const char *path)
{
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    return (long)st.st_size;
}

/* The first len bytes of path, in a buffer the caller frees. */
static unsigned char *read_bytes(const char *path, long len)
{
    FILE *in = fopen(path, "rb");
    ck_assert_ptr_nonnull(in);
    unsigned char *buf = malloc((size_t)len);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)len, in), (size_t)len);
    fclose(in);
    return buf;
}

/* buf (len bytes) as the file path, then freed. */
static void write_bytes_and_free(const char *path, unsigned char *buf, long len)
{
    FILE *out = fopen(path, "wb");
    ck_assert_ptr_nonnull(out);
    ck_assert_uint_eq(fwrite(buf, 1, (size_t)len, out), (size_t)len);
    fclose(out);
    free(buf);
}

/* Copy the first `len` bytes of src to dst, then (when flip_at >= 0) flip 64 bytes from flip_at. */
static void copy_damaged(const char *src, const char *dst, long len, long flip_at)
{
    unsigned char *buf = read_bytes(src, len);
    for (long t = flip_at; flip_at >= 0 && t < flip_at + 64 && t < len; t++)
        buf[t] ^= 0xA5;
    write_bytes_and_free(dst, buf, len);
}

/* ------------------------------------------------------------------------ */
/* HDF5's own error printing must stay off                                  */
/* ------------------------------------------------------------------------ */

/* stderr goes to a file between stderr_capture_begin() and stderr_capture_end(), which returns its size. */
static int saved_stderr = -1;

static const char *stderr_path(void)
{
    static char path[1024];
    return test_tmp_path("stderr.txt", path, sizeof path);
}

static void stderr_capture_begin(void)
{
    fflush(stderr);
    saved_stderr = dup(2);
    ck_assert_int_ge(saved_stderr, 0);
    int fd = open(stderr_path(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    dup2(fd, 2);
    close(fd);
}

static long stderr_capture_end(void)
{
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    saved_stderr = -1;
    return file_size(stderr_path());
}

/* ------------------------------------------------------------------------ */
/* Matrices                                                                 */
/* ------------------------------------------------------------------------ */

/* Load path of file and check it equals value_at scaled by `scale` (rows rows). */
static void check_loaded(const char *file, const char *path, int64_t max_rows, int64_t rows,
                         double scale, double offset)
{
    dataset_matrix m;
    char msg[512] = "";
    smm_status s = dataset_load_h5_matrix(file, path, max_rows, &m, msg, sizeof msg);
    ck_assert_msg(s == SMM_OK, "%s: %s", path, msg);
    ck_assert_int_eq(m.rows, rows);
    ck_assert_int_eq(m.cols, 3);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < 3; j++)
            ck_assert_msg(m.data[i * 3 + j] == (float)(scale * (value_at(i, j) + offset)),
                          "%s(%d, %d) = %g", path, i, j, (double)m.data[i * 3 + j]);
    dataset_matrix_free(&m);
}

/* The shape query and the loader agree on rows x cols. */
static void check_shape(const char *file, const char *path, int64_t rows, int64_t cols)
{
    int64_t r = -1, c = -1;
    char msg[512] = "";
    ck_assert_msg(dataset_h5_matrix_shape(file, path, &r, &c, msg, sizeof msg) == SMM_OK, "%s", msg);
    ck_assert_int_eq(r, rows);
    ck_assert_int_eq(c, cols);
    dataset_matrix m;
    ck_assert_msg(dataset_load_h5_matrix(file, path, 0, &m, msg, sizeof msg) == SMM_OK, "%s", msg);
    ck_assert_int_eq(m.rows, rows);
    ck_assert_int_eq(m.cols, cols);
    dataset_matrix_free(&m);
}

START_TEST(test_h5_matrix_types)
{
    const char *file = tmp_path("m.h5");
    write_matrix_fixture(file);
    check_loaded(file, "/f32", 0, 5, 1.0, 0.0);
    check_loaded(file, "/f64", 0, 5, 1.0, 0.0);          /* float64 big-endian -> float */
    check_loaded(file, "/i16", 0, 5, 1.0, 0.5);          /* integers convert exactly */
    check_loaded(file, "/u8", 0, 5, 1.0, 7.5);
    check_loaded(file, "/i64", 0, 5, 1000000.0, 0.5);
    check_loaded(file, "/group/deep/m", 0, 5, 1.0, 0.0); /* nested groups */
    /* max_rows reads a prefix; more than the rows reads all. */
    check_loaded(file, "/f64", 2, 2, 1.0, 0.0);
    check_loaded(file, "/f32", 99, 5, 1.0, 0.0);

    int64_t rows = -1, cols = -1;
    char msg[512] = "";
    ck_assert_int_eq(dataset_h5_matrix_shape(file, "/i16", &rows, &cols, msg, sizeof msg), SMM_OK);
    ck_assert_int_eq(rows, 5);
    ck_assert_int_eq(cols, 3);
}
END_TEST

/*
 * Expect status `want` and a message containing file and `part`, with
 * nothing on stderr, from the loader and (unless the problem lies in the
 * values, which it does not read) from the shape probe.
 */
static void expect_error(const char *file, const char *path, smm_status want, const char *part,
                         int in_values)
{
    char msg[512] = "";
    dataset_matrix m = { 7, 7, NULL };
    stderr_capture_begin();
    smm_status s = dataset_load_h5_matrix(file, path, 0, &m, msg, sizeof msg);
    int64_t rows = -1, cols = -1;
    char msg2[512] = "";
    smm_status s2 = dataset_h5_matrix_shape(file, path, &rows, &cols, msg2, sizeof msg2);
    long printed = stderr_capture_end();
    ck_assert_msg(s == want, "%s:%s: status %s, expected %s (%s)", file, path, smm_status_str(s),
                  smm_status_str(want), msg);
    if (!in_values) {
        ck_assert_msg(s2 == want, "shape of %s:%s: status %s, expected %s (%s)", file, path,
                      smm_status_str(s2), smm_status_str(want), msg2);
        ck_assert_int_eq(rows, 0);
    }
    ck_assert_ptr_null(m.data);
    ck_assert_int_eq(m.rows, 0);
    ck_assert_msg(strstr(msg, file) != NULL, "message \"%s\" does not name %s", msg, file);
    ck_assert_msg(strstr(msg, part) != NULL, "message \"%s\" does not say \"%s\"", msg, part);
    ck_assert_msg(printed == 0, "%ld bytes printed on stderr for %s:%s", printed, file, path);
}

static void expect_load_error(const char *file, const char *path, smm_status want, const char *part)
{
    expect_error(file, path, want, part, 0);
}

START_TEST(test_h5_matrix_errors)
{
    const char *file = tmp_path("m.h5");
    write_matrix_fixture(file);
    expect_load_error(tmp_path("missing.h5"), "/x", DATASET_ERR_IO, "No such file");
    expect_load_error(file, "/nothing", DATASET_ERR_BAD_FORMAT, "/nothing");
    expect_load_error(file, "/group/nothing/m", DATASET_ERR_BAD_FORMAT, "/group/nothing/m");
    expect_load_error(file, "/f32/below", DATASET_ERR_BAD_FORMAT, "/f32/below");
    expect_load_error(file, "f32", DATASET_ERR_BAD_FORMAT, "start with '/'");
    expect_load_error(file, "/group", DATASET_ERR_BAD_FORMAT, "not a dataset");
    expect_load_error(file, "/vector", DATASET_ERR_BAD_FORMAT, "1 dimension");
    expect_load_error(file, "/cube", DATASET_ERR_BAD_FORMAT, "3 dimensions");
    expect_load_error(file, "/strings", DATASET_ERR_BAD_FORMAT, "string values");
    expect_load_error(file, "/compound", DATASET_ERR_BAD_FORMAT, "compound values");
    expect_error(file, "/nan", DATASET_ERR_BAD_FORMAT, "/nan(1, 1)", 1);

    /* Not HDF5 at all. */
    const char *text = tmp_path("text.h5");
    FILE *f = fopen(text, "w");
    ck_assert_ptr_nonnull(f);
    fputs("row,col\n1,2\n", f);
    fclose(f);
    expect_load_error(text, "/f32", DATASET_ERR_BAD_FORMAT, "not a readable HDF5 file");

    /* Truncated: half of the file. */
    long size = file_size(file);
    const char *cut = tmp_path("cut.h5");
    copy_damaged(file, cut, size / 2, -1);
    expect_load_error(cut, "/f32", DATASET_ERR_BAD_FORMAT, "HDF5");
    /* Corrupt: the superblock overwritten. */
    const char *bad = tmp_path("bad.h5");
    copy_damaged(file, bad, size, 0);
    expect_load_error(bad, "/f32", DATASET_ERR_BAD_FORMAT, "not a readable HDF5 file");

    /* Arguments. */
    dataset_matrix m;
    ck_assert_int_eq(dataset_load_h5_matrix(NULL, "/f32", 0, &m, NULL, 0), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(dataset_load_h5_matrix(file, NULL, 0, &m, NULL, 0), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(dataset_load_h5_matrix(file, "/f32", 0, NULL, NULL, 0), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(dataset_load_h5_matrix(file, "/f32", -1, &m, NULL, 0), SMM_ERR_BAD_ARGUMENT);
    ck_assert_ptr_null(m.data);
}
END_TEST

enum { CHUNKED_ROWS = 4000, CHUNKED_COLS = 64 };

/*
 * x (CHUNKED_ROWS x CHUNKED_COLS floats) as the float32 dataset /x of a new
 * file, in gzip-compressed chunks of 500 rows. Returns the file's size.
 */
static long write_chunked(const char *file, const float *x)
{
    hid_t f = create_file(file);
    hsize_t dims[2] = { CHUNKED_ROWS, CHUNKED_COLS }, chunk[2] = { 500, CHUNKED_COLS };
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    H5Pset_deflate(dcpl, 6);
    hid_t ds = H5Dcreate2(f, "x", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ck_assert_int_ge(ds, 0);
    ck_assert_int_ge(H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, x), 0);
    H5Dclose(ds);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Fclose(f);
    return file_size(file);
}

START_TEST(test_h5_corrupt_data)
{
    /*
     * A gzip-compressed, chunked matrix: the metadata sits at the start of
     * the file, so damage in the middle hits compressed chunks, which then
     * fail to decompress when read.
     */
    const char *file = tmp_path("big.h5");
    float *x = malloc(CHUNKED_ROWS * CHUNKED_COLS * sizeof(float));
    ck_assert_ptr_nonnull(x);
    uint64_t rng = 5;
    for (int t = 0; t < CHUNKED_ROWS * CHUNKED_COLS; t++)
        x[t] = test_rng_uniform(&rng);
    long size = write_chunked(file, x);
    free(x);
    ck_assert_int_gt(size, 100000);

    const char *bad = tmp_path("big_bad.h5");
    copy_damaged(file, bad, size, size / 2);
    expect_error(bad, "/x", DATASET_ERR_BAD_FORMAT, "cannot read rows 0..3999 of /x", 1);
    /* Truncated: HDF5 notices the missing end when opening. */
    const char *cut = tmp_path("big_cut.h5");
    copy_damaged(file, cut, size - 4096, -1);
    expect_load_error(cut, "/x", DATASET_ERR_BAD_FORMAT, "not a readable HDF5 file");
}
END_TEST

START_TEST(test_h5_matrix_without_rows_or_columns)
{
    const char *file = tmp_path("empty.h5");
    hid_t f = create_file(file);
    put_unwritten(f, "cols0", 600, 0, 0);
    put_unwritten(f, "rows0", 0, 5, 0);
    float one = 1.0f;
    put_matrix(f, "one", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, 1, &one);
    H5Fclose(f);
    expect_load_error(file, "/cols0", DATASET_ERR_BAD_FORMAT, "/cols0 is 600 x 0");
    expect_load_error(file, "/rows0", DATASET_ERR_BAD_FORMAT, "/rows0 is 0 x 5");
    /* The smallest matrix is fine. */
    check_shape(file, "/one", 1, 1);
}
END_TEST

START_TEST(test_h5_claims_beyond_storage)
{
    /*
     * Dataspaces claiming more values than the file stores are refused by the
     * shape query and the loader alike, before anything is allocated for them
     * (a sanitizer build aborts on such an allocation).
     */
    const char *file = tmp_path("claims.h5");
    hid_t f = create_file(file);
    put_unwritten(f, "chunked", (hsize_t)1 << 40, 1000, 1);
    put_unwritten(f, "contiguous", 1000000, 1000000, 0);
    /* 2^30 rows claimed, the first 16 written. */
    put_unwritten(f, "sparse", (hsize_t)1 << 30, 64, 1);
    hid_t ds = H5Dopen2(f, "sparse", H5P_DEFAULT);
    hid_t fspace = H5Dget_space(ds);
    hsize_t start[2] = { 0, 0 }, count[2] = { 16, 64 };
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t mspace = H5Screate_simple(2, count, NULL);
    float rows[16 * 64] = { 0 };
    ck_assert_int_ge(H5Dwrite(ds, H5T_NATIVE_FLOAT, mspace, fspace, H5P_DEFAULT, rows), 0);
    H5Sclose(mspace);
    H5Sclose(fspace);
    H5Dclose(ds);
    H5Fclose(f);
    expect_load_error(file, "/chunked", DATASET_ERR_BAD_FORMAT, "/chunked claims 1099511627776 x 1000 values");
    expect_load_error(file, "/contiguous", DATASET_ERR_BAD_FORMAT, "/contiguous claims 1000000 x 1000000 values");
    expect_load_error(file, "/sparse", DATASET_ERR_BAD_FORMAT, "/sparse claims 1073741824 x 64 values");

    /* Values that were written pass, however well they compress: zeros shrink about 1000-fold. */
    float *zeros = calloc(CHUNKED_ROWS * CHUNKED_COLS, sizeof(float));
    ck_assert_ptr_nonnull(zeros);
    const char *packed = tmp_path("zeros.h5");
    ck_assert_int_lt(write_chunked(packed, zeros), CHUNKED_ROWS * CHUNKED_COLS * 4 / 100);
    free(zeros);
    check_shape(packed, "/x", CHUNKED_ROWS, CHUNKED_COLS);
}
END_TEST

/*
 * Copy src to dst with the float32 datatype message of its one dataset
 * patched: `at` indexes the properties after the size (bit offset 2 bytes,
 * precision 2, exponent location, exponent size, mantissa location, mantissa
 * size), set to `value`. The message is found by its bytes (size 4, offset 0,
 * precision 32, fields 23/8/0/23, bias 127); object headers of the default
 * file format carry no checksum, so the file still opens.
 */
static void copy_with_float_field(const char *src, const char *dst, int at, unsigned char value)
{
    static const unsigned char f32le[] = { 4, 0, 0, 0, 0, 0, 32, 0, 23, 8, 0, 23, 127, 0, 0, 0 };
    long len = file_size(src);
    unsigned char *buf = read_bytes(src, len);
    long found = -1;
    for (long t = 0; t + (long)sizeof f32le <= len; t++)
        if (memcmp(buf + t, f32le, sizeof f32le) == 0) {
            ck_assert_msg(found < 0, "two float32 datatype messages in %s", src);
            found = t;
        }
    ck_assert_msg(found >= 0, "no float32 datatype message in %s", src);
    buf[found + 4 + at] = value;
    write_bytes_and_free(dst, buf, len);
}

START_TEST(test_h5_corrupt_type_layout)
{
    /*
     * A float type whose declared bit fields reach past its 4 bytes: libhdf5
     * opens it and converts each value from whatever follows it in its
     * buffer (a whole and a partial read disagree: found by fuzz_ann). The
     * loader refuses the type before reading.
     */
    const char *file = tmp_path("layout.h5");
    hid_t f = create_file(file);
    float x[4 * 3];
    for (int t = 0; t < 12; t++)
        x[t] = (float)value_at(t / 3, t % 3);
    put_matrix(f, "x", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 4, 3, x);
    H5Fclose(f);
    const char *copy = tmp_path("layout_same.h5");
    copy_with_float_field(file, copy, 7, 23); /* the mantissa size it has: still loads */
    check_loaded(copy, "/x", 0, 4, 1.0, 0.0);

    const struct { int at; unsigned char value; } bad[] = {
        { 6, 40 }, /* mantissa at bits 40..62 of a 32-bit value */
        { 6, 1 },  /* mantissa 1..23 overlaps the exponent 23..30 */
        { 4, 28 }, /* exponent 28..35 */
        { 2, 40 }, /* 40 bits of precision in 4 bytes */
        { 7, 0 },  /* no mantissa */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *damaged = tmp_path("layout_bad.h5");
        copy_with_float_field(file, damaged, bad[i].at, bad[i].value);
        char msg[512] = "";
        dataset_matrix m;
        smm_status s = dataset_load_h5_matrix(damaged, "/x", 0, &m, msg, sizeof msg);
        ck_assert_msg(s == DATASET_ERR_BAD_FORMAT, "field %d = %d: status %s (%s)", bad[i].at, bad[i].value,
                      smm_status_str(s), msg);
        ck_assert_ptr_null(m.data);
        ck_assert_msg(i > 0 || strstr(msg, "bit fields do not fit") != NULL, "message \"%s\"", msg);
        int64_t rows = -1, cols = -1;
        ck_assert_int_eq(dataset_h5_matrix_shape(damaged, "/x", &rows, &cols, msg, sizeof msg),
                         DATASET_ERR_BAD_FORMAT);
        ck_assert_int_eq(rows, 0);
    }
}
END_TEST

START_TEST(test_h5_split_spec)
{
    char file[64];
    const char *path = NULL;
    ck_assert_int_eq(dataset_h5_split_spec("data/v.h5:/emb/train", file, sizeof file, &path), SMM_OK);
    ck_assert_str_eq(file, "data/v.h5");
    ck_assert_str_eq(path, "/emb/train");
    ck_assert_int_eq(dataset_h5_split_spec("v.h5:/x:/y", file, sizeof file, &path), SMM_OK);
    ck_assert_str_eq(file, "v.h5");
    ck_assert_str_eq(path, "/x:/y");
    ck_assert_int_eq(dataset_h5_split_spec("v.h5", file, sizeof file, &path), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(dataset_h5_split_spec("v.h5:x", file, sizeof file, &path), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(dataset_h5_split_spec(":/x", file, sizeof file, &path), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(dataset_h5_split_spec("v.h5:/x", file, 4, &path), SMM_ERR_OVERFLOW);
    ck_assert_int_eq(dataset_h5_split_spec(NULL, file, sizeof file, &path), SMM_ERR_NULL_POINTER);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* ann-benchmarks files                                                     */
/* ------------------------------------------------------------------------ */

/*
 * Check a benchmark's answer against brute force in double: row i of
 * neighbors lists K distinct train rows whose inner products with test row
 * i are the stored distances, decreasing, and no other train row beats the
 * K-th (up to float rounding).
 */
static void check_neighbors_brute_force(const dataset_ann *a)
{
    const int64_t n = a->train.rows, d = a->train.cols, K = a->topk;
    double *ip = malloc((size_t)n * sizeof *ip);
    char *chosen = malloc((size_t)n);
    ck_assert_ptr_nonnull(ip);
    ck_assert_ptr_nonnull(chosen);
    for (int64_t i = 0; i < a->test.rows; i++) {
        const float *q = a->test.data + i * d;
        double norm = 0.0;
        for (int64_t t = 0; t < d; t++)
            norm += (double)q[t] * q[t];
        for (int64_t j = 0; j < n; j++) {
            double s = 0.0;
            for (int64_t t = 0; t < d; t++)
                s += (double)q[t] * a->train.data[j * d + t];
            ip[j] = s;
        }
        for (int64_t j = 0; j < n; j++)
            chosen[j] = 0;
        const double tol = 1e-5 * (norm + 1.0);
        double kth = INFINITY;
        for (int64_t t = 0; t < K; t++) {
            int64_t j = a->neighbors[i * K + t];
            ck_assert(j >= 0 && j < n);
            ck_assert_msg(!chosen[j], "query %lld lists train row %lld twice", (long long)i, (long long)j);
            chosen[j] = 1;
            ck_assert_msg(fabs(ip[j] - a->distances[i * K + t]) <= tol, "query %lld rank %lld: %g stored, %g exact",
                          (long long)i, (long long)t, (double)a->distances[i * K + t], ip[j]);
            if (t > 0)
                ck_assert(a->distances[i * K + t] <= a->distances[i * K + t - 1]);
            kth = ip[j] < kth ? ip[j] : kth;
        }
        for (int64_t j = 0; j < n; j++)
            ck_assert_msg(chosen[j] || ip[j] <= kth + tol, "query %lld: train row %lld (%g) beats the K-th (%g)",
                          (long long)i, (long long)j, ip[j], kth);
    }
    free(ip);
    free(chosen);
}

/* A benchmark from digits: n train, q test, top K, computed and written to path. */
static void write_digits_benchmark(const char *path, int64_t n, int64_t q, int64_t K)
{
    dataset_ann a;
    memset(&a, 0, sizeof a);
    ck_assert_int_eq(dataset_digits(n, 11, &a.train, NULL), SMM_OK);
    ck_assert_int_eq(dataset_digits(q, 12, &a.test, NULL), SMM_OK);
    a.topk = K;
    ck_assert_int_eq(dataset_ann_ground_truth(&a.train, &a.test, K, &a.neighbors, &a.distances), SMM_OK);
    char msg[512] = "";
    ck_assert_msg(dataset_write_ann(path, &a, msg, sizeof msg) == SMM_OK, "%s", msg);
    dataset_ann_free(&a);
}

START_TEST(test_ann_round_trip)
{
    const char *file = tmp_path("digits.h5");
    write_digits_benchmark(file, 300, 40, 10);

    int64_t n, q, d, K;
    char msg[512] = "";
    ck_assert_msg(dataset_ann_shape(file, &n, &q, &d, &K, msg, sizeof msg) == SMM_OK, "%s", msg);
    ck_assert_int_eq(n, 300);
    ck_assert_int_eq(q, 40);
    ck_assert_int_eq(d, 64);
    ck_assert_int_eq(K, 10);

    dataset_ann a;
    ck_assert_msg(dataset_load_ann(file, 0, 0, &a, msg, sizeof msg) == SMM_OK, "%s", msg);
    ck_assert_str_eq(a.distance, "dot");
    ck_assert_int_eq(a.topk, 10);
    ck_assert_int_eq(a.train_rows_in_file, 300);
    ck_assert_int_eq(a.test_rows_in_file, 40);
    ck_assert_ptr_nonnull(a.neighbors);
    /* The vectors come back bit for bit. */
    dataset_matrix train, test;
    ck_assert_int_eq(dataset_digits(300, 11, &train, NULL), SMM_OK);
    ck_assert_int_eq(dataset_digits(40, 12, &test, NULL), SMM_OK);
    ck_assert(memcmp(train.data, a.train.data, 300 * 64 * sizeof(float)) == 0);
    ck_assert(memcmp(test.data, a.test.data, 40 * 64 * sizeof(float)) == 0);
    dataset_matrix_free(&train);
    dataset_matrix_free(&test);
    check_neighbors_brute_force(&a);
    int64_t first_row[10];
    memcpy(first_row, a.neighbors, sizeof first_row);
    dataset_ann_free(&a);

    /* Fewer test rows: the answers of those rows; fewer train rows: no answers. */
    ck_assert_int_eq(dataset_load_ann(file, 0, 3, &a, msg, sizeof msg), SMM_OK);
    ck_assert_int_eq(a.test.rows, 3);
    ck_assert(memcmp(first_row, a.neighbors, sizeof first_row) == 0);
    dataset_ann_free(&a);
    ck_assert_int_eq(dataset_load_ann(file, 299, 0, &a, msg, sizeof msg), SMM_OK);
    ck_assert_int_eq(a.train.rows, 299);
    ck_assert_ptr_null(a.neighbors);
    ck_assert_ptr_null(a.distances);
    ck_assert_int_eq(a.topk, 10);
    dataset_ann_free(&a);
    dataset_ann_free(NULL);

    /* train is also an ordinary matrix. */
    dataset_matrix m;
    ck_assert_int_eq(dataset_load_h5_matrix(file, "/train", 5, &m, msg, sizeof msg), SMM_OK);
    ck_assert_int_eq(m.rows, 5);
    ck_assert_int_eq(m.cols, 64);
    dataset_matrix_free(&m);
}
END_TEST

/* Datasets that are no matrix, or claim values the file does not store. */
typedef enum { ODD_NONE, ODD_1D, ODD_3D, ODD_STRINGS, ODD_UNWRITTEN } odd_kind;

/* A benchmark file put together by hand: float64 vectors, int64 or other neighbours, fixed-length string. */
typedef struct {
    int n, q, d, K, dtest;            /* dtest: columns of test */
    int neighbor_rows, dist_cols;
    int neighbors_float;              /* neighbors stored as floats */
    int bad_index;                    /* one neighbour out of range */
    int dimension;                    /* "dimension" attribute, 0: none */
    int omit;                         /* 1 + index of a dataset left out (0: none) */
    odd_kind odd_train;               /* /train replaced by such a dataset (ODD_NONE: not) */
} ann_fixture;

static void put_odd(hid_t f, const char *name, odd_kind kind)
{
    float v[24] = { 0 };
    hsize_t d1[1] = { 24 }, d3[3] = { 2, 3, 4 };
    if (kind == ODD_1D)
        put_dataset(f, name, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, d1, v);
    if (kind == ODD_3D)
        put_dataset(f, name, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 3, d3, v);
    if (kind == ODD_STRINGS) {
        char text[4 * 6 * 4];
        memset(text, 'x', sizeof text);
        hid_t str = H5Tcopy(H5T_C_S1);
        H5Tset_size(str, 4);
        put_matrix(f, name, str, str, 4, 6, text);
        H5Tclose(str);
    }
    if (kind == ODD_UNWRITTEN)
        put_unwritten(f, name, (hsize_t)1 << 40, 6, 1);
}

static void write_ann_fixture(const char *path, const ann_fixture *fx)
{
    double train[64 * 8], test[64 * 8], dist[64 * 8];
    int64_t nb[64 * 8];
    for (int t = 0; t < 64 * 8; t++) {
        train[t] = (double)(t % 7) - 3.0;
        test[t] = (double)(t % 5) - 2.0;
        dist[t] = (double)t;
        nb[t] = t % fx->n;
    }
    if (fx->bad_index)
        nb[1] = fx->n;
    hid_t f = create_file(path);
    if (fx->odd_train != ODD_NONE)
        put_odd(f, "train", fx->odd_train);
    else if (fx->omit != 1)
        put_matrix(f, "train", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, (hsize_t)fx->n, (hsize_t)fx->d, train);
    if (fx->omit != 2)
        put_matrix(f, "test", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, (hsize_t)fx->q, (hsize_t)fx->dtest, test);
    if (fx->omit != 3)
        put_matrix(f, "neighbors", fx->neighbors_float ? H5T_IEEE_F32LE : H5T_STD_I64LE,
                   fx->neighbors_float ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64, (hsize_t)fx->neighbor_rows,
                   (hsize_t)fx->K, fx->neighbors_float ? (const void *)dist : (const void *)nb);
    if (fx->omit != 4)
        put_matrix(f, "distances", H5T_IEEE_F32LE, H5T_NATIVE_DOUBLE, (hsize_t)fx->q, (hsize_t)fx->dist_cols, dist);
    hid_t scalar = H5Screate(H5S_SCALAR);
    hid_t str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, 9);
    hid_t attr = H5Acreate2(f, "distance", str, scalar, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_int_ge(H5Awrite(attr, str, "euclidean"), 0);
    H5Aclose(attr);
    H5Tclose(str);
    if (fx->dimension) {
        int32_t dim = fx->dimension;
        attr = H5Acreate2(f, "dimension", H5T_STD_I32LE, scalar, H5P_DEFAULT, H5P_DEFAULT);
        ck_assert_int_ge(H5Awrite(attr, H5T_NATIVE_INT32, &dim), 0);
        H5Aclose(attr);
    }
    H5Sclose(scalar);
    H5Fclose(f);
}

static const ann_fixture ANN_GOOD = { 8, 4, 6, 3, 6, 4, 3, 0, 0, 6, 0, ODD_NONE };

static void expect_ann_error(const ann_fixture *fx, const char *part)
{
    const char *file = tmp_path("fixture.h5");
    write_ann_fixture(file, fx);
    dataset_ann a;
    char msg[512] = "";
    stderr_capture_begin();
    smm_status s = dataset_load_ann(file, 0, 0, &a, msg, sizeof msg);
    char msg2[512] = "";
    int64_t n = -1;
    smm_status s2 = dataset_ann_shape(file, &n, NULL, NULL, NULL, msg2, sizeof msg2);
    long printed = stderr_capture_end();
    ck_assert_msg(s == DATASET_ERR_BAD_FORMAT, "status %s (%s), expected a format error about \"%s\"",
                  smm_status_str(s), msg, part);
    ck_assert_ptr_null(a.train.data);
    ck_assert_ptr_null(a.neighbors);
    ck_assert_msg(strstr(msg, file) != NULL && strstr(msg, part) != NULL,
                  "message \"%s\" should name %s and say \"%s\"", msg, file, part);
    /* The shape probe checks everything but the values. */
    if (!fx->bad_index)
        ck_assert_msg(s2 == DATASET_ERR_BAD_FORMAT && n == 0, "shape: %s (%s)", smm_status_str(s2), msg2);
    ck_assert_msg(printed == 0, "%ld bytes printed on stderr", printed);
}

START_TEST(test_ann_foreign_layout)
{
    /* float64 vectors, int64 neighbours, a fixed-length "distance" string, an int32 dimension. */
    const char *file = tmp_path("fixture.h5");
    write_ann_fixture(file, &ANN_GOOD);
    dataset_ann a;
    char msg[512] = "";
    ck_assert_msg(dataset_load_ann(file, 0, 0, &a, msg, sizeof msg) == SMM_OK, "%s", msg);
    ck_assert_str_eq(a.distance, "euclidean");
    ck_assert_int_eq(a.train.rows, 8);
    ck_assert_int_eq(a.test.cols, 6);
    ck_assert_float_eq(a.train.data[5], 2.0f);
    ck_assert_int_eq(a.neighbors[4], 4);
    ck_assert_float_eq(a.distances[4], 4.0f);
    dataset_ann_free(&a);
}
END_TEST

START_TEST(test_ann_bad_layouts)
{
    ann_fixture fx = ANN_GOOD;
    for (int omit = 1; omit <= 4; omit++) {
        static const char *const names[] = { "/train", "/test", "/neighbors", "/distances" };
        fx = ANN_GOOD;
        fx.omit = omit;
        expect_ann_error(&fx, names[omit - 1]);
    }
    fx = ANN_GOOD;
    fx.dtest = 5;
    expect_ann_error(&fx, "same d");
    fx = ANN_GOOD;
    fx.neighbor_rows = 3;
    expect_ann_error(&fx, "/neighbors is 3 x 3");
    fx = ANN_GOOD;
    fx.K = 9; /* more neighbours than train rows */
    fx.dist_cols = 9;
    expect_ann_error(&fx, "K <= 8");
    fx = ANN_GOOD;
    fx.dist_cols = 2;
    expect_ann_error(&fx, "/distances is 4 x 2");
    fx = ANN_GOOD;
    fx.neighbors_float = 1;
    expect_ann_error(&fx, "integer indices");
    fx = ANN_GOOD;
    fx.dimension = 7;
    expect_ann_error(&fx, "dimension = 7");
    fx = ANN_GOOD;
    fx.bad_index = 1;
    expect_ann_error(&fx, "/neighbors(0, 1) = 8");

    /* No columns, no test rows (then neither neighbours nor distances have rows). */
    fx = ANN_GOOD;
    fx.d = fx.dtest = 0;
    expect_ann_error(&fx, "/train is 8 x 0");
    fx = ANN_GOOD;
    fx.q = fx.neighbor_rows = 0;
    expect_ann_error(&fx, "/test is 0 x 6");
    /* /train no matrix of numbers, or claiming rows the file does not store. */
    fx = ANN_GOOD;
    fx.odd_train = ODD_1D;
    expect_ann_error(&fx, "/train has 1 dimension");
    fx.odd_train = ODD_3D;
    expect_ann_error(&fx, "/train has 3 dimensions");
    fx.odd_train = ODD_STRINGS;
    expect_ann_error(&fx, "/train has string values");
    fx.odd_train = ODD_UNWRITTEN;
    expect_ann_error(&fx, "/train claims 1099511627776 x 6 values");

    dataset_ann a;
    char msg[512] = "";
    ck_assert_int_eq(dataset_load_ann(tmp_path("none.h5"), 0, 0, &a, msg, sizeof msg), DATASET_ERR_IO);
    ck_assert_ptr_nonnull(strstr(msg, "none.h5"));
    ck_assert_int_eq(dataset_load_ann(NULL, 0, 0, &a, NULL, 0), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(dataset_load_ann(tmp_path("none.h5"), -1, 0, &a, NULL, 0), SMM_ERR_BAD_ARGUMENT);
}
END_TEST

START_TEST(test_ann_ground_truth_and_writer_checks)
{
    /* Ties go to the smaller index: identical train rows. */
    float tr[4 * 2] = { 1, 0, 1, 0, 0, 1, 1, 0 }, te[1 * 2] = { 1, 0 };
    dataset_matrix train = { 4, 2, tr }, test = { 1, 2, te };
    int64_t *nb;
    float *dist;
    ck_assert_int_eq(dataset_ann_ground_truth(&train, &test, 3, &nb, &dist), SMM_OK);
    ck_assert_int_eq(nb[0], 0);
    ck_assert_int_eq(nb[1], 1);
    ck_assert_int_eq(nb[2], 3);
    ck_assert_float_eq(dist[2], 1.0f);
    free(nb);
    free(dist);
    ck_assert_int_eq(dataset_ann_ground_truth(&train, &test, 5, &nb, &dist), SMM_ERR_BAD_ARGUMENT);
    ck_assert_ptr_null(nb);
    ck_assert_int_eq(dataset_ann_ground_truth(&train, &test, 0, &nb, &dist), SMM_ERR_BAD_ARGUMENT);
    dataset_matrix narrow = { 1, 1, te };
    ck_assert_int_eq(dataset_ann_ground_truth(&train, &narrow, 1, &nb, &dist), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(dataset_ann_ground_truth(NULL, &test, 1, &nb, &dist), SMM_ERR_NULL_POINTER);

    /* The writer refuses inconsistent benchmarks and unwritable places. */
    int64_t bad_nb[1] = { 4 };
    float d1[1] = { 0 };
    dataset_ann a;
    memset(&a, 0, sizeof a);
    a.train = train;
    a.test = test;
    a.topk = 1;
    a.neighbors = bad_nb;
    a.distances = d1;
    char msg[512] = "";
    ck_assert_int_eq(dataset_write_ann(tmp_path("w.h5"), &a, msg, sizeof msg), SMM_ERR_BAD_ARGUMENT);
    bad_nb[0] = 2;
    a.topk = 5;
    ck_assert_int_eq(dataset_write_ann(tmp_path("w.h5"), &a, msg, sizeof msg), SMM_ERR_BAD_ARGUMENT);
    a.topk = 1;
    /* No test rows: a file the loader would refuse. */
    a.test.rows = 0;
    ck_assert_int_eq(dataset_write_ann(tmp_path("w.h5"), &a, msg, sizeof msg), SMM_ERR_BAD_ARGUMENT);
    a.test.rows = 1;
    stderr_capture_begin();
    smm_status s = dataset_write_ann(tmp_path("no-such-dir/w.h5"), &a, msg, sizeof msg);
    long printed = stderr_capture_end();
    ck_assert_int_eq(s, DATASET_ERR_IO);
    ck_assert_ptr_nonnull(strstr(msg, "no-such-dir/w.h5"));
    ck_assert_int_eq(printed, 0);
    ck_assert_int_eq(dataset_write_ann(tmp_path("w.h5"), &a, msg, sizeof msg), SMM_OK);
    ck_assert_int_eq(dataset_write_ann(NULL, &a, msg, sizeof msg), SMM_ERR_NULL_POINTER);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* sketchmm_make_ann                                                        */
/* ------------------------------------------------------------------------ */

/* Run the tool with args (NULL-terminated), output to a log; its exit status. */
static int run_tool(const char *const *args)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)SKETCHMM_MAKE_ANN_EXE;
    for (int i = 0; args[i] != NULL && argc < 31; i++)
        argv[argc++] = (char *)args[i];
    argv[argc] = NULL;
    char log[1024];
    test_tmp_path("tool.log", log, sizeof log);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

START_TEST(test_make_ann_tool)
{
    const char *out = tmp_path("tool.h5");
    const char *const args[] = { "--source", "digits", "--out", out, "--topk", "7", "--train-rows", "250",
                                 "--test-rows", "30", "--seed", "5", NULL };
    ck_assert_int_eq(run_tool(args), 0);
    dataset_ann a;
    char msg[512] = "";
    ck_assert_msg(dataset_load_ann(out, 0, 0, &a, msg, sizeof msg) == SMM_OK, "%s", msg);
    ck_assert_int_eq(a.train.rows, 250);
    ck_assert_int_eq(a.test.rows, 30);
    ck_assert_int_eq(a.topk, 7);
    ck_assert_str_eq(a.distance, "dot");
    /* train = digits of seed 5, test = digits of seed 6. */
    dataset_matrix want;
    ck_assert_int_eq(dataset_digits(30, 6, &want, NULL), SMM_OK);
    ck_assert(memcmp(want.data, a.test.data, 30 * 64 * sizeof(float)) == 0);
    dataset_matrix_free(&want);
    check_neighbors_brute_force(&a);
    dataset_ann_free(&a);

    /* Bad command lines exit 2, failures 1, --help 0. */
    const char *const help[] = { "--help", NULL };
    ck_assert_int_eq(run_tool(help), 0);
    const char *const bad_flag[] = { "--frobnicate", "1", NULL };
    ck_assert_int_eq(run_tool(bad_flag), 2);
    const char *const bad_k[] = { "--topk", "0", NULL };
    ck_assert_int_eq(run_tool(bad_k), 2);
    const char *const bad_source[] = { "--source", "mnist", NULL };
    ck_assert_int_eq(run_tool(bad_source), 2);
    const char *const seed_without_digits[] = { "--seed", "3", NULL };
    ck_assert_int_eq(run_tool(seed_without_digits), 2);
    const char *const missing_value[] = { "--out", NULL };
    ck_assert_int_eq(run_tool(missing_value), 2);
    const char *const too_many[] = { "--source", "digits", "--out", out, "--train-rows", "5", "--topk", "6", NULL };
    ck_assert_int_eq(run_tool(too_many), 1);
    const char *const no_dir[] = { "--data-dir", tmp_path("no-fmnist"), "--out", out, NULL };
    ck_assert_int_eq(run_tool(no_dir), 1);
}
END_TEST

static Suite *data_h5_suite(void)
{
    Suite *s = suite_create("data_h5");

    TCase *mat = tcase_create("h5_matrix");
    tcase_add_checked_fixture(mat, test_tmpdir_setup, test_tmpdir_teardown);
    tcase_add_test(mat, test_h5_matrix_types);
    tcase_add_test(mat, test_h5_matrix_errors);
    tcase_add_test(mat, test_h5_corrupt_data);
    tcase_add_test(mat, test_h5_matrix_without_rows_or_columns);
    tcase_add_test(mat, test_h5_claims_beyond_storage);
    tcase_add_test(mat, test_h5_corrupt_type_layout);
    tcase_add_test(mat, test_h5_split_spec);
    suite_add_tcase(s, mat);

    TCase *ann = tcase_create("ann");
    tcase_add_checked_fixture(ann, test_tmpdir_setup, test_tmpdir_teardown);
    tcase_set_timeout(ann, 120);
    tcase_add_test(ann, test_ann_round_trip);
    tcase_add_test(ann, test_ann_foreign_layout);
    tcase_add_test(ann, test_ann_bad_layouts);
    tcase_add_test(ann, test_ann_ground_truth_and_writer_checks);
    tcase_add_test(ann, test_make_ann_tool);
    suite_add_tcase(s, ann);
    return s;
}

int main(void)
{
    return test_run_suite(data_h5_suite());
}
