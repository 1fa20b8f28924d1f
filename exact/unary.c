/*
 * unary.c - unary primitives (sketchmm/unary.h): argument checks, the
 * kernel table and the blocked, threaded driver.
 *
 * The driver turns layout and trans into two kernel shapes, each on a
 * "row-major" view of the data (rows of contiguous elements):
 *   copy:      B[r * ldb + c] = op(A[r * lda + c])  (r < rows, c < cols)
 *   transpose: B[r * ldb + c] = op(A[c * lda + r])  (r < rows, c < cols)
 * Row-major B: rows = m, cols = n. Column-major B: rows = n, cols = m (the
 * columns of B are the contiguous lines). UNARY_ZERO never reads A, so it is
 * always a copy-shaped fill. The transpose kernels handle any rows x cols but
 * are called on blocks (see UNARY_BLOCK_ROWS below); blocks are independent,
 * which is how the work is split among threads.
 *
 * The kernels, their contract and their scalar twins (unary_scalar.c) are in
 * unary_kernels.h.
 */
#include <stddef.h>
#include <stdint.h>

#include "common/smm_runtime.h"
#include "exact/unary_kernels.h"
#include "sketchmm/unary.h"

/*
 * Transpose blocks: UNARY_BLOCK_ROWS rows of B (a 4 KiB run of each line of
 * A) by UNARY_BLOCK_COLS columns of B (16 lines of A, one 64-byte line of
 * each row of B). Inside a block the 16 lines of A are read as sequential
 * streams the prefetchers follow, and every row of B receives whole cache
 * lines; for a B of at least UNARY_STREAM_MIN elements those lines are written
 * with non-temporal stores (no read-for-ownership of B, which otherwise makes
 * large transposes latency bound at a third of the copy's bandwidth).
 */
#define UNARY_BLOCK_ROWS 1024
#define UNARY_BLOCK_COLS 16
#define UNARY_STREAM_MIN (INT64_C(1) << 18)
/* Rows of a copy given to one thread at a time: at least this many elements. */
#define UNARY_COPY_CHUNK (INT64_C(1) << 14)

/* The kernel table (common/smm_dispatch.h); NEON has no kernels of its own and falls back to the scalar row. */
static const unary_kernels table[SMM_ISA_COUNT] = {
    [SMM_ISA_SCALAR] = { { "scalar", 0 }, unary_copy_scalar, unary_transpose_scalar },
#if defined(__x86_64__)
    [SMM_ISA_AVX2] = { { "avx2", 0 }, unary_copy_avx2, unary_transpose_avx2 },
    [SMM_ISA_AVX512] = { { "avx512", 0 }, unary_copy_avx512, unary_transpose_avx512 },
#endif
};

const unary_kernels *unary_kernels_for(smm_isa isa)
{
    return SMM_KERNELS_FOR(table, isa);
}

const char *unary_kernel_name(void)
{
    smm_context ctx;
    if (smm_context_current(&ctx) != SMM_OK)
        return "unavailable";
    return unary_kernels_for(ctx.isa)->head.name;
}

const char *unary_op_name(unary_op op)
{
    switch (op) {
    case UNARY_ZERO:
        return "zero";
    case UNARY_IDENTITY:
        return "identity";
    case UNARY_RELU:
        return "relu";
    default:
        return NULL;
    }
}

static void run_copy(unary_copy_fn copy, unary_op op, int64_t rows, int64_t cols, const float *A, int64_t lda,
                     float *B, int64_t ldb, int threads)
{
    const int64_t per_chunk = cols >= UNARY_COPY_CHUNK ? 1 : UNARY_COPY_CHUNK / cols;
    const int64_t chunks = (rows + per_chunk - 1) / per_chunk;
    if (threads <= 1 || rows * cols < UNARY_PARALLEL_MIN || chunks < 2) {
        copy(op, rows, cols, A, lda, B, ldb);
        return;
    }
    if ((int64_t)threads > chunks)
        threads = (int)chunks;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t t = 0; t < chunks; t++) {
        const int64_t r0 = t * per_chunk, nr = r0 + per_chunk < rows ? per_chunk : rows - r0;
        copy(op, nr, cols, op == UNARY_ZERO ? NULL : A + r0 * lda, lda, B + r0 * ldb, ldb);
    }
}

static void run_transpose(unary_transpose_fn transpose, unary_op op, int64_t rows, int64_t cols, const float *A,
                          int64_t lda, float *B, int64_t ldb, int threads)
{
    const int64_t br = (rows + UNARY_BLOCK_ROWS - 1) / UNARY_BLOCK_ROWS;
    const int64_t bc = (cols + UNARY_BLOCK_COLS - 1) / UNARY_BLOCK_COLS;
    const int stream = rows * cols >= UNARY_STREAM_MIN;
    const int64_t blocks = br * bc;
    if (threads <= 1 || rows * cols < UNARY_PARALLEL_MIN || blocks < 2)
        threads = 1;
    else if ((int64_t)threads > blocks)
        threads = (int)blocks;
    /* block t: row block t / bc, column block t % bc; a thread gets consecutive column blocks */
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
    for (int64_t t = 0; t < blocks; t++) {
        const int64_t r0 = (t / bc) * UNARY_BLOCK_ROWS, c0 = (t % bc) * UNARY_BLOCK_COLS;
        const int64_t nr = rows - r0 < UNARY_BLOCK_ROWS ? rows - r0 : UNARY_BLOCK_ROWS;
        const int64_t nc = cols - c0 < UNARY_BLOCK_COLS ? cols - c0 : UNARY_BLOCK_COLS;
        transpose(op, nr, nc, A + c0 * lda + r0, lda, B + r0 * ldb + c0, ldb, stream);
    }
}

smm_status unary_apply(unary_op op, smm_layout layout, smm_trans trans, int64_t m, int64_t n, const float *A,
                       int64_t lda, float *B, int64_t ldb)
{
    if (op != UNARY_ZERO && op != UNARY_IDENTITY && op != UNARY_RELU)
        return SMM_ERR_BAD_ARGUMENT;
    smm_status s = smm_check_layout(layout);
    if (s != SMM_OK)
        return s;
    if ((s = smm_check_trans(trans)) != SMM_OK)
        return s;
    if (m < 0 || n < 0)
        return SMM_ERR_BAD_SIZE;
    const int transposed = trans == SMM_TRANS && op != UNARY_ZERO;
    /* B is m x n; A is m x n, or n x m when transposed */
    if ((s = smm_check_matrix(layout, m, n, B, ldb, sizeof(float))) != SMM_OK)
        return s;
    if (op != UNARY_ZERO) {
        if (trans == SMM_TRANS)
            s = smm_check_matrix(layout, n, m, A, lda, sizeof(float));
        else
            s = smm_check_matrix(layout, m, n, A, lda, sizeof(float));
        if (s != SMM_OK)
            return s;
    }
    if (m == 0 || n == 0)
        return SMM_OK;
    /* the row-major view of B: rows lines of cols contiguous elements */
    const int64_t rows = layout == SMM_ROW_MAJOR ? m : n, cols = layout == SMM_ROW_MAJOR ? n : m;
    if (op != UNARY_ZERO) { /* the spans of smm_runtime.h; A is n x m when transposed */
        const smm_span b_span = smm_matrix_span(layout, m, n, B, ldb, sizeof(float));
        const smm_span a_span = transposed ? smm_matrix_span(layout, n, m, A, lda, sizeof(float))
                                           : smm_matrix_span(layout, m, n, A, lda, sizeof(float));
        const int in_place = !transposed && A == B && lda == ldb;
        if (!in_place && smm_spans_overlap(a_span, b_span))
            return SMM_ERR_BAD_ARGUMENT;
    }
    smm_context ctx;
    if ((s = smm_context_current(&ctx)) != SMM_OK)
        return s;
    const unary_kernels *k = unary_kernels_for(ctx.isa);
    if (transposed)
        run_transpose(k->transpose, op, rows, cols, A, lda, B, ldb, ctx.threads);
    else
        run_copy(k->copy, op, rows, cols, A, lda, B, ldb, ctx.threads);
    return SMM_OK;
}
