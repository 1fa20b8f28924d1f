/*
 * bench_matrix.h - matrices for the benchmarks: 64-byte aligned allocation,
 * deterministic pseudo-random contents in [-1, 1], and comparisons.
 *
 * A matrix here is `lines` lines (rows of a row-major matrix, columns of a
 * column-major one) of `length` floats each, `ld` floats apart.
 */
#ifndef SKETCHMM_BENCH_MATRIX_H
#define SKETCHMM_BENCH_MATRIX_H

#include <stdint.h>

/* count floats, 64-byte aligned, uninitialised; prints a message and exits with status 1 when out of memory. */
float *bench_alloc_floats(int64_t count);

/* Free memory from bench_alloc_floats (NULL is allowed). */
void bench_free_floats(float *p);

/*
 * The value bench_fill puts at (line, index): a hash of (seed, line, index)
 * mapped to [-1, 1], the same whatever the leading dimension.
 */
float bench_value_at(uint64_t seed, int64_t line, int64_t index);

/* Fill a matrix with bench_value_at(seed, line, index); padding is left alone. */
void bench_fill(float *x, int64_t lines, int64_t length, int64_t ld, uint64_t seed);

/* Set every entry (not the padding) to zero. */
void bench_zero(float *x, int64_t lines, int64_t length, int64_t ld);

/* max |x| over the entries (0 for an empty matrix). */
double bench_max_abs(const float *x, int64_t lines, int64_t length, int64_t ld);

/* max |x - y| over the entries; +Inf if any difference is NaN. */
double bench_max_abs_diff(const float *x, int64_t ldx, const float *y, int64_t ldy, int64_t lines, int64_t length);

#endif /* SKETCHMM_BENCH_MATRIX_H */
