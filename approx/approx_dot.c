/*
 * approx_dot.c - the table of the exact-valued dot-product kernels, one row
 * per ISA path (see approx_dot.h and common/smm_dispatch.h).
 */
#include "approx/approx_dot.h"

static const approx_dot_kernels table[SMM_ISA_COUNT] = {
    [SMM_ISA_SCALAR] = { { "scalar", 0 }, approx_dot_scalar, approx_dot_group_scalar },
#if defined(__x86_64__)
    [SMM_ISA_AVX2] = { { "avx2", 0 }, approx_dot_avx2, approx_dot_group_avx2 },
    [SMM_ISA_AVX512] = { { "avx512", 0 }, approx_dot_avx512, approx_dot_group_avx512 },
#endif
};

const approx_dot_kernels *approx_dot_kernels_for(smm_isa isa)
{
    return SMM_KERNELS_FOR(table, isa);
}
