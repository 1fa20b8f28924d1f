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
 * The row kernels take one query against a run of unpacked codes; the
 * all-pairs and top-k entry points and approx/ use the panel and select
 * kernels below. The scalar kernels (hamming_scalar.c) are always compiled
 * and are the reference the others are tested against. The kernels of each
 * ISA path are one row of the table of hamming_dispatch.c (the pattern of
 * common/smm_dispatch.h), found by hamming_kernels_for at the end of this
 * header.
 */
#ifndef SKETCH_HAMMING_KERNELS_H
#define SKETCH_HAMMING_KERNELS_H

#include <stdint.h>

#include "common/smm_dispatch.h"
#include "sketchmm/common.h"

typedef void (*hamming_row_fn)(const uint64_t *q, const uint64_t *b, int64_t nb,
                               int64_t ldb, int64_t words, uint32_t *out);

/* Portable C reference (compiler popcount). */
void hamming_row_scalar(const uint64_t *q, const uint64_t *b, int64_t nb,
                        int64_t ldb, int64_t words, uint32_t *out);

#if defined(__aarch64__)
/* NEON: CNT (vcntq_u8) byte counts, accumulated in bytes and folded by ADDV. */
void hamming_row_neon(const uint64_t *q, const uint64_t *b, int64_t nb,
                      int64_t ldb, int64_t words, uint32_t *out);
#endif

#if defined(__x86_64__)
/* AVX2: nibble-table popcount (vpshufb + vpsadbw) along the words of long
 * codes, hardware popcnt for short codes and tails. Needs AVX2 + POPCNT. */
void hamming_row_avx2(const uint64_t *q, const uint64_t *b, int64_t nb,
                      int64_t ldb, int64_t words, uint32_t *out);

/* AVX-512 VPOPCNTDQ. Needs AVX-512 F/BW/DQ/VL + VPOPCNTDQ. */
void hamming_row_avx512_vpopcntdq(const uint64_t *q, const uint64_t *b, int64_t nb,
                                  int64_t ldb, int64_t words, uint32_t *out);
#endif

/* ------------------------------------------------------------------------
 * Panel kernels: a block of queries against packed codes (all-pairs and top-k)
 *
 * Packed layout. The codes b_0 .. b_{nb-1} are regrouped in panels of
 * HAMMING_PANEL = 32 codes, panel p holding b_{32p} .. b_{32p+31}; panel p
 * starts at panels + p * 32 * words and word w of code 32p + c
 * (0 <= c < 32) is at panel[w * 32 + (c % 4) * 8 + c / 4]. So each run of 8
 * words is word w of 8 codes (codes c, c + 4, .., c + 28 for c = 0..3):
 * a vector of them meets one broadcast query word, no horizontal sums are
 * needed, and four such vectors of 64-bit counts packed as 16-bit fields
 * (vector f shifted left by 16 f) give the 32 distances in code order.
 * Lanes of the last panel past nb hold any value (hamming_pack_panels writes
 * zeros); their results are never stored. hamming_pack_panels is the one
 * producer of the layout.
 *
 * Contract of a hamming_panel_fn (every ISA):
 *
 *   for 0 <= i < na, 0 <= j < nb:
 *     out[i * ldo + j] = popcount(a_i xor b_j) summed over `words` words,
 *
 * a_i = a + i * lda (any alignment), b_j as packed above (panels 64-byte
 * aligned), out a uint16_t array when out_u32 == 0 (then words <= 1023, so a
 * distance is at most 65472 and fits) and a uint32_t array otherwise, any
 * alignment. Preconditions: na, nb >= 0, words >= 1, lda >= words,
 * ldo >= nb, out does not overlap a or the panels. The kernel writes exactly
 * those na x nb entries and nothing else, reads only a's `words` words per
 * row and the ceil(nb / 32) panels, never fails, and gives exact integers,
 * identical for every kernel. stream != 0 is a hint that out is large and
 * not read soon: a kernel may then write whole 64-byte aligned chunks with
 * non-temporal stores (it fences them before returning).
 * ------------------------------------------------------------------------ */

#define HAMMING_PANEL 32
/* Largest word count whose distances fit in uint16_t (64 * 1023 = 65472). */
#define HAMMING_U16_MAX_WORDS 1023

typedef void (*hamming_panel_fn)(const uint64_t *a, int64_t lda, int64_t na,
                                 const uint64_t *panels, int64_t nb, int64_t words,
                                 void *out, int64_t ldo, int out_u32, int stream);

/*
 * Select kernel (top-k): the distances of a panel kernel, kept only when
 * small. For 0 <= i < na it writes to pos + i * ldp, in increasing order,
 * every j < nb with d_ij = popcount(a_i xor b_j) <= limit[i], the distance
 * d_ij to the same place of dist, and how many it wrote to count[i] (at most
 * nb). a and the panels as for a panel kernel, any words >= 1;
 * ldp >= nb + HAMMING_SELECT_SLACK: a kernel may use entries count[i] ..
 * nb + HAMMING_SELECT_SLACK - 1 of each row as scratch (whole-vector stores),
 * and writes nothing else; pos, dist and count do not overlap the inputs.
 * Never fails; the first count[i] entries are identical for every kernel.
 */
#define HAMMING_SELECT_SLACK 16
typedef void (*hamming_select_fn)(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                                  int64_t words, const uint32_t *limit, uint32_t *pos, uint32_t *dist, int64_t ldp,
                                  int64_t *count);

/*
 * Pack codes b_j0 .. b_{j0 + count - 1} (b_j at b + j * ldb, count <= 32,
 * words each) into the panel at `panel` (32 * words words), zero lanes past
 * count.
 */
void hamming_pack_panel(const uint64_t *b, int64_t ldb, int64_t j0, int64_t count, int64_t words,
                        uint64_t *panel);

/* Portable C references (always compiled). */
void hamming_panel_scalar(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                          int64_t words, void *out, int64_t ldo, int out_u32, int stream);
void hamming_select_scalar(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                           int64_t words, const uint32_t *limit, uint32_t *pos, uint32_t *dist, int64_t ldp,
                           int64_t *count);

#if defined(__x86_64__)
void hamming_panel_avx2(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                        int64_t words, void *out, int64_t ldo, int out_u32, int stream);
void hamming_select_avx2(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                         int64_t words, const uint32_t *limit, uint32_t *pos, uint32_t *dist, int64_t ldp,
                         int64_t *count);
void hamming_panel_avx512_vpopcntdq(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels,
                                    int64_t nb, int64_t words, void *out, int64_t ldo, int out_u32, int stream);
void hamming_select_avx512_vpopcntdq(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels,
                                     int64_t nb, int64_t words, const uint32_t *limit, uint32_t *pos,
                                     uint32_t *dist, int64_t ldp, int64_t *count);
#endif
#if defined(__aarch64__)
void hamming_panel_neon(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                        int64_t words, void *out, int64_t ldo, int out_u32, int stream);
void hamming_select_neon(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                         int64_t words, const uint32_t *limit, uint32_t *pos, uint32_t *dist, int64_t ldp,
                         int64_t *count);
#endif

/* The kernels of one ISA path: a row of the table of hamming_dispatch.c. */
typedef struct {
    smm_kernel_head head; /* "scalar", "avx2_pshufb", "avx512_vpopcntdq" or "neon_cnt" */
    hamming_row_fn row;
    hamming_panel_fn panel;
    hamming_select_fn select;
} hamming_kernels;

/*
 * The row of path isa on this CPU (SMM_KERNELS_FOR): never NULL; the
 * AVX-512 row needs AVX512_VPOPCNTDQ, without it the AVX2 row runs;
 * SMM_ISA_AUTO and paths without a row give the scalar row. The caller has
 * checked that the CPU can run isa. Its head.name is what
 * sketch_hamming_kernel_name reports.
 */
const hamming_kernels *hamming_kernels_for(smm_isa isa);

#endif /* SKETCH_HAMMING_KERNELS_H */
