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

#include "common/smm_dispatch.h"
#include "sketchmm/common.h"

#define HD_ROUNDS 3
/* Largest rotation dimension (2^24 floats = 64 MiB per vector). */
#define HD_MAX_DIM (INT64_C(1) << 24)

/* In-place unnormalised FWHT of v[0 .. D) (D a power of two >= 2) in the stage order above. */

/*
 * The same transform with the sign flip of one round fused in:
 * v := H (v with the sign bit of v[i] xor-ed with flip[i]); flip == NULL
 * means no flip (the plain FWHT). Bit-identical to the sign flip followed
 * by fwht_scalar (a sign flip is exact and the butterflies are the same).
 */
typedef void (*fwht_flip_fn)(float *v, const uint32_t *flip, int64_t D);

/* Portable reference: the plain in-place FWHT of v[0 .. D) in the stage order above. */
void fwht_scalar(float *v, int64_t D);
void fwht_flip_scalar(float *v, const uint32_t *flip, int64_t D);
#if defined(__x86_64__)
void fwht_flip_avx2(float *v, const uint32_t *flip, int64_t D);
void fwht_flip_avx512(float *v, const uint32_t *flip, int64_t D);
#endif
#if defined(__aarch64__)
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

/*
 * xs[t] = x[t] * scale (float product) for t < d, xs[t] = 0 for d <= t < D:
 * the scaled, zero-padded copy a rotation starts from. Contiguous x; x may
 * be xs (each element is read before it is written).
 */
typedef void (*scale_pad_fn)(const float *x, int64_t d, float scale, float *xs, int64_t D);
void scale_pad_scalar(const float *x, int64_t d, float scale, float *xs, int64_t D);
#if defined(__x86_64__)
void scale_pad_avx2(const float *x, int64_t d, float scale, float *xs, int64_t D);
void scale_pad_avx512(const float *x, int64_t d, float scale, float *xs, int64_t D);
#endif

/*
 * The rotation kernels of one ISA path: a row of the table of hd_rotation.c
 * (the pattern of common/smm_dispatch.h; the scalar twins are in
 * fwht_scalar.c and sqnorm_scalar.c).
 */
typedef struct {
    smm_kernel_head head;   /* "scalar", "avx2", "avx512" or "neon" */
    fwht_flip_fn fwht;      /* fused-flip FWHT */
    sign_pack_fn sign_pack;
    scale_pad_fn scale_pad; /* scale_pad_scalar on NEON */
} hd_kernels;

/* The row of path isa (never NULL; SMM_ISA_AUTO gives the scalar row). */
const hd_kernels *hd_kernels_for(smm_isa isa);

/* D for dimension d >= 0; 0 when d > HD_MAX_DIM. */
int64_t hd_rotation_dim(int64_t d);

/*
 * The sign masks of rotation `block` of `seed` in dimension D: flip[r * D + i]
 * is 0x80000000 when S_r has -1 at i, else 0 (xor into a float's bits).
 * flip has HD_ROUNDS * D elements.
 */
void hd_rotation_signs(uint64_t seed, uint64_t block, int64_t D, uint32_t *flip);

/*
 * xs := 2^(1-e) x zero-padded to D, where big = max |x_t| = f 2^e with f in
 * [0.5, 1) (e = 0 when big == 0): the scaling that brings max |x_t| into
 * [1, 2), so that the growth of the rotation by up to D^(3/2) cannot
 * overflow. x has d elements, element t at x[t * incx]. Each element is
 * x_t 2^(1-e) rounded once to float (exact unless it becomes subnormal):
 * by scale_pad when incx == 1 and 2^(1-e) is a normal float (the float
 * product is that rounding), else in double. Same values on every path.
 */
void hd_scale_pad(const float *x, int64_t incx, int64_t d, int64_t D, float big,
                  scale_pad_fn scale_pad, float *xs);

/*
 * y := H S_2 H S_1 H S_0 xs under the masks `flip` (from hd_rotation_signs),
 * with the fused kernel fwht; xs (D floats, from hd_scale_pad) is copied
 * first unless y == xs (then it is rotated in place).
 */
void hd_rotate_scaled(const uint32_t *flip, fwht_flip_fn fwht, const float *xs, int64_t D, float *y);

/*
 * y := rotation of x (d elements, element t at x[t * incx]) under the masks
 * `flip`: hd_scale_pad with big = max |x_t|, then hd_rotate_scaled in place.
 * y has D floats (64-byte alignment helps the vector kernels). x must be
 * finite. The one-vector convenience of tests and the calibration generator.
 */
void hd_rotate(const uint32_t *flip, const float *x, int64_t incx, int64_t d, int64_t D,
               fwht_flip_fn fwht, float *y);

#endif /* SKETCH_HD_ROTATION_H */
