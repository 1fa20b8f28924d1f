/*
 * synthetic.c - seeded, counter-based generators of test matrices. See
 * data/dataset.h.
 *
 * Random numbers
 *   dataset_rng_u64(seed, stream, index) (data_common.c) hashes its three
 *   arguments with the splitmix64 finaliser, so every number is addressed by
 *   its index and no generator state is carried between calls; so are the
 *   Gaussian numbers of dataset_rng_gaussians.
 */
#include "data/dataset.h"
#include "data/data_internal.h"

#include <math.h>
#include <stdlib.h>

/* Scale v[0..n) to unit Euclidean norm (left as is when it is 0). */
static void normalise(float *v, int64_t n)
{
    double ss = 0.0;
    for (int64_t j = 0; j < n; j++)
        ss += (double)v[j] * (double)v[j];
    if (ss > 0.0) {
        double inv = 1.0 / sqrt(ss);
        for (int64_t j = 0; j < n; j++)
            v[j] = (float)((double)v[j] * inv);
    }
}

smm_status dataset_gaussian(int64_t rows, int64_t cols, uint64_t seed,
                            dataset_matrix *out)
{
    dataset_matrix_clear(out);
    if (out == NULL)
        return SMM_ERR_NULL_POINTER;
    smm_status s = dataset_matrix_alloc(rows, cols, out);
    if (s != SMM_OK)
        return s;
    if (out->data != NULL)
        dataset_rng_gaussians(out->data, (uint64_t)(rows * cols), seed, DATASET_STREAM_GAUSSIAN, 0);
    return SMM_OK;
}

smm_status dataset_lowrank(int64_t rows, int64_t cols, int64_t rank,
                           double noise, uint64_t seed, dataset_matrix *out)
{
    dataset_matrix_clear(out);
    if (out == NULL)
        return SMM_ERR_NULL_POINTER;
    if (rows < 0 || cols < 0)
        return SMM_ERR_BAD_SIZE;
    if (rank < 1 || !(noise >= 0.0) || !isfinite(noise))
        return SMM_ERR_BAD_ARGUMENT;
    /* Only min(rows, cols) factors can matter, but the factors are generated
       as asked, so a larger rank is valid; it must fit the factor arrays. */
    int64_t big = rows > cols ? rows : cols;
    if (big > 0 && (rank > INT64_MAX / big || (uint64_t)(rank * big) > SIZE_MAX / sizeof(float)))
        return SMM_ERR_OVERFLOW;
    smm_status s = dataset_matrix_alloc(rows, cols, out);
    if (s != SMM_OK)
        return s;
    if (out->data == NULL)
        return SMM_OK;

    float *U = malloc((size_t)(rows * rank) * sizeof(float));
    float *V = malloc((size_t)(cols * rank) * sizeof(float));
    float *E = malloc((size_t)cols * sizeof(float));
    if (U == NULL || V == NULL || E == NULL) {
        free(U);
        free(V);
        free(E);
        dataset_matrix_free(out);
        return SMM_ERR_NO_MEMORY;
    }
    dataset_rng_gaussians(U, (uint64_t)(rows * rank), seed, DATASET_STREAM_LOWRANK_U, 0);
    dataset_rng_gaussians(V, (uint64_t)(cols * rank), seed, DATASET_STREAM_LOWRANK_V, 0);

    double scale = 1.0 / sqrt((double)rank);
    for (int64_t i = 0; i < rows; i++) {
        const float *u = U + i * rank;
        float *x = out->data + i * cols;
        dataset_rng_gaussians(E, (uint64_t)cols, seed, DATASET_STREAM_LOWRANK_NOISE, (uint64_t)(i * cols));
        for (int64_t j = 0; j < cols; j++) {
            const float *v = V + j * rank;
            double dot = 0.0;
            for (int64_t r = 0; r < rank; r++)
                dot += (double)u[r] * (double)v[r];
            x[j] = (float)(dot * scale + noise * (double)E[j]);
        }
    }
    free(U);
    free(V);
    free(E);
    return SMM_OK;
}

smm_status dataset_clustered(int64_t rows, int64_t cols, int64_t clusters,
                             double alignment, uint64_t seed,
                             dataset_matrix *out, int32_t *labels)
{
    dataset_matrix_clear(out);
    if (out == NULL)
        return SMM_ERR_NULL_POINTER;
    if (rows < 0 || cols < 0)
        return SMM_ERR_BAD_SIZE;
    if (clusters < 1 || clusters > INT32_MAX || !(alignment >= 0.0 && alignment <= 1.0))
        return SMM_ERR_BAD_ARGUMENT;
    smm_status s = dataset_matrix_alloc(rows, cols, out);
    if (s != SMM_OK)
        return s;
    for (int64_t i = 0; labels != NULL && i < rows; i++)
        labels[i] = (int32_t)(i % clusters);
    if (out->data == NULL)
        return SMM_OK;

    /* Only clusters that own a row need a centre. */
    int64_t used = clusters < rows ? clusters : rows;
    if (cols > INT64_MAX / used || (uint64_t)(used * cols) > SIZE_MAX / sizeof(float)) {
        dataset_matrix_free(out);
        return SMM_ERR_OVERFLOW;
    }
    float *centres = malloc((size_t)(used * cols) * sizeof(float));
    if (centres == NULL) {
        dataset_matrix_free(out);
        return SMM_ERR_NO_MEMORY;
    }
    for (int64_t c = 0; c < used; c++) {
        dataset_rng_gaussians(centres + c * cols, (uint64_t)cols, seed, DATASET_STREAM_CLUSTER_CENTRES,
                      (uint64_t)(c * cols));
        normalise(centres + c * cols, cols);
    }

    double wc = sqrt(alignment), wz = sqrt(1.0 - alignment);
    for (int64_t i = 0; i < rows; i++) {
        float *x = out->data + i * cols;
        const float *c = centres + (i % clusters) * cols;
        dataset_rng_gaussians(x, (uint64_t)cols, seed, DATASET_STREAM_CLUSTER_NOISE, (uint64_t)(i * cols));
        normalise(x, cols);
        for (int64_t j = 0; j < cols; j++)
            x[j] = (float)(wc * (double)c[j] + wz * (double)x[j]);
    }
    free(centres);
    return SMM_OK;
}
