/*
 * smallk_gemm.h - C := alpha * A B + beta * C for a short inner dimension
 * (1 <= k <= SMALLK_MAX_K), where the product is bounded by writing C, not by
 * multiply-adds: the rank-s product of the sketched-factor methods (C ~ AS *
 * SB, approx_classical.c), m x n outputs for only 2 k flops each.
 *
 * Nothing is packed but a strip's few A values: B (k x n) is read as it is,
 * row after row (it stays in the caches: k <= 32 rows), a strip of the
 * kernel's mr rows of C is written tile after tile along the row, and when C
 * is large and beta == 0 its whole 64-byte lines are written with
 * non-temporal (streaming) stores, which skip the read-for-ownership of
 * every line a regular store costs and do not evict the caches for data
 * nobody rereads soon.
 *
 * Arithmetic, per element of C, the same for every element, tile, strip and
 * thread count:
 *   ab = sum over p < k of A(i, p) * B(p, j), from 0 in increasing p, with
 *        fused multiply-adds on the SIMD paths (AVX2, AVX-512, NEON) and a
 *        separate multiply and add on the scalar path;
 *   c  := alpha * ab                (beta == 0: C is not read)
 *      := fma(beta, c, alpha * ab)  (SIMD paths; scalar: beta * c + alpha * ab)
 * This is exact_sgemm's arithmetic for k <= its kc (exact_sgemm_sum_depth,
 * 16 to 2048 depending on the configuration) on every path, so for k within
 * it and beta 0 or 1 the results equal exact_sgemm's bit for bit on the same
 * path; for another beta exact_sgemm's partial edge tiles add beta * c
 * without a fused multiply-add, so its last bits may differ there.
 */
#ifndef SMALLK_GEMM_H
#define SMALLK_GEMM_H

#include <stdint.h>

#include "common/smm_dispatch.h"
#include "common/smm_runtime.h"

/* The longest inner dimension taken. */
#define SMALLK_MAX_K 32

/* Bytes of C from which beta == 0 products stream their stores (beyond the L2 of a few cores). */
#define SMALLK_STREAM_BYTES (8.0 * 1024 * 1024)

/*
 * smallk_strip_fn - rows (1 <= rows <= the row's mr) rows of C, all n >= 1
 * columns: C[r * ldc + j] as the top comment says, for A(r, p) at
 * A[r * rsa + p * csa] (any strides), B(p, j) at B[p * ldb + j] and
 * 1 <= k <= SMALLK_MAX_K. Only the rows x n elements of C are read (beta !=
 * 0) or written. stream != 0 (beta == 0, ldc a multiple of 16, C 4-byte
 * aligned): the columns from the first 64-byte aligned one of row 0 on are
 * written in whole aligned 64-byte lines by non-temporal stores, ordered
 * (sfence) before the kernel returns; a path without such stores (scalar,
 * NEON) ignores it.
 */
typedef void (*smallk_strip_fn)(int64_t rows, int64_t n, int64_t k, float alpha, const float *A, int64_t rsa,
                                int64_t csa, const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                                int stream);

void smallk_strip_scalar(int64_t rows, int64_t n, int64_t k, float alpha, const float *A, int64_t rsa, int64_t csa,
                         const float *B, int64_t ldb, float beta, float *C, int64_t ldc, int stream);
#if defined(__x86_64__)
void smallk_strip_avx2_6x16(int64_t rows, int64_t n, int64_t k, float alpha, const float *A, int64_t rsa,
                            int64_t csa, const float *B, int64_t ldb, float beta, float *C, int64_t ldc, int stream);
void smallk_strip_avx512_12x32(int64_t rows, int64_t n, int64_t k, float alpha, const float *A, int64_t rsa,
                               int64_t csa, const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                               int stream);
#endif
#if defined(__aarch64__)
void smallk_strip_neon_8x12(int64_t rows, int64_t n, int64_t k, float alpha, const float *A, int64_t rsa,
                            int64_t csa, const float *B, int64_t ldb, float beta, float *C, int64_t ldc, int stream);
#endif

/* The kernel of one ISA path: a row of the table of smallk_gemm.c (common/smm_dispatch.h). */
typedef struct {
    smm_kernel_head head; /* "scalar", "avx2_6x16_stream", "avx512_12x32_stream" or "neon_8x12" */
    int mr;               /* rows per strip */
    smallk_strip_fn strip;
} smallk_kernels;

/* The row of path isa (never NULL; SMM_ISA_AUTO gives the scalar row). */
const smallk_kernels *smallk_kernels_for(smm_isa isa);

/*
 * C := alpha * op(A) op(B) + beta * C on path ctx->isa with ctx->threads
 * threads (strips of rows, each computed whole by one thread: the result
 * does not depend on the thread count), for m, n >= 1, 1 <= k <=
 * SMALLK_MAX_K, op(A) (m x k) element (i, p) at A[i * rsa + p * csa],
 * op(B) (k x n) element (p, j) at B[p * rsb + j * csb], and C (m x n)
 * element (i, j) at C[i * rs_c + j * cs_c] with one of rs_c, cs_c 1 (the
 * other >= the extent). A column-major C is computed as the row-major
 * C^T = op(B)^T op(A)^T. op(B) is read in place when its rows (of the
 * product as computed) are contiguous, else copied first (k x n floats).
 * Streams when beta == 0, C spans at least SMALLK_STREAM_BYTES and its rows
 * are 64-byte multiples apart. The arguments are not checked (an internal
 * entry: the callers validated them). SMM_OK, or SMM_ERR_NO_MEMORY (the copy)
 * with C untouched.
 */
smm_status smallk_gemm(const smm_context *ctx, int64_t m, int64_t n, int64_t k, float alpha, const float *A,
                       int64_t rsa, int64_t csa, const float *B, int64_t rsb, int64_t csb, float beta, float *C,
                       int64_t rs_c, int64_t cs_c);

#endif /* SMALLK_GEMM_H */
