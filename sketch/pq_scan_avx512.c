/*
 * pq_scan_avx512.c - AVX-512 scan kernel (pq_scan_kernels.h): VBMI byte
 * permutes as 64-entry table lookups, VNNI dot products as exact 32-bit
 * accumulators.
 *
 * A step covers 4 subspaces m .. m+3 of a block. Their 64 code bytes (lane
 * s = subspace m+s, byte t = codes of vectors t and t+16) are transposed by
 * one vpermb so that byte 4w+s holds subspace m+s's byte of vector w; its
 * low nibbles plus 16 s (one ternary-logic op) index the 64 bytes of a
 * query's tables for those 4 subspaces, which vpermb looks up in one
 * instruction: byte 4w+s of the result is T[m+s][code_{m+s}(vector w)].
 * vpdpbusd with a vector of ones then adds the 4 bytes of each dword, the
 * 4 subspaces of vector w, to the uint32 sum of vector w: 64 lookups and
 * their accumulation in two instructions, exact for every M (at most
 * 255 * 4096 per sum) and already in vector order (no widening, no fold).
 * The high nibbles give vectors 16..31 the same way. The transpose and the
 * nibble split (4 instructions per step) serve PQ_AVX512_ROWS = 8 query
 * rows; with more rows the first pass over a block keeps the index vectors
 * (2 stores per step) and the later passes read them back (2 loads, no
 * ALU work): on Zen 4 the split costs a pass about a fifth of its rate. A
 * last group of 1..3 subspaces is loaded with byte masks (zero codes index
 * zero table entries).
 *
 * The row needs AVX512_VBMI and AVX512_VNNI beyond the path (Ice Lake and
 * later, Zen 4 and later); an AVX-512 CPU without them runs the AVX2 row.
 * Only these functions are compiled for those extensions (target
 * attribute), the rest of the file's path stays AVX-512 F/BW.
 */
#include <immintrin.h>
#include <string.h>

#include "sketch/pq_scan_kernels.h"

#define PQ_VBMI_TARGET __attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vnni")))
#define PQ_INLINE static inline __attribute__((always_inline)) PQ_VBMI_TARGET
#define PQ_AVX512_ROWS 8

/* Step of R rows over 4 subspaces: lo/hi index the 64-byte tables at tab + r * lstride. */
PQ_INLINE void step_avx512(__m512i lo, __m512i hi, const uint8_t *tab, int64_t lstride, const int R,
                           __m512i acc[][2], __mmask64 k, int masked)
{
    const __m512i ones = _mm512_set1_epi8(1);
    for (int r = 0; r < R; r++) {
        const __m512i t = masked ? _mm512_maskz_loadu_epi8(k, tab + r * lstride)
                                 : _mm512_loadu_si512((const void *)(tab + r * lstride));
        acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], _mm512_permutexvar_epi8(lo, t), ones);
        acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], _mm512_permutexvar_epi8(hi, t), ones);
    }
}

/* The indices of 4 subspaces' 64 code bytes c: *lo for vectors 0..15, *hi for 16..31. */
PQ_INLINE void split_avx512(__m512i c, __m512i *lo, __m512i *hi)
{
    /* byte 4w+s of the transpose <- byte 16s+w of c; 16 s added to each index */
    const __m512i transpose = _mm512_set_epi32(
        0x3F2F1F0F, 0x3E2E1E0E, 0x3D2D1D0D, 0x3C2C1C0C, 0x3B2B1B0B, 0x3A2A1A0A, 0x39291909, 0x38281808,
        0x37271707, 0x36261606, 0x35251505, 0x34241404, 0x33231303, 0x32221202, 0x31211101, 0x30201000);
    const __m512i offset = _mm512_set1_epi32(0x30201000), low4 = _mm512_set1_epi8(0x0F);
    const __m512i p = _mm512_permutexvar_epi8(transpose, c);
    *lo = _mm512_ternarylogic_epi32(p, low4, offset, 0xEA); /* (p & 0x0F) | offset */
    *hi = _mm512_ternarylogic_epi32(_mm512_srli_epi16(p, 4), low4, offset, 0xEA);
}

/* Where a pass gets its index vectors: split from the codes, split and kept in idx, or read from idx. */
enum { PQ_IDX_SPLIT, PQ_IDX_KEEP, PQ_IDX_READ };

PQ_INLINE void indices_avx512(const uint8_t *blk, int64_t step, __mmask64 k, int masked, const int mode,
                              __m512i *idx, __m512i *lo, __m512i *hi)
{
    if (mode == PQ_IDX_READ) {
        *lo = _mm512_load_si512((const void *)(idx + 2 * step));
        *hi = _mm512_load_si512((const void *)(idx + 2 * step + 1));
        return;
    }
    const uint8_t *c = blk + 64 * step;
    split_avx512(masked ? _mm512_maskz_loadu_epi8(k, c) : _mm512_loadu_si512((const void *)c), lo, hi);
    if (mode == PQ_IDX_KEEP) {
        _mm512_store_si512((void *)(idx + 2 * step), *lo);
        _mm512_store_si512((void *)(idx + 2 * step + 1), *hi);
    }
}

/* R (1..8) rows of one block: out[r * ldo + u] for u < cnt. */
PQ_INLINE void block_avx512(const uint8_t *lut, int64_t lstride, const int R, int32_t M, const uint8_t *blk,
                            uint32_t *out, int64_t ldo, int64_t cnt, const int mode, __m512i *idx)
{
    __m512i acc[PQ_AVX512_ROWS][2];
    for (int r = 0; r < R; r++)
        acc[r][0] = acc[r][1] = _mm512_setzero_si512();
    __m512i lo, hi;
    const int32_t full = M & ~3;
    if (full < M) { /* the last 1..3 subspaces first, so that the loop below is the last code to touch acc */
        const __mmask64 k = ((__mmask64)1 << (16 * (M - full))) - 1;
        indices_avx512(blk, full / 4, k, 1, mode, idx, &lo, &hi);
        step_avx512(lo, hi, lut + 16 * (int64_t)full, lstride, R, acc, k, 1);
    }
    for (int32_t m = 0; m < full; m += 4) {
        indices_avx512(blk, m / 4, 0, 0, mode, idx, &lo, &hi);
        step_avx512(lo, hi, lut + 16 * (int64_t)m, lstride, R, acc, 0, 0);
    }
    /* plain stores only (masked stores of acc made GCC 12 copy every accumulator in the loop above) */
    uint32_t part[PQ_AVX512_ROWS][PQ_BLOCK];
    const int whole = cnt == PQ_BLOCK;
    for (int r = 0; r < R; r++) {
        uint32_t *dst = whole ? out + r * ldo : part[r];
        _mm512_storeu_si512((void *)dst, acc[r][0]);
        _mm512_storeu_si512((void *)(dst + 16), acc[r][1]);
    }
    if (!whole)
        for (int r = 0; r < R; r++)
            memcpy(out + r * ldo, part[r], (size_t)cnt * sizeof(uint32_t));
}

/* The rows' count R as a constant, so that each block_avx512 keeps its accumulators in registers. */
#define PQ_AVX512_TAIL(R)                                                                                        \
    case R:                                                                                                      \
        block_avx512(lut + r * bb, bb, R, M, blk, out + r * ldo + j, ldo, cnt, tail_mode, idx);                  \
        break;

/*
 * Index vectors kept for the later passes over a block (8 KiB on the stack):
 * for 4 * PQ_AVX512_KEPT_MIN_STEPS <= M <= 4 * PQ_AVX512_KEPT_STEPS. Below,
 * a block's few steps are bound by the stores of its sums, which the kept
 * vectors' stores would add to.
 */
#define PQ_AVX512_KEPT_STEPS 64
#define PQ_AVX512_KEPT_MIN_STEPS 8

/*
 * Every block of the call: each pass of 8 rows splits its own index vectors
 * (keep = 0), or the first pass keeps them and the later ones read them
 * (keep = 1, rows > PQ_AVX512_ROWS). keep is a constant in both callers.
 */
PQ_INLINE void blocks_avx512(const uint8_t *lut, int64_t rows, int32_t M, const uint8_t *codes, int64_t cols,
                             uint32_t *out, int64_t ldo, const int keep)
{
    const int64_t bb = pq_block_bytes(M);
    __m512i idx[2 * PQ_AVX512_KEPT_STEPS];
    const int first = keep ? PQ_IDX_KEEP : PQ_IDX_SPLIT, tail_mode = keep ? PQ_IDX_READ : PQ_IDX_SPLIT;
    for (int64_t j = 0; j < cols; j += PQ_BLOCK) {
        const uint8_t *blk = codes + (j / PQ_BLOCK) * bb;
        const int64_t cnt = cols - j < PQ_BLOCK ? cols - j : PQ_BLOCK;
        int64_t r = 0;
        if (keep) {
            block_avx512(lut, bb, PQ_AVX512_ROWS, M, blk, out + j, ldo, cnt, first, idx);
            r = PQ_AVX512_ROWS;
        }
        for (; r + PQ_AVX512_ROWS <= rows; r += PQ_AVX512_ROWS)
            block_avx512(lut + r * bb, bb, PQ_AVX512_ROWS, M, blk, out + r * ldo + j, ldo, cnt, tail_mode, idx);
        switch (rows - r) {
            PQ_AVX512_TAIL(7)
            PQ_AVX512_TAIL(6)
            PQ_AVX512_TAIL(5)
            PQ_AVX512_TAIL(4)
            PQ_AVX512_TAIL(3)
            PQ_AVX512_TAIL(2)
            PQ_AVX512_TAIL(1)
        default:
            break;
        }
    }
}

/* The passes that share index vectors, apart: the code of the others stays as without them. */
__attribute__((noinline)) PQ_VBMI_TARGET static void scan_kept_avx512(const uint8_t *lut, int64_t rows, int32_t M,
                                                                      const uint8_t *codes, int64_t cols,
                                                                      uint32_t *out, int64_t ldo)
{
    blocks_avx512(lut, rows, M, codes, cols, out, ldo, 1);
}

PQ_VBMI_TARGET void pq_scan_avx512(const uint8_t *lut, int64_t rows, int32_t M, const uint8_t *codes,
                                   int64_t cols, uint32_t *out, int64_t ldo)
{
    const int32_t steps = (M + 3) / 4;
    if (rows > PQ_AVX512_ROWS && steps >= PQ_AVX512_KEPT_MIN_STEPS && steps <= PQ_AVX512_KEPT_STEPS)
        scan_kept_avx512(lut, rows, M, codes, cols, out, ldo);
    else
        blocks_avx512(lut, rows, M, codes, cols, out, ldo, 0);
}
