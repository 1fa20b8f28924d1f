/*
 * test_sketch.c - Check suite of the sketch module: the portable normal
 * quantile, the SimHash hyperplanes and codes, the Hamming kernels and
 * sketch_hamming_u32, and the estimators.
 *
 * Codes are compared bit for bit with an in-test reference built from the
 * documented definition (hyperplanes from sketch_simhash_hyperplanes, bit b
 * set iff the double dot product in the documented order is > 0) on every
 * ISA path, thread count and layout, including vectors whose projections are
 * exactly 0, within rounding of 0, overflow a float or underflow. A golden
 * known-answer test pins hyperplane entries and code words so that any
 * platform (the suite also runs under qemu-aarch64) must reproduce them.
 * Every Hamming kernel is compared with the scalar one; statistical tests
 * check the angle estimate's mean and variance over many seeds.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "test_util.h"

#include "sketch/hamming_kernels.h"
#include "common/smm_runtime.h"
#include "sketch/normal_quantile.h"
#include "sketch/simhash.h"

static const double PI = 3.14159265358979323846;
static const uint64_t SENTINEL = UINT64_C(0xA5A5A5A5DEADBEEF);
static const uint32_t SENTINEL32 = 0xDEADBEEFu;

static int64_t max_i64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* An ISA path this CPU cannot run, or SMM_ISA_AUTO when it runs them all. */
static smm_isa unsupported_isa(void)
{
    static const smm_isa all[] = { SMM_ISA_AVX2, SMM_ISA_AVX512, SMM_ISA_NEON };
    for (int i = 0; i < 3; i++)
        if (!smm_isa_supported(all[i]))
            return all[i];
    return SMM_ISA_AUTO;
}

/* ======================================================================
 * Normal quantile and its logarithm
 * ====================================================================== */

/* PPND16 exactly as normal_quantile.c, but with libm's log. */
static double ppnd16_libm(double p)
{
    const double q = p - 0.5;
    if (fabs(q) <= 0.425) {
        const double t = 0.180625 - q * q;
        return q *
               (((((((2.5090809287301226727e+3 * t + 3.3430575583588128105e+4) * t +
                     6.7265770927008700853e+4) * t + 4.5921953931549871457e+4) * t +
                   1.3731693765509461125e+4) * t + 1.9715909503065514427e+3) * t +
                 1.3314166789178437745e+2) * t + 3.3871328727963666080e+0) /
               (((((((5.2264952788528545610e+3 * t + 2.8729085735721942674e+4) * t +
                     3.9307895800092710610e+4) * t + 2.1213794301586595867e+4) * t +
                   5.3941960214247511077e+3) * t + 6.8718700749205790830e+2) * t +
                 4.2313330701600911252e+1) * t + 1.0);
    }
    double t = sqrt(-log(q < 0.0 ? p : 1.0 - p)), val;
    if (t <= 5.0) {
        t -= 1.6;
        val = (((((((7.74545014278341407640e-4 * t + 2.27238449892691845833e-2) * t +
                    2.41780725177450611770e-1) * t + 1.27045825245236838258e+0) * t +
                  3.64784832476320460504e+0) * t + 5.76949722146069140550e+0) * t +
                4.63033784615654529590e+0) * t + 1.42343711074968357734e+0) /
              (((((((1.05075007164441684324e-9 * t + 5.47593808499534494600e-4) * t +
                    1.51986665636164571966e-2) * t + 1.48103976427480074590e-1) * t +
                  6.89767334985100004550e-1) * t + 1.67638483018380384940e+0) * t +
                2.05319162663775882187e+0) * t + 1.0);
    } else {
        t -= 5.0;
        val = (((((((2.01033439929228813265e-7 * t + 2.71155556874348757815e-5) * t +
                    1.24266094738807843860e-3) * t + 2.65321895265761230930e-2) * t +
                  2.96560571828504891230e-1) * t + 1.78482653991729133580e+0) * t +
                5.46378491116411436990e+0) * t + 6.65790464350110377720e+0) /
              (((((((2.04426310338993978564e-15 * t + 1.42151175831644588870e-7) * t +
                    1.84631831751005468180e-5) * t + 7.86869131145613259100e-4) * t +
                  1.48753612908506148525e-2) * t + 1.36929880922735805310e-1) * t +
                5.99832206555887937690e-1) * t + 1.0);
    }
    return q < 0.0 ? -val : val;
}

static double rel_err(double got, double want)
{
    if (got == want)
        return 0.0;
    return fabs(got - want) / fmax(fabs(want), DBL_MIN);
}

START_TEST(test_log_matches_libm)
{
    uint64_t rng = 11;
    double worst = 0.0, worst_x = 0.0;
    /* every binade from subnormals to huge, plus values right around 1 */
    for (int i = 0; i < 200000; i++) {
        double x;
        if (i % 4 == 0)
            x = 1.0 + ((double)(test_rng_next(&rng) >> 11) * 0x1p-53 - 0.5) * 0x1p-10;
        else
            x = ldexp(1.0 + (double)(test_rng_next(&rng) >> 12) * 0x1p-52,
                      (int)(test_rng_next(&rng) % 2100) - 1070);
        const double e = rel_err(normal_quantile_log(x), log(x));
        if (e > worst) {
            worst = e;
            worst_x = x;
        }
    }
    ck_assert_msg(worst <= 4 * DBL_EPSILON, "log: relative error %g at x = %a", worst, worst_x);
    ck_assert(normal_quantile_log(1.0) == 0.0);
    ck_assert(normal_quantile_log(0.0) == -INFINITY);
    ck_assert(normal_quantile_log(INFINITY) == INFINITY);
    ck_assert(isnan(normal_quantile_log(-1.0)));
    ck_assert(isnan(normal_quantile_log(NAN)));
    ck_assert(fabs(normal_quantile_log(0x1p-1074) - log(0x1p-1074)) <= 1e-15 * 745);
}
END_TEST

START_TEST(test_quantile_accuracy)
{
    uint64_t rng = 12;
    double worst_ref = 0.0, worst_cdf = 0.0, worst_p = 0.0;
    for (int i = 0; i < 200000; i++) {
        double p;
        if (i % 2 == 0)
            p = ((double)(test_rng_next(&rng) >> 11) + 0.5) * 0x1p-53; /* uniform */
        else
            p = ldexp(1.0 + (double)(test_rng_next(&rng) >> 12) * 0x1p-52,
                      -2 - (int)(test_rng_next(&rng) % 1000)); /* deep lower tail */
        const double z = normal_quantile(p);
        const double e = rel_err(z, ppnd16_libm(p));
        if (e > worst_ref)
            worst_ref = e;
        /* Phi(z) == p: the relative error of p is |z| times the one of z, plus erfc's own */
        const double back = 0.5 * erfc(-z / sqrt(2.0));
        const double ec = rel_err(back, p) / fmax(1.0, fabs(z) * fabs(z));
        if (ec > worst_cdf) {
            worst_cdf = ec;
            worst_p = p;
        }
    }
    ck_assert_msg(worst_ref <= 1e-14, "quantile vs libm-log PPND16: %g", worst_ref);
    ck_assert_msg(worst_cdf <= 1e-13, "Phi(quantile(p)) vs p: %g at p = %a", worst_cdf, worst_p);

    /* a few values known to many digits */
    ck_assert(normal_quantile(0.5) == 0.0);
    ck_assert(rel_err(normal_quantile(0.975), 1.959963984540054) < 1e-15);
    ck_assert(rel_err(normal_quantile(0.025), -1.959963984540054) < 1e-15);
    ck_assert(rel_err(normal_quantile(1e-10), -6.361340902404056) < 1e-14);
    ck_assert(rel_err(normal_quantile(0.8413447460685429), 1.0) < 1e-14);
    ck_assert(normal_quantile(0.0) == -INFINITY);
    ck_assert(normal_quantile(1.0) == INFINITY);
    ck_assert(isnan(normal_quantile(NAN)));
    ck_assert(normal_quantile_centered(0.5) == INFINITY);
    ck_assert(normal_quantile_centered(-0.5) == -INFINITY);
    ck_assert(isnan(normal_quantile_centered(0.75)));
}
END_TEST

START_TEST(test_quantile_symmetry)
{
    uint64_t rng = 13;
    int bad = 0;
    for (int i = 0; i < 100000; i++) {
        /* q = odd * 2^-54 as the hyperplanes use it, and dyadic p whose 1 - p is exact */
        const int64_t m = (int64_t)(test_rng_next(&rng) >> 11) * 2 + 1 - (INT64_C(1) << 53);
        const double q = (double)m * 0x1p-54;
        if (normal_quantile_centered(-q) != -normal_quantile_centered(q))
            bad++;
        const double p = (double)(test_rng_next(&rng) >> 40) * 0x1p-24 + 0x1p-25;
        if (normal_quantile(1.0 - p) != -normal_quantile(p))
            bad++;
        if (q <= -0.25 && normal_quantile(0.5 + q) != normal_quantile_centered(q))
            bad++; /* 1/2 + q is exact for q <= -1/4 */
    }
    ck_assert_int_eq(bad, 0);
    /* monotone on a fine grid */
    double prev = -INFINITY;
    for (int k = 1; k < 4096; k++) {
        const double z = normal_quantile((double)k / 4096.0);
        ck_assert(z > prev);
        prev = z;
    }
}
END_TEST

/* ======================================================================
 * Hyperplanes
 * ====================================================================== */

/* Entry (b, t) from the documented formula, through normal_quantile(p). */
static float documented_entry(uint64_t seed, uint64_t b, uint64_t t)
{
    unsigned char key[16];
    for (int i = 0; i < 8; i++) {
        key[i] = (unsigned char)(b >> (8 * i));
        key[8 + i] = (unsigned char)(t >> (8 * i));
    }
    const uint64_t k = XXH3_64bits_withSeed(key, 16, seed) >> 11;
    /* u = (k + 1/2) 2^-53 is exact in double below 1/2; above, use 1 - u. */
    if (k < (UINT64_C(1) << 52))
        return (float)normal_quantile(((double)k + 0.5) * 0x1p-53);
    return (float)-normal_quantile(((double)((UINT64_C(1) << 53) - 1 - k) + 0.5) * 0x1p-53);
}

START_TEST(test_hyperplanes_formula)
{
    const int32_t bits = 70;
    const int64_t d = 40, ldg = 45;
    float *G = malloc((size_t)(bits * ldg) * sizeof(float));
    ck_assert_ptr_nonnull(G);
    for (int64_t i = 0; i < bits * ldg; i++)
        G[i] = -7.0f;
    const uint64_t seeds[] = { 0, 1, UINT64_C(0x0123456789ABCDEF) };
    for (int s = 0; s < 3; s++) {
        ck_assert_int_eq(sketch_simhash_hyperplanes(bits, d, seeds[s], G, ldg), SMM_OK);
        int bad = 0, pad_bad = 0;
        double sum = 0.0, sum2 = 0.0;
        for (int64_t b = 0; b < bits; b++) {
            for (int64_t t = 0; t < d; t++) {
                const float g = G[b * ldg + t];
                if (memcmp(&g, &(float){ documented_entry(seeds[s], (uint64_t)b, (uint64_t)t) }, sizeof g) != 0)
                    bad++;
                sum += g;
                sum2 += (double)g * g;
            }
            for (int64_t t = d; t < ldg; t++)
                if (G[b * ldg + t] != -7.0f)
                    pad_bad++;
        }
        ck_assert_int_eq(bad, 0);
        ck_assert_int_eq(pad_bad, 0);
        const double cnt = (double)bits * (double)d;
        ck_assert(fabs(sum / cnt) < 0.1);
        ck_assert(fabs(sum2 / cnt - 1.0) < 0.1);
    }
    free(G);
}
END_TEST

START_TEST(test_hyperplanes_libm_and_d_independent)
{
    /* close to a libm-based quantile of the same u, and independent of d */
    const int32_t bits = 65;
    float *G3 = malloc(65 * 3 * sizeof(float)), *G100 = malloc(65 * 100 * sizeof(float));
    ck_assert(G3 && G100);
    ck_assert_int_eq(sketch_simhash_hyperplanes(bits, 3, 99, G3, 3), SMM_OK);
    ck_assert_int_eq(sketch_simhash_hyperplanes(bits, 100, 99, G100, 100), SMM_OK);
    int bad = 0;
    for (int b = 0; b < bits; b++) {
        for (int t = 0; t < 3; t++)
            if (memcmp(&G3[b * 3 + t], &G100[b * 100 + t], sizeof(float)) != 0)
                bad++;
        for (int t = 0; t < 100; t++) {
            unsigned char key[16];
            for (int i = 0; i < 8; i++) {
                key[i] = (unsigned char)((uint64_t)b >> (8 * i));
                key[8 + i] = (unsigned char)((uint64_t)t >> (8 * i));
            }
            const uint64_t k = XXH3_64bits_withSeed(key, 16, 99) >> 11;
            const double u = ((double)k + 0.5) * 0x1p-53;
            const double z = ppnd16_libm(u);
            if (fabs(G100[b * 100 + t] - z) > 1e-6 * fmax(1.0, fabs(z)))
                bad++;
        }
    }
    ck_assert_int_eq(bad, 0);
    free(G3);
    free(G100);
}
END_TEST

START_TEST(test_hyperplanes_errors)
{
    float G[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    ck_assert_int_eq(sketch_simhash_hyperplanes(0, 2, 1, G, 2), SMM_ERR_BAD_BITS);
    ck_assert_int_eq(sketch_simhash_hyperplanes(SKETCH_MAX_BITS + 1, 2, 1, G, 2), SMM_ERR_BAD_BITS);
    ck_assert_int_eq(sketch_simhash_hyperplanes(-3, 2, 1, G, 2), SMM_ERR_BAD_BITS);
    ck_assert_int_eq(sketch_simhash_hyperplanes(2, -1, 1, G, 2), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(sketch_simhash_hyperplanes(2, 3, 1, G, 2), SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(sketch_simhash_hyperplanes(2, 0, 1, G, 0), SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(sketch_simhash_hyperplanes(2, 2, 1, NULL, 2), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(sketch_simhash_hyperplanes(2, INT64_MAX / 2, 1, G, INT64_MAX / 2), SMM_ERR_OVERFLOW);
    for (int i = 0; i < 8; i++)
        ck_assert(G[i] == (float)(i + 1));
    ck_assert_int_eq(sketch_simhash_hyperplanes(2, 0, 1, NULL, 1), SMM_OK);
}
END_TEST

/* ======================================================================
 * SimHash codes: reference, golden values, reproducibility
 * ====================================================================== */

/* The documented sign reference: four partial sums, term t into sum t % 4. */
static double reference_dot(const float *x, int64_t incx, const float *g, int64_t d)
{
    double s[4] = { 0.0, 0.0, 0.0, 0.0 };
    for (int64_t t = 0; t < d; t++)
        s[t & 3] += (double)x[t * incx] * (double)g[t];
    return (s[0] + s[1]) + (s[2] + s[3]);
}

/* Words of a SimHash code of `bits` bits in dimension d, from the public size query. */
static int64_t simhash_code_words(int64_t d, int32_t bits)
{
    int64_t words = -1;
    ck_assert_int_eq(sketch_code_words(SKETCH_SIMHASH, d, bits, &words), SMM_OK);
    return words;
}

/* Codes (ldc words apart) from the documented definition. */
static void reference_codes(smm_layout layout, int64_t n, int64_t d, const float *X, int64_t ldx,
                            int32_t bits, uint64_t seed, uint64_t *codes, int64_t ldc)
{
    const int64_t words = simhash_code_words(d, bits), ldg = max_i64(1, d);
    float *G = malloc((size_t)(bits * ldg) * sizeof(float));
    ck_assert_ptr_nonnull(G);
    ck_assert_int_eq(sketch_simhash_hyperplanes(bits, d, seed, G, ldg), SMM_OK);
    const int64_t row_step = layout == SMM_ROW_MAJOR ? ldx : 1;
    const int64_t inc = layout == SMM_ROW_MAJOR ? 1 : ldx;
    for (int64_t i = 0; i < n; i++) {
        for (int64_t w = 0; w < words; w++)
            codes[i * ldc + w] = 0;
        for (int64_t b = 0; b < bits; b++)
            if (reference_dot(X + i * row_step, inc, G + b * ldg, d) > 0.0)
                codes[i * ldc + b / 64] |= UINT64_C(1) << (b % 64);
    }
    free(G);
}

/* Vector i, element t of a set stored in layout. */
static float *elem(smm_layout layout, float *X, int64_t ldx, int64_t i, int64_t t)
{
    return layout == SMM_ROW_MAJOR ? &X[i * ldx + t] : &X[i + t * ldx];
}

/* Golden known answer: a fixed input whose hyperplane entries and code words
 * were computed once from the definition, and confirmed independently (XXH3
 * through libxxhash, CPython's AS 241 inv_cdf with libm's log, exact rational
 * dot products). Any IEEE-754 platform must give exactly these. */
START_TEST(test_golden)
{
    test_restore_defaults();
    /* hyperplane entries, as float bit patterns */
    static const struct { uint64_t seed, b, t; uint32_t bits; } entries[] = {
        { 0, 0, 0, 0x3f6588eeu },                                     /* 0.896620631 */
        { 0, 1, 2, 0xbfeeea93u },                                     /* -1.86653364 */
        { 42, 7, 1000, 0x3db04716u },                                 /* 0.0860730857 */
        { UINT64_C(0xFFFFFFFFFFFFFFFF), 65534, 123456789, 0xbf8f906cu }, /* -1.12159491 */
        { 12345, 3, 3, 0x3f252461u },                                 /* 0.645086348 */
    };
    for (size_t e = 0; e < sizeof entries / sizeof entries[0]; e++) {
        const float g = simhash_hyperplane_entry(entries[e].seed, entries[e].b, entries[e].t);
        const float doc = documented_entry(entries[e].seed, entries[e].b, entries[e].t);
        uint32_t got;
        memcpy(&got, &g, sizeof got);
        ck_assert_msg(got == entries[e].bits, "entry %zu: got 0x%08x (%.9g)", e, got, (double)g);
        ck_assert(memcmp(&g, &doc, sizeof g) == 0);
    }
    /* and one through the public function: entry (1, 2) of seed 0 */
    float G[2 * 3];
    ck_assert_int_eq(sketch_simhash_hyperplanes(2, 3, 0, G, 3), SMM_OK);
    ck_assert(memcmp(&G[1 * 3 + 2], &(float){ simhash_hyperplane_entry(0, 1, 2) }, sizeof(float)) == 0);

    /* codes of 4 vectors of d = 5 at 130 bits, seed 2024 */
    const int64_t n = 4, d = 5;
    const float X[4][5] = {
        { 1.0f, -2.0f, 0.5f, 3.25f, -0.75f },
        { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f },
        { -1.5f, 1e-3f, 2.0f, -4.0f, 8.0f },
        { 3.0f, 3.0f, 3.0f, 3.0f, 3.0f },
    };
    static const uint64_t golden[4][3] = {
        { UINT64_C(0x1e406154d2e80d35), UINT64_C(0x982d4b1c607abd5d), UINT64_C(0x0000000000000003) },
        { UINT64_C(0x0000000000000000), UINT64_C(0x0000000000000000), UINT64_C(0x0000000000000000) },
        { UINT64_C(0x47ab9faa37773a0b), UINT64_C(0xa34b14a70be52be3), UINT64_C(0x0000000000000000) },
        { UINT64_C(0x96c5c16cd2e3719b), UINT64_C(0x3911ad85ebae76e1), UINT64_C(0x0000000000000001) },
    };
    uint64_t codes[4][3], ref[4][3];
    float norms[4];
    ck_assert_int_eq(sketch_simhash_encode(SMM_ROW_MAJOR, n, d, &X[0][0], 5, 130, 2024, &codes[0][0], 3, norms), SMM_OK);
    reference_codes(SMM_ROW_MAJOR, n, d, &X[0][0], 5, 130, 2024, &ref[0][0], 3);
    ck_assert(memcmp(codes, ref, sizeof codes) == 0);
    ck_assert(memcmp(codes, golden, sizeof codes) == 0);
    ck_assert(norms[1] == 0.0f);
    ck_assert(norms[3] == (float)sqrt(45.0));
}
END_TEST

typedef struct {
    int64_t n, d;
    int32_t bits;
} shape;

static const shape repro_shapes[] = {
    { 1, 1, 1 },     { 3, 3, 63 },     { 64, 64, 64 },  { 100, 100, 65 },  { 785, 64, 256 },
    { 100, 785, 1000 }, { 64, 785, 65 }, { 3, 100, 1000 }, { 785, 3, 63 }, { 1, 785, 256 },
    { 785, 100, 1 },  { 64, 1, 1000 },
};

/*
 * Vector set for the reproducibility tests: uniform vectors, with special
 * vectors mixed in (kind = i % 8): 1 zero; 2 a projection exactly 0 on
 * hyperplane i % bits (x_s = g_t, x_t = -g_s); 3 orthogonalised against that
 * hyperplane in double (projection within rounding of 0); 4 huge entries
 * (float projections overflow); 5 subnormal entries.
 */
static void fill_special(smm_layout layout, int64_t n, int64_t d, float *X, int64_t ldx,
                         int32_t bits, uint64_t seed, uint64_t *rng)
{
    const int64_t ldg = max_i64(1, d);
    float *G = malloc((size_t)(bits * ldg) * sizeof(float));
    ck_assert_ptr_nonnull(G);
    ck_assert_int_eq(sketch_simhash_hyperplanes(bits, d, seed, G, ldg), SMM_OK);
    for (int64_t i = 0; i < n; i++) {
        const float *g = G + (i % bits) * ldg;
        for (int64_t t = 0; t < d; t++)
            *elem(layout, X, ldx, i, t) = test_rng_uniform(rng);
        switch (i % 8) {
        case 1:
            for (int64_t t = 0; t < d; t++)
                *elem(layout, X, ldx, i, t) = 0.0f;
            break;
        case 2:
            if (d >= 2) {
                const int64_t s = (int64_t)(test_rng_next(rng) % (uint64_t)d);
                const int64_t t = (s + 1 + (int64_t)(test_rng_next(rng) % (uint64_t)(d - 1))) % d;
                for (int64_t u = 0; u < d; u++)
                    *elem(layout, X, ldx, i, u) = 0.0f;
                *elem(layout, X, ldx, i, s) = g[t];
                *elem(layout, X, ldx, i, t) = -g[s];
            }
            break;
        case 3: {
            double vg = 0.0, gg = 0.0;
            for (int64_t t = 0; t < d; t++) {
                vg += (double)*elem(layout, X, ldx, i, t) * g[t];
                gg += (double)g[t] * g[t];
            }
            for (int64_t t = 0; t < d; t++)
                *elem(layout, X, ldx, i, t) = (float)(*elem(layout, X, ldx, i, t) - vg / gg * g[t]);
            break;
        }
        case 4:
            for (int64_t t = 0; t < d; t++)
                *elem(layout, X, ldx, i, t) *= 3e38f / (float)sqrt((double)d);
            break;
        case 5:
            for (int64_t t = 0; t < d; t++)
                *elem(layout, X, ldx, i, t) *= 1e-39f;
            break;
        default:
            break;
        }
    }
    free(G);
}

START_TEST(test_codes_reproducible)
{
    const shape sh = repro_shapes[_i];
    const int64_t n = sh.n, d = sh.d;
    const int32_t bits = sh.bits;
    const int64_t words = simhash_code_words(d, bits), ldc = words + 2;
    const uint64_t seed = 1000 + (uint64_t)_i;
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);

    uint64_t *ref = malloc((size_t)(n * ldc) * sizeof(uint64_t));
    uint64_t *codes = malloc((size_t)(n * ldc) * sizeof(uint64_t));
    float *norms = malloc((size_t)(n + 1) * sizeof(float));
    ck_assert(ref && codes && norms);

    for (int lay = 0; lay < 2; lay++) {
        const smm_layout layout = lay == 0 ? SMM_ROW_MAJOR : SMM_COL_MAJOR;
        const int64_t ldx = (layout == SMM_ROW_MAJOR ? d : n) + 3;
        const int64_t outer = layout == SMM_ROW_MAJOR ? n : d;
        float *X = malloc((size_t)(outer * ldx) * sizeof(float));
        ck_assert_ptr_nonnull(X);
        uint64_t rng = 77 + (uint64_t)_i;
        for (int64_t k = 0; k < outer * ldx; k++)
            X[k] = NAN; /* padding must never be read */
        fill_special(layout, n, d, X, ldx, bits, seed, &rng);
        reference_codes(layout, n, d, X, ldx, bits, seed, ref, ldc);
        for (int64_t i = 0; i < n; i++)
            for (int64_t w = words; w < ldc; w++)
                ref[i * ldc + w] = SENTINEL;

        for (int a = 0; a < nisa; a++) {
            ck_assert_int_eq(smm_set_isa(isas[a]), SMM_OK);
            for (int threads = 1; threads <= 3; threads++) {
                ck_assert_int_eq(smm_set_num_threads(threads), SMM_OK);
                for (int64_t k = 0; k < n * ldc; k++)
                    codes[k] = SENTINEL;
                norms[n] = -1.0f;
                ck_assert_int_eq(sketch_simhash_encode(layout, n, d, X, ldx, bits, seed, codes, ldc, norms),
                                 SMM_OK);
                int64_t bad = 0, bad_norm = 0;
                for (int64_t k = 0; k < n * ldc; k++)
                    bad += codes[k] != ref[k];
                for (int64_t i = 0; i < n; i++) {
                    double s = 0.0;
                    for (int64_t t = 0; t < d; t++)
                        s += (double)*elem(layout, X, ldx, i, t) * *elem(layout, X, ldx, i, t);
                    bad_norm += norms[i] != (float)sqrt(s);
                }
                ck_assert_msg(bad == 0 && bad_norm == 0 && norms[n] == -1.0f,
                              "n=%lld d=%lld bits=%d layout=%d isa=%s threads=%d: %lld words differ, %lld norms",
                              (long long)n, (long long)d, bits, lay, smm_isa_name(isas[a]), threads,
                              (long long)bad, (long long)bad_norm);
            }
        }
        free(X);
    }
    test_restore_defaults();
    free(ref);
    free(codes);
    free(norms);
}
END_TEST

START_TEST(test_codes_unused_bits_and_ldcodes)
{
    test_restore_defaults();
    /* high bits of the last word are 0 even for vectors whose projections are all positive */
    const int64_t n = 5, d = 8;
    float X[5 * 8];
    uint64_t rng = 5;
    test_fill_uniform(X, n * d, &rng);
    const int32_t bit_counts[] = { 1, 2, 63, 64, 65, 127, 129, 200 };
    for (size_t c = 0; c < sizeof bit_counts / sizeof bit_counts[0]; c++) {
        const int32_t bits = bit_counts[c];
        const int64_t words = simhash_code_words(d, bits), ldc = words + 3;
        uint64_t codes[5 * 8];
        for (int k = 0; k < 5 * 8; k++)
            codes[k] = SENTINEL;
        ck_assert_int_eq(sketch_simhash_encode(SMM_ROW_MAJOR, n, d, X, d, bits, 3, codes, ldc, NULL), SMM_OK);
        for (int64_t i = 0; i < n; i++) {
            if (bits % 64)
                ck_assert((codes[i * ldc + words - 1] >> (bits % 64)) == 0);
            for (int64_t w = words; w < ldc; w++)
                ck_assert(codes[i * ldc + w] == SENTINEL);
        }
        for (int64_t k = (n - 1) * ldc + words; k < 5 * 8; k++)
            ck_assert(codes[k] == SENTINEL);
    }
}
END_TEST

START_TEST(test_codes_seeds_and_zero)
{
    test_restore_defaults();
    const int64_t n = 10, d = 50;
    const int32_t bits = 256;
    float X[10 * 50];
    uint64_t rng = 6;
    test_fill_uniform(X, n * d, &rng);
    for (int t = 0; t < d; t++)
        X[3 * d + t] = 0.0f; /* vector 3 is zero */
    uint64_t c1[10 * 4], c2[10 * 4];
    float norms[10];
    ck_assert_int_eq(sketch_simhash_encode(SMM_ROW_MAJOR, n, d, X, d, bits, 1, c1, 4, norms), SMM_OK);
    ck_assert_int_eq(sketch_simhash_encode(SMM_ROW_MAJOR, n, d, X, d, bits, 2, c2, 4, NULL), SMM_OK);
    int same = 0;
    for (int64_t i = 0; i < n; i++) {
        if (i == 3)
            continue;
        for (int w = 0; w < 4; w++)
            same += c1[i * 4 + w] == c2[i * 4 + w];
    }
    ck_assert_int_eq(same, 0);
    for (int w = 0; w < 4; w++)
        ck_assert(c1[3 * 4 + w] == 0 && c2[3 * 4 + w] == 0);
    ck_assert(norms[3] == 0.0f);
    ck_assert(norms[0] > 0.0f);

    /* d == 0: every vector is the zero vector */
    uint64_t z[3 * 2];
    float zn[3] = { 1, 1, 1 };
    for (int k = 0; k < 6; k++)
        z[k] = SENTINEL;
    ck_assert_int_eq(sketch_simhash_encode(SMM_ROW_MAJOR, 3, 0, NULL, 1, 100, 9, z, 2, zn), SMM_OK);
    for (int k = 0; k < 6; k++)
        ck_assert(z[k] == 0);
    ck_assert(zn[0] == 0.0f && zn[1] == 0.0f && zn[2] == 0.0f);
    /* n == 0: nothing to do, NULL allowed */
    ck_assert_int_eq(sketch_simhash_encode(SMM_COL_MAJOR, 0, 4, NULL, 1, 100, 9, NULL, 2, NULL), SMM_OK);
}
END_TEST

/* Scaling a vector by a positive power of two keeps its code (the double
 * dot products scale exactly); negating it flips every bit of the code where
 * the projection is not 0. */
START_TEST(test_codes_scale_and_sign)
{
    test_restore_defaults();
    const int64_t n = 20, d = 33;
    const int32_t bits = 300;
    float X[3][20 * 33];
    uint64_t rng = 8;
    test_fill_uniform(X[0], n * d, &rng);
    for (int k = 0; k < n * d; k++) {
        X[1][k] = X[0][k] * 0x1p40f;
        X[2][k] = -X[0][k];
    }
    uint64_t c[3][20 * 5];
    for (int v = 0; v < 3; v++)
        ck_assert_int_eq(sketch_simhash_encode(SMM_ROW_MAJOR, n, d, X[v], d, bits, 4, c[v], 5, NULL), SMM_OK);
    ck_assert(memcmp(c[0], c[1], sizeof c[0]) == 0);
    for (int64_t i = 0; i < n; i++)
        for (int w = 0; w < 5; w++) {
            const uint64_t mask = w < 4 ? ~UINT64_C(0) : (UINT64_C(1) << (300 - 256)) - 1;
            ck_assert((c[0][i * 5 + w] ^ c[2][i * 5 + w]) == mask);
        }
}
END_TEST

START_TEST(test_encode_errors)
{
    test_restore_defaults();
    float X[4 * 6];
    uint64_t rng = 9;
    test_fill_uniform(X, 24, &rng);
    uint64_t codes[4 * 3];
    float norms[4];
    for (int k = 0; k < 12; k++)
        codes[k] = SENTINEL;
    for (int k = 0; k < 4; k++)
        norms[k] = -1.0f;
#define ENC(lay, n, d, x, ldx, bits, c, ldc) sketch_simhash_encode(lay, n, d, x, ldx, bits, 1, c, ldc, norms)
    ck_assert_int_eq(ENC((smm_layout)0, 4, 6, X, 6, 64, codes, 3), SMM_ERR_BAD_LAYOUT);
    ck_assert_int_eq(ENC(SMM_ROW_MAJOR, -1, 6, X, 6, 64, codes, 3), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(ENC(SMM_ROW_MAJOR, 4, -1, X, 6, 64, codes, 3), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(ENC(SMM_ROW_MAJOR, 4, 6, X, 5, 64, codes, 3), SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(ENC(SMM_COL_MAJOR, 4, 6, X, 3, 64, codes, 3), SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(ENC(SMM_ROW_MAJOR, 4, 6, NULL, 6, 64, codes, 3), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(ENC(SMM_ROW_MAJOR, 4, 6, X, 6, 0, codes, 3), SMM_ERR_BAD_BITS);
    ck_assert_int_eq(ENC(SMM_ROW_MAJOR, 4, 6, X, 6, -64, codes, 3), SMM_ERR_BAD_BITS);
    ck_assert_int_eq(ENC(SMM_ROW_MAJOR, 4, 6, X, 6, SKETCH_MAX_BITS + 1, codes, 3), SMM_ERR_BAD_BITS);
    ck_assert_int_eq(ENC(SMM_ROW_MAJOR, 4, 6, X, 6, 64, NULL, 3), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(ENC(SMM_ROW_MAJOR, 4, 6, X, 6, 129, codes, 2), SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(ENC(SMM_ROW_MAJOR, 4, 6, X, 6, 64, codes, 0), SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(ENC(SMM_ROW_MAJOR, INT64_MAX / 4, 1, X, 1, 64, codes, 3), SMM_ERR_OVERFLOW);
    ck_assert_int_eq(ENC(SMM_ROW_MAJOR, 4, 6, X, 6, 64, codes, INT64_MAX / 4), SMM_ERR_OVERFLOW);

    /* non-finite input: NaN, Inf, and a norm that overflows a float */
    float Y[4 * 6];
    memcpy(Y, X, sizeof Y);
    Y[2 * 6 + 5] = NAN;
    ck_assert_int_eq(ENC(SMM_ROW_MAJOR, 4, 6, Y, 6, 64, codes, 3), SMM_ERR_NON_FINITE);
    ck_assert_int_eq(ENC(SMM_COL_MAJOR, 6, 4, Y, 6, 64, codes, 3), SMM_ERR_NON_FINITE);
    memcpy(Y, X, sizeof Y);
    Y[23] = -INFINITY;
    ck_assert_int_eq(ENC(SMM_ROW_MAJOR, 4, 6, Y, 6, 64, codes, 3), SMM_ERR_NON_FINITE);
    memcpy(Y, X, sizeof Y);
    for (int t = 0; t < 6; t++)
        Y[6 + t] = 3e38f;
    ck_assert_int_eq(ENC(SMM_ROW_MAJOR, 4, 6, Y, 6, 64, codes, 3), SMM_ERR_NON_FINITE);

    /* a failed ISA selection is reported */
    const smm_isa missing = unsupported_isa();
    if (missing != SMM_ISA_AUTO) {
        ck_assert_int_eq(smm_set_isa(missing), SMM_ERR_ISA_UNAVAILABLE);
        ck_assert_int_eq(ENC(SMM_ROW_MAJOR, 4, 6, X, 6, 64, codes, 3), SMM_ERR_ISA_UNAVAILABLE);
        test_restore_defaults();
    }
#undef ENC
    for (int k = 0; k < 12; k++)
        ck_assert(codes[k] == SENTINEL);
    for (int k = 0; k < 4; k++)
        ck_assert(norms[k] == -1.0f);
}
END_TEST

/* ======================================================================
 * Hamming kernels and sketch_hamming_u32
 * ====================================================================== */

static void fill_codes(uint64_t *c, int64_t count, uint64_t *rng)
{
    for (int64_t k = 0; k < count; k++)
        c[k] = test_rng_next(rng);
}

START_TEST(test_hamming_kernels_match_scalar)
{
    static const int64_t word_counts[] = { 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 33, 1023, 1024, 1030 };
    static const int64_t nbs[] = { 0, 1, 5, 7, 13, 37, 70 };
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    uint64_t rng = 21;
    for (size_t wi = 0; wi < sizeof word_counts / sizeof word_counts[0]; wi++) {
        const int64_t words = word_counts[wi];
        for (int pad = 0; pad < 3; pad++) {
            const int64_t ldb = words + (pad == 0 ? 0 : pad == 1 ? 1 : 5);
            for (size_t ni = 0; ni < sizeof nbs / sizeof nbs[0]; ni++) {
                const int64_t nb = nbs[ni];
                if (words >= 1023 && nb > 13)
                    continue;
                uint64_t *q = malloc((size_t)words * sizeof(uint64_t));
                uint64_t *b = malloc((size_t)max_i64(1, nb * ldb) * sizeof(uint64_t));
                uint32_t *want = malloc((size_t)(nb + 1) * sizeof(uint32_t));
                uint32_t *got = malloc((size_t)(nb + 1) * sizeof(uint32_t));
                ck_assert(q && b && want && got);
                fill_codes(q, words, &rng);
                fill_codes(b, nb * ldb, &rng);
                /* extreme codes: identical to q and its complement (largest distance) */
                if (nb > 2) {
                    for (int64_t w = 0; w < words; w++) {
                        b[w] = q[w];
                        b[ldb + w] = ~q[w];
                    }
                }
                hamming_row_scalar(q, b, nb, ldb, words, want);
                if (nb > 2) {
                    ck_assert_uint_eq(want[0], 0);
                    ck_assert_uint_eq(want[1], (uint32_t)(64 * words));
                }
                for (int a = 0; a < nisa; a++) {
                    const hamming_kernels *row = hamming_kernels_for(isas[a]);
                    const hamming_row_fn k = row->row;
                    ck_assert_ptr_nonnull(k);
                    for (int64_t j = 0; j <= nb; j++)
                        got[j] = SENTINEL32;
                    k(q, b, nb, ldb, words, got);
                    ck_assert_msg(memcmp(got, want, (size_t)nb * sizeof(uint32_t)) == 0 && got[nb] == SENTINEL32,
                                  "kernel %s, words %lld, ldb %lld, nb %lld", row->head.name,
                                  (long long)words, (long long)ldb, (long long)nb);
                }
                free(q);
                free(b);
                free(want);
                free(got);
            }
        }
    }
}
END_TEST

START_TEST(test_hamming_kernel_names)
{
    ck_assert_str_eq(hamming_kernels_for(SMM_ISA_SCALAR)->head.name, "scalar");
    ck_assert(hamming_kernels_for(SMM_ISA_SCALAR)->row == hamming_row_scalar);
    ck_assert(hamming_kernels_for(SMM_ISA_AUTO)->row == hamming_row_scalar);
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int a = 0; a < nisa; a++) {
        ck_assert_int_eq(smm_set_isa(isas[a]), SMM_OK);
        ck_assert_str_eq(sketch_hamming_kernel_name(), hamming_kernels_for(isas[a])->head.name);
    }
    test_restore_defaults();
#if defined(__x86_64__)
    if (smm_isa_supported(SMM_ISA_AVX2))
        ck_assert_str_eq(hamming_kernels_for(SMM_ISA_AVX2)->head.name, "avx2_pshufb");
    if (smm_isa_supported(SMM_ISA_AVX512))
        ck_assert_str_eq(hamming_kernels_for(SMM_ISA_AVX512)->head.name,
                         smm_cpu()->avx512_vpopcntdq ? "avx512_vpopcntdq" : "avx2_pshufb");
#endif
    const smm_isa missing = unsupported_isa();
    if (missing != SMM_ISA_AUTO) {
        smm_set_isa(missing);
        ck_assert_str_eq(sketch_hamming_kernel_name(), "unavailable");
        test_restore_defaults();
    }
}
END_TEST

static void naive_hamming(int64_t na, const uint64_t *a, int64_t lda, int64_t nb, const uint64_t *b,
                          int64_t ldb, int64_t words, uint32_t *dist, int64_t ldd)
{
    for (int64_t i = 0; i < na; i++)
        for (int64_t j = 0; j < nb; j++) {
            uint32_t c = 0;
            for (int64_t w = 0; w < words; w++) {
                uint64_t x = a[i * lda + w] ^ b[j * ldb + w];
                while (x) {
                    x &= x - 1;
                    c++;
                }
            }
            dist[i * ldd + j] = c;
        }
}

START_TEST(test_hamming_u32_matches_naive)
{
    static const struct { int64_t na, nb, words, lda, ldb, ldd; } cases[] = {
        { 37, 45, 3, 5, 4, 50 },  { 1, 1, 1, 1, 1, 1 },     { 17, 70, 1, 1, 1, 71 },
        { 33, 9, 4, 4, 4, 9 },    { 5, 13, 16, 17, 20, 13 }, { 3, 33000, 1, 2, 1, 33001 },
        { 40, 3, 1030, 1030, 1031, 4 },
    };
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    uint64_t rng = 31;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int64_t na = cases[c].na, nb = cases[c].nb, words = cases[c].words;
        const int64_t lda = cases[c].lda, ldb = cases[c].ldb, ldd = cases[c].ldd;
        uint64_t *a = malloc((size_t)(na * lda) * sizeof(uint64_t));
        uint64_t *b = malloc((size_t)(nb * ldb) * sizeof(uint64_t));
        uint32_t *want = malloc((size_t)(na * ldd) * sizeof(uint32_t));
        uint32_t *got = malloc((size_t)(na * ldd) * sizeof(uint32_t));
        ck_assert(a && b && want && got);
        fill_codes(a, na * lda, &rng);
        fill_codes(b, nb * ldb, &rng);
        for (int64_t k = 0; k < na * ldd; k++)
            want[k] = SENTINEL32;
        naive_hamming(na, a, lda, nb, b, ldb, words, want, ldd);
        for (int i = 0; i < nisa; i++) {
            ck_assert_int_eq(smm_set_isa(isas[i]), SMM_OK);
            for (int threads = 1; threads <= 3; threads++) {
                ck_assert_int_eq(smm_set_num_threads(threads), SMM_OK);
                for (int64_t k = 0; k < na * ldd; k++)
                    got[k] = SENTINEL32;
                ck_assert_int_eq(sketch_hamming_u32(na, a, lda, nb, b, ldb, words, got, ldd), SMM_OK);
                ck_assert_msg(memcmp(got, want, (size_t)(na * ldd) * sizeof(uint32_t)) == 0,
                              "case %zu isa %s threads %d", c, smm_isa_name(isas[i]), threads);
            }
        }
        free(a);
        free(b);
        free(want);
        free(got);
    }
    test_restore_defaults();
}
END_TEST

START_TEST(test_hamming_u32_errors)
{
    test_restore_defaults();
    uint64_t a[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, b[8] = { 8, 7, 6, 5, 4, 3, 2, 1 };
    uint32_t dist[16];
    for (int k = 0; k < 16; k++)
        dist[k] = SENTINEL32;
    ck_assert_int_eq(sketch_hamming_u32(-1, a, 2, 2, b, 2, 2, dist, 2), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(sketch_hamming_u32(2, a, 2, -1, b, 2, 2, dist, 2), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(sketch_hamming_u32(2, a, 2, 2, b, 2, 0, dist, 2), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(sketch_hamming_u32(2, a, 1, 2, b, 2, 2, dist, 2), SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(sketch_hamming_u32(2, a, 2, 2, b, 1, 2, dist, 2), SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(sketch_hamming_u32(2, a, 2, 3, b, 2, 2, dist, 2), SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(sketch_hamming_u32(2, a, 2, 0, b, 2, 2, dist, 0), SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(sketch_hamming_u32(2, NULL, 2, 2, b, 2, 2, dist, 2), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(sketch_hamming_u32(2, a, 2, 2, NULL, 2, 2, dist, 2), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(sketch_hamming_u32(2, a, 2, 2, b, 2, 2, NULL, 2), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(sketch_hamming_u32(INT64_MAX / 2, a, 4, 2, b, 2, 2, dist, 2), SMM_ERR_OVERFLOW);
    ck_assert_int_eq(sketch_hamming_u32(2, a, 2, 2, b, 2, 2, dist, INT64_MAX / 2), SMM_ERR_OVERFLOW);
    const smm_isa missing = unsupported_isa();
    if (missing != SMM_ISA_AUTO) {
        smm_set_isa(missing);
        ck_assert_int_eq(sketch_hamming_u32(2, a, 2, 2, b, 2, 2, dist, 2), SMM_ERR_ISA_UNAVAILABLE);
        test_restore_defaults();
    }
    for (int k = 0; k < 16; k++)
        ck_assert(dist[k] == SENTINEL32);
    /* empty sets: nothing written, NULL allowed where there is nothing */
    ck_assert_int_eq(sketch_hamming_u32(0, NULL, 2, 2, b, 2, 2, NULL, 2), SMM_OK);
    ck_assert_int_eq(sketch_hamming_u32(2, a, 2, 0, NULL, 2, 2, NULL, 1), SMM_OK);
}
END_TEST

/* ======================================================================
 * Statistics of the angle estimate and the estimators
 * ====================================================================== */

/*
 * For pairs at fixed angles theta in d = 32, over 2000 seeds with 64 bits,
 * pi * h / bits must have mean theta (within 4 standard errors) and variance
 * theta (pi - theta) / bits (within 15%). Deterministic: the same seeds give
 * the same codes on every platform.
 */
START_TEST(test_angle_statistics)
{
    test_restore_defaults();
    smm_set_num_threads(1); /* thousands of tiny calls: no fork/join needed (codes do not depend on it) */
    enum { D = 32, PAIRS = 3, SEEDS = 2000, BITS = 64 };
    const double thetas[PAIRS] = { PI / 6, PI / 2, 2 * PI / 3 };
    float X[2 * PAIRS * D];
    double actual[PAIRS];
    uint64_t rng = 41;
    for (int p = 0; p < PAIRS; p++) {
        /* orthonormal u, v (Gram-Schmidt in double), then x = u, y = cos u + sin v */
        double u[D], v[D], nu = 0, uv = 0, nv = 0;
        for (int t = 0; t < D; t++) {
            u[t] = test_rng_uniform(&rng);
            v[t] = test_rng_uniform(&rng);
            nu += u[t] * u[t];
        }
        for (int t = 0; t < D; t++)
            u[t] /= sqrt(nu);
        for (int t = 0; t < D; t++)
            uv += u[t] * v[t];
        for (int t = 0; t < D; t++) {
            v[t] -= uv * u[t];
            nv += v[t] * v[t];
        }
        for (int t = 0; t < D; t++) {
            v[t] /= sqrt(nv);
            X[(2 * p) * D + t] = (float)u[t];
            X[(2 * p + 1) * D + t] = (float)(cos(thetas[p]) * u[t] + sin(thetas[p]) * v[t]);
        }
        double xy = 0, xx = 0, yy = 0;
        for (int t = 0; t < D; t++) {
            xy += (double)X[(2 * p) * D + t] * X[(2 * p + 1) * D + t];
            xx += (double)X[(2 * p) * D + t] * X[(2 * p) * D + t];
            yy += (double)X[(2 * p + 1) * D + t] * X[(2 * p + 1) * D + t];
        }
        actual[p] = acos(xy / sqrt(xx * yy)); /* the angle of the float vectors */
    }
    double sum[PAIRS] = { 0 }, sum2[PAIRS] = { 0 };
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
        uint64_t codes[2 * PAIRS];
        ck_assert_int_eq(sketch_simhash_encode(SMM_ROW_MAJOR, 2 * PAIRS, D, X, D, BITS, seed, codes, 1, NULL),
                         SMM_OK);
        for (int p = 0; p < PAIRS; p++) {
            uint32_t h;
            ck_assert_int_eq(sketch_hamming_u32(1, &codes[2 * p], 1, 1, &codes[2 * p + 1], 1, 1, &h, 1), SMM_OK);
            const double est = sketch_angle_estimate(h, BITS);
            sum[p] += est;
            sum2[p] += est * est;
        }
    }
    for (int p = 0; p < PAIRS; p++) {
        const double th = actual[p];
        const double var_theory = th * (PI - th) / BITS;
        const double mean = sum[p] / SEEDS;
        const double var = (sum2[p] - SEEDS * mean * mean) / (SEEDS - 1);
        const double se = sqrt(var_theory / SEEDS);
        ck_assert_msg(fabs(mean - th) <= 4 * se, "theta %.4f: mean %.5f, se %.5f", th, mean, se);
        ck_assert_msg(fabs(var / var_theory - 1.0) <= 0.15, "theta %.4f: variance %.6f, theory %.6f", th, var,
                      var_theory);
    }
    test_restore_defaults();
}
END_TEST

START_TEST(test_estimators)
{
    ck_assert_int_eq(simhash_code_words(8, 1), 1);
    ck_assert_int_eq(simhash_code_words(8, 64), 1);
    ck_assert_int_eq(simhash_code_words(8, 65), 2);
    ck_assert_int_eq(simhash_code_words(8, SKETCH_MAX_BITS), 1024);
    const int32_t bad_bits[3] = { 0, -1, SKETCH_MAX_BITS + 1 };
    for (int b = 0; b < 3; b++) {
        int64_t w = -3;
        ck_assert_int_eq(sketch_code_words(SKETCH_SIMHASH, 8, bad_bits[b], &w), SMM_ERR_BAD_BITS);
        ck_assert_int_eq(w, -3);
    }

    ck_assert(sketch_angle_estimate(0, 64) == 0.0);
    ck_assert(fabs(sketch_angle_estimate(64, 64) - PI) < 1e-15);
    ck_assert(fabs(sketch_angle_estimate(32, 64) - PI / 2) < 1e-15);
    ck_assert(fabs(sketch_angle_estimate(100, 300) - PI / 3) < 1e-15);
    ck_assert(sketch_cosine_estimate(0, 128) == 1.0);
    ck_assert(fabs(sketch_cosine_estimate(128, 128) + 1.0) < 1e-15);
    ck_assert(fabs(sketch_cosine_estimate(100, 300) - 0.5) < 1e-15);
    ck_assert(fabs(sketch_dot_estimate(100, 300, 2.0, 3.0) - 3.0) < 1e-14);
    ck_assert(fabs(sketch_dot_estimate(0, 7, 1.5, -2.0) + 3.0) < 1e-15);

    ck_assert(isnan(sketch_angle_estimate(1, 0)));
    ck_assert(isnan(sketch_angle_estimate(1, SKETCH_MAX_BITS + 1)));
    ck_assert(isnan(sketch_angle_estimate(-1, 64)));
    ck_assert(isnan(sketch_angle_estimate(65, 64)));
    ck_assert(isnan(sketch_cosine_estimate(3, -2)));
    ck_assert(isnan(sketch_dot_estimate(3, 0, 1.0, 1.0)));
}
END_TEST

static Suite *sketch_suite(void)
{
    Suite *s = suite_create("sketch");
    TCase *tc = tcase_create("normal_quantile");
    tcase_add_test(tc, test_log_matches_libm);
    tcase_add_test(tc, test_quantile_accuracy);
    tcase_add_test(tc, test_quantile_symmetry);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);

    tc = tcase_create("hyperplanes");
    tcase_add_test(tc, test_hyperplanes_formula);
    tcase_add_test(tc, test_hyperplanes_libm_and_d_independent);
    tcase_add_test(tc, test_hyperplanes_errors);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = tcase_create("encode");
    tcase_add_test(tc, test_golden);
    tcase_add_loop_test(tc, test_codes_reproducible, 0, (int)(sizeof repro_shapes / sizeof repro_shapes[0]));
    tcase_add_test(tc, test_codes_unused_bits_and_ldcodes);
    tcase_add_test(tc, test_codes_seeds_and_zero);
    tcase_add_test(tc, test_codes_scale_and_sign);
    tcase_add_test(tc, test_encode_errors);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);

    tc = tcase_create("hamming");
    tcase_add_test(tc, test_hamming_kernels_match_scalar);
    tcase_add_test(tc, test_hamming_kernel_names);
    tcase_add_test(tc, test_hamming_u32_matches_naive);
    tcase_add_test(tc, test_hamming_u32_errors);
    tcase_set_timeout(tc, 300);
    suite_add_tcase(s, tc);

    tc = tcase_create("statistics");
    tcase_add_test(tc, test_angle_statistics);
    tcase_add_test(tc, test_estimators);
    tcase_set_timeout(tc, 300);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(sketch_suite());
}
