/*
 * crosspolytope_match.c - sketch_crosspolytope_matches: all-pairs counts of
 * equal hashes through the match row kernel of the current ISA path, and the
 * table of those kernels (one row per path, common/smm_dispatch.h; the
 * scalar twin is in crosspolytope_match_scalar.c).
 *
 * Tiles of CP_ROW_BLOCK rows of a by a column block of b sized for the L2
 * cache, taken dynamically by the threads; counts are exact integers, so the
 * result does not depend on the split or the thread count.
 */
#include "sketch/crosspolytope.h"

/* Rows of a per task. */
#define CP_ROW_BLOCK 16
/* Least na * nb * words worth a parallel region. */
#define CP_PARALLEL_MIN_WORK 65536.0
/* Bytes of b codes per column block. */
#define CP_COL_BLOCK_BYTES (256 * 1024)

static const cp_match_kernels table[SMM_ISA_COUNT] = {
    [SMM_ISA_SCALAR] = { { "scalar", 0 }, cp_match_row_scalar },
#if defined(__x86_64__)
    [SMM_ISA_AVX2] = { { "avx2", 0 }, cp_match_row_avx2 },
    [SMM_ISA_AVX512] = { { "avx512_vpopcntdq", SMM_CPU_VPOPCNTDQ }, cp_match_row_avx512 },
#endif
};

const cp_match_kernels *cp_match_kernels_for(smm_isa isa)
{
    return SMM_KERNELS_FOR(table, isa);
}

const char *sketch_crosspolytope_kernel_name(void)
{
    smm_isa isa;
    if (smm_get_isa(&isa) != SMM_OK)
        return "unavailable";
    return cp_match_kernels_for(isa)->head.name;
}

smm_status sketch_crosspolytope_matches(int64_t d, int32_t bits,
                                        int64_t na, const uint64_t *a, int64_t lda,
                                        int64_t nb, const uint64_t *b, int64_t ldb,
                                        uint16_t *matches, int64_t ldm)
{
    sketch_cp_layout lay;
    smm_status s = sketch_crosspolytope_layout(d, bits, &lay);
    if (s != SMM_OK)
        return s;
    if (na < 0 || nb < 0)
        return SMM_ERR_BAD_SIZE;
    const int64_t words = lay.words;
    s = smm_check_matrix(SMM_ROW_MAJOR, na, words, a, lda, sizeof(uint64_t));
    if (s == SMM_OK)
        s = smm_check_matrix(SMM_ROW_MAJOR, nb, words, b, ldb, sizeof(uint64_t));
    if (s == SMM_OK)
        s = smm_check_matrix(SMM_ROW_MAJOR, na, nb, matches, ldm, sizeof(uint16_t));
    if (s != SMM_OK)
        return s;
    smm_context ctx;
    s = smm_context_current(&ctx);
    if (s != SMM_OK)
        return s;
    if (na == 0 || nb == 0)
        return SMM_OK;

    uint64_t *masks = smm_aligned_alloc((size_t)words * 2 * sizeof(uint64_t));
    if (!masks)
        return SMM_ERR_NO_MEMORY;
    uint64_t *hi = masks, *lo = masks + words;
    for (int64_t w = 0; w < words; w++)
        crosspolytope_word_masks(&lay, w, &hi[w], &lo[w]);

    const cp_match_row_fn kernel = cp_match_kernels_for(ctx.isa)->row;
    int64_t col_block = ldb < CP_COL_BLOCK_BYTES / 8 ? CP_COL_BLOCK_BYTES / (8 * ldb) : 0;
    if (col_block < 64)
        col_block = 64;
    col_block &= ~(int64_t)7;
    const int64_t row_blocks = (na + CP_ROW_BLOCK - 1) / CP_ROW_BLOCK;
    const int64_t col_blocks = (nb + col_block - 1) / col_block;
    const int64_t tiles = row_blocks * col_blocks;
    int threads = tiles < ctx.threads ? (int)tiles : ctx.threads;
    if ((double)na * (double)nb * (double)words < CP_PARALLEL_MIN_WORK)
        threads = 1;
    const uint32_t fields = (uint32_t)lay.hashes;

    #pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int64_t tile = 0; tile < tiles; tile++) {
        const int64_t i0 = (tile / col_blocks) * CP_ROW_BLOCK;
        const int64_t i1 = i0 + CP_ROW_BLOCK < na ? i0 + CP_ROW_BLOCK : na;
        const int64_t j0 = (tile % col_blocks) * col_block;
        const int64_t jn = nb - j0 < col_block ? nb - j0 : col_block;
        for (int64_t i = i0; i < i1; i++)
            kernel(a + i * lda, b + j0 * ldb, jn, ldb, words, hi, lo, fields, matches + i * ldm + j0);
    }
    smm_aligned_free(masks);
    return SMM_OK;
}
