/*
 * sgemm_padded_kernels.h - two plain C products used to show what padding the
 * leading dimension buys: a naive one that reads B down its columns (with a
 * power-of-two row stride every element of a column falls in the same cache
 * set) and a simple cache-tiled one.
 *
 * Both compute the first `rows` rows of C = A * B for n x n row-major
 * matrices that share the leading dimension ld >= n, overwriting them.
 */
#ifndef SKETCHMM_BENCH_SGEMM_PADDED_KERNELS_H
#define SKETCHMM_BENCH_SGEMM_PADDED_KERNELS_H

#include <stdint.h>

/* C[i][j] = sum_k A[i][k] * B[k][j] in i, j, k order: one float sum per entry, B walked down column j. */
void padded_naive(int64_t n, int64_t rows, const float *A, const float *B, float *C, int64_t ld);

/* The same product in PADDED_TILE^3 blocks (i, j, k blocks; i, k, j inside a block). */
#define PADDED_TILE 64
void padded_tiled(int64_t n, int64_t rows, const float *A, const float *B, float *C, int64_t ld);

#endif /* SKETCHMM_BENCH_SGEMM_PADDED_KERNELS_H */
