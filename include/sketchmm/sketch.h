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
 *   A code of `bits` bits occupies ceil(bits / 64) uint64_t words (the
 *   words sketch_code_words(SKETCH_SIMHASH, d, bits, &words) gives). Bit b
 *   lives in word b / 64 at bit position b % 64 (value 1 << (b % 64)).
 *   Unused high bits of the last word are 0. A set of n codes is stored code
 *   after code, code i starting at word i * ldcodes.
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
SMM_API smm_status sketch_simhash_hyperplanes(int32_t bits, int64_t d, uint64_t seed,
                                      float *G, int64_t ldg);

/*
 * sketch_simhash_encode - SimHash codes (and optionally Euclidean norms) of
 * the n rows of X.
 *
 * X is n x d in `layout` with leading dimension ldx (as in exact_sgemm: for
 * SMM_ROW_MAJOR ldx >= max(1, d), for SMM_COL_MAJOR ldx >= max(1, n)); vector i
 * is row i. codes receives n codes, code i at codes + i * ldcodes, with
 * ldcodes >= ceil(bits / 64). norms, when not NULL, receives the n norms
 * ||x_i||_2 (the square root of the sum of x_t^2 accumulated in double in
 * increasing t, rounded to float). A zero vector (every vector when d == 0)
 * gets the all-zero code and norm 0. Only the words 0 .. ceil(bits / 64) - 1
 * of each code are written. X may be NULL when n * d == 0, codes when n == 0.
 *
 * Returns SMM_OK or, leaving codes and norms untouched: SMM_ERR_BAD_LAYOUT,
 * SMM_ERR_BAD_SIZE, SMM_ERR_BAD_LEADING_DIM, SMM_ERR_BAD_BITS,
 * SMM_ERR_NULL_POINTER, SMM_ERR_OVERFLOW, SMM_ERR_NON_FINITE (a vector holds
 * NaN or Inf, or its norm overflows), SMM_ERR_NO_MEMORY, or the ISA/thread
 * selection error. Uses smm_get_num_threads() threads.
 */
SMM_API smm_status sketch_simhash_encode(smm_layout layout, int64_t n, int64_t d,
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
 * SMM_ERR_OVERFLOW, SMM_ERR_NO_MEMORY (a packed copy of b, the size of b, is
 * allocated) or the ISA/thread selection error.
 * Uses smm_get_num_threads() threads. The result does not depend on the
 * thread count or ISA path. Outputs of 8 MiB or more may be written with
 * non-temporal stores (they bypass the caches).
 */
SMM_API smm_status sketch_hamming_u32(int64_t na, const uint64_t *a, int64_t lda,
                              int64_t nb, const uint64_t *b, int64_t ldb,
                              int64_t words, uint32_t *dist, int64_t ldd);

/*
 * sketch_hamming_u16 - sketch_hamming_u32 with 16-bit distances (half the
 * memory traffic of the output, which dominates for short codes):
 * dist[i * ldd + j] = popcount(a_i xor b_j) over `words` words, same argument
 * rules, with 1 <= words <= 1023 so that a distance (at most 64 * words =
 * 65472) fits in uint16_t. Codes of up to 65472 bits qualify.
 *
 * Returns SMM_OK or, leaving dist untouched: SMM_ERR_BAD_SIZE (na or nb
 * negative, words < 1 or words > 1023), SMM_ERR_BAD_LEADING_DIM,
 * SMM_ERR_NULL_POINTER, SMM_ERR_OVERFLOW, SMM_ERR_NO_MEMORY or the ISA/thread
 * selection error. Uses smm_get_num_threads() threads; the result does not
 * depend on them or on the ISA path.
 */
SMM_API smm_status sketch_hamming_u16(int64_t na, const uint64_t *a, int64_t lda,
                              int64_t nb, const uint64_t *b, int64_t ldb,
                              int64_t words, uint16_t *dist, int64_t ldd);

/*
 * sketch_hamming_topk - the k nearest codes of b to each code of a in
 * Hamming distance, without forming the distance matrix.
 *
 * For each query a_i (0 <= i < na), row i of the output lists the k codes
 * b_j of smallest popcount(a_i xor b_j) over `words` words, ties broken by
 * the smaller index j, sorted by (distance, index):
 * idx[i * ldk + t] = j and dist[i * ldk + t] = its distance, 0 <= t < k.
 * a_i starts at a + i * lda, b_j at b + j * ldb (in words). The result is the
 * same for every thread count and ISA path.
 *
 * Argument rules: na, nb >= 0; 1 <= words <= 1024 (every code of at most
 * SKETCH_MAX_BITS bits); 1 <= k <= nb (so nb >= 1); lda, ldb >= words;
 * ldk >= k; a and b non-NULL (a may be NULL when na == 0); idx and dist
 * non-NULL when na > 0 (nothing is written when na == 0).
 *
 * Returns SMM_OK or, writing nothing: SMM_ERR_BAD_SIZE (na or nb negative,
 * words < 1 or words > 1024), SMM_ERR_BAD_ARGUMENT (k < 1 or k > nb),
 * SMM_ERR_BAD_LEADING_DIM, SMM_ERR_NULL_POINTER, SMM_ERR_OVERFLOW,
 * SMM_ERR_NO_MEMORY (a packed copy of b and, per thread, O(64 * words + k)
 * bytes of workspace) or the ISA/thread selection error. Sizes are checked
 * first, then k, then the pointers and leading dimensions. Uses smm_get_num_threads() threads (queries are split among them).
 */
SMM_API smm_status sketch_hamming_topk(int64_t na, const uint64_t *a, int64_t lda,
                               int64_t nb, const uint64_t *b, int64_t ldb,
                               int64_t words, int64_t k,
                               int64_t *idx, uint32_t *dist, int64_t ldk);

/*
 * Name of the Hamming kernel the current ISA path runs: "scalar",
 * "avx2_pshufb", "avx512_vpopcntdq" or "neon_cnt" (the kernel-name rule of
 * common.h; the AVX-512 path without AVX512_VPOPCNTDQ runs "avx2_pshufb").
 */
SMM_API const char *sketch_hamming_kernel_name(void);

/*
 * Estimates from a SimHash Hamming distance h between two codes of `bits`
 * bits. Each returns NaN when bits is outside 1..SKETCH_MAX_BITS or h is
 * outside 0..bits.
 */

/* Angle estimate pi * h / bits (radians). */
SMM_API double sketch_angle_estimate(int64_t h, int32_t bits);

/* Cosine estimate cos(pi * h / bits). */
SMM_API double sketch_cosine_estimate(int64_t h, int32_t bits);

/* Inner-product estimate norm_a * norm_b * cos(pi * h / bits). */
SMM_API double sketch_dot_estimate(int64_t h, int32_t bits, double norm_a, double norm_b);

/* ------------------------------------------------------------------------
 * Sketch methods: one enum for the sketch families of this header (one
 * encoder, sketch_encode, for all of them) and for the linear sketches that
 * approx.h uses besides them. The numbers are stable.
 *
 * Codes, sized in bits (sketch_encode, sketch_code_words; approx_sgemm
 * estimates from them):
 * SKETCH_SIMHASH              dense Gaussian hyperplanes, as sketch_simhash_encode.
 * SKETCH_SIMHASH_ORTHOGONAL   "super-bit": the same hyperplanes orthogonalised in
 *                             blocks of min(d, bits) rows.
 * SKETCH_SIMHASH_STRUCTURED   sign bits of HD-rotations (3 rounds of random +-1
 *                             diagonal and fast Walsh-Hadamard transform) of the
 *                             vector zero-padded to a power of two; O(d log d).
 * SKETCH_CROSSPOLYTOPE        cross-polytope LSH (Andoni et al. 2015): hash =
 *                             index of the largest |coordinate| of an
 *                             HD-rotation, with its sign; several hashes per
 *                             code, packed in fields.
 * The SimHash families share SimHash's code layout and Hamming estimators; the
 * cross-polytope family has its own field layout (sketch_crosspolytope_layout)
 * and estimator. Details of each are documented at its functions below.
 *
 * Linear sketches, sized by the sketch dimension s (approx_options.size),
 * used by approx.h only (its top comment has their math); sketch_encode and
 * sketch_code_words return SMM_ERR_BAD_METHOD for them:
 * SKETCH_GAUSSIAN_PROJECTION  a dense i.i.d. Gaussian k x s sketch matrix.
 * SKETCH_SRHT                 subsampled randomized Hadamard transform.
 * SKETCH_COUNTSKETCH          each coordinate into one of s buckets, with a
 *                             random sign.
 * SKETCH_CR_SAMPLING          column-row sampling: s columns of op(A) and rows
 *                             of op(B), drawn by their norms.
 * SKETCH_LOWRANK              data-aware: projection onto an orthonormal basis
 *                             of op(B)'s dominant s-dimensional column space
 *                             (randomized range finder).
 * SKETCH_PQ                   data-aware: product quantization, s = M subspaces
 *                             with 16 learned centroids each (4-bit codes),
 *                             estimated through byte lookup tables.
 * SKETCH_MADDNESS             data-aware: MADDNESS-style encoding, s = C
 *                             codebooks, each a learned 4-level hash tree
 *                             (4-bit codes of op(A) from comparisons only) with
 *                             16 prototypes; byte tables of op(B), the same
 *                             scans as SKETCH_PQ.
 * ------------------------------------------------------------------------ */
typedef enum {
    SKETCH_SIMHASH = 1,
    SKETCH_SIMHASH_ORTHOGONAL = 2,
    SKETCH_SIMHASH_STRUCTURED = 3,
    SKETCH_CROSSPOLYTOPE = 4,
    SKETCH_GAUSSIAN_PROJECTION = 5,
    SKETCH_SRHT = 6,
    SKETCH_COUNTSKETCH = 7,
    SKETCH_CR_SAMPLING = 8,
    SKETCH_LOWRANK = 9,
    SKETCH_PQ = 10,
    SKETCH_MADDNESS = 11
} sketch_method;

/* "simhash", "simhash_orthogonal", "simhash_structured", "crosspolytope",
 * "gaussian_projection", "srht", "countsketch", "cr_sampling", "lowrank", "pq", "maddness", or NULL. */
SMM_API const char *sketch_method_name(sketch_method method);

/* The method whose sketch_method_name is name (exactly), or 0 for NULL and any other text. */
SMM_API sketch_method sketch_method_from_name(const char *name);

/* 1 for the four code methods SKETCH_SIMHASH .. SKETCH_CROSSPOLYTOPE (sized by bits), 0 for the linear
 * sketches (sized by the sketch dimension) and for unknown values. */
SMM_API int sketch_method_uses_bits(sketch_method method);

/*
 * The SimHash families in detail. All three produce `bits` sign bits in the
 * code layout above (bit b in word b / 64 at position b % 64, unused high
 * bits of the last word 0), are estimated by sketch_angle_estimate /
 * sketch_cosine_estimate / sketch_dot_estimate on their Hamming distances,
 * give zero vectors the all-zero code, and produce codes that depend only on
 * (method, vectors, bits, seed): bit-identical for every thread count, ISA
 * path and layout, and on every IEEE-754 platform.
 *
 * SKETCH_SIMHASH: bit b = [<x, g_b> > 0] with g_b the Gaussian hyperplanes of
 *   sketch_simhash_hyperplanes (see the top of this file). Each bit differs
 *   with probability theta / pi independently, so the angle estimate
 *   pi h / bits is unbiased with Var = theta (pi - theta) / bits. Cost:
 *   bits x d hyperplane entries generated per call, then 2 bits d flops per
 *   vector (SGEMM).
 *
 * SKETCH_SIMHASH_ORTHOGONAL ("super-bit", Ji et al. 2012): the same Gaussian
 *   rows, orthonormalised in consecutive blocks of K = min(d, bits) rows
 *   (block j = rows jK .. min(jK + K, bits) - 1) by modified Gram-Schmidt in
 *   double in a fixed order, then rounded to float; bit b = [D > 0] with D
 *   the reference double dot product of the top of this file taken with the
 *   orthonormal float row b. Each row is uniform on the sphere, so the
 *   estimate stays unbiased; bits of one block are negatively correlated,
 *   so Var <= theta (pi - theta) / bits. Measured (2000 seeds, pairs at
 *   theta = pi/5, pi/2, 3pi/4): Var / (theta (pi - theta) / bits) = 0.81,
 *   0.61, 0.72 at d = bits = 64; 0.90, 0.77, 0.83 at d = 100, bits = 64;
 *   0.97, 0.87, 0.97 at d = 784, bits = 256 (400 seeds). Cost: as
 *   SKETCH_SIMHASH plus bits K d flops of orthonormalisation per call.
 *   Codes for a given bits are not a prefix of those for a larger bits
 *   when bits < d (the blocks differ).
 *
 * SKETCH_SIMHASH_STRUCTURED: with D = the smallest power of two >= max(d, 2)
 *   (d <= 2^24), bit j D + i (i < D, j D + i < bits) is [y_i > 0] where
 *   y = H S_2 H S_1 H S_0 (2^s x zero-padded to D): H the unnormalised
 *   Walsh-Hadamard matrix of order D, S_r diagonal +-1 signs drawn from
 *   XXH3 of (seed, block j, round r), 2^s the power of two that brings
 *   max |x_t| into [1, 2). Every transform is computed in float as the
 *   butterfly stages h = 1, 2, .., D/2 in this order (each SIMD kernel does
 *   exactly these operations), so y, and the code, is the same float vector
 *   everywhere. Each block is an orthogonal transform, so its bits behave
 *   like orthogonal hyperplanes (not exactly Gaussian ones: the estimate is
 *   unbiased only approximately; no bias was detectable at 4 standard
 *   errors in the tests). Measured as above: Var / (theta (pi - theta) /
 *   bits) = 0.81, 0.55, 0.72 at d = bits = 64; 0.86, 0.80, 0.84 at d = 100,
 *   bits = 64; 0.99, 0.86, 0.89 at d = 784, bits = 256. Cost: O(d) to load
 *   and scale plus 3 D log2 D additions per block of D bits, per vector; no
 *   hyperplanes. Norms are computed in the same pass over the vectors.
 */

/*
 * sketch_code_words - size query: *words = the uint64_t words one code of
 * `method` takes for vectors of dimension d and a budget of `bits` bits
 * (SimHash families: ceil(bits / 64)).
 * Returns SMM_OK, SMM_ERR_BAD_METHOD (a linear sketch or an unknown value),
 * SMM_ERR_BAD_SIZE (d < 0, or d too large for the family), SMM_ERR_BAD_BITS,
 * SMM_ERR_NULL_POINTER (words NULL).
 */
SMM_API smm_status sketch_code_words(sketch_method method, int64_t d, int32_t bits, int64_t *words);

/*
 * sketch_encode - codes (and optionally norms) of the n rows of X for any
 * code method: the arguments of sketch_simhash_encode, with ldcodes >= the
 * words of sketch_code_words. Codes depend only on (method, vectors, bits,
 * seed): bit-identical for every thread count and ISA path. Zero vectors get
 * the all-zero code (every family) and norm 0. Same statuses as
 * sketch_simhash_encode, plus SMM_ERR_BAD_METHOD (a linear sketch or an
 * unknown value).
 */
SMM_API smm_status sketch_encode(sketch_method method, smm_layout layout, int64_t n, int64_t d,
                         const float *X, int64_t ldx, int32_t bits, uint64_t seed,
                         uint64_t *codes, int64_t ldcodes, float *norms);

/* ------------------------------------------------------------------------
 * Cross-polytope LSH (SKETCH_CROSSPOLYTOPE; Andoni, Indyk, Laarhoven,
 * Razenshteyn, Schmidt 2015)
 *
 * Hashes
 *   D = the smallest power of two >= max(d, 2) (d <= 2^24), w = log2(D) + 1.
 *   Rotation l of the seed is the 3-round HD-rotation y = H S_2 H S_1 H S_0 x
 *   of x zero-padded to D (S_r: random +-1 diagonals of (seed, block l, round
 *   r) from XXH3, H: the unnormalised Walsh-Hadamard matrix; computed in
 *   float in a fixed order, identical on every ISA path). A cross-polytope
 *   hash of dimension D' <= D of y is
 *     i + (y_i < 0 ? D' : 0),  i = the smallest index < D' with the largest |y_i|,
 *   a value in 0 .. 2D' - 1 (the nearest of the 2D' vertices +-e_i).
 *   With a budget of `bits` bits: L = bits / w full hashes (dimension D,
 *   hash l from rotation l, l = 0 .. L-1) and, when r = bits % w > 0, one
 *   more, smaller hash of dimension D' = 2^(r-1) on the first D' coordinates
 *   of rotation L (r bits; D' = 1 is the sign of y_0). Every bit budget from
 *   1 to SKETCH_MAX_BITS is usable; the code spends exactly `bits` bits of
 *   hash values.
 *
 * Code layout (fields never straddle a word)
 *   fields_per_word = floor(64 / w). Hash k (k = 0 .. hashes-1, the small
 *   hash last) is stored in word k / fields_per_word at bit offset
 *   (k % fields_per_word) * w, occupying w bits (the small hash: its r low
 *   bits, the other w - r bits of its slot are 0). words =
 *   ceil(hashes / fields_per_word); every bit not holding a hash is 0.
 *   Codes of n vectors are stored code after code, code i at i * ldcodes.
 *
 * Zero vectors (and d == 0) get the all-zero code (every hash 0: every
 * |y_i| ties at 0 and y_0 is not negative) and norm 0; their estimates are
 * meaningless, as for SimHash.
 * ------------------------------------------------------------------------ */

/* The shape of a cross-polytope code for dimension d and a budget of `bits` bits. */
typedef struct {
    int64_t dim;             /* D = smallest power of two >= max(d, 2) */
    int32_t width;           /* w = log2(D) + 1 bits per full hash */
    int32_t full_hashes;     /* L = bits / w */
    int32_t last_width;      /* r = bits % w: bits of the small last hash (0: none) */
    int64_t last_dim;        /* D' = 2^(r-1) when r > 0, else 0 */
    int32_t hashes;          /* L + (r > 0): hashes (fields) per code, >= 1 */
    int32_t fields_per_word; /* floor(64 / w) */
    int64_t words;           /* ceil(hashes / fields_per_word) uint64_t words per code */
} sketch_cp_layout;

/*
 * sketch_crosspolytope_layout - fill *layout for dimension d and `bits` bits.
 * Returns SMM_OK, SMM_ERR_BAD_SIZE (d < 0 or d > 2^24), SMM_ERR_BAD_BITS
 * (bits outside 1..SKETCH_MAX_BITS) or SMM_ERR_NULL_POINTER; *layout is
 * untouched on error. sketch_code_words(SKETCH_CROSSPOLYTOPE, d, bits, &w)
 * gives the same words.
 */
SMM_API smm_status sketch_crosspolytope_layout(int64_t d, int32_t bits, sketch_cp_layout *layout);

/*
 * sketch_crosspolytope_matches - all-pairs counts of equal hashes between
 * two sets of cross-polytope codes of dimension d and `bits` bits:
 * matches[i * ldm + j] = number of hashes k with hash k of a_i == hash k of
 * b_j, 0 <= i < na, 0 <= j < nb (0 .. layout.hashes). Computed per word as
 * x = a xor b, nz = (((x & M) + M) | x) & H (H: the top bit of every field,
 * M: the other bits of the fields), matches = hashes - sum popcount(nz); the
 * unused bits of the codes must be 0 (as the encoder writes them).
 * a_i starts at a + i * lda, b_j at b + j * ldb (in words; lda, ldb >=
 * layout.words), ldm >= max(1, nb). a may be NULL when na == 0, b when
 * nb == 0, matches when na * nb == 0. Exact integers: the same on every ISA
 * path and thread count.
 *
 * Returns SMM_OK or, leaving matches untouched: SMM_ERR_BAD_SIZE (d out of
 * range, na or nb negative), SMM_ERR_BAD_BITS, SMM_ERR_BAD_LEADING_DIM,
 * SMM_ERR_NULL_POINTER, SMM_ERR_OVERFLOW or the ISA/thread selection error.
 * Uses smm_get_num_threads() threads.
 */
SMM_API smm_status sketch_crosspolytope_matches(int64_t d, int32_t bits,
                                        int64_t na, const uint64_t *a, int64_t lda,
                                        int64_t nb, const uint64_t *b, int64_t ldb,
                                        uint16_t *matches, int64_t ldm);

/*
 * Name of the match kernel sketch_crosspolytope_matches runs on the current
 * ISA path: "scalar", "avx2" or "avx512_vpopcntdq" (the kernel-name rule of
 * common.h; the AVX-512 path without AVX512_VPOPCNTDQ runs "avx2", the NEON
 * path "scalar").
 */
SMM_API const char *sketch_crosspolytope_kernel_name(void);

/*
 * Calibration
 *   p(rho) is the probability that a hash takes the same value on two
 *   vectors with cosine rho (over the seed). Two models:
 *   - Gaussian model (large D): the rotated coordinates are taken as D
 *     independent pairs (u_i, v_i) of standard normals with correlation rho:
 *       p_D(rho) = 2D * integral over u, v > 0 of phi_rho(u, v) F(u, v)^(D-1),
 *       F(u, v) = P(|U| < u, |V| < v)
 *     (phi_rho: the bivariate normal density), computed by quadrature
 *     (scripts/gen_crosspolytope_table.py documents it; p_D(0) = 1/(2D)).
 *     The asymptotic ln(1/p) ~ tan^2(theta/2) ln D is not used (about 2x off
 *     at D = 128).
 *   - Measured (D <= 1024): an HD-rotation is orthogonal, so two orthogonal
 *     vectors stay orthogonal and cannot both be nearest to the same vertex
 *     as easily as the Gaussian model assumes: measured on the implemented
 *     hash, p at rho = 0 is 0.43 of the Gaussian 1/(2D) at D = 16, 0.72 at
 *     D = 64, 0.79 at D = 128 (and exactly 0 at D = 2), so the Gaussian model
 *     biases small-D estimates upwards by up to 0.1 in cosine. For rotation
 *     dimensions D = 2 .. 1024 the table therefore holds the collision
 *     probabilities of the implemented hashes (full, and the small last
 *     hash on the first D' coordinates) measured by seeded Monte Carlo
 *     (scripts/gen_crosspolytope_mc.c: 200000 pairs of random Gaussian
 *     vectors per D, common random numbers across angles, standard error at
 *     most 0.0012 in p), made monotone.
 *   The table holds p at theta = k pi / 256 (k = 0 .. 256); values in
 *   between are interpolated linearly in theta = acos(rho).
 *   E[matches](rho) = L p_D(rho) + [r > 0] p_D'(rho) is increasing in rho
 *   from 0 (rho = -1) to hashes (rho = 1).
 *   The measured values are averages over random (Gaussian) vector pairs: an
 *   HD-rotation is not a uniformly random rotation, so for small D
 *   particular inputs (e.g. sparse or structured vectors) can collide more
 *   or less often than the table says.
 *   Accuracy (tests/test_crosspolytope.c, independent seeded pairs of
 *   Gaussian vectors with exact cosine rho, 48 hashes per pair, 80 .. 250
 *   pairs): for d = 16, 64, 128, 256, 1024 and rho = 0, 0.3, 0.5, 0.7, 0.9 the
 *   measured collision rate agrees with the table within 2.1 standard errors
 *   in every case; expressed as a cosine (the rho at which the table gives
 *   the measured rate) the error is at most 0.005 at rho >= 0.7 and 0.012 at
 *   rho = 0.5, and within 2.1 of its own standard error elsewhere (at
 *   rho <= 0.3 and large D the hash rarely collides, so such rates are only
 *   known to +-0.01 .. 0.04 in cosine from these samples). The test bounds
 *   the rate by 4.5 standard errors and the cosine error by 0.02 wherever
 *   its standard error is below 0.005. The mean per-pair cosine estimate
 *   with 48 hashes is within 0.016 of rho (bias of the nonlinear estimator)
 *   wherever E[matches] >= 5; with fewer expected matches most estimates
 *   are clamped to -1, so short codes cannot resolve low cosines in large D.
 *   The Gaussian rows, used for D >= 2048, agree with measurements of the
 *   implemented hash at D = 1024 within 1.3 standard errors (100000 hashes
 *   per rho); the gap shrinks as D grows.
 */

/*
 * sketch_crosspolytope_collision_probability - the calibrated collision
 * probability at cosine rho of a hash of dimension hash_dim (a power of two
 * <= D) on the first hash_dim coordinates of the rotation used for
 * dimension d (hash_dim == D: a full hash). NaN when d is out of range,
 * hash_dim is not such a power of two or rho is outside [-1, 1].
 */
SMM_API double sketch_crosspolytope_collision_probability(int64_t d, int64_t hash_dim, double rho);

/* E[matches](rho) for dimension d and `bits` bits; NaN for invalid d, bits or rho. */
SMM_API double sketch_crosspolytope_expected_matches(int64_t d, int32_t bits, double rho);

/*
 * sketch_crosspolytope_cosine_estimate - the cosine rho with
 * E[matches](rho) = matches (inverting the interpolated calibration; clamped
 * to [-1, 1]: matches == 0 gives -1, matches == hashes gives 1). NaN when d
 * or bits are invalid or matches is outside 0 .. layout.hashes.
 */
SMM_API double sketch_crosspolytope_cosine_estimate(int64_t d, int32_t bits, int64_t matches);

/* Var[matches](rho) = L p (1 - p) + [r > 0] p' (1 - p'), p = p_D(rho), p' = p_D'(rho)
 * (the hashes are independent in the Gaussian model). NaN for invalid arguments. */
SMM_API double sketch_crosspolytope_matches_variance(int64_t d, int32_t bits, double rho);

/*
 * Delta-method variance of the cosine estimate at the true cosine rho:
 * Var[matches](rho) / (dE[matches]/drho)^2, the slope being that of the
 * table segment holding rho (0 at rho = +-1, where Var[matches] = 0). It
 * describes the estimate's spread when that is small against the curvature
 * of E; near the ends the clamping makes the true variance smaller. NaN for
 * invalid arguments.
 */
SMM_API double sketch_crosspolytope_cosine_variance(int64_t d, int32_t bits, double rho);

/*
 * SimHash statistics. For two vectors at angle theta in [0, pi], the Hamming
 * distance of `bits`-bit SimHash codes is Binomial(bits, theta / pi), so the
 * angle estimate pi h / bits is unbiased with
 *   Var[theta-hat] = theta (pi - theta) / bits,
 * and the cosine estimate cos(theta-hat) has the delta-method variance
 *   sin^2(theta) theta (pi - theta) / bits.
 * Both return NaN when theta is outside [0, pi] or bits outside
 * 1..SKETCH_MAX_BITS.
 */
SMM_API double sketch_simhash_angle_variance(double theta, int32_t bits);
SMM_API double sketch_simhash_cosine_variance(double theta, int32_t bits);

#ifdef __cplusplus
}
#endif

#endif /* SKETCHMM_SKETCH_H */
