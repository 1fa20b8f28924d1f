/*
 * sgemm_ladder_kernels.h - the matrix-multiplication variants of seed article 002
 * (a blog post comparing GCC autovectorisation and AVX2 intrinsics), written
 * afresh from its description as benchmark subjects, not library API.
 *
 * Every variant computes C += A * B for square row-major n x n matrices
 * (leading dimension n). The AVX2 variants need n to be a multiple of 64 and
 * the matrices 64-byte aligned (aligned loads and stores); the caller zeroes
 * C first when it wants the product itself.
 */
#ifndef SKETCHMM_BENCH_SGEMM_LADDER_KERNELS_H
#define SKETCHMM_BENCH_SGEMM_LADDER_KERNELS_H

#include <stdint.h>

typedef void (*sgemm_ladder_kernel)(int64_t n, const float *A, const float *B, float *C);

/*
 * blocked: 8 x 8 blocks of (k, j); for every row i and column j of the block
 * a scalar sum over the block's k, reading B down a column (the "gather").
 * n a multiple of 8.
 */
void sgemm_ladder_blocked(int64_t n, const float *A, const float *B, float *C);

/* saxpy: for each i and k, row i of C += A[i][k] * row k of B (i, k, j order). */
void sgemm_ladder_saxpy(int64_t n, const float *A, const float *B, float *C);

/* AVX2 + FMA variants (sgemm_ladder_kernels_avx2.c, x86_64 builds; the caller checks the CPU). */

/* saxpy_avx: saxpy with 256-bit FMAs and aligned loads and stores. */
void sgemm_ladder_saxpy_avx(int64_t n, const float *A, const float *B, float *C);

/*
 * tiled_avx: blocks of sgemm_ladder_block_height(n) values of k (rows of B) and
 * sgemm_ladder_block_width(n) columns; for each row i and 8-wide column chunk j a
 * 256-bit sum over the block's k, loaded from and stored back to C. The k
 * block is the outer loop, the column block the next.
 */
void sgemm_ladder_tiled_avx(int64_t n, const float *A, const float *B, float *C);

/*
 * tiled_avx_unrolled: tiled_avx with 8 independent 8-wide sums covering 64
 * columns at once, and the column block as the outermost loop.
 */
void sgemm_ladder_tiled_avx_unrolled(int64_t n, const float *A, const float *B, float *C);

/* The article's block sizes: height 8 for n >= 512, 16 for n >= 256, else 32; width 512 for n >= 256, else 256. */
int64_t sgemm_ladder_block_height(int64_t n);
int64_t sgemm_ladder_block_width(int64_t n);

#endif /* SKETCHMM_BENCH_SGEMM_LADDER_KERNELS_H */
