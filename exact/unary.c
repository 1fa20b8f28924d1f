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
#include <string.h>

#include "common/smm_runtime.h"
#include "exact/unary_jit.h"
#include "exact/unary_kernels.h"
#include "sketchmm/jit.h"
#include "sketchmm/unary.h"

/*
 * Transpose blocks: UNARY_BLOCK_ROWS rows of B (a 4 KiB run of each line of
 * A) by UNARY_BLOCK_COLS columns of B (16 lines of A, one 64-byte line of
 * each row of B). Inside a block the 16 lines of A are read as sequential
 * streams the prefetchers follow, and every row of B receives whole cache
 * lines; for a B of at least UNARY_STREAM_MIN elements (4 MiB) those lines are
 * written with non-temporal stores (no read-for-ownership of B, which
 * otherwise makes large transposes latency bound at a third of the copy's
 * bandwidth). Below it B stays in the caches and cached stores win: on a Zen 4
 * (1 MiB L2), 512 x 512 ran at 27 GiB/s with non-temporal stores and at 44
 * (78 with a padded leading dimension) without.
 */
#define UNARY_BLOCK_ROWS 1024
#define UNARY_BLOCK_COLS 16
#define UNARY_STREAM_MIN (INT64_C(1) << 20)
/* Rows of a copy given to one thread at a time: at least this many elements. */
#define UNARY_COPY_CHUNK (INT64_C(1) << 14)
/* Matrices of at least this many elements run generated kernels (where generation is on). */
#define UNARY_JIT_MIN (INT64_C(1) << 12)
/* Generated copies write B with non-temporal stores from this many elements up (16 MiB). */
#define UNARY_COPY_STREAM_MIN (INT64_C(1) << 22)

/*
 * The kernel table (common/smm_dispatch.h). NEON has no precompiled kernels
 * of its own: its row runs the scalar ones (and is named for them) unless it
 * generates its kernels.
 */
static const unary_kernels table[SMM_ISA_COUNT] = {
    [SMM_ISA_SCALAR] = { { "scalar", 0 }, unary_copy_scalar, unary_transpose_scalar, NULL, NULL },
#if defined(__x86_64__)
    [SMM_ISA_AVX2] = { { "avx2", 0 }, unary_copy_avx2, unary_transpose_avx2, unary_jit_write_x86, "avx2_generated" },
    [SMM_ISA_AVX512] = { { "avx512", 0 }, unary_copy_avx512, unary_transpose_avx512, unary_jit_write_x86,
                         "avx512_generated" },
#endif
#if defined(__aarch64__)
    [SMM_ISA_NEON] = { { "scalar", 0 }, unary_copy_scalar, unary_transpose_scalar, unary_jit_write_a64,
                       "neon_generated" },
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
    const unary_kernels *k = unary_kernels_for(ctx.isa);
    return k->jit != NULL && smm_jit_now() && smm_jit_status() == SMM_OK ? k->jit_name : k->head.name;
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

/* Rows of one copy chunk: a thread takes whole chunks of at least UNARY_COPY_CHUNK elements. */
static int64_t chunk_rows(int64_t cols)
{
    return cols >= UNARY_COPY_CHUNK ? 1 : UNARY_COPY_CHUNK / cols;
}

/* Threads for `work` independent pieces of a matrix of `elements` elements: 1 below UNARY_PARALLEL_MIN. */
static int team_for(int threads, int64_t elements, int64_t work)
{
    if (threads <= 1 || elements < UNARY_PARALLEL_MIN || work < 2)
        return 1;
    return (int64_t)threads > work ? (int)work : threads;
}

/* One chunk of rows r0 .. r0 + nr - 1 of a copy: the generated kernel when there is one (gen), else copy. */
static void copy_chunk(unary_copy_fn copy, unary_jit_copy_fn gen, unary_op op, int64_t r0, int64_t nr, int64_t cols,
                       const float *A, int64_t lda, float *B, int64_t ldb)
{
    const float *a = op == UNARY_ZERO ? NULL : A + r0 * lda;
    if (gen != NULL)
        gen(a, B + r0 * ldb, nr);
    else
        copy(op, nr, cols, a, lda, B + r0 * ldb, ldb);
}

static void run_copy(unary_copy_fn copy, unary_jit_copy_fn gen, unary_op op, int64_t rows, int64_t cols,
                     const float *A, int64_t lda, float *B, int64_t ldb, int threads)
{
    const int64_t per_chunk = chunk_rows(cols), chunks = (rows + per_chunk - 1) / per_chunk;
    threads = team_for(threads, rows * cols, chunks);
    if (threads == 1) {
        copy_chunk(copy, gen, op, 0, rows, cols, A, lda, B, ldb);
        return;
    }
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t t = 0; t < chunks; t++) {
        const int64_t r0 = t * per_chunk, nr = r0 + per_chunk < rows ? per_chunk : rows - r0;
        copy_chunk(copy, gen, op, r0, nr, cols, A, lda, B, ldb);
    }
}

/*
 * Transposes in blocks of UNARY_BLOCK_ROWS x UNARY_BLOCK_COLS (block t: row
 * block t / bc, column block t % bc; a thread gets consecutive column
 * blocks). gen: the generated kernel's entry points per block shape
 * (unary_jit.h: + 1 for the last row block, + 2 for the last column block),
 * or NULL: the precompiled transpose runs.
 */
static void run_transpose(unary_transpose_fn transpose, const unary_jit_block_fn *gen, unary_op op, int64_t rows,
                          int64_t cols, const float *A, int64_t lda, float *B, int64_t ldb, int threads)
{
    const int64_t br = (rows + UNARY_BLOCK_ROWS - 1) / UNARY_BLOCK_ROWS;
    const int64_t bc = (cols + UNARY_BLOCK_COLS - 1) / UNARY_BLOCK_COLS;
    const int stream = rows * cols >= UNARY_STREAM_MIN;
    const int64_t blocks = br * bc;
    threads = team_for(threads, rows * cols, blocks);
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
    for (int64_t t = 0; t < blocks; t++) {
        const int64_t rb = t / bc, cb = t % bc, r0 = rb * UNARY_BLOCK_ROWS, c0 = cb * UNARY_BLOCK_COLS;
        const int64_t nr = rows - r0 < UNARY_BLOCK_ROWS ? rows - r0 : UNARY_BLOCK_ROWS;
        const int64_t nc = cols - c0 < UNARY_BLOCK_COLS ? cols - c0 : UNARY_BLOCK_COLS;
        if (gen != NULL)
            gen[(rb == br - 1) + 2 * (cb == bc - 1)](A + c0 * lda + r0, B + r0 * ldb + c0);
        else
            transpose(op, nr, nc, A + c0 * lda + r0, lda, B + r0 * ldb + c0, ldb, stream);
    }
}

/*
 * The generated kernel of a call on the row-major view (unary_jit.h), or
 * NULL when the precompiled kernels run: generation off, no generator on
 * this path, fewer than UNARY_JIT_MIN elements (where looking the kernel up
 * would cost more than it gains), or no kernel to be had.
 */
static const jit_kernel *generated(const unary_kernels *k, smm_isa isa, unary_op op, int transposed, int64_t rows,
                                   int64_t cols, int64_t lda, const float *B, int64_t ldb)
{
    if (k->jit == NULL || rows * cols < UNARY_JIT_MIN || !smm_jit_now())
        return NULL;
    unary_jit_desc d;
    memset(&d, 0, sizeof d); /* the key: padding included */
    d.isa = (int32_t)isa;
    d.op = (int32_t)op;
    d.transpose = transposed;
    /*
     * Non-temporal stores (no NEON form) for 64-byte aligned rows of B: for transposes from UNARY_STREAM_MIN
     * elements up, as the precompiled ones; for copies only from UNARY_COPY_STREAM_MIN up, where A and B
     * no longer fit in a core's share of the last-level cache (below it the cached stores are faster).
     */
    const int64_t stream_min = transposed ? UNARY_STREAM_MIN : UNARY_COPY_STREAM_MIN;
    d.stream = isa != SMM_ISA_NEON && rows * cols >= stream_min && ((uintptr_t)B & 63) == 0 && (ldb & 15) == 0;
    d.lda = op == UNARY_ZERO ? 0 : lda;
    d.ldb = ldb;
    if (transposed) {
        d.rows_full = rows < UNARY_BLOCK_ROWS ? rows : UNARY_BLOCK_ROWS;
        d.rows_last = rows - (rows - 1) / UNARY_BLOCK_ROWS * UNARY_BLOCK_ROWS;
        d.cols_full = cols < UNARY_BLOCK_COLS ? cols : UNARY_BLOCK_COLS;
        d.cols_last = cols - (cols - 1) / UNARY_BLOCK_COLS * UNARY_BLOCK_COLS;
    } else {
        d.cols = cols;
    }
    const jit_kernel *kernel = NULL;
    return jit_kernel_get(k->jit, &d, sizeof d, JIT_RESIDENT, &kernel) == SMM_OK ? kernel : NULL;
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
    const jit_kernel *gen = generated(k, ctx.isa, op, transposed, rows, cols, lda, B, ldb);
    if (transposed) {
        unary_jit_block_fn blocks[4];
        for (int e = 0; gen != NULL && e < 4; e++)
            blocks[e] = (unary_jit_block_fn)(uintptr_t)jit_kernel_entry(gen, e);
        run_transpose(k->transpose, gen != NULL ? blocks : NULL, op, rows, cols, A, lda, B, ldb, ctx.threads);
    } else {
        const unary_jit_copy_fn copy = gen != NULL ? (unary_jit_copy_fn)(uintptr_t)jit_kernel_entry(gen, 0) : NULL;
        run_copy(k->copy, copy, op, rows, cols, A, lda, B, ldb, ctx.threads);
    }
    return SMM_OK;
}
