/*
 * fuzz_idx - libFuzzer target of the IDX loaders of data/ (idx_gzip.c):
 * dataset_load_idx_images and dataset_load_idx_labels on the fuzz bytes,
 * written to a per-process temporary file. The loaders read through zlib,
 * so gzipped and plain inputs both reach the IDX parser (the seed corpus
 * has both).
 *
 * Each input is loaded as images and as labels, once whole (max_rows 0) and
 * once limited to a few rows. Checked besides the sanitizers:
 *   - every status is one dataset.h documents; on failure the output is
 *     empty and the message is one non-empty line;
 *   - on success the shape is consistent (rows <= max_rows, data present
 *     exactly when there are values) and every pixel is p / 255 for a byte p;
 *   - for a plain (not gzipped) file the result is predicted exactly from
 *     the bytes (dataset.h: the whole file is checked, its size must be
 *     exactly the header plus the announced values, whatever max_rows
 *     keeps): success exactly when the magic is right, no image dimension
 *     is 0 and the size matches; then the values are those bytes. Any
 *     other plain file is DATASET_ERR_BAD_FORMAT (SMM_ERR_OVERFLOW accepted for
 *     dimensions no memory holds), and a file announcing more than it holds
 *     must fail without allocating what the header announces (the
 *     sanitizers' allocation limit catches that: -rss_limit_mb, and
 *     -malloc_limit_mb, which defaults to it).
 */
#include "fuzz_common.h"

#include <math.h>

#include "data/dataset.h"

/* Rows of the limited loads. */
#define FUZZ_IDX_FEW_ROWS 2

static uint32_t be32_at(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

/* 1 when s is a status the loaders document. */
static int documented(smm_status s)
{
    return s == SMM_OK || s == DATASET_ERR_IO || s == DATASET_ERR_BAD_FORMAT || s == SMM_ERR_OVERFLOW ||
           s == SMM_ERR_NO_MEMORY;
}

/* A plain (not gzipped) input: zlib reads it as it is. */
static int is_plain(const uint8_t *data, size_t size)
{
    return !(size >= 2 && data[0] == 0x1f && data[1] == 0x8b);
}

static void check_images(const char *path, const uint8_t *data, size_t size, int64_t max_rows)
{
    dataset_matrix m = { 7, 7, (float *)(uintptr_t)1 }; /* garbage the loader must clear */
    char msg[512] = "";
    smm_status s = dataset_load_idx_images(path, max_rows, &m, msg, sizeof msg);
    FUZZ_CHECK(documented(s), "status %d", (int)s);
    if (s != SMM_OK) {
        FUZZ_CHECK(m.rows == 0 && m.cols == 0 && m.data == NULL, "failed load left %lld x %lld",
                   (long long)m.rows, (long long)m.cols);
        FUZZ_CHECK(fuzz_has_msg(msg), "status %d without a one-line message", (int)s);
    } else {
        FUZZ_CHECK(m.rows >= 0 && m.cols >= 1, "shape %lld x %lld", (long long)m.rows, (long long)m.cols);
        FUZZ_CHECK(max_rows == 0 || m.rows <= max_rows, "%lld rows for max_rows %lld", (long long)m.rows,
                   (long long)max_rows);
        FUZZ_CHECK((m.data != NULL) == (m.rows > 0), "data %p for %lld rows", (void *)m.data, (long long)m.rows);
        for (int64_t i = 0; i < m.rows * m.cols; i++) {
            float v = m.data[i] * 255.0f;
            FUZZ_CHECK(v >= 0.0f && v <= 255.0f && v == nearbyintf(v), "pixel %lld = %g", (long long)i,
                       (double)m.data[i]);
        }
    }

    if (is_plain(data, size)) {
        /* the prediction from the bytes themselves */
        int magic_ok = size >= 4 && be32_at(data) == DATASET_IDX_MAGIC_IMAGES;
        int header_ok = magic_ok && size >= 16;
        uint64_t count = header_ok ? be32_at(data + 4) : 0;
        uint64_t h = header_ok ? be32_at(data + 8) : 0, w = header_ok ? be32_at(data + 12) : 0;
        uint64_t rows = (max_rows > 0 && (uint64_t)max_rows < count) ? (uint64_t)max_rows : count;
        unsigned __int128 announced = (unsigned __int128)count * h * w;
        int exact = header_ok && h > 0 && w > 0 && announced == size - 16;
        if (exact) {
            /* count == 0: a header alone; dataset.h's "zero dimension" may cover it */
            FUZZ_CHECK(s == SMM_OK || (count == 0 && s == DATASET_ERR_BAD_FORMAT),
                       "plain file of exactly its %llu x %llu x %llu bytes gave status %d: %s",
                       (unsigned long long)count, (unsigned long long)h, (unsigned long long)w, (int)s, msg);
            if (s == SMM_OK) {
                FUZZ_CHECK((uint64_t)m.rows == rows && (uint64_t)m.cols == h * w, "shape %lld x %lld",
                           (long long)m.rows, (long long)m.cols);
                for (uint64_t i = 0; i < rows * h * w; i++)
                    FUZZ_CHECK(m.data[i] == (float)data[16 + i] / 255.0f, "pixel %llu", (unsigned long long)i);
            }
        } else {
            /* wrong magic, truncated header, empty image size, or another length than announced */
            FUZZ_CHECK(s == DATASET_ERR_BAD_FORMAT || (s == SMM_ERR_OVERFLOW && announced * 4 > SIZE_MAX),
                       "plain file of %zu bytes (magic %s) announcing %llu x %llu x %llu gave status %d: %s", size,
                       magic_ok ? "ok" : "wrong", (unsigned long long)count, (unsigned long long)h,
                       (unsigned long long)w, (int)s, msg);
        }
    }
    dataset_matrix_free(&m);
}

static void check_labels(const char *path, const uint8_t *data, size_t size, int64_t max_rows)
{
    uint8_t *labels = (uint8_t *)(uintptr_t)1;
    int64_t count = 99;
    char msg[512] = "";
    smm_status s = dataset_load_idx_labels(path, max_rows, &labels, &count, msg, sizeof msg);
    FUZZ_CHECK(documented(s), "status %d", (int)s);
    if (s != SMM_OK) {
        FUZZ_CHECK(labels == NULL && count == 0, "failed load left %lld labels", (long long)count);
        FUZZ_CHECK(fuzz_has_msg(msg), "status %d without a one-line message", (int)s);
    } else {
        FUZZ_CHECK(count >= 0 && (max_rows == 0 || count <= max_rows), "%lld labels for max_rows %lld",
                   (long long)count, (long long)max_rows);
        FUZZ_CHECK((labels != NULL) == (count > 0), "labels %p for count %lld", (void *)labels, (long long)count);
    }
    if (is_plain(data, size)) {
        int magic_ok = size >= 4 && be32_at(data) == DATASET_IDX_MAGIC_LABELS;
        int header_ok = magic_ok && size >= 8;
        uint64_t announced = header_ok ? be32_at(data + 4) : 0;
        uint64_t n = (max_rows > 0 && (uint64_t)max_rows < announced) ? (uint64_t)max_rows : announced;
        if (header_ok && announced == size - 8) {
            FUZZ_CHECK(s == SMM_OK || (announced == 0 && s == DATASET_ERR_BAD_FORMAT),
                       "plain label file of exactly its %llu labels gave status %d: %s",
                       (unsigned long long)announced, (int)s, msg);
            if (s == SMM_OK) {
                FUZZ_CHECK((uint64_t)count == n, "%lld labels, expected %llu", (long long)count, (unsigned long long)n);
                FUZZ_CHECK(n == 0 || memcmp(labels, data + 8, n) == 0, "labels differ from the file");
            }
        } else {
            FUZZ_CHECK(s == DATASET_ERR_BAD_FORMAT,
                       "plain label file of %zu bytes (magic %s, %llu announced) gave status %d: %s", size,
                       magic_ok ? "ok" : "wrong", (unsigned long long)announced, (int)s, msg);
        }
    }
    if (s == SMM_OK)
        free(labels);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_tmp_file("fuzz_idx", ".gz");
    fuzz_write_file(path, data, size);
    check_images(path, data, size, 0);
    check_images(path, data, size, FUZZ_IDX_FEW_ROWS);
    check_labels(path, data, size, 0);
    check_labels(path, data, size, FUZZ_IDX_FEW_ROWS + 1);
    return 0;
}
