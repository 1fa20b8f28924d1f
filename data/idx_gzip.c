/*
 * idx_gzip.c - IDX files read through zlib (gzipped or plain), and the
 * Fashion-MNIST loader built on them. See data/dataset.h.
 */
#include "data/dataset.h"
#include "data/data_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

/* Bytes handed to one gzread() call. */
#define IDX_READ_CHUNK 65536u

/* Largest dimension an IDX header may announce (the format stores uint32). */
#define IDX_MAX_DIM INT64_C(0xFFFFFFFF)

/* An open IDX file: the zlib handle and the path, for messages. */
typedef struct {
    gzFile gz;
    const char *path;
} idx_file;

static smm_status idx_open(const char *path, idx_file *f, char *msg, size_t msg_size)
{
    f->gz = NULL;
    f->path = path;
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        dataset_msg(msg, msg_size, "cannot open %s: %s", path, strerror(errno));
        return SMM_ERR_IO;
    }
    f->gz = gzdopen(fd, "rb");
    if (f->gz == NULL) {
        close(fd);
        dataset_msg(msg, msg_size, "cannot read %s: out of memory for the zlib stream", path);
        return SMM_ERR_NO_MEMORY;
    }
    return SMM_OK;
}

static void idx_close(idx_file *f)
{
    if (f->gz != NULL)
        gzclose(f->gz);
    f->gz = NULL;
}

/*
 * Read exactly len bytes. A short read (end of data, truncated or corrupt
 * gzip stream) is SMM_ERR_BAD_FORMAT; an operating-system read error is
 * SMM_ERR_IO. `what` names the part being read, for the message.
 */
static smm_status idx_read(idx_file *f, void *buf, size_t len, const char *what,
                           char *msg, size_t msg_size)
{
    unsigned char *p = buf;
    size_t done = 0;
    while (done < len) {
        size_t want = len - done;
        if (want > IDX_READ_CHUNK)
            want = IDX_READ_CHUNK;
        int got = gzread(f->gz, p + done, (unsigned)want);
        if (got < 0) {
            int zerr = 0;
            const char *ztext = gzerror(f->gz, &zerr);
            if (zerr == Z_ERRNO) {
                dataset_msg(msg, msg_size, "cannot read %s: %s", f->path, strerror(errno));
                return SMM_ERR_IO;
            }
            if (zerr == Z_MEM_ERROR) {
                dataset_msg(msg, msg_size, "cannot read %s: out of memory in zlib", f->path);
                return SMM_ERR_NO_MEMORY;
            }
            dataset_msg(msg, msg_size, "%s: corrupt compressed data while reading the %s (%s)",
                    f->path, what, ztext != NULL ? ztext : "zlib error");
            return SMM_ERR_BAD_FORMAT;
        }
        if (got == 0) {
            dataset_msg(msg, msg_size,
                    "%s: truncated: the %s needs %zu bytes, the file ends after %zu",
                    f->path, what, len, done);
            return SMM_ERR_BAD_FORMAT;
        }
        done += (size_t)got;
    }
    return SMM_OK;
}

static uint32_t be32(const unsigned char b[4])
{
    return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | (uint32_t)b[3];
}

/*
 * Read the magic and the ndims dimensions of an unsigned-byte IDX file whose
 * magic must be `magic`.
 */
static smm_status idx_read_header(idx_file *f, uint32_t magic, int64_t dims[3],
                                  char *msg, size_t msg_size)
{
    unsigned char b[4];
    smm_status s = idx_read(f, b, 4, "magic number", msg, msg_size);
    if (s != SMM_OK)
        return s;
    uint32_t got = be32(b);
    if (got != magic) {
        dataset_msg(msg, msg_size,
                "%s: not an IDX %s file (magic 0x%08x, expected 0x%08x)",
                f->path, magic == DATASET_IDX_MAGIC_IMAGES ? "image" : "label",
                (unsigned)got, (unsigned)magic);
        return SMM_ERR_BAD_FORMAT;
    }
    int ndims = (int)(magic & 0xFFu);
    for (int d = 0; d < ndims; d++) {
        s = idx_read(f, b, 4, "header", msg, msg_size);
        if (s != SMM_OK)
            return s;
        dims[d] = (int64_t)be32(b);
    }
    return SMM_OK;
}

/* count = min(announced, max_rows when max_rows > 0). */
static int64_t limit_rows(int64_t announced, int64_t max_rows)
{
    return (max_rows > 0 && max_rows < announced) ? max_rows : announced;
}

/*
 * The start shared by the loaders: max_rows >= 0, open path, read a header
 * with the expected magic into dims. On failure the file is closed.
 */
static smm_status idx_begin(const char *who, const char *path, int64_t max_rows, uint32_t magic,
                            idx_file *f, int64_t dims[3], char *msg, size_t msg_size)
{
    if (max_rows < 0) {
        dataset_msg(msg, msg_size, "%s: negative max_rows", who);
        return SMM_ERR_BAD_ARGUMENT;
    }
    smm_status s = idx_open(path, f, msg, msg_size);
    if (s != SMM_OK)
        return s;
    s = idx_read_header(f, magic, dims, msg, msg_size);
    if (s != SMM_OK)
        idx_close(f);
    return s;
}

smm_status dataset_load_idx_images(const char *path, int64_t max_rows,
                                   dataset_matrix *out,
                                   char *msg, size_t msg_size)
{
    dataset_matrix_clear(out);
    if (path == NULL || out == NULL) {
        dataset_msg(msg, msg_size, "dataset_load_idx_images: NULL argument");
        return SMM_ERR_NULL_POINTER;
    }
    idx_file f;
    int64_t dims[3] = { 0, 0, 0 };
    smm_status s = idx_begin("dataset_load_idx_images", path, max_rows, DATASET_IDX_MAGIC_IMAGES, &f, dims,
                             msg, msg_size);
    if (s != SMM_OK)
        return s;
    if (dims[1] == 0 || dims[2] == 0) {
        dataset_msg(msg, msg_size, "%s: image size %lld x %lld is empty",
                path, (long long)dims[1], (long long)dims[2]);
        idx_close(&f);
        return SMM_ERR_BAD_FORMAT;
    }
    /* Each dimension is at most 2^32 - 1, so rows * cols fits in int64. */
    int64_t rows = limit_rows(dims[0], max_rows);
    int64_t cols = dims[1] * dims[2];
    if (rows > 0 && (cols > INT64_MAX / rows ||
                     (uint64_t)(rows * cols) > SIZE_MAX / sizeof(float))) {
        dataset_msg(msg, msg_size, "%s: %lld images of %lld pixels do not fit in memory",
                path, (long long)rows, (long long)cols);
        idx_close(&f);
        return SMM_ERR_OVERFLOW;
    }

    size_t total = (size_t)(rows * cols);
    float *data = NULL;
    unsigned char *chunk = NULL;
    if (total > 0) {
        data = malloc(total * sizeof(float));
        chunk = malloc(IDX_READ_CHUNK);
        if (data == NULL || chunk == NULL) {
            free(data);
            free(chunk);
            idx_close(&f);
            dataset_msg(msg, msg_size, "%s: out of memory for %lld x %lld floats",
                    path, (long long)rows, (long long)cols);
            return SMM_ERR_NO_MEMORY;
        }
    }

    /* Pixels arrive in chunks; the file may end early (checked by idx_read). */
    for (size_t done = 0; done < total;) {
        size_t len = total - done < IDX_READ_CHUNK ? total - done : IDX_READ_CHUNK;
        s = idx_read(&f, chunk, len, "pixel data", msg, msg_size);
        if (s != SMM_OK) {
            free(data);
            free(chunk);
            idx_close(&f);
            return s;
        }
        for (size_t i = 0; i < len; i++)
            data[done + i] = (float)chunk[i] / 255.0f;
        done += len;
    }
    free(chunk);
    idx_close(&f);

    out->rows = rows;
    out->cols = cols;
    out->data = data;
    return SMM_OK;
}

smm_status dataset_load_idx_labels(const char *path, int64_t max_rows,
                                   uint8_t **labels, int64_t *count,
                                   char *msg, size_t msg_size)
{
    if (labels != NULL)
        *labels = NULL;
    if (count != NULL)
        *count = 0;
    if (path == NULL || labels == NULL || count == NULL) {
        dataset_msg(msg, msg_size, "dataset_load_idx_labels: NULL argument");
        return SMM_ERR_NULL_POINTER;
    }
    idx_file f;
    int64_t dims[3] = { 0, 0, 0 };
    smm_status s = idx_begin("dataset_load_idx_labels", path, max_rows, DATASET_IDX_MAGIC_LABELS, &f, dims,
                             msg, msg_size);
    if (s != SMM_OK)
        return s;
    int64_t n = limit_rows(dims[0], max_rows);
    if ((uint64_t)n > SIZE_MAX) {
        idx_close(&f);
        dataset_msg(msg, msg_size, "%s: %lld labels do not fit in memory", path, (long long)n);
        return SMM_ERR_OVERFLOW;
    }
    uint8_t *buf = NULL;
    if (n > 0) {
        buf = malloc((size_t)n);
        if (buf == NULL) {
            idx_close(&f);
            dataset_msg(msg, msg_size, "%s: out of memory for %lld labels", path, (long long)n);
            return SMM_ERR_NO_MEMORY;
        }
        s = idx_read(&f, buf, (size_t)n, "label data", msg, msg_size);
        if (s != SMM_OK) {
            free(buf);
            idx_close(&f);
            return s;
        }
    }
    idx_close(&f);
    *labels = buf;
    *count = n;
    return SMM_OK;
}

const char *dataset_fashion_mnist_dir(const char *dir)
{
    if (dir != NULL && dir[0] != '\0')
        return dir;
    const char *env = getenv(DATASET_FASHION_MNIST_ENV);
    if (env != NULL && env[0] != '\0')
        return env;
    return DATASET_FASHION_MNIST_DEFAULT_DIR;
}

smm_status dataset_load_fashion_mnist(const char *dir, const char *split,
                                      int64_t max_rows, dataset_matrix *out,
                                      char *msg, size_t msg_size)
{
    dataset_matrix_clear(out);
    if (split == NULL || out == NULL) {
        dataset_msg(msg, msg_size, "dataset_load_fashion_mnist: NULL argument");
        return SMM_ERR_NULL_POINTER;
    }
    if (strcmp(split, "train") != 0 && strcmp(split, "t10k") != 0) {
        dataset_msg(msg, msg_size, "Fashion-MNIST split \"%s\": expected \"train\" or \"t10k\"", split);
        return SMM_ERR_BAD_ARGUMENT;
    }
    const char *root = dataset_fashion_mnist_dir(dir);
    size_t len = strlen(root) + strlen(split) + sizeof("/-images-idx3-ubyte.gz");
    char *path = malloc(len);
    if (path == NULL) {
        dataset_msg(msg, msg_size, "dataset_load_fashion_mnist: out of memory");
        return SMM_ERR_NO_MEMORY;
    }
    snprintf(path, len, "%s/%s-images-idx3-ubyte.gz", root, split);

    smm_status s = dataset_load_idx_images(path, max_rows, out, msg, msg_size);
    if (s == SMM_ERR_IO && access(path, F_OK) != 0) {
        dataset_msg(msg, msg_size,
                "Fashion-MNIST file %s not found: install it with "
                "`apt-get install dataset-fashion-mnist`, or point %s "
                "(or the tool's --data-dir) to a directory holding %s-images-idx3-ubyte.gz",
                path, DATASET_FASHION_MNIST_ENV, split);
    } else if (s == SMM_OK && out->cols != DATASET_FASHION_MNIST_DIM) {
        dataset_msg(msg, msg_size, "%s: images have %lld pixels, Fashion-MNIST has %d",
                path, (long long)out->cols, DATASET_FASHION_MNIST_DIM);
        dataset_matrix_free(out);
        s = SMM_ERR_BAD_FORMAT;
    }
    free(path);
    return s;
}
