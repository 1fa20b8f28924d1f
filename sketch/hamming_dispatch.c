/*
 * hamming_dispatch.c - the Hamming kernels (row, panel, select) of each ISA
 * path.
 *
 *   scalar  -> hamming_{row,panel,select}_scalar
 *   avx2    -> hamming_row_avx2, hamming_panel_avx2, hamming_select_avx2
 *   avx512  -> the AVX-512 VPOPCNTDQ kernels when the CPU has AVX512_VPOPCNTDQ,
 *              else the AVX2 ones (AVX-512 F/BW alone has no faster popcount)
 *   neon    -> hamming_{row,panel,select}_neon (CNT)
 */
#include "common/smm_runtime.h"
#include "sketch/hamming_kernels.h"

#if defined(__x86_64__)
static int use_vpopcntdq(void)
{
    return smm_cpu()->avx512_vpopcntdq;
}
#endif

hamming_row_fn hamming_row_kernel(smm_isa isa)
{
    switch (isa) {
#if defined(__x86_64__)
    case SMM_ISA_AVX2:
        return hamming_row_avx2;
    case SMM_ISA_AVX512:
        return use_vpopcntdq() ? hamming_row_avx512_vpopcntdq : hamming_row_avx2;
#endif
#if defined(__aarch64__)
    case SMM_ISA_NEON:
        return hamming_row_neon;
#endif
    default:
        return hamming_row_scalar;
    }
}

hamming_panel_fn hamming_panel_kernel(smm_isa isa)
{
    switch (isa) {
#if defined(__x86_64__)
    case SMM_ISA_AVX2:
        return hamming_panel_avx2;
    case SMM_ISA_AVX512:
        return use_vpopcntdq() ? hamming_panel_avx512_vpopcntdq : hamming_panel_avx2;
#endif
#if defined(__aarch64__)
    case SMM_ISA_NEON:
        return hamming_panel_neon;
#endif
    default:
        return hamming_panel_scalar;
    }
}

hamming_select_fn hamming_select_kernel(smm_isa isa)
{
    switch (isa) {
#if defined(__x86_64__)
    case SMM_ISA_AVX2:
        return hamming_select_avx2;
    case SMM_ISA_AVX512:
        return use_vpopcntdq() ? hamming_select_avx512_vpopcntdq : hamming_select_avx2;
#endif
#if defined(__aarch64__)
    case SMM_ISA_NEON:
        return hamming_select_neon;
#endif
    default:
        return hamming_select_scalar;
    }
}

const char *hamming_row_kernel_name(smm_isa isa)
{
    switch (isa) {
#if defined(__x86_64__)
    case SMM_ISA_AVX2:
        return "avx2_pshufb";
    case SMM_ISA_AVX512:
        return use_vpopcntdq() ? "avx512_vpopcntdq" : "avx2_pshufb";
#endif
#if defined(__aarch64__)
    case SMM_ISA_NEON:
        return "neon_cnt";
#endif
    default:
        return "scalar";
    }
}
