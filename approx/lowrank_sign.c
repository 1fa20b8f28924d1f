/*
 * lowrank_sign.c - the table of the sparse sign sketch's kernels, one row
 * per ISA path (lowrank_sign.h, common/smm_dispatch.h).
 */
#include "approx/lowrank_sign.h"

static const lowrank_sign_kernels table[SMM_ISA_COUNT] = {
    [SMM_ISA_SCALAR] = { { "scalar", 0 }, lowrank_sign_rows_scalar, lowrank_sign_cols_scalar },
#if defined(__x86_64__)
    [SMM_ISA_AVX2] = { { "avx2_8x8", 0 }, lowrank_sign_rows_avx2, lowrank_sign_cols_avx2 },
    [SMM_ISA_AVX512] = { { "avx512_16x16", 0 }, lowrank_sign_rows_avx512, lowrank_sign_cols_avx512 },
#endif
#if defined(__aarch64__)
    [SMM_ISA_NEON] = { { "neon_4x4", 0 }, lowrank_sign_rows_neon, lowrank_sign_cols_neon },
#endif
};

const lowrank_sign_kernels *lowrank_sign_kernels_for(smm_isa isa)
{
    return SMM_KERNELS_FOR(table, isa);
}
