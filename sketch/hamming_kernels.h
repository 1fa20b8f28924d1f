/*
 * hamming_kernels.h - library-internal Hamming-distance row kernels.
 *
 * One contract, one signature for every ISA:
 *
 *   out[j] = popcount(q xor b_j) summed over `words` words, 0 <= j < nb,
 *
 * where q is one code (words uint64_t words) and b_j = b + j * ldb.
 * Preconditions: words >= 1, ldb >= words, nb >= 0, out has nb elements,
 * q, b and out are valid for those extents (any alignment) and out does not
 * overlap q or b. Kernels read exactly those words (the unused high bits of
 * a code's last word are whatever the caller stored; SimHash codes have them
 * zero), write out[0 .. nb) and nothing else, and never fail. Results are
 * exact integers, identical for every kernel.
 *
 * hamming_row_kernel(isa) is what sketch_hamming_u32 runs for that ISA path
 * and what approx/ calls for its fused estimate; the scalar kernel is always
 * compiled and is the reference the others are tested against.
 */
#ifndef SKETCH_HAMMING_KERNELS_H
#define SKETCH_HAMMING_KERNELS_H

#include <stdint.h>

#include "sketchmm/common.h"

typedef void (*hamming_row_fn)(const uint64_t *q, const uint64_t *b, int64_t nb,
                               int64_t ldb, int64_t words, uint32_t *out);

/* Best kernel for path isa on this CPU; never NULL (unknown values and
 * SMM_ISA_AUTO give the scalar kernel). The caller has checked that the CPU
 * can run isa. */
hamming_row_fn hamming_row_kernel(smm_isa isa);

/* Name of hamming_row_kernel(isa): "scalar", "avx2_pshufb" or "avx512_vpopcntdq". */
const char *hamming_row_kernel_name(smm_isa isa);

/* Portable C reference (compiler popcount). */
void hamming_row_scalar(const uint64_t *q, const uint64_t *b, int64_t nb,
                        int64_t ldb, int64_t words, uint32_t *out);

#if defined(__x86_64__)
/* AVX2: nibble-table popcount (vpshufb + vpsadbw) along the words of long
 * codes, hardware popcnt for short codes and tails. Needs AVX2 + POPCNT. */
void hamming_row_avx2(const uint64_t *q, const uint64_t *b, int64_t nb,
                      int64_t ldb, int64_t words, uint32_t *out);

/* AVX-512 VPOPCNTDQ. Needs AVX-512 F/BW/DQ/VL + VPOPCNTDQ. */
void hamming_row_avx512_vpopcntdq(const uint64_t *q, const uint64_t *b, int64_t nb,
                                  int64_t ldb, int64_t words, uint32_t *out);
#endif

#endif /* SKETCH_HAMMING_KERNELS_H */
