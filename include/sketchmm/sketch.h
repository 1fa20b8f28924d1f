/*
 * sketchmm/sketch.h - locality-sensitive sketches of vectors and the kernels
 * and estimators that work on them.
 *
 * SimHash (random hyperplanes, Charikar 2002)
 *   Bit b of the code of a vector x is 1 exactly when <x, g_b> > 0, where g_b
 *   is the b-th Gaussian hyperplane of the seed (sketch_simhash_hyperplanes)
 *   and the dot product is the reference value D defined below (its sign is
 *   the sign of the exact dot product unless that is within double rounding
 *   of 0).
 *   For two vectors at angle theta, each bit differs with probability
 *   theta / pi, so the Hamming distance h over `bits` bits gives the unbiased
 *   angle estimate pi * h / bits (variance theta * (pi - theta) / bits) and the
 *   cosine estimate cos(pi * h / bits).
 *
 * Code layout (the one bit order of the library)
 *   A code of `bits` bits occupies sketch_words(bits) = ceil(bits / 64)
 *   uint64_t words. Bit b lives in word b / 64 at bit position b % 64 (value
 *   1 << (b % 64)). Unused high bits of the last word are 0. A set of n codes
 *   is stored code after code, code i starting at word i * ldcodes.
 *
 * Reproducibility
 *   Codes depend only on (vectors, bits, seed): they are bit-identical for
 *   every thread count and ISA path, and on every platform with IEEE-754
 *   arithmetic. The reference dot product is
 *     D = (s_0 + s_1) + (s_2 + s_3),  s_r = sum over t = r (mod 4), in
 *     increasing t, of (double)x_t * (double)g_bt
 *   evaluated in double precision (each product of two floats is exact).
 *   The projections are computed in float by exact_sgemm; a projection too
 *   close to 0 for its sign to be certain under float rounding (by a rigorous
 *   error bound valid for any summation order, FMA or not), or one that
 *   overflowed, is replaced by D, so every path produces the sign of D.
 */
#ifndef SKETCHMM_SKETCH_H
#define SKETCHMM_SKETCH_H

#include "sketchmm/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest supported code length in bits (Hamming distances fit in uint16_t). */
#define SKETCH_MAX_BITS 65535

/* Words per code: ceil(bits / 64), or 0 when bits is outside 1..SKETCH_MAX_BITS. */
int64_t sketch_words(int32_t bits);

/*
 * sketch_simhash_hyperplanes - write the `bits` hyperplanes of `seed` in
 * dimension d: G is bits x d, row-major, leading dimension ldg >= max(1, d).
 *
 * Entry (b, t) is the standard-normal quantile of the uniform
 * u = ((h >> 11) + 0.5) * 2^-53, where h = XXH3_64bits_withSeed(key, 16, seed)
 * and key is the 16 bytes of the little-endian uint64 values b and t; the
 * quantile is computed in double precision (Wichura's AS 241 with a
 * library-internal logarithm, so every platform gives the same value) and
 * rounded to float. u is taken exactly, not rounded to a double: the
 * quantile is evaluated from q = u - 1/2 = (2 (h >> 11) + 1 - 2^53) * 2^-54,
 * which is exact, so u never becomes 1 and entries are finite, nonzero and
 * below 8.3 in magnitude. Entry (b, t) does not depend on d or on the other
 * entries.
 *
 * Returns SMM_OK, SMM_ERR_BAD_BITS, SMM_ERR_BAD_SIZE (d < 0),
 * SMM_ERR_BAD_LEADING_DIM, SMM_ERR_NULL_POINTER (G NULL with d > 0),
 * SMM_ERR_OVERFLOW.
 */
smm_status sketch_simhash_hyperplanes(int32_t bits, int64_t d, uint64_t seed,
                                      float *G, int64_t ldg);

/*
 * sketch_simhash_encode - SimHash codes (and optionally Euclidean norms) of
 * the n rows of X.
 *
 * X is n x d in `layout` with leading dimension ldx (as in exact_sgemm: for
 * SMM_ROW_MAJOR ldx >= max(1, d), for SMM_COL_MAJOR ldx >= max(1, n)); vector i
 * is row i. codes receives n codes, code i at codes + i * ldcodes, with
 * ldcodes >= sketch_words(bits). norms, when not NULL, receives the n norms
 * ||x_i||_2 (the square root of the sum of x_t^2 accumulated in double in
 * increasing t, rounded to float). A zero vector (every vector when d == 0)
 * gets the all-zero code and norm 0. Only the words 0 .. sketch_words(bits) - 1
 * of each code are written. X may be NULL when n * d == 0, codes when n == 0.
 *
 * Returns SMM_OK or, leaving codes and norms untouched: SMM_ERR_BAD_LAYOUT,
 * SMM_ERR_BAD_SIZE, SMM_ERR_BAD_LEADING_DIM, SMM_ERR_BAD_BITS,
 * SMM_ERR_NULL_POINTER, SMM_ERR_OVERFLOW, SMM_ERR_NON_FINITE (a vector holds
 * NaN or Inf, or its norm overflows), SMM_ERR_NO_MEMORY, or the ISA/thread
 * selection error. Uses smm_get_num_threads() threads.
 */
smm_status sketch_simhash_encode(smm_layout layout, int64_t n, int64_t d,
                                 const float *X, int64_t ldx,
                                 int32_t bits, uint64_t seed,
                                 uint64_t *codes, int64_t ldcodes, float *norms);

/*
 * sketch_hamming_u32 - all-pairs Hamming distances between two code sets:
 * dist[i * ldd + j] = popcount(a_i xor b_j) over `words` words, for
 * 0 <= i < na, 0 <= j < nb. a_i starts at a + i * lda, b_j at b + j * ldb
 * (in words; lda, ldb >= words >= 1), ldd >= max(1, nb). a may be NULL when
 * na == 0, b when nb == 0, dist when na * nb == 0.
 *
 * Returns SMM_OK or, leaving dist untouched: SMM_ERR_BAD_SIZE (na or nb
 * negative, words < 1), SMM_ERR_BAD_LEADING_DIM, SMM_ERR_NULL_POINTER,
 * SMM_ERR_OVERFLOW or the ISA/thread selection error.
 * Uses smm_get_num_threads() threads.
 */
smm_status sketch_hamming_u32(int64_t na, const uint64_t *a, int64_t lda,
                              int64_t nb, const uint64_t *b, int64_t ldb,
                              int64_t words, uint32_t *dist, int64_t ldd);

/* Name of the Hamming kernel the current ISA path runs (e.g. "avx512_vpopcntdq"). */
const char *sketch_hamming_impl(void);

/*
 * Estimates from a SimHash Hamming distance h between two codes of `bits`
 * bits. Each returns NaN when bits is outside 1..SKETCH_MAX_BITS or h is
 * outside 0..bits.
 */

/* Angle estimate pi * h / bits (radians). */
double sketch_angle_estimate(int64_t h, int32_t bits);

/* Cosine estimate cos(pi * h / bits). */
double sketch_cosine_estimate(int64_t h, int32_t bits);

/* Inner-product estimate norm_a * norm_b * cos(pi * h / bits). */
double sketch_dot_estimate(int64_t h, int32_t bits, double norm_a, double norm_b);

/* ------------------------------------------------------------------------
 * Sketch families (one encoder, sketch_encode, for all of them)
 *
 * SKETCH_SIMHASH             dense Gaussian hyperplanes, as sketch_simhash_encode.
 * SKETCH_SIMHASH_ORTHOGONAL  "super-bit": the same hyperplanes orthogonalised in
 *                            blocks of min(d, bits) rows.
 * SKETCH_SIMHASH_STRUCTURED  sign bits of HD-rotations (3 rounds of random +-1
 *                            diagonal and fast Walsh-Hadamard transform) of the
 *                            vector zero-padded to a power of two; O(d log d).
 * SKETCH_CROSSPOLYTOPE       cross-polytope LSH (Andoni et al. 2015): hash =
 *                            index of the largest |coordinate| of an
 *                            HD-rotation, with its sign; several hashes per
 *                            code, packed in fields.
 * The SimHash families share SimHash's code layout and Hamming estimators; the
 * cross-polytope family has its own field layout (sketch_crosspolytope_layout)
 * and estimator. Details of each are documented at its functions below.
 * ------------------------------------------------------------------------ */
typedef enum {
    SKETCH_SIMHASH = 0,
    SKETCH_SIMHASH_ORTHOGONAL = 1,
    SKETCH_SIMHASH_STRUCTURED = 2,
    SKETCH_CROSSPOLYTOPE = 3
} sketch_family;

/* "simhash", "simhash_orthogonal", "simhash_structured", "crosspolytope", or NULL. */
const char *sketch_family_name(sketch_family family);

/*
 * sketch_code_words - size query: *words = the uint64_t words one code of
 * `family` takes for vectors of dimension d and a budget of `bits` bits.
 * Returns SMM_OK, SMM_ERR_BAD_METHOD (unknown family), SMM_ERR_BAD_SIZE
 * (d < 0, or d too large for the family), SMM_ERR_BAD_BITS,
 * SMM_ERR_NULL_POINTER (words NULL).
 */
smm_status sketch_code_words(sketch_family family, int64_t d, int32_t bits, int64_t *words);

/*
 * sketch_encode - codes (and optionally norms) of the n rows of X for any
 * family: the arguments of sketch_simhash_encode, with ldcodes >= the words
 * of sketch_code_words. Codes depend only on (family, vectors, bits, seed):
 * bit-identical for every thread count and ISA path. Zero vectors get the
 * all-zero code (every family) and norm 0. Same statuses as
 * sketch_simhash_encode, plus SMM_ERR_BAD_METHOD.
 */
smm_status sketch_encode(sketch_family family, smm_layout layout, int64_t n, int64_t d,
                         const float *X, int64_t ldx, int32_t bits, uint64_t seed,
                         uint64_t *codes, int64_t ldcodes, float *norms);

#ifdef __cplusplus
}
#endif

#endif /* SKETCHMM_SKETCH_H */
