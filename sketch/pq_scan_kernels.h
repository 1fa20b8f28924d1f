/*
 * pq_scan_kernels.h - library-internal product-quantization scan kernels
 * (the kernels behind pq_scan, pq.h).
 *
 * One contract, one signature for every ISA path:
 *
 *   for 0 <= r < rows, 0 <= j < cols:
 *     out[r * ldo + j] = sum_{m < M} lut[r * 16 M + 16 m + code_m(j)]
 *
 * lut: rows tables of 16 M bytes (pq_lut's layout, rows back to back);
 * codes: the packed blocks of pq.h starting with the block of column 0 (so
 * ceil(cols / 32) blocks of 16 M bytes are read); out: uint32, any
 * alignment, ldo >= cols. Preconditions: rows >= 0, cols >= 0,
 * 1 <= M <= PQ_MAX_SUBSPACES, out does not overlap lut or codes. A kernel
 * writes exactly those rows x cols entries, reads nothing past the tables
 * and blocks named (tails use masked or narrower loads), never fails, and
 * gives exact integers, identical for every kernel.
 *
 * How the SIMD kernels work: a byte shuffle (pshufb / tbl) of a subspace's
 * 16-byte table by the low nibbles of its 16 code bytes gives the looked-up
 * values of vectors 0..15 of the block, by the high nibbles those of
 * vectors 16..31. Values are summed in uint16 lanes and widened into uint32
 * totals after every PQ_SCAN_CHUNK = 256 subspaces (256 * 255 = 65280 fits
 * uint16), so sums are exact for every M (avx512 sums in uint32 at once).
 * Each pass over a block serves several query rows (one code load and
 * nibble split for 8 rows on avx512, 4 on neon, 2 on avx2, whose 16 ymm
 * registers hold the accumulators of 2 rows without spills); blocks are the
 * outer loop, rows the inner one, so a block of codes is read from memory
 * once per call.
 *   avx512: one zmm holds 4 subspaces' code bytes (64 contiguous bytes),
 *           transposed by vpermb so that each dword holds one vector's 4
 *           codes, and 4 subspaces' tables (64 bytes): vpermb looks up all
 *           64 bytes at once (index 16 s + code), and vpdpbusd with ones
 *           adds each dword's 4 lookups into the vector's uint32 sum (exact
 *           for every M, no uint16 stage). Needs AVX512_VBMI and
 *           AVX512_VNNI (`needs`); without them the avx2 row runs.
 *   avx2:   one ymm holds 2 subspaces' code bytes and tables (vpshufb works
 *           per 128-bit lane); the pairs of bytes of a shuffle result are
 *           summed as uint16 words (even vector + 256 * odd vector,
 *           wrapping) beside the words shifted right by 8 (the odd
 *           vectors), which recover the even sums by a subtraction; at the
 *           flush the 2 lanes are folded into the sums of the 2 subspaces.
 *   neon:   one subspace per q register (vqtbl1q_u8), widening adds
 *           (uaddw / uaddw2) into uint16 lanes.
 *   scalar: the twin: a plain loop over subspaces into 32 uint32 sums.
 */
#ifndef SKETCH_PQ_SCAN_KERNELS_H
#define SKETCH_PQ_SCAN_KERNELS_H

#include <stdint.h>

#include "common/smm_dispatch.h"
#include "sketch/pq.h"

/* Subspaces summed in uint16 lanes between two widenings to uint32. */
#define PQ_SCAN_CHUNK 256
/* Granularity of the row groups pq_scan hands to a kernel (a multiple of every kernel's rows per pass). */
#define PQ_SCAN_ROWS 8

typedef void (*pq_scan_fn)(const uint8_t *lut, int64_t rows, int32_t M, const uint8_t *codes, int64_t cols,
                           uint32_t *out, int64_t ldo);

void pq_scan_scalar(const uint8_t *lut, int64_t rows, int32_t M, const uint8_t *codes, int64_t cols,
                    uint32_t *out, int64_t ldo);
#if defined(__x86_64__)
void pq_scan_avx2(const uint8_t *lut, int64_t rows, int32_t M, const uint8_t *codes, int64_t cols,
                  uint32_t *out, int64_t ldo);
void pq_scan_avx512(const uint8_t *lut, int64_t rows, int32_t M, const uint8_t *codes, int64_t cols,
                    uint32_t *out, int64_t ldo);
#endif
#if defined(__aarch64__)
void pq_scan_neon(const uint8_t *lut, int64_t rows, int32_t M, const uint8_t *codes, int64_t cols,
                  uint32_t *out, int64_t ldo);
#endif

/* The scan kernel of one ISA path: a row of the table of pq_scan.c. */
typedef struct {
    smm_kernel_head head; /* "scalar", "avx2_pshufb", "avx512_vpermb" or "neon_tbl" */
    pq_scan_fn scan;
} pq_scan_kernels;

/*
 * The row of path isa on this CPU (SMM_KERNELS_FOR): never NULL; SMM_ISA_AUTO
 * and paths without a row give the scalar row. The caller has checked that
 * the CPU can run isa.
 */
const pq_scan_kernels *pq_scan_kernels_for(smm_isa isa);

#endif /* SKETCH_PQ_SCAN_KERNELS_H */
