/*
 * sketchmm/approx.h - approximate matrix products: C ~ alpha * op(A) op(B) +
 * beta * C from sketches, and the top-k entries of each row of op(A) op(B)
 * with exact values.
 *
 * One call, exact_sgemm's conventions (sketchmm/exact.h): approx_sgemm. Behind
 * it, a plan: the sketch of op(B) made once (approx_plan_create) and used for
 * any number of products with different A (approx_plan_multiply) and for
 * top-k search (approx_plan_topk). approx_sgemm and approx_topk are the
 * one-shot forms (create, use, free).
 *
 * Notation: a_i is row i of op(A) (m rows), b_j column j of op(B) (n
 * columns), both of dimension k; C_ij = <a_i, b_j>. The alignment
 * ||op(A) op(B)||_F / (||A||_F ||B||_F) (<= 1) says how much of the norms
 * the product keeps: estimates whose error scales with |a_i| |b_j| are only
 * useful where it is large (report it with any error figure).
 *
 * Methods (approx_options.method: the values of sketch_method, listed
 * in sketchmm/sketch.h with sketch_method_name and sketch_method_uses_bits)
 *
 * Sketch families (sketchmm/sketch.h): each a_i and b_j gets a code of
 * bits = opts->size bits and its norm; C_ij ~ |a_i| |b_j| cos-estimate(code_i,
 * code_j). The estimate of one entry takes bits / 64 xor-popcounts and one
 * table lookup (the estimator is a function of a small integer), fused: the
 * distance matrix is never stored. Cost: sketching both sides (per family
 * below) + m n (bits / 64) word operations. Error: the cosine estimate's
 * standard deviation times |a_i| |b_j|, independent of m, n and k; it falls
 * as 1 / sqrt(bits). For SimHash near cosine 0, sd(cos) ~ sqrt(2.47 / bits).
 *   SKETCH_SIMHASH              dense Gaussian hyperplanes; sketching costs
 *                               2 bits k flops per vector (SGEMM).
 *                               Var[theta-hat] = theta (pi - theta) / bits.
 *   SKETCH_SIMHASH_ORTHOGONAL   hyperplanes orthonormalised in blocks
 *                               ("super-bit"): the same cost plus the
 *                               orthonormalisation; variance at most SimHash's.
 *   SKETCH_SIMHASH_STRUCTURED   3 rounds of random signs and Walsh-Hadamard
 *                               transform: O(k log k) per vector and bits / K'
 *                               blocks (K' = k rounded up to a power of two).
 *   SKETCH_CROSSPOLYTOPE        cross-polytope LSH on the same rotations; the
 *                               cosine comes from the calibrated collision
 *                               table of sketch_crosspolytope_cosine_estimate.
 *
 * Classical randomised products (sketch dimension s = opts->size): a
 * random k x s matrix S, the same for both sides, and
 *   C ~ (op(A) S) (S^T op(B)),
 * both factors and their product computed with exact_sgemm. Cost: sketching
 * (below) + 2 m n s flops. Each is unbiased, E[S S^T] = I, and for fixed
 * i, j the entry error has variance about (|a_i|^2 |b_j|^2 + C_ij^2) / s
 * (Gaussian; the others within small factors), so the relative Frobenius
 * error is about sqrt((1 + alignment^2) / (s alignment^2)) on aligned data.
 *   SKETCH_GAUSSIAN_PROJECTION  S = G / sqrt(s), G i.i.d. N(0, 1) from (seed,
 *                               row, column) through xxHash. Sketching:
 *                               2 k s flops per vector (SGEMM).
 *   SKETCH_SRHT                 subsampled randomized Hadamard transform:
 *                               S = sqrt(K'/s) D H P / sqrt(K') with D random
 *                               signs, H the Walsh-Hadamard matrix of order K'
 *                               (k zero-padded to a power of two, the
 *                               library's FWHT) and P s coordinates drawn
 *                               uniformly with replacement. Sketching:
 *                               K' log2 K' additions per vector.
 *   SKETCH_COUNTSKETCH          each coordinate t goes to bucket h(t) in 0..s-1
 *                               with sign sigma(t) (both from xxHash):
 *                               one pass over the vector, k additions.
 *   SKETCH_CR_SAMPLING          column-row sampling (Drineas, Kannan, Mahoney
 *                               2006): s indices t drawn with replacement with
 *                               probability p_t proportional to
 *                               |column t of op(A)| |row t of op(B)|, and
 *                               C ~ sum over draws of a_:t b_t: / (s p_t).
 *                               Unbiased; E||C - C-hat||_F^2 <=
 *                               ||A||_F^2 ||B||_F^2 / s, the smallest bound
 *                               of any sampling distribution. The draw needs
 *                               op(A)'s column norms, so a plan keeps a copy
 *                               of op(B) and samples at multiply time.
 *
 * Data-aware projection (sized by s = opts->size like the classical
 * methods, the same C ~ (op(A) V)(V^T op(B)) with both factors and their
 * product from exact_sgemm, but S = V made from op(B) itself):
 *   SKETCH_LOWRANK              V (k x s, orthonormal columns) spans op(B)'s
 *                               dominant s-dimensional column space, found by a
 *                               randomized range finder (Halko, Martinsson and
 *                               Tropp 2011): Y = op(B) Omega with a Gaussian
 *                               n x l test matrix (l = min(s + 8, k), Omega
 *                               from the seed), one power iteration
 *                               Y = op(B) op(B)^T Q with Q = orth(Y), then the l x l eigenproblem of
 *                               Q^T op(B) op(B)^T Q (Gram matrix and cyclic
 *                               Jacobi in double) and V = Q times its top s
 *                               eigenvectors. C_ij - est_ij =
 *                               a_i^T (I - V V^T) b_j, so
 *                               |C_ij - est_ij| <= |a_i| |(I - V V^T) b_j|
 *                               and ||C - est||_F <= ||op(A)||_F
 *                               ||(I - V V^T) op(B)||_2. With the exact top s
 *                               singular vectors the last factor is
 *                               sigma_{s+1}(op(B)), the least any rank-s
 *                               projection achieves (Eckart-Young); the
 *                               randomized basis is within Halko et al.'s bound
 *                               (their corollary 10.10 with p = l - s and
 *                               q = 1, plus sigma_{s+1} for the truncation
 *                               from l to s): close to sigma_{s+1} when the
 *                               spectrum decays. The estimate is not unbiased:
 *                               it is good when the rows of op(A) lie near the
 *                               span of op(B)'s dominant directions (queries
 *                               drawn like the data), and no better than a
 *                               random projection when they do not (i.i.d.
 *                               noise), nor when the data's rank exceeds s or
 *                               a nonlinear map spreads a low-rank signal
 *                               (docs/methods.md: cubed coordinates, top-10
 *                               recall 0.30 at 20 candidates, s = 16). Plan cost: 6 n k l flops of SGEMM,
 *                               n l Gaussian draws, O(k l^2 + n l^2) in
 *                               double, then V^T op(B) (2 n k s flops); a
 *                               product: 2 m k s + 2 m n s flops.
 *                               s >= k gives V = I: exact_sgemm's product.
 *                               opts->energy e in (0, 1] chooses the least rank
 *                               s' <= s whose eigenvalues sum to e
 *                               ||op(B)||_F^2 (s when none does); 0 uses s.
 *                               V is bit-identical for every thread count and
 *                               equal across ISA paths up to exact_sgemm's
 *                               rounding.
 *   SKETCH_PQ                   product quantization with 4-bit codes (Jegou et
 *                               al. 2011; the scans of Bolt and FAISS fast
 *                               scan): k is cut into M = s contiguous
 *                               subspaces (1 <= M <= min(k, 4096); the first
 *                               k % M one dimension longer), each with 16
 *                               centroids trained by k-means on op(B)'s
 *                               columns (at most 4096 of them, drawn from the
 *                               seed; 16 initial centroids drawn from the
 *                               seed; 20 iterations; sums in double in a fixed
 *                               order, so codebooks and codes are the same for
 *                               every thread count and ISA path), and b_j is
 *                               stored as the M indices of its nearest
 *                               centroids (M / 2 bytes). A row a_i gets a table
 *                               T_i[m][c] = <a_i's part m, centroid (m, c)>,
 *                               quantized to bytes with one step delta_i per
 *                               row and an offset per subspace, and
 *                               est_ij = delta_i sum_m lut_i[m][code_m(b_j)]
 *                               + bias_i, summed exactly in integers by byte
 *                               shuffles (vpshufb, tbl): the same on every ISA
 *                               path. Error: <a_i, b_j - q(b_j)> (the
 *                               quantization of b_j; on average shrinking as
 *                               M grows) plus at most M delta_i / 2 from the
 *                               byte tables. Not unbiased. The most robust of
 *                               the learned methods on the stress data of
 *                               docs/methods.md at large M (M = 196: top-10
 *                               recall 0.82-0.93 at 20 candidates, not on
 *                               i.i.d. data); small M needs many candidates. M > k:
 *                               SMM_ERR_BAD_ARGUMENT; fewer than 16 columns:
 *                               SMM_ERR_BAD_SIZE. Plan cost: 20 x 16 x 2 k
 *                               flops per training vector, 32 k flops per
 *                               column to encode; a product: 32 k flops per
 *                               row for its table, then M lookups per entry.
 *   SKETCH_MADDNESS             MADDNESS-style encoding (Blalock and Guttag,
 *                               "Multiplying Matrices Without Multiplying",
 *                               ICML 2021): PQ with the roles swapped and
 *                               learned hash trees instead of nearest
 *                               centroids, of DIRECTIONS: a vector x is its
 *                               norm |x| (kept exactly) times u(x) = x / |x|
 *                               (norm in double, u rounded to float), so the
 *                               code does not depend on the scale of x. k is
 *                               cut into C = s contiguous
 *                               subspaces as for SKETCH_PQ (1 <= C <= min(k,
 *                               256)). Codebook c has a balanced binary tree of
 *                               4 levels, one split dimension per level (in its
 *                               subspace) and one threshold per node; a_i's
 *                               code in c is its leaf (0..15), reached by 4
 *                               comparisons u(a_i)[j_t] >= threshold (right);
 *                               and 16 prototypes P_{c,l} of
 *                               dimension k, so a_i ~ q(a_i) = |a_i| sum_c
 *                               P_{c,code_c(a_i)}. Training on the directions
 *                               of op(B)'s columns (at most 4096, drawn from
 *                               the seed: queries assumed to point like the
 *                               data, at any scale), greedy
 *                               per level: of the 4 dimensions of largest
 *                               within-bucket variance, the one whose optimal
 *                               per-bucket thresholds (by sorting and running
 *                               sums) leave the least squared error in the
 *                               subspace; prototypes first the leaves' means,
 *                               then the ridge regression over all k
 *                               dimensions P = argmin ||X - G P||^2 + lambda
 *                               ||P||^2 (G the one-hot leaf matrix of the
 *                               training vectors), solved by Cholesky in
 *                               double, with lambda chosen from the data: a
 *                               fifth of the training vectors (drawn from
 *                               the seed) held out, the leaf means and
 *                               lambda = s/256, s/64, s/16, s/4, s (s the
 *                               mean leaf size, so scale-free) fitted on the
 *                               rest and scored by the error of the held-out
 *                               vectors' inner products with 64 training
 *                               directions, the winner refitted on all of
 *                               them (dense NMSE on Gaussian data, n = 1000,
 *                               C = 32: 0.91, 2.12 with the former fixed
 *                               lambda = 1; Fashion-MNIST 0.0054 against
 *                               0.0059; docs/methods.md). Every step runs in double
 *                               in a fixed order: trees and prototypes, and so
 *                               the codes of op(A), are the same for every
 *                               thread count and ISA path. The plan keeps per
 *                               column b_j the table T_j[c][l] = <P_{c,l},
 *                               b_j> (exact_sgemm), quantized to bytes as
 *                               SKETCH_PQ's query tables (step delta_j per
 *                               column, an offset per codebook), and
 *                               est_ij = (delta_j sum_c lut_j[c][code_c(a_i)]
 *                               + bias_j) |a_i|, the sum exact by SKETCH_PQ's
 *                               scan kernels. Error: <q(a_i) - a_i, b_j> (the
 *                               trees' quantization of a_i's direction,
 *                               shrinking on average as C grows when the rows
 *                               of op(A) point like op(B)'s columns) plus at
 *                               most |a_i| C delta_j / 2 from the byte tables.
 *                               Where it fails (docs/methods.md, measured on
 *                               Zen 4; top-10 recall of 500 queries against
 *                               10,000 vectors of k = 784 at 20 / 100 / 500
 *                               candidates, C = 32):
 *                               - direction variance spread evenly over many
 *                                 dimensions (texture-like images, 1/f^2
 *                                 spectrum): 4 comparisons per subspace see
 *                                 little of it, held-out direction error
 *                                 0.56 against 0.12 on Fashion-MNIST,
 *                                 recall 0.51 / 0.84 / 0.98 (lowrank s = 16:
 *                                 0.76 / 0.97 / 1.00);
 *                               - heavy-tailed coordinates (cubed low-rank
 *                                 data): the least-squared-error splits cut
 *                                 off the outliers, and the fullest leaf holds
 *                                 74% of the vectors, recall 0.32 / 0.62 /
 *                                 0.90 (structured SimHash 512 bits: 0.72 /
 *                                 0.97 / 1.00);
 *                               - few training vectors for the 16 C
 *                                 prototypes (a dense product trains on B's
 *                                 n columns) on data without structure: the
 *                                 held-out choice of lambda falls back to
 *                                 the leaf means, which still leave a dense
 *                                 NMSE of 0.91 on Gaussian data (n = 1000,
 *                                 C = 32);
 *                               - queries that point elsewhere than the data
 *                                 (another distribution; another scale is
 *                                 fine). Not unbiased; the
 *                               tables, hence C, are bit-identical for every
 *                               thread count and equal across ISA paths up to
 *                               exact_sgemm's rounding of T_j (which can move
 *                               a byte by one step). C > k or C > 256:
 *                               SMM_ERR_BAD_ARGUMENT; fewer than 16 columns:
 *                               SMM_ERR_BAD_SIZE. Plan cost: O(16 N k) for the
 *                               trees (N <= 4096 training vectors), O(N C k)
 *                               + (16 C)^3 / 6 + 2 (16 C)^2 k flops in double
 *                               for the ridge regression, and for the choice
 *                               of lambda 128 N k + 3 or 4 times ((16 C)^3 / 6
 *                               + 128 (16 C)^2) (training 1.40-1.46x the
 *                               instructions of a fixed lambda at C = 16 to
 *                               64), then 32 C k flops
 *                               per column for its table (SGEMM); a product:
 *                               2 k flops (its norm) and 4 C comparisons per
 *                               row of op(A) to encode it, then C lookups per
 *                               entry.
 *
 * Reproducibility: every method's randomness is a function of (method, seed,
 * sizes) alone. The sketch-family methods give bit-identical C for every
 * thread count and ISA path. The classical methods compute the same sketches
 * everywhere and multiply them with exact_sgemm: bit-identical for every
 * thread count, equal across ISA paths up to exact_sgemm's float rounding.
 *
 * Statuses: every function returns SMM_OK or leaves its outputs untouched and
 * returns a status of sketchmm/common.h: the argument statuses of
 * exact_sgemm, SMM_ERR_BAD_SIZE also for k or n zero where a call needs them
 * >= 1 (approx_plan_create, approx_topk, exact_topk; approx_sgemm accepts
 * zero sizes), SMM_ERR_BAD_METHOD (unknown method), SMM_ERR_BAD_BITS (size
 * outside 1..SKETCH_MAX_BITS for a sketch family), SMM_ERR_BAD_ARGUMENT
 * (an option out of its range: size outside 1..APPROX_MAX_SKETCH_DIM for
 * the other methods, energy other than 0 for a method other than
 * SKETCH_LOWRANK or outside (0, 1], candidates < 0, topk outside 1..n,
 * candidates outside topk..n, struct_size out of range; or an output
 * overlapping an input, below; approx_check_sizes names the limit),
 * SMM_ERR_BAD_THREADS, SMM_ERR_NON_FINITE (below), SMM_ERR_NO_MEMORY,
 * SMM_ERR_OVERFLOW.
 *
 * Scale: the estimates do not depend on how A and B are scaled. A B does
 * not change when B is multiplied by s and A by 1 / s, and neither does an
 * estimate's relative error, for every method, over the whole finite float
 * range (s from about 2^-100 to 2^100 on data near 1: the property test
 * tests/test_approx_scale.c). The classical and data-aware methods square
 * their data or add up its products in float (k-means distances, the range
 * finder's power iteration, sketched factors), so before a method sees op(B)
 * (at plan creation) and op(A) (at each call), a side whose largest
 * magnitude lies outside [2^-32, 2^32) is multiplied by the power of two
 * that brings it into [1, 2) (exact: a one-shot call then copies that side),
 * and the estimate by the inverse; data inside that window is not touched
 * (the same bits as without this step). Two powers of two s outside the
 * window give the same bits; top-k values are the exact products of the
 * caller's data rounded to float. The sketch families are scale-free by
 * themselves (norms in double, codes of directions); so is SKETCH_MADDNESS's
 * encoding of op(A) (codes of directions, norms in double), whose trees are
 * learned on op(B)'s directions: op(A) at any scale against op(B) at any
 * other gives est(A / s, B s) = est(A, B) (bit for bit for powers of two).
 *
 * Non-finite values and overflow (SMM_ERR_NON_FINITE, nothing written)
 * - NaN or Inf anywhere in the A or B a call reads, for every method and
 *   for exact_topk. The check reads each operand once (vectorised, all
 *   threads); approx_sgemm with k == 0 or alpha == 0 reads neither.
 * - A product whose own magnitude is beyond float: alpha times the scale of
 *   the two sides (the powers of two above) overflows, or a top-k value
 *   (an exact dot product) exceeds FLT_MAX. Where that scale underflows to
 *   0 instead, alpha * est is 0 in float: C := beta C.
 * - The sketch families' norms |a_i| and |b_j| (the estimate needs them as
 *   floats): a vector whose norm exceeds FLT_MAX (entries near FLT_MAX)
 *   fails; approx_plan_create fails this way for op(B)'s norms.
 * - The classical methods' sketched factors AS = op(A) S and SB = S^T op(B)
 *   are checked as they are made (O(s (m + n)) reads); on data brought into
 *   the safe range they do not overflow.
 * - Not covered, as in exact_sgemm: an entry of an estimate beyond FLT_MAX
 *   while the scale itself is finite is written as +-Inf. exact_topk
 *   checks its inputs only: its values are exact_sgemm's, which overflow as
 *   exact_sgemm documents.
 *
 * Aliasing (SMM_ERR_BAD_ARGUMENT, nothing written): outputs must not
 * overlap inputs. The memory spans (common.h, "Aliasing") of C and of A and
 * B in approx_sgemm, of C and A in approx_plan_multiply (the plan's op(B)
 * is its own copy), and of idx, val and A (and B in approx_topk and
 * exact_topk) in the top-k calls, idx and val also against each other, are
 * compared after the other argument checks; buffers that touch are fine.
 * approx_sgemm and approx_plan_multiply do not check when alpha == 0 or
 * k == 0 (A and B are not read).
 */
#ifndef SKETCHMM_APPROX_H
#define SKETCHMM_APPROX_H

#include <stddef.h>

#include "sketchmm/common.h"
#include "sketchmm/sketch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest sketch dimension of the classical methods. */
#define APPROX_MAX_SKETCH_DIM (1 << 20)

/* Wall-clock seconds of the phases of one call (0 for a phase the call does not have). */
typedef struct {
    double encode_b; /* sketching op(B): approx_plan_create, or inside a one-shot call */
    double encode_a; /* sketching op(A) (column-row sampling: drawing and scaling both factors) */
    double estimate; /* the estimate: writing C, or for top-k choosing the candidates */
    double refine;   /* top-k: the exact values of the candidates and the final order */
} approx_phase_times;

/*
 * Options: how op(B) is sketched, fixed for a plan's life. Initialise with
 * APPROX_OPTIONS_INIT or approx_options_init() and change the fields you
 * need; a NULL options pointer means the defaults.
 *
 * Growth: struct_size is sizeof(approx_options) as the caller was compiled
 * (the initialisers set it). The library reads no field beyond it and gives
 * fields a later version appends their defaults, so code built against
 * this header keeps working with later libraries; a struct_size smaller
 * than this version's first layout or larger than the library's own is
 * SMM_ERR_BAD_ARGUMENT.
 */
typedef struct {
    size_t struct_size;    /* sizeof(approx_options), set by the initialisers */
    sketch_method method;  /* any of sketch.h's methods (sketch_method_name); default SKETCH_SIMHASH */
    int32_t size;          /* the method's size (approx_default_size when 0, the default): the code length in
                            * bits of a sketch family (1..SKETCH_MAX_BITS), else the sketch dimension s
                            * (1..APPROX_MAX_SKETCH_DIM): the classical methods' s, lowrank's rank, pq's M
                            * subspaces, maddness's C codebooks */
    uint64_t seed;         /* seed of every random choice; default 0x5eed */
    int32_t num_threads;   /* threads, 0..SMM_MAX_THREADS; 0 (default) means smm_get_num_threads() */
    int32_t candidates;    /* top-k: the plan's candidates per row refined exactly (>= topk); 0 (default)
                            * means 10 topk; a call can ask for others (approx_call.candidates) */
    double energy;         /* SKETCH_LOWRANK only: 0 (default) or a fraction in (0, 1] of ||op(B)||_F^2 that
                            * chooses the rank s <= size (see SKETCH_LOWRANK above) */
    uint32_t flags;        /* APPROX_BORROW_B, or 0 (default) */
} approx_options;

/*
 * flags: the plan borrows op(B) instead of copying it. The caller keeps B
 * alive and unchanged until approx_plan_free: top-k refinement and
 * column-row sampling read it through the plan (and data outside the safe
 * range is still copied, scaled, see "Scale" above). Saves the copy of
 * 4 n k bytes into fresh memory at plan creation.
 */
#define APPROX_BORROW_B 1u

#define APPROX_OPTIONS_INIT { sizeof(approx_options), SKETCH_SIMHASH, 0, UINT64_C(0x5eed), 0, 0, 0.0, 0u }

/* Set *opts to the defaults above (no-op for NULL). */
SMM_API void approx_options_init(approx_options *opts);

/* The size a method runs with when approx_options.size is 0: 256 bits for the sketch families, s = 64 for
 * the others; 0 for an unknown method. */
SMM_API int32_t approx_default_size(sketch_method method);

/*
 * approx_encoded_bytes - bytes of one vector as the method encodes it, for
 * vectors of dimension k: a sketch family's code and float norm
 * (ceil(size / 64) * 8 + 4), a classical method's or lowrank's s floats
 * (4 s), pq's M 4-bit codes of a column of op(B) (ceil(M / 2)), maddness's
 * C 4-bit leaf codes and float norm of a row of op(A) (ceil(C / 2) + 4; its
 * plan also keeps 16 C + 8 bytes of tables per column of op(B)). size 0 is
 * the method's default.
 * -1 for an unknown method or a size out of range.
 */
SMM_API int64_t approx_encoded_bytes(sketch_method method, int32_t size, int64_t k);

/*
 * Per call: what a search varies, and what the call reports. Initialise
 * with APPROX_CALL_INIT; NULL means the defaults. Grows like
 * approx_options (struct_size).
 */
typedef struct {
    size_t struct_size;        /* sizeof(approx_call), set by APPROX_CALL_INIT */
    int32_t candidates;        /* top-k calls: candidates per row (topk..n); 0 (default): the plan's
                                * approx_options.candidates. Any value gives exactly the result of a
                                * plan made with it: the sketch does not depend on it */
    approx_phase_times *times; /* NULL (default), or receives the call's phase times (written also when the
                                * call fails, with the phases it ran) */
} approx_call;

#define APPROX_CALL_INIT { sizeof(approx_call), 0, NULL }

/*
 * approx_check_sizes - the status approx_plan_create, approx_sgemm and
 * approx_topk return for the options opts (NULL: the defaults) and an op(B)
 * of k x n before they read any data, with a sentence naming the limit:
 * SMM_OK (msg ""), SMM_ERR_BAD_METHOD, SMM_ERR_BAD_BITS,
 * SMM_ERR_BAD_THREADS, SMM_ERR_BAD_ARGUMENT (an option out of its range,
 * or e.g. pq's M above k) or SMM_ERR_BAD_SIZE (k or n below 1, or fewer
 * columns than pq's 16 centroids). msg receives at most msg_size bytes,
 * NUL-terminated (msg may be NULL when msg_size is 0). For error messages:
 * call it after one of those calls failed with such a status.
 */
SMM_API smm_status approx_check_sizes(const approx_options *opts, int64_t k, int64_t n, char *msg,
                                      size_t msg_size);

/*
 * approx_sgemm - C := alpha * est(op(A) * op(B)) + beta * C.
 *
 * Arguments, shapes, leading dimensions, layouts and the beta == 0, k == 0,
 * m == 0 / n == 0 rules are those of exact_sgemm (sketchmm/exact.h); k == 0
 * or alpha == 0 compute beta * C exactly, without sketching. For the sketch
 * families a zero row or column gives 0. Same as approx_plan_create on B,
 * approx_plan_multiply, approx_plan_free.
 */
SMM_API smm_status approx_sgemm(smm_layout layout, smm_trans transa, smm_trans transb,
                        int64_t m, int64_t n, int64_t k, float alpha,
                        const float *A, int64_t lda, const float *B, int64_t ldb,
                        float beta, float *C, int64_t ldc,
                        const approx_options *opts, const approx_call *call);

/* ------------------------------------------------------------------------
 * Plans: sketch op(B) once, multiply many times
 * ------------------------------------------------------------------------ */

/* Opaque. */
typedef struct approx_plan approx_plan;

/*
 * approx_plan_create - sketch the n columns of op(B) (op(B) is k x n; B is
 * stored in `layout` with leading dimension ldb, as exact_sgemm's B) with the
 * method and options of opts (copied into the plan; NULL: defaults) and
 * return the plan in *plan. The plan also keeps a copy of op(B) as n
 * contiguous vectors of k floats (4 n k bytes): top-k refines candidates
 * with it, and column-row sampling draws from it; the caller's B is not
 * referenced after the call. With APPROX_BORROW_B in opts->flags the plan
 * reads the caller's B instead (kept alive and unchanged until
 * approx_plan_free). k >= 1, n >= 1 (SMM_ERR_BAD_SIZE for zero or
 * negative k or n). call (NULL: defaults) may ask for the phase times
 * (encode_b).
 * Returns SMM_OK, or a status with *plan set to NULL (plan itself NULL:
 * SMM_ERR_NULL_POINTER): SMM_ERR_NON_FINITE when B holds NaN or Inf or a
 * sketch family's norm of it overflows float (see the top of this file);
 * SMM_ERR_BAD_ARGUMENT / SMM_ERR_BAD_SIZE for options or sizes the method
 * cannot take (approx_check_sizes names the limit).
 */
SMM_API smm_status approx_plan_create(smm_layout layout, smm_trans transb, int64_t k, int64_t n,
                              const float *B, int64_t ldb, const approx_options *opts,
                              const approx_call *call, approx_plan **plan);

/* Free a plan (NULL is a no-op). */
SMM_API void approx_plan_free(approx_plan *plan);

/* The plan's k, n and options, size resolved (any pointer may be NULL; opts->struct_size must be set, as by
 * approx_options_init: no field beyond it is written). SMM_ERR_NULL_POINTER for a NULL plan,
 * SMM_ERR_BAD_ARGUMENT for a struct_size out of range. */
SMM_API smm_status approx_plan_info(const approx_plan *plan, int64_t *k, int64_t *n, approx_options *opts);

/*
 * approx_plan_multiply - C := alpha * est(op(A) * op(B)) + beta * C with the
 * plan's op(B): op(A) is m x k (A stored in `layout`, leading dimension lda),
 * C is m x n in `layout` with leading dimension ldc, as in exact_sgemm.
 * Gives exactly the C of approx_sgemm with the same arguments and options.
 * num_threads > 0 in the plan's options sets the threads. The plan is not
 * modified: several threads may multiply with one plan at once. C must not
 * overlap A (SMM_ERR_BAD_ARGUMENT when alpha != 0; the plan's op(B) is its
 * own copy, so C may lie over the caller's B, unless the plan borrows B).
 * call (NULL: defaults) may ask for the phase times.
 */
SMM_API smm_status approx_plan_multiply(const approx_plan *plan, smm_layout layout, smm_trans transa,
                                int64_t m, float alpha, const float *A, int64_t lda,
                                float beta, float *C, int64_t ldc, const approx_call *call);

/* ------------------------------------------------------------------------
 * Top-k: the largest entries of each row of op(A) op(B), with exact values
 * ------------------------------------------------------------------------ */

/*
 * approx_plan_topk - for each row a_i of op(A) (m x k in `layout`, leading
 * dimension lda), the topk columns j with the largest <a_i, b_j>:
 *   1. the method estimates row i of op(A) op(B) (as approx_plan_multiply
 *      with alpha = 1, beta = 0, never stored whole) and keeps the
 *      `candidates` columns with the largest estimates (call->candidates, or
 *      when it is 0 the plan's opts->candidates, 0 meaning 10 * topk; at
 *      most n; ties to the smaller j);
 *   2. <a_i, b_j> is computed exactly (double accumulation, rounded to
 *      float) for those candidates only, and the topk largest are returned:
 *      idx[i * ldk + t] the column, val[i * ldk + t] the exact value, t = 0
 *      .. topk - 1, in decreasing value (ties: smaller index first).
 * Values are exact; only recall is approximate (with candidates = n the
 * result is the exact top-k). Cost: the estimate (see the methods; the
 * method's blocks: the sketch families 8 rows against 512 codes at a time,
 * the classical and data-aware methods one-thread SGEMM or scan blocks of
 * 64 to 256 rows by 2048 columns, each selected from while in cache), a
 * selection pass over the n estimates of each row (one vector compare per 16
 * estimates against a running threshold; those above it are kept, about
 * candidates ln(n / candidates) of them on random order, plus O(candidates)
 * per cut), and 2 candidates k flops of refinement per row. The refinement
 * reads each candidate's vector of op(B): the pairs of 2048 rows at a time
 * are visited in column order, so op(B) is streamed about once per 2048
 * rows, but the rows' own vectors are then re-read from cache for every
 * pair, and on large data this memory traffic, not the flops, bounds how
 * many candidates pay.
 * 1 <= topk <= n, candidates (when set) in topk..n (SMM_ERR_BAD_ARGUMENT
 * otherwise); ldk >= topk (SMM_ERR_BAD_LEADING_DIM); idx and val must not
 * overlap A or each other (SMM_ERR_BAD_ARGUMENT). Bit-identical for every
 * thread count; for the sketch families also for every ISA path.
 */
SMM_API smm_status approx_plan_topk(const approx_plan *plan, smm_layout layout, smm_trans transa,
                            int64_t m, const float *A, int64_t lda,
                            int64_t topk, int64_t *idx, float *val, int64_t ldk, const approx_call *call);

/*
 * One-shot top-k: approx_plan_create on (layout, transb, k, n, B, ldb),
 * approx_plan_topk, free. k, n >= 1 (SMM_ERR_BAD_SIZE); idx and val must
 * not overlap A, B or each other (SMM_ERR_BAD_ARGUMENT). m == 0: SMM_OK
 * once the arguments are checked, with no plan made and no value of A or B
 * read (so NaN in B is not reported then), as in exact_topk.
 */
SMM_API smm_status approx_topk(smm_layout layout, smm_trans transa, smm_trans transb,
                       int64_t m, int64_t n, int64_t k,
                       const float *A, int64_t lda, const float *B, int64_t ldb,
                       int64_t topk, int64_t *idx, float *val, int64_t ldk,
                       const approx_options *opts, const approx_call *call);

/*
 * exact_topk - the reference for approx_topk: the same outputs from the full
 * product computed by exact_sgemm in blocks of rows and an exact per-row
 * selection (values from exact_sgemm, not recomputed). For the speed and
 * recall comparisons of the benchmarks. The same argument rules and
 * statuses as approx_topk (k, n >= 1; 1 <= topk <= n; no overlap of idx,
 * val, A and B), and SMM_ERR_NON_FINITE, nothing written, when A or B holds
 * NaN or Inf (one vectorised read of each before the product: 16-20 ms of
 * a 3 s call at 10000 x 60000 x 784 on 2 threads; m == 0 reads nothing and
 * returns SMM_OK). With finite inputs it
 * never fails on values: entries beyond FLT_MAX overflow as in exact_sgemm.
 */
SMM_API smm_status exact_topk(smm_layout layout, smm_trans transa, smm_trans transb,
                      int64_t m, int64_t n, int64_t k,
                      const float *A, int64_t lda, const float *B, int64_t ldb,
                      int64_t topk, int64_t *idx, float *val, int64_t ldk);

#ifdef __cplusplus
}
#endif

#endif /* SKETCHMM_APPROX_H */
