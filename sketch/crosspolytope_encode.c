/*
 * crosspolytope_encode.c - cross-polytope codes of a batch of vectors
 * (crosspolytope_encode_with; the hash and code layout are defined in
 * sketch.h, "Cross-polytope LSH").
 *
 * Algorithm
 *   1. Check every argument, allocate all workspace, compute the squared
 *      norms in double (sequential sum over t of x_t^2, as
 *      sketch_simhash_encode) and reject non-finite vectors. Nothing is
 *      written to codes or norms before all of this has succeeded.
 *   2. For each block of hashes (all of them unless their sign masks would
 *      take more than CP_MASK_BUDGET bytes), compute the sign masks of their
 *      rotations once (hd_rotation_signs), then for each chunk of vectors
 *      compute every (vector, hash) value in parallel into a small buffer:
 *      hd_rotate into a per-thread vector, then the arg-max of |y_i| over
 *      the hash's dimension. Pack the values of the chunk into the codes'
 *      fields (parallel over vectors).
 *   Each hash value depends only on the float vector y, which hd_rotate
 *   computes with the same operations on every ISA path, so codes are the
 *   same for every path, thread count, split and layout.
 */
#include <math.h>
#include <stddef.h>

#include <omp.h>

#include "sketch/crosspolytope.h"
#include "sketch/hd_rotation.h"

/* Bytes of sign masks per block of hashes (at least one hash per block). */
#define CP_MASK_BUDGET (INT64_C(8) << 20)
/* Hash values buffered per chunk of vectors (4 MiB of uint32_t). */
#define CP_VALUE_BUDGET (INT64_C(1) << 20)
/* Vectors per task of the column-major norm pass. */
#define CP_NORM_BLOCK 64
/* Least work (elements touched) worth a parallel region. */
#define CP_PARALLEL_MIN_WORK (INT64_C(1) << 15)

/* sum_t x_t^2 in double, sequentially in t, for each of the n vectors. */
static void sum_squares(smm_layout layout, int64_t n, int64_t d, const float *X, int64_t ldx,
                        double *ss, int threads)
{
    const int parallel = n * d >= CP_PARALLEL_MIN_WORK;
    if (layout == SMM_ROW_MAJOR) {
        #pragma omp parallel for num_threads(threads) schedule(static) if (parallel)
        for (int64_t i = 0; i < n; i++) {
            const float *x = X + i * ldx;
            double s = 0.0;
            for (int64_t t = 0; t < d; t++)
                s += (double)x[t] * (double)x[t];
            ss[i] = s;
        }
    } else {
        const int64_t blocks = (n + CP_NORM_BLOCK - 1) / CP_NORM_BLOCK;
        #pragma omp parallel for num_threads(threads) schedule(static) if (parallel)
        for (int64_t blk = 0; blk < blocks; blk++) {
            const int64_t i0 = blk * CP_NORM_BLOCK;
            const int64_t i1 = i0 + CP_NORM_BLOCK < n ? i0 + CP_NORM_BLOCK : n;
            for (int64_t i = i0; i < i1; i++)
                ss[i] = 0.0;
            for (int64_t t = 0; t < d; t++) {
                const float *col = X + t * ldx;
                for (int64_t i = i0; i < i1; i++)
                    ss[i] += (double)col[i] * (double)col[i];
            }
        }
    }
}

/* Cross-polytope hash of dimension dim of y: smallest index of the largest |y_i|, + dim if negative. */
static uint32_t cp_hash(const float *y, int64_t dim)
{
    int64_t best = 0;
    float big = fabsf(y[0]);
    for (int64_t i = 1; i < dim; i++) {
        const float a = fabsf(y[i]);
        if (a > big) {
            big = a;
            best = i;
        }
    }
    return (uint32_t)(best + (y[best] < 0.0f ? dim : 0));
}

smm_status crosspolytope_encode_with(const smm_context *ctx, smm_layout layout,
                                     int64_t n, int64_t d, const float *X, int64_t ldx,
                                     int32_t bits, uint64_t seed,
                                     uint64_t *codes, int64_t ldcodes, float *norms)
{
    /* ---- arguments ---- */
    smm_status s = smm_check_layout(layout);
    if (s != SMM_OK)
        return s;
    s = smm_check_matrix(layout, n, d, X, ldx, sizeof(float));
    if (s != SMM_OK)
        return s;
    sketch_cp_layout lay;
    s = sketch_crosspolytope_layout(d, bits, &lay);
    if (s != SMM_OK)
        return s;
    s = smm_check_matrix(SMM_ROW_MAJOR, n, lay.words, codes, ldcodes, sizeof(uint64_t));
    if (s != SMM_OK)
        return s;
    if (n == 0)
        return SMM_OK;
    const int threads = ctx->threads;
    const int64_t D = lay.dim;
    const int64_t hashes = lay.hashes;
    const int64_t row_step = layout == SMM_ROW_MAJOR ? ldx : 1;
    const int64_t elem_step = layout == SMM_ROW_MAJOR ? 1 : ldx;
    const fwht_fn fwht = fwht_kernel(ctx->isa);

    /* ---- workspace: all of it before any output is written ---- */
    const int64_t mask_bytes_per_hash = (int64_t)HD_ROUNDS * D * (int64_t)sizeof(uint32_t);
    int64_t hash_block = CP_MASK_BUDGET / mask_bytes_per_hash;
    if (hash_block < 1)
        hash_block = 1;
    if (hash_block > hashes)
        hash_block = hashes;
    int64_t chunk = CP_VALUE_BUDGET / hash_block;
    if (chunk < 1)
        chunk = 1;
    if (chunk > n)
        chunk = n;

    double *nrm = smm_aligned_alloc((size_t)n * sizeof(double)); /* n * 8 fits: codes do */
    uint32_t *flip = smm_aligned_alloc((size_t)(hash_block * mask_bytes_per_hash));
    uint32_t *vals = smm_aligned_alloc((size_t)(chunk * hash_block) * sizeof(uint32_t));
    float *ybuf = smm_aligned_alloc((size_t)threads * (size_t)D * sizeof(float));
    if (!nrm || !flip || !vals || !ybuf) {
        smm_aligned_free(nrm);
        smm_aligned_free(flip);
        smm_aligned_free(vals);
        smm_aligned_free(ybuf);
        return SMM_ERR_NO_MEMORY;
    }

    /* ---- norms; reject NaN, Inf and norms that overflow a float ---- */
    sum_squares(layout, n, d, X, ldx, nrm, threads);
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        nrm[i] = sqrt(nrm[i]); /* NaN or Inf when some element is */
        if (!isfinite(nrm[i]) || isinf((float)nrm[i]))
            bad = 1;
    }
    if (bad) {
        smm_aligned_free(nrm);
        smm_aligned_free(flip);
        smm_aligned_free(vals);
        smm_aligned_free(ybuf);
        return SMM_ERR_NON_FINITE;
    }
    if (norms)
        for (int64_t i = 0; i < n; i++)
            norms[i] = (float)nrm[i];

    const int64_t fpw = lay.fields_per_word;
    const int width = lay.width;
    for (int64_t k0 = 0; k0 < hashes; k0 += hash_block) {
        const int64_t hb = hashes - k0 < hash_block ? hashes - k0 : hash_block;
        /* sign masks of rotations k0 .. k0 + hb - 1 */
        #pragma omp parallel for num_threads(threads) schedule(static) if (hb * D >= CP_PARALLEL_MIN_WORK)
        for (int64_t l = 0; l < hb; l++)
            hd_rotation_signs(seed, (uint64_t)(k0 + l), D, flip + l * HD_ROUNDS * D);

        for (int64_t i0 = 0; i0 < n; i0 += chunk) {
            const int64_t m = n - i0 < chunk ? n - i0 : chunk;
            const int64_t tasks = m * hb;
            const int par = tasks > 1 && tasks * D * 4 >= CP_PARALLEL_MIN_WORK;
            #pragma omp parallel num_threads(threads) if (par)
            {
                float *y = ybuf + (size_t)omp_get_thread_num() * (size_t)D;
                #pragma omp for schedule(dynamic, 4)
                for (int64_t task = 0; task < tasks; task++) {
                    const int64_t ii = task / hb, l = task % hb;
                    const int64_t k = k0 + l;
                    if (nrm[i0 + ii] == 0.0) {
                        vals[task] = 0;
                        continue;
                    }
                    hd_rotate(flip + l * HD_ROUNDS * D, X + (i0 + ii) * row_step, elem_step, d, D,
                              fwht, y);
                    vals[task] = cp_hash(y, k < lay.full_hashes ? D : lay.last_dim);
                }
            }
            /* pack: hash k of vector i into word k / fpw at bit (k % fpw) * width */
            const int64_t w0 = k0 / fpw, w1 = (k0 + hb + fpw - 1) / fpw;
            #pragma omp parallel for num_threads(threads) schedule(static) if (m * hb >= CP_PARALLEL_MIN_WORK)
            for (int64_t ii = 0; ii < m; ii++) {
                uint64_t *code = codes + (i0 + ii) * ldcodes;
                const uint32_t *v = vals + ii * hb;
                for (int64_t w = w0; w < w1; w++) {
                    /* a word shared with the previous block keeps the fields written there */
                    uint64_t word = (w * fpw < k0) ? code[w] : 0;
                    const int64_t ka = w * fpw > k0 ? w * fpw : k0;
                    const int64_t kb = (w + 1) * fpw < k0 + hb ? (w + 1) * fpw : k0 + hb;
                    for (int64_t k = ka; k < kb; k++)
                        word |= (uint64_t)v[k - k0] << ((k - w * fpw) * width);
                    code[w] = word;
                }
            }
        }
    }

    smm_aligned_free(nrm);
    smm_aligned_free(flip);
    smm_aligned_free(vals);
    smm_aligned_free(ybuf);
    return SMM_OK;
}
