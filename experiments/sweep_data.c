/*
 * sweep_data.c - the input vectors of a sweep mode. See sweep.h.
 */
#include <stdio.h>
#include <string.h>

#include "sweep.h"

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
    case SWEEP_DATA_FASHION_MNIST:
        break;
    }
    return SMM_ERR_BAD_ARGUMENT;
}

/* The first `count` images of a Fashion-MNIST split; an error when it has fewer. */
static smm_status load_split(const sweep_config *cfg, const char *split, int64_t count,
                             dataset_matrix *X, char *msg, size_t msg_size)
{
    smm_status s = dataset_load_fashion_mnist(cfg->data_dir, split, count, X, msg, msg_size);
    if (s == SMM_OK && X->rows < count) {
        snprintf(msg, msg_size, "Fashion-MNIST split %s has only %lld images, %lld needed", split,
                 (long long)X->rows, (long long)count);
        dataset_matrix_free(X);
        s = SMM_ERR_BAD_ARGUMENT;
    }
    return s;
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
    int shared = cfg->data != SWEEP_DATA_FASHION_MNIST || strcmp(split_a, split_b) == 0;
    if (shared) {
        /* One matrix: the first na rows and the nb after them. */
        s = cfg->data == SWEEP_DATA_FASHION_MNIST
                ? load_split(cfg, split_a, na + nb, &v->own[0], msg, msg_size)
                : generate(cfg, na + nb, &v->own[0]);
        if (s != SMM_OK)
            return s;
        v->a = v->own[0].data;
        v->b = v->own[0].data + na * v->own[0].cols;
        v->k = v->own[0].cols;
    } else {
        s = load_split(cfg, split_a, na, &v->own[0], msg, msg_size);
        if (s == SMM_OK)
            s = load_split(cfg, split_b, nb, &v->own[1], msg, msg_size);
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

void sweep_data_params(const sweep_config *cfg, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    if (cfg->data == SWEEP_DATA_FASHION_MNIST) {
        used += (size_t)snprintf(buf + used, size - used, "%s", dataset_fashion_mnist_dir(cfg->data_dir));
        if ((cfg->modes & SWEEP_MODE_DENSE) && used < size)
            used += (size_t)snprintf(buf + used, size - used,
                                     "; dense: A = train images 0..%lld, B = train images %lld..%lld",
                                     (long long)cfg->m - 1, (long long)cfg->m,
                                     (long long)(cfg->m + cfg->n - 1));
        if ((cfg->modes & SWEEP_MODE_TOPK) && used < size)
            snprintf(buf + used, size - used,
                     "; topk: queries = t10k images 0..%lld, database = train images 0..%lld",
                     (long long)cfg->queries - 1, (long long)cfg->database - 1);
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
    case SWEEP_DATA_FASHION_MNIST:
        break;
    }
    if (used < size)
        snprintf(buf + used, size - used, "; vectors 0.. are A (dense) or the queries (topk), the rest B or the database");
}
