/*
 * sgemm_targets.c - the SGEMM targets as data: the kernel table of the
 * family (common/smm_dispatch.h), one row per ISA path that has a
 * micro-kernel, naming it and the block sizes the driver uses with it.
 *
 * Block sizes were chosen for a core with a 48 KiB L1d, 1-1.25 MiB L2 and a
 * shared L3 of 32 MiB or more:
 * - kc: the B micro-panel (kc x nr floats) the inner loop streams over stays
 *   in L1 together with an A micro-panel: 256 x 16 x 4 = 16 KiB (AVX2),
 *   256 x 32 x 4 = 32 KiB (AVX-512), 256 x 12 x 4 = 12 KiB (NEON).
 * - mc: the packed A block (mc x kc) stays in L2: 192-288 KiB (AVX-512:
 *   480 KiB; 480 rows measured 4-5% faster than 240 at n = 2048 and 4096).
 * - nc: the packed B block (kc x nc) stays in L3: 4 MiB (NEON: 4092 = 341 x 12,
 *   the largest multiple of nr = 12 not above 4096).
 * kc is fixed per target (never derived from the thread count), which keeps
 * results independent of threading.
 *
 * Products of at most sup_max_macs multiply-adds (160^3, about 4.1 million)
 * skip packing and run the target's small-product kernel on the operands as
 * they are: measured on an Ice Lake core, packing costs a third of the time
 * at n = 64 and stops losing to the unpacked kernel near n = 192. NEON
 * takes the same bound (not measured on AArch64 hardware; its small
 * products run generated code where generation is on). The scalar target
 * has none (sgemm_sup_scalar in sgemm_target.h says why the scalar twin is
 * not the scalar target's).
 */
#include "sgemm_target.h"

static const sgemm_kernels table[SMM_ISA_COUNT] = {
    [SMM_ISA_SCALAR] = { { "scalar_4x8", 0 }, 4, 8, 256, 256, 4096, sgemm_kernel_scalar_4x8,
                         sgemm_pack_lines_scalar, NULL, 0.0 },
#if defined(__x86_64__)
    [SMM_ISA_AVX2] = { { "avx2_fma_6x16", 0 }, 6, 16, 288, 256, 4096, sgemm_kernel_avx2_6x16,
                       sgemm_pack_lines_avx2, sgemm_sup_avx2_6x16, 160.0 * 160.0 * 160.0 },
    [SMM_ISA_AVX512] = { { "avx512_12x32", 0 }, 12, 32, 480, 256, 4096, sgemm_kernel_avx512_12x32,
                         sgemm_pack_lines_avx512, sgemm_sup_avx512_12x32, 160.0 * 160.0 * 160.0 },
#endif
#if defined(__aarch64__)
    [SMM_ISA_NEON] = { { "neon_8x12", 0 }, 8, 12, 192, 256, 4092, sgemm_kernel_neon_8x12,
                       sgemm_pack_lines_scalar, sgemm_sup_neon_8x12, 160.0 * 160.0 * 160.0 },
#endif
};

const sgemm_kernels *sgemm_kernels_for(smm_isa isa)
{
    return SMM_KERNELS_FOR(table, isa);
}
