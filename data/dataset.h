/*
 * data/dataset.h - input matrices for the sketchmm tools and experiments:
 *   - a loader of gzipped IDX files (the Fashion-MNIST / MNIST format),
 *   - seeded synthetic generators (i.i.d. Gaussian, low-rank plus noise,
 *     clustered with a chosen alignment, texture-like images with a
 *     power-law spectrum) and small 8 x 8 digit-like images,
 *   - any 2-D numeric dataset of an HDF5 file ("file.h5:/path"),
 *   - prepared nearest-neighbour benchmarks in the ann-benchmarks HDF5
 *     layout (train, test, neighbors, distances), read and written.
 *
 * This header belongs to the tools (target sketchmm_data), not to the public
 * API of the library. Like the library, nothing here aborts, exits or prints:
 * every function returns an smm_status (sketchmm/common.h).
 *
 * Matrices
 *   A dataset_matrix owns `data`, rows * cols floats, row-major, one sample
 *   (image, generated vector) per row, leading dimension cols. Release it with
 *   dataset_matrix_free(). On any status other than SMM_OK the output matrix
 *   is left empty ({0, 0, NULL}), so dataset_matrix_free() is always safe.
 *
 * Error messages
 *   The loaders take an optional message buffer (msg, msg_size; msg may be
 *   NULL). On failure they write one line there that names the file and the
 *   problem, ready for the caller to print.
 */
#ifndef SKETCHMM_DATA_DATASET_H
#define SKETCHMM_DATA_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "sketchmm/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The tools' own statuses, for files: numbered 15 and 16 in the library's
 * smm_status space (sketchmm/common.h keeps those numbers free), returned
 * by the loaders here and by the sweep driver, never by the library.
 */
#define DATASET_ERR_IO ((smm_status)15)         /* a file could not be opened, read or written */
#define DATASET_ERR_BAD_FORMAT ((smm_status)16) /* a file's contents are not what its format requires */

/* smm_status_str for every status, these two included. Never NULL. */
const char *dataset_status_str(smm_status s);

/* A row-major float matrix that owns its storage (see above). */
typedef struct {
    int64_t rows;
    int64_t cols;
    float *data; /* rows * cols floats, element (i, j) at data[i * cols + j] */
} dataset_matrix;

/* Free m->data and reset *m to {0, 0, NULL}. Accepts NULL and empty matrices. */
void dataset_matrix_free(dataset_matrix *m);

/* ------------------------------------------------------------------------ */
/* IDX files                                                                */
/* ------------------------------------------------------------------------ */

/*
 * The IDX format (http://yann.lecun.com/exdb/mnist/): a 4-byte big-endian
 * magic 0x00000800 | (type << 8) | ndims, ndims big-endian uint32 dimensions,
 * then the values in row-major order. Type 0x08 is unsigned byte, the only
 * type these loaders accept. Files are read through zlib, so both gzipped and
 * plain files work.
 */
#define DATASET_IDX_MAGIC_IMAGES UINT32_C(0x00000803) /* unsigned bytes, 3 dims: count x rows x cols */
#define DATASET_IDX_MAGIC_LABELS UINT32_C(0x00000801) /* unsigned bytes, 1 dim: count */

/*
 * dataset_load_idx_images - read an IDX image file (magic 0x00000803) into
 * *out: one image per row (count x (rows * cols)), pixel p scaled to p / 255
 * so every value lies in [0, 1].
 *
 * max_rows > 0 keeps only the first min(max_rows, count) images; 0 keeps
 * all. Either way the whole file is read and checked: its uncompressed size
 * must be exactly the header plus count * rows * cols bytes, and a gzip
 * stream must end complete, the CRC-32 and length of its trailer matching
 * the data (so damage anywhere in the file is an error, even in images not
 * kept).
 *
 * Sizes: memory grows with the data as it arrives (a plain file's size is
 * compared with its header first), so a header announcing more than its
 * file holds fails as DATASET_ERR_BAD_FORMAT without allocating for it.
 *
 * Returns SMM_OK, SMM_ERR_NULL_POINTER (path or out NULL),
 * SMM_ERR_BAD_ARGUMENT (max_rows < 0), DATASET_ERR_IO (the file cannot be opened
 * or a read fails), DATASET_ERR_BAD_FORMAT (wrong magic, a zero or absurd
 * dimension, fewer or more bytes than the header announces, corrupt or
 * truncated gzip data), SMM_ERR_OVERFLOW or SMM_ERR_NO_MEMORY.
 */
smm_status dataset_load_idx_images(const char *path, int64_t max_rows,
                                   dataset_matrix *out,
                                   char *msg, size_t msg_size);

/*
 * dataset_idx_images_shape - the header of an IDX image file without its
 * values: *count images of *pixels (rows * cols) values each. A plain
 * file's length must match its header; a gzip stream is not read past its
 * header. Statuses of dataset_load_idx_images; on failure both are 0.
 */
smm_status dataset_idx_images_shape(const char *path, int64_t *count, int64_t *pixels,
                                    char *msg, size_t msg_size);

/*
 * dataset_load_idx_image_rows - images first .. first + count - 1 of an IDX
 * image file as dataset_load_idx_images reads them (count x pixels, values
 * p / 255), for a process that holds one slice of a database. Only the
 * slice is kept in memory. A plain (uncompressed) file is read at the slice
 * alone, after its length has been compared with its header; a gzip stream
 * has no random access, so it is inflated from its start and, as by
 * dataset_load_idx_images, to its end to check its trailer. first >= 0,
 * count >= 1 and first + count at most the images of the file
 * (SMM_ERR_BAD_ARGUMENT otherwise); other statuses as
 * dataset_load_idx_images.
 */
smm_status dataset_load_idx_image_rows(const char *path, int64_t first, int64_t count,
                                       dataset_matrix *out, char *msg, size_t msg_size);

/*
 * dataset_load_idx_labels - read an IDX label file (magic 0x00000801):
 * *labels receives a malloc'ed array of *count bytes (free it with free()).
 * max_rows as in dataset_load_idx_images. Same statuses. On failure *labels
 * is NULL and *count is 0.
 */
smm_status dataset_load_idx_labels(const char *path, int64_t max_rows,
                                   uint8_t **labels, int64_t *count,
                                   char *msg, size_t msg_size);

/* ------------------------------------------------------------------------ */
/* Fashion-MNIST                                                            */
/* ------------------------------------------------------------------------ */

/* Where the Debian package dataset-fashion-mnist installs the files. */
#define DATASET_FASHION_MNIST_DEFAULT_DIR "/usr/share/datasets/fashion-mnist"

/* Environment variable that overrides the default directory. */
#define DATASET_FASHION_MNIST_ENV "SKETCHMM_FASHION_MNIST_DIR"

/* Fashion-MNIST images are 28 x 28 = 784 pixels. */
#define DATASET_FASHION_MNIST_DIM 784

/*
 * The directory the Fashion-MNIST loader reads: dir when it is neither NULL
 * nor empty, else $SKETCHMM_FASHION_MNIST_DIR when set and non-empty, else
 * DATASET_FASHION_MNIST_DEFAULT_DIR. Never NULL.
 */
const char *dataset_fashion_mnist_dir(const char *dir);

/*
 * dataset_load_fashion_mnist - the images of one split as a
 * count x 784 matrix with values in [0, 1] (60000 rows for "train", 10000 for
 * "t10k"), from <dir>/<split>-images-idx3-ubyte.gz, dir resolved by
 * dataset_fashion_mnist_dir().
 *
 * split is "train" or "t10k"; max_rows as in dataset_load_idx_images.
 *
 * Returns the statuses of dataset_load_idx_images, plus SMM_ERR_BAD_ARGUMENT
 * for another split name and DATASET_ERR_BAD_FORMAT when the images are not
 * 28 x 28. A missing file gives DATASET_ERR_IO with a message naming the file and
 * suggesting `apt-get install dataset-fashion-mnist`.
 */
smm_status dataset_load_fashion_mnist(const char *dir, const char *split,
                                      int64_t max_rows, dataset_matrix *out,
                                      char *msg, size_t msg_size);

/* ------------------------------------------------------------------------ */
/* Synthetic matrices                                                       */
/* ------------------------------------------------------------------------ */

/*
 * Every generator is counter-based: each random number is a function of
 * (seed, stream, index) only (splitmix64 mixing; Gaussians by Box-Muller), so
 * the same arguments give the same matrix, whatever was generated before, and
 * the parts of a matrix that do not depend on an argument stay identical when
 * that argument changes (for example the low-rank part of dataset_lowrank()
 * does not depend on `noise`). Values agree bit for bit across runs on one
 * platform; across platforms they may differ in the last bits (libm's log,
 * cos and sin).
 *
 * Every generator returns SMM_OK, SMM_ERR_NULL_POINTER (out NULL),
 * SMM_ERR_BAD_SIZE (rows or cols < 0), SMM_ERR_BAD_ARGUMENT (another
 * parameter out of its range, given below), SMM_ERR_OVERFLOW or
 * SMM_ERR_NO_MEMORY. A matrix with 0 rows or columns is valid (data NULL).
 */

/*
 * dataset_gaussian - rows x cols, entries i.i.d. N(0, 1).
 *   seed  any value; the same seed gives the same matrix.
 */
smm_status dataset_gaussian(int64_t rows, int64_t cols, uint64_t seed,
                            dataset_matrix *out);

/*
 * dataset_lowrank - X = U V^T / sqrt(rank) + noise * E, rows x cols.
 *   rank   1 <= rank; U (rows x rank), V (cols x rank) and E (rows x cols)
 *          have i.i.d. N(0, 1) entries, so each entry of the low-rank part
 *          has variance 1 and, with noise == 0, X has rank min(rank, rows, cols).
 *   noise  the standard deviation of the added i.i.d. Gaussian noise, >= 0
 *          and finite. The noise-to-signal energy ratio is noise^2.
 *   seed   as above. U, V and E come from separate streams, so changing noise
 *          changes only the noise term.
 */
smm_status dataset_lowrank(int64_t rows, int64_t cols, int64_t rank,
                           double noise, uint64_t seed, dataset_matrix *out);

/*
 * dataset_clustered - rows x cols, rows in `clusters` groups with a tunable
 * alignment.
 *   clusters   1 <= clusters; row i belongs to cluster i mod clusters. Each
 *              cluster has a centre c (a Gaussian vector normalised to unit
 *              length, so centres of different clusters are nearly orthogonal
 *              when cols is large).
 *   alignment  a in [0, 1]. Row i = sqrt(a) * c + sqrt(1 - a) * z_i, z_i an
 *              independent Gaussian vector normalised to unit length. Rows have
 *              norm about 1, and the expected cosine between two rows of the
 *              same cluster is about a (exactly a as cols grows): a = 1 makes
 *              every row of a cluster equal to its centre, a = 0 gives
 *              unstructured random directions. Rows of different clusters have
 *              cosine about 0.
 *   labels     optional (may be NULL): receives the cluster of each row
 *              (rows entries).
 *   seed       as above; centres and noise come from separate streams.
 * With cols == 0 the rows are empty; clusters and alignment are still checked.
 */
smm_status dataset_clustered(int64_t rows, int64_t cols, int64_t clusters,
                             double alignment, uint64_t seed,
                             dataset_matrix *out, int32_t *labels);

/*
 * dataset_texture - rows x cols texture-like images: random fields whose
 * power spectrum falls as 1 / f^beta (natural images: beta about 2),
 * variance spread over every pixel and correlated locally; the data on
 * which learned encoders that read a few coordinates per subspace fail.
 *   The image is an h x w grid, w = ceil(sqrt(cols)), h = ceil(cols / w),
 *   pixel (r, c) at column r w + c (the first cols pixels of the grid:
 *   28 x 28 for cols = 784). Row i is the inverse orthonormal 2-D DCT-II of
 *   the coefficients a_uv g_uv (0 <= u < h, 0 <= v < w), g_uv i.i.d.
 *   N(0, 1), a_uv = (u^2 + v^2)^(-beta / 4) and a_00 = 0 (no mean
 *   brightness), then scaled to unit root-mean-square over its cols values
 *   (norm sqrt(cols); a row with cols == 1 is 0).
 *   beta   the spectral exponent, in [0, DATASET_TEXTURE_MAX_BETA]: 0 is
 *          white noise (no correlation between neighbours), 2 a natural
 *          image's spectrum, larger smoother.
 *   seed   as above: the same (rows, cols, beta, seed) gives the same
 *          matrix, and a matrix of fewer rows is a prefix of a larger one.
 * Cost: about cols (h + w) multiply-adds in double per row.
 */
#define DATASET_TEXTURE_MAX_BETA 8.0

smm_status dataset_texture(int64_t rows, int64_t cols, double beta, uint64_t seed, dataset_matrix *out);

/*
 * dataset_digits - rows x 64: small 8 x 8 digit-like images, for tests that
 * need image-like data without the Fashion-MNIST package.
 *   Row i shows digit i mod 10: a fixed 8 x 8 glyph of that digit, shifted
 *   by -1, 0 or +1 pixel in each direction (wrapping nothing: pixels shifted
 *   out are dropped), each stroke pixel scaled by a brightness in [0.5, 1],
 *   plus background noise in [0, 0.25) on about a quarter of the pixels.
 *   Values are multiples of 1/16 in [0, 1] (like scikit-learn's digits),
 *   pixel (r, c) at column 8 r + c.
 *   labels  optional (may be NULL): receives the digit of each row.
 *   seed    as above: the same (rows, seed) gives the same matrix, and a
 *           matrix of fewer rows is a prefix of a larger one.
 */
#define DATASET_DIGITS_DIM 64

smm_status dataset_digits(int64_t rows, uint64_t seed, dataset_matrix *out, int32_t *labels);

/* ------------------------------------------------------------------------ */
/* Matrices from HDF5 files                                                 */
/* ------------------------------------------------------------------------ */

/*
 * Any 2-D dataset of an HDF5 file, one vector per row. The dataset may hold
 * floating-point (float32, float64, ...) or integer values of any width and
 * sign; HDF5 converts them to float (float64 rounds to nearest float).
 * Every loaded value must be finite. Other types (strings, compounds,
 * enums, ...) are rejected.
 *
 * HDF5's own error-stack printing is switched off during each call (and the
 * previous setting restored), so failures are reported only through the
 * status and message. Not thread safe (neither is the HDF5 library as
 * Debian builds it).
 *
 * A matrix has at least one row and one column: a dataset of shape
 * rows x 0 or 0 x cols is rejected, by the loaders and the shape queries.
 *
 * Sizes: a dataset's dataspace may claim any dimensions, whatever the file
 * holds. Before anything is allocated (by the loaders; the shape queries
 * apply the same rule), the rows * cols values it claims, in bytes of its
 * file type, are compared with the bytes the file stores for it
 * (H5Dget_storage_size, counted at most as the size of the file on disk):
 * they may be at most DATASET_H5_MAX_EXPANSION times that. A contiguous
 * dataset stores exactly its values and chunks compressed with deflate
 * (HDF5's gzip filter) shrink at most 1032-fold, so datasets whose values
 * were all written pass; refused are claims with little or no stored data
 * behind them: never-written datasets (all fill value), sparsely written
 * chunked ones, virtual datasets, data that filters shrink more than the
 * limit (scale-offset on constant values), and values kept in external raw
 * files more than DATASET_H5_MAX_EXPANSION times the size of the HDF5 file.
 *
 * Statuses of the HDF5 readers: SMM_ERR_NULL_POINTER (a NULL argument),
 * SMM_ERR_BAD_ARGUMENT (max_rows < 0), DATASET_ERR_IO (the file cannot be
 * opened for reading: missing, no permission), DATASET_ERR_BAD_FORMAT (not an
 * HDF5 file, a truncated or corrupt file, no dataset at the path, a dataset
 * that is not 2-D, without rows or columns, an unsupported type or one whose
 * declared bit fields do not fit in its size, more values
 * claimed than the size rule above allows, a failed read, a non-finite
 * value), SMM_ERR_OVERFLOW, SMM_ERR_NO_MEMORY. The message names the file
 * and the path in the file.
 */

/* The size rule's limit: bytes of values claimed per byte stored (see above). */
#define DATASET_H5_MAX_EXPANSION 4096

/*
 * dataset_h5_split_spec - split a dataset name "FILE:/PATH" (the form the
 * tools accept, e.g. "vectors.h5:/embeddings/train") at the first ':' that is
 * followed by '/': FILE is copied to file (NUL-terminated), *path points at
 * "/PATH" inside spec. Returns SMM_OK, SMM_ERR_NULL_POINTER,
 * SMM_ERR_BAD_ARGUMENT (no ":/" or an empty FILE) or SMM_ERR_OVERFLOW (FILE
 * does not fit in file_size bytes).
 */
smm_status dataset_h5_split_spec(const char *spec, char *file, size_t file_size,
                                 const char **path);

/*
 * dataset_h5_matrix_shape - the shape of the 2-D dataset `path` of `file`
 * without reading its values: *rows vectors of dimension *cols. The type is
 * checked as by the loader. Statuses as above; on failure *rows = *cols = 0.
 */
smm_status dataset_h5_matrix_shape(const char *file, const char *path,
                                   int64_t *rows, int64_t *cols,
                                   char *msg, size_t msg_size);

/*
 * dataset_load_h5_matrix - read the 2-D dataset `path` of `file` into *out as
 * floats: its first min(max_rows, rows) rows (max_rows 0: all rows); only
 * those rows are read from the file. Statuses as above.
 */
smm_status dataset_load_h5_matrix(const char *file, const char *path, int64_t max_rows,
                                  dataset_matrix *out, char *msg, size_t msg_size);

/*
 * dataset_load_h5_rows - rows first .. first + count - 1 of the 2-D dataset
 * `path` of `file` as floats, for a process that holds one slice of a
 * database: only those rows are read (an HDF5 hyperslab), and every value
 * read must be finite. first >= 0, count >= 1 and first + count at most the
 * dataset's rows (SMM_ERR_BAD_ARGUMENT otherwise); other statuses as above.
 */
smm_status dataset_load_h5_rows(const char *file, const char *path, int64_t first, int64_t count,
                                dataset_matrix *out, char *msg, size_t msg_size);

/* ------------------------------------------------------------------------ */
/* Nearest-neighbour benchmarks in the ann-benchmarks layout                */
/* ------------------------------------------------------------------------ */

/*
 * The HDF5 layout of ann-benchmarks (github.com/erikbern/ann-benchmarks),
 * which precomputes the exact answer once so every run reuses it:
 *   /train      n x d  float32  the database, one vector per row
 *   /test       q x d  float32  the queries
 *   /neighbors  q x K  int32 (or int64)  row i: the indices into train of the
 *               exact K nearest neighbours of test row i, nearest first
 *   /distances  q x K  float32  row i: their distances or similarities
 *   attribute "distance" (string) on the root group: the measure.
 *       ann-benchmarks uses "euclidean" and "angular" (1 - cosine), and
 *       "hamming" / "jaccard" for binary data; this project writes "dot":
 *       the inner product, larger is nearer, so /neighbors lists the K
 *       largest <test_i, train_j> in decreasing order (ties: smaller j
 *       first) and /distances holds those inner products (a similarity, not
 *       a distance: decreasing along each row), exactly exact_topk's output.
 *   attribute "dimension" (integer) on the root group: d.
 * Readers of other files: train and test may be any type the HDF5 matrix
 * loader accepts; "dimension" is optional but must equal d when present.
 * The tool sketchmm_make_ann (data/make_ann_dataset.c, see its --help)
 * writes such a file from Fashion-MNIST (or the digit-like images).
 */
#define DATASET_ANN_DISTANCE_DOT "dot"

/* Longest "distance" attribute kept, with its NUL. */
#define DATASET_ANN_DISTANCE_LEN 32

/* A loaded benchmark. Owns every array; release with dataset_ann_free(). */
typedef struct {
    dataset_matrix train;       /* n x d (the loaded rows) */
    dataset_matrix test;        /* q x d (the loaded rows) */
    /*
     * test.rows x topk, row-major, indices into the train set of the file;
     * NULL when the loader was asked for fewer train rows than the file
     * holds, since the stored neighbours then refer to rows not loaded.
     */
    int64_t *neighbors;
    float *distances;           /* test.rows x topk, as neighbors (NULL with it) */
    int64_t topk;               /* K of the file */
    int64_t train_rows_in_file; /* n of the file, whatever was loaded */
    int64_t test_rows_in_file;  /* q of the file */
    char distance[DATASET_ANN_DISTANCE_LEN]; /* the "distance" attribute, "" if absent */
} dataset_ann;

/* Free every array and reset *a to zeros. Accepts NULL and empty values. */
void dataset_ann_free(dataset_ann *a);

/*
 * dataset_ann_shape - the sizes of a benchmark file without reading its
 * values: *train_rows (n), *test_rows (q), *dim (d) and *topk (K). Checks
 * everything dataset_load_ann checks except the values. Any output pointer
 * may be NULL. Statuses as dataset_load_ann.
 */
smm_status dataset_ann_shape(const char *file, int64_t *train_rows, int64_t *test_rows,
                             int64_t *dim, int64_t *topk, char *msg, size_t msg_size);

/*
 * dataset_load_ann - read a benchmark file: the first max_train rows of
 * /train and the first max_test rows of /test (0: all), and, when the whole
 * train set is loaded, the neighbors and distances of the loaded test rows.
 *
 * Validation (DATASET_ERR_BAD_FORMAT, with a message naming file and dataset):
 * each of the four datasets exists, is 2-D with at least one row and one
 * column and passes the size rule of the HDF5 matrix loader; train and test
 * have the same number of columns d, equal to the "dimension" attribute
 * when present; neighbors and distances are both q x K with q the rows of test and
 * 1 <= K <= n; neighbors has an integer type and every index lies in
 * [0, n); train, test and distances hold finite numbers. Other statuses as
 * the HDF5 matrix loader. On failure *out is empty.
 */
smm_status dataset_load_ann(const char *file, int64_t max_train, int64_t max_test,
                            dataset_ann *out, char *msg, size_t msg_size);

/*
 * dataset_ann_ground_truth - the exact answer of a benchmark by inner
 * product: for each row of test (q x d) the topk rows of train (n x d) with
 * the largest inner products, computed with exact_topk
 * (sketchmm/approx.h): *neighbors and *distances receive malloc'ed q x topk
 * arrays (free them with free()): the indices, in decreasing value (ties:
 * smaller index first), and those inner products. Uses the library's
 * default thread count (SKETCHMM_NUM_THREADS / OpenMP). Returns SMM_OK,
 * SMM_ERR_NULL_POINTER, SMM_ERR_BAD_ARGUMENT (train and test of different
 * widths, topk outside 1..n), SMM_ERR_OVERFLOW, SMM_ERR_NO_MEMORY or the
 * status of exact_topk. On failure both outputs are NULL.
 */
smm_status dataset_ann_ground_truth(const dataset_matrix *train, const dataset_matrix *test,
                                    int64_t topk, int64_t **neighbors, float **distances);

/*
 * dataset_write_ann - write a benchmark file in the layout above (replacing
 * an existing file): a->train, a->test, a->neighbors (stored as int32 when
 * n < 2^31, else int64), a->distances, the attribute "distance" (a->distance,
 * or "dot" when it is empty) and "dimension". Checks a's shapes as the loader
 * does (so there is at least one test row). Returns SMM_OK,
 * SMM_ERR_NULL_POINTER, SMM_ERR_BAD_ARGUMENT (inconsistent shapes, a
 * neighbour index outside [0, n)), DATASET_ERR_IO (the file cannot be created or
 * written; a partly written file is removed).
 */
smm_status dataset_write_ann(const char *file, const dataset_ann *a, char *msg, size_t msg_size);

#ifdef __cplusplus
}
#endif

#endif /* SKETCHMM_DATA_DATASET_H */
