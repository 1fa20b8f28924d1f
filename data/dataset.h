/*
 * data/dataset.h - input matrices for the sketchmm tools and experiments:
 * a loader of gzipped IDX files (the Fashion-MNIST / MNIST format) and seeded
 * synthetic generators.
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
 * max_rows > 0 reads only the first min(max_rows, count) images; 0 reads all.
 *
 * Returns SMM_OK, SMM_ERR_NULL_POINTER (path or out NULL),
 * SMM_ERR_BAD_ARGUMENT (max_rows < 0), SMM_ERR_IO (the file cannot be opened
 * or a read fails), SMM_ERR_BAD_FORMAT (wrong magic, a zero or absurd
 * dimension, fewer bytes than the header announces, corrupt gzip data),
 * SMM_ERR_OVERFLOW or SMM_ERR_NO_MEMORY.
 */
smm_status dataset_load_idx_images(const char *path, int64_t max_rows,
                                   dataset_matrix *out,
                                   char *msg, size_t msg_size);

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
 * for another split name and SMM_ERR_BAD_FORMAT when the images are not
 * 28 x 28. A missing file gives SMM_ERR_IO with a message naming the file and
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

#ifdef __cplusplus
}
#endif

#endif /* SKETCHMM_DATA_DATASET_H */
