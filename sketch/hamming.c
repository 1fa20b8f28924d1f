/*
 * hamming.c - sketch_hamming_u32 and sketch_hamming_impl: all-pairs Hamming
 * distances through the row kernel of the current ISA path.
 *
 * The work is split into tiles of HAMMING_ROW_BLOCK rows of a by a column
 * block of b sized to stay in the L2 cache, so each block of b is reused by
 * all rows of the tile while it is hot; threads take tiles dynamically. Distances are exact integers, so the result does
 * not depend on the split or the thread count.
 */
#include "exact/smm_runtime.h"
#include "sketch/hamming_kernels.h"
#include "sketchmm/sketch.h"

/* Rows of a per task. */
#define HAMMING_ROW_BLOCK 16
/* Least na * nb * words worth a parallel region. */
#define HAMMING_PARALLEL_MIN_WORK 65536.0
/* Bytes of b codes per column block (about half of a typical L2). */
#define HAMMING_COL_BLOCK_BYTES (256 * 1024)

smm_status sketch_hamming_u32(int64_t na, const uint64_t *a, int64_t lda,
                              int64_t nb, const uint64_t *b, int64_t ldb,
                              int64_t words, uint32_t *dist, int64_t ldd)
{
    if (na < 0 || nb < 0 || words < 1)
        return SMM_ERR_BAD_SIZE;
    smm_status s = smm_check_matrix(SMM_ROW_MAJOR, na, words, a, lda, sizeof(uint64_t));
    if (s == SMM_OK)
        s = smm_check_matrix(SMM_ROW_MAJOR, nb, words, b, ldb, sizeof(uint64_t));
    if (s == SMM_OK)
        s = smm_check_matrix(SMM_ROW_MAJOR, na, nb, dist, ldd, sizeof(uint32_t));
    if (s != SMM_OK)
        return s;
    smm_context ctx;
    s = smm_context_current(&ctx);
    if (s != SMM_OK)
        return s;
    if (na == 0 || nb == 0)
        return SMM_OK;

    const hamming_row_fn kernel = hamming_row_kernel(ctx.isa);
    /* Column block: as many codes as fit the byte budget (ldb words apart), at least 64. */
    int64_t col_block = ldb < HAMMING_COL_BLOCK_BYTES / 8 ? HAMMING_COL_BLOCK_BYTES / (8 * ldb) : 0;
    if (col_block < 64)
        col_block = 64;
    col_block &= ~(int64_t)7;
    const int64_t row_blocks = (na + HAMMING_ROW_BLOCK - 1) / HAMMING_ROW_BLOCK;
    const int64_t col_blocks = (nb + col_block - 1) / col_block;
    const int64_t tiles = row_blocks * col_blocks; /* <= na * nb, which fits */
    int threads = tiles < ctx.threads ? (int)tiles : ctx.threads;
    if ((double)na * (double)nb * (double)words < HAMMING_PARALLEL_MIN_WORK)
        threads = 1; /* fork/join would cost more than the work */

    /* Tiles in row-block-major order: consecutive tiles share rows of a. */
    #pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int64_t tile = 0; tile < tiles; tile++) {
        const int64_t i0 = (tile / col_blocks) * HAMMING_ROW_BLOCK;
        const int64_t i1 = i0 + HAMMING_ROW_BLOCK < na ? i0 + HAMMING_ROW_BLOCK : na;
        const int64_t j0 = (tile % col_blocks) * col_block;
        const int64_t jn = nb - j0 < col_block ? nb - j0 : col_block;
        for (int64_t i = i0; i < i1; i++)
            kernel(a + i * lda, b + j0 * ldb, jn, ldb, words, dist + i * ldd + j0);
    }
    return SMM_OK;
}

const char *sketch_hamming_impl(void)
{
    smm_isa isa;
    if (smm_get_isa(&isa) != SMM_OK)
        return "unavailable";
    return hamming_row_kernel_name(isa);
}
