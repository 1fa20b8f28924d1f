/*
 * test_data.c - data/ (target sketchmm_data): the gzipped IDX loader on small
 * files written here, the Fashion-MNIST loader on the Debian package's files,
 * the synthetic generators and the digit-like images. The HDF5 loaders are
 * tested in test_data_h5.c.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "test_tmpdir.h"
#include "test_util.h"
#include "data/dataset.h"

/* ------------------------------------------------------------------------ */
/* A temporary directory per test, removed with its files afterwards.        */
/* ------------------------------------------------------------------------ */

/* test_tmpdir/name in a static buffer (one at a time). */
static const char *tmp_path(const char *name)
{
    static char path[1024];
    return test_tmp_path(name, path, sizeof path);
}

static void write_gz(const char *path, const void *bytes, size_t len)
{
    gzFile gz = gzopen(path, "wb");
    ck_assert_msg(gz != NULL, "gzopen(%s) failed", path);
    if (len > 0)
        ck_assert_int_eq(gzwrite(gz, bytes, (unsigned)len), (int)len);
    ck_assert_int_eq(gzclose(gz), Z_OK);
}

static void write_plain(const char *path, const void *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "fopen(%s) failed", path);
    if (len > 0)
        ck_assert_uint_eq(fwrite(bytes, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

static size_t put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
    return 4;
}

/*
 * An IDX image file in buf: magic, count x h x w, then count * h * w pixel
 * bytes, pixel t = (7 * t + 3) mod 256. Returns the byte count.
 */
static size_t make_idx_images(unsigned char *buf, uint32_t magic, uint32_t count,
                              uint32_t h, uint32_t w)
{
    size_t p = 0;
    p += put_be32(buf + p, magic);
    p += put_be32(buf + p, count);
    p += put_be32(buf + p, h);
    p += put_be32(buf + p, w);
    for (uint32_t t = 0; t < count * h * w; t++)
        buf[p++] = (unsigned char)((7u * t + 3u) % 256u);
    return p;
}

/* ------------------------------------------------------------------------ */
/* IDX loader                                                               */
/* ------------------------------------------------------------------------ */

START_TEST(test_idx_images_values_and_shape)
{
    unsigned char buf[256];
    size_t len = make_idx_images(buf, DATASET_IDX_MAGIC_IMAGES, 3, 2, 5);
    const char *path = tmp_path("img.gz");
    write_gz(path, buf, len);

    dataset_matrix m;
    char msg[256] = "";
    ck_assert_int_eq(dataset_load_idx_images(path, 0, &m, msg, sizeof msg), SMM_OK);
    ck_assert_int_eq(m.rows, 3);
    ck_assert_int_eq(m.cols, 10);
    ck_assert_ptr_nonnull(m.data);
    for (int t = 0; t < 30; t++)
        ck_assert_float_eq(m.data[t], (float)((7 * t + 3) % 256) / 255.0f);
    dataset_matrix_free(&m);
    ck_assert_ptr_null(m.data);
    ck_assert_int_eq(m.rows, 0);

    /* max_rows keeps the first images; a larger max_rows reads them all. */
    ck_assert_int_eq(dataset_load_idx_images(path, 2, &m, msg, sizeof msg), SMM_OK);
    ck_assert_int_eq(m.rows, 2);
    ck_assert_int_eq(m.cols, 10);
    ck_assert_float_eq(m.data[19], (float)((7 * 19 + 3) % 256) / 255.0f);
    dataset_matrix_free(&m);
    ck_assert_int_eq(dataset_load_idx_images(path, 100, &m, NULL, 0), SMM_OK);
    ck_assert_int_eq(m.rows, 3);
    dataset_matrix_free(&m);

    /* Uncompressed IDX files are read too. */
    const char *plain = tmp_path("img.idx");
    write_plain(plain, buf, len);
    ck_assert_int_eq(dataset_load_idx_images(plain, 0, &m, msg, sizeof msg), SMM_OK);
    ck_assert_int_eq(m.rows, 3);
    ck_assert_float_eq(m.data[29], (float)((7 * 29 + 3) % 256) / 255.0f);
    dataset_matrix_free(&m);
    dataset_matrix_free(NULL);
}
END_TEST

START_TEST(test_idx_extreme_pixels)
{
    unsigned char buf[16 + 4] = { 0 };
    size_t p = 0;
    p += put_be32(buf + p, DATASET_IDX_MAGIC_IMAGES);
    p += put_be32(buf + p, 1);
    p += put_be32(buf + p, 2);
    p += put_be32(buf + p, 2);
    buf[p++] = 0;
    buf[p++] = 255;
    buf[p++] = 128;
    buf[p++] = 1;
    const char *path = tmp_path("x.gz");
    write_gz(path, buf, p);
    dataset_matrix m;
    ck_assert_int_eq(dataset_load_idx_images(path, 0, &m, NULL, 0), SMM_OK);
    ck_assert_float_eq(m.data[0], 0.0f);
    ck_assert_float_eq(m.data[1], 1.0f);
    ck_assert_float_eq(m.data[2], 128.0f / 255.0f);
    dataset_matrix_free(&m);
}
END_TEST

START_TEST(test_idx_zero_images)
{
    unsigned char buf[64];
    size_t len = make_idx_images(buf, DATASET_IDX_MAGIC_IMAGES, 0, 28, 28);
    const char *path = tmp_path("empty.gz");
    write_gz(path, buf, len);
    dataset_matrix m;
    ck_assert_int_eq(dataset_load_idx_images(path, 0, &m, NULL, 0), SMM_OK);
    ck_assert_int_eq(m.rows, 0);
    ck_assert_int_eq(m.cols, 784);
    ck_assert_ptr_null(m.data);
    dataset_matrix_free(&m);
}
END_TEST

START_TEST(test_idx_labels)
{
    unsigned char buf[16];
    size_t p = put_be32(buf, DATASET_IDX_MAGIC_LABELS);
    p += put_be32(buf + p, 5);
    for (int i = 0; i < 5; i++)
        buf[p++] = (unsigned char)(9 - i);
    const char *path = tmp_path("lab.gz");
    write_gz(path, buf, p);

    uint8_t *labels = NULL;
    int64_t count = -1;
    ck_assert_int_eq(dataset_load_idx_labels(path, 0, &labels, &count, NULL, 0), SMM_OK);
    ck_assert_int_eq(count, 5);
    for (int i = 0; i < 5; i++)
        ck_assert_uint_eq(labels[i], (unsigned)(9 - i));
    free(labels);
    ck_assert_int_eq(dataset_load_idx_labels(path, 3, &labels, &count, NULL, 0), SMM_OK);
    ck_assert_int_eq(count, 3);
    free(labels);

    /* A label file is not an image file, and the other way round. */
    dataset_matrix m;
    ck_assert_int_eq(dataset_load_idx_images(path, 0, &m, NULL, 0), DATASET_ERR_BAD_FORMAT);
    ck_assert_ptr_null(m.data);
}
END_TEST

START_TEST(test_idx_bad_magic)
{
    unsigned char buf[256];
    char msg[256] = "";
    dataset_matrix m;
    static const uint32_t bad[] = { 0x00000000u, 0x00000802u, 0x00000903u, 0x01000803u,
                                    0x03080000u, 0x1f8b0800u };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t len = make_idx_images(buf, bad[i], 2, 3, 3);
        const char *path = tmp_path("bad.gz");
        write_gz(path, buf, len);
        msg[0] = '\0';
        ck_assert_int_eq(dataset_load_idx_images(path, 0, &m, msg, sizeof msg), DATASET_ERR_BAD_FORMAT);
        ck_assert_ptr_null(m.data);
        ck_assert_int_eq(m.rows, 0);
        ck_assert_msg(strstr(msg, "magic") != NULL, "message \"%s\" should mention the magic", msg);
    }
    uint8_t *labels = (uint8_t *)1;
    int64_t count = 7;
    size_t len = make_idx_images(buf, DATASET_IDX_MAGIC_IMAGES, 2, 3, 3);
    write_gz(tmp_path("img.gz"), buf, len);
    ck_assert_int_eq(dataset_load_idx_labels(tmp_path("img.gz"), 0, &labels, &count, NULL, 0),
                     DATASET_ERR_BAD_FORMAT);
    ck_assert_ptr_null(labels);
    ck_assert_int_eq(count, 0);
}
END_TEST

START_TEST(test_idx_zero_image_size)
{
    unsigned char buf[64];
    size_t len = make_idx_images(buf, DATASET_IDX_MAGIC_IMAGES, 4, 0, 28);
    write_gz(tmp_path("z.gz"), buf, len);
    dataset_matrix m;
    ck_assert_int_eq(dataset_load_idx_images(tmp_path("z.gz"), 0, &m, NULL, 0), DATASET_ERR_BAD_FORMAT);
}
END_TEST

START_TEST(test_idx_truncated)
{
    unsigned char buf[256];
    char msg[256];
    dataset_matrix m;
    size_t len = make_idx_images(buf, DATASET_IDX_MAGIC_IMAGES, 3, 4, 4);

    /* Every proper prefix of the file: inside the magic, the header, the pixels. */
    for (size_t cut = 0; cut < len; cut += (cut < 20 ? 1 : 7)) {
        write_gz(tmp_path("t.gz"), buf, cut);
        msg[0] = '\0';
        ck_assert_msg(dataset_load_idx_images(tmp_path("t.gz"), 0, &m, msg, sizeof msg)
                          == DATASET_ERR_BAD_FORMAT, "cut at %zu bytes", cut);
        ck_assert_ptr_null(m.data);
        ck_assert_msg(strlen(msg) > 0, "no message for a cut at %zu", cut);
    }
    /* The file is checked whole: the complete first images of a short file are refused too. */
    write_gz(tmp_path("t.gz"), buf, len - 20);
    ck_assert_int_eq(dataset_load_idx_images(tmp_path("t.gz"), 1, &m, NULL, 0), DATASET_ERR_BAD_FORMAT);
    ck_assert_ptr_null(m.data);
    ck_assert_int_eq(dataset_load_idx_images(tmp_path("t.gz"), 2, &m, NULL, 0), DATASET_ERR_BAD_FORMAT);

    /* Labels that end early. */
    unsigned char lab[12];
    size_t p = put_be32(lab, DATASET_IDX_MAGIC_LABELS);
    p += put_be32(lab + p, 10);
    lab[p++] = 1;
    write_gz(tmp_path("l.gz"), lab, p);
    uint8_t *labels;
    int64_t count;
    ck_assert_int_eq(dataset_load_idx_labels(tmp_path("l.gz"), 0, &labels, &count, NULL, 0),
                     DATASET_ERR_BAD_FORMAT);
    ck_assert_ptr_null(labels);
}
END_TEST

/* Read a whole file into a malloc'ed buffer. */
static unsigned char *slurp(const char *path, size_t *len)
{
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    unsigned char *buf = malloc((size_t)st.st_size + 1);
    ck_assert_ptr_nonnull(buf);
    *len = fread(buf, 1, (size_t)st.st_size, f);
    ck_assert_uint_eq(*len, (size_t)st.st_size);
    fclose(f);
    return buf;
}

START_TEST(test_idx_corrupt_gzip)
{
    /* A large file compresses to a stream that we then damage. */
    enum { COUNT = 40, H = 28, W = 28 };
    size_t raw_len = 16 + (size_t)COUNT * H * W;
    unsigned char *raw = malloc(raw_len);
    ck_assert_ptr_nonnull(raw);
    size_t len = make_idx_images(raw, DATASET_IDX_MAGIC_IMAGES, COUNT, H, W);
    ck_assert_uint_eq(len, raw_len);
    write_gz(tmp_path("good.gz"), raw, len);
    free(raw);

    size_t gz_len;
    unsigned char *gz = slurp(tmp_path("good.gz"), &gz_len);
    ck_assert_uint_gt(gz_len, 64);
    dataset_matrix m;
    char msg[256];

    /* The compressed stream cut short: the data ends before the header says. */
    for (size_t cut = 11; cut < gz_len - 8; cut += gz_len / 9) {
        write_plain(tmp_path("cut.gz"), gz, cut);
        msg[0] = '\0';
        ck_assert_msg(dataset_load_idx_images(tmp_path("cut.gz"), 0, &m, msg, sizeof msg)
                          == DATASET_ERR_BAD_FORMAT, "gzip stream cut at %zu of %zu", cut, gz_len);
        ck_assert_ptr_null(m.data);
    }

    /* Garbage in the deflate data. */
    for (size_t i = 20; i < gz_len - 8; i++)
        gz[i] ^= 0x5a;
    write_plain(tmp_path("bad.gz"), gz, gz_len);
    smm_status s = dataset_load_idx_images(tmp_path("bad.gz"), 0, &m, msg, sizeof msg);
    ck_assert_int_eq(s, DATASET_ERR_BAD_FORMAT);
    free(gz);

    /* An empty file. */
    write_plain(tmp_path("empty"), "", 0);
    ck_assert_int_eq(dataset_load_idx_images(tmp_path("empty"), 0, &m, NULL, 0), DATASET_ERR_BAD_FORMAT);
}
END_TEST

/*
 * Images of the gzipped test files: enough that the compressed stream is
 * far longer than what zlib inflates ahead of the first images (16 KiB of
 * output), so damage in its middle or end lies beyond what reading the first
 * images touches.
 */
enum { GZ_COUNT = 200, GZ_PIXELS = 28 * 28 };

/*
 * Expect DATASET_ERR_BAD_FORMAT, an empty matrix and a message naming the file
 * from the image loader, whether it keeps the first image, half of the
 * images or all of them; `what` names the damage in failure messages.
 */
static void expect_idx_rejected(const char *path, const char *what)
{
    static const int64_t max_rows[] = { 1, GZ_COUNT / 2, 0 };
    for (int i = 0; i < 3; i++) {
        dataset_matrix m = { 5, 5, NULL };
        char msg[512] = "";
        smm_status s = dataset_load_idx_images(path, max_rows[i], &m, msg, sizeof msg);
        ck_assert_msg(s == DATASET_ERR_BAD_FORMAT, "%s, max_rows %lld: status %s (%s)", what,
                      (long long)max_rows[i], smm_status_str(s), msg);
        ck_assert_msg(m.rows == 0 && m.cols == 0 && m.data == NULL, "%s: matrix not left empty", what);
        ck_assert_msg(strstr(msg, path) != NULL, "%s: message \"%s\" does not name the file", what, msg);
    }
}

/* The same for the label loader (first label, all of them). */
static void expect_labels_rejected(const char *path, const char *what)
{
    static const int64_t max_rows[] = { 1, 0 };
    for (int i = 0; i < 2; i++) {
        uint8_t *labels = NULL;
        int64_t count = 5;
        char msg[512] = "";
        smm_status s = dataset_load_idx_labels(path, max_rows[i], &labels, &count, msg, sizeof msg);
        ck_assert_msg(s == DATASET_ERR_BAD_FORMAT, "%s, max_rows %lld: status %s (%s)", what,
                      (long long)max_rows[i], smm_status_str(s), msg);
        ck_assert_msg(labels == NULL && count == 0, "%s: labels not left empty", what);
        ck_assert_msg(strstr(msg, path) != NULL, "%s: message \"%s\" does not name the file", what, msg);
    }
}

/*
 * A gzipped IDX file at path: GZ_COUNT images of 28 x 28 random pixels of
 * `levels` levels (16: compressible, so deflate codes them; 256: not, so
 * deflate stores them as they are), then `extra` bytes more than the header
 * announces. Returns the compressed file (free it), its length in *gz_len.
 */
static unsigned char *write_gz_images(const char *path, unsigned levels, size_t extra, size_t *gz_len)
{
    size_t raw_len = 16 + (size_t)GZ_COUNT * GZ_PIXELS + extra;
    unsigned char *raw = malloc(raw_len);
    ck_assert_ptr_nonnull(raw);
    size_t p = put_be32(raw, DATASET_IDX_MAGIC_IMAGES);
    p += put_be32(raw + p, GZ_COUNT);
    p += put_be32(raw + p, 28);
    p += put_be32(raw + p, 28);
    uint64_t rng = 17;
    while (p < raw_len)
        raw[p++] = (unsigned char)(test_rng_next(&rng) % levels * (255 / (levels - 1)));
    write_gz(path, raw, raw_len);
    free(raw);
    return slurp(path, gz_len);
}

/* gz with `len` bytes flipped (xor 0xA5) from `at`, written to path. */
static void write_damaged(const char *path, const unsigned char *gz, size_t gz_len, size_t at, size_t len)
{
    unsigned char *bad = malloc(gz_len);
    ck_assert_ptr_nonnull(bad);
    memcpy(bad, gz, gz_len);
    for (size_t i = at; i < at + len && i < gz_len; i++)
        bad[i] ^= 0xA5;
    write_plain(path, bad, gz_len);
    free(bad);
}

START_TEST(test_idx_gzip_checked_to_the_end)
{
    size_t gz_len;
    unsigned char *gz = write_gz_images(tmp_path("good.gz"), 16, 0, &gz_len);
    ck_assert_uint_gt(gz_len, 4 * 16384);
    dataset_matrix m;
    char msg[512] = "";
    ck_assert_msg(dataset_load_idx_images(tmp_path("good.gz"), 1, &m, msg, sizeof msg) == SMM_OK, "%s", msg);
    ck_assert_int_eq(m.rows, 1);
    dataset_matrix_free(&m);
    ck_assert_int_eq(dataset_load_idx_images(tmp_path("good.gz"), 0, &m, NULL, 0), SMM_OK);
    ck_assert_int_eq(m.rows, GZ_COUNT);
    dataset_matrix_free(&m);

    /* 64 bytes damaged in the middle of the stream, far beyond the first image. */
    write_damaged(tmp_path("mid.gz"), gz, gz_len, gz_len / 2, 64);
    expect_idx_rejected(tmp_path("mid.gz"), "64 bytes damaged mid-stream");

    /* Cut short: at two thirds, just before the 8-byte trailer, inside it. */
    const size_t cuts[] = { gz_len * 2 / 3, gz_len - 8, gz_len - 3 };
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        write_plain(tmp_path("cut.gz"), gz, cuts[i]);
        char what[64];
        snprintf(what, sizeof what, "cut at %zu of %zu bytes", cuts[i], gz_len);
        expect_idx_rejected(tmp_path("cut.gz"), what);
    }

    /* One byte of the trailer changed: its CRC-32, then its length. */
    write_damaged(tmp_path("crc.gz"), gz, gz_len, gz_len - 8, 1);
    expect_idx_rejected(tmp_path("crc.gz"), "CRC-32 byte flipped");
    write_damaged(tmp_path("isize.gz"), gz, gz_len, gz_len - 1, 1);
    expect_idx_rejected(tmp_path("isize.gz"), "length byte flipped");

    /* More decompressed data than the header announces: a second gzip member, a byte. */
    unsigned char *twice = malloc(2 * gz_len);
    ck_assert_ptr_nonnull(twice);
    memcpy(twice, gz, gz_len);
    memcpy(twice + gz_len, gz, gz_len);
    write_plain(tmp_path("twice.gz"), twice, 2 * gz_len);
    expect_idx_rejected(tmp_path("twice.gz"), "the file gzipped twice in a row");
    free(twice);
    free(gz);
    gz = write_gz_images(tmp_path("long.gz"), 16, 1, &gz_len);
    expect_idx_rejected(tmp_path("long.gz"), "one byte more than announced");
    free(gz);
}
END_TEST

START_TEST(test_idx_gzip_damage_that_inflates)
{
    /*
     * Incompressible pixels are stored, not coded: damage to them inflates
     * without error to wrong pixels, and only the CRC-32 at the end of the
     * stream tells. A quarter into the stream is inside the first half of the
     * images, which max_rows = GZ_COUNT / 2 keeps.
     */
    size_t gz_len;
    unsigned char *gz = write_gz_images(tmp_path("stored.gz"), 256, 0, &gz_len);
    ck_assert_uint_gt(gz_len, (size_t)GZ_COUNT * GZ_PIXELS);
    dataset_matrix m;
    ck_assert_int_eq(dataset_load_idx_images(tmp_path("stored.gz"), 0, &m, NULL, 0), SMM_OK);
    dataset_matrix_free(&m);
    write_damaged(tmp_path("bad.gz"), gz, gz_len, gz_len / 4, 64);
    expect_idx_rejected(tmp_path("bad.gz"), "64 stored bytes damaged");
    free(gz);

    /* Labels, checked the same way: 60000 of them, their CRC-32 changed. */
    enum { LABELS = 60000 };
    unsigned char *lab = malloc(8 + LABELS);
    ck_assert_ptr_nonnull(lab);
    size_t p = put_be32(lab, DATASET_IDX_MAGIC_LABELS);
    p += put_be32(lab + p, LABELS);
    uint64_t rng = 3;
    while (p < 8 + LABELS)
        lab[p++] = (unsigned char)(test_rng_next(&rng) % 10);
    write_gz(tmp_path("lab.gz"), lab, 8 + LABELS);
    gz = slurp(tmp_path("lab.gz"), &gz_len);
    write_damaged(tmp_path("lab_crc.gz"), gz, gz_len, gz_len - 8, 1);
    expect_labels_rejected(tmp_path("lab_crc.gz"), "labels: CRC-32 byte flipped");
    free(gz);
    /* One label more than announced, in a second gzip member. */
    gzFile g = gzopen(tmp_path("lab.gz"), "ab");
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(gzwrite(g, "\1", 1), 1);
    ck_assert_int_eq(gzclose(g), Z_OK);
    expect_labels_rejected(tmp_path("lab.gz"), "labels: one byte more than announced");
    free(lab);
}
END_TEST

START_TEST(test_idx_plain_exact_size)
{
    unsigned char buf[64];
    size_t len = make_idx_images(buf, DATASET_IDX_MAGIC_IMAGES, 3, 2, 5);
    buf[len] = 9;
    write_plain(tmp_path("exact.idx"), buf, len);
    dataset_matrix m;
    char msg[512] = "";
    ck_assert_msg(dataset_load_idx_images(tmp_path("exact.idx"), 1, &m, msg, sizeof msg) == SMM_OK, "%s", msg);
    ck_assert_int_eq(m.rows, 1);
    ck_assert_int_eq(m.cols, 10);
    ck_assert_float_eq(m.data[9], (float)((7 * 9 + 3) % 256) / 255.0f);
    dataset_matrix_free(&m);

    write_plain(tmp_path("long.idx"), buf, len + 1);
    expect_idx_rejected(tmp_path("long.idx"), "plain file one byte long");
    write_plain(tmp_path("short.idx"), buf, len - 1);
    expect_idx_rejected(tmp_path("short.idx"), "plain file one byte short");

    unsigned char lab[8 + 3] = { 0 };
    size_t p = put_be32(lab, DATASET_IDX_MAGIC_LABELS);
    put_be32(lab + p, 2);
    write_plain(tmp_path("lab.idx"), lab, sizeof lab);
    expect_labels_rejected(tmp_path("lab.idx"), "plain labels one byte long");
    uint8_t *labels;
    int64_t count;
    write_plain(tmp_path("lab.idx"), lab, sizeof lab - 1);
    ck_assert_int_eq(dataset_load_idx_labels(tmp_path("lab.idx"), 1, &labels, &count, NULL, 0), SMM_OK);
    ck_assert_int_eq(count, 1);
    free(labels);
}
END_TEST

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A 16-byte image header announcing count images of h x w, plus `body` zero bytes. */
static void write_idx_header(const char *path, int gzipped, uint32_t count, uint32_t h, uint32_t w,
                             size_t body)
{
    unsigned char buf[64] = { 0 };
    size_t p = put_be32(buf, DATASET_IDX_MAGIC_IMAGES);
    p += put_be32(buf + p, count);
    p += put_be32(buf + p, h);
    p += put_be32(buf + p, w);
    ck_assert_uint_le(p + body, sizeof buf);
    if (gzipped)
        write_gz(path, buf, p + body);
    else
        write_plain(path, buf, p + body);
}

START_TEST(test_idx_huge_dims)
{
    /*
     * Headers announcing far more than their files hold are format errors,
     * found before anything that large is allocated (a sanitizer build aborts
     * on such an allocation) and at once.
     */
    double t0 = seconds_now();
    /* 36 bytes announcing 3 images of 94868330 x 94868330 pixels (2.7e16 bytes). */
    write_idx_header(tmp_path("huge.idx"), 0, 3, 94868330u, 94868330u, 20);
    expect_idx_rejected(tmp_path("huge.idx"), "plain, 3 x 9e15 announced");
    write_idx_header(tmp_path("huge.gz"), 1, 3, 94868330u, 94868330u, 20);
    expect_idx_rejected(tmp_path("huge.gz"), "gzipped, 3 x 9e15 announced");
    /* Images of (2^32 - 1)^2 pixels, more than any file holds, even with no image. */
    write_idx_header(tmp_path("wide.gz"), 1, 0, UINT32_MAX, UINT32_MAX, 0);
    expect_idx_rejected(tmp_path("wide.gz"), "0 images of (2^32 - 1)^2 pixels");
    write_idx_header(tmp_path("wide.gz"), 1, UINT32_MAX, UINT32_MAX, UINT32_MAX, 8);
    expect_idx_rejected(tmp_path("wide.gz"), "2^32 - 1 images of (2^32 - 1)^2 pixels");
    /* 2^32 - 1 labels announced, 3 present. */
    unsigned char lab[8 + 3] = { 0 };
    size_t p = put_be32(lab, DATASET_IDX_MAGIC_LABELS);
    put_be32(lab + p, UINT32_MAX);
    write_gz(tmp_path("labels.gz"), lab, sizeof lab);
    expect_labels_rejected(tmp_path("labels.gz"), "2^32 - 1 labels announced");
    double elapsed = seconds_now() - t0;
    ck_assert_msg(elapsed < 2.0, "rejecting the headers took %.2f s", elapsed);
}
END_TEST

START_TEST(test_idx_missing_file)
{
    dataset_matrix m;
    char msg[512] = "";
    const char *path = tmp_path("does-not-exist.gz");
    ck_assert_int_eq(dataset_load_idx_images(path, 0, &m, msg, sizeof msg), DATASET_ERR_IO);
    ck_assert_ptr_null(m.data);
    ck_assert_msg(strstr(msg, "does-not-exist.gz") != NULL, "message \"%s\" should name the file", msg);

    uint8_t *labels;
    int64_t count;
    ck_assert_int_eq(dataset_load_idx_labels(path, 0, &labels, &count, NULL, 0), DATASET_ERR_IO);

    /* A directory is not a file. */
    ck_assert_int_eq(dataset_load_idx_images(test_tmpdir, 0, &m, NULL, 0), DATASET_ERR_IO);
}
END_TEST

START_TEST(test_idx_bad_arguments)
{
    dataset_matrix m;
    uint8_t *labels;
    int64_t count;
    ck_assert_int_eq(dataset_load_idx_images(NULL, 0, &m, NULL, 0), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(dataset_load_idx_images("x", 0, NULL, NULL, 0), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(dataset_load_idx_images("x", -1, &m, NULL, 0), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(dataset_load_idx_labels(NULL, 0, &labels, &count, NULL, 0), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(dataset_load_idx_labels("x", -1, &labels, &count, NULL, 0), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(dataset_load_fashion_mnist(NULL, "valid", 0, &m, NULL, 0), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(dataset_load_fashion_mnist(NULL, NULL, 0, &m, NULL, 0), SMM_ERR_NULL_POINTER);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Fashion-MNIST                                                            */
/* ------------------------------------------------------------------------ */

START_TEST(test_fashion_mnist_dir_resolution)
{
    unsetenv(DATASET_FASHION_MNIST_ENV);
    ck_assert_str_eq(dataset_fashion_mnist_dir(NULL), DATASET_FASHION_MNIST_DEFAULT_DIR);
    ck_assert_str_eq(dataset_fashion_mnist_dir(""), DATASET_FASHION_MNIST_DEFAULT_DIR);
    setenv(DATASET_FASHION_MNIST_ENV, "/env/dir", 1);
    ck_assert_str_eq(dataset_fashion_mnist_dir(NULL), "/env/dir");
    ck_assert_str_eq(dataset_fashion_mnist_dir("/arg/dir"), "/arg/dir");
    setenv(DATASET_FASHION_MNIST_ENV, "", 1);
    ck_assert_str_eq(dataset_fashion_mnist_dir(NULL), DATASET_FASHION_MNIST_DEFAULT_DIR);
    unsetenv(DATASET_FASHION_MNIST_ENV);
}
END_TEST

START_TEST(test_fashion_mnist_missing)
{
    dataset_matrix m;
    char msg[512] = "";
    ck_assert_int_eq(dataset_load_fashion_mnist(test_tmpdir, "train", 0, &m, msg, sizeof msg), DATASET_ERR_IO);
    ck_assert_ptr_null(m.data);
    ck_assert_msg(strstr(msg, "train-images-idx3-ubyte.gz") != NULL, "message: %s", msg);
    ck_assert_msg(strstr(msg, "apt-get install dataset-fashion-mnist") != NULL, "message: %s", msg);
}
END_TEST

START_TEST(test_fashion_mnist_env_override)
{
    /* A fake 2-image "t10k" split in test_tmpdir, found through the environment. */
    size_t raw_len = 16 + 2 * 784;
    unsigned char *raw = malloc(raw_len);
    ck_assert_ptr_nonnull(raw);
    size_t len = make_idx_images(raw, DATASET_IDX_MAGIC_IMAGES, 2, 28, 28);
    write_gz(tmp_path("t10k-images-idx3-ubyte.gz"), raw, len);
    free(raw);

    setenv(DATASET_FASHION_MNIST_ENV, test_tmpdir, 1);
    dataset_matrix m;
    ck_assert_int_eq(dataset_load_fashion_mnist(NULL, "t10k", 0, &m, NULL, 0), SMM_OK);
    ck_assert_int_eq(m.rows, 2);
    ck_assert_int_eq(m.cols, 784);
    ck_assert_float_eq(m.data[783], (float)((7 * 783 + 3) % 256) / 255.0f);
    dataset_matrix_free(&m);
    /* The argument wins over the environment. */
    ck_assert_int_eq(dataset_load_fashion_mnist("/nonexistent-dir", "t10k", 0, &m, NULL, 0), DATASET_ERR_IO);
    unsetenv(DATASET_FASHION_MNIST_ENV);

    /* Images of another size are not Fashion-MNIST. */
    unsigned char small[64];
    len = make_idx_images(small, DATASET_IDX_MAGIC_IMAGES, 2, 3, 3);
    write_gz(tmp_path("train-images-idx3-ubyte.gz"), small, len);
    ck_assert_int_eq(dataset_load_fashion_mnist(test_tmpdir, "train", 0, &m, NULL, 0), DATASET_ERR_BAD_FORMAT);
    ck_assert_ptr_null(m.data);
}
END_TEST

/* Fail with an explanation when the Debian package is absent. */
static void require_fashion_mnist(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/train-images-idx3-ubyte.gz", DATASET_FASHION_MNIST_DEFAULT_DIR);
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "test_data: Fashion-MNIST is not installed (%s missing); "
                        "install it with `apt-get install dataset-fashion-mnist`\n", path);
        ck_abort_msg("Fashion-MNIST not installed at %s: apt-get install dataset-fashion-mnist",
                     DATASET_FASHION_MNIST_DEFAULT_DIR);
    }
}

static void check_unit_range(const dataset_matrix *m)
{
    /* Count first, assert once: a Check assertion per pixel is slow. */
    double sum = 0.0;
    float lo = 1.0f, hi = 0.0f;
    int64_t outside = 0;
    for (int64_t t = 0; t < m->rows * m->cols; t++) {
        float v = m->data[t];
        outside += !(v >= 0.0f && v <= 1.0f);
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        sum += v;
    }
    ck_assert_msg(outside == 0, "%lld values outside [0, 1]", (long long)outside);
    /* Real images: black background and some saturated pixels. */
    ck_assert_float_eq(lo, 0.0f);
    ck_assert_float_eq(hi, 1.0f);
    double mean = sum / (double)(m->rows * m->cols);
    ck_assert_msg(mean > 0.1 && mean < 0.6, "mean pixel %g", mean);
}

START_TEST(test_fashion_mnist_installed)
{
    require_fashion_mnist();
    unsetenv(DATASET_FASHION_MNIST_ENV);
    dataset_matrix m;
    char msg[512] = "";

    ck_assert_msg(dataset_load_fashion_mnist(NULL, "train", 1000, &m, msg, sizeof msg) == SMM_OK, "%s", msg);
    ck_assert_int_eq(m.rows, 1000);
    ck_assert_int_eq(m.cols, 784);
    check_unit_range(&m);
    dataset_matrix_free(&m);

    ck_assert_msg(dataset_load_fashion_mnist(NULL, "t10k", 0, &m, msg, sizeof msg) == SMM_OK, "%s", msg);
    ck_assert_int_eq(m.rows, 10000);
    ck_assert_int_eq(m.cols, 784);
    check_unit_range(&m);
    dataset_matrix_free(&m);

    /* The training split holds 60000 images: its label file says so. */
    uint8_t *labels;
    int64_t count;
    snprintf(msg, sizeof msg, "%s/train-labels-idx1-ubyte.gz", DATASET_FASHION_MNIST_DEFAULT_DIR);
    ck_assert_int_eq(dataset_load_idx_labels(msg, 0, &labels, &count, NULL, 0), SMM_OK);
    ck_assert_int_eq(count, 60000);
    int64_t bad = 0;
    for (int64_t i = 0; i < count; i++)
        bad += labels[i] > 9;
    ck_assert_int_eq(bad, 0);
    free(labels);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Synthetic generators                                                     */
/* ------------------------------------------------------------------------ */

static int same_matrix(const dataset_matrix *a, const dataset_matrix *b)
{
    return a->rows == b->rows && a->cols == b->cols &&
           memcmp(a->data, b->data, (size_t)(a->rows * a->cols) * sizeof(float)) == 0;
}

START_TEST(test_gaussian)
{
    dataset_matrix a, b, c;
    ck_assert_int_eq(dataset_gaussian(200, 150, 7, &a), SMM_OK);
    ck_assert_int_eq(dataset_gaussian(200, 150, 7, &b), SMM_OK);
    ck_assert_int_eq(dataset_gaussian(200, 150, 8, &c), SMM_OK);
    ck_assert_int_eq(a.rows, 200);
    ck_assert_int_eq(a.cols, 150);
    ck_assert(same_matrix(&a, &b));
    ck_assert(!same_matrix(&a, &c));

    double sum = 0.0, sum2 = 0.0, sum4 = 0.0;
    int64_t n = a.rows * a.cols, differ = 0, non_finite = 0;
    for (int64_t t = 0; t < n; t++) {
        double v = a.data[t];
        non_finite += !isfinite(v);
        sum += v;
        sum2 += v * v;
        sum4 += v * v * v * v;
        differ += a.data[t] != c.data[t];
    }
    double mean = sum / (double)n, var = sum2 / (double)n - mean * mean;
    ck_assert_msg(fabs(mean) < 0.02, "mean %g", mean);
    ck_assert_msg(fabs(var - 1.0) < 0.03, "variance %g", var);
    ck_assert_msg(fabs(sum4 / (double)n - 3.0) < 0.2, "fourth moment %g", sum4 / (double)n);
    ck_assert_int_eq(non_finite, 0);
    ck_assert_int_eq(differ, n);

    /* A smaller matrix of the same seed is a prefix of the element sequence. */
    dataset_matrix d;
    ck_assert_int_eq(dataset_gaussian(1, 151, 7, &d), SMM_OK);
    ck_assert(memcmp(d.data, a.data, 150 * sizeof(float)) == 0);
    dataset_matrix_free(&d);

    dataset_matrix_free(&a);
    dataset_matrix_free(&b);
    dataset_matrix_free(&c);

    ck_assert_int_eq(dataset_gaussian(0, 5, 1, &a), SMM_OK);
    ck_assert_int_eq(a.rows, 0);
    ck_assert_int_eq(a.cols, 5);
    ck_assert_ptr_null(a.data);
    ck_assert_int_eq(dataset_gaussian(-1, 5, 1, &a), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(dataset_gaussian(5, -1, 1, &a), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(dataset_gaussian(5, 5, 1, NULL), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(dataset_gaussian(INT64_MAX, INT64_MAX, 1, &a), SMM_ERR_OVERFLOW);
}
END_TEST

/*
 * Numerical rank of a rows x cols matrix: modified Gram-Schmidt on the rows
 * in double, counting rows whose residual keeps more than tol of its norm.
 */
static int64_t numerical_rank(const dataset_matrix *m, double tol)
{
    int64_t rows = m->rows, cols = m->cols, rank = 0;
    double *basis = malloc((size_t)(rows * cols) * sizeof(double));
    double *r = malloc((size_t)cols * sizeof(double));
    ck_assert_ptr_nonnull(basis);
    ck_assert_ptr_nonnull(r);
    for (int64_t i = 0; i < rows; i++) {
        double norm0 = 0.0;
        for (int64_t j = 0; j < cols; j++) {
            r[j] = m->data[i * cols + j];
            norm0 += r[j] * r[j];
        }
        for (int64_t b = 0; b < rank; b++) {
            const double *q = basis + b * cols;
            double dot = 0.0;
            for (int64_t j = 0; j < cols; j++)
                dot += q[j] * r[j];
            for (int64_t j = 0; j < cols; j++)
                r[j] -= dot * q[j];
        }
        double norm = 0.0;
        for (int64_t j = 0; j < cols; j++)
            norm += r[j] * r[j];
        if (norm0 > 0.0 && sqrt(norm / norm0) > tol) {
            double inv = 1.0 / sqrt(norm);
            for (int64_t j = 0; j < cols; j++)
                basis[rank * cols + j] = r[j] * inv;
            rank++;
        }
    }
    free(basis);
    free(r);
    return rank;
}

START_TEST(test_lowrank)
{
    enum { ROWS = 60, COLS = 40, RANK = 5 };
    dataset_matrix x0, x1, y;
    ck_assert_int_eq(dataset_lowrank(ROWS, COLS, RANK, 0.0, 11, &x0), SMM_OK);
    ck_assert_int_eq(x0.rows, ROWS);
    ck_assert_int_eq(x0.cols, COLS);
    /* Float rounding leaves relative residuals near 1e-7; real directions are O(1). */
    ck_assert_int_eq(numerical_rank(&x0, 1e-4), RANK);

    /* Entries of the low-rank part have variance about 1. */
    double ss = 0.0;
    for (int64_t t = 0; t < ROWS * COLS; t++)
        ss += (double)x0.data[t] * x0.data[t];
    double var = ss / (ROWS * COLS);
    ck_assert_msg(var > 0.6 && var < 1.5, "low-rank entry variance %g", var);

    /* Same seed, same matrix; the noise changes only the noise term. */
    ck_assert_int_eq(dataset_lowrank(ROWS, COLS, RANK, 0.0, 11, &y), SMM_OK);
    ck_assert(same_matrix(&x0, &y));
    dataset_matrix_free(&y);
    ck_assert_int_eq(dataset_lowrank(ROWS, COLS, RANK, 0.0, 12, &y), SMM_OK);
    ck_assert(!same_matrix(&x0, &y));
    dataset_matrix_free(&y);

    const double noise = 0.3;
    ck_assert_int_eq(dataset_lowrank(ROWS, COLS, RANK, noise, 11, &x1), SMM_OK);
    ck_assert_int_eq(numerical_rank(&x1, 1e-4), COLS);
    double diff2 = 0.0;
    for (int64_t t = 0; t < ROWS * COLS; t++) {
        double d = (double)x1.data[t] - x0.data[t];
        diff2 += d * d;
    }
    double noise_var = diff2 / (ROWS * COLS);
    ck_assert_msg(fabs(noise_var / (noise * noise) - 1.0) < 0.1,
                  "noise variance %g, expected %g", noise_var, noise * noise);
    dataset_matrix_free(&x0);
    dataset_matrix_free(&x1);

    /* A rank above min(rows, cols) gives a full-rank matrix. */
    ck_assert_int_eq(dataset_lowrank(10, 8, 20, 0.0, 3, &x0), SMM_OK);
    ck_assert_int_eq(numerical_rank(&x0, 1e-4), 8);
    dataset_matrix_free(&x0);

    ck_assert_int_eq(dataset_lowrank(10, 8, 0, 0.0, 3, &x0), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(dataset_lowrank(10, 8, 2, -0.1, 3, &x0), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(dataset_lowrank(10, 8, 2, NAN, 3, &x0), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(dataset_lowrank(10, 8, 2, INFINITY, 3, &x0), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(dataset_lowrank(-1, 8, 2, 0.0, 3, &x0), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(dataset_lowrank(0, 8, 2, 0.0, 3, &x0), SMM_OK);
    ck_assert_ptr_null(x0.data);
}
END_TEST

static double cosine(const float *a, const float *b, int64_t n)
{
    double ab = 0.0, aa = 0.0, bb = 0.0;
    for (int64_t j = 0; j < n; j++) {
        ab += (double)a[j] * b[j];
        aa += (double)a[j] * a[j];
        bb += (double)b[j] * b[j];
    }
    return ab / sqrt(aa * bb);
}

/* Mean cosine over pairs of rows in the same cluster and in different ones. */
static void cluster_cosines(const dataset_matrix *m, const int32_t *labels,
                            double *within, double *between)
{
    double sw = 0.0, sb = 0.0;
    int64_t nw = 0, nb = 0;
    for (int64_t i = 0; i < m->rows; i++)
        for (int64_t j = i + 1; j < m->rows; j++) {
            double c = cosine(m->data + i * m->cols, m->data + j * m->cols, m->cols);
            if (labels[i] == labels[j]) {
                sw += c;
                nw++;
            } else {
                sb += c;
                nb++;
            }
        }
    *within = nw > 0 ? sw / (double)nw : NAN;
    *between = nb > 0 ? sb / (double)nb : NAN;
}

/* Correlation of horizontally (dc = 1) or vertically (dr = 1) neighbouring pixels over the rows of m (side 28). */
static double neighbour_correlation(const dataset_matrix *m, int dr, int dc)
{
    double sxy = 0.0, sxx = 0.0, syy = 0.0;
    for (int64_t i = 0; i < m->rows; i++)
        for (int r = 0; r + dr < 28; r++)
            for (int c = 0; c + dc < 28; c++) {
                const double x = m->data[i * 784 + r * 28 + c], y = m->data[i * 784 + (r + dr) * 28 + c + dc];
                sxy += x * y;
                sxx += x * x;
                syy += y * y;
            }
    return sxy / sqrt(sxx * syy);
}

/* Mean square of the orthonormal 2-D DCT-II coefficient (u, v) of the 28 x 28 rows of m. */
static double dct_power(const dataset_matrix *m, int u, int v)
{
    const double pi = 3.14159265358979323846;
    double total = 0.0;
    for (int64_t i = 0; i < m->rows; i++) {
        double c = 0.0;
        for (int r = 0; r < 28; r++)
            for (int q = 0; q < 28; q++)
                c += m->data[i * 784 + r * 28 + q] * cos(pi * u * (2 * r + 1) / 56.0) * cos(pi * v * (2 * q + 1) / 56.0);
        c *= (u == 0 ? sqrt(1.0 / 28) : sqrt(2.0 / 28)) * (v == 0 ? sqrt(1.0 / 28) : sqrt(2.0 / 28));
        total += c * c;
    }
    return total / (double)m->rows;
}

/*
 * Texture-like images: seeded (same seed same bytes, another seed others, a
 * prefix for fewer rows), every row of unit root-mean-square and zero mean
 * on the full 28 x 28 grid; the spectrum's slope as asked (the power of
 * DCT coefficient (4, 0) over (8, 0) is 2^beta, and (0, 4) over (0, 8) the
 * same); neighbours uncorrelated for beta = 0 and more correlated as beta
 * grows, the same across as down; and the argument checks.
 */
START_TEST(test_texture)
{
    enum { ROWS = 2000 };
    dataset_matrix a, b, c;
    ck_assert_int_eq(dataset_texture(ROWS, 784, 2.0, 7, &a), SMM_OK);
    ck_assert_int_eq(dataset_texture(300, 784, 2.0, 7, &b), SMM_OK);
    ck_assert_int_eq(dataset_texture(300, 784, 2.0, 8, &c), SMM_OK);
    ck_assert_int_eq(a.rows, ROWS);
    ck_assert_int_eq(a.cols, 784);
    ck_assert(memcmp(a.data, b.data, (size_t)(300 * 784) * sizeof(float)) == 0);
    ck_assert(memcmp(b.data, c.data, (size_t)(300 * 784) * sizeof(float)) != 0);
    for (int64_t i = 0; i < ROWS; i++) {
        double sum = 0.0, ss = 0.0;
        for (int64_t t = 0; t < 784; t++) {
            ck_assert(isfinite(a.data[i * 784 + t]));
            sum += a.data[i * 784 + t];
            ss += (double)a.data[i * 784 + t] * a.data[i * 784 + t];
        }
        ck_assert_msg(fabs(ss / 784.0 - 1.0) < 1e-5, "row %lld: mean square %g", (long long)i, ss / 784.0);
        ck_assert_msg(fabs(sum / 784.0) < 1e-5, "row %lld: mean %g", (long long)i, sum / 784.0);
    }
    const double betas[3] = { 1.0, 2.0, 3.0 };
    double last = 0.0;
    for (int q = 0; q < 3; q++) {
        dataset_matrix t;
        ck_assert_int_eq(dataset_texture(ROWS, 784, betas[q], 11, &t), SMM_OK);
        const double want = pow(2.0, betas[q]);
        const double down = dct_power(&t, 4, 0) / dct_power(&t, 8, 0), across = dct_power(&t, 0, 4) / dct_power(&t, 0, 8);
        ck_assert_msg(fabs(down / want - 1.0) < 0.15 && fabs(across / want - 1.0) < 0.15,
                      "beta %g: power ratios %g and %g, want %g", betas[q], down, across, want);
        const double rh = neighbour_correlation(&t, 0, 1), rv = neighbour_correlation(&t, 1, 0);
        ck_assert_msg(rh > last + 0.05 && fabs(rh - rv) < 0.05, "beta %g: neighbour correlation %g across, %g down",
                      betas[q], rh, rv);
        last = rh;
        dataset_matrix_free(&t);
    }
    ck_assert_msg(last > 0.8, "beta 3: neighbour correlation %g", last);
    dataset_matrix white;
    ck_assert_int_eq(dataset_texture(ROWS, 784, 0.0, 11, &white), SMM_OK);
    const double r0 = neighbour_correlation(&white, 0, 1);
    ck_assert_msg(fabs(r0) < 0.03, "beta 0: neighbour correlation %g", r0);
    dataset_matrix_free(&white);
    dataset_matrix_free(&a);
    dataset_matrix_free(&b);
    dataset_matrix_free(&c);

    /* other widths: the first cols pixels of a ceil(sqrt(cols)) wide grid, still unit RMS; one pixel is 0 */
    ck_assert_int_eq(dataset_texture(5, 10, 2.0, 3, &a), SMM_OK);
    for (int64_t i = 0; i < 5; i++) {
        double ss = 0.0;
        for (int64_t t = 0; t < 10; t++)
            ss += (double)a.data[i * 10 + t] * a.data[i * 10 + t];
        ck_assert(fabs(ss / 10.0 - 1.0) < 1e-5);
    }
    dataset_matrix_free(&a);
    ck_assert_int_eq(dataset_texture(2, 1, 2.0, 3, &a), SMM_OK);
    ck_assert(a.data[0] == 0.0f && a.data[1] == 0.0f);
    dataset_matrix_free(&a);
    ck_assert_int_eq(dataset_texture(0, 784, 2.0, 3, &a), SMM_OK);
    ck_assert_ptr_null(a.data);
    ck_assert_int_eq(dataset_texture(4, 784, NAN, 3, &a), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(dataset_texture(4, 784, -0.1, 3, &a), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(dataset_texture(4, 784, DATASET_TEXTURE_MAX_BETA + 0.5, 3, &a), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(dataset_texture(-1, 784, 2.0, 3, &a), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(dataset_texture(4, -1, 2.0, 3, &a), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(dataset_texture(4, 784, 2.0, 3, NULL), SMM_ERR_NULL_POINTER);
    ck_assert_ptr_null(a.data);
}
END_TEST

START_TEST(test_clustered)
{
    enum { ROWS = 120, COLS = 256, CLUSTERS = 4 };
    int32_t labels[ROWS];
    dataset_matrix a, b;
    ck_assert_int_eq(dataset_clustered(ROWS, COLS, CLUSTERS, 0.5, 5, &a, labels), SMM_OK);
    ck_assert_int_eq(a.rows, ROWS);
    ck_assert_int_eq(a.cols, COLS);
    for (int i = 0; i < ROWS; i++)
        ck_assert_int_eq(labels[i], i % CLUSTERS);
    ck_assert_int_eq(dataset_clustered(ROWS, COLS, CLUSTERS, 0.5, 5, &b, NULL), SMM_OK);
    ck_assert(same_matrix(&a, &b));
    dataset_matrix_free(&b);
    ck_assert_int_eq(dataset_clustered(ROWS, COLS, CLUSTERS, 0.5, 6, &b, NULL), SMM_OK);
    ck_assert(!same_matrix(&a, &b));
    dataset_matrix_free(&b);

    /* Rows have norm about 1. */
    for (int i = 0; i < ROWS; i++) {
        double nn = 0.0;
        for (int j = 0; j < COLS; j++)
            nn += (double)a.data[i * COLS + j] * a.data[i * COLS + j];
        ck_assert_msg(fabs(sqrt(nn) - 1.0) < 0.15, "row %d has norm %g", i, sqrt(nn));
    }
    dataset_matrix_free(&a);

    /* The measured mean cosine within a cluster tracks the alignment and grows with it. */
    static const double levels[] = { 0.0, 0.2, 0.5, 0.8, 0.95 };
    double prev = -1.0;
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        double within, between;
        ck_assert_int_eq(dataset_clustered(ROWS, COLS, CLUSTERS, levels[l], 5, &a, labels), SMM_OK);
        cluster_cosines(&a, labels, &within, &between);
        ck_assert_msg(fabs(within - levels[l]) < 0.06, "alignment %g: mean cosine %g",
                      levels[l], within);
        ck_assert_msg(fabs(between) < 0.06, "alignment %g: cross-cluster cosine %g",
                      levels[l], between);
        ck_assert_msg(within > prev, "alignment %g: mean cosine %g not above %g",
                      levels[l], within, prev);
        prev = within;
        dataset_matrix_free(&a);
    }

    /* alignment 1: every row equals its cluster centre. */
    ck_assert_int_eq(dataset_clustered(8, 16, 2, 1.0, 9, &a, NULL), SMM_OK);
    for (int j = 0; j < 16; j++) {
        ck_assert_float_eq(a.data[0 * 16 + j], a.data[2 * 16 + j]);
        ck_assert_float_eq(a.data[1 * 16 + j], a.data[7 * 16 + j]);
    }
    dataset_matrix_free(&a);

    ck_assert_int_eq(dataset_clustered(8, 16, 0, 0.5, 9, &a, NULL), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(dataset_clustered(8, 16, 2, -0.01, 9, &a, NULL), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(dataset_clustered(8, 16, 2, 1.01, 9, &a, NULL), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(dataset_clustered(8, 16, 2, NAN, 9, &a, NULL), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(dataset_clustered(8, -16, 2, 0.5, 9, &a, NULL), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(dataset_clustered(8, 16, 2, 0.5, 9, NULL, NULL), SMM_ERR_NULL_POINTER);
    /* More clusters than rows, and empty shapes. */
    ck_assert_int_eq(dataset_clustered(3, 16, 10, 0.5, 9, &a, labels), SMM_OK);
    ck_assert_int_eq(labels[2], 2);
    dataset_matrix_free(&a);
    ck_assert_int_eq(dataset_clustered(3, 0, 2, 0.5, 9, &a, labels), SMM_OK);
    ck_assert_ptr_null(a.data);
    ck_assert_int_eq(labels[1], 1);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Digit-like images                                                        */
/* ------------------------------------------------------------------------ */

START_TEST(test_digits)
{
    enum { ROWS = 200 };
    int32_t labels[ROWS];
    dataset_matrix a, b, c;
    ck_assert_int_eq(dataset_digits(ROWS, 3, &a, labels), SMM_OK);
    ck_assert_int_eq(a.rows, ROWS);
    ck_assert_int_eq(a.cols, DATASET_DIGITS_DIM);
    ck_assert_int_eq(DATASET_DIGITS_DIM, 64);
    for (int i = 0; i < ROWS; i++)
        ck_assert_int_eq(labels[i], i % 10);

    /* Deterministic: the same seed gives the same images, another seed others. */
    ck_assert_int_eq(dataset_digits(ROWS, 3, &b, NULL), SMM_OK);
    ck_assert(same_matrix(&a, &b));
    dataset_matrix_free(&b);
    ck_assert_int_eq(dataset_digits(ROWS, 4, &b, NULL), SMM_OK);
    ck_assert(!same_matrix(&a, &b));
    dataset_matrix_free(&b);
    /*
     * Golden value: the images come from integer hashing and exact arithmetic (no
     * transcendental functions), so they are the same on every platform
     * and must not change silently.
     */
    ck_assert_int_eq(dataset_digits(20, 1, &c, NULL), SMM_OK);
    uint64_t checksum = 0;
    for (int t = 0; t < 20 * 64; t++)
        checksum += (uint64_t)(t + 1) * (uint64_t)(c.data[t] * 16.0f);
    ck_assert_uint_eq(checksum, UINT64_C(3400474));
    dataset_matrix_free(&c);
    /* Fewer rows: a prefix. */
    ck_assert_int_eq(dataset_digits(17, 3, &c, NULL), SMM_OK);
    ck_assert(memcmp(c.data, a.data, 17 * 64 * sizeof(float)) == 0);
    dataset_matrix_free(&c);

    /* Values: multiples of 1/16 in [0, 1], strokes and dark background. */
    int64_t bad = 0, bright = 0, dark = 0;
    for (int64_t t = 0; t < a.rows * a.cols; t++) {
        float v = a.data[t];
        bad += !(v >= 0.0f && v <= 1.0f) || v * 16.0f != floorf(v * 16.0f);
        bright += v >= 0.5f;
        dark += v == 0.0f;
    }
    ck_assert_int_eq(bad, 0);
    ck_assert_msg(bright > ROWS * 10 && dark > ROWS * 30, "bright %lld, dark %lld",
                  (long long)bright, (long long)dark);

    /* Image-like: an image's nearest other image (by cosine) shows the same digit. */
    int correct = 0;
    for (int i = 0; i < ROWS; i++) {
        int best = -1;
        double best_cos = -2.0;
        for (int j = 0; j < ROWS; j++) {
            double cs = j == i ? -2.0 : cosine(a.data + i * 64, a.data + j * 64, 64);
            if (cs > best_cos) {
                best_cos = cs;
                best = j;
            }
        }
        correct += labels[best] == labels[i];
    }
    ck_assert_msg(correct >= ROWS * 9 / 10, "nearest-neighbour digit correct for %d of %d images", correct, ROWS);
    dataset_matrix_free(&a);

    ck_assert_int_eq(dataset_digits(0, 1, &a, NULL), SMM_OK);
    ck_assert_ptr_null(a.data);
    ck_assert_int_eq(dataset_digits(-1, 1, &a, NULL), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(dataset_digits(5, 1, NULL, NULL), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(dataset_digits(INT64_MAX, 1, &a, NULL), SMM_ERR_OVERFLOW);
}
END_TEST

static Suite *data_suite(void)
{
    Suite *s = suite_create("data");

    TCase *idx = tcase_create("idx");
    tcase_add_checked_fixture(idx, test_tmpdir_setup, test_tmpdir_teardown);
    tcase_add_test(idx, test_idx_images_values_and_shape);
    tcase_add_test(idx, test_idx_extreme_pixels);
    tcase_add_test(idx, test_idx_zero_images);
    tcase_add_test(idx, test_idx_labels);
    tcase_add_test(idx, test_idx_bad_magic);
    tcase_add_test(idx, test_idx_zero_image_size);
    tcase_add_test(idx, test_idx_truncated);
    tcase_add_test(idx, test_idx_corrupt_gzip);
    tcase_add_test(idx, test_idx_gzip_checked_to_the_end);
    tcase_add_test(idx, test_idx_gzip_damage_that_inflates);
    tcase_add_test(idx, test_idx_plain_exact_size);
    tcase_add_test(idx, test_idx_huge_dims);
    tcase_add_test(idx, test_idx_missing_file);
    tcase_add_test(idx, test_idx_bad_arguments);
    suite_add_tcase(s, idx);

    TCase *fm = tcase_create("fashion_mnist");
    tcase_add_checked_fixture(fm, test_tmpdir_setup, test_tmpdir_teardown);
    tcase_set_timeout(fm, 120);
    tcase_add_test(fm, test_fashion_mnist_dir_resolution);
    tcase_add_test(fm, test_fashion_mnist_missing);
    tcase_add_test(fm, test_fashion_mnist_env_override);
    tcase_add_test(fm, test_fashion_mnist_installed);
    suite_add_tcase(s, fm);

    TCase *gen = tcase_create("synthetic");
    tcase_set_timeout(gen, 120);
    tcase_add_test(gen, test_gaussian);
    tcase_add_test(gen, test_lowrank);
    tcase_add_test(gen, test_clustered);
    tcase_add_test(gen, test_texture);
    tcase_add_test(gen, test_digits);
    suite_add_tcase(s, gen);
    return s;
}

int main(void)
{
    return test_run_suite(data_suite());
}
