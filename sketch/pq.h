/*
 * pq.h - library-internal 4-bit product quantization (PQ) with lookup-table
 * "fast scan" kernels: the sketch-side building blocks of an approximate
 * inner-product method (the ideas of Bolt and FAISS IndexPQFastScan; our own
 * code).
 *
 * Product quantization. A vector x of dimension k is cut into M contiguous
 * subspaces (the first k % M have floor(k / M) + 1 dimensions, the others
 * floor(k / M)); in each subspace m a codebook of PQ_CENTROIDS = 16
 * centroids is trained by k-means (pq_train), and x is stored as M 4-bit
 * codes, code_m(x) = the centroid of subspace m nearest to x's part
 * (pq_encode). An inner product <q, x> is then estimated as
 *
 *     sum_m T_q[m][code_m(x)],   T_q[m][c] = <q_m, centroid_{m,c}>,
 *
 * from a table of 16 M numbers per query (pq_lut), quantized to bytes so
 * that 16 lookups run as one byte shuffle (pshufb / tbl) and sums of M
 * lookups stay exact integers (pq_scan).
 *
 * Files: pq_train.c (k-means, codebooks), pq_encode.c (codes, packing,
 * decoding), pq_lut.c (query tables), pq_scan.c (dispatch table and
 * drivers), pq_scan_kernels.h + pq_scan_{scalar,avx2,avx512,neon}.c (the scan
 * kernels, the scalar twin first).
 *
 * Determinism. Training and encoding are plain C compiled for the baseline
 * CPU (no ISA-specific files), with every floating-point reduction in a
 * fixed order and -ffp-contract=off: codebooks and codes are bit-identical
 * for every thread count and ISA path (and on every IEEE platform: the
 * aarch64 build computes the same bytes). Lookup tables are plain C too. The
 * scan kernels compute exact integer sums, identical on every path.
 *
 * Threads: pq_train and pq_encode use ctx->threads (OpenMP); pq_lut,
 * pq_scan and pq_scan_float are single-threaded and reentrant (a caller
 * parallelises over disjoint row or column ranges). Only pq_train and
 * pq_codebook_create allocate.
 */
#ifndef SKETCH_PQ_H
#define SKETCH_PQ_H

#include <stdint.h>

#include "common/smm_runtime.h"
#include "sketchmm/common.h"

#define PQ_CENTROIDS 16         /* centroids per subspace (4-bit codes) */
#define PQ_BLOCK 32             /* vectors per block of packed codes */
#define PQ_MAX_SUBSPACES 4096   /* largest M (sums of M bytes stay below 2^20) */
#define PQ_DEFAULT_ITERS 20     /* k-means iterations when iters == 0 */
#define PQ_DEFAULT_MAX_TRAIN 4096 /* training sample when max_train == 0: 256 vectors per centroid */

/*
 * A trained codebook. Subspace m covers dimensions [start[m], start[m+1]) of
 * a vector, d_m = start[m+1] - start[m] of them: d_m = floor(k / M) + 1 for
 * m < k % M, floor(k / M) otherwise (so start[0] = 0, start[M] = k).
 *
 *   centroids   subspace m's centroid c (0 <= c < 16) is the d_m floats at
 *               centroids + 16 * start[m] + c * d_m (16 k floats in all);
 *   centroids_t the same numbers transposed per subspace: dimension t
 *               (0 <= t < d_m) of centroid c at
 *               centroids_t + 16 * start[m] + t * 16 + c (what the encoder
 *               and pq_lut read: 16 centroids side by side).
 *
 * Both arrays are 64-byte aligned; fill them through pq_train or
 * pq_codebook_create, which keep them consistent. Free with pq_codebook_free.
 */
typedef struct {
    int64_t k;            /* dimension, >= 1 */
    int32_t M;            /* subspaces, 1 .. min(k, PQ_MAX_SUBSPACES) */
    int64_t *start;       /* M + 1 offsets, as above */
    float *centroids;     /* 16 k floats, centroid-major per subspace */
    float *centroids_t;   /* 16 k floats, dimension-major per subspace */
} pq_codebook;

/*
 * Train a codebook: k-means with 16 centroids in each of the M subspaces of
 * the `count` row-major vectors X (count x k, row i at X + i * ld).
 *
 * Arguments: ctx the call's settings (threads used; the ISA path is not:
 * training is plain C); 1 <= M <= min(k, PQ_MAX_SUBSPACES); count >= 16;
 * ld >= k; seed any value; iters >= 0 (0: PQ_DEFAULT_ITERS = 20);
 * max_train == 0 (PQ_DEFAULT_MAX_TRAIN = 4096) or >= 16.
 *
 * Algorithm (every step fixed by the arguments, nothing by threads or ISA):
 *  1. Sample. n = min(count, max_train) training vectors: all of them in
 *     index order when count <= max_train, otherwise n distinct indices
 *     drawn by Floyd's algorithm: for j = count - n .. count - 1,
 *     t = h(j) mod (j + 1) is taken unless already taken, else j is, with
 *     h(i) = XXH3_64bits_withSeed(the 8 little-endian bytes of i, s_sample),
 *     s_sample = XXH3_64bits_withSeed("pq_train_sample", seed) (the modulo
 *     bias is below count / 2^64); the indices are then sorted increasing
 *     and the sample is those rows in that order.
 *  2. Init. 16 distinct sample positions by the rule of step 1 (16 among n,
 *     from s_init = XXH3_64bits_withSeed("pq_train_init", seed); all 16 in
 *     order when n == 16), sorted increasing: centroid c of every subspace
 *     starts as the part of the c-th of those sample vectors.
 *  3. Iterate `iters` times: (a) assign every sample vector to its nearest
 *     centroid (pq_nearest_centroid: squared L2 in float, ties to the
 *     smaller index); (b) centroid c := the mean of its vectors, summed in
 *     double in increasing sample order, divided in double, rounded to float;
 *     (c) empty clusters, in increasing c: centroid c := the sample vector
 *     farthest from its centroid of step (a) (largest squared distance, ties
 *     to the smaller sample position, each vector used at most once per
 *     iteration); if every remaining distance is 0, centroid c keeps its
 *     value. An iteration whose assignment equals the previous one, when the
 *     previous one had no empty cluster, would reproduce the same centroids:
 *     the loop stops there (a shortcut with identical results).
 * Cost: O(count k) to check X, O(iters n 16 k) flops, subspaces in parallel
 * (M >= 2), workspace ~ threads * n * (ceil(k / M) + 3) * 4 bytes.
 *
 * Returns SMM_OK and *cb a new codebook, or, with *cb = NULL (when cb is not
 * NULL) and nothing else written: SMM_ERR_NULL_POINTER (ctx, X or cb NULL),
 * SMM_ERR_BAD_SIZE (k < 1, or count < 16: fewer training vectors than
 * centroids), SMM_ERR_BAD_ARGUMENT (M < 1 or M > min(k, PQ_MAX_SUBSPACES),
 * iters < 0, max_train < 0 or 1..15), SMM_ERR_BAD_LEADING_DIM (ld < k),
 * SMM_ERR_OVERFLOW (X's extent or the codebook's size do not fit),
 * SMM_ERR_NON_FINITE (NaN or Inf in any of the count x k values of X),
 * SMM_ERR_NO_MEMORY.
 */
smm_status pq_train(const smm_context *ctx, const float *X, int64_t count, int64_t ld, int64_t k, int32_t M,
                    uint64_t seed, int32_t iters, int64_t max_train, pq_codebook **cb);

/*
 * A codebook from given centroids (16 k floats in the `centroids` layout
 * above, copied; NULL gives all zeros): for tests, decoding saved codebooks
 * or hand-made ones. Same statuses as pq_train for k, M and cb (*cb = NULL on
 * failure); SMM_ERR_NON_FINITE when a centroid is not finite.
 */
smm_status pq_codebook_create(int64_t k, int32_t M, const float *centroids, pq_codebook **cb);

/* Free a codebook (NULL: nothing). */
void pq_codebook_free(pq_codebook *cb);

/* Dimensions of subspace m of a k-dimensional vector cut in M: [*lo, *hi) (no checks). */
static inline void pq_subspace_range(int64_t k, int32_t M, int32_t m, int64_t *lo, int64_t *hi)
{
    const int64_t q = k / M, r = k % M;
    *lo = (int64_t)m * q + (m < r ? m : r);
    *hi = *lo + q + (m < r ? 1 : 0);
}

/*
 * Packed codes. Vectors are grouped in blocks of PQ_BLOCK = 32: block b holds
 * vectors 32 b .. 32 b + 31 and starts at codes + b * pq_block_bytes(M). In a
 * block, subspace m has 16 bytes at offset 16 m, byte t (0 <= t < 16) being
 *
 *     code_m(vector 32 b + t)  |  code_m(vector 32 b + t + 16) << 4,
 *
 * so one 16-byte load holds the codes of 32 vectors for one subspace: the
 * low nibbles index a 16-byte table for vectors t, the high nibbles for
 * vectors t + 16. Vectors past n in the last block are padded with code 0.
 */
static inline int64_t pq_block_bytes(int32_t M)
{
    return (int64_t)16 * M;
}

/*
 * Bytes of packed codes for n vectors: ceil(n / 32) * pq_block_bytes(M).
 * -1 when n < 0, M < 1 or the count does not fit in int64_t.
 */
int64_t pq_codes_bytes(int32_t M, int64_t n);

/*
 * The codes of vector j (0 <= j < n): M values 0..15 to codes[0 .. M-1],
 * for pq_pack. Called from several threads at once (different j).
 */
typedef void (*pq_codes_fn)(const void *arg, int64_t j, uint8_t *codes);

/*
 * Pack the codes of n vectors, as codes(arg, j, ..) gives them, into the
 * blocks at out (pq_codes_bytes(M, n) bytes, every one written: padding
 * codes 0); 1 <= M <= PQ_MAX_SUBSPACES. Blocks in parallel (ctx->threads)
 * when `parallel` is set, each written by one thread. The writer of pq_encode
 * and of MADDNESS's encoder (sketch/maddness.h).
 */
void pq_pack(const smm_context *ctx, int64_t n, int32_t M, int parallel, pq_codes_fn codes, const void *arg,
             uint8_t *out);

/*
 * Encode n row-major vectors (row i at X + i * ld) into packed blocks at
 * codes (pq_codes_bytes(cb->M, n) bytes, every one written: padding codes
 * 0): code_m(x) = pq_nearest_centroid of x's part in subspace m. Per-vector
 * results only, blocks in parallel (ctx->threads): bit-identical for every
 * thread count and ISA path. Cost O(n k 16) flops. n == 0 writes nothing (X
 * and codes may then be NULL).
 *
 * Returns SMM_OK, or with nothing written: SMM_ERR_NULL_POINTER (ctx or cb
 * NULL, X or codes NULL with n > 0), SMM_ERR_BAD_SIZE (n < 0),
 * SMM_ERR_BAD_LEADING_DIM (ld < cb->k), SMM_ERR_OVERFLOW (extents),
 * SMM_ERR_NON_FINITE (NaN or Inf among the n x k values; checked before any
 * code is written).
 */
smm_status pq_encode(const smm_context *ctx, const pq_codebook *cb, const float *X, int64_t n, int64_t ld,
                     uint8_t *codes);

/*
 * The nearest of the 16 centroids (transposed layout: dimension t of centroid
 * c at ct[t * 16 + c]) to the d floats x: the c minimising
 *     dist_c = sum over t = 0 .. d-1, in that order, of (x[t] - ct[t*16+c])^2
 * in float (no fused multiply-add), ties (equal dist_c) to the smaller c.
 * *dist (when not NULL) receives dist_c. The one distance of training and
 * encoding.
 */
int pq_nearest_centroid(const float *x, const float *ct, int64_t d, float *dist);

/*
 * 1 when the rows x k values of row-major X (leading dimension ld) are all
 * finite, else 0; rows in parallel (ctx->threads). The check of pq_train and
 * pq_encode.
 */
int pq_all_finite(const smm_context *ctx, const float *X, int64_t rows, int64_t k, int64_t ld);

/* Code of vector j in subspace m, read back from the packed layout (no checks). */
int pq_code_at(const uint8_t *codes, int32_t M, int64_t j, int32_t m);

/* Reconstruction of vector j (its M centroids side by side, k floats to x). */
void pq_decode(const pq_codebook *cb, const uint8_t *codes, int64_t j, float *x);

/*
 * n distinct integers of [0, N) (1 <= n <= N), sorted increasing, into out:
 * the seeded draw of pq_train's step 1, from s = XXH3_64bits_withSeed(domain,
 * strlen(domain), seed): all of them in order when n == N, else Floyd's
 * algorithm (for j = N - n .. N - 1, t = h(j) mod (j + 1) is taken unless
 * already taken, else j, with h(i) = XXH3_64bits_withSeed(the 8
 * little-endian bytes of i, s)). The indices depend on (domain, seed, N, n)
 * only. Allocates a hash set of the smallest power of two >= 2n int64_t when
 * n < N. Returns SMM_OK, or SMM_ERR_NO_MEMORY with out untouched. Shared by
 * pq_train (domains "pq_train_sample", "pq_train_init") and maddness_train.
 */
smm_status pq_sample_indices(const char *domain, uint64_t seed, int64_t N, int64_t n, int64_t *out);

/*
 * The exact table of subspace m (0 <= m < M) of one query, 16 doubles to T:
 * the source pq_lut_quantize reads, called with its `arg`. It may be called
 * twice for one m (M > 256) and must then give the same values.
 */
typedef void (*pq_table_fn)(const void *arg, int32_t m, double T[PQ_CENTROIDS]);

/*
 * The byte tables of one query from its exact tables (the quantization of
 * pq_lut below, for any source of exact tables): 16 M bytes to lut
 * (lut[m * 16 + c]), the step to *scale and the bias to *bias, with the
 * same error bound. Up to 256 subspaces the exact tables are kept in a 32
 * KiB stack buffer between the two passes (ranges, then quantization);
 * beyond that table() is called again in the second pass. No allocation.
 * Used by pq_lut (tables of centroids) and by MADDNESS (sketch/maddness.h:
 * tables of prototypes per column of op(B)).
 */
void pq_lut_quantize(int32_t M, pq_table_fn table, const void *arg, uint8_t *lut, float *scale, float *bias);

/*
 * Lookup tables of `rows` queries Q (row-major, row r at Q + r * ld,
 * ld >= cb->k, values finite: the caller checks).
 *
 * Exact table: T[m][c] = <q_m, centroid_{m,c}> (products and sum in double,
 * dimensions in increasing order). Quantization, per query:
 *     min_m = min_c T[m][c];  range_m = max_c T[m][c] - min_m;
 *     delta = the smallest float >= max_m range_m / 255 (computed in double,
 *             rounded to float and raised one ulp if delta * 255 fell below
 *             the largest range); delta = 1 when every range is 0;
 *     lut[r * M * 16 + m * 16 + c] = round((T[m][c] - min_m) / delta) in
 *             0 .. 255 (round half up, in double);
 *     scale[r] = delta (exactly the step used);
 *     bias[r]  = sum_m min_m (in double, increasing m, rounded to float).
 * Then estimate(q, x) = scale[r] * sum_m lut[m][code_m(x)] + bias[r] and
 *
 *     | estimate - sum_m T[m][code_m(x)] | <= M * delta / 2
 *
 * in exact arithmetic (each table entry is off by at most delta / 2); the
 * float bias and evaluation add rounding of about 2^-24 (|bias| + scale *
 * sum). Every table holds a 0 (its minimum) and the widest one a 255.
 * Cost O(rows * 16 k) flops; no allocation (M > 256 computes the tables
 * twice instead of buffering them); single-threaded. rows == 0: nothing.
 */
void pq_lut(const pq_codebook *cb, const float *Q, int64_t rows, int64_t ld, uint8_t *lut, float *scale,
            float *bias);

/*
 * Scan: for 0 <= r < rows and j0 <= j < j0 + cols,
 *
 *     out[r * ldo + j] = sum_{m < M} lut[r * M * 16 + m * 16 + code_m(j)]
 *
 * exactly (uint32; at most 255 * PQ_MAX_SUBSPACES). `codes` and `out` are the
 * bases of the whole arrays (block 0, column 0): j0 (a multiple of 32, >= 0)
 * selects the range in both. To write a tile buffer instead, pass the codes
 * of its first block, codes + (j0 / 32) * pq_block_bytes(M), with j0 = 0.
 * Preconditions: 1 <= M <= PQ_MAX_SUBSPACES, rows, cols >= 0, ldo >= j0 +
 * cols, the blocks holding j0 .. j0 + cols - 1 exist, out does not overlap
 * lut or codes; any alignment. Writes exactly those rows x cols entries;
 * never fails; identical on every ISA path. Kernels: SMM_KERNELS_FOR on the
 * table of pq_scan.c for `isa` (the caller resolved it from its context:
 * ctx.isa). Rows are taken in groups of the most rows, a multiple of 8
 * (at least 8), whose tables fit 32 KiB (16 rows at M = 98, 8 at M = 196):
 * one group makes one pass over the codes, more go over tiles of 256 KiB of
 * codes (tables in L1, codes in L2). A tile of sums whose rows are a
 * multiple of 4 KiB apart (ldo a multiple of 1024) sends every row's sums of
 * a block to the same L1 sets: pad ldo (by 32, say) when the tile does not
 * fit L1; at M = 16 that is 15-20% on Zen 4. Single-threaded. Cost rows * cols * M lookups (about
 * 1.5e11 per second per core with AVX-512 VBMI + VNNI on Zen 5 at M = 98..196,
 * 5e10 with AVX2; sketchmm_bench pqscan).
 */
void pq_scan(smm_isa isa, const uint8_t *lut, int64_t rows, int32_t M, const uint8_t *codes, int64_t j0,
             int64_t cols, uint32_t *out, int64_t ldo);

/*
 * The same block as float estimates:
 *     out[r * ldo + j] = scale[r] * (float)sum + bias[r]
 * (float multiply then add, no fused multiply-add; sum < 2^24 converts
 * exactly), so identical on every ISA path. Same preconditions as pq_scan;
 * uses a 16 KiB stack buffer, no allocation.
 */
void pq_scan_float(smm_isa isa, const uint8_t *lut, const float *scale, const float *bias, int64_t rows,
                   int32_t M, const uint8_t *codes, int64_t j0, int64_t cols, float *out, int64_t ldo);

/* Name of the scan kernel that runs on path isa ("scalar", "avx2_pshufb", "avx512_vpermb", "neon_tbl"). */
const char *pq_scan_kernel_name(smm_isa isa);

#endif /* SKETCH_PQ_H */
