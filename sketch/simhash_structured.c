/*
 * simhash_structured.c - SKETCH_SIMHASH_STRUCTURED: sign bits of
 * HD-rotations (hd_rotation.h).
 *
 * With D = hd_rotation_dim(d), bit j D + i of the code of x (i < D) is
 * [y_i > 0], y = hd_rotate(x) under the sign masks of rotation `block j` of
 * the seed; blocks j = 0, 1, .. until `bits` bits are produced (the rest of
 * the last block is not stored). O(bits / D * D log D) per vector instead of
 * the bits * d of dense hyperplanes.
 *
 * Algorithm
 *   1. Check the arguments, allocate everything (sign masks of every block,
 *      a staging copy of the codes, per-thread rotation buffers) and build
 *      the sign masks once.
 *   2. One parallel pass over groups of GROUP vectors: the squared norms of
 *      the group (double, increasing t: the definition of sketch.h) and the
 *      largest |x_t| are computed together, GROUP independent sums side by
 *      side (sq_norms kernel of the ISA path: SIMD lanes, bit-identical to
 *      the scalar loop); then each vector is scaled once (hd_scale_pad) and
 *      rotated per block (hd_rotate_scaled, the fused flip + FWHT kernel of
 *      the ISA path), and its signs are packed.
 *      Codes go to the staging buffer, so that a non-finite vector found
 *      late leaves the caller's codes and norms untouched.
 *   3. Copy codes and norms out.
 * Every step is the same arithmetic on every path and thread count: the FWHT
 * kernels do the butterflies of fwht_scalar, the rest is portable code
 * compiled without contraction. Codes are bit-identical everywhere.
 */
#include <math.h>
#include <omp.h>
#include <string.h>

#include "common/smm_runtime.h"
#include "sketch/hd_rotation.h"
#include "sketch/simhash.h"
#include "sketch/vector_norms.h"

/* Vectors whose norms are accumulated together (independent dependency chains, SIMD lanes). */
#define GROUP SQ_NORMS_GROUP
/* Least work (elements touched) worth a parallel region. */
#define STRUCT_PARALLEL_MIN_WORK (INT64_C(1) << 14)

/* The part of a code in the words of bits lo .. hi - 1, when D < 64 (several blocks per word). */
static void pack_signs_small(const float *y, int64_t lo, int64_t hi, uint64_t *code)
{
    for (int64_t b = lo; b < hi; b++) {
        int32_t u;
        memcpy(&u, &y[b - lo], sizeof u);
        code[b / 64] |= (uint64_t)(u > 0) << (b % 64);
    }
}

smm_status simhash_structured_encode_with(const smm_context *ctx, smm_layout layout,
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
    if (d > HD_MAX_DIM)
        return SMM_ERR_BAD_SIZE;
    if (bits < 1 || bits > SKETCH_MAX_BITS)
        return SMM_ERR_BAD_BITS;
    const int64_t words = simhash_words(bits);
    s = smm_check_matrix(SMM_ROW_MAJOR, n, words, codes, ldcodes, sizeof(uint64_t));
    if (s != SMM_OK)
        return s;
    if (n == 0)
        return SMM_OK;
    const int threads = ctx->threads;
    const int64_t D = hd_rotation_dim(d);
    const int64_t blocks = (bits + D - 1) / D;
    const int64_t row_step = layout == SMM_ROW_MAJOR ? ldx : 1;
    const int64_t elem_step = layout == SMM_ROW_MAJOR ? 1 : ldx;

    /* ---- workspace, all before any output is written ---- */
    const int64_t buf = D < 16 ? 16 : D; /* floats per rotation buffer (64-byte multiple) */
    int64_t flip_elems, code_elems, ybuf_elems;
    if (smm_mul_size(blocks, HD_ROUNDS * D, &flip_elems) != SMM_OK ||
        (uint64_t)flip_elems > (uint64_t)PTRDIFF_MAX / sizeof(uint32_t) ||
        smm_mul_size(n, words, &code_elems) != SMM_OK ||
        (uint64_t)code_elems > (uint64_t)PTRDIFF_MAX / sizeof(uint64_t) ||
        smm_mul_size(2 * (int64_t)threads, buf, &ybuf_elems) != SMM_OK ||
        (uint64_t)ybuf_elems > (uint64_t)PTRDIFF_MAX / sizeof(float))
        return SMM_ERR_OVERFLOW;
    uint32_t *flip = smm_aligned_alloc((size_t)flip_elems * sizeof(uint32_t));
    uint64_t *stage = smm_aligned_alloc((size_t)code_elems * sizeof(uint64_t));
    float *nrm = smm_aligned_alloc((size_t)n * sizeof(float));
    float *ybuf = smm_aligned_alloc((size_t)ybuf_elems * sizeof(float));
    if (!flip || !stage || !nrm || !ybuf) {
        smm_aligned_free(flip);
        smm_aligned_free(stage);
        smm_aligned_free(nrm);
        smm_aligned_free(ybuf);
        return SMM_ERR_NO_MEMORY;
    }

    #pragma omp parallel for num_threads(threads) schedule(static) if (flip_elems >= STRUCT_PARALLEL_MIN_WORK)
    for (int64_t j = 0; j < blocks; j++)
        hd_rotation_signs(seed, (uint64_t)j, D, flip + j * HD_ROUNDS * D);

    const hd_kernels *hd = hd_kernels_for(ctx->isa);
    const fwht_flip_fn fwht = hd->fwht;
    const sign_pack_fn pack = hd->sign_pack;
    const scale_pad_fn scale_pad = hd->scale_pad;
    const sq_norms_fn sq_norms = sq_norms_kernels_for(ctx->isa)->sq_norms;
    const int64_t groups = (n + GROUP - 1) / GROUP;
    int bad = 0;
    int64_t work;
    const int parallel = smm_mul_size(n, blocks * D + d, &work) != SMM_OK || work >= STRUCT_PARALLEL_MIN_WORK;

    #pragma omp parallel num_threads(threads) if (parallel)
    {
        float *xs = ybuf + (int64_t)omp_get_thread_num() * 2 * buf; /* scaled, zero-padded vector */
        float *y = xs + buf;                                        /* its rotation (blocks > 1) */
        #pragma omp for schedule(static) reduction(|| : bad)
        for (int64_t g = 0; g < groups; g++) {
            const int64_t i0 = g * GROUP;
            const int64_t m = n - i0 < GROUP ? n - i0 : GROUP;
            double ss[GROUP] = { 0 };
            float big[GROUP] = { 0 };
            /* vector i0 + k at x0 + k * row_step; d == 0 reads nothing (X may be NULL) */
            const float *x0 = d > 0 ? X + i0 * row_step : X;
            if (m == GROUP) /* GROUP independent sums, each in increasing t */
                sq_norms(x0, row_step, elem_step, d, ss, big);
            else
                sq_norms_continue(x0, row_step, elem_step, m, 0, d, ss, big);
            for (int64_t k = 0; k < m; k++) {
                const int64_t i = i0 + k;
                uint64_t *code = stage + i * words;
                const double r = sqrt(ss[k]);
                if (!isfinite(r) || isinf((float)r)) {
                    bad = 1; /* NaN or Inf in the vector (ss is then NaN or Inf), or a norm overflowing a float */
                    continue;
                }
                nrm[i] = (float)r;
                memset(code, 0, (size_t)words * sizeof(uint64_t));
                if (ss[k] == 0.0) /* zero vector (a nonzero float squares to >= 2^-298): all-zero code */
                    continue;
                hd_scale_pad(x0 + k * row_step, elem_step, d, D, big[k], scale_pad, xs);
                for (int64_t j = 0; j < blocks; j++) {
                    /* one block rotates xs in place; several rotate copies of it */
                    float *v = blocks > 1 ? y : xs;
                    hd_rotate_scaled(flip + j * HD_ROUNDS * D, fwht, xs, D, v);
                    const int64_t lo = j * D, hi = lo + D < bits ? lo + D : bits;
                    if (D >= 64)
                        pack(v, hi - lo, code + lo / 64);
                    else
                        pack_signs_small(v, lo, hi, code);
                }
            }
        }
    }
    if (bad) {
        smm_aligned_free(flip);
        smm_aligned_free(stage);
        smm_aligned_free(nrm);
        smm_aligned_free(ybuf);
        return SMM_ERR_NON_FINITE;
    }
    for (int64_t i = 0; i < n; i++)
        memcpy(codes + i * ldcodes, stage + i * words, (size_t)words * sizeof(uint64_t));
    if (norms)
        memcpy(norms, nrm, (size_t)n * sizeof(float));
    smm_aligned_free(flip);
    smm_aligned_free(stage);
    smm_aligned_free(nrm);
    smm_aligned_free(ybuf);
    return SMM_OK;
}
