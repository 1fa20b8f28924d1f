/*
 * hd_rotation.h - library-internal pseudo-random rotations by rounds of
 * (random +-1 diagonal, fast Walsh-Hadamard transform), shared by structured
 * SimHash and cross-polytope LSH.
 *
 * Definitions
 *   D = hd_rotation_dim(d): the smallest power of two >= max(d, 2).
 *   H: the unnormalised Walsh-Hadamard matrix of order D (entries +-1).
 *   S_r (round r = 0, 1, 2 of rotation `block` of `seed`): diagonal with
 *   entry i = -1 when bit (i % 64) of the word
 *     XXH3_64bits_withSeed(key, 24, seed),
 *     key = little-endian uint64 values (block, r, i / 64),
 *   is set, else +1.
 *   The rotation of x (zero-padded to D) is y = H S_2 H S_1 H S_0 x, without
 *   the 1/sqrt(D) per round: signs and the position of the largest |y_i| do
 *   not depend on the scale.
 *
 * Bit-identical on every ISA
 *   A sign flip is exact. Each FWHT is computed in float as the butterfly
 *   stages h = 1, 2, 4, ..., D/2 in this order, each stage replacing
 *   (v[j], v[j + h]) by (v[j] + v[j + h], v[j] - v[j + h]) for every j with
 *   j & h == 0. Every kernel performs exactly these additions (vector kernels
 *   do several butterflies at once or several stages per pass over memory,
 *   never a different operation), so y is the same float vector on every ISA.
 *   Inputs should be scaled by a power of two (exact) so that the growth by
 *   up to D^(3/2) cannot overflow: hd_rotate does this.
 */
#ifndef SKETCH_HD_ROTATION_H
#define SKETCH_HD_ROTATION_H

#include <stdint.h>

#include "sketchmm/common.h"

#define HD_ROUNDS 3
/* Largest rotation dimension (2^24 floats = 64 MiB per vector). */
#define HD_MAX_DIM (INT64_C(1) << 24)

/* In-place unnormalised FWHT of v[0 .. D) (D a power of two >= 2) in the stage order above. */
typedef void (*fwht_fn)(float *v, int64_t D);

/*
 * The same transform with the sign flip of one round fused in:
 * v := H (v with the sign bit of v[i] xor-ed with flip[i]); flip == NULL
 * means no flip (then it is fwht_fn). Bit-identical to flip_signs followed
 * by fwht_scalar (a sign flip is exact and the butterflies are the same).
 */
typedef void (*fwht_flip_fn)(float *v, const uint32_t *flip, int64_t D);

/* Portable reference kernel. */
void fwht_scalar(float *v, int64_t D);
void fwht_flip_scalar(float *v, const uint32_t *flip, int64_t D);
#if defined(__x86_64__)
void fwht_avx2(float *v, int64_t D);
void fwht_avx512(float *v, int64_t D);
void fwht_flip_avx2(float *v, const uint32_t *flip, int64_t D);
void fwht_flip_avx512(float *v, const uint32_t *flip, int64_t D);
#endif
#if defined(__aarch64__)
void fwht_neon(float *v, int64_t D);
void fwht_flip_neon(float *v, const uint32_t *flip, int64_t D);
#endif

/*
 * Sign bits: for w < ceil(count / 64), words[w] gets bit i = [y[64 w + i] > 0]
 * (0 beyond count). y must hold no NaN. count >= 1.
 */
typedef void (*sign_pack_fn)(const float *y, int64_t count, uint64_t *words);
void sign_pack_scalar(const float *y, int64_t count, uint64_t *words);
#if defined(__x86_64__)
void sign_pack_avx2(const float *y, int64_t count, uint64_t *words);
void sign_pack_avx512(const float *y, int64_t count, uint64_t *words);
#endif
#if defined(__aarch64__)
void sign_pack_neon(const float *y, int64_t count, uint64_t *words);
#endif
/* The sign-packing kernel of ISA path isa. */
sign_pack_fn sign_pack_kernel(smm_isa isa);

/*
 * Squared norms and largest magnitudes of SQ_NORMS_GROUP vectors at once:
 * vector k < SQ_NORMS_GROUP is x_k = X + k * row_step, element t < d at
 * x_k[t * elem_step]. ss[k] = the sum of (double)x_t * (double)x_t added in
 * double in increasing t from 0 (the norm definition of sketch.h: one
 * dependent chain per vector; the vector kernels run SQ_NORMS_GROUP chains
 * side by side in SIMD lanes, each product being exact, so every sum is the
 * same double). big[k] = the largest |x_t| as `a > big ? a : big` from 0
 * (NaN elements are skipped). Bit-identical on every path for every input
 * (NaN sums: NaN-ness only). The vector kernels read contiguous elements
 * when elem_step == 1 (row-major) and contiguous vectors when row_step == 1
 * (column-major); other strides take the scalar loop.
 */
#define SQ_NORMS_GROUP 16
typedef void (*sq_norms_fn)(const float *X, int64_t row_step, int64_t elem_step, int64_t d, double *ss,
                            float *big);
void sq_norms_scalar(const float *X, int64_t row_step, int64_t elem_step, int64_t d, double *ss, float *big);
/* The same sums continued from element t0 onwards, on top of ss and big as
 * they are (the vector kernels finish their last d % 8 elements with it). */
void sq_norms_continue(const float *X, int64_t row_step, int64_t elem_step, int64_t t0, int64_t d,
                       double *ss, float *big);
/*
 * xs[t] = x[t] * scale (float product) for t < d, xs[t] = 0 for d <= t < D:
 * the scaled, zero-padded copy a rotation starts from. Contiguous x.
 */
typedef void (*scale_pad_fn)(const float *x, int64_t d, float scale, float *xs, int64_t D);
void scale_pad_scalar(const float *x, int64_t d, float scale, float *xs, int64_t D);
#if defined(__x86_64__)
void sq_norms_avx2(const float *X, int64_t row_step, int64_t elem_step, int64_t d, double *ss, float *big);
void sq_norms_avx512(const float *X, int64_t row_step, int64_t elem_step, int64_t d, double *ss, float *big);
void scale_pad_avx2(const float *x, int64_t d, float scale, float *xs, int64_t D);
void scale_pad_avx512(const float *x, int64_t d, float scale, float *xs, int64_t D);
#endif
/* The kernels of ISA path isa (scalar for NEON and unknown paths). */
sq_norms_fn sq_norms_kernel(smm_isa isa);
scale_pad_fn scale_pad_kernel(smm_isa isa);

/* The FWHT kernel of ISA path isa (the scalar one for unknown paths). */
fwht_fn fwht_kernel(smm_isa isa);
/* Its fused-flip variant. */
fwht_flip_fn fwht_flip_kernel(smm_isa isa);
/* Its name, e.g. "avx512". */
const char *fwht_kernel_name(smm_isa isa);

/* D for dimension d >= 0; 0 when d > HD_MAX_DIM. */
int64_t hd_rotation_dim(int64_t d);

/*
 * The sign masks of rotation `block` of `seed` in dimension D: flip[r * D + i]
 * is 0x80000000 when S_r has -1 at i, else 0 (xor into a float's bits).
 * flip has HD_ROUNDS * D elements.
 */
void hd_rotation_signs(uint64_t seed, uint64_t block, int64_t D, uint32_t *flip);

/*
 * y := rotation of x under the masks `flip` (from hd_rotation_signs):
 * x has d elements, element t at x[t * incx]; y has D floats (64-byte
 * alignment helps the vector kernels). x is first scaled by the power of two
 * 2^-e that brings max |x_t| into [1, 2) (no scaling when x is zero), which is
 * exact unless tiny elements become subnormal, and the same on every path.
 * x must be finite.
 */
void hd_rotate(const uint32_t *flip, const float *x, int64_t incx, int64_t d, int64_t D,
               fwht_fn fwht, float *y);

#endif /* SKETCH_HD_ROTATION_H */
