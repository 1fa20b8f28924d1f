/*
 * fused_select.c - the table of the fused candidate-pass kernels, one row per
 * ISA path (common/smm_dispatch.h), and the block driver that runs a path's
 * kernel strip by strip (fused_select.h).
 */
#include "approx/fused_select.h"

static const fused_select_kernels table[SMM_ISA_COUNT] = {
    [SMM_ISA_SCALAR] = { { "scalar", 0 }, 4, fused_select_scalar },
#if defined(__x86_64__)
    [SMM_ISA_AVX2] = { { "avx2_6x16", 0 }, 6, fused_select_avx2_6x16 },
    [SMM_ISA_AVX512] = { { "avx512_12x32", 0 }, 12, fused_select_avx512_12x32 },
#endif
#if defined(__aarch64__)
    [SMM_ISA_NEON] = { { "neon_8x12", 0 }, 8, fused_select_neon_8x12 },
#endif
};

const fused_select_kernels *fused_select_kernels_for(smm_isa isa)
{
    return SMM_KERNELS_FOR(table, isa);
}

void fused_select_block(smm_isa isa, int64_t rows, int64_t cols, int64_t s, const float *A, int64_t lda,
                        const float *B, int64_t ldb, int64_t j0, top_select *sel)
{
    const fused_select_kernels *k = fused_select_kernels_for(isa);
    for (int64_t r0 = 0; r0 < rows; r0 += k->mr) {
        const int64_t strip = rows - r0 < k->mr ? rows - r0 : k->mr;
        k->select(strip, cols, s, A + r0 * lda, lda, B, ldb, j0, sel + r0);
    }
}
