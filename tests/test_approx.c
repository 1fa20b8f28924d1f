/*
 * test_approx.c - approx_sgemm with the four sketch families: agreement with
 * the definition (codes, Hamming distance or match count, cosine estimate,
 * norms) in every layout and transpose, error that falls as bits grow,
 * reproducibility across ISA paths and thread counts, and the statuses of
 * bad input. (Plans and top-k: test_approx_topk.c; the classical methods:
 * test_approx_classical.c.)
 */
#include <math.h>
#include <string.h>

#include "test_util.h"

/* Store the row-major m x k matrix X (as op(X)) into `stored` for layout/trans, leading dimension ld. */
static const sketch_method families[] = { SKETCH_SIMHASH, SKETCH_SIMHASH_ORTHOGONAL, SKETCH_SIMHASH_STRUCTURED,
                                          SKETCH_CROSSPOLYTOPE };

/* Expected C(i, j) from the documented definition, computed with the public sketch API. */
static void expected_product(int64_t m, int64_t n, int64_t k, float alpha, const float *opA, const float *opBt,
                             float beta, const float *C0, const approx_options *o, float *E)
{
    const sketch_method f = o->method;
    int64_t w;
    ck_assert_int_eq(sketch_code_words(f, k, o->size, &w), SMM_OK);
    uint64_t *ca = malloc((size_t)(m * w) * 8), *cb = malloc((size_t)(n * w) * 8);
    float *na = malloc((size_t)m * 4), *nb = malloc((size_t)n * 4);
    uint32_t *h = malloc((size_t)(m * n) * 4);
    uint16_t *matches = malloc((size_t)(m * n) * 2);
    ck_assert_int_eq(sketch_encode(f, SMM_ROW_MAJOR, m, k, opA, k, o->size, o->seed, ca, w, na), SMM_OK);
    ck_assert_int_eq(sketch_encode(f, SMM_ROW_MAJOR, n, k, opBt, k, o->size, o->seed, cb, w, nb), SMM_OK);
    if (f == SKETCH_CROSSPOLYTOPE)
        ck_assert_int_eq(sketch_crosspolytope_matches(k, o->size, m, ca, w, n, cb, w, matches, n), SMM_OK);
    else
        ck_assert_int_eq(sketch_hamming_u32(m, ca, w, n, cb, w, w, h, n), SMM_OK);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            const float cosine = f == SKETCH_CROSSPOLYTOPE
                                     ? (float)sketch_crosspolytope_cosine_estimate(k, o->size, matches[i * n + j])
                                     : (float)sketch_cosine_estimate(h[i * n + j], o->size);
            float v = alpha * (na[i] * nb[j] * cosine);
            if (beta != 0.0f)
                v += beta * C0[i * n + j];
            E[i * n + j] = v;
        }
    free(ca), free(cb), free(na), free(nb), free(h), free(matches);
}

START_TEST(matches_definition_in_every_layout)
{
    const int64_t m = 37, n = 29, k = 50, pad = 3;
    const smm_layout layouts[] = { SMM_ROW_MAJOR, SMM_COL_MAJOR };
    const smm_trans trans[] = { SMM_NO_TRANS, SMM_TRANS };
    const float alphas[] = { 1.0f, -0.5f }, betas[] = { 0.0f, 0.75f };
    uint64_t rng = 11;
    float direction[50];
    test_fill_uniform(direction, k, &rng);
    float *opA = malloc(sizeof(float) * m * k), *opBt = malloc(sizeof(float) * n * k);
    float *opB = malloc(sizeof(float) * k * n), *C0 = malloc(sizeof(float) * m * n);
    float *E = malloc(sizeof(float) * m * n);
    test_fill_aligned(opA, m, k, direction, 1.0f, &rng);
    test_fill_aligned(opBt, n, k, direction, 1.0f, &rng);
    memset(opA + 5 * k, 0, sizeof(float) * k); /* a zero row of op(A) */
    for (int64_t p = 0; p < k; p++)
        for (int64_t j = 0; j < n; j++)
            opB[p * n + j] = opBt[j * k + p];
    test_fill_uniform(C0, m * n, &rng);
    approx_options o = APPROX_OPTIONS_INIT;
    o.size = 200;

    for (int fam = 0; fam < 4; fam++)
    for (int li = 0; li < 2; li++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++)
                for (int ab = 0; ab < 2; ab++) {
                    const smm_layout L = layouts[li];
                    const int64_t lda = (trans[ta] == SMM_NO_TRANS) == (L == SMM_ROW_MAJOR) ? k + pad : m + pad;
                    const int64_t ldb = (trans[tb] == SMM_NO_TRANS) == (L == SMM_ROW_MAJOR) ? n + pad : k + pad;
                    const int64_t ldc = (L == SMM_ROW_MAJOR ? n : m) + pad;
                    float *A = calloc((size_t)test_stored_size(L, trans[ta], m, k, lda), sizeof(float));
                    float *B = calloc((size_t)test_stored_size(L, trans[tb], k, n, ldb), sizeof(float));
                    float *C = malloc(sizeof(float) * (size_t)test_stored_size(L, SMM_NO_TRANS, m, n, ldc));
                    test_store(L, trans[ta], m, k, opA, A, lda);
                    test_store(L, trans[tb], k, n, opB, B, ldb);
                    const float beta = betas[ab], alpha = alphas[ab];
                    /* NaN everywhere: in the padding, and in C itself when beta == 0 (it must not leak). */
                    for (int64_t i = 0; i < test_stored_size(L, SMM_NO_TRANS, m, n, ldc); i++)
                        C[i] = NAN;
                    if (beta != 0.0f)
                        test_store(L, SMM_NO_TRANS, m, n, C0, C, ldc);
                    o.method = families[fam];
                    ck_assert_int_eq(approx_sgemm(L, trans[ta], trans[tb], m, n, k, alpha, A, lda, B, ldb, beta, C,
                                                  ldc, &o, NULL),
                                     SMM_OK);
                    expected_product(m, n, k, alpha, opA, opBt, beta, C0, &o, E);
                    for (int64_t i = 0; i < m; i++)
                        for (int64_t j = 0; j < n; j++) {
                            const float got = C[L == SMM_ROW_MAJOR ? i * ldc + j : j * ldc + i];
                            ck_assert_msg(got == E[i * n + j], "%s layout %d transa %d transb %d (%lld,%lld): %g vs %g",
                                          sketch_method_name(o.method), L, trans[ta], trans[tb], (long long)i, (long long)j, got, E[i * n + j]);
                        }
                    const int64_t lines = L == SMM_ROW_MAJOR ? m : n, used = L == SMM_ROW_MAJOR ? n : m;
                    for (int64_t r = 0; r < lines; r++) /* the padding past each line is not written */
                        for (int64_t c = used; c < ldc; c++)
                            ck_assert(isnan(C[r * ldc + c]));
                    for (int64_t j = 0; j < n; j++) /* the zero row gives beta * C */
                        ck_assert(C[L == SMM_ROW_MAJOR ? 5 * ldc + j : j * ldc + 5] ==
                                  (beta == 0.0f ? 0.0f : beta * C0[5 * n + j]));
                    free(A), free(B), free(C);
                }
    free(opA), free(opBt), free(opB), free(C0), free(E);
}
END_TEST

/* Relative Frobenius error of approx_sgemm against exact_sgemm. */
static double relative_error(int64_t m, int64_t n, int64_t k, const float *A, const float *B, sketch_method method,
                             int32_t bits)
{
    float *Y = malloc(sizeof(float) * m * n), *Z = malloc(sizeof(float) * m * n);
    approx_options o = APPROX_OPTIONS_INIT;
    o.method = method;
    o.size = bits;
    ck_assert_int_eq(exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1, A, k, B, n, 0, Y, n), SMM_OK);
    ck_assert_int_eq(approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1, A, k, B, n, 0, Z, n, &o, NULL),
                     SMM_OK);
    double num = 0, den = 0;
    for (int64_t i = 0; i < m * n; i++) {
        num += ((double)Y[i] - Z[i]) * ((double)Y[i] - Z[i]);
        den += (double)Y[i] * Y[i];
    }
    free(Y), free(Z);
    return sqrt(num / den);
}

START_TEST(error_falls_as_bits_grow)
{
    const int64_t m = 64, n = 64, k = 96;
    uint64_t rng = 5;
    float direction[96];
    test_fill_uniform(direction, k, &rng);
    float *A = malloc(sizeof(float) * m * k), *Bt = malloc(sizeof(float) * n * k), *B = malloc(sizeof(float) * k * n);
    test_fill_aligned(A, m, k, direction, 0.8f, &rng);
    test_fill_aligned(Bt, n, k, direction, 0.8f, &rng);
    for (int64_t p = 0; p < k; p++)
        for (int64_t j = 0; j < n; j++)
            B[p * n + j] = Bt[j * k + p];
    const int32_t bits[] = { 64, 256, 1024, 4096 };
    for (int fam = 0; fam < 4; fam++) {
        double err[4];
        for (int i = 0; i < 4; i++) {
            err[i] = relative_error(m, n, k, A, B, families[fam], bits[i]);
            if (i > 0)
                ck_assert_msg(err[i] < 0.8 * err[i - 1], "%s bits %d: error %g, bits %d: %g",
                              sketch_method_name(families[fam]), bits[i], err[i], bits[i - 1], err[i - 1]);
        }
        ck_assert_msg(err[3] < 0.05, "%s, 4096 bits on aligned data: relative error %g",
                      sketch_method_name(families[fam]), err[3]);
    }
    free(A), free(Bt), free(B);
}
END_TEST

START_TEST(same_result_on_every_isa_and_thread_count)
{
    const int64_t m = 70, n = 45, k = 33;
    uint64_t rng = 99;
    float *A = malloc(sizeof(float) * m * k), *B = malloc(sizeof(float) * k * n);
    float *ref = malloc(sizeof(float) * m * n), *C = malloc(sizeof(float) * m * n);
    test_fill_uniform(A, m * k, &rng);
    test_fill_uniform(B, k * n, &rng);
    smm_isa isas[4];
    const int count = test_supported_isas(isas);
    for (int fam = 0; fam < 4; fam++) {
    approx_options o = APPROX_OPTIONS_INIT;
    o.method = families[fam];
    o.size = 130;
    o.num_threads = 1;
    ck_assert_int_eq(smm_set_isa(SMM_ISA_SCALAR), SMM_OK);
    ck_assert_int_eq(approx_sgemm(SMM_COL_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1.5f, A, m, B, k, 0, ref, m, &o, NULL),
                     SMM_OK);
    for (int i = 0; i < count; i++)
        for (int threads = 1; threads <= 3; threads++) {
            ck_assert_int_eq(smm_set_isa(isas[i]), SMM_OK);
            o.num_threads = threads;
            ck_assert_int_eq(
                approx_sgemm(SMM_COL_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1.5f, A, m, B, k, 0, C, m, &o, NULL),
                SMM_OK);
            ck_assert_msg(memcmp(C, ref, sizeof(float) * m * n) == 0, "%s: isa %s, %d threads differ",
                          sketch_method_name(o.method), smm_isa_name(isas[i]), threads);
        }
    }
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
    free(A), free(B), free(ref), free(C);
}
END_TEST

START_TEST(defaults_and_degenerate_sizes)
{
    approx_options o;
    approx_options_init(&o);
    const approx_options init = APPROX_OPTIONS_INIT;
    ck_assert_int_eq(o.method, init.method);
    ck_assert_int_eq(o.size, init.size);
    ck_assert(o.seed == init.seed);
    approx_options_init(NULL);

    float A[6] = { 1, 2, 3, 4, 5, 6 }, B[6] = { 1, 0, 0, 1, 1, 1 }, C[4] = { 1, 2, 3, 4 }, D[4];
    /* NULL options mean the defaults. */
    approx_options d = APPROX_OPTIONS_INIT;
    ck_assert_int_eq(approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 3, 1, A, 3, B, 2, 0, C, 2, NULL, NULL),
                     SMM_OK);
    ck_assert_int_eq(approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 3, 1, A, 3, B, 2, 0, D, 2, &d, NULL),
                     SMM_OK);
    ck_assert(memcmp(C, D, sizeof C) == 0);
    /* k == 0: C := beta * C; m == 0 or n == 0: nothing, even with NULL pointers. */
    float E[4] = { 1, 2, 3, 4 };
    ck_assert_int_eq(approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 0, 1, NULL, 1, NULL, 2, 2, E, 2,
                                  NULL, NULL),
                     SMM_OK);
    ck_assert(E[0] == 2 && E[1] == 4 && E[2] == 6 && E[3] == 8);
    ck_assert_int_eq(approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 0, 2, 3, 1, NULL, 3, B, 2, 0, NULL, 2,
                                  NULL, NULL),
                     SMM_OK);
}
END_TEST

START_TEST(bad_input_leaves_c_untouched)
{
    float A[4] = { 1, 2, 3, 4 }, B[4] = { 1, 0, 0, 1 }, C[4] = { 7, 7, 7, 7 };
    approx_options o = APPROX_OPTIONS_INIT;
#define CALL(layout, ta, tb, m, n, k, a, lda, b, ldb, c, ldc, opts) \
    approx_sgemm(layout, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc, opts, NULL)
    ck_assert_int_eq(CALL((smm_layout)0, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 2, A, 2, B, 2, C, 2, &o), SMM_ERR_BAD_LAYOUT);
    ck_assert_int_eq(CALL(SMM_ROW_MAJOR, (smm_trans)3, SMM_NO_TRANS, 2, 2, 2, A, 2, B, 2, C, 2, &o), SMM_ERR_BAD_TRANS);
    ck_assert_int_eq(CALL(SMM_ROW_MAJOR, SMM_NO_TRANS, (smm_trans)3, 2, 2, 2, A, 2, B, 2, C, 2, &o), SMM_ERR_BAD_TRANS);
    ck_assert_int_eq(CALL(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, -1, 2, 2, A, 2, B, 2, C, 2, &o), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(CALL(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 2, A, 1, B, 2, C, 2, &o),
                     SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(CALL(SMM_COL_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 2, A, 2, B, 2, C, 1, &o),
                     SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(CALL(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 2, NULL, 2, B, 2, C, 2, &o),
                     SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(CALL(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 2, A, 2, B, 2, NULL, 2, &o),
                     SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(CALL(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, INT64_MAX / 2, 2, 2, A, 2, B, 2, C, 2, &o),
                     SMM_ERR_OVERFLOW);
    o.method = (sketch_method)77;
    ck_assert_int_eq(CALL(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 2, A, 2, B, 2, C, 2, &o), SMM_ERR_BAD_METHOD);
    o.method = SKETCH_SIMHASH;
    const int32_t bad_bits[] = { -1, -64, SKETCH_MAX_BITS + 1 }; /* 0 is the default */
    for (int i = 0; i < 3; i++) {
        o.size = bad_bits[i];
        ck_assert_int_eq(CALL(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 2, A, 2, B, 2, C, 2, &o),
                         SMM_ERR_BAD_BITS);
    }
    o.size = 64;
    o.num_threads = -1;
    ck_assert_int_eq(CALL(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 2, A, 2, B, 2, C, 2, &o), SMM_ERR_BAD_THREADS);
    o.num_threads = SMM_MAX_THREADS + 1;
    ck_assert_int_eq(CALL(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 2, A, 2, B, 2, C, 2, &o), SMM_ERR_BAD_THREADS);
    o.num_threads = 0;
    float bad[4] = { 1, NAN, 3, 4 };
    ck_assert_int_eq(CALL(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 2, bad, 2, B, 2, C, 2, &o),
                     SMM_ERR_NON_FINITE);
    bad[1] = INFINITY;
    ck_assert_int_eq(CALL(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 2, A, 2, bad, 2, C, 2, &o),
                     SMM_ERR_NON_FINITE);
#undef CALL
    for (int i = 0; i < 4; i++)
        ck_assert(C[i] == 7.0f);
}
END_TEST

static const sketch_method every_method[] = { SKETCH_SIMHASH,       SKETCH_SIMHASH_ORTHOGONAL,
                                              SKETCH_SIMHASH_STRUCTURED, SKETCH_CROSSPOLYTOPE,
                                              SKETCH_GAUSSIAN_PROJECTION, SKETCH_SRHT,
                                              SKETCH_COUNTSKETCH,   SKETCH_CR_SAMPLING };
#define EVERY_METHOD ((int)(sizeof every_method / sizeof every_method[0]))

static approx_options overflow_options(sketch_method method)
{
    approx_options o = APPROX_OPTIONS_INIT;
    o.method = method;
    o.size = sketch_method_uses_bits(method) ? 64 : 8;
    o.seed = 3;
    return o;
}

/*
 * approx_check_sizes: the status approx_plan_create returns for the same options and sizes, with a
 * sentence naming the limit (pq and maddness: at most min(k, limit) subspaces or codebooks, 16 columns).
 */
START_TEST(check_sizes_names_the_limit)
{
    const int64_t k = 48, n = 200;
    float *B = malloc(sizeof(float) * k * n);
    uint64_t rng = 5;
    test_fill_uniform(B, k * n, &rng);
    static const struct {
        sketch_method method;
        int32_t size;
        int64_t cols;
        smm_status want;
        const char *needle;
    } cases[] = {
        { SKETCH_PQ, 60, 200, SMM_ERR_BAD_ARGUMENT, "at most min(k = 48, 4096)" },
        { SKETCH_PQ, 8, 10, SMM_ERR_BAD_SIZE, "10 columns, fewer than the 16 centroids" },
        { SKETCH_PQ, 8, 200, SMM_OK, "" },
        { SKETCH_MADDNESS, 49, 200, SMM_ERR_BAD_ARGUMENT, "at most min(k = 48, 256)" },
        { SKETCH_MADDNESS, 8, 15, SMM_ERR_BAD_SIZE, "15 columns, fewer than the 16 leaves" },
        { SKETCH_SRHT, -3, 200, SMM_ERR_BAD_ARGUMENT, "srht: size = -3 is outside 1..1048576" },
        { SKETCH_SIMHASH, 65536, 200, SMM_ERR_BAD_BITS, "simhash: size = 65536 is outside 1..65535 (bits)" },
        { (sketch_method)99, 8, 200, SMM_ERR_BAD_METHOD, "method 99 is not a method" },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        approx_options o;
        approx_options_init(&o);
        o.method = cases[c].method;
        o.size = cases[c].size;
        char msg[256] = "untouched";
        const smm_status s = approx_check_sizes(&o, k, cases[c].cols, msg, sizeof msg);
        ck_assert_msg(s == cases[c].want, "case %zu: status %d, want %d", c, (int)s, (int)cases[c].want);
        ck_assert_msg(cases[c].needle[0] ? strstr(msg, cases[c].needle) != NULL : msg[0] == '\0',
                      "case %zu: message '%s' lacks '%s'", c, msg, cases[c].needle);
        approx_plan *plan = NULL;
        ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, k, cases[c].cols, B, cases[c].cols, &o, NULL,
                                            &plan), cases[c].want);
        approx_plan_free(plan);
    }
    ck_assert_int_eq(approx_check_sizes(NULL, 0, 5, NULL, 0), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(approx_check_sizes(NULL, 5, 5, NULL, 0), SMM_OK);
    free(B);
}
END_TEST

/*
 * Finite operands far from 1. Three cases, k = 64:
 *   0: op(A)'s entries near 3e38, op(B)'s near 1e-30 (the exact product,
 *      about 64 * 3e38 * 1e-30, is finite);
 *   1: the same with the roles swapped;
 *   2: both near 3e38 (the exact product overflows too).
 * The sketch families need the norms |a_i| and |b_j| as floats: 3e38 * 8
 * overflows, so SMM_ERR_NON_FINITE with nothing written, in approx_sgemm,
 * plans (a huge op(B) fails at approx_plan_create) and top-k, on every ISA
 * path. The classical methods work on their operands brought into the safe
 * range (approx_scale.h: each side times a power of two, the estimate times
 * the inverse): cases 0 and 1 give SMM_OK and a finite C (they failed
 * before: their sketches of a huge operand overflowed), case 2, whose
 * product is beyond float, SMM_ERR_NON_FINITE with nothing written (at
 * multiply time: a plan of a huge op(B) is fine).
 */
START_TEST(far_from_one_operands_for_every_method)
{
    const int64_t m = 3, n = 5, k = 64;
    float *big_a = malloc(sizeof(float) * m * k), *tiny_a = malloc(sizeof(float) * m * k);
    float *big_b = malloc(sizeof(float) * k * n), *tiny_b = malloc(sizeof(float) * k * n);
    uint64_t rng = 17;
    for (int64_t e = 0; e < m * k; e++) {
        big_a[e] = 3e38f * (0.9f + 0.1f * test_rng_uniform(&rng));
        tiny_a[e] = 1e-30f * test_rng_uniform(&rng);
    }
    for (int64_t e = 0; e < k * n; e++) {
        tiny_b[e] = 1e-30f * test_rng_uniform(&rng);
        big_b[e] = 3e38f * (0.9f + 0.1f * test_rng_uniform(&rng));
    }
    float C[15], C0[15];
    for (int e = 0; e < 15; e++)
        C0[e] = (float)e;
    int64_t idx[6];
    float val[6];
    smm_isa isas[4];
    const int count = test_supported_isas(isas);
    for (int ii = 0; ii < count; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        for (int mi = 0; mi < EVERY_METHOD; mi++) {
            const approx_options o = overflow_options(every_method[mi]);
            const char *name = sketch_method_name(o.method);
            const int scaled = !sketch_method_uses_bits(o.method);
            for (int side = 0; side < 3; side++) {
                const float *A = side == 1 ? tiny_a : big_a, *B = side == 0 ? tiny_b : big_b;
                const smm_status want = scaled && side < 2 ? SMM_OK : SMM_ERR_NON_FINITE;
                for (int beta_i = 0; beta_i < 2; beta_i++) {
                    memcpy(C, C0, sizeof C);
                    const smm_status s = approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1.0f, A, k,
                                                      B, n, beta_i ? 0.5f : 0.0f, C, n, &o, NULL);
                    ck_assert_msg(s == want, "%s, isa %s, case %d: status %d (%s)", name, smm_isa_name(isas[ii]), side,
                                  (int)s, smm_status_str(s));
                    for (int e = 0; e < 15; e++)
                        ck_assert_msg(want == SMM_OK ? isfinite(C[e]) : C[e] == C0[e], "%s, case %d: C[%d] = %g",
                                      name, side, e, (double)C[e]);
                }
                for (int t = 0; t < 6; t++) {
                    idx[t] = -9;
                    val[t] = 7.0f;
                }
                const smm_status st =
                    approx_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, A, k, B, n, 2, idx, val, 2, &o, NULL);
                ck_assert_msg(st == want, "%s top-k, case %d: status %d", name, side, (int)st);
                if (want != SMM_OK)
                    for (int t = 0; t < 6; t++)
                        ck_assert_msg(idx[t] == -9 && val[t] == 7.0f, "%s: top-k output written", name);
                /* plans: the sketch families' norms of a huge op(B) fail at once */
                approx_plan *plan = NULL;
                const smm_status sp = approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, k, n, B, n, &o, NULL, &plan);
                if (side >= 1 && !scaled) {
                    ck_assert_msg(sp == SMM_ERR_NON_FINITE && plan == NULL, "%s plan of huge B: status %d", name,
                                  (int)sp);
                    continue;
                }
                ck_assert_msg(sp == SMM_OK, "%s plan, case %d: status %d", name, side, (int)sp);
                memcpy(C, C0, sizeof C);
                ck_assert_int_eq(approx_plan_multiply(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, 1.0f, A, k, 0.0f, C, n, NULL),
                                 want);
                for (int t = 0; t < 6; t++) {
                    idx[t] = -9;
                    val[t] = 7.0f;
                }
                ck_assert_int_eq(approx_plan_topk(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, A, k, 2, idx, val, 2, NULL), want);
                approx_plan_free(plan);
                if (want != SMM_OK) {
                    ck_assert_msg(memcmp(C, C0, sizeof C) == 0, "%s: C was written", name);
                    for (int t = 0; t < 6; t++)
                        ck_assert(idx[t] == -9 && val[t] == 7.0f);
                }
            }
        }
    }
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
    /* large values whose norms and sketches stay finite: SMM_OK and a finite C */
    for (int64_t e = 0; e < m * k; e++)
        big_a[e] = 1e30f * test_rng_uniform(&rng);
    for (int mi = 0; mi < EVERY_METHOD; mi++) {
        const approx_options o = overflow_options(every_method[mi]);
        ck_assert_int_eq(approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1.0f, big_a, k, tiny_b, n,
                                      0.0f, C, n, &o, NULL),
                         SMM_OK);
        for (int e = 0; e < 15; e++)
            ck_assert_msg(isfinite(C[e]), "%s: C[%d] = %g", sketch_method_name(o.method), e, (double)C[e]);
    }
    free(big_a), free(tiny_a), free(big_b), free(tiny_b);
}
END_TEST

/*
 * C must not overlap A or B (approx_sgemm) or A (approx_plan_multiply): an
 * overlap of the memory spans is SMM_ERR_BAD_ARGUMENT with nothing written,
 * for every method; buffers that touch without overlapping give the result
 * of separate buffers.
 */
START_TEST(c_must_not_overlap_the_operands)
{
    const int64_t m = 3, n = 4, k = 5;
    /* one arena: A (m x k = 15) | C (m x n = 12) | B (k x n = 20), each touching the next */
    float arena[47], saved[47];
    float *A = arena, *C = arena + 15, *B = arena + 27;
    uint64_t rng = 8;
    test_fill_uniform(A, m * k, &rng);
    test_fill_uniform(B, k * n, &rng);
    float As[15], Bs[20], Cs[12], C0[12];
    memcpy(As, A, sizeof As);
    memcpy(Bs, B, sizeof Bs);
    test_fill_uniform(C0, m * n, &rng);
    for (int mi = 0; mi < EVERY_METHOD; mi++) {
        const approx_options o = overflow_options(every_method[mi]);
        const char *name = sketch_method_name(o.method);
        approx_plan *plan;
        ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, k, n, Bs, n, &o, NULL, &plan), SMM_OK);
        /* adjacent: accepted, the same C as separate buffers */
        for (int call = 0; call < 2; call++) {
            memcpy(Cs, C0, sizeof Cs);
            memcpy(C, C0, sizeof Cs);
            smm_status s1, s2;
            if (call == 0) {
                s1 = approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1.5f, As, k, Bs, n, 0.5f, Cs, n,
                                  &o, NULL);
                s2 = approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1.5f, A, k, B, n, 0.5f, C, n, &o, NULL);
            } else {
                s1 = approx_plan_multiply(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, 1.5f, As, k, 0.5f, Cs, n, NULL);
                s2 = approx_plan_multiply(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, 1.5f, A, k, 0.5f, C, n, NULL);
            }
            ck_assert_int_eq(s1, SMM_OK);
            ck_assert_msg(s2 == SMM_OK, "%s call %d on adjacent buffers: status %d", name, call, (int)s2);
            ck_assert_msg(memcmp(C, Cs, sizeof Cs) == 0, "%s call %d: adjacent buffers give another C", name, call);
            ck_assert(memcmp(A, As, sizeof As) == 0 && memcmp(B, Bs, sizeof Bs) == 0);
        }
        /* C shifted by one element into A (its first element is A's last), or into B (its last is B's first) */
        memcpy(saved, arena, sizeof arena);
        float *into_a = C - 1, *into_b = C + 1;
        ck_assert_int_eq(approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1.0f, A, k, B, n, 0.0f,
                                      into_a, n, &o, NULL),
                         SMM_ERR_BAD_ARGUMENT);
        ck_assert_int_eq(approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1.0f, A, k, B, n, 0.0f,
                                      into_b, n, &o, NULL),
                         SMM_ERR_BAD_ARGUMENT);
        /* C == A in column-major (same extent: a square product) */
        ck_assert_int_eq(approx_sgemm(SMM_COL_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 3, 3, 3, 1.0f, A, 3, B, 3, 0.0f, A, 3,
                                      &o, NULL),
                         SMM_ERR_BAD_ARGUMENT);
        ck_assert_int_eq(approx_plan_multiply(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, 1.0f, A, k, 0.0f, into_a, n, NULL),
                         SMM_ERR_BAD_ARGUMENT);
        ck_assert_msg(memcmp(saved, arena, sizeof arena) == 0, "%s: memory written after an overlap", name);
        /* the plan keeps its own op(B): C over the caller's B is the caller's business */
        ck_assert_int_eq(approx_plan_multiply(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, 1.0f, A, k, 0.0f, into_b, n, NULL),
                         SMM_OK);
        memcpy(arena, saved, sizeof arena);
        approx_plan_free(plan);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("approx");
    TCase *tc = tcase_create("approx");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, matches_definition_in_every_layout);
    tcase_add_test(tc, error_falls_as_bits_grow);
    tcase_add_test(tc, same_result_on_every_isa_and_thread_count);
    tcase_add_test(tc, defaults_and_degenerate_sizes);
    tcase_add_test(tc, bad_input_leaves_c_untouched);
    tcase_add_test(tc, far_from_one_operands_for_every_method);
    tcase_add_test(tc, check_sizes_names_the_limit);
    tcase_add_test(tc, c_must_not_overlap_the_operands);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
