/*
 * brgemm_jit.h - generated batch-reduce GEMM kernels (library-internal):
 * the description a kernel is written for, its entry points, and the
 * writers (brgemm_jit_x86.c for AVX-512 and AVX2, brgemm_jit_a64.c for
 * NEON) that the kernel table of brgemm.c names per ISA path.
 *
 * A generated kernel computes the whole product of one description, in the
 * column-major view of brgemm_kernels.h:
 *
 *     C := beta * C + alpha * sum_{i < batch} A_i * B_i     (m x n)
 *
 * with A_i element (r, p) at a_i[r + p * lda] (rows contiguous), B_i element
 * (p, j) at b_i[p * b_step + j * b_col] (any strides: BRGEMM has b_step = 1,
 * b_col = ldb; the small products of exact_sgemm use others), C element
 * (r, j) at C[r + j * ldc]. Everything but the addresses and the batch count
 * is fixed in the code: sizes, strides and leading dimensions become
 * displacements and loop counts, alpha and beta constants (the update is
 * chosen at generation: c := alpha acc when beta == 0, c + acc when
 * alpha == beta == 1, else fma(beta, c, alpha acc)).
 *
 * Arithmetic: every element is accumulated from +0 over i, then p, in
 * increasing order with fused multiply-adds, then updated as above: exactly
 * the operations of the precompiled tiles and rank-1 kernels of the same
 * path, so a generated kernel gives their bits (NaN payloads aside when two
 * NaNs meet in one operation: which one survives may differ).
 *
 * Contract of a call: batch >= 1; m, n, k >= 1; beta == 0 means C is not
 * read; only the m x n elements of C are written; A_i, B_i and C addressable
 * as described (nothing outside them is read).
 */
#ifndef EXACT_BRGEMM_JIT_H
#define EXACT_BRGEMM_JIT_H

#include <stdint.h>

#include "exact/jit_buf.h"
#include "exact/jit_cache.h"

/* What a kernel is written for (the cache key: zero-initialise before filling). */
typedef struct {
    int32_t isa;                 /* smm_isa of the code */
    int32_t reserved;            /* 0 */
    int64_t m, n, k;
    int64_t lda, ldc;            /* elements */
    int64_t b_step, b_col;       /* B_i (p, j) at b_i[p * b_step + j * b_col] */
    int64_t stride_a, stride_b;  /* elements from A_i to A_{i+1}, B_i to B_{i+1} (strided entry) */
    uint32_t alpha_bits, beta_bits;
} brgemm_jit_desc;

/*
 * The entry points: entry 0 takes A and B as the first matrices of strided
 * batches (A_i = A + i * stride_a, ...), entry 1 as arrays of pointers
 * (A_i = A[i], B_i = B[i]). Both return 0 (SMM_OK), so that a caller can
 * return what the kernel returns (a tail call).
 */
enum { BRGEMM_JIT_STRIDED = 0, BRGEMM_JIT_POINTERS = 1 };
typedef int (*brgemm_jit_fn)(const void *a, const void *b, float *c, int64_t batch);

/*
 * Whether every size, leading dimension and stride of d is at most 2^40, so
 * a writer's displacement arithmetic (a few of them times small factors, in
 * int64_t) cannot overflow; larger ones (one-line operands may have any
 * leading dimension) get no kernel.
 */
static inline int brgemm_jit_sizes_ok(const brgemm_jit_desc *d)
{
    const int64_t lim = (int64_t)1 << 40, v[] = { d->m, d->n, d->k, d->lda, d->ldc, d->b_step, d->b_col,
                                                  d->stride_a, d->stride_b };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (v[i] < 0 || v[i] > lim)
            return 0;
    return 1;
}

/* The writers (jit_writer of jit_cache.h); each returns 0 for a description it cannot express. */
#if defined(__x86_64__)
int brgemm_jit_write_x86(const void *desc, jit_buf *b, jit_entries *entries);
#endif
#if defined(__aarch64__)
int brgemm_jit_write_a64(const void *desc, jit_buf *b, jit_entries *entries);
#endif

#endif /* EXACT_BRGEMM_JIT_H */
