/*
 * sgemm_targets.c - the SGEMM kernels as data: the kernel table of the
 * family (common/smm_dispatch.h), one row per ISA path that has
 * micro-kernels, listing its shapes (the first is the path's default), its
 * packer and small-product kernel, and the fixed block sizes of the default
 * shape.
 *
 * The fixed sizes are the last resort, for a CPU whose cache geometry
 * cannot be read (exact/tuning.h: otherwise the analytical model of
 * sgemm_model.c sizes the blocks, and a tuning file may override both).
 * They were chosen for a core with a 48 KiB L1d, 1-1.25 MiB L2 and a
 * shared L3 of 32 MiB or more:
 * - kc: the B micro-panel (kc x nr floats) the inner loop streams over stays
 *   in L1 together with an A micro-panel: 256 x 16 x 4 = 16 KiB (AVX2),
 *   256 x 32 x 4 = 32 KiB (AVX-512), 256 x 12 x 4 = 12 KiB (NEON).
 * - mc: the packed A block (mc x kc) stays in L2: 192-288 KiB (AVX-512:
 *   480 KiB; 480 rows measured 4-5% faster than 240 at n = 2048 and 4096).
 * - nc: the packed B block (kc x nc) stays in L3: 4 MiB (NEON: 4092 = 341 x 12,
 *   the largest multiple of nr = 12 not above 4096).
 *
 * The AVX-512 kernel prefetches the A micro-panel 16 steps ahead by
 * default (the distance it had before the tuner made it a parameter); the
 * others rely on the hardware prefetchers.
 *
 * Products of at most sup_max_macs multiply-adds (160^3, about 4.1 million)
 * skip packing and run the target's small-product kernel on the operands as
 * they are: measured on an Ice Lake core, packing costs a third of the time
 * at n = 64 and stops losing to the unpacked kernel near n = 192. NEON
 * takes the same bound (not measured on AArch64 hardware; its small
 * products run generated code where generation is on). The scalar target
 * has none (sgemm_sup_scalar in sgemm_target.h says why the scalar twin is
 * not the scalar target's).
 *
 * Shapes beyond the first are alternatives the tuner measures (see the
 * kernel files for what each trades); every shape of a path computes the
 * same bits (sgemm_kernel_fn).
 */
#include "sgemm_target.h"

static const sgemm_kernels table[SMM_ISA_COUNT] = {
    [SMM_ISA_SCALAR] = { .head = { "scalar_4x8", 0 },
                         .shapes = { { "scalar_4x8", 4, 8, sgemm_kernel_scalar_4x8 } },
                         .nshapes = 1,
                         .fused = 0,
                         .pack_lines = sgemm_pack_lines_scalar,
                         .pack_rows = sgemm_pack_rows_scalar,
                         .sup = NULL,
                         .mc = 256, .kc = 256, .nc = 4096 },
#if defined(__x86_64__)
    [SMM_ISA_AVX2] = { .head = { "avx2_fma_6x16", 0 },
                       .shapes = { { "avx2_fma_6x16", 6, 16, sgemm_kernel_avx2_6x16 },
                                   { "avx2_fma_4x24", 4, 24, sgemm_kernel_avx2_4x24 },
                                   { "avx2_fma_8x8", 8, 8, sgemm_kernel_avx2_8x8 } },
                       .nshapes = 3,
                       .fused = 1,
                       .pack_lines = sgemm_pack_lines_avx2,
                       .pack_rows = sgemm_pack_rows_avx2,
                       .sup = sgemm_sup_avx2_6x16, .sup_mr = 6, .sup_nr = 16,
                       .mc = 288, .kc = 256, .nc = 4096, .sup_max_macs = 160.0 * 160.0 * 160.0 },
    [SMM_ISA_AVX512] = { .head = { "avx512_12x32", 0 },
                         .shapes = { { "avx512_12x32", 12, 32, sgemm_kernel_avx512_12x32 },
                                     { "avx512_14x32", 14, 32, sgemm_kernel_avx512_14x32 },
                                     { "avx512_8x48", 8, 48, sgemm_kernel_avx512_8x48 },
                                     { "avx512_6x64", 6, 64, sgemm_kernel_avx512_6x64 } },
                         .nshapes = 4,
                         .fused = 1,
                         .pack_lines = sgemm_pack_lines_avx512,
                         .pack_rows = sgemm_pack_rows_avx512,
                         .sup = sgemm_sup_avx512_12x32, .sup_mr = 12, .sup_nr = 32,
                         .mc = 480, .kc = 256, .nc = 4096, .prefetch = 16, .sup_max_macs = 160.0 * 160.0 * 160.0 },
#endif
#if defined(__aarch64__)
    [SMM_ISA_NEON] = { .head = { "neon_8x12", 0 },
                       .shapes = { { "neon_8x12", 8, 12, sgemm_kernel_neon_8x12 },
                                   { "neon_12x8", 12, 8, sgemm_kernel_neon_12x8 },
                                   { "neon_16x4", 16, 4, sgemm_kernel_neon_16x4 } },
                       .nshapes = 3,
                       .fused = 1,
                       .pack_lines = sgemm_pack_lines_scalar,
                       .pack_rows = sgemm_pack_rows_scalar,
                       .sup = sgemm_sup_neon_8x12, .sup_mr = 8, .sup_nr = 12,
                       .mc = 192, .kc = 256, .nc = 4092, .sup_max_macs = 160.0 * 160.0 * 160.0 },
#endif
};

const sgemm_kernels *sgemm_kernels_for(smm_isa isa)
{
    return SMM_KERNELS_FOR(table, isa);
}

smm_isa sgemm_kernels_path(const sgemm_kernels *row)
{
    return (smm_isa)(row - table);
}
