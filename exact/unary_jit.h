/*
 * unary_jit.h - generated kernels of the unary primitives (library-internal):
 * the description a kernel is written for and the writers
 * (unary_jit_x86.c for AVX-512 and AVX2, unary_jit_a64.c for NEON) that the
 * kernel table of unary.c names per ISA path.
 *
 * On the row-major view of unary.c (rows of contiguous elements):
 * - copy: one entry, B[r * ldb + c] = op(A[r * lda + c]) for r < rows (an
 *   argument), c < cols; UNARY_ZERO does not read A.
 * - transpose: B[r * ldb + c] = op(A[c * lda + r]) on the blocks of
 *   unary.c's transpose driver (UNARY_BLOCK_ROWS x UNARY_BLOCK_COLS), one
 *   entry per block shape: 0 (rows_full x cols_full), 1 (rows_last x
 *   cols_full), 2 (rows_full x cols_last), 3 (rows_last x cols_last), each
 *   taking the block's first element of A and of B.
 * lda, ldb and the sizes are constants of the code. With stream set, B's
 * rows are 64-byte aligned (B and ldb) and whole aligned vectors of B go out
 * with non-temporal stores, followed by a store fence.
 *
 * The results are those of the precompiled kernels and the scalar twins bit
 * for bit: the operations move or compare values and never round (ReLU keeps
 * NaN payloads and -0, as unary.h says).
 */
#ifndef EXACT_UNARY_JIT_H
#define EXACT_UNARY_JIT_H

#include <stdint.h>

#include "exact/jit_buf.h"
#include "exact/jit_cache.h"

/* What a kernel is written for (the cache key: zero-initialise before filling). */
typedef struct {
    int32_t isa;       /* smm_isa of the code */
    int32_t op;        /* unary_op */
    int32_t transpose; /* 0: copy, 1: transpose */
    int32_t stream;    /* non-temporal stores */
    int64_t lda, ldb;  /* lda 0 for UNARY_ZERO */
    int64_t cols;      /* copy: the row length */
    int64_t rows_full, rows_last, cols_full, cols_last; /* transpose: the block shapes */
} unary_jit_desc;

/*
 * Whether a writer can take d (its ISA aside): a known op, and sizes in range
 * (no transposed zero; leading dimensions and lengths up to 2^40).
 */
static inline int unary_jit_valid(const unary_jit_desc *d)
{
    const int64_t lim = (int64_t)1 << 40; /* displacement arithmetic in int64_t cannot overflow below it */
    /* op: UNARY_ZERO, UNARY_IDENTITY or UNARY_RELU (0..2) */
    if (d->op < 0 || d->op > 2 || d->lda < 0 || d->lda > lim || d->ldb < 1 || d->ldb > lim || d->cols > lim ||
        d->rows_full > lim || d->rows_last > lim)
        return 0;
    if (!d->transpose)
        return d->cols >= 1;
    return d->op != 0 && d->cols_full >= 1 && d->cols_full <= 16 && d->cols_last >= 0 && d->cols_last <= 16 &&
           d->rows_full >= 1 && d->rows_last >= 0;
}

/*
 * The block shape (rows, cols) of each transpose entry, and the entry a
 * writer writes it as: itself, or an earlier entry of the same shape
 * (entries with no block, rows_last or cols_last 0, point at entry 0).
 */
static inline void unary_jit_blocks(const unary_jit_desc *d, int64_t shape[4][2], int written_as[4])
{
    const int64_t rows[2] = { d->rows_full, d->rows_last }, cols[2] = { d->cols_full, d->cols_last };
    for (int e = 0; e < 4; e++) {
        shape[e][0] = rows[e & 1];
        shape[e][1] = cols[e >> 1];
        written_as[e] = shape[e][0] < 1 || shape[e][1] < 1 ? 0 : e;
        for (int f = 0; f < e && written_as[e] == e; f++)
            if (shape[f][0] == shape[e][0] && shape[f][1] == shape[e][1])
                written_as[e] = f;
    }
}

typedef void (*unary_jit_copy_fn)(const float *A, float *B, int64_t rows);
typedef void (*unary_jit_block_fn)(const float *A, float *B);

#if defined(__x86_64__)
int unary_jit_write_x86(const void *desc, jit_buf *b, jit_entries *entries);
#endif
#if defined(__aarch64__)
int unary_jit_write_a64(const void *desc, jit_buf *b, jit_entries *entries);
#endif

#endif /* EXACT_UNARY_JIT_H */
