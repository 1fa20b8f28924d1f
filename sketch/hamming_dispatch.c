/*
 * hamming_dispatch.c - the Hamming kernels (row, panel, select) of each ISA
 * path, one row per path (common/smm_dispatch.h):
 *
 *   scalar  -> hamming_{row,panel,select}_scalar
 *   avx2    -> hamming_{row,panel,select}_avx2 (vpshufb nibble table)
 *   avx512  -> hamming_{row,panel,select}_avx512_vpopcntdq; the row needs
 *              AVX512_VPOPCNTDQ, without it the AVX2 row runs (AVX-512
 *              F/BW alone has no faster popcount)
 *   neon    -> hamming_{row,panel,select}_neon (CNT)
 */
#include "sketch/hamming_kernels.h"

static const hamming_kernels table[SMM_ISA_COUNT] = {
    [SMM_ISA_SCALAR] = { { "scalar", 0 }, hamming_row_scalar, hamming_panel_scalar, hamming_select_scalar },
#if defined(__x86_64__)
    [SMM_ISA_AVX2] = { { "avx2_pshufb", 0 }, hamming_row_avx2, hamming_panel_avx2, hamming_select_avx2 },
    [SMM_ISA_AVX512] = { { "avx512_vpopcntdq", SMM_CPU_VPOPCNTDQ }, hamming_row_avx512_vpopcntdq,
                         hamming_panel_avx512_vpopcntdq, hamming_select_avx512_vpopcntdq },
#endif
#if defined(__aarch64__)
    [SMM_ISA_NEON] = { { "neon_cnt", 0 }, hamming_row_neon, hamming_panel_neon, hamming_select_neon },
#endif
};

const hamming_kernels *hamming_kernels_for(smm_isa isa)
{
    return SMM_KERNELS_FOR(table, isa);
}
