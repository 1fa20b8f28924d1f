/*
 * pq_scan_scalar.c - the portable scan kernel (pq_scan_kernels.h): the
 * reference every SIMD kernel is tested against. Per block and row, 32
 * uint32 sums over the subspaces (exact: at most 255 * PQ_MAX_SUBSPACES).
 */
#include "sketch/pq_scan_kernels.h"

void pq_scan_scalar(const uint8_t *lut, int64_t rows, int32_t M, const uint8_t *codes, int64_t cols,
                    uint32_t *out, int64_t ldo)
{
    const int64_t bb = pq_block_bytes(M);
    for (int64_t j = 0; j < cols; j += PQ_BLOCK) {
        const uint8_t *blk = codes + (j / PQ_BLOCK) * bb;
        const int64_t cnt = cols - j < PQ_BLOCK ? cols - j : PQ_BLOCK;
        for (int64_t r = 0; r < rows; r++) {
            const uint8_t *tab = lut + r * bb;
            uint32_t s[PQ_BLOCK] = { 0 };
            for (int32_t m = 0; m < M; m++) {
                const uint8_t *c = blk + 16 * (int64_t)m, *t = tab + 16 * (int64_t)m;
                for (int u = 0; u < 16; u++) {
                    s[u] += t[c[u] & 15];
                    s[u + 16] += t[c[u] >> 4];
                }
            }
            for (int64_t u = 0; u < cnt; u++)
                out[r * ldo + j + u] = s[u];
        }
    }
}
