/*
 * data_common.c - what every part of sketchmm_data shares: freeing and
 * allocating matrices, error messages and the counter-based random numbers.
 * See data/dataset.h and data/data_internal.h.
 */
#include "data/dataset.h"
#include "data/data_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void dataset_matrix_free(dataset_matrix *m)
{
    if (m == NULL)
        return;
    free(m->data);
    dataset_matrix_clear(m);
}

void dataset_matrix_clear(dataset_matrix *m)
{
    if (m != NULL) {
        m->rows = 0;
        m->cols = 0;
        m->data = NULL;
    }
}

smm_status dataset_matrix_alloc(int64_t rows, int64_t cols, dataset_matrix *out)
{
    if (rows < 0 || cols < 0)
        return SMM_ERR_BAD_SIZE;
    float *data = NULL;
    if (rows > 0 && cols > 0) {
        if (cols > INT64_MAX / rows || (uint64_t)(rows * cols) > SIZE_MAX / sizeof(float))
            return SMM_ERR_OVERFLOW;
        data = malloc((size_t)(rows * cols) * sizeof(float));
        if (data == NULL)
            return SMM_ERR_NO_MEMORY;
    }
    out->rows = rows;
    out->cols = cols;
    out->data = data;
    return SMM_OK;
}

void dataset_msg(char *msg, size_t msg_size, const char *fmt, ...)
{
    if (msg == NULL || msg_size == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msg_size, fmt, ap);
    va_end(ap);
}

/* The splitmix64 finaliser: a bijective mix of 64 bits. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

uint64_t dataset_rng_u64(uint64_t seed, uint64_t stream, uint64_t index)
{
    uint64_t key = mix64(seed + stream * UINT64_C(0x9E3779B97F4A7C15));
    return mix64(key + (index + 1) * UINT64_C(0x9E3779B97F4A7C15));
}

double dataset_rng_uniform(uint64_t seed, uint64_t stream, uint64_t index)
{
    return ((double)(dataset_rng_u64(seed, stream, index) >> 11) + 1.0) * 0x1.0p-53;
}

void dataset_rng_gaussians(float *x, uint64_t n, uint64_t seed, uint64_t stream, uint64_t first)
{
    static const double two_pi = 6.283185307179586476925286766559;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t idx = first + i;
        uint64_t pair = idx / 2;
        double u1 = dataset_rng_uniform(seed, stream, 2 * pair);
        double u2 = dataset_rng_uniform(seed, stream, 2 * pair + 1);
        double r = sqrt(-2.0 * log(u1));
        double t = two_pi * u2;
        double z = (idx % 2 == 0) ? r * cos(t) : r * sin(t);
        x[i] = (float)z;
    }
}

const char *dataset_status_str(smm_status s)
{
    if (s == DATASET_ERR_IO)
        return "file could not be opened, read or written";
    if (s == DATASET_ERR_BAD_FORMAT)
        return "file contents do not match the expected format";
    return smm_status_str(s);
}
