/*
 * synthetic.c - seeded, counter-based generators of test matrices. See
 * data/dataset.h.
 *
 * Random numbers
 *   rng_u64(seed, stream, index) hashes its three arguments with the
 *   splitmix64 finaliser, so every number is addressed by its index and no
 *   generator state is carried between calls. Gaussian number `index` of a
 *   stream is one half of a Box-Muller pair built from the uniforms with
 *   indices 2 * (index / 2) and 2 * (index / 2) + 1.
 */
#include "data/dataset.h"

#include <math.h>
#include <stdlib.h>

/* Streams: every independent random array of a generator has its own. */
enum {
    STREAM_GAUSSIAN = 1,
    STREAM_LOWRANK_U = 2,
    STREAM_LOWRANK_V = 3,
    STREAM_LOWRANK_NOISE = 4,
    STREAM_CLUSTER_CENTRES = 5,
    STREAM_CLUSTER_NOISE = 6
};

static const double TWO_PI = 6.283185307179586476925286766559;

/* The splitmix64 finaliser: a bijective mix of 64 bits. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Random 64 bits addressed by (seed, stream, index). */
static uint64_t rng_u64(uint64_t seed, uint64_t stream, uint64_t index)
{
    uint64_t key = mix64(seed + stream * UINT64_C(0x9E3779B97F4A7C15));
    return mix64(key + (index + 1) * UINT64_C(0x9E3779B97F4A7C15));
}

/* Uniform in (0, 1]: never 0, so log() is safe. */
static double rng_uniform_open0(uint64_t seed, uint64_t stream, uint64_t index)
{
    return ((double)(rng_u64(seed, stream, index) >> 11) + 1.0) * 0x1.0p-53;
}

/* Fill x[0..n) with the N(0, 1) numbers first .. first + n - 1 of a stream. */
static void fill_gaussian(float *x, uint64_t n, uint64_t seed, uint64_t stream, uint64_t first)
{
    for (uint64_t i = 0; i < n; i++) {
        uint64_t idx = first + i;
        uint64_t pair = idx / 2;
        double u1 = rng_uniform_open0(seed, stream, 2 * pair);
        double u2 = rng_uniform_open0(seed, stream, 2 * pair + 1);
        double r = sqrt(-2.0 * log(u1));
        double t = TWO_PI * u2;
        double z = (idx % 2 == 0) ? r * cos(t) : r * sin(t);
        x[i] = (float)z;
    }
}

/* Check sizes and allocate rows x cols floats into *out. */
static smm_status alloc_matrix(int64_t rows, int64_t cols, dataset_matrix *out)
{
    if (rows < 0 || cols < 0)
        return SMM_ERR_BAD_SIZE;
    if (rows > 0 && cols > 0) {
        if (cols > INT64_MAX / rows || (uint64_t)(rows * cols) > SIZE_MAX / sizeof(float))
            return SMM_ERR_OVERFLOW;
        out->data = malloc((size_t)(rows * cols) * sizeof(float));
        if (out->data == NULL)
            return SMM_ERR_NO_MEMORY;
    }
    out->rows = rows;
    out->cols = cols;
    return SMM_OK;
}

static void clear_matrix(dataset_matrix *out)
{
    if (out != NULL) {
        out->rows = 0;
        out->cols = 0;
        out->data = NULL;
    }
}

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
    clear_matrix(out);
    if (out == NULL)
        return SMM_ERR_NULL_POINTER;
    smm_status s = alloc_matrix(rows, cols, out);
    if (s != SMM_OK)
        return s;
    if (out->data != NULL)
        fill_gaussian(out->data, (uint64_t)(rows * cols), seed, STREAM_GAUSSIAN, 0);
    return SMM_OK;
}

smm_status dataset_lowrank(int64_t rows, int64_t cols, int64_t rank,
                           double noise, uint64_t seed, dataset_matrix *out)
{
    clear_matrix(out);
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
    smm_status s = alloc_matrix(rows, cols, out);
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
    fill_gaussian(U, (uint64_t)(rows * rank), seed, STREAM_LOWRANK_U, 0);
    fill_gaussian(V, (uint64_t)(cols * rank), seed, STREAM_LOWRANK_V, 0);

    double scale = 1.0 / sqrt((double)rank);
    for (int64_t i = 0; i < rows; i++) {
        const float *u = U + i * rank;
        float *x = out->data + i * cols;
        fill_gaussian(E, (uint64_t)cols, seed, STREAM_LOWRANK_NOISE, (uint64_t)(i * cols));
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
    clear_matrix(out);
    if (out == NULL)
        return SMM_ERR_NULL_POINTER;
    if (rows < 0 || cols < 0)
        return SMM_ERR_BAD_SIZE;
    if (clusters < 1 || clusters > INT32_MAX || !(alignment >= 0.0 && alignment <= 1.0))
        return SMM_ERR_BAD_ARGUMENT;
    smm_status s = alloc_matrix(rows, cols, out);
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
        fill_gaussian(centres + c * cols, (uint64_t)cols, seed, STREAM_CLUSTER_CENTRES,
                      (uint64_t)(c * cols));
        normalise(centres + c * cols, cols);
    }

    double wc = sqrt(alignment), wz = sqrt(1.0 - alignment);
    for (int64_t i = 0; i < rows; i++) {
        float *x = out->data + i * cols;
        const float *c = centres + (i % clusters) * cols;
        fill_gaussian(x, (uint64_t)cols, seed, STREAM_CLUSTER_NOISE, (uint64_t)(i * cols));
        normalise(x, cols);
        for (int64_t j = 0; j < cols; j++)
            x[j] = (float)(wc * (double)c[j] + wz * (double)x[j]);
    }
    free(centres);
    return SMM_OK;
}
