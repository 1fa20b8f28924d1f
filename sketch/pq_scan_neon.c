/*
 * pq_scan_neon.c - AArch64 Advanced SIMD scan kernel (pq_scan_kernels.h).
 *
 * One q register holds one subspace's 16 code bytes of a block; vqtbl1q_u8
 * of the subspace's 16-byte table by the low nibbles gives vectors 0..15,
 * by the high nibbles vectors 16..31. Widening adds (uaddw, uaddw2) sum the
 * bytes into four uint16x8 accumulators per row, already in vector order;
 * after each chunk of <= 256 subspaces (256 * 255 fits uint16) they are
 * widened into 32 uint32 totals. Four query rows share each code load (16
 * accumulators of the 32 registers).
 */
#include <arm_neon.h>
#include <string.h>

#include "sketch/pq_scan_kernels.h"

#define PQ_INLINE static inline __attribute__((always_inline))

/* R (1..4) rows of one block: out[r * ldo + u] for u < cnt. */
PQ_INLINE void block_neon(const uint8_t *lut, int64_t lstride, const int R, int32_t M, const uint8_t *blk,
                          uint32_t *out, int64_t ldo, int64_t cnt)
{
    uint32_t tot[4][PQ_BLOCK];
    const uint8x16_t low4 = vdupq_n_u8(0x0F);
    for (int32_t m0 = 0; m0 < M; m0 += PQ_SCAN_CHUNK) {
        const int32_t m1 = M - m0 <= PQ_SCAN_CHUNK ? M : m0 + PQ_SCAN_CHUNK;
        uint16x8_t a[4][4];
        for (int r = 0; r < R; r++)
            a[r][0] = a[r][1] = a[r][2] = a[r][3] = vdupq_n_u16(0);
        for (int32_t m = m0; m < m1; m++) {
            const uint8x16_t c = vld1q_u8(blk + 16 * (int64_t)m);
            const uint8x16_t lo = vandq_u8(c, low4), hi = vshrq_n_u8(c, 4);
            for (int r = 0; r < R; r++) {
                const uint8x16_t t = vld1q_u8(lut + r * lstride + 16 * (int64_t)m);
                const uint8x16_t x = vqtbl1q_u8(t, lo), y = vqtbl1q_u8(t, hi);
                a[r][0] = vaddw_u8(a[r][0], vget_low_u8(x));
                a[r][1] = vaddw_high_u8(a[r][1], x);
                a[r][2] = vaddw_u8(a[r][2], vget_low_u8(y));
                a[r][3] = vaddw_high_u8(a[r][3], y);
            }
        }
        for (int r = 0; r < R; r++)
            for (int q = 0; q < 4; q++) {
                uint32x4_t lo4 = vmovl_u16(vget_low_u16(a[r][q])), hi4 = vmovl_high_u16(a[r][q]);
                if (m0 > 0) {
                    lo4 = vaddq_u32(lo4, vld1q_u32(tot[r] + 8 * q));
                    hi4 = vaddq_u32(hi4, vld1q_u32(tot[r] + 8 * q + 4));
                }
                vst1q_u32(tot[r] + 8 * q, lo4);
                vst1q_u32(tot[r] + 8 * q + 4, hi4);
            }
    }
    for (int r = 0; r < R; r++)
        memcpy(out + r * ldo, tot[r], (size_t)cnt * sizeof(uint32_t));
}

void pq_scan_neon(const uint8_t *lut, int64_t rows, int32_t M, const uint8_t *codes, int64_t cols,
                  uint32_t *out, int64_t ldo)
{
    const int64_t bb = pq_block_bytes(M);
    for (int64_t j = 0; j < cols; j += PQ_BLOCK) {
        const uint8_t *blk = codes + (j / PQ_BLOCK) * bb;
        const int64_t cnt = cols - j < PQ_BLOCK ? cols - j : PQ_BLOCK;
        int64_t r = 0;
        for (; r + 4 <= rows; r += 4)
            block_neon(lut + r * bb, bb, 4, M, blk, out + r * ldo + j, ldo, cnt);
        switch (rows - r) {
        case 3:
            block_neon(lut + r * bb, bb, 3, M, blk, out + r * ldo + j, ldo, cnt);
            break;
        case 2:
            block_neon(lut + r * bb, bb, 2, M, blk, out + r * ldo + j, ldo, cnt);
            break;
        case 1:
            block_neon(lut + r * bb, bb, 1, M, blk, out + r * ldo + j, ldo, cnt);
            break;
        default:
            break;
        }
    }
}
