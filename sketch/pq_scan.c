/*
 * pq_scan.c - the product-quantization scan kernels of each ISA path, one
 * row per path (common/smm_dispatch.h), and the drivers pq_scan and
 * pq_scan_float (pq.h):
 *
 *   scalar  -> pq_scan_scalar (plain C, the reference)
 *   avx2    -> pq_scan_avx2   (vpshufb on ymm: 2 subspaces per shuffle)
 *   avx512  -> pq_scan_avx512 (vpermb on zmm: 4 subspaces per permute,
 *              vpdpbusd sums; the row needs AVX512_VBMI and AVX512_VNNI)
 *   neon    -> pq_scan_neon   (tbl: 1 subspace per shuffle)
 *
 * pq_scan cuts the work into tiles of codes that stay in L2 and groups of
 * rows whose tables stay in L1 (below); pq_scan_float into tiles of 8 rows
 * x 512 columns whose sums fit a stack buffer.
 */
#include "sketch/pq_scan_kernels.h"

/* pq_scan_float's tile of uint32 sums: 8 rows x 512 columns (16 KiB on the stack). */
#define PQ_FLOAT_TILE_ROWS 8
#define PQ_FLOAT_TILE_COLS 512

static const pq_scan_kernels pq_scan_table[SMM_ISA_COUNT] = {
    [SMM_ISA_SCALAR] = { { "scalar", 0 }, pq_scan_scalar },
#if defined(__x86_64__)
    [SMM_ISA_AVX2] = { { "avx2_pshufb", 0 }, pq_scan_avx2 },
    [SMM_ISA_AVX512] = { { "avx512_vpermb", SMM_CPU_VBMI | SMM_CPU_VNNI }, pq_scan_avx512 },
#endif
#if defined(__aarch64__)
    [SMM_ISA_NEON] = { { "neon_tbl", 0 }, pq_scan_neon },
#endif
};

const pq_scan_kernels *pq_scan_kernels_for(smm_isa isa)
{
    return SMM_KERNELS_FOR(pq_scan_table, isa);
}

const char *pq_scan_kernel_name(smm_isa isa)
{
    return pq_scan_kernels_for(isa)->head.name;
}

/*
 * Cache blocking of pq_scan: the columns are cut into tiles of codes of at
 * most PQ_SCAN_TILE_BYTES (kept in L2), and each tile is scanned by groups
 * of rows whose tables take at most PQ_SCAN_GROUP_LUT_BYTES (a multiple of
 * PQ_SCAN_ROWS rows, at least that many): within a group the kernel reads
 * each block once for all the group's rows. The tables of a group may
 * exceed L1 (32 KiB on the x86 CPUs measured): a kernel reads each one
 * front to back per block, a stream the L1 prefetchers follow, and two
 * passes of 8 rows let the avx512 kernel split a block's codes once for
 * both (M = 196 on Zen 4: 16-row groups 5-9% faster than 8-row ones on
 * avx512, not slower on avx2).
 */
#define PQ_SCAN_TILE_BYTES (256 * 1024)
#define PQ_SCAN_GROUP_LUT_BYTES (64 * 1024)

static int64_t group_rows(int32_t M)
{
    int64_t g = PQ_SCAN_GROUP_LUT_BYTES / pq_block_bytes(M);
    g -= g % PQ_SCAN_ROWS;
    return g < PQ_SCAN_ROWS ? PQ_SCAN_ROWS : g;
}

void pq_scan(smm_isa isa, const uint8_t *lut, int64_t rows, int32_t M, const uint8_t *codes, int64_t j0,
             int64_t cols, uint32_t *out, int64_t ldo)
{
    if (rows <= 0 || cols <= 0)
        return;
    const pq_scan_fn scan = pq_scan_kernels_for(isa)->scan;
    const int64_t bb = pq_block_bytes(M), group = group_rows(M);
    int64_t tile = PQ_SCAN_TILE_BYTES / bb;
    tile = (tile < 1 ? 1 : tile) * PQ_BLOCK;
    codes += (j0 / PQ_BLOCK) * bb;
    out += j0;
    if (rows <= group) { /* every table in L1: one pass over the codes */
        scan(lut, rows, M, codes, cols, out, ldo);
        return;
    }
    for (int64_t c0 = 0; c0 < cols; c0 += tile) {
        const int64_t nc = cols - c0 < tile ? cols - c0 : tile;
        for (int64_t r0 = 0; r0 < rows; r0 += group)
            scan(lut + r0 * bb, rows - r0 < group ? rows - r0 : group, M, codes + (c0 / PQ_BLOCK) * bb, nc,
                 out + r0 * ldo + c0, ldo);
    }
}

void pq_scan_float(smm_isa isa, const uint8_t *lut, const float *scale, const float *bias, int64_t rows,
                   int32_t M, const uint8_t *codes, int64_t j0, int64_t cols, float *out, int64_t ldo)
{
    if (rows <= 0 || cols <= 0)
        return;
    const pq_scan_fn scan = pq_scan_kernels_for(isa)->scan;
    const int64_t bb = pq_block_bytes(M);
    uint32_t tile[PQ_FLOAT_TILE_ROWS * PQ_FLOAT_TILE_COLS];
    codes += (j0 / PQ_BLOCK) * bb;
    out += j0;
    for (int64_t r0 = 0; r0 < rows; r0 += PQ_FLOAT_TILE_ROWS) {
        const int64_t nr = rows - r0 < PQ_FLOAT_TILE_ROWS ? rows - r0 : PQ_FLOAT_TILE_ROWS;
        for (int64_t c0 = 0; c0 < cols; c0 += PQ_FLOAT_TILE_COLS) {
            const int64_t nc = cols - c0 < PQ_FLOAT_TILE_COLS ? cols - c0 : PQ_FLOAT_TILE_COLS;
            scan(lut + r0 * bb, nr, M, codes + (c0 / PQ_BLOCK) * bb, nc, tile, PQ_FLOAT_TILE_COLS);
            for (int64_t r = 0; r < nr; r++) {
                const float s = scale[r0 + r], b = bias[r0 + r];
                const uint32_t *t = tile + r * PQ_FLOAT_TILE_COLS;
                float *o = out + (r0 + r) * ldo + c0;
                for (int64_t j = 0; j < nc; j++) {
                    const float prod = s * (float)t[j];
                    o[j] = prod + b;
                }
            }
        }
    }
}
