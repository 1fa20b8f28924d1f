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
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

/*
 * Bytes handed to one gzread() call. At least twice IDX_INPUT_BUFFER, so
 * that zlib inflates straight into the caller's buffer instead of copying
 * through its own: reading to the end of a 26 MB Fashion-MNIST file then
 * costs little more than inflating it.
 */
#define IDX_READ_CHUNK (1u << 20)

/*
 * Compressed bytes zlib reads per read() call. Its default, 8 KiB, made
 * inflating the Fashion-MNIST training file 8% slower.
 */
#define IDX_INPUT_BUFFER (1u << 17)

/*
 * An open IDX file: the zlib handle, its descriptor (for the size of a plain
 * file), the path for messages, the uncompressed bytes read so far and the
 * exact uncompressed size the header announces (0 until it is known).
 */
typedef struct {
    gzFile gz;
    int fd;
    const char *path;
    uint64_t pos;
    uint64_t size;
} idx_file;

static smm_status idx_open(const char *path, idx_file *f, char *msg, size_t msg_size)
{
    f->gz = NULL;
    f->path = path;
    f->pos = 0;
    f->size = 0;
    f->fd = open(path, O_RDONLY);
    if (f->fd < 0) {
        dataset_msg(msg, msg_size, "cannot open %s: %s", path, strerror(errno));
        return DATASET_ERR_IO;
    }
    f->gz = gzdopen(f->fd, "rb");
    if (f->gz == NULL) {
        close(f->fd);
        dataset_msg(msg, msg_size, "cannot read %s: out of memory for the zlib stream", path);
        return SMM_ERR_NO_MEMORY;
    }
    gzbuffer(f->gz, IDX_INPUT_BUFFER);
    return SMM_OK;
}

static void idx_close(idx_file *f)
{
    if (f->gz != NULL)
        gzclose(f->gz);
    f->gz = NULL;
}

/* The status and message of a gzread() that returned -1. */
static smm_status idx_read_error(const idx_file *f, char *msg, size_t msg_size)
{
    int zerr = 0;
    const char *ztext = gzerror(f->gz, &zerr);
    if (zerr == Z_ERRNO) {
        dataset_msg(msg, msg_size, "cannot read %s: %s", f->path, strerror(errno));
        return DATASET_ERR_IO;
    }
    if (zerr == Z_MEM_ERROR) {
        dataset_msg(msg, msg_size, "cannot read %s: out of memory in zlib", f->path);
        return SMM_ERR_NO_MEMORY;
    }
    dataset_msg(msg, msg_size, "%s: corrupt gzip data (%s)", f->path, ztext != NULL ? ztext : "zlib error");
    return DATASET_ERR_BAD_FORMAT;
}

/* The message of data that ends before f->size (or inside the header). */
static smm_status idx_truncated(const idx_file *f, char *msg, size_t msg_size)
{
    if (f->size == 0)
        dataset_msg(msg, msg_size, "%s: truncated: the data ends after %llu bytes, inside the header",
                    f->path, (unsigned long long)f->pos);
    else
        dataset_msg(msg, msg_size, "%s: truncated: the header announces %llu bytes, the data ends after %llu",
                    f->path, (unsigned long long)f->size, (unsigned long long)f->pos);
    return DATASET_ERR_BAD_FORMAT;
}

/*
 * Read exactly len bytes. A short read (end of data, truncated or corrupt
 * gzip stream) is DATASET_ERR_BAD_FORMAT; an operating-system read error is
 * DATASET_ERR_IO.
 */
static smm_status idx_read(idx_file *f, void *buf, size_t len, char *msg, size_t msg_size)
{
    unsigned char *p = buf;
    for (size_t done = 0; done < len;) {
        size_t want = len - done < IDX_READ_CHUNK ? len - done : IDX_READ_CHUNK;
        int got = gzread(f->gz, p + done, (unsigned)want);
        if (got < 0)
            return idx_read_error(f, msg, msg_size);
        if (got == 0)
            return idx_truncated(f, msg, msg_size);
        done += (size_t)got;
        f->pos += (uint64_t)got;
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
    smm_status s = idx_read(f, b, 4, msg, msg_size);
    if (s != SMM_OK)
        return s;
    uint32_t got = be32(b);
    if (got != magic) {
        dataset_msg(msg, msg_size,
                "%s: not an IDX %s file (magic 0x%08x, expected 0x%08x)",
                f->path, magic == DATASET_IDX_MAGIC_IMAGES ? "image" : "label",
                (unsigned)got, (unsigned)magic);
        return DATASET_ERR_BAD_FORMAT;
    }
    int ndims = (int)(magic & 0xFFu);
    for (int d = 0; d < ndims; d++) {
        s = idx_read(f, b, 4, msg, msg_size);
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

/*
 * Set f->size, the exact uncompressed size of a file of `count` items of
 * item_bytes (>= 1) each after the header just read. Sizes no file can have
 * (beyond INT64_MAX bytes) are DATASET_ERR_BAD_FORMAT, and so is a plain
 * (uncompressed) regular file of another length: both before anything is
 * allocated for the values. A gzip stream's length is only known once it is
 * read (see idx_read_kept).
 */
static smm_status idx_set_size(idx_file *f, int64_t count, uint64_t item_bytes, char *msg, size_t msg_size)
{
    if (item_bytes > (uint64_t)INT64_MAX - f->pos ||
        (uint64_t)count > ((uint64_t)INT64_MAX - f->pos) / item_bytes) {
        dataset_msg(msg, msg_size, "%s: the header announces %lld items of %llu bytes, more than any file holds",
                    f->path, (long long)count, (unsigned long long)item_bytes);
        return DATASET_ERR_BAD_FORMAT;
    }
    f->size = f->pos + (uint64_t)count * item_bytes;
    struct stat st;
    if (gzdirect(f->gz) && fstat(f->fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size != f->size) {
        dataset_msg(msg, msg_size, "%s: %lld bytes, but its header announces %llu (%llu of header, "
                    "%lld items of %llu bytes)", f->path, (long long)st.st_size,
                    (unsigned long long)f->size, (unsigned long long)f->pos, (long long)count,
                    (unsigned long long)item_bytes);
        return DATASET_ERR_BAD_FORMAT;
    }
    return SMM_OK;
}

/* Stores len bytes read from the file as len values at dst. */
typedef void idx_store_fn(void *dst, const unsigned char *src, size_t len);

static void store_bytes(void *dst, const unsigned char *src, size_t len)
{
    memcpy(dst, src, len);
}

/* Pixel p as p / 255, in [0, 1]. */
static void store_pixels(void *dst, const unsigned char *src, size_t len)
{
    float *out = dst;
    for (size_t i = 0; i < len; i++)
        out[i] = (float)src[i] / 255.0f;
}

/*
 * Room for `need` values of elem_size bytes in *buf, which holds *cap of the
 * n to come: *cap doubles (up to n).
 */
static smm_status idx_grow(const idx_file *f, unsigned char **buf, size_t *cap, size_t need, size_t n,
                           size_t elem_size, char *msg, size_t msg_size)
{
    size_t next = *cap > n / 2 ? n : 2 * *cap;
    next = next > need ? next : need;
    unsigned char *grown = realloc(*buf, next * elem_size);
    if (grown == NULL) {
        dataset_msg(msg, msg_size, "%s: out of memory for %zu values", f->path, next);
        return SMM_ERR_NO_MEMORY;
    }
    *buf = grown;
    *cap = next;
    return SMM_OK;
}

/*
 * Read n bytes, a chunk at a time through scratch (IDX_READ_CHUNK bytes),
 * each chunk stored by `store` into *out, values of elem_size bytes
 * (malloc'ed; NULL when n is 0). The buffer grows with the data that has
 * arrived (idx_grow) instead of taking the header's word for n: a short file
 * announcing huge dimensions fails as truncated before the allocation gets
 * large.
 */
static smm_status idx_read_kept(idx_file *f, size_t n, size_t elem_size, idx_store_fn *store,
                                unsigned char *scratch, void **out, char *msg, size_t msg_size)
{
    unsigned char *buf = NULL;
    size_t cap = 0;
    for (size_t done = 0; done < n;) {
        size_t len = n - done < IDX_READ_CHUNK ? n - done : IDX_READ_CHUNK;
        smm_status s = idx_read(f, scratch, len, msg, msg_size);
        if (s == SMM_OK && done + len > cap)
            s = idx_grow(f, &buf, &cap, done + len, n, elem_size, msg, msg_size);
        if (s != SMM_OK) {
            free(buf);
            return s;
        }
        store(buf + done * elem_size, scratch, len);
        done += len;
    }
    *out = buf;
    return SMM_OK;
}

/*
 * At f->size, after the announced data: the stream must end here, complete.
 * Reaching the end is what makes zlib check the gzip trailer (the CRC-32 and
 * length of the data), so damage that still inflated to wrong bytes fails
 * here. More data (trailing bytes, a second gzip member) and a stream that
 * stops before its trailer are DATASET_ERR_BAD_FORMAT.
 */
static smm_status idx_expect_end(idx_file *f, unsigned char *scratch, char *msg, size_t msg_size)
{
    int got = gzread(f->gz, scratch, IDX_READ_CHUNK);
    if (got < 0)
        return idx_read_error(f, msg, msg_size);
    if (got > 0) {
        dataset_msg(msg, msg_size, "%s: more data than the %llu bytes its header announces",
                    f->path, (unsigned long long)f->size);
        return DATASET_ERR_BAD_FORMAT;
    }
    int zerr = Z_OK;
    gzerror(f->gz, &zerr);
    if (zerr == Z_BUF_ERROR) {
        dataset_msg(msg, msg_size, "%s: truncated: the gzip stream ends before its trailer", f->path);
        return DATASET_ERR_BAD_FORMAT;
    }
    return SMM_OK;
}

/*
 * Read the rest of the announced data into scratch, then check the end
 * (idx_expect_end): a file is verified whole even when only its first items
 * are kept.
 */
static smm_status idx_finish(idx_file *f, unsigned char *scratch, char *msg, size_t msg_size)
{
    smm_status s = SMM_OK;
    while (s == SMM_OK && f->pos < f->size) {
        uint64_t rest = f->size - f->pos;
        s = idx_read(f, scratch, rest < IDX_READ_CHUNK ? (size_t)rest : IDX_READ_CHUNK, msg, msg_size);
    }
    return s == SMM_OK ? idx_expect_end(f, scratch, msg, msg_size) : s;
}

/*
 * Skip `bytes` of the data: a plain file seeks past them, a gzip stream is
 * inflated through scratch (the format has no random access).
 */
static smm_status idx_skip(idx_file *f, uint64_t bytes, unsigned char *scratch, char *msg, size_t msg_size)
{
    if (bytes == 0)
        return SMM_OK;
    if (gzdirect(f->gz)) {
        if (bytes > (uint64_t)INT64_MAX - f->pos || gzseek(f->gz, (z_off_t)(f->pos + bytes), SEEK_SET) < 0) {
            dataset_msg(msg, msg_size, "cannot seek in %s: %s", f->path, strerror(errno));
            return DATASET_ERR_IO;
        }
        f->pos += bytes;
        return SMM_OK;
    }
    smm_status s = SMM_OK;
    for (uint64_t done = 0; s == SMM_OK && done < bytes;) {
        size_t len = bytes - done < IDX_READ_CHUNK ? (size_t)(bytes - done) : IDX_READ_CHUNK;
        s = idx_read(f, scratch, len, msg, msg_size);
        done += len;
    }
    return s;
}

/*
 * The values shared by the loaders, after idx_begin(): the file holds
 * `count` items of item_bytes each; items first .. first + rows - 1 go to
 * *values (idx_read_kept: one value of elem_size bytes, made by `store`, per
 * byte). Then the rest of the stream is read and verified (idx_finish),
 * except that with `whole` 0 a plain regular file, whose length idx_set_size
 * has already compared with its header, is left unread past the items kept.
 * Closes the file; on failure *values is NULL.
 */
static smm_status idx_read_values(idx_file *f, int64_t count, uint64_t item_bytes, int64_t first, int64_t rows,
                                  int whole, size_t elem_size, idx_store_fn *store, void **values,
                                  char *msg, size_t msg_size)
{
    *values = NULL;
    smm_status s = idx_set_size(f, count, item_bytes, msg, msg_size);
    /* first + rows <= count, so once idx_set_size() has passed, both products are below 2^63. */
    uint64_t n = s == SMM_OK ? (uint64_t)rows * item_bytes : 0;
    if (n > SIZE_MAX / elem_size) {
        dataset_msg(msg, msg_size, "%s: %lld items of %llu bytes do not fit in memory", f->path,
                    (long long)rows, (unsigned long long)item_bytes);
        s = SMM_ERR_OVERFLOW;
    }
    unsigned char *scratch = s == SMM_OK ? malloc(IDX_READ_CHUNK) : NULL;
    if (s == SMM_OK && scratch == NULL) {
        dataset_msg(msg, msg_size, "%s: out of memory for a read buffer", f->path);
        s = SMM_ERR_NO_MEMORY;
    }
    if (s == SMM_OK)
        s = idx_skip(f, (uint64_t)first * item_bytes, scratch, msg, msg_size);
    if (s == SMM_OK)
        s = idx_read_kept(f, (size_t)n, elem_size, store, scratch, values, msg, msg_size);
    struct stat st;
    int verified = !whole && gzdirect(f->gz) && fstat(f->fd, &st) == 0 && S_ISREG(st.st_mode);
    if (s == SMM_OK && !verified)
        s = idx_finish(f, scratch, msg, msg_size);
    free(scratch);
    idx_close(f);
    if (s != SMM_OK) {
        free(*values);
        *values = NULL;
    }
    return s;
}

/*
 * idx_begin() for an image file: its dims[0] images of dims[1] x dims[2]
 * pixels, checked non-empty, the pixels per image in *pixels. On failure
 * the file is closed.
 */
static smm_status idx_begin_images(const char *who, const char *path, int64_t max_rows, idx_file *f,
                                   int64_t dims[3], uint64_t *pixels, char *msg, size_t msg_size)
{
    smm_status s = idx_begin(who, path, max_rows, DATASET_IDX_MAGIC_IMAGES, f, dims, msg, msg_size);
    if (s != SMM_OK)
        return s;
    if (dims[1] == 0 || dims[2] == 0) {
        dataset_msg(msg, msg_size, "%s: image size %lld x %lld is empty",
                path, (long long)dims[1], (long long)dims[2]);
        idx_close(f);
        return DATASET_ERR_BAD_FORMAT;
    }
    /* Each dimension is below 2^32, so their product fits in 64 unsigned bits. */
    *pixels = (uint64_t)dims[1] * (uint64_t)dims[2];
    return SMM_OK;
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
    uint64_t pixels = 0;
    smm_status s = idx_begin_images("dataset_load_idx_images", path, max_rows, &f, dims, &pixels, msg, msg_size);
    if (s != SMM_OK)
        return s;
    int64_t rows = limit_rows(dims[0], max_rows);
    void *data;
    s = idx_read_values(&f, dims[0], pixels, 0, rows, 1, sizeof(float), store_pixels, &data, msg, msg_size);
    if (s != SMM_OK)
        return s;
    out->rows = rows;
    out->cols = (int64_t)pixels; /* at most INT64_MAX: checked by idx_set_size() */
    out->data = data;
    return SMM_OK;
}

smm_status dataset_idx_images_shape(const char *path, int64_t *count, int64_t *pixels,
                                    char *msg, size_t msg_size)
{
    if (count != NULL)
        *count = 0;
    if (pixels != NULL)
        *pixels = 0;
    if (path == NULL || count == NULL || pixels == NULL) {
        dataset_msg(msg, msg_size, "dataset_idx_images_shape: NULL argument");
        return SMM_ERR_NULL_POINTER;
    }
    idx_file f;
    int64_t dims[3] = { 0, 0, 0 };
    uint64_t px = 0;
    smm_status s = idx_begin_images("dataset_idx_images_shape", path, 0, &f, dims, &px, msg, msg_size);
    if (s != SMM_OK)
        return s;
    s = idx_set_size(&f, dims[0], px, msg, msg_size);
    idx_close(&f);
    if (s == SMM_OK) {
        *count = dims[0];
        *pixels = (int64_t)px;
    }
    return s;
}

smm_status dataset_load_idx_image_rows(const char *path, int64_t first, int64_t count,
                                       dataset_matrix *out, char *msg, size_t msg_size)
{
    dataset_matrix_clear(out);
    if (path == NULL || out == NULL) {
        dataset_msg(msg, msg_size, "dataset_load_idx_image_rows: NULL argument");
        return SMM_ERR_NULL_POINTER;
    }
    if (first < 0 || count < 1) {
        dataset_msg(msg, msg_size, "dataset_load_idx_image_rows: images %lld..%lld (first >= 0 and count >= 1 "
                    "needed)", (long long)first, (long long)first + (long long)count - 1);
        return SMM_ERR_BAD_ARGUMENT;
    }
    idx_file f;
    int64_t dims[3] = { 0, 0, 0 };
    uint64_t pixels = 0;
    smm_status s = idx_begin_images("dataset_load_idx_image_rows", path, 0, &f, dims, &pixels, msg, msg_size);
    if (s != SMM_OK)
        return s;
    if (first > dims[0] || count > dims[0] - first) {
        dataset_msg(msg, msg_size, "%s: %lld images; images %lld..%lld asked for", path, (long long)dims[0],
                    (long long)first, (long long)first + (long long)count - 1);
        idx_close(&f);
        return SMM_ERR_BAD_ARGUMENT;
    }
    void *data;
    s = idx_read_values(&f, dims[0], pixels, first, count, 0, sizeof(float), store_pixels, &data, msg, msg_size);
    if (s != SMM_OK)
        return s;
    out->rows = count;
    out->cols = (int64_t)pixels;
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
    void *buf;
    s = idx_read_values(&f, dims[0], 1, 0, n, 1, 1, store_bytes, &buf, msg, msg_size);
    if (s != SMM_OK)
        return s;
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
    if (s == DATASET_ERR_IO && access(path, F_OK) != 0) {
        dataset_msg(msg, msg_size,
                "Fashion-MNIST file %s not found: install it with "
                "`apt-get install dataset-fashion-mnist`, or point %s "
                "(or the tool's --data-dir) to a directory holding %s-images-idx3-ubyte.gz",
                path, DATASET_FASHION_MNIST_ENV, split);
    } else if (s == SMM_OK && out->cols != DATASET_FASHION_MNIST_DIM) {
        dataset_msg(msg, msg_size, "%s: images have %lld pixels, Fashion-MNIST has %d",
                path, (long long)out->cols, DATASET_FASHION_MNIST_DIM);
        dataset_matrix_free(out);
        s = DATASET_ERR_BAD_FORMAT;
    }
    free(path);
    return s;
}
