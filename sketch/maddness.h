/*
 * maddness.h - library-internal MADDNESS-style encoding: learned balanced
 * hash trees that map a vector to 4-bit codes with comparisons only, and
 * prototypes refined by ridge regression, whose inner products with the
 * columns of a known matrix are summed by the product-quantization scan
 * kernels (the idea of Blalock and Guttag, "Multiplying Matrices Without
 * Multiplying", ICML 2021; our own code).
 *
 * Setting. op(B) (k x n) is known ahead, op(A) (m x k) arrives later. The
 * trees and prototypes describe DIRECTIONS: a vector x is taken as its norm
 * |x| (kept exactly, as a float) times its direction u(x), with
 *
 *     u(x)_t = x_t * inv(x) rounded to float,  inv(x) = 1 / sqrt(sum_t x_t^2)
 *
 * (maddness_inv_norm: the sum in double in increasing t; inv = 0 for the
 * zero vector, whose direction is 0), so the code of x does not depend on
 * its scale: c x has the codes of x for every c > 0 (bit for bit when c is
 * a power of two), and an estimate scales with it. (Fitting the raw
 * vectors instead lets the vectors of largest norm take every split and
 * leaves the rest in one leaf, and makes the code of a query depend on its
 * scale: queries at another scale than the data, a different
 * normalisation of the same images, fall outside the learned thresholds.)
 * k is cut into C contiguous subspaces, the split of product quantization
 * (pq_subspace_range: the first k % C have floor(k / C) + 1 dimensions).
 * Codebook c owns a balanced binary tree of MADDNESS_LEVELS = 4 levels over
 * its subspace: level t (0..3) has ONE split dimension j_{c,t} and 2^t
 * thresholds v_{c,t,node}, one per node of the level. A vector x descends
 *
 *     node_0 = 0,  node_{t+1} = 2 node_t + [u(x)[j_{c,t}] >= v_{c,t,node_t}],
 *
 * and its leaf node_4 (0..15) is its code in codebook c: 4 comparisons, no
 * multiply after the norm. Codebook c also has 16 prototypes P_{c,0..15},
 * vectors of dimension k (all of it, not only the subspace), and x is
 * approximated as
 *
 *     q(x) = |x| sum_c P_{c, code_c(x)},
 *
 * so <x, b> ~ <q(x), b> = |x| sum_c T_b[c][code_c(x)] with the tables
 * T_b[c][l] = <P_{c,l}, b>: one table of 16 C numbers per column b of op(B),
 * quantized to bytes with pq_lut_quantize and summed by pq_scan with the
 * roles of product quantization swapped (tables per column of op(B), codes
 * per row of op(A)), the sum multiplied by the row's norm.
 *
 * Training (maddness_train), on the directions u(x) of N = min(count,
 * max_train) training vectors (drawn from the seed by pq_sample_indices,
 * domain "maddness_train_sample"; approx_maddness.c trains on op(B)'s
 * columns: queries assumed to point like the data); "vector" below is such
 * a direction:
 *  1. Trees, per codebook, greedily level by level. At level t the N
 *     vectors sit in 2^t buckets (their nodes). For every dimension u of the
 *     subspace, V_u = sum over buckets of the bucket's sum of squared
 *     deviations from its mean along u (sums in double, vectors in
 *     increasing sample order). The MADDNESS_SPLIT_CANDIDATES = 4
 *     dimensions of largest V_u (ties: the smaller u; all of them when the
 *     subspace has fewer) are tried, in that order. For a candidate u and a
 *     bucket, the optimal split: the bucket's vectors sorted by (x[u],
 *     sample position); for each cut p (1 <= p < size) between two different
 *     values x[u], the loss is SSE(first p) + SSE(rest), SSE being the sum
 *     over the subspace's dimensions of the squared deviations from the
 *     part's mean, computed from running sums in double as sum x^2 -
 *     (sum x)^2 / count; the least loss wins (ties: the smaller p) and the
 *     threshold is the midpoint of the two values around the cut, rounded to
 *     float (the upper value when rounding reaches the lower one), so
 *     exactly the first p go left. A bucket of fewer than two distinct
 *     values gets threshold +Inf (every vector left) and loss SSE(bucket).
 *     The candidate with the least total loss (sum over buckets in order;
 *     ties: the earlier candidate) becomes j_{c,t} with its thresholds.
 *     Cost: O(4 N d_c) per level plus the sorts, codebooks in parallel.
 *  2. Prototypes. First the leaf buckets' means (in the codebook's
 *     subspace, zero elsewhere; an empty leaf's mean is 0). With lambda > 0
 *     they are then replaced by the ridge regression over all k dimensions
 *
 *         P = argmin ||X - G P||_F^2 + lambda ||P||_F^2,
 *
 *     X the N x k training directions, G the N x 16C one-hot matrix of their
 *     leaves (row i has a 1 in column 16 c + code_c(x_i) for every c):
 *     (G^T G + lambda I) P = G^T X, solved in double: G^T G from integer
 *     counts, G^T X as sums in increasing sample order, a Cholesky
 *     factorisation G^T G + lambda I = U^T U (each entry's subtractions in
 *     increasing index, applied right-looking in panels of 16 pivots) and
 *     two triangular solves (each entry in a fixed order), then rounded to
 *     float. lambda is in units of training vectors: G^T G holds counts
 *     (the diagonal: each leaf's size, about N / 16), so lambda = 1 shrinks a
 *     prototype as one more zero vector in its leaf would, whatever the
 *     scale of the data; it makes the system positive definite when a leaf
 *     is empty (G^T G is singular: each codebook's 16 columns sum to the
 *     all-ones column). Cost: O(N C^2) counts, O(N C k) sums, (16 C)^3 / 6
 *     for Cholesky and 2 (16 C)^2 k multiply-adds for the solves, in
 *     parallel over rows of the factor and columns of the right-hand side.
 *     lambda < 0 keeps the bucket means.
 *  3. lambda from the data (lambda == 0). No fixed lambda suits every
 *     data set: with N near 16 C (a dense product trains on op(B)'s n
 *     columns) lambda = 1 lets the 16 C prototypes fit the noise of i.i.d.
 *     data (a product error twice the leaf means'), while low-rank data
 *     wants a small lambda. So: H = floor(N / 5) of the N training vectors
 *     are held out (positions drawn from the seed by pq_sample_indices,
 *     domain "maddness_ridge_holdout"), the other F = N - H fit. The error
 *     measured is the product's: for each held-out direction u_h, the
 *     squared errors of its inner products with p = min(F, 64) probes,
 *     the directions of fitting vectors F[j F / p] (j = 0 .. p-1),
 *         sum_h sum_j (<u_h, z_j> - sum_c <P_{c, code_c(u_h)}, z_j>)^2,
 *     a query against the vectors a plan trains on. As the ridge is linear
 *     in its right-hand side, P Z^T comes from solving with G_F^T (X_F Z^T)
 *     (16 C x p) in place of G_F^T X_F (16 C x k); <u, z> is taken as
 *     inv(x) sum_t x_t z_t. Candidates: the leaf means of the fitting
 *     part and lambda = s 4^j, j = -4 .. 0 (s/256 .. s), s = trace(G_F^T
 *     G_F) / 16 C = F / 16 the mean leaf size. The grid is walked, not
 *     swept: j = -2 and -1 first, then one step at a time the way the
 *     error fell (up from -1 if its error is below -2's, else down from -2)
 *     while it keeps falling; the last point before a rise (or the grid's
 *     end) is the grid's winner. This assumes the held-out error is
 *     unimodal along the grid; where it is, the winner is the grid's least
 *     error, as a full sweep would find (the same lambda on the 14 data
 *     sets and sizes of docs/methods.md). The grid's winner is taken when
 *     its error is below the leaf means'. The winner is refitted
 *     on all N vectors: the leaf means of step 2, or the ridge with the same
 *     multiple of the mean leaf size, lambda = 4^j N / 16 (model's lambda).
 *     Cost over a given lambda: N p k multiply-adds for the inner
 *     products, then per point visited (3 or 4) a Cholesky of 16 C (about
 *     (16 C)^3 / 6) and solves with p columns (2 (16 C)^2 p); on several
 *     threads the points of a step run side by side (one thread each, with
 *     its own copy of G^T G while the copies take at most 64 MiB; going
 *     down from -2 on two threads, -3 and -4 at once, -4's error used only
 *     if -3 improved, so the choice does not depend on the threads).
 *     Training takes 1.40-1.46x the instructions of a given lambda
 *     (N = 1000 and 4096, C = 16 to 64, Fashion-MNIST; docs/methods.md).
 * The factorisations, the solves and the probes' inner products subtract
 * a panel of rows from 16 entries at a time held in registers, each
 * entry's subtractions in the order stated above.
 * Every step is plain C for the baseline CPU with fixed-order double sums
 * (compiled with -ffp-contract=off like the whole library), each codebook's
 * tree built by one thread, each entry of the factor and the solution by
 * one thread in a fixed order: trees and prototypes are bit-identical for
 * every thread count and ISA path (and across IEEE platforms).
 *
 * Encoding (maddness_encode): the leaves of n vectors, packed in the block
 * layout of pq.h (blocks of 32 vectors, codebook c's 16 bytes at offset
 * 16 c of a block), so pq_scan reads them as product-quantization codes,
 * and their norms: k multiply-adds in double for the norm, then 4 C
 * comparisons per vector.
 *
 * Tables (maddness_tables): for each column b_j of op(B), T_j = the 16 C
 * products <P_{c,l}, b_j> computed by exact_sgemm (one thread per chunk of
 * columns, chunks fixed by n: bit-identical for every thread count, equal
 * across ISA paths up to exact_sgemm's float rounding, a few units in the
 * last place of sum |P_{c,l,t} b_{j,t}|), then quantized by
 * pq_lut_quantize: lut_j (16 C bytes), step delta_j, bias_j with
 *
 *     | delta_j sum_c lut_j[c][code_c(x)] + bias_j - sum_c T_j[c][code_c(x)] | <= C delta_j / 2
 *
 * (plus float rounding), where delta_j is the widest range over c of
 * T_j[c][.] divided by 255.
 */
#ifndef SKETCH_MADDNESS_H
#define SKETCH_MADDNESS_H

#include <math.h>
#include <stdint.h>

#include "common/smm_runtime.h"
#include "sketch/pq.h"
#include "sketchmm/common.h"

#define MADDNESS_LEVELS 4               /* tree depth: 16 leaves, 4-bit codes */
#define MADDNESS_LEAVES 16
#define MADDNESS_NODES 15               /* thresholds per tree: 1 + 2 + 4 + 8 */
#define MADDNESS_MAX_CODEBOOKS 256      /* largest C: the ridge system is (16 C)^2 doubles (128 MiB at 256) */
#define MADDNESS_DEFAULT_MAX_TRAIN 4096 /* training sample when max_train == 0 */
#define MADDNESS_SPLIT_CANDIDATES 4     /* dimensions tried per level */

/*
 * A trained model. Codebook c covers dimensions [start[c], start[c+1]).
 *   dims        C * 4: split dimension of level t of codebook c (an index of
 *               the whole vector, in the codebook's subspace) at dims[4 c + t];
 *   thresholds  C * 15: threshold of node v (0 <= v < 2^t) of level t of
 *               codebook c at thresholds[15 c + 2^t - 1 + v] (+Inf: every
 *               vector goes left);
 *   prototypes  16 C * k floats, row-major: prototype l of codebook c is the
 *               k floats at prototypes + (16 c + l) * k (64-byte aligned).
 * Free with maddness_model_free.
 */
typedef struct {
    int64_t k;          /* dimension, >= 1 */
    int32_t C;          /* codebooks, 1 .. min(k, MADDNESS_MAX_CODEBOOKS) */
    int64_t *start;     /* C + 1 subspace offsets */
    int32_t *dims;      /* C * MADDNESS_LEVELS */
    float *thresholds;  /* C * MADDNESS_NODES */
    float *prototypes;  /* 16 C x k */
    double lambda;      /* the ridge regression's lambda, 0 when the prototypes are the leaf means */
} maddness_model;

/*
 * Train a model on the `count` row-major vectors X (count x k, row i at
 * X + i * ld) with C codebooks: the trees and prototypes of the top of this
 * file.
 *
 * Arguments: ctx the call's settings (threads; the ISA path is not used:
 * training is plain C); 1 <= C <= min(k, MADDNESS_MAX_CODEBOOKS);
 * count >= 16; ld >= k; seed any value; max_train == 0
 * (MADDNESS_DEFAULT_MAX_TRAIN = 4096) or >= 16; lambda finite (> 0: the
 * ridge regression with that lambda; 0: lambda chosen from the data, step 3
 * above; < 0: the bucket means, no ridge regression).
 *
 * Returns SMM_OK and *md a new model, or, with *md = NULL (md not NULL)
 * and nothing else written: SMM_ERR_NULL_POINTER (ctx, X or md NULL),
 * SMM_ERR_BAD_SIZE (k < 1, or count < 16: fewer training vectors than
 * leaves), SMM_ERR_BAD_ARGUMENT (C < 1 or C > min(k, MADDNESS_MAX_CODEBOOKS),
 * max_train < 0 or 1..15, lambda NaN or infinite), SMM_ERR_BAD_LEADING_DIM
 * (ld < k), SMM_ERR_OVERFLOW, SMM_ERR_NON_FINITE (NaN or Inf in any of the
 * count x k values of X; also if the ridge system were found not positive
 * definite in floating point, which lambda > 0 rules out for finite data
 * of sane range), SMM_ERR_NO_MEMORY.
 */
smm_status maddness_train(const smm_context *ctx, const float *X, int64_t count, int64_t ld, int64_t k, int32_t C,
                          uint64_t seed, int64_t max_train, double lambda, maddness_model **md);

/* Free a model (NULL: nothing). */
void maddness_model_free(maddness_model *md);

/*
 * inv(x) of the top of this file for the k-vector whose element t is
 * x[t * stride]: 1 / |x| in double (sum of squares in double, increasing
 * t), 0 when every element is 0 (or the sum is NaN); *norm = |x| rounded to
 * float (norm may be NULL). Exact scaling: 2^p x gives 2^-p inv(x) and 2^p
 * |x| while they stay normal.
 */
static inline double maddness_inv_norm(const float *x, int64_t k, int64_t stride, float *norm)
{
    double ss = 0.0;
    for (int64_t t = 0; t < k; t++) {
        const double v = (double)x[t * stride];
        ss += v * v;
    }
    const double r = sqrt(ss);
    if (norm != NULL)
        *norm = (float)r;
    return ss > 0.0 ? 1.0 / r : 0.0;
}

/* Element v of a vector with inv(x) = inv as an element of its direction u(x): (float)(v * inv). */
static inline float maddness_direction(float v, double inv)
{
    return (float)((double)v * inv);
}

/*
 * The leaf (0..15) in codebook c of the vector whose element t is
 * x[t * stride] and whose inv(x) is inv: the descent of the top of this
 * file on its direction (no checks; a NaN goes left).
 */
static inline int maddness_leaf(const maddness_model *md, const float *x, int64_t stride, double inv, int32_t c)
{
    const int32_t *dims = md->dims + (int64_t)MADDNESS_LEVELS * c;
    const float *thr = md->thresholds + (int64_t)MADDNESS_NODES * c;
    int node = 0;
    for (int t = 0; t < MADDNESS_LEVELS; t++)
        node = 2 * node + (maddness_direction(x[dims[t] * stride], inv) >= thr[(1 << t) - 1 + node]);
    return node;
}

/*
 * Encode n vectors into packed blocks at codes (pq_codes_bytes(md->C, n)
 * bytes, every one written; vectors past n in the last block get code 0)
 * and their norms |x| into norms[0 .. n-1]: element t of vector i is
 * X[i * rs + t * cs] (any layout: a row-major matrix has rs = ld, cs = 1; a
 * column-major one rs = 1, cs = ld). Reads every value of a vector once
 * for its norm; performs no finiteness check (the caller's: a vector with
 * a NaN or Inf gets an unspecified code and a NaN or Inf norm). Blocks in
 * parallel (ctx->threads): the codes and norms depend on the vectors and
 * the model only. n == 0 writes nothing. Preconditions (not checked):
 * n >= 0, the strides address the vectors.
 */
void maddness_encode(const smm_context *ctx, const maddness_model *md, const float *X, int64_t n, int64_t rs,
                     int64_t cs, uint8_t *codes, float *norms);

/*
 * The byte tables of the n columns of op(B), given as the rows of the
 * row-major n x k matrix X (leading dimension ld >= k, values finite):
 * column j's 16 C bytes at lut + j * 16 C (pq_lut's layout, codebook c at
 * 16 c), its step at scale[j], its bias at bias[j] (the quantization of the
 * top of this file). Chunks of MADDNESS_TABLE_CHUNK columns in parallel,
 * each through a one-thread exact_sgemm on path ctx->isa. Returns SMM_OK,
 * or SMM_ERR_NO_MEMORY / SMM_ERR_OVERFLOW (per-thread buffers of
 * MADDNESS_TABLE_CHUNK x 16 C floats) with the outputs unspecified, or a
 * status of exact_sgemm_with.
 */
#define MADDNESS_TABLE_CHUNK 256
smm_status maddness_tables(const smm_context *ctx, const maddness_model *md, const float *X, int64_t n, int64_t ld,
                           uint8_t *lut, float *scale, float *bias);

#endif /* SKETCH_MADDNESS_H */
