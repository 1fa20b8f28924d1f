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
 * all-pairs and top-k entry points and approx/ use the panel kernels below,
 * top-k also the filter kernels. The scalar kernels (hamming_scalar.c) are always compiled
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
 * Filter kernel (top-k): which of a run of 16-bit distances are at most a
 * limit, a panel of 32 at a time. For the n >= 0 distances d[0 .. n) (as a
 * panel kernel writes them, uint16_t) and the limit t, it lists every panel
 * p < ceil(n / 32) holding a distance d[32p + c] <= t (c < 32,
 * 32p + c < n): hits[h] = p and masks[h] = the 32-bit mask of those c, in
 * increasing p, and returns how many it listed. hits and masks have room
 * for ceil(n / 32) + HAMMING_LIST_SLACK entries, which a kernel may use as
 * scratch (branch-free appends, whole-vector stores); it writes nothing
 * else. Reads d[0 .. n) only (any alignment). Never fails; the listed
 * entries are identical for every kernel.
 */
#define HAMMING_LIST_SLACK 16
typedef int64_t (*hamming_filter_fn)(const uint16_t *d, int64_t n, uint32_t t, uint32_t *hits, uint32_t *masks);

/*
 * Scan kernel (top-k): a panel kernel and a filter kernel in one pass. For
 * 0 <= i < na it writes d[i * ldd + j], j < nb, as a panel kernel with
 * out_u32 == 0 writes them (so words <= HAMMING_U16_MAX_WORDS; the panels as
 * for a panel kernel, ldd >= nb), and what a filter kernel lists for that
 * row against limit[i]: hits[i * ldh + t] and masks[i * ldh + t],
 * t < nhits[i], with ldh >= ceil(nb / 32) + HAMMING_LIST_SLACK (entries past
 * a row's count, within ldh, may be written). Writes nothing else; never
 * fails; the output is identical for every kernel. (The AVX-512 kernel
 * compares each panel's distances while they are still in registers.)
 */
typedef void (*hamming_scan_fn)(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                                int64_t words, const uint32_t *limit, uint16_t *d, int64_t ldd, uint32_t *hits,
                                uint32_t *masks, int64_t ldh, int64_t *nhits);

/*
 * Bound kernel (top-k): a quick upper bound for the k-th smallest of n
 * 16-bit distances. With g = 32 * gv groups (gv >= 1, k <= g <= n), group l
 * holding the d[j] with j mod g == l, it returns the k-th smallest of the g
 * group minima: at least k of the distances (those minima) are at or below
 * it. Reads d[0 .. n) only (any alignment); work has room for g uint16_t.
 * Never fails; every kernel returns the same value.
 */
typedef uint32_t (*hamming_bound_fn)(const uint16_t *d, int64_t n, int64_t k, int64_t gv, uint16_t *work);

/*
 * Prefix kernel (top-k): a panel kernel and a bound kernel in one pass. For
 * 0 <= i < na it writes d[i * ldd + j], j < nb, as a panel kernel with
 * out_u32 == 0 writes them (words <= HAMMING_U16_MAX_WORDS, ldd >= nb), and
 * t0[i] = what the bound kernel returns for that row with k and gv
 * (k <= 32 gv <= nb); work has room for na * 32 * gv uint16_t. Writes
 * nothing else; never fails; the output is identical for every kernel.
 */
typedef void (*hamming_prefix_fn)(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                                  int64_t words, int64_t k, int64_t gv, uint16_t *d, int64_t ldd, uint16_t *work,
                                  uint32_t *t0);

/*
 * Gather kernel (top-k): the entries a filter or scan kernel listed, one by
 * one. For t < h, every c with bit c of masks[t] set, in increasing t and c:
 * pos[w] = 32 hits[t] + c and dist[w] = d[32 hits[t] + c], w counting up
 * from 0; returns the final w. d[32 p .. 32 p + 31] must be readable for
 * every listed p (rows of whole panels); pos and dist have room for w + 32
 * entries (whole-vector stores past w). Never fails; every kernel writes the
 * same first w entries.
 */
typedef int64_t (*hamming_gather_fn)(const uint16_t *d, const uint32_t *hits, const uint32_t *masks, int64_t h,
                                     uint32_t *pos, uint32_t *dist);

/*
 * Place kernel (top-k): the k nearest of gathered codes, in order. pos[i]
 * and dist[i], i < e, are codes (base + pos[i]) in increasing order with
 * distances in [lo, hi], k <= e; it writes the k smallest by (distance,
 * position in the arrays) to out_idx[t] = base + pos[i] and out_dist[t] =
 * dist[i], t < k, sorted. out_idx and out_dist have room for e +
 * HAMMING_PLACE_SLACK entries: a kernel may write entries past k (whole
 * vectors). hist has hi + 1 entries, zero from lo to hi, and is left so.
 * Never fails; every kernel writes the same first k entries.
 */
#define HAMMING_PLACE_SLACK 32
typedef void (*hamming_place_fn)(const uint32_t *pos, const uint32_t *dist, int64_t e, int64_t k, int64_t base,
                                 uint32_t lo, uint32_t hi, uint32_t *hist, int64_t *out_idx, uint32_t *out_dist);

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
int64_t hamming_filter_scalar(const uint16_t *d, int64_t n, uint32_t t, uint32_t *hits, uint32_t *masks);
uint32_t hamming_bound_scalar(const uint16_t *d, int64_t n, int64_t k, int64_t gv, uint16_t *work);
void hamming_prefix_scalar(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                           int64_t words, int64_t k, int64_t gv, uint16_t *d, int64_t ldd, uint16_t *work, uint32_t *t0);
int64_t hamming_gather_scalar(const uint16_t *d, const uint32_t *hits, const uint32_t *masks, int64_t h, uint32_t *pos,
                              uint32_t *dist);
void hamming_place_scalar(const uint32_t *pos, const uint32_t *dist, int64_t e, int64_t k, int64_t base, uint32_t lo,
                          uint32_t hi, uint32_t *hist, int64_t *out_idx, uint32_t *out_dist);
void hamming_scan_scalar(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb, int64_t words,
                         const uint32_t *limit, uint16_t *d, int64_t ldd, uint32_t *hits, uint32_t *masks, int64_t ldh,
                         int64_t *nhits);

#if defined(__x86_64__)
void hamming_panel_avx2(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                        int64_t words, void *out, int64_t ldo, int out_u32, int stream);
int64_t hamming_filter_avx2(const uint16_t *d, int64_t n, uint32_t t, uint32_t *hits, uint32_t *masks);
uint32_t hamming_bound_avx2(const uint16_t *d, int64_t n, int64_t k, int64_t gv, uint16_t *work);
void hamming_prefix_avx2(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                         int64_t words, int64_t k, int64_t gv, uint16_t *d, int64_t ldd, uint16_t *work, uint32_t *t0);
void hamming_scan_avx2(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb, int64_t words,
                       const uint32_t *limit, uint16_t *d, int64_t ldd, uint32_t *hits, uint32_t *masks, int64_t ldh,
                       int64_t *nhits);
void hamming_panel_avx512_vpopcntdq(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels,
                                    int64_t nb, int64_t words, void *out, int64_t ldo, int out_u32, int stream);
int64_t hamming_filter_avx512(const uint16_t *d, int64_t n, uint32_t t, uint32_t *hits, uint32_t *masks);
uint32_t hamming_bound_avx512(const uint16_t *d, int64_t n, int64_t k, int64_t gv, uint16_t *work);
void hamming_prefix_avx512_vpopcntdq(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                                     int64_t words, int64_t k, int64_t gv, uint16_t *d, int64_t ldd, uint16_t *work,
                                     uint32_t *t0);
int64_t hamming_gather_avx512(const uint16_t *d, const uint32_t *hits, const uint32_t *masks, int64_t h, uint32_t *pos,
                              uint32_t *dist);
void hamming_place_avx512(const uint32_t *pos, const uint32_t *dist, int64_t e, int64_t k, int64_t base, uint32_t lo,
                          uint32_t hi, uint32_t *hist, int64_t *out_idx, uint32_t *out_dist);
void hamming_scan_avx512_vpopcntdq(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                                   int64_t words, const uint32_t *limit, uint16_t *d, int64_t ldd, uint32_t *hits,
                                   uint32_t *masks, int64_t ldh, int64_t *nhits);
#endif
#if defined(__aarch64__)
void hamming_panel_neon(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                        int64_t words, void *out, int64_t ldo, int out_u32, int stream);
int64_t hamming_filter_neon(const uint16_t *d, int64_t n, uint32_t t, uint32_t *hits, uint32_t *masks);
void hamming_scan_neon(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb, int64_t words,
                       const uint32_t *limit, uint16_t *d, int64_t ldd, uint32_t *hits, uint32_t *masks, int64_t ldh,
                       int64_t *nhits);
void hamming_prefix_neon(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                         int64_t words, int64_t k, int64_t gv, uint16_t *d, int64_t ldd, uint16_t *work, uint32_t *t0);
#endif

/* The kernels of one ISA path: a row of the table of hamming_dispatch.c. */
typedef struct {
    smm_kernel_head head; /* "scalar", "avx2_pshufb", "avx512_vpopcntdq" or "neon_cnt" */
    hamming_row_fn row;
    hamming_panel_fn panel;
    hamming_filter_fn filter;
    hamming_scan_fn scan;
    hamming_bound_fn bound;
    hamming_prefix_fn prefix;
    hamming_gather_fn gather;
    hamming_place_fn place;
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
