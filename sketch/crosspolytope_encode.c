/*
 * crosspolytope_encode.c - cross-polytope codes of a batch of vectors
 * (crosspolytope_encode_with; the hash and code layout are defined in
 * sketch.h, "Cross-polytope LSH").
 *
 * Algorithm
 *   1. Check every argument, allocate all workspace, compute the norms and
 *      largest magnitudes (vector_norms: the definition of
 *      sketch_simhash_encode) and reject non-finite vectors. Nothing is
 *      written to codes or norms before all of this has succeeded.
 *   2. For each block of hashes (all of them unless their sign masks would
 *      take more than CP_MASK_BUDGET bytes), compute the sign masks of their
 *      rotations once (hd_rotation_signs), then for each chunk of vectors,
 *      in parallel over the vectors: the scaled, zero-padded copy once per
 *      vector (hd_scale_pad), and per hash its rotation (hd_rotate_scaled)
 *      and the arg-max of |y_i| over the hash's dimension, into a small
 *      buffer. Pack the values of the chunk into the codes' fields
 *      (parallel over vectors).
 *   Each hash value depends only on the float vector y, which the rotation
 *   computes with the same operations on every ISA path, so codes are the
 *   same for every path, thread count, split and layout.
 */
#include <math.h>
#include <stddef.h>

#include <omp.h>

#include "sketch/crosspolytope.h"
#include "sketch/hd_rotation.h"
#include "sketch/vector_norms.h"

/* Bytes of sign masks per block of hashes (at least one hash per block). */
#define CP_MASK_BUDGET (INT64_C(8) << 20)
/* Hash values buffered per chunk of vectors (4 MiB of uint32_t). */
#define CP_VALUE_BUDGET (INT64_C(1) << 20)
/* Least work (elements touched) worth a parallel region. */
#define CP_PARALLEL_MIN_WORK (INT64_C(1) << 15)

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
    const hd_kernels *hd = hd_kernels_for(ctx->isa);
    const fwht_flip_fn fwht = hd->fwht;
    const scale_pad_fn scale_pad = hd->scale_pad;

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
    float *big = smm_aligned_alloc((size_t)n * sizeof(float));
    uint32_t *flip = smm_aligned_alloc((size_t)(hash_block * mask_bytes_per_hash));
    uint32_t *vals = smm_aligned_alloc((size_t)(chunk * hash_block) * sizeof(uint32_t));
    float *ybuf = smm_aligned_alloc((size_t)threads * 2 * (size_t)D * sizeof(float));
    if (!nrm || !big || !flip || !vals || !ybuf) {
        smm_aligned_free(nrm);
        smm_aligned_free(big);
        smm_aligned_free(flip);
        smm_aligned_free(vals);
        smm_aligned_free(ybuf);
        return SMM_ERR_NO_MEMORY;
    }

    /* ---- norms; reject NaN, Inf and norms that overflow a float ---- */
    if (vector_norms(ctx, layout, n, d, X, ldx, nrm, big) != SMM_OK) {
        smm_aligned_free(nrm);
        smm_aligned_free(big);
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
            const int par = m > 1 && m * hb * D * 4 >= CP_PARALLEL_MIN_WORK;
            #pragma omp parallel num_threads(threads) if (par)
            {
                float *xs = ybuf + (size_t)omp_get_thread_num() * 2 * (size_t)D; /* scaled, padded */
                float *y = xs + D;                                                 /* one rotation */
                #pragma omp for schedule(dynamic, 1)
                for (int64_t ii = 0; ii < m; ii++) {
                    const int64_t i = i0 + ii;
                    uint32_t *v = vals + ii * hb;
                    if (nrm[i] == 0.0) {
                        for (int64_t l = 0; l < hb; l++)
                            v[l] = 0;
                        continue;
                    }
                    hd_scale_pad(X + i * row_step, elem_step, d, D, big[i], scale_pad, xs);
                    for (int64_t l = 0; l < hb; l++) {
                        const int64_t k = k0 + l;
                        hd_rotate_scaled(flip + l * HD_ROUNDS * D, fwht, xs, D, y);
                        v[l] = cp_hash(y, k < lay.full_hashes ? D : lay.last_dim);
                    }
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
    smm_aligned_free(big);
    smm_aligned_free(flip);
    smm_aligned_free(vals);
    smm_aligned_free(ybuf);
    return SMM_OK;
}
