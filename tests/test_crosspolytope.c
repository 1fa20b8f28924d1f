/*
 * test_crosspolytope.c - Check suite of cross-polytope LSH: the code layout,
 * the encoder (against an in-test reference built from the documented
 * definition, on every ISA path, thread count and layout, and golden codes),
 * the match-count kernels (against a field-by-field comparison, and every
 * path's kernel against the scalar twin bit for bit on edge shapes; the
 * kernel table's rows and names), the calibration (measured collision rates
 * and cosine estimates of the implemented hash against the table, for
 * d = 16 .. 1024),
 * the SimHash and cross-polytope variance formulas, zero vectors and bad
 * input.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#include "common/smm_runtime.h"
#include "sketch/crosspolytope.h"
#include "sketch/hd_rotation.h"

static const double PI = 3.14159265358979323846;
static const uint64_t SENTINEL = UINT64_C(0xA5A5A5A5DEADBEEF);

/* Standard normal from the test generator (Box-Muller). */
static double test_gauss(uint64_t *s)
{
    const double u1 = ((double)(test_rng_next(s) >> 11) + 0.5) * 0x1p-53;
    const double u2 = (double)(test_rng_next(s) >> 11) * 0x1p-53;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * PI * u2);
}

/* x, y: unit vectors of dimension d with cosine rho (Gaussian x, the orthogonal part of a Gaussian z). */
static void make_pair(int64_t d, double rho, uint64_t *rng, float *x, float *y)
{
    double *a = malloc((size_t)d * sizeof *a), *b = malloc((size_t)d * sizeof *b);
    double na = 0.0, dot = 0.0, nb = 0.0;
    for (int64_t t = 0; t < d; t++) {
        a[t] = test_gauss(rng);
        na += a[t] * a[t];
    }
    for (int64_t t = 0; t < d; t++) {
        b[t] = test_gauss(rng);
        dot += a[t] * b[t];
    }
    for (int64_t t = 0; t < d; t++)
        b[t] -= dot / na * a[t];
    for (int64_t t = 0; t < d; t++)
        nb += b[t] * b[t];
    const double s = sqrt(1.0 - rho * rho);
    for (int64_t t = 0; t < d; t++) {
        x[t] = (float)(a[t] / sqrt(na));
        y[t] = (float)(rho * a[t] / sqrt(na) + s * b[t] / sqrt(nb));
    }
    free(a);
    free(b);
}

/* ======================================================================
 * Layout
 * ====================================================================== */

START_TEST(test_layout_formulas)
{
    static const int64_t ds[] = { 0, 1, 2, 3, 5, 16, 17, 100, 128, 129, 1000, 1024, 65536,
                                  (INT64_C(1) << 20) + 1, INT64_C(1) << 24 };
    static const int32_t bits_list[] = { 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 24, 25, 26, 63, 64, 65,
                                         100, 127, 128, 129, 1000, 4096, 65534, SKETCH_MAX_BITS };
    for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
        for (size_t j = 0; j < sizeof bits_list / sizeof bits_list[0]; j++) {
            const int64_t d = ds[i];
            const int32_t bits = bits_list[j];
            int64_t D = 2;
            int lg = 1;
            while (D < d) {
                D *= 2;
                lg++;
            }
            const int w = lg + 1;
            const int L = bits / w, r = bits % w;
            const int hashes = L + (r > 0);
            const int fpw = 64 / w;
            sketch_cp_layout lay;
            ck_assert_int_eq(sketch_crosspolytope_layout(d, bits, &lay), SMM_OK);
            ck_assert_int_eq(lay.dim, D);
            ck_assert_int_eq(lay.width, w);
            ck_assert_int_eq(lay.full_hashes, L);
            ck_assert_int_eq(lay.last_width, r);
            ck_assert_int_eq(lay.last_dim, r > 0 ? (INT64_C(1) << (r - 1)) : 0);
            ck_assert_int_eq(lay.hashes, hashes);
            ck_assert_int_eq(lay.fields_per_word, fpw);
            ck_assert_int_eq(lay.words, (hashes + fpw - 1) / fpw);
            /* every bit of the budget is used exactly once */
            ck_assert_int_eq((int64_t)L * w + r, bits);
            int64_t words = -1;
            ck_assert_int_eq(crosspolytope_code_words(d, bits, &words), SMM_OK);
            ck_assert_int_eq(words, lay.words);
            words = -1;
            ck_assert_int_eq(sketch_code_words(SKETCH_CROSSPOLYTOPE, d, bits, &words), SMM_OK);
            ck_assert_int_eq(words, lay.words);
            /* masks: disjoint, popcount(hi) == fields of the word, used bits == bits of the fields */
            int64_t fields = 0, used = 0;
            for (int64_t wd = 0; wd < lay.words; wd++) {
                uint64_t hi, lo;
                crosspolytope_word_masks(&lay, wd, &hi, &lo);
                ck_assert_uint_eq(hi & lo, 0);
                fields += __builtin_popcountll(hi);
                used += __builtin_popcountll(hi | lo);
            }
            ck_assert_int_eq(fields, hashes);
            ck_assert_int_eq(used, bits);
        }
    }
    /* the documented examples */
    sketch_cp_layout lay;
    ck_assert_int_eq(sketch_crosspolytope_layout(128, 64, &lay), SMM_OK); /* w = 8: 8 hashes, one word */
    ck_assert_int_eq(lay.width, 8);
    ck_assert_int_eq(lay.hashes, 8);
    ck_assert_int_eq(lay.words, 1);
    ck_assert_int_eq(sketch_crosspolytope_layout(1, 1, &lay), SMM_OK); /* D = 2, w = 2: one sign bit */
    ck_assert_int_eq(lay.dim, 2);
    ck_assert_int_eq(lay.full_hashes, 0);
    ck_assert_int_eq(lay.last_dim, 1);
    ck_assert_int_eq(lay.words, 1);
    ck_assert_int_eq(sketch_crosspolytope_layout(INT64_C(1) << 24, SKETCH_MAX_BITS, &lay), SMM_OK);
    ck_assert_int_eq(lay.width, 25);
    ck_assert_int_eq(lay.fields_per_word, 2);
    ck_assert_int_eq(lay.words, (65535 / 25 + 1 + 1) / 2);
}
END_TEST

START_TEST(test_layout_bad)
{
    sketch_cp_layout lay;
    memset(&lay, 0x5a, sizeof lay);
    sketch_cp_layout orig = lay;
    ck_assert_int_eq(sketch_crosspolytope_layout(-1, 64, &lay), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(sketch_crosspolytope_layout((INT64_C(1) << 24) + 1, 64, &lay), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(sketch_crosspolytope_layout(10, 0, &lay), SMM_ERR_BAD_BITS);
    ck_assert_int_eq(sketch_crosspolytope_layout(10, SKETCH_MAX_BITS + 1, &lay), SMM_ERR_BAD_BITS);
    ck_assert_int_eq(sketch_crosspolytope_layout(10, 64, NULL), SMM_ERR_NULL_POINTER);
    ck_assert_mem_eq(&lay, &orig, sizeof lay);
    int64_t words = 77;
    ck_assert_int_eq(crosspolytope_code_words(-1, 64, &words), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(crosspolytope_code_words((INT64_C(1) << 24) + 1, 64, &words), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(crosspolytope_code_words(10, 0, &words), SMM_ERR_BAD_BITS);
    ck_assert_int_eq(crosspolytope_code_words(10, 64, NULL), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(words, 77);
}
END_TEST

/* ======================================================================
 * Encoder
 * ====================================================================== */

/* The documented definition, directly: scalar FWHT, one hash at a time, explicit packing. */
static void reference_codes(int64_t n, int64_t d, const float *X, int64_t row_step, int64_t elem_step,
                            int32_t bits, uint64_t seed, uint64_t *codes, int64_t ldcodes)
{
    sketch_cp_layout lay;
    ck_assert_int_eq(sketch_crosspolytope_layout(d, bits, &lay), SMM_OK);
    const int64_t D = lay.dim;
    uint32_t *flip = malloc((size_t)(HD_ROUNDS * D) * sizeof *flip);
    float *y = smm_aligned_alloc((size_t)D * sizeof *y);
    for (int64_t i = 0; i < n; i++)
        for (int64_t w = 0; w < lay.words; w++)
            codes[i * ldcodes + w] = 0;
    for (int64_t k = 0; k < lay.hashes; k++) {
        hd_rotation_signs(seed, (uint64_t)k, D, flip);
        const int64_t dim = k < lay.full_hashes ? D : lay.last_dim;
        for (int64_t i = 0; i < n; i++) {
            int nonzero = 0;
            for (int64_t t = 0; t < d; t++)
                nonzero |= X[i * row_step + t * elem_step] != 0.0f;
            uint64_t v = 0;
            if (nonzero) {
                hd_rotate(flip, X + i * row_step, elem_step, d, D, fwht_flip_scalar, y);
                int64_t best = 0;
                for (int64_t t = 1; t < dim; t++)
                    if (fabsf(y[t]) > fabsf(y[best]))
                        best = t;
                v = (uint64_t)best + (y[best] < 0.0f ? (uint64_t)dim : 0);
                ck_assert_uint_lt(v, 2 * (uint64_t)dim);
            }
            codes[i * ldcodes + k / lay.fields_per_word] |= v << ((k % lay.fields_per_word) * lay.width);
        }
    }
    free(flip);
    smm_aligned_free(y);
}

/* Vectors with varied magnitudes, a zero vector and a one-hot vector. */
static void fill_vectors(int64_t n, int64_t d, float *X, uint64_t *rng)
{
    test_fill_uniform(X, n * d, rng);
    for (int64_t i = 0; i < n; i++) {
        const float scale = (i % 5 == 1) ? 1e-30f : (i % 5 == 2) ? 1e30f : (i % 5 == 3) ? 3.0f : 1.0f;
        for (int64_t t = 0; t < d; t++)
            X[i * d + t] *= scale;
    }
    if (n > 3)
        for (int64_t t = 0; t < d; t++)
            X[3 * d + t] = 0.0f;
    if (n > 4) {
        for (int64_t t = 0; t < d; t++)
            X[4 * d + t] = 0.0f;
        X[4 * d + d / 2] = -2.5f;
    }
}

START_TEST(test_encode_matches_reference_every_path)
{
    static const int64_t ds[] = { 1, 2, 3, 16, 33, 128, 300 };
    static const int32_t bits_list[] = { 1, 3, 8, 64, 65, 200, 1000 };
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    uint64_t rng = 2024;
    for (size_t a = 0; a < sizeof ds / sizeof ds[0]; a++) {
        for (size_t b = 0; b < sizeof bits_list / sizeof bits_list[0]; b++) {
            const int64_t d = ds[a], n = 37;
            const int32_t bits = ds[a] >= 128 && bits_list[b] > 500 ? 333 : bits_list[b];
            const uint64_t seed = 1000 + a * 10 + b;
            int64_t words;
            ck_assert_int_eq(sketch_code_words(SKETCH_CROSSPOLYTOPE, d, bits, &words), SMM_OK);
            const int64_t ldc = words + 2;
            float *X = malloc((size_t)(n * d) * sizeof *X), *Xc = malloc((size_t)(n * d) * sizeof *Xc);
            fill_vectors(n, d, X, &rng);
            for (int64_t i = 0; i < n; i++)
                for (int64_t t = 0; t < d; t++)
                    Xc[t * n + i] = X[i * d + t];
            uint64_t *ref = malloc((size_t)(n * ldc) * sizeof *ref);
            uint64_t *got = malloc((size_t)(n * ldc) * sizeof *got);
            float *norms = malloc((size_t)n * sizeof *norms);
            reference_codes(n, d, X, d, 1, bits, seed, ref, ldc);
            for (int ii = 0; ii < nisa; ii++) {
                ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
                for (int threads = 1; threads <= 2; threads++) {
                    ck_assert_int_eq(smm_set_num_threads(threads), SMM_OK);
                    for (int col = 0; col < 2; col++) {
                        for (int64_t k = 0; k < n * ldc; k++)
                            got[k] = SENTINEL;
                        const smm_status s = col
                            ? sketch_encode(SKETCH_CROSSPOLYTOPE, SMM_COL_MAJOR, n, d, Xc, n, bits, seed, got, ldc, norms)
                            : sketch_encode(SKETCH_CROSSPOLYTOPE, SMM_ROW_MAJOR, n, d, X, d, bits, seed, got, ldc, norms);
                        ck_assert_int_eq(s, SMM_OK);
                        for (int64_t i = 0; i < n; i++) {
                            for (int64_t w = 0; w < words; w++)
                                ck_assert_msg(got[i * ldc + w] == ref[i * ldc + w],
                                              "d %lld bits %d isa %s threads %d col %d vector %lld word %lld",
                                              (long long)d, bits, smm_isa_name(isas[ii]), threads, col,
                                              (long long)i, (long long)w);
                            for (int64_t w = words; w < ldc; w++)
                                ck_assert_uint_eq(got[i * ldc + w], SENTINEL);
                            double ss = 0.0;
                            for (int64_t t = 0; t < d; t++)
                                ss += (double)X[i * d + t] * (double)X[i * d + t];
                            ck_assert_float_eq(norms[i], (float)sqrt(ss));
                        }
                        ck_assert_uint_eq(got[3 * ldc], 0); /* the zero vector */
                    }
                }
            }
            test_restore_defaults();
            free(X);
            free(Xc);
            free(ref);
            free(got);
            free(norms);
        }
    }
}
END_TEST

/* A block of hashes smaller than the code (large D): fields of a word shared by two blocks. */
START_TEST(test_encode_large_dim_blocks)
{
    const int64_t d = 40000, n = 2; /* D = 2^16, w = 17: masks 768 KiB per hash, blocks of 10 hashes */
    const int32_t bits = 17 * 12 + 2;  /* 13 hashes, 3 per word: word 3 holds hashes 9 (block 1) and 10, 11 (block 2) */
    float *X = malloc((size_t)(n * d) * sizeof *X);
    uint64_t rng = 99;
    test_fill_uniform(X, n * d, &rng);
    int64_t words;
    ck_assert_int_eq(sketch_code_words(SKETCH_CROSSPOLYTOPE, d, bits, &words), SMM_OK);
    ck_assert_int_eq(words, 5);
    uint64_t ref[10], got[10];
    reference_codes(n, d, X, d, 1, bits, 5, ref, 5);
    ck_assert_int_eq(smm_set_num_threads(2), SMM_OK);
    ck_assert_int_eq(sketch_encode(SKETCH_CROSSPOLYTOPE, SMM_ROW_MAJOR, n, d, X, d, bits, 5, got, 5, NULL),
                     SMM_OK);
    test_restore_defaults();
    ck_assert_mem_eq(got, ref, sizeof ref);
    free(X);
}
END_TEST

/* Known answers pinned on x86-64 (also checked under qemu-aarch64): any change of the
 * rotation, the hash or the layout shows here. */
START_TEST(test_encode_golden)
{
    float X[2 * 10];
    for (int t = 0; t < 10; t++) {
        X[t] = (float)(t + 1) * (t % 2 ? -0.25f : 0.5f);
        X[10 + t] = (float)((t * 7) % 5) - 2.0f;
    }
    uint64_t codes[2 * 2];
    ck_assert_int_eq(sketch_encode(SKETCH_CROSSPOLYTOPE, SMM_ROW_MAJOR, 2, 10, X, 10, 100, 42, codes, 2, NULL),
                     SMM_OK);
    /* d = 10: D = 16, w = 5, 20 hashes, 12 per word */
    static const uint64_t golden[4] = { UINT64_C(0x04f3c4250f004023), UINT64_C(0x000000fcd5203f37),
                                        UINT64_C(0x02da54788db30375), UINT64_C(0x0000008491d1247f) };
    for (int k = 0; k < 4; k++)
        ck_assert_msg(codes[k] == golden[k], "word %d: 0x%016llx", k, (unsigned long long)codes[k]);
}
END_TEST

START_TEST(test_encode_zero_and_empty)
{
    float X[3 * 8] = { 0 };
    X[8 + 2] = 1.0f; /* vector 1 = e_2 */
    uint64_t codes[3 * 4];
    float norms[3] = { -1.0f, -1.0f, -1.0f };
    for (int k = 0; k < 12; k++)
        codes[k] = SENTINEL;
    ck_assert_int_eq(sketch_encode(SKETCH_CROSSPOLYTOPE, SMM_ROW_MAJOR, 3, 8, X, 8, 256, 3, codes, 4, norms),
                     SMM_OK);
    ck_assert_uint_eq(codes[0], 0);
    ck_assert_uint_eq(codes[8], 0);
    ck_assert_float_eq(norms[0], 0.0f);
    ck_assert_float_eq(norms[1], 1.0f);
    /* d == 0: every vector is zero */
    ck_assert_int_eq(sketch_encode(SKETCH_CROSSPOLYTOPE, SMM_ROW_MAJOR, 3, 0, NULL, 1, 7, 3, codes, 4, norms),
                     SMM_OK);
    ck_assert_uint_eq(codes[0], 0);
    ck_assert_uint_eq(codes[4], 0);
    ck_assert_float_eq(norms[2], 0.0f);
    /* n == 0: nothing needed, nothing written */
    ck_assert_int_eq(sketch_encode(SKETCH_CROSSPOLYTOPE, SMM_ROW_MAJOR, 0, 8, NULL, 8, 64, 3, NULL, 1, NULL),
                     SMM_OK);
}
END_TEST

START_TEST(test_encode_bad_input)
{
    float X[4 * 8];
    uint64_t rng = 5;
    test_fill_uniform(X, 32, &rng);
    uint64_t codes[4 * 4];
    float norms[4];
    for (int k = 0; k < 16; k++)
        codes[k] = SENTINEL;
    for (int k = 0; k < 4; k++)
        norms[k] = -7.0f;
    const sketch_method F = SKETCH_CROSSPOLYTOPE;
    ck_assert_int_eq(sketch_encode(F, (smm_layout)7, 4, 8, X, 8, 64, 1, codes, 4, norms), SMM_ERR_BAD_LAYOUT);
    ck_assert_int_eq(sketch_encode(F, SMM_ROW_MAJOR, -1, 8, X, 8, 64, 1, codes, 4, norms), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(sketch_encode(F, SMM_ROW_MAJOR, 4, -1, X, 8, 64, 1, codes, 4, norms), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(sketch_encode(F, SMM_ROW_MAJOR, 1, (INT64_C(1) << 24) + 1, X, (INT64_C(1) << 24) + 1, 64, 1,
                                   codes, 4, norms), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(sketch_encode(F, SMM_ROW_MAJOR, 4, 8, X, 7, 64, 1, codes, 4, norms), SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(sketch_encode(F, SMM_ROW_MAJOR, 4, 8, NULL, 8, 64, 1, codes, 4, norms), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(sketch_encode(F, SMM_ROW_MAJOR, 4, 8, X, 8, 64, 1, NULL, 4, norms), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(sketch_encode(F, SMM_ROW_MAJOR, 4, 8, X, 8, 0, 1, codes, 4, norms), SMM_ERR_BAD_BITS);
    ck_assert_int_eq(sketch_encode(F, SMM_ROW_MAJOR, 4, 8, X, 8, SKETCH_MAX_BITS + 1, 1, codes, 4, norms),
                     SMM_ERR_BAD_BITS);
    /* d = 8: w = 4, 16 per word; 200 bits = 50 hashes = 4 words: ldcodes 3 is too small */
    ck_assert_int_eq(sketch_encode(F, SMM_ROW_MAJOR, 4, 8, X, 8, 200, 1, codes, 3, norms), SMM_ERR_BAD_LEADING_DIM);
    X[2 * 8 + 5] = NAN;
    ck_assert_int_eq(sketch_encode(F, SMM_ROW_MAJOR, 4, 8, X, 8, 64, 1, codes, 4, norms), SMM_ERR_NON_FINITE);
    X[2 * 8 + 5] = INFINITY;
    ck_assert_int_eq(sketch_encode(F, SMM_COL_MAJOR, 8, 4, X, 8, 64, 1, codes, 4, norms), SMM_ERR_NON_FINITE);
    X[2 * 8 + 5] = 3e38f; /* finite, but the norm overflows a float */
    X[2 * 8 + 6] = 3e38f;
    ck_assert_int_eq(sketch_encode(F, SMM_ROW_MAJOR, 4, 8, X, 8, 64, 1, codes, 4, norms), SMM_ERR_NON_FINITE);
    for (int k = 0; k < 16; k++)
        ck_assert_uint_eq(codes[k], SENTINEL);
    for (int k = 0; k < 4; k++)
        ck_assert_float_eq(norms[k], -7.0f);
}
END_TEST

/* ======================================================================
 * Match counts
 * ====================================================================== */

/* Field k of a code (width from the layout). */
static uint64_t field(const sketch_cp_layout *lay, const uint64_t *code, int64_t k)
{
    const int width = k < lay->full_hashes ? lay->width : lay->last_width;
    return (code[k / lay->fields_per_word] >> ((k % lay->fields_per_word) * lay->width)) &
           ((UINT64_C(1) << width) - 1);
}

static void set_field(const sketch_cp_layout *lay, uint64_t *code, int64_t k, uint64_t v)
{
    const int shift = (int)(k % lay->fields_per_word) * lay->width;
    code[k / lay->fields_per_word] |= v << shift;
}

/* n random codes of the layout, many fields shared with code 0 (ld words apart, extra words junk-free 0). */
static void random_codes(const sketch_cp_layout *lay, int64_t n, uint64_t *c, int64_t ld, uint64_t *rng)
{
    memset(c, 0, (size_t)(n * ld) * sizeof *c);
    for (int64_t k = 0; k < lay->hashes; k++) {
        const int width = k < lay->full_hashes ? lay->width : lay->last_width;
        const uint64_t m = (UINT64_C(1) << width) - 1;
        const uint64_t base = test_rng_next(rng) & m;
        for (int64_t i = 0; i < n; i++) {
            const uint64_t r = test_rng_next(rng);
            /* equal, one bit off (tests the carry: top bit and lowest bit) or random */
            uint64_t v = (r % 4 < 2) ? base : (r % 4 == 2) ? base ^ (UINT64_C(1) << ((r >> 8) % (uint64_t)width))
                                                          : (r >> 16) & m;
            set_field(lay, c + i * ld, k, v & m);
        }
    }
}

START_TEST(test_match_kernels)
{
    static const int64_t ds[] = { 1, 4, 16, 128, 1000, INT64_C(1) << 24 };
    static const int32_t bits_list[] = { 1, 2, 5, 63, 64, 66, 500, 1600, 4000, SKETCH_MAX_BITS };
    /* the scalar twin, then the row of every path this CPU runs */
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    cp_match_row_fn kernels[5];
    const char *names[5];
    int nk = 0;
    kernels[nk] = cp_match_row_scalar;
    names[nk++] = "scalar twin";
    for (int i = 0; i < nisa; i++) {
        kernels[nk] = cp_match_kernels_for(isas[i])->row;
        names[nk++] = cp_match_kernels_for(isas[i])->head.name;
    }
    uint64_t rng = 77;
    for (size_t a = 0; a < sizeof ds / sizeof ds[0]; a++) {
        for (size_t b = 0; b < sizeof bits_list / sizeof bits_list[0]; b++) {
            sketch_cp_layout lay;
            ck_assert_int_eq(sketch_crosspolytope_layout(ds[a], bits_list[b], &lay), SMM_OK);
            const int64_t nb = bits_list[b] > 5000 ? 11 : 29;
            for (int padded = 0; padded < 2; padded++) {
                const int64_t ld = lay.words + padded;
                uint64_t *c = malloc((size_t)((nb + 1) * ld) * sizeof *c);
                random_codes(&lay, nb + 1, c, ld, &rng);
                uint64_t *hi = malloc((size_t)lay.words * sizeof *hi), *lo = malloc((size_t)lay.words * sizeof *lo);
                for (int64_t w = 0; w < lay.words; w++)
                    crosspolytope_word_masks(&lay, w, &hi[w], &lo[w]);
                uint16_t want[32], got[32];
                for (int64_t j = 0; j < nb; j++) {
                    int64_t eq = 0;
                    for (int64_t k = 0; k < lay.hashes; k++)
                        eq += field(&lay, c, k) == field(&lay, c + (j + 1) * ld, k);
                    want[j] = (uint16_t)eq;
                }
                for (int ki = 0; ki < nk; ki++) {
                    for (int64_t len = 0; len <= nb; len += (len < 10 ? 1 : nb - len > 0 ? nb - len : 1)) {
                        for (int64_t j = 0; j < 32; j++)
                            got[j] = 0xBEEF;
                        kernels[ki](c, c + ld, len, ld, lay.words, hi, lo, (uint32_t)lay.hashes, got);
                        for (int64_t j = 0; j < len; j++)
                            ck_assert_msg(got[j] == want[j], "%s d %lld bits %d ld %lld j %lld: %u != %u",
                                          names[ki], (long long)ds[a], bits_list[b], (long long)ld,
                                          (long long)j, got[j], want[j]);
                        for (int64_t j = len; j < 32; j++)
                            ck_assert_uint_eq(got[j], 0xBEEF);
                    }
                }
                free(c);
                free(hi);
                free(lo);
            }
        }
    }
}
END_TEST

/*
 * Every path's match kernel against the scalar twin, bit for bit, on edge
 * shapes: word counts around the 4 words of an AVX2 and the 8 of an AVX-512
 * register, code counts around the 4 and 8 codes of the one-word contiguous
 * loops, odd strides, unaligned codes. The codes are random words (the
 * kernels' formula holds for any bits), a copy of the query (every field
 * equal) and its complement (none); the masks are those of d = 4 (3-bit
 * fields, 21 per word, the last field 2 bits wide).
 */
START_TEST(test_match_kernels_match_twin)
{
    static const int64_t word_counts[] = { 1, 2, 3, 4, 5, 7, 8, 9, 11, 15, 16, 17, 24, 33 };
    static const int64_t nbs[] = { 0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33 };
    enum { MAX_NB = 33, SLACK = 4 };
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    uint64_t rng = 78;
    for (size_t wi = 0; wi < sizeof word_counts / sizeof word_counts[0]; wi++) {
        const int64_t words = word_counts[wi];
        sketch_cp_layout lay;
        ck_assert_int_eq(sketch_crosspolytope_layout(4, (int32_t)(63 * words - 1), &lay), SMM_OK);
        ck_assert_int_eq(lay.words, words);
        uint64_t *hi = malloc((size_t)words * sizeof *hi), *lo = malloc((size_t)words * sizeof *lo);
        uint64_t *q = malloc((size_t)words * sizeof *q);
        uint64_t *b = malloc((size_t)(MAX_NB * (words + 3) + 1) * sizeof *b);
        ck_assert(hi && lo && q && b);
        for (int64_t w = 0; w < words; w++) {
            crosspolytope_word_masks(&lay, w, &hi[w], &lo[w]);
            q[w] = test_rng_next(&rng);
        }
        for (int pad = 0; pad < 3; pad++) {
            const int64_t ldb = words + (pad == 0 ? 0 : pad == 1 ? 1 : 3);
            for (int off = 0; off < 2; off++) {
                uint64_t *bs = b + off; /* 8-byte aligned only when off == 1 */
                for (int64_t t = 0; t < MAX_NB * ldb; t++)
                    bs[t] = test_rng_next(&rng);
                for (int64_t w = 0; w < words; w++) {
                    bs[w] = q[w];
                    bs[ldb + w] = ~q[w];
                }
                for (size_t ni = 0; ni < sizeof nbs / sizeof nbs[0]; ni++) {
                    const int64_t nb = nbs[ni];
                    uint16_t want[MAX_NB + SLACK], got[MAX_NB + SLACK];
                    for (int64_t j = 0; j < MAX_NB + SLACK; j++)
                        want[j] = 0xBEEF;
                    cp_match_row_scalar(q, bs, nb, ldb, words, hi, lo, (uint32_t)lay.hashes, want);
                    if (nb >= 2)
                        ck_assert(want[0] == lay.hashes && want[1] == 0);
                    for (int i = 0; i < nisa; i++) {
                        const cp_match_kernels *row = cp_match_kernels_for(isas[i]);
                        for (int64_t j = 0; j < MAX_NB + SLACK; j++)
                            got[j] = 0xBEEF;
                        row->row(q, bs, nb, ldb, words, hi, lo, (uint32_t)lay.hashes, got);
                        ck_assert_msg(memcmp(got, want, sizeof got) == 0, "%s words %lld ldb %lld nb %lld off %d",
                                      row->head.name, (long long)words, (long long)ldb, (long long)nb, off);
                    }
                }
            }
        }
        free(hi);
        free(lo);
        free(q);
        free(b);
    }
}
END_TEST

START_TEST(test_match_kernel_rows)
{
    const cp_match_kernels *scalar = cp_match_kernels_for(SMM_ISA_SCALAR);
    ck_assert(scalar->row == cp_match_row_scalar);
    ck_assert_str_eq(scalar->head.name, "scalar");
    ck_assert(cp_match_kernels_for(SMM_ISA_AUTO) == scalar);
    ck_assert(cp_match_kernels_for(SMM_ISA_NEON) == scalar); /* no NEON kernel: the NEON path runs the twin */
#if defined(__x86_64__)
    if (smm_isa_supported(SMM_ISA_AVX2)) {
        ck_assert(cp_match_kernels_for(SMM_ISA_AVX2)->row == cp_match_row_avx2);
        ck_assert_str_eq(cp_match_kernels_for(SMM_ISA_AVX2)->head.name, "avx2");
    }
    if (smm_isa_supported(SMM_ISA_AVX512)) {
        /* the AVX-512 row needs VPOPCNTDQ; without it the path runs the AVX2 row */
        const cp_match_kernels *row = cp_match_kernels_for(SMM_ISA_AVX512);
        if (smm_cpu()->flags & SMM_CPU_VPOPCNTDQ) {
            ck_assert(row->row == cp_match_row_avx512);
            ck_assert_str_eq(row->head.name, "avx512_vpopcntdq");
        } else {
            ck_assert(row == cp_match_kernels_for(SMM_ISA_AVX2));
        }
    }
#endif
    /* the public name is the head.name of the row that runs */
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int i = 0; i < nisa; i++) {
        ck_assert_int_eq(smm_set_isa(isas[i]), SMM_OK);
        ck_assert_str_eq(sketch_crosspolytope_kernel_name(), cp_match_kernels_for(isas[i])->head.name);
    }
    test_restore_defaults();
}
END_TEST

START_TEST(test_matches_public)
{
    const int64_t d = 200, na = 45, nb = 70; /* D = 256, w = 9, 7 per word */
    const int32_t bits = 9 * 40 + 4;
    sketch_cp_layout lay;
    ck_assert_int_eq(sketch_crosspolytope_layout(d, bits, &lay), SMM_OK);
    const int64_t lda = lay.words, ldb = lay.words + 3, ldm = nb + 5;
    float *X = malloc((size_t)((na + nb) * d) * sizeof *X);
    uint64_t rng = 31;
    /* groups of 5 close vectors, so that counts are spread out */
    test_fill_uniform(X, (na + nb) * d, &rng);
    for (int64_t i = 0; i < na + nb; i++)
        if (i % 5)
            for (int64_t t = 0; t < d; t++)
                X[i * d + t] = X[(i - i % 5) * d + t] + 0.1f * X[i * d + t];
    uint64_t *A = malloc((size_t)(na * lda) * sizeof *A), *B = malloc((size_t)(nb * ldb) * sizeof *B);
    ck_assert_int_eq(sketch_encode(SKETCH_CROSSPOLYTOPE, SMM_ROW_MAJOR, na, d, X, d, bits, 8, A, lda, NULL), SMM_OK);
    ck_assert_int_eq(sketch_encode(SKETCH_CROSSPOLYTOPE, SMM_ROW_MAJOR, nb, d, X + na * d, d, bits, 8, B, ldb, NULL),
                     SMM_OK);
    uint16_t *want = malloc((size_t)(na * ldm) * sizeof *want), *got = malloc((size_t)(na * ldm) * sizeof *got);
    for (int64_t i = 0; i < na; i++)
        for (int64_t j = 0; j < nb; j++) {
            int64_t eq = 0;
            for (int64_t k = 0; k < lay.hashes; k++)
                eq += field(&lay, A + i * lda, k) == field(&lay, B + j * ldb, k);
            want[i * ldm + j] = (uint16_t)eq;
        }
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        for (int threads = 1; threads <= 2; threads++) {
            ck_assert_int_eq(smm_set_num_threads(threads), SMM_OK);
            for (int64_t k = 0; k < na * ldm; k++)
                got[k] = 0xBEEF;
            ck_assert_int_eq(sketch_crosspolytope_matches(d, bits, na, A, lda, nb, B, ldb, got, ldm), SMM_OK);
            for (int64_t i = 0; i < na; i++) {
                for (int64_t j = 0; j < nb; j++)
                    ck_assert_uint_eq(got[i * ldm + j], want[i * ldm + j]);
                for (int64_t j = nb; j < ldm; j++)
                    ck_assert_uint_eq(got[i * ldm + j], 0xBEEF);
            }
        }
        ck_assert_ptr_nonnull(sketch_crosspolytope_kernel_name());
    }
    test_restore_defaults();
    /* bad input: matches untouched */
    for (int64_t k = 0; k < na * ldm; k++)
        got[k] = 0xBEEF;
    ck_assert_int_eq(sketch_crosspolytope_matches(-1, bits, na, A, lda, nb, B, ldb, got, ldm), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(sketch_crosspolytope_matches(d, 0, na, A, lda, nb, B, ldb, got, ldm), SMM_ERR_BAD_BITS);
    ck_assert_int_eq(sketch_crosspolytope_matches(d, bits, -1, A, lda, nb, B, ldb, got, ldm), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(sketch_crosspolytope_matches(d, bits, na, A, lda - 1, nb, B, ldb, got, ldm),
                     SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(sketch_crosspolytope_matches(d, bits, na, A, lda, nb, B, ldb, got, nb - 1),
                     SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(sketch_crosspolytope_matches(d, bits, na, NULL, lda, nb, B, ldb, got, ldm),
                     SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(sketch_crosspolytope_matches(d, bits, na, A, lda, nb, B, ldb, NULL, ldm),
                     SMM_ERR_NULL_POINTER);
    for (int64_t k = 0; k < na * ldm; k++)
        ck_assert_uint_eq(got[k], 0xBEEF);
    ck_assert_int_eq(sketch_crosspolytope_matches(d, bits, 0, NULL, lda, nb, B, ldb, NULL, ldm), SMM_OK);
    free(X);
    free(A);
    free(B);
    free(want);
    free(got);
}
END_TEST

/* ======================================================================
 * Calibration and estimators
 * ====================================================================== */

START_TEST(test_calibration_table_properties)
{
    /* exact values, monotone in rho, the Gaussian p_D(0) = 1/(2D) for large D */
    ck_assert_double_eq_tol(sketch_crosspolytope_collision_probability(1 << 20, 1, 0.3), 1.0 - acos(0.3) / PI, 1e-4);
    ck_assert_double_eq_tol(sketch_crosspolytope_collision_probability(1 << 20, 1 << 12, 0.0), 1.0 / 8192, 1e-9);
    ck_assert_double_eq_tol(sketch_crosspolytope_collision_probability(1 << 20, 1 << 20, 0.0), 1.0 / (1 << 21), 1e-12);
    static const int64_t ds[] = { 2, 16, 128, 1024, 4096, INT64_C(1) << 24 };
    for (size_t a = 0; a < sizeof ds / sizeof ds[0]; a++) {
        for (int64_t h = 1; h <= hd_rotation_dim(ds[a]); h *= 2) {
            ck_assert_double_eq(sketch_crosspolytope_collision_probability(ds[a], h, 1.0), 1.0);
            ck_assert_double_eq(sketch_crosspolytope_collision_probability(ds[a], h, -1.0), 0.0);
            double prev = 0.0;
            for (int i = -100; i <= 100; i++) {
                const double p = sketch_crosspolytope_collision_probability(ds[a], h, i / 100.0);
                ck_assert(p >= prev && p <= 1.0);
                prev = p;
            }
        }
        ck_assert(isnan(sketch_crosspolytope_collision_probability(ds[a], 3, 0.5)));
        ck_assert(isnan(sketch_crosspolytope_collision_probability(ds[a], 2 * hd_rotation_dim(ds[a]), 0.5)));
    }
    ck_assert(isnan(sketch_crosspolytope_collision_probability(16, 16, 1.5)));
    ck_assert(isnan(sketch_crosspolytope_collision_probability(-1, 1, 0.5)));
    /* estimate: ends, round trip, bad input */
    ck_assert_double_eq(sketch_crosspolytope_cosine_estimate(128, 64, 8), 1.0);
    ck_assert_double_eq(sketch_crosspolytope_cosine_estimate(128, 64, 0), -1.0);
    ck_assert(isnan(sketch_crosspolytope_cosine_estimate(128, 64, 9)));
    ck_assert(isnan(sketch_crosspolytope_cosine_estimate(128, 64, -1)));
    ck_assert(isnan(sketch_crosspolytope_cosine_estimate(128, 0, 1)));
    ck_assert(isnan(sketch_crosspolytope_expected_matches(128, 64, 2.0)));
    for (int i = -9; i <= 9; i++) {
        const double rho = i / 10.0;
        /* bits = 65535 at d = 128: 8191 full hashes and a 7-bit one */
        const double e = sketch_crosspolytope_expected_matches(128, SKETCH_MAX_BITS, rho);
        const int64_t m = llround(e);
        if (m > 0 && m < 8192) {
            const double back = sketch_crosspolytope_cosine_estimate(128, SKETCH_MAX_BITS, m);
            const double e2 = sketch_crosspolytope_expected_matches(128, SKETCH_MAX_BITS, back);
            ck_assert_double_eq_tol(e2, (double)m, 1e-6 * 8192);
        }
    }
}
END_TEST

/*
 * The calibration against the implemented hash: for each d and rho, pairs of
 * random Gaussian unit vectors with cosine rho are encoded (new seed per
 * pair) and
 *  (a) the pooled fraction of equal full hashes is compared with the table:
 *      |hits - expected| <= 4.5 sigma + 1 (binomial sigma), and the cosine at
 *      which the table gives the measured rate is within CAL_COS_TOL of rho
 *      wherever the rate's standard error allows (sigma_cos < CAL_COS_TOL / 4);
 *  (b) where the expected matches per pair are >= 5, the mean of the
 *      per-pair cosine estimates is within 4.5 standard errors + CAL_MEAN_TOL
 *      of rho (48 hashes: the estimator is biased by its nonlinearity, by
 *      -0.004 .. -0.016 here; CAL_MEAN_TOL bounds that plus the
 *      calibration). With fewer expected matches most pairs have 0 or 1
 *      match and the per-pair estimate is mostly the clamp -1: those rows
 *      are printed, not checked.
 */
#define CAL_COS_TOL 0.02
#define CAL_MEAN_TOL 0.03

START_TEST(test_calibration_against_hash)
{
    static const int64_t ds[] = { 16, 64, 128, 256, 1024 };
    static const double rhos[] = { 0.0, 0.3, 0.5, 0.7, 0.9 };
    uint64_t rng = 4242;
    for (size_t a = 0; a < sizeof ds / sizeof ds[0]; a++) {
        const int64_t d = ds[a];
        sketch_cp_layout lay;
        ck_assert_int_eq(sketch_crosspolytope_layout(d, 1, &lay), SMM_OK);
        const int w = lay.width;
        const int hashes = 48;
        const int32_t bits = hashes * w;
        const int pairs = d >= 1024 ? 80 : d >= 256 ? 150 : 250;
        ck_assert_int_eq(sketch_crosspolytope_layout(d, bits, &lay), SMM_OK);
        float *X = malloc((size_t)(2 * d) * sizeof *X);
        uint64_t *codes = malloc((size_t)(2 * lay.words) * sizeof *codes);
        for (size_t b = 0; b < sizeof rhos / sizeof rhos[0]; b++) {
            const double rho = rhos[b];
            int64_t hits = 0;
            double sum = 0.0, sum2 = 0.0;
            for (int p = 0; p < pairs; p++) {
                make_pair(d, rho, &rng, X, X + d);
                ck_assert_int_eq(sketch_encode(SKETCH_CROSSPOLYTOPE, SMM_ROW_MAJOR, 2, d, X, d, bits,
                                               (uint64_t)(p * 1000 + b), codes, lay.words, NULL), SMM_OK);
                uint16_t m;
                ck_assert_int_eq(sketch_crosspolytope_matches(d, bits, 1, codes, lay.words, 1, codes + lay.words,
                                                              lay.words, &m, 1), SMM_OK);
                hits += m;
                const double est = sketch_crosspolytope_cosine_estimate(d, bits, m);
                sum += est;
                sum2 += est * est;
            }
            const double n = (double)pairs * hashes;
            const double pt = sketch_crosspolytope_collision_probability(d, lay.dim, rho);
            const double sig = sqrt(n * pt * (1.0 - pt));
            /* cosine at which the table gives the measured rate, and its standard error */
            const double dp = (sketch_crosspolytope_collision_probability(d, lay.dim, rho + 0.01) -
                               sketch_crosspolytope_collision_probability(d, lay.dim, rho - 0.01)) / 0.02;
            const double cos_err = ((double)hits / n - pt) / dp, cos_se = sig / n / dp;
            const double mean = sum / pairs;
            const double se = sqrt(fmax(sum2 / pairs - mean * mean, 0.0) / pairs);
            fprintf(stderr, "calibration d %5lld rho %.1f: rate %.5f table %.5f (%+.1f sigma), cosine error "
                            "%+.4f (se %.4f); mean estimate %+.4f (se %.4f)\n",
                    (long long)d, rho, (double)hits / n, pt, ((double)hits - n * pt) / sig, cos_err, cos_se,
                    mean - rho, se);
            ck_assert_msg(fabs((double)hits - n * pt) <= 4.5 * sig + 1.0, "d %lld rho %.1f: rate off the table",
                          (long long)d, rho);
            if (cos_se < CAL_COS_TOL / 4)
                ck_assert_msg(fabs(cos_err) < CAL_COS_TOL, "d %lld rho %.1f: cosine error %g", (long long)d, rho,
                              cos_err);
            if (hashes * pt >= 5.0)
                ck_assert_msg(fabs(mean - rho) < 4.5 * se + CAL_MEAN_TOL, "d %lld rho %.1f: mean estimate %g",
                              (long long)d, rho, mean);
        }
        free(X);
        free(codes);
    }
}
END_TEST

/* Variance of matches and of the cosine estimate over seeds, for one fixed pair. */
START_TEST(test_crosspolytope_variance)
{
    const int64_t d = 128;
    const double rho = 0.7;
    const int32_t bits = 8 * 64; /* w = 8: 64 full hashes */
    const int seeds = 600;
    float X[2 * 128];
    uint64_t rng = 777;
    make_pair(d, rho, &rng, X, X + d);
    uint64_t codes[2 * 8];
    double s1 = 0.0, s2 = 0.0, c1 = 0.0, c2 = 0.0;
    for (int s = 0; s < seeds; s++) {
        ck_assert_int_eq(sketch_encode(SKETCH_CROSSPOLYTOPE, SMM_ROW_MAJOR, 2, d, X, d, bits, (uint64_t)s + 100000,
                                       codes, 8, NULL), SMM_OK);
        uint16_t m;
        ck_assert_int_eq(sketch_crosspolytope_matches(d, bits, 1, codes, 8, 1, codes + 8, 8, &m, 1), SMM_OK);
        s1 += m;
        s2 += (double)m * m;
        const double c = sketch_crosspolytope_cosine_estimate(d, bits, m);
        c1 += c;
        c2 += c * c;
    }
    const double mean = s1 / seeds, var = (s2 - s1 * s1 / seeds) / (seeds - 1);
    const double cvar = (c2 - c1 * c1 / seeds) / (seeds - 1);
    const double p = mean / 64.0;
    const double theory = sketch_crosspolytope_matches_variance(d, bits, rho);
    const double ctheory = sketch_crosspolytope_cosine_variance(d, bits, rho);
    fprintf(stderr, "cross-polytope variance: matches %.3f (binomial at the measured rate %.3f, theory %.3f); "
                    "cosine %.5f (delta method %.5f)\n", var, 64 * p * (1 - p), theory, cvar, ctheory);
    /* independent hashes: binomial variance at the pair's own rate */
    ck_assert_double_le(fabs(var / (64 * p * (1 - p)) - 1.0), 0.2);
    ck_assert_double_le(fabs(var / theory - 1.0), 0.25);
    ck_assert_double_le(fabs(cvar / ctheory - 1.0), 0.3);
    /* formula identities */
    const double pt = sketch_crosspolytope_collision_probability(d, 128, rho);
    ck_assert_double_eq_tol(theory, 64 * pt * (1 - pt), 1e-12);
    ck_assert_double_eq(sketch_crosspolytope_matches_variance(d, bits, 1.0), 0.0);
    ck_assert_double_eq(sketch_crosspolytope_cosine_variance(d, bits, -1.0), 0.0);
    const double q = sketch_crosspolytope_collision_probability(d, 4, 0.2); /* 8 * 8 + 3 bits: small D' = 4 */
    const double pf = sketch_crosspolytope_collision_probability(d, 128, 0.2);
    ck_assert_double_eq_tol(sketch_crosspolytope_matches_variance(d, 67, 0.2), 8 * pf * (1 - pf) + q * (1 - q), 1e-12);
    ck_assert(isnan(sketch_crosspolytope_matches_variance(d, 0, 0.2)));
    ck_assert(isnan(sketch_crosspolytope_cosine_variance(d, 64, -1.5)));
}
END_TEST

/* SimHash: the empirical variances of the angle and cosine estimates over seeds. */
START_TEST(test_simhash_variance)
{
    const int64_t d = 48;
    const int32_t bits = 256;
    const int seeds = 2000;
    static const double thetas[] = { PI / 4, PI / 2, 2.0 };
    uint64_t rng = 55;
    for (int a = 0; a < 3; a++) {
        float X[2 * 48];
        make_pair(d, cos(thetas[a]), &rng, X, X + d);
        double t1 = 0.0, t2 = 0.0, c1 = 0.0, c2 = 0.0;
        uint64_t codes[2 * 4];
        for (int s = 0; s < seeds; s++) {
            ck_assert_int_eq(sketch_simhash_encode(SMM_ROW_MAJOR, 2, d, X, d, bits, (uint64_t)s * 7 + 1, codes, 4,
                                                   NULL), SMM_OK);
            int64_t h = 0;
            for (int w = 0; w < 4; w++)
                h += __builtin_popcountll(codes[w] ^ codes[4 + w]);
            const double t = sketch_angle_estimate(h, bits), c = sketch_cosine_estimate(h, bits);
            t1 += t;
            t2 += t * t;
            c1 += c;
            c2 += c * c;
        }
        const double tv = (t2 - t1 * t1 / seeds) / (seeds - 1), cv = (c2 - c1 * c1 / seeds) / (seeds - 1);
        /* the pair's angle in float */
        double dot = 0.0, nx = 0.0, ny = 0.0;
        for (int t = 0; t < d; t++) {
            dot += (double)X[t] * X[d + t];
            nx += (double)X[t] * X[t];
            ny += (double)X[d + t] * X[d + t];
        }
        const double theta = acos(dot / sqrt(nx * ny));
        const double tth = sketch_simhash_angle_variance(theta, bits), cth = sketch_simhash_cosine_variance(theta, bits);
        fprintf(stderr, "simhash variance theta %.3f: angle %.6f (theory %.6f), cosine %.6f (delta %.6f)\n", theta,
                tv, tth, cv, cth);
        ck_assert_double_le(fabs(tv / tth - 1.0), 0.15);
        ck_assert_double_le(fabs(cv / cth - 1.0), 0.15);
    }
    ck_assert_double_eq_tol(sketch_simhash_angle_variance(1.0, 100), 1.0 * (PI - 1.0) / 100, 1e-15);
    ck_assert_double_eq_tol(sketch_simhash_cosine_variance(1.0, 100), sin(1.0) * sin(1.0) * (PI - 1.0) / 100, 1e-15);
    ck_assert_double_eq(sketch_simhash_angle_variance(0.0, 10), 0.0);
    ck_assert(isnan(sketch_simhash_angle_variance(-0.1, 10)));
    ck_assert(isnan(sketch_simhash_angle_variance(1.0, 0)));
    ck_assert(isnan(sketch_simhash_cosine_variance(4.0, 10)));
}
END_TEST

static Suite *crosspolytope_suite(void)
{
    Suite *s = suite_create("crosspolytope");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_layout_formulas);
    tcase_add_test(tc, test_layout_bad);
    tcase_add_test(tc, test_encode_matches_reference_every_path);
    tcase_add_test(tc, test_encode_large_dim_blocks);
    tcase_add_test(tc, test_encode_golden);
    tcase_add_test(tc, test_encode_zero_and_empty);
    tcase_add_test(tc, test_encode_bad_input);
    tcase_add_test(tc, test_match_kernels);
    tcase_add_test(tc, test_match_kernels_match_twin);
    tcase_add_test(tc, test_match_kernel_rows);
    tcase_add_test(tc, test_matches_public);
    tcase_add_test(tc, test_calibration_table_properties);
    tcase_add_test(tc, test_calibration_against_hash);
    tcase_add_test(tc, test_crosspolytope_variance);
    tcase_add_test(tc, test_simhash_variance);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(crosspolytope_suite());
}
