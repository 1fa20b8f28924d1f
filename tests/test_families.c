/*
 * test_families.c - Check suite of the sketch families (sketch_encode,
 * sketch_code_words, sketch_method_name, sketch_method_uses_bits) and of
 * the shared HD-rotation
 * kernels they use.
 *
 * - Every FWHT kernel (plain and with the fused sign flip) and every
 *   sign-packing, squared-norm and scale-and-pad kernel is bit-equal to its
 *   scalar twin (FWHT: D = 2 .. 65536; norms: both layouts and general
 *   strides); the FWHT pass planner covers every stage once, in order; the
 *   kernel tables give each path its kernels.
 * - Codes of every family are bit-identical across ISA paths, thread counts
 *   and layouts; structured codes equal an in-test reference built from the
 *   documented definition (hd_rotation_signs, flips and fwht_scalar),
 *   orthogonal codes are the signs of the reference double dot products with
 *   orthonormal rows whose first row per block is the normalised Gaussian row.
 * - Golden code words pin the current codes (any platform must reproduce
 *   them: the suite also runs under qemu-aarch64).
 * - Zero vectors, d == 0, and bad input (statuses, nothing written).
 * - Seeded statistics: angle estimates unbiased (4 standard errors) for the
 *   three SimHash families; SimHash's variance theta (pi - theta) / bits
 *   (within 15%); lower variance for the orthogonal and structured families
 *   when bits = d = 64. Codes are bit-identical everywhere, so these
 *   deterministic tests give the same numbers on every platform.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#include "common/smm_runtime.h"
#include "sketch/fwht_plan.h"
#include "sketch/hd_rotation.h"
#include "sketch/vector_norms.h"
#include "sketch/simhash.h"

static const double PI = 3.14159265358979323846;
static const uint64_t SENTINEL = UINT64_C(0xA5A5A5A5DEADBEEF);

/* 1 when the family's encoder is implemented in this build (cross-polytope may not be yet). */
static int family_available(sketch_method f)
{
    int64_t w;
    return sketch_code_words(f, 16, 64, &w) == SMM_OK;
}

/* A float with a random sign, mantissa and an exponent in [-20, 20], or an exact 0 now and then. */
static float wide_float(uint64_t *rng)
{
    const uint64_t r = test_rng_next(rng);
    if (r % 61 == 0)
        return (r & 64) ? -0.0f : 0.0f;
    const float m = 1.0f + (float)((r >> 20) & 0x7fffff) * 0x1p-23f;
    const int e = (int)((r >> 8) % 41) - 20;
    return (r & 1 ? -1.0f : 1.0f) * ldexpf(m, e);
}

static int same_bits(const float *a, const float *b, int64_t n)
{
    return memcmp(a, b, (size_t)n * sizeof(float)) == 0;
}

/* ======================================================================
 * Kernels
 * ====================================================================== */

START_TEST(test_fwht_kernels_match_scalar)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    uint64_t rng = 101;
    const int64_t maxD = INT64_C(1) << 16; /* from 8192 up, one trial: several full later passes */
    float *src = smm_aligned_alloc((size_t)maxD * sizeof(float));
    float *ref = smm_aligned_alloc((size_t)(maxD + 1) * sizeof(float));
    float *got = smm_aligned_alloc((size_t)(maxD + 1) * sizeof(float));
    uint32_t *flip = smm_aligned_alloc((size_t)(HD_ROUNDS * maxD) * sizeof(uint32_t));
    ck_assert(src && ref && got && flip);
    for (int64_t D = 2; D <= maxD; D *= 2) {
        for (int trial = 0; trial < (D <= 4096 ? 3 : 1); trial++) {
            for (int64_t i = 0; i < D; i++)
                src[i] = trial == 2 ? test_rng_uniform(&rng) : wide_float(&rng);
            hd_rotation_signs(77 + (uint64_t)trial, (uint64_t)D, D, flip);
            for (int k = 0; k < nisa; k++) {
                const hd_kernels *row = hd_kernels_for(isas[k]);
                /* plain FWHT, unaligned start too (got + 1) */
                memcpy(ref, src, (size_t)D * sizeof(float));
                fwht_scalar(ref, D);
                for (int off = 0; off < 2; off++) {
                    memcpy(got + off, src, (size_t)D * sizeof(float));
                    row->fwht(got + off, NULL, D);
                    ck_assert_msg(same_bits(ref, got + off, D), "fwht %s D=%lld off=%d", row->head.name,
                                  (long long)D, off);
                }
                /* fused flip: flip then scalar FWHT, three rounds */
                memcpy(ref, src, (size_t)D * sizeof(float));
                memcpy(got, src, (size_t)D * sizeof(float));
                for (int r = 0; r < HD_ROUNDS; r++) {
                    for (int64_t i = 0; i < D; i++) {
                        uint32_t u;
                        memcpy(&u, &ref[i], 4);
                        u ^= flip[r * D + i];
                        memcpy(&ref[i], &u, 4);
                    }
                    fwht_scalar(ref, D);
                    row->fwht(got, flip + r * D, D);
                }
                ck_assert_msg(same_bits(ref, got, D), "fwht_flip %s D=%lld", row->head.name, (long long)D);
                /* hd_rotate with this kernel: the same as the flips and scalar FWHTs of a scaled copy */
                float *y = smm_aligned_alloc((size_t)D * sizeof(float));
                float *yref = smm_aligned_alloc((size_t)D * sizeof(float));
                ck_assert(y && yref);
                const int64_t d = D > 2 ? D - D / 4 : D;
                hd_rotate(flip, src, 1, d, D, row->fwht, y);
                hd_rotate(flip, src, 1, d, D, fwht_flip_scalar, yref);
                ck_assert(same_bits(y, yref, D));
                smm_aligned_free(y);
                smm_aligned_free(yref);
            }
        }
    }
    smm_aligned_free(src);
    smm_aligned_free(ref);
    smm_aligned_free(got);
    smm_aligned_free(flip);
}
END_TEST

START_TEST(test_sign_pack_kernels)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    uint64_t rng = 102;
    float y[300];
    for (int64_t count = 1; count <= 300; count++) {
        for (int64_t i = 0; i < count; i++)
            y[i] = (i % 5 == 0) ? (i % 10 == 0 ? 0.0f : -0.0f) : test_rng_uniform(&rng);
        uint64_t want[5] = { 0 };
        for (int64_t i = 0; i < count; i++)
            if (y[i] > 0.0f)
                want[i / 64] |= UINT64_C(1) << (i % 64);
        for (int k = 0; k < nisa; k++) {
            uint64_t got[6];
            for (int w = 0; w < 6; w++)
                got[w] = SENTINEL;
            hd_kernels_for(isas[k])->sign_pack(y, count, got);
            const int64_t words = (count + 63) / 64;
            ck_assert_msg(memcmp(got, want, (size_t)words * 8) == 0, "pack %d count %lld", (int)isas[k],
                          (long long)count);
            ck_assert(got[words] == SENTINEL);
        }
    }
}
END_TEST

/* Equal doubles, or both NaN (NaN payloads are not part of the contract). */
static int same_double(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

START_TEST(test_sq_norms_kernels)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    uint64_t rng = 103;
    static const int64_t dims[] = { 0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 63, 64, 100, 257, 784, 785 };
    const int64_t G = SQ_NORMS_GROUP, maxd = 785, pad = 5;
    const int64_t len = (2 * maxd + 7) * (G + pad); /* any of the three layouts */
    float *X = malloc((size_t)len * sizeof(float));
    ck_assert(X);
    for (size_t q = 0; q < sizeof dims / sizeof dims[0]; q++) {
        const int64_t d = dims[q];
        for (int trial = 0; trial < 4; trial++) {
            for (int layout = 0; layout < 3; layout++) {
                /* row-major: vector k at X + k (d + pad); column-major: element t at X + t (G + pad);
                 * 2: general strides (odd row step, element step 2), the vector kernels' scalar fallback */
                const int64_t row_step = layout == 0 ? d + pad : layout == 1 ? 1 : 2 * d + 7;
                const int64_t elem_step = layout == 0 ? 1 : layout == 1 ? G + pad : 2;
                for (int64_t k = 0; k < len; k++)
                    X[k] = trial == 0 ? test_rng_uniform(&rng) : wide_float(&rng);
                if (trial == 3 && d > 0) { /* non-finite elements in a few vectors, and -0, +0 */
                    X[3 * row_step + (d - 1) * elem_step] = INFINITY;
                    X[5 * row_step + (d / 2) * elem_step] = NAN;
                    X[9 * row_step] = -NAN;
                    X[10 * row_step] = -0.0f;
                    X[11 * row_step + (d - 1) * elem_step] = -INFINITY;
                }
                double want[SQ_NORMS_GROUP], ss[SQ_NORMS_GROUP];
                float wbig[SQ_NORMS_GROUP], big[SQ_NORMS_GROUP];
                for (int64_t k = 0; k < G; k++) { /* the definition */
                    double sum = 0.0;
                    float b = 0.0f;
                    for (int64_t t = 0; t < d; t++) {
                        const float a = X[k * row_step + t * elem_step];
                        sum += (double)a * (double)a;
                        b = fabsf(a) > b ? fabsf(a) : b;
                    }
                    want[k] = sum;
                    wbig[k] = b;
                }
                for (int k = -1; k < nisa; k++) {
                    const sq_norms_fn f = k < 0 ? sq_norms_scalar : sq_norms_kernels_for(isas[k])->sq_norms;
                    f(X, row_step, elem_step, d, ss, big);
                    for (int64_t v = 0; v < G; v++) {
                        ck_assert_msg(same_double(ss[v], want[v]), "sq_norms isa %d d %lld layout %d vector %lld: %a %a",
                                      k < 0 ? -1 : (int)isas[k], (long long)d, layout, (long long)v, ss[v], want[v]);
                        ck_assert_msg(same_bits(&big[v], &wbig[v], 1), "sq_norms big isa %d d %lld layout %d",
                                      k < 0 ? -1 : (int)isas[k], (long long)d, layout);
                    }
                }
            }
        }
    }
    free(X);
}
END_TEST

START_TEST(test_scale_pad_kernels)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    uint64_t rng = 104;
    float x[1100], want[1100], got[1101];
    for (int64_t d = 0; d <= 1024; d = d < 80 ? d + 1 : d * 2 - 33) {
        const int64_t D = hd_rotation_dim(d);
        for (int trial = 0; trial < 3; trial++) {
            for (int64_t t = 0; t < d + 1; t++)
                x[t] = trial == 0 ? test_rng_uniform(&rng) : wide_float(&rng);
            /* 2^-1, 2^20 and 2^-120 (the last makes some products subnormal, rounded) */
            const float scale = trial == 0 ? 0.5f : trial == 1 ? 0x1p20f : 0x1p-120f;
            scale_pad_scalar(x, d, scale, want, D);
            for (int64_t t = 0; t < D; t++) {
                const float w = t < d ? x[t] * scale : 0.0f;
                ck_assert(same_bits(&want[t], &w, 1));
            }
            for (int k = 0; k < nisa; k++) {
                for (int off = 0; off < 2; off++) {
                    for (int64_t t = 0; t < D + 1; t++)
                        got[t] = -1.0f;
                    hd_kernels_for(isas[k])->scale_pad(x, d, scale, got + off, D);
                    ck_assert_msg(same_bits(want, got + off, D), "scale_pad isa %d d %lld off %d", (int)isas[k],
                                  (long long)d, off);
                    ck_assert(off == 1 ? got[0] == -1.0f : got[D] == -1.0f);
                }
            }
        }
    }
}
END_TEST

/* The pass plans of the three vector FWHT kernels' shapes (lanes, registers): every stage once, in order. */
START_TEST(test_fwht_plan)
{
    static const int shapes_lr[][2] = { { 8, 8 }, { 16, 16 }, { 4, 16 }, { 4, 2 } };
    for (size_t s = 0; s < sizeof shapes_lr / sizeof shapes_lr[0]; s++) {
        const int lanes = shapes_lr[s][0], max_regs = shapes_lr[s][1];
        for (int64_t D = lanes; D <= HD_MAX_DIM; D *= 2) {
            fwht_plan plan;
            fwht_plan_make(&plan, D, lanes, max_regs);
            ck_assert(plan.passes >= 1 && plan.passes <= FWHT_MAX_PASSES);
            ck_assert_int_eq(plan.h0[0], lanes);
            int64_t h0 = lanes;
            for (int p = 0; p < plan.passes; p++) {
                const int regs = plan.regs[p];
                ck_assert_int_eq(plan.h0[p], h0);
                ck_assert(regs >= (p == 0 ? 1 : 2) && regs <= max_regs && (regs & (regs - 1)) == 0);
                /* as many registers as allowed, unless the stages left are fewer */
                ck_assert(regs == max_regs || h0 * regs == D);
                h0 *= regs;
            }
            ck_assert_int_eq(h0, D); /* the stages h = lanes .. D / 2, each in exactly one pass */
            ck_assert_int_eq(plan.regs[0] == 1, D == lanes);
        }
    }
}
END_TEST

/* The kernel tables give each path its own kernels, the scalar twins where it has none. */
START_TEST(test_kernel_rows)
{
    const hd_kernels *scalar = hd_kernels_for(SMM_ISA_SCALAR);
    ck_assert(scalar->fwht == fwht_flip_scalar && scalar->sign_pack == sign_pack_scalar &&
              scalar->scale_pad == scale_pad_scalar);
    ck_assert(hd_kernels_for(SMM_ISA_AUTO) == scalar);
    ck_assert(sq_norms_kernels_for(SMM_ISA_SCALAR)->sq_norms == sq_norms_scalar);
    ck_assert_str_eq(sq_norms_kernels_for(SMM_ISA_SCALAR)->head.name, "scalar");
    ck_assert(sq_norms_kernels_for(SMM_ISA_NEON)->sq_norms == sq_norms_scalar);
#if defined(__x86_64__)
    if (smm_isa_supported(SMM_ISA_AVX2)) {
        const hd_kernels *row = hd_kernels_for(SMM_ISA_AVX2);
        ck_assert(row->fwht == fwht_flip_avx2 && row->sign_pack == sign_pack_avx2 && row->scale_pad == scale_pad_avx2);
        ck_assert_str_eq(row->head.name, "avx2");
        ck_assert(sq_norms_kernels_for(SMM_ISA_AVX2)->sq_norms == sq_norms_avx2);
    }
    if (smm_isa_supported(SMM_ISA_AVX512)) {
        const hd_kernels *row = hd_kernels_for(SMM_ISA_AVX512);
        ck_assert(row->fwht == fwht_flip_avx512 && row->sign_pack == sign_pack_avx512 &&
                  row->scale_pad == scale_pad_avx512);
        ck_assert_str_eq(row->head.name, "avx512");
        ck_assert(sq_norms_kernels_for(SMM_ISA_AVX512)->sq_norms == sq_norms_avx512);
    }
#endif
#if defined(__aarch64__)
    /* the suite runs under qemu-aarch64: the NEON kernels must be the ones tested there */
    ck_assert(smm_isa_supported(SMM_ISA_NEON));
    const hd_kernels *neon = hd_kernels_for(SMM_ISA_NEON);
    ck_assert(neon->fwht == fwht_flip_neon && neon->sign_pack == sign_pack_neon && neon->scale_pad == scale_pad_scalar);
    ck_assert_str_eq(neon->head.name, "neon");
#endif
}
END_TEST

START_TEST(test_rotation_dim_and_names)
{
    ck_assert_int_eq(hd_rotation_dim(0), 2);
    ck_assert_int_eq(hd_rotation_dim(1), 2);
    ck_assert_int_eq(hd_rotation_dim(3), 4);
    ck_assert_int_eq(hd_rotation_dim(784), 1024);
    ck_assert_int_eq(hd_rotation_dim(1024), 1024);
    ck_assert_int_eq(hd_rotation_dim(HD_MAX_DIM), HD_MAX_DIM);
    ck_assert_int_eq(hd_rotation_dim(HD_MAX_DIM + 1), 0);
    ck_assert_str_eq(sketch_method_name(SKETCH_SIMHASH), "simhash");
    ck_assert_str_eq(sketch_method_name(SKETCH_SIMHASH_ORTHOGONAL), "simhash_orthogonal");
    ck_assert_str_eq(sketch_method_name(SKETCH_SIMHASH_STRUCTURED), "simhash_structured");
    ck_assert_str_eq(sketch_method_name(SKETCH_CROSSPOLYTOPE), "crosspolytope");
    ck_assert_str_eq(sketch_method_name(SKETCH_GAUSSIAN_PROJECTION), "gaussian_projection");
    ck_assert_str_eq(sketch_method_name(SKETCH_SRHT), "srht");
    ck_assert_str_eq(sketch_method_name(SKETCH_COUNTSKETCH), "countsketch");
    ck_assert_str_eq(sketch_method_name(SKETCH_CR_SAMPLING), "cr_sampling");
    ck_assert_str_eq(sketch_method_name(SKETCH_LOWRANK), "lowrank");
    ck_assert_str_eq(sketch_method_name(SKETCH_PQ), "pq");
    ck_assert_str_eq(sketch_method_name(SKETCH_MADDNESS), "maddness");
    ck_assert_ptr_null(sketch_method_name((sketch_method)0));
    ck_assert_ptr_null(sketch_method_name((sketch_method)100));
    ck_assert_ptr_null(sketch_method_name((sketch_method)-1));
    for (int m = -1; m <= 100; m++)
        ck_assert_int_eq(sketch_method_uses_bits((sketch_method)m), m >= SKETCH_SIMHASH && m <= SKETCH_CROSSPOLYTOPE);
    ck_assert_str_eq(hd_kernels_for(SMM_ISA_SCALAR)->head.name, "scalar");
}
END_TEST

/* ======================================================================
 * References
 * ====================================================================== */

/* The reference double dot product of sketch.h: four partial sums, (s0 + s1) + (s2 + s3). */
static double dot_ref(const float *x, int64_t incx, const float *g, int64_t d)
{
    double s[4] = { 0, 0, 0, 0 };
    for (int64_t t = 0; t < d; t++)
        s[t % 4] += (double)x[t * incx] * (double)g[t];
    return (s[0] + s[1]) + (s[2] + s[3]);
}

/* Structured codes from the documented definition (row-major X). */
static void structured_reference(int64_t n, int64_t d, const float *X, int64_t ldx, int32_t bits, uint64_t seed,
                                 uint64_t *codes, int64_t ldcodes)
{
    const int64_t D = hd_rotation_dim(d);
    uint32_t *flip = malloc((size_t)(HD_ROUNDS * D) * sizeof(uint32_t));
    float *y = malloc((size_t)D * sizeof(float));
    ck_assert(flip && y);
    for (int64_t i = 0; i < n; i++)
        memset(codes + i * ldcodes, 0, (size_t)simhash_words(bits) * 8);
    for (int64_t j = 0; j * D < bits; j++) {
        hd_rotation_signs(seed, (uint64_t)j, D, flip);
        for (int64_t i = 0; i < n; i++) {
            hd_rotate(flip, X + i * ldx, 1, d, D, fwht_flip_scalar, y);
            for (int64_t b = j * D; b < bits && b < (j + 1) * D; b++)
                if (y[b - j * D] > 0.0f)
                    codes[i * ldcodes + b / 64] |= UINT64_C(1) << (b % 64);
        }
    }
    free(flip);
    free(y);
}

/* Orthogonal codes from the generator's rows (row-major X) and a check of those rows. */
static void orthogonal_reference(int64_t n, int64_t d, const float *X, int64_t ldx, int32_t bits, uint64_t seed,
                                 uint64_t *codes, int64_t ldcodes)
{
    const int64_t K = d < bits ? d : bits;
    float *G = malloc((size_t)(bits * d) * sizeof(float));
    double *work = malloc((size_t)(K * d) * sizeof(double));
    ck_assert(G && work);
    simhash_orthogonal_generator.rows(seed, bits, 0, bits, d, G, d, work, 1);
    /* rows orthonormal within a block; the first row of each block is the normalised Gaussian row */
    for (int64_t r = 0; r < bits; r++) {
        const int64_t r0 = r / K * K;
        for (int64_t q = r0; q <= r; q++) {
            const double p = dot_ref(G + r * d, 1, G + q * d, d);
            ck_assert_msg(fabs(p - (q == r ? 1.0 : 0.0)) < 1e-5, "rows %lld, %lld: %g", (long long)r, (long long)q, p);
        }
        if (r == r0) {
            double nn = 0.0;
            for (int64_t t = 0; t < d; t++) {
                const double g = simhash_hyperplane_entry(seed, (uint64_t)r, (uint64_t)t);
                nn += g * g;
            }
            for (int64_t t = 0; t < d; t++) {
                const double g = simhash_hyperplane_entry(seed, (uint64_t)r, (uint64_t)t) / sqrt(nn);
                ck_assert(fabs(G[r * d + t] - g) <= 1e-6 * fabs(g) + 1e-30);
            }
        }
    }
    for (int64_t i = 0; i < n; i++) {
        memset(codes + i * ldcodes, 0, (size_t)simhash_words(bits) * 8);
        for (int64_t b = 0; b < bits; b++)
            if (dot_ref(X + i * ldx, 1, G + b * d, d) > 0.0)
                codes[i * ldcodes + b / 64] |= UINT64_C(1) << (b % 64);
    }
    free(G);
    free(work);
}

/* ======================================================================
 * Reproducibility
 * ====================================================================== */

typedef struct {
    int64_t n, d;
    int32_t bits;
} shape;

static const shape shapes[] = {
    { 1, 1, 1 },    { 9, 3, 63 },    { 17, 64, 64 }, { 33, 100, 65 }, { 40, 784, 96 },
    { 5, 31, 1000 }, { 64, 128, 300 }, { 3, 2, 130 },  { 70, 17, 40 },
};

/* Row i of the row-major test set: uniform values, every 5th vector zero, every 7th with wide exponents. */
static void fill_set(int64_t n, int64_t d, float *X, uint64_t *rng)
{
    for (int64_t i = 0; i < n; i++)
        for (int64_t t = 0; t < d; t++)
            X[i * d + t] = i % 5 == 4 ? 0.0f : i % 7 == 6 ? wide_float(rng) : test_rng_uniform(rng);
}

START_TEST(test_codes_identical_everywhere)
{
    const shape sh = shapes[_i];
    const int64_t n = sh.n, d = sh.d;
    const int32_t bits = sh.bits;
    const uint64_t seed = 500 + (uint64_t)_i;
    uint64_t rng = 900 + (uint64_t)_i;
    float *X = malloc((size_t)(n * d) * sizeof(float));
    float *Xc = malloc((size_t)((n + 3) * d + 1) * sizeof(float)); /* column-major, ld = n + 3 */
    ck_assert(X && Xc);
    fill_set(n, d, X, &rng);
    const int64_t ldc = n + 3;
    for (int64_t i = 0; i < n; i++)
        for (int64_t t = 0; t < d; t++)
            Xc[i + t * ldc] = X[i * d + t];
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int f = SKETCH_SIMHASH; f <= SKETCH_CROSSPOLYTOPE; f++) {
        const sketch_method fam = (sketch_method)f;
        if (!family_available(fam))
            continue;
        int64_t words;
        ck_assert_int_eq(sketch_code_words(fam, d, bits, &words), SMM_OK);
        const int64_t ld = words + 1;
        uint64_t *ref = malloc((size_t)(n * ld) * 8), *got = malloc((size_t)(n * ld) * 8);
        float *nref = malloc((size_t)n * 4), *ngot = malloc((size_t)n * 4);
        ck_assert(ref && got && nref && ngot);
        test_restore_defaults();
        ck_assert_int_eq(smm_set_isa(SMM_ISA_SCALAR), SMM_OK);
        smm_set_num_threads(1);
        for (int64_t k = 0; k < n * ld; k++)
            ref[k] = SENTINEL;
        ck_assert_int_eq(sketch_encode(fam, SMM_ROW_MAJOR, n, d, X, d, bits, seed, ref, ld, nref), SMM_OK);
        for (int64_t i = 0; i < n; i++) {
            ck_assert(ref[i * ld + words] == SENTINEL); /* only the code's words are written */
            double ss = 0.0;
            for (int64_t t = 0; t < d; t++)
                ss += (double)X[i * d + t] * X[i * d + t];
            ck_assert(nref[i] == (float)sqrt(ss));
            if (ss == 0.0 && fam != SKETCH_CROSSPOLYTOPE)
                for (int64_t w = 0; w < words; w++)
                    ck_assert(ref[i * ld + w] == 0);
        }
        if (fam == SKETCH_SIMHASH || fam == SKETCH_SIMHASH_ORTHOGONAL || fam == SKETCH_SIMHASH_STRUCTURED) {
            uint64_t *def = malloc((size_t)(n * ld) * 8);
            ck_assert(def);
            if (fam == SKETCH_SIMHASH)
                ck_assert_int_eq(sketch_simhash_encode(SMM_ROW_MAJOR, n, d, X, d, bits, seed, def, ld, NULL), SMM_OK);
            else if (fam == SKETCH_SIMHASH_ORTHOGONAL)
                orthogonal_reference(n, d, X, d, bits, seed, def, ld);
            else
                structured_reference(n, d, X, d, bits, seed, def, ld);
            for (int64_t i = 0; i < n; i++)
                ck_assert_msg(memcmp(def + i * ld, ref + i * ld, (size_t)words * 8) == 0,
                              "%s: vector %lld differs from the definition", sketch_method_name(fam), (long long)i);
            free(def);
        }
        for (int k = 0; k < nisa; k++) {
            ck_assert_int_eq(smm_set_isa(isas[k]), SMM_OK);
            for (int threads = 1; threads <= 2; threads++) {
                smm_set_num_threads(threads);
                for (int layout = 0; layout < 2; layout++) {
                    for (int64_t q = 0; q < n * ld; q++)
                        got[q] = SENTINEL;
                    smm_status s = layout == 0
                        ? sketch_encode(fam, SMM_ROW_MAJOR, n, d, X, d, bits, seed, got, ld, ngot)
                        : sketch_encode(fam, SMM_COL_MAJOR, n, d, Xc, ldc, bits, seed, got, ld, ngot);
                    ck_assert_int_eq(s, SMM_OK);
                    for (int64_t i = 0; i < n; i++) {
                        ck_assert_msg(memcmp(got + i * ld, ref + i * ld, (size_t)words * 8) == 0,
                                      "%s isa %d threads %d layout %d vector %lld", sketch_method_name(fam),
                                      (int)isas[k], threads, layout, (long long)i);
                        ck_assert(got[i * ld + words] == SENTINEL);
                    }
                    ck_assert(memcmp(ngot, nref, (size_t)n * 4) == 0);
                }
            }
        }
        free(ref), free(got), free(nref), free(ngot);
    }
    test_restore_defaults();
    free(X);
    free(Xc);
}
END_TEST

/* Golden code words: computed once from this implementation; a change of codes must be deliberate. */
START_TEST(test_golden)
{
    test_restore_defaults();
    const float X[3][5] = {
        { 1.0f, -2.0f, 0.5f, 3.25f, -0.75f },
        { -1.5f, 1e-3f, 2.0f, -4.0f, 8.0f },
        { 3.0f, 3.0f, 3.0f, 3.0f, 3.0f },
    };
    static const uint64_t golden_orth[3][3] = {
        { UINT64_C(0x1663b1f2c2084d35), UINT64_C(0x982d6b1a627a1844), UINT64_C(0x0000000000000001) },
        { UINT64_C(0xeebb0f2ab7773a8b), UINT64_C(0xfbc820a70ba97ff3), UINT64_C(0x0000000000000000) },
        { UINT64_C(0x9687c36ef2236193), UINT64_C(0x2151a989e8ac72c1), UINT64_C(0x0000000000000001) },
    };
    static const uint64_t golden_struct[3][3] = {
        { UINT64_C(0x40e1503a121112ed), UINT64_C(0x389e486711ad66a4), UINT64_C(0x0000000000000001) },
        { UINT64_C(0xbe0cecec65e56d3b), UINT64_C(0x6308a1f0cf33b1cf), UINT64_C(0x0000000000000000) },
        { UINT64_C(0xa41cd0aee5358887), UINT64_C(0x6216e1f2ce37b280), UINT64_C(0x0000000000000000) },
    };
    uint64_t codes[3][3];
    ck_assert_int_eq(sketch_encode(SKETCH_SIMHASH_ORTHOGONAL, SMM_ROW_MAJOR, 3, 5, &X[0][0], 5, 130, 2024,
                                   &codes[0][0], 3, NULL), SMM_OK);
    ck_assert(memcmp(codes, golden_orth, sizeof codes) == 0);
    ck_assert_int_eq(sketch_encode(SKETCH_SIMHASH_STRUCTURED, SMM_ROW_MAJOR, 3, 5, &X[0][0], 5, 130, 2024,
                                   &codes[0][0], 3, NULL), SMM_OK);
    ck_assert(memcmp(codes, golden_struct, sizeof codes) == 0);

    /* d = 784, 256 bits, structured, seed 7: one uniform vector (splitmix64 state 31) */
    float x[784];
    uint64_t rng = 31;
    test_fill_uniform(x, 784, &rng);
    uint64_t c4[4];
    static const uint64_t golden784[4] = { UINT64_C(0xb6805f8a98a51fde), UINT64_C(0xf3a3db0f4e6bf065),
                                             UINT64_C(0xd808b97e21449865), UINT64_C(0x1a63689023d97d70) };
    ck_assert_int_eq(sketch_encode(SKETCH_SIMHASH_STRUCTURED, SMM_ROW_MAJOR, 1, 784, x, 784, 256, 7, c4, 4, NULL),
                     SMM_OK);
    ck_assert(memcmp(c4, golden784, sizeof c4) == 0);
}
END_TEST

START_TEST(test_zero_vectors_and_empty)
{
    test_restore_defaults();
    float Z[4 * 33] = { 0 };
    for (int f = SKETCH_SIMHASH; f <= SKETCH_CROSSPOLYTOPE; f++) {
        const sketch_method fam = (sketch_method)f;
        if (!family_available(fam))
            continue;
        int64_t words;
        ck_assert_int_eq(sketch_code_words(fam, 33, 200, &words), SMM_OK);
        uint64_t *c = malloc((size_t)(4 * words) * 8);
        float nr[4] = { 1, 1, 1, 1 };
        ck_assert_int_eq(sketch_encode(fam, SMM_ROW_MAJOR, 4, 33, Z, 33, 200, 3, c, words, nr), SMM_OK);
        for (int64_t k = 0; k < 4 * words; k++)
            ck_assert(c[k] == 0);
        for (int i = 0; i < 4; i++)
            ck_assert(nr[i] == 0.0f);
        /* d == 0: every vector is the zero vector; X may be NULL */
        int64_t w0;
        ck_assert_int_eq(sketch_code_words(fam, 0, 200, &w0), SMM_OK);
        uint64_t *c0 = malloc((size_t)(2 * w0) * 8);
        for (int64_t k = 0; k < 2 * w0; k++)
            c0[k] = SENTINEL;
        ck_assert_int_eq(sketch_encode(fam, SMM_ROW_MAJOR, 2, 0, NULL, 1, 200, 3, c0, w0, nr), SMM_OK);
        for (int64_t k = 0; k < 2 * w0; k++)
            ck_assert(c0[k] == 0);
        /* n == 0: codes may be NULL */
        ck_assert_int_eq(sketch_encode(fam, SMM_ROW_MAJOR, 0, 33, NULL, 33, 200, 3, NULL, words, NULL), SMM_OK);
        free(c);
        free(c0);
    }
}
END_TEST

START_TEST(test_bad_input)
{
    test_restore_defaults();
    float X[3 * 8];
    uint64_t rng = 5;
    test_fill_uniform(X, 24, &rng);
    uint64_t codes[3 * 4];
    float norms[3];
    const sketch_method fams[3] = { SKETCH_SIMHASH, SKETCH_SIMHASH_ORTHOGONAL, SKETCH_SIMHASH_STRUCTURED };
    for (int f = 0; f < 3; f++) {
        const sketch_method fam = fams[f];
        struct {
            smm_layout layout;
            int64_t n, d;
            const float *x;
            int64_t ldx;
            int32_t bits;
            uint64_t *c;
            int64_t ldc;
            smm_status want;
        } cases[] = {
            { SMM_ROW_MAJOR, 3, 8, X, 8, 0, codes, 4, SMM_ERR_BAD_BITS },
            { SMM_ROW_MAJOR, 3, 8, X, 8, -5, codes, 4, SMM_ERR_BAD_BITS },
            { SMM_ROW_MAJOR, 3, 8, X, 8, SKETCH_MAX_BITS + 1, codes, 4, SMM_ERR_BAD_BITS },
            { SMM_ROW_MAJOR, 3, -1, X, 8, 64, codes, 4, SMM_ERR_BAD_SIZE },
            { SMM_ROW_MAJOR, -1, 8, X, 8, 64, codes, 4, SMM_ERR_BAD_SIZE },
            { SMM_ROW_MAJOR, 3, 8, NULL, 8, 64, codes, 4, SMM_ERR_NULL_POINTER },
            { SMM_ROW_MAJOR, 3, 8, X, 8, 64, NULL, 4, SMM_ERR_NULL_POINTER },
            { SMM_ROW_MAJOR, 3, 8, X, 7, 64, codes, 4, SMM_ERR_BAD_LEADING_DIM },
            { SMM_ROW_MAJOR, 3, 8, X, 8, 256, codes, 3, SMM_ERR_BAD_LEADING_DIM },
            { SMM_ROW_MAJOR, 3, 8, X, 8, 65, codes, 1, SMM_ERR_BAD_LEADING_DIM },
            { SMM_COL_MAJOR, 3, 8, X, 2, 64, codes, 4, SMM_ERR_BAD_LEADING_DIM },
            { (smm_layout)0, 3, 8, X, 8, 64, codes, 4, SMM_ERR_BAD_LAYOUT },
        };
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            for (int q = 0; q < 12; q++)
                codes[q] = SENTINEL;
            norms[0] = norms[1] = norms[2] = -7.0f;
            const smm_status s = sketch_encode(fam, cases[k].layout, cases[k].n, cases[k].d, cases[k].x, cases[k].ldx,
                                               cases[k].bits, 1, cases[k].c, cases[k].ldc, norms);
            ck_assert_msg(s == cases[k].want, "%s case %zu: %s", sketch_method_name(fam), k, smm_status_str(s));
            for (int q = 0; q < 12; q++)
                ck_assert(codes[q] == SENTINEL);
            ck_assert(norms[0] == -7.0f && norms[2] == -7.0f);
        }
        /* a NaN or Inf in the last vector, or a norm that overflows: nothing written */
        const float specials[3] = { NAN, INFINITY, 3e38f };
        for (int sp = 0; sp < 3; sp++) {
            float Y[3 * 8];
            memcpy(Y, X, sizeof Y);
            Y[2 * 8 + 5] = specials[sp];
            if (sp == 2)
                Y[2 * 8 + 6] = 3e38f;
            for (int q = 0; q < 12; q++)
                codes[q] = SENTINEL;
            norms[0] = -7.0f;
            ck_assert_int_eq(sketch_encode(fam, SMM_ROW_MAJOR, 3, 8, Y, 8, 256, 1, codes, 4, norms),
                             SMM_ERR_NON_FINITE);
            for (int q = 0; q < 12; q++)
                ck_assert(codes[q] == SENTINEL);
            ck_assert(norms[0] == -7.0f);
        }
    }
    /* unknown values and the linear sketches (approx.h's classical methods: no codes) */
    const int unknown[8] = { -1, 0, 9, 99, SKETCH_GAUSSIAN_PROJECTION, SKETCH_SRHT, SKETCH_COUNTSKETCH,
                             SKETCH_CR_SAMPLING };
    for (int k = 0; k < 8; k++) {
        codes[0] = SENTINEL;
        ck_assert_int_eq(sketch_encode((sketch_method)unknown[k], SMM_ROW_MAJOR, 3, 8, X, 8, 64, 1, codes, 4, norms),
                         SMM_ERR_BAD_METHOD);
        ck_assert(codes[0] == SENTINEL);
        int64_t w = -3;
        ck_assert_int_eq(sketch_code_words((sketch_method)unknown[k], 8, 64, &w), SMM_ERR_BAD_METHOD);
        ck_assert_int_eq(w, -3);
    }
    /* structured: d beyond the largest rotation */
    ck_assert_int_eq(sketch_encode(SKETCH_SIMHASH_STRUCTURED, SMM_ROW_MAJOR, 0, HD_MAX_DIM + 1, NULL,
                                   HD_MAX_DIM + 1, 64, 1, NULL, 1, NULL), SMM_ERR_BAD_SIZE);
    /* sketch_code_words */
    int64_t w = -3;
    for (int f = 0; f < 3; f++) {
        w = -3;
        ck_assert_int_eq(sketch_code_words(fams[f], 10, 0, &w), SMM_ERR_BAD_BITS);
        ck_assert_int_eq(sketch_code_words(fams[f], 10, SKETCH_MAX_BITS + 1, &w), SMM_ERR_BAD_BITS);
        ck_assert_int_eq(sketch_code_words(fams[f], -1, 64, &w), SMM_ERR_BAD_SIZE);
        ck_assert_int_eq(sketch_code_words(fams[f], 10, 64, NULL), SMM_ERR_NULL_POINTER);
        ck_assert_int_eq(w, -3);
        ck_assert_int_eq(sketch_code_words(fams[f], 10, 65, &w), SMM_OK);
        ck_assert_int_eq(w, 2);
        ck_assert_int_eq(sketch_code_words(fams[f], 100000, SKETCH_MAX_BITS, &w), SMM_OK);
        ck_assert_int_eq(w, 1024);
    }
    ck_assert_int_eq(sketch_code_words(SKETCH_SIMHASH_STRUCTURED, HD_MAX_DIM + 1, 64, &w), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(sketch_code_words(SKETCH_SIMHASH, HD_MAX_DIM + 1, 64, &w), SMM_OK);
    /* an unavailable ISA path is an error status, not a crash */
    static const smm_isa all[] = { SMM_ISA_AVX2, SMM_ISA_AVX512, SMM_ISA_NEON };
    for (int k = 0; k < 3; k++) {
        if (smm_isa_supported(all[k]))
            continue;
        ck_assert_int_eq(smm_set_isa(all[k]), SMM_ERR_ISA_UNAVAILABLE);
        codes[0] = SENTINEL;
        ck_assert_int_eq(sketch_encode(SKETCH_SIMHASH_STRUCTURED, SMM_ROW_MAJOR, 3, 8, X, 8, 64, 1, codes, 4, NULL),
                         SMM_ERR_ISA_UNAVAILABLE);
        ck_assert(codes[0] == SENTINEL);
        test_restore_defaults();
    }
    test_restore_defaults();
}
END_TEST

/* ======================================================================
 * Statistics
 * ====================================================================== */

/* A pair of float vectors of dimension d at angle theta (measured in double: *actual). */
static void make_pair(int d, double theta, uint64_t *rng, float *x, float *y, double *actual)
{
    double u[128], v[128], nu = 0, uv = 0, nv = 0;
    for (int t = 0; t < d; t++) {
        u[t] = test_rng_uniform(rng);
        v[t] = test_rng_uniform(rng);
        nu += u[t] * u[t];
    }
    for (int t = 0; t < d; t++)
        u[t] /= sqrt(nu);
    for (int t = 0; t < d; t++)
        uv += u[t] * v[t];
    for (int t = 0; t < d; t++) {
        v[t] -= uv * u[t];
        nv += v[t] * v[t];
    }
    double xy = 0, xx = 0, yy = 0;
    for (int t = 0; t < d; t++) {
        x[t] = (float)u[t];
        y[t] = (float)(cos(theta) * u[t] + sin(theta) * v[t] / sqrt(nv));
        xy += (double)x[t] * y[t];
        xx += (double)x[t] * x[t];
        yy += (double)y[t] * y[t];
    }
    *actual = acos(xy / sqrt(xx * yy));
}

/* Seeds per statistic. Sanitizer builds run an order of magnitude slower and use fewer (the
 * tests stay deterministic: codes, hence these statistics, are the same on every platform). */
#if defined(__SANITIZE_ADDRESS__)
enum { STAT_SEEDS = 600, STAT_PAIRS = 3 };
#else
enum { STAT_SEEDS = 1500, STAT_PAIRS = 3 };
#endif

/* Mean and variance of the angle estimate of each pair over STAT_SEEDS seeds. */
static void angle_stats(sketch_method fam, int d, int bits, const float *X, double *mean, double *var)
{
    double sum[STAT_PAIRS] = { 0 }, sum2[STAT_PAIRS] = { 0 };
    int64_t words;
    ck_assert_int_eq(sketch_code_words(fam, d, bits, &words), SMM_OK);
    uint64_t codes[2 * STAT_PAIRS * 2];
    ck_assert(words <= 2);
    for (uint64_t seed = 0; seed < STAT_SEEDS; seed++) {
        ck_assert_int_eq(sketch_encode(fam, SMM_ROW_MAJOR, 2 * STAT_PAIRS, d, X, d, bits, seed, codes, words, NULL),
                         SMM_OK);
        for (int p = 0; p < STAT_PAIRS; p++) {
            int64_t h = 0;
            for (int64_t w = 0; w < words; w++)
                h += __builtin_popcountll(codes[2 * p * words + w] ^ codes[(2 * p + 1) * words + w]);
            const double est = sketch_angle_estimate(h, bits);
            sum[p] += est;
            sum2[p] += est * est;
        }
    }
    for (int p = 0; p < STAT_PAIRS; p++) {
        mean[p] = sum[p] / STAT_SEEDS;
        var[p] = (sum2[p] - STAT_SEEDS * mean[p] * mean[p]) / (STAT_SEEDS - 1);
    }
}

START_TEST(test_unbiased_and_variance)
{
    test_restore_defaults();
    smm_set_num_threads(1); /* thousands of tiny calls (codes do not depend on it) */
    const int dims[2] = { 64, 100 };
    const double thetas[STAT_PAIRS] = { PI / 5, PI / 2, 3 * PI / 4 };
    for (int di = 0; di < 2; di++) {
        const int d = dims[di], bits = 64;
        float X[2 * STAT_PAIRS * 100];
        double actual[STAT_PAIRS];
        uint64_t rng = 4242 + (uint64_t)d;
        for (int p = 0; p < STAT_PAIRS; p++)
            make_pair(d, thetas[p], &rng, X + 2 * p * d, X + (2 * p + 1) * d, &actual[p]);
        /* the three SimHash families, var_family[f] for fams[f] */
        static const sketch_method fams[3] = { SKETCH_SIMHASH, SKETCH_SIMHASH_ORTHOGONAL, SKETCH_SIMHASH_STRUCTURED };
        double var_family[3][STAT_PAIRS];
        for (int f = 0; f < 3; f++) {
            double mean[STAT_PAIRS];
            angle_stats(fams[f], d, bits, X, mean, var_family[f]);
            for (int p = 0; p < STAT_PAIRS; p++) {
                const double th = actual[p], theory = th * (PI - th) / bits;
                /* the standard error from the family's own spread (and SimHash's as a floor) */
                const double se = sqrt(fmax(var_family[f][p], 0.25 * theory) / STAT_SEEDS);
                ck_assert_msg(fabs(mean[p] - th) <= 4 * se, "%s d=%d theta %.4f: mean %.5f, se %.5f",
                              sketch_method_name(fams[f]), d, th, mean[p], se);
                if (fams[f] == SKETCH_SIMHASH)
                    ck_assert_msg(fabs(var_family[f][p] / theory - 1.0) <= 0.15,
                                  "simhash d=%d theta %.4f: variance %.6f, theory %.6f", d, th, var_family[f][p],
                                  theory);
            }
        }
        if (d == bits) /* b = d = 64: orthogonal directions lower the variance */
            for (int f = 1; f < 3; f++)
                for (int p = 0; p < STAT_PAIRS; p++)
                    ck_assert_msg(var_family[f][p] < 0.9 * var_family[0][p], "%s theta %.4f: variance %.6f vs %.6f",
                                  sketch_method_name(fams[f]), actual[p], var_family[f][p],
                                  var_family[0][p]);
    }
    test_restore_defaults();
}
END_TEST

static Suite *families_suite(void)
{
    Suite *s = suite_create("families");
    TCase *tc = tcase_create("kernels");
    tcase_add_test(tc, test_fwht_kernels_match_scalar);
    tcase_add_test(tc, test_sign_pack_kernels);
    tcase_add_test(tc, test_sq_norms_kernels);
    tcase_add_test(tc, test_scale_pad_kernels);
    tcase_add_test(tc, test_fwht_plan);
    tcase_add_test(tc, test_kernel_rows);
    tcase_add_test(tc, test_rotation_dim_and_names);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);

    tc = tcase_create("encode");
    tcase_add_loop_test(tc, test_codes_identical_everywhere, 0, (int)(sizeof shapes / sizeof shapes[0]));
    tcase_add_test(tc, test_golden);
    tcase_add_test(tc, test_zero_vectors_and_empty);
    tcase_add_test(tc, test_bad_input);
    tcase_set_timeout(tc, 300);
    suite_add_tcase(s, tc);

    tc = tcase_create("statistics");
    tcase_add_test(tc, test_unbiased_and_variance);
    tcase_set_timeout(tc, 300);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(families_suite());
}
