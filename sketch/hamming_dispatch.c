/*
 * hamming_dispatch.c - the Hamming kernels (row, panel, and for top-k
 * filter, scan, bound, gather) of each ISA path, one row per path
 * (common/smm_dispatch.h):
 *
 *   scalar  -> hamming_{row,panel,filter,scan,bound,gather}_scalar
 *   avx2    -> hamming_{row,panel,filter,scan,bound}_avx2 (vpshufb nibble
 *              table), the scalar gather (AVX2 has no compress)
 *   avx512  -> hamming_{row,panel,scan}_avx512_vpopcntdq,
 *              hamming_{filter,bound,gather}_avx512; the row needs
 *              AVX512_VPOPCNTDQ, without it the AVX2 row runs (AVX-512
 *              F/BW alone has no faster popcount)
 *   neon    -> hamming_{row,panel,filter,scan}_neon (CNT), the scalar
 *              bound and gather
 */
#include "sketch/hamming_kernels.h"

static const hamming_kernels table[SMM_ISA_COUNT] = {
    [SMM_ISA_SCALAR] = { { "scalar", 0 }, hamming_row_scalar, hamming_panel_scalar, hamming_filter_scalar,
                         hamming_scan_scalar, hamming_bound_scalar, hamming_prefix_scalar,
                         hamming_gather_scalar, hamming_place_scalar },
#if defined(__x86_64__)
    [SMM_ISA_AVX2] = { { "avx2_pshufb", 0 }, hamming_row_avx2, hamming_panel_avx2, hamming_filter_avx2,
                       hamming_scan_avx2, hamming_bound_avx2, hamming_prefix_avx2, hamming_gather_scalar,
                       hamming_place_scalar },
    [SMM_ISA_AVX512] = { { "avx512_vpopcntdq", SMM_CPU_VPOPCNTDQ }, hamming_row_avx512_vpopcntdq,
                         hamming_panel_avx512_vpopcntdq, hamming_filter_avx512,
                         hamming_scan_avx512_vpopcntdq, hamming_bound_avx512,
                         hamming_prefix_avx512_vpopcntdq, hamming_gather_avx512, hamming_place_avx512 },
#endif
#if defined(__aarch64__)
    [SMM_ISA_NEON] = { { "neon_cnt", 0 }, hamming_row_neon, hamming_panel_neon, hamming_filter_neon,
                       hamming_scan_neon, hamming_bound_scalar, hamming_prefix_neon, hamming_gather_scalar,
                       hamming_place_scalar },
#endif
};

const hamming_kernels *hamming_kernels_for(smm_isa isa)
{
    return SMM_KERNELS_FOR(table, isa);
}
