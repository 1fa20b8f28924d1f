/*
 * data/data_internal.h - helpers shared by the source files of sketchmm_data
 * (not installed, not for the tools): error messages, matrix allocation and
 * the counter-based random numbers of the generators.
 */
#ifndef SKETCHMM_DATA_INTERNAL_H
#define SKETCHMM_DATA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "data/dataset.h"

/* vsnprintf into msg when the caller gave a buffer (msg != NULL, msg_size > 0). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void dataset_msg(char *msg, size_t msg_size, const char *fmt, ...);

/* Set *m to {0, 0, NULL} (m may be NULL). */
void dataset_matrix_clear(dataset_matrix *m);

/*
 * Allocate rows x cols floats into *out and set its shape (data stays NULL
 * when a dimension is 0). SMM_ERR_BAD_SIZE for a negative dimension,
 * SMM_ERR_OVERFLOW, SMM_ERR_NO_MEMORY; *out is untouched on failure.
 */
smm_status dataset_matrix_alloc(int64_t rows, int64_t cols, dataset_matrix *out);

/* Random 64 bits addressed by (seed, stream, index): splitmix64 mixing, no state. */
uint64_t dataset_rng_u64(uint64_t seed, uint64_t stream, uint64_t index);

/* Uniform in (0, 1], addressed like dataset_rng_u64 (never 0, so log() is safe). */
double dataset_rng_uniform(uint64_t seed, uint64_t stream, uint64_t index);

/*
 * Fill x[0..n) with the N(0, 1) numbers first .. first + n - 1 of a stream:
 * number `index` is one half of a Box-Muller pair built from the uniforms
 * with indices 2 * (index / 2) and 2 * (index / 2) + 1.
 */
void dataset_rng_gaussians(float *x, uint64_t n, uint64_t seed, uint64_t stream, uint64_t first);

/*
 * Streams of the generators: every independent random array has its own, so
 * generators never share numbers.
 */
enum {
    DATASET_STREAM_GAUSSIAN = 1,
    DATASET_STREAM_LOWRANK_U = 2,
    DATASET_STREAM_LOWRANK_V = 3,
    DATASET_STREAM_LOWRANK_NOISE = 4,
    DATASET_STREAM_CLUSTER_CENTRES = 5,
    DATASET_STREAM_CLUSTER_NOISE = 6,
    DATASET_STREAM_DIGITS = 7,
    DATASET_STREAM_TEXTURE = 8
};

#endif /* SKETCHMM_DATA_INTERNAL_H */
