/*
 * hamming_dispatch.c - the Hamming row kernel of each ISA path.
 *
 *   scalar  -> hamming_row_scalar
 *   avx2    -> hamming_row_avx2
 *   avx512  -> hamming_row_avx512_vpopcntdq when the CPU has AVX512_VPOPCNTDQ,
 *              else hamming_row_avx2 (AVX-512 F/BW alone has no faster popcount)
 *   neon    -> hamming_row_scalar (no NEON kernel yet; the compiler's popcount
 *              is already CNT + ADDV there)
 */
#include "exact/smm_runtime.h"
#include "sketch/hamming_kernels.h"

hamming_row_fn hamming_row_kernel(smm_isa isa)
{
    switch (isa) {
#if defined(__x86_64__)
    case SMM_ISA_AVX2:
        return hamming_row_avx2;
    case SMM_ISA_AVX512:
        return smm_cpu()->avx512_vpopcntdq ? hamming_row_avx512_vpopcntdq : hamming_row_avx2;
#endif
    default:
        return hamming_row_scalar;
    }
}

const char *hamming_row_kernel_name(smm_isa isa)
{
    switch (isa) {
#if defined(__x86_64__)
    case SMM_ISA_AVX2:
        return "avx2_pshufb";
    case SMM_ISA_AVX512:
        return smm_cpu()->avx512_vpopcntdq ? "avx512_vpopcntdq" : "avx2_pshufb";
#endif
    default:
        return "scalar";
    }
}
