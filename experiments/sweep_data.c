/*
 * sweep_data.c - the input vectors of a sweep context: Fashion-MNIST,
 * synthetic data, a matrix of an HDF5 file or an ann-benchmarks file. See
 * sweep.h.
 */
#include <stdio.h>
#include <string.h>

#include "sweep_data.h"

const char *const sweep_data_names[SWEEP_NUM_DATA] = { "fashion-mnist", "gaussian", "lowrank", "clustered",
                                                       "h5",            "ann",      "texture" };

/* Fashion-MNIST: 60000 training and 10000 test images. */
#define SWEEP_FMNIST_TRAIN 60000
#define SWEEP_FMNIST_TEST 10000

/* Longest FILE of an h5 data set "FILE:/PATH". */
#define SWEEP_DATA_FILE_MAX 4096

/* count vectors of cfg's synthetic data set, one per row. */
static smm_status generate(const sweep_config *cfg, int64_t count, dataset_matrix *X)
{
    switch (cfg->data) {
    case SWEEP_DATA_GAUSSIAN:
        return dataset_gaussian(count, cfg->k, cfg->seed, X);
    case SWEEP_DATA_LOWRANK:
        return dataset_lowrank(count, cfg->k, cfg->rank, cfg->noise, cfg->seed, X);
    case SWEEP_DATA_CLUSTERED:
        return dataset_clustered(count, cfg->k, cfg->clusters, cfg->alignment, cfg->seed, X, NULL);
    case SWEEP_DATA_TEXTURE:
        return dataset_texture(count, cfg->k, cfg->beta, cfg->seed, X);
    case SWEEP_DATA_FASHION_MNIST:
    case SWEEP_DATA_H5:
    case SWEEP_DATA_ANN:
        break;
    }
    return SMM_ERR_BAD_ARGUMENT;
}

/* The file and dataset path of an h5 data set ("FILE:/PATH") into file and *path. */
static smm_status h5_spec(const sweep_config *cfg, char *file, size_t file_size, const char **path,
                          char *msg, size_t msg_size)
{
    smm_status s = dataset_h5_split_spec(cfg->data_file != NULL ? cfg->data_file : "", file, file_size, path);
    if (s != SMM_OK)
        snprintf(msg, msg_size, "data set \"%s\": expected FILE.h5:/PATH (the path of a 2-D dataset in the file)",
                 cfg->data_file != NULL ? cfg->data_file : "");
    return s;
}

/*
 * The first `count` vectors of one pool of a file or Fashion-MNIST data set:
 * split "train" or "t10k" (Fashion-MNIST splits; for ann files /train and
 * /test; ignored by h5 matrices). An error when the pool has fewer.
 */
static smm_status load_pool(const sweep_config *cfg, const char *split, int64_t count,
                            dataset_matrix *X, char *msg, size_t msg_size)
{
    smm_status s;
    const char *what = split;
    char file[SWEEP_DATA_FILE_MAX];
    switch (cfg->data) {
    case SWEEP_DATA_H5:
        s = h5_spec(cfg, file, sizeof file, &what, msg, msg_size);
        if (s == SMM_OK)
            s = dataset_load_h5_matrix(file, what, count, X, msg, msg_size);
        break;
    case SWEEP_DATA_ANN:
        what = strcmp(split, "train") == 0 ? "/train" : "/test";
        s = dataset_load_h5_matrix(cfg->data_file, what, count, X, msg, msg_size);
        break;
    default:
        s = dataset_load_fashion_mnist(cfg->data_dir, split, count, X, msg, msg_size);
        break;
    }
    if (s == SMM_OK && X->rows < count) {
        snprintf(msg, msg_size, "%s %s has only %lld vectors, %lld needed", sweep_data_names[cfg->data], what,
                 (long long)X->rows, (long long)count);
        dataset_matrix_free(X);
        s = SMM_ERR_BAD_ARGUMENT;
    }
    return s;
}

static int is_synthetic(sweep_data_kind d)
{
    return d == SWEEP_DATA_GAUSSIAN || d == SWEEP_DATA_LOWRANK || d == SWEEP_DATA_CLUSTERED ||
           d == SWEEP_DATA_TEXTURE;
}

void sweep_vectors_free(sweep_vectors *v)
{
    dataset_matrix_free(&v->own[0]);
    dataset_matrix_free(&v->own[1]);
    memset(v, 0, sizeof *v);
}

smm_status sweep_load_vectors(const sweep_config *cfg, const char *split_a, int64_t na,
                              const char *split_b, int64_t nb, sweep_vectors *v,
                              char *msg, size_t msg_size)
{
    memset(v, 0, sizeof *v);
    msg[0] = '\0';
    smm_status s;
    int shared = is_synthetic(cfg->data) || cfg->data == SWEEP_DATA_H5 || strcmp(split_a, split_b) == 0;
    if (shared) {
        /* One matrix: the first na rows and the nb after them. */
        s = is_synthetic(cfg->data) ? generate(cfg, na + nb, &v->own[0])
                                    : load_pool(cfg, split_a, na + nb, &v->own[0], msg, msg_size);
        if (s != SMM_OK)
            return s;
        v->a = v->own[0].data;
        v->b = v->own[0].data + na * v->own[0].cols;
        v->k = v->own[0].cols;
    } else {
        s = load_pool(cfg, split_a, na, &v->own[0], msg, msg_size);
        if (s == SMM_OK)
            s = load_pool(cfg, split_b, nb, &v->own[1], msg, msg_size);
        if (s != SMM_OK) {
            sweep_vectors_free(v);
            return s;
        }
        v->a = v->own[0].data;
        v->b = v->own[1].data;
        v->k = v->own[0].cols;
    }
    v->na = na;
    v->nb = nb;
    return SMM_OK;
}

smm_status sweep_data_get_shape(const sweep_config *cfg, sweep_data_kind data, unsigned mode,
                                sweep_data_shape *shape, char *msg, size_t msg_size)
{
    msg[0] = '\0';
    *shape = (sweep_data_shape){ cfg->k, INT64_MAX, INT64_MAX, 1 };
    int topk = mode == SWEEP_MODE_TOPK;
    smm_status s = SMM_OK;
    switch (data) {
    case SWEEP_DATA_GAUSSIAN:
    case SWEEP_DATA_LOWRANK:
    case SWEEP_DATA_CLUSTERED:
    case SWEEP_DATA_TEXTURE:
        break;
    case SWEEP_DATA_FASHION_MNIST:
        *shape = topk ? (sweep_data_shape){ DATASET_FASHION_MNIST_DIM, SWEEP_FMNIST_TEST, SWEEP_FMNIST_TRAIN, 0 }
                      : (sweep_data_shape){ DATASET_FASHION_MNIST_DIM, SWEEP_FMNIST_TRAIN, SWEEP_FMNIST_TRAIN, 1 };
        break;
    case SWEEP_DATA_H5: {
        char file[SWEEP_DATA_FILE_MAX];
        const char *path;
        s = h5_spec(cfg, file, sizeof file, &path, msg, msg_size);
        if (s == SMM_OK)
            s = dataset_h5_matrix_shape(file, path, &shape->pool_a, &shape->k, msg, msg_size);
        shape->pool_b = shape->pool_a;
        break;
    }
    case SWEEP_DATA_ANN: {
        int64_t train = 0, test = 0;
        s = dataset_ann_shape(cfg->data_file, &train, &test, &shape->k, NULL, msg, msg_size);
        *shape = topk ? (sweep_data_shape){ shape->k, test, train, 0 }
                      : (sweep_data_shape){ shape->k, train, train, 1 };
        break;
    }
    }
    return s;
}

const char *sweep_data_label(const sweep_config *cfg, sweep_data_kind d, char *buf, size_t size)
{
    const char *file = cfg->data_file != NULL ? cfg->data_file : "";
    if (d == SWEEP_DATA_ANN)
        snprintf(buf, size, "ann:%s", file);
    else if (d == SWEEP_DATA_H5)
        snprintf(buf, size, "%s", file);
    else
        snprintf(buf, size, "%s", sweep_data_names[d]);
    return buf;
}

void sweep_data_params(const sweep_config *cfg, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    if (cfg->data == SWEEP_DATA_FASHION_MNIST || cfg->data == SWEEP_DATA_ANN) {
        int fm = cfg->data == SWEEP_DATA_FASHION_MNIST;
        const char *train = fm ? "train images" : "/train rows", *test = fm ? "t10k images" : "/test rows";
        used += (size_t)snprintf(buf + used, size - used, "%s",
                                 fm ? dataset_fashion_mnist_dir(cfg->data_dir) : cfg->data_file);
        if ((cfg->modes & SWEEP_MODE_DENSE) && used < size)
            used += (size_t)snprintf(buf + used, size - used, "; dense: A = %s 0..%lld, B = %s %lld..%lld",
                                     train, (long long)cfg->m - 1, train, (long long)cfg->m,
                                     (long long)(cfg->m + cfg->n - 1));
        if ((cfg->modes & SWEEP_MODE_TOPK) && used < size)
            snprintf(buf + used, size - used, "; topk: queries = %s 0..%lld, database = %s 0..%lld", test,
                     (long long)cfg->queries - 1, train, (long long)cfg->database - 1);
        return;
    }
    switch (cfg->data) {
    case SWEEP_DATA_GAUSSIAN:
        used += (size_t)snprintf(buf, size, "iid N(0,1)");
        break;
    case SWEEP_DATA_LOWRANK:
        used += (size_t)snprintf(buf, size, "rank=%lld noise=%g", (long long)cfg->rank, cfg->noise);
        break;
    case SWEEP_DATA_CLUSTERED:
        used += (size_t)snprintf(buf, size, "clusters=%lld alignment=%g", (long long)cfg->clusters,
                                 cfg->alignment);
        break;
    case SWEEP_DATA_TEXTURE:
        used += (size_t)snprintf(buf, size, "texture-like images, spectrum 1/f^%g", cfg->beta);
        break;
    case SWEEP_DATA_H5:
        used += (size_t)snprintf(buf, size, "%s (rows of the matrix)", cfg->data_file);
        break;
    case SWEEP_DATA_FASHION_MNIST:
    case SWEEP_DATA_ANN:
        break;
    }
    if (used < size)
        snprintf(buf + used, size - used, "; vectors 0.. are A (dense) or the queries (topk), the rest B or the database");
}
