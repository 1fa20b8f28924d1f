/*
 * test_approx_classical.c - the classical randomised products of
 * approx_sgemm (Gaussian projection, SRHT, CountSketch, column-row
 * sampling), through the public API: unbiased over seeds, error falling as
 * the sketch dimension grows, reproducible for every thread count and close
 * across ISA paths, the same C in every layout and transpose (and from a
 * plan), top-k on the same estimates, the statuses of bad input, and zero
 * columns / rows / operands for column-row sampling. One test reaches the
 * internal sketches (approx/approx_classical.h) to check that they are
 * bit-identical on every ISA path and thread count.
 */
#include <math.h>
#include <string.h>

#include "approx/approx_classical.h"
#include "test_util.h"

static const sketch_method methods[] = { SKETCH_GAUSSIAN_PROJECTION, SKETCH_SRHT, SKETCH_COUNTSKETCH,
                                         SKETCH_CR_SAMPLING };
#define METHODS ((int)(sizeof methods / sizeof methods[0]))

static approx_options options_for(sketch_method method, int32_t sketch_dim, uint64_t seed, int32_t threads)
{
    approx_options o = APPROX_OPTIONS_INIT;
    o.method = method;
    o.size = sketch_dim;
    o.seed = seed;
    o.num_threads = threads;
    return o;
}

/* The transpose of the row-major rows x cols matrix X. */
static void transpose(int64_t rows, int64_t cols, const float *X, float *Xt)
{
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            Xt[j * rows + i] = X[i * cols + j];
}

/* The smallest valid leading dimension of op(X) (rows x cols) stored in `layout`, plus pad. */
static int64_t ld_for(smm_layout layout, smm_trans trans, int64_t rows, int64_t cols, int64_t pad)
{
    return ((trans == SMM_NO_TRANS) == (layout == SMM_ROW_MAJOR) ? cols : rows) + pad;
}

/* E = op(A) op(B) in double (row-major operands). */
static void exact_product(int64_t m, int64_t n, int64_t k, const float *A, const float *B, double *E)
{
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double acc = 0.0;
            for (int64_t p = 0; p < k; p++)
                acc += (double)A[i * k + p] * (double)B[p * n + j];
            E[i * n + j] = acc;
        }
}

/* The estimate of op(A) op(B) (row-major, no transposes, alpha 1, beta 0). */
static void estimate(int64_t m, int64_t n, int64_t k, const float *A, const float *B, const approx_options *o,
                     float *C)
{
    ck_assert_int_eq(approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1.0f, A, k, B, n, 0.0f, C, n, o, NULL),
                     SMM_OK);
}

/* ||X - Y||_F / ||Y||_F over count floats. */
static double relative_difference(const float *X, const float *Y, int64_t count)
{
    double diff = 0.0, ref = 0.0;
    for (int64_t i = 0; i < count; i++) {
        diff += ((double)X[i] - Y[i]) * ((double)X[i] - Y[i]);
        ref += (double)Y[i] * Y[i];
    }
    return sqrt(diff / ref);
}

START_TEST(unbiased_over_seeds)
{
    /* each entry's mean over the seeds within 4 standard errors of the exact product; with 10000 seeds
     * a bias of 3% of an entry is about 5 standard errors */
    enum { M = 4, N = 4, K = 32, SEEDS = 10000 };
    const int32_t s = 8;
    uint64_t rng = 21;
    float direction[K], A[M * K], B[K * N], Bt[N * K], C[M * N];
    double E[M * N];
    test_fill_uniform(direction, K, &rng);
    test_fill_aligned(A, M, K, direction, 1.0f, &rng);
    test_fill_aligned(Bt, N, K, direction, 1.0f, &rng);
    transpose(N, K, Bt, B);
    exact_product(M, N, K, A, B, E);
    for (int mi = 0; mi < METHODS; mi++) {
        double sum[M * N] = { 0 }, sumsq[M * N] = { 0 };
        for (uint64_t seed = 1; seed <= SEEDS; seed++) {
            const approx_options o = options_for(methods[mi], s, seed, 1);
            estimate(M, N, K, A, B, &o, C);
            for (int e = 0; e < M * N; e++) {
                sum[e] += C[e];
                sumsq[e] += (double)C[e] * C[e];
            }
        }
        for (int e = 0; e < M * N; e++) {
            const double mean = sum[e] / SEEDS;
            const double var = (sumsq[e] - SEEDS * mean * mean) / (SEEDS - 1);
            const double se = sqrt(var > 0.0 ? var / SEEDS : 0.0);
            ck_assert_msg(fabs(mean - E[e]) <= 4.0 * se + 1e-5 * fabs(E[e]),
                          "%s entry %d: mean %g over %d seeds, exact %g, standard error %g",
                          sketch_method_name(methods[mi]), e, mean, SEEDS, E[e], se);
        }
    }
}
END_TEST

START_TEST(error_falls_as_sketch_dim_grows)
{
    const int64_t m = 64, n = 64, k = 300;
    uint64_t rng = 5;
    float *direction = malloc(sizeof(float) * k);
    float *A = malloc(sizeof(float) * m * k), *Bt = malloc(sizeof(float) * n * k), *B = malloc(sizeof(float) * k * n);
    float *C = malloc(sizeof(float) * m * n), *R = malloc(sizeof(float) * m * n);
    double *E = malloc(sizeof(double) * m * n);
    test_fill_uniform(direction, k, &rng);
    test_fill_aligned(A, m, k, direction, 0.8f, &rng);
    test_fill_aligned(Bt, n, k, direction, 0.8f, &rng);
    transpose(n, k, Bt, B);
    exact_product(m, n, k, A, B, E);
    for (int64_t e = 0; e < m * n; e++)
        R[e] = (float)E[e];
    for (int mi = 0; mi < METHODS; mi++) {
        const int32_t dims[] = { 16, 256 };
        double err[2] = { 0.0, 0.0 };
        for (int d = 0; d < 2; d++)
            for (uint64_t seed = 1; seed <= 3; seed++) {
                const approx_options o = options_for(methods[mi], dims[d], seed, 1);
                estimate(m, n, k, A, B, &o, C);
                err[d] += relative_difference(C, R, m * n) / 3.0;
            }
        /* the error goes as 1 / sqrt(s): a quarter at 16 times the sketch dimension */
        ck_assert_msg(err[1] < 0.5 * err[0], "%s: relative error %g at s = 16, %g at s = 256",
                      sketch_method_name(methods[mi]), err[0], err[1]);
        ck_assert_msg(err[1] < 0.3, "%s: relative error %g at s = 256 on aligned data",
                      sketch_method_name(methods[mi]), err[1]);
    }
    free(direction), free(A), free(Bt), free(B), free(C), free(R), free(E);
}
END_TEST

START_TEST(same_result_for_every_thread_count_and_isa)
{
    /* large enough for the parallel regions and exact_sgemm's packed path (m n s > 160^3) */
    const int64_t m = 200, n = 180, k = 200;
    uint64_t rng = 99;
    float *A = malloc(sizeof(float) * m * k), *B = malloc(sizeof(float) * k * n);
    float *one = malloc(sizeof(float) * m * n), *two = malloc(sizeof(float) * m * n);
    float *ref = malloc(sizeof(float) * m * n);
    test_fill_uniform(A, m * k, &rng);
    test_fill_uniform(B, k * n, &rng);
    smm_isa isas[4];
    const int count = test_supported_isas(isas);
    for (int mi = 0; mi < METHODS; mi++) {
        for (int i = 0; i < count; i++) {
            ck_assert_int_eq(smm_set_isa(isas[i]), SMM_OK);
            approx_options o = options_for(methods[mi], 128, 77, 1);
            ck_assert_int_eq(approx_sgemm(SMM_COL_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1.5f, A, m, B, k, 0.0f,
                                          one, m, &o, NULL),
                             SMM_OK);
            o.num_threads = 2;
            ck_assert_int_eq(approx_sgemm(SMM_COL_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1.5f, A, m, B, k, 0.0f,
                                          two, m, &o, NULL),
                             SMM_OK);
            ck_assert_msg(memcmp(one, two, sizeof(float) * m * n) == 0, "%s on %s: 1 and 2 threads differ",
                          sketch_method_name(methods[mi]), smm_isa_name(isas[i]));
            if (i == 0) {
                memcpy(ref, one, sizeof(float) * m * n);
                continue;
            }
            /* the sketches are the same; only exact_sgemm's rounding differs between paths */
            const double diff = relative_difference(one, ref, m * n);
            ck_assert_msg(diff < 1e-4, "%s: %s differs from %s by %g", sketch_method_name(methods[mi]),
                          smm_isa_name(isas[i]), smm_isa_name(isas[0]), diff);
        }
    }
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
    free(A), free(B), free(one), free(two), free(ref);
}
END_TEST

/* S^T v_i of the n vectors of v as an n x s row-major matrix, from sketch ops of seed 9 under ctx. */
static void sketch_vectors(const classical_sketch_ops *ops, const smm_context *ctx, const approx_vectors *v,
                           int64_t k, int64_t s, float *out)
{
    void *sketch;
    int64_t s_made = s;
    ck_assert_int_eq(ops->create(ctx, NULL, k, &s_made, 9, &sketch), SMM_OK);
    ck_assert_int_eq(s_made, s);
    const classical_view view = { out, s, 1 };
    ck_assert_int_eq(ops->apply(ctx, sketch, v, view), SMM_OK);
    ops->free(sketch);
}

START_TEST(sketches_bit_identical_on_every_isa_and_thread_count)
{
    /* enough vectors for the parallel regions; k not a power of two (SRHT pads it to 256) */
    const int64_t n = 300, k = 200, s = 48;
    uint64_t rng = 31;
    float *X = malloc(sizeof(float) * n * k), *ref = malloc(sizeof(float) * n * s), *got = malloc(sizeof(float) * n * s);
    float *as_ref = malloc(sizeof(float) * n * s), *sb_ref = malloc(sizeof(float) * s * n);
    double *norms = malloc(sizeof(double) * k);
    test_fill_uniform(X, n * k, &rng);
    for (int64_t t = 0; t < k; t++) /* huge entries next to small ones (SRHT scales each vector first) */
        X[t] *= 1e30f;
    /* the sketches of the registry entries (approx_method.h) */
    const classical_sketch_ops *linear[] = { approx_method_of(SKETCH_SRHT)->impl,
                                             approx_method_of(SKETCH_COUNTSKETCH)->impl };
    const approx_vectors layouts[] = { { SMM_ROW_MAJOR, n, X, k }, { SMM_COL_MAJOR, n, X, n } };
    smm_isa isas[4];
    const int count = test_supported_isas(isas);
    for (int li = 0; li < 2; li++) {
        const approx_vectors *v = &layouts[li];
        for (int op = 0; op < 2; op++) {
            const smm_context ctx0 = { SMM_ISA_SCALAR, 1 };
            sketch_vectors(linear[op], &ctx0, v, k, s, ref);
            for (int i = 0; i < count; i++)
                for (int threads = 1; threads <= 3; threads++) {
                    const smm_context ctx = { isas[i], threads };
                    sketch_vectors(linear[op], &ctx, v, k, s, got);
                    ck_assert_msg(memcmp(got, ref, sizeof(float) * n * s) == 0,
                                  "%s sketch, layout %d: %s with %d threads differs from scalar",
                                  op == 0 ? "SRHT" : "CountSketch", v->layout, smm_isa_name(isas[i]), threads);
                }
        }
        /* column-row sampling of v against itself */
        const smm_context ctx0 = { SMM_ISA_SCALAR, 1 };
        cr_coordinate_norms(&ctx0, v, k, norms);
        ck_assert_int_eq(cr_sample_factors(&ctx0, v, norms, v, norms, k, s, 9, as_ref, sb_ref), SMM_OK);
        for (int i = 0; i < count; i++)
            for (int threads = 1; threads <= 3; threads++) {
                const smm_context ctx = { isas[i], threads };
                double *mine = malloc(sizeof(double) * k);
                cr_coordinate_norms(&ctx, v, k, mine);
                ck_assert(memcmp(mine, norms, sizeof(double) * k) == 0);
                ck_assert_int_eq(cr_sample_factors(&ctx, v, mine, v, mine, k, s, 9, got, ref), SMM_OK);
                ck_assert(memcmp(got, as_ref, sizeof(float) * n * s) == 0);
                ck_assert(memcmp(ref, sb_ref, sizeof(float) * s * n) == 0);
                free(mine);
            }
    }
    free(X), free(ref), free(got), free(as_ref), free(sb_ref), free(norms);
}
END_TEST

/*
 * For every layout and transpose pair, padded leading dimensions, alpha and
 * beta: approx_sgemm and a plan give alpha R + beta C0, R the row-major
 * no-transpose estimate of the same operands. C holds NaN where it must not
 * be read (beta == 0) or written (padding).
 */
static void check_every_layout(int64_t m, int64_t n, int64_t k, int32_t s)
{
    const int64_t pad = 3;
    const smm_layout layouts[] = { SMM_ROW_MAJOR, SMM_COL_MAJOR };
    const smm_trans trans[] = { SMM_NO_TRANS, SMM_TRANS };
    const float alphas[] = { 1.0f, -0.5f }, betas[] = { 0.0f, 0.75f };
    uint64_t rng = 11;
    float *opA = malloc(sizeof(float) * m * k), *opB = malloc(sizeof(float) * k * n);
    float *C0 = malloc(sizeof(float) * m * n), *R = malloc(sizeof(float) * m * n);
    float *got = malloc(sizeof(float) * m * n), *want = malloc(sizeof(float) * m * n);
    test_fill_uniform(opA, m * k, &rng);
    test_fill_uniform(opB, k * n, &rng);
    test_fill_uniform(C0, m * n, &rng);
    for (int mi = 0; mi < METHODS; mi++) {
        const approx_options o = options_for(methods[mi], s, 3, 1);
        estimate(m, n, k, opA, opB, &o, R);
        for (int li = 0; li < 2; li++)
            for (int ta = 0; ta < 2; ta++)
                for (int tb = 0; tb < 2; tb++)
                    for (int ab = 0; ab < 2; ab++)
                        for (int use_plan = 0; use_plan < 2; use_plan++) {
                            const smm_layout L = layouts[li];
                            const float alpha = alphas[ab], beta = betas[ab];
                            const int64_t lda = ld_for(L, trans[ta], m, k, pad), ldb = ld_for(L, trans[tb], k, n, pad);
                            const int64_t ldc = ld_for(L, SMM_NO_TRANS, m, n, pad);
                            const int64_t c_size = test_stored_size(L, SMM_NO_TRANS, m, n, ldc);
                            float *A = calloc((size_t)test_stored_size(L, trans[ta], m, k, lda), sizeof(float));
                            float *B = calloc((size_t)test_stored_size(L, trans[tb], k, n, ldb), sizeof(float));
                            float *C = malloc(sizeof(float) * (size_t)c_size);
                            test_store(L, trans[ta], m, k, opA, A, lda);
                            test_store(L, trans[tb], k, n, opB, B, ldb);
                            for (int64_t i = 0; i < c_size; i++)
                                C[i] = NAN;
                            if (beta != 0.0f)
                                test_store(L, SMM_NO_TRANS, m, n, C0, C, ldc);
                            if (use_plan) {
                                approx_plan *plan;
                                ck_assert_int_eq(approx_plan_create(L, trans[tb], k, n, B, ldb, &o, NULL, &plan), SMM_OK);
                                ck_assert_int_eq(approx_plan_multiply(plan, L, trans[ta], m, alpha, A, lda, beta, C,
                                                                      ldc, NULL),
                                                 SMM_OK);
                                approx_plan_free(plan);
                            } else {
                                ck_assert_int_eq(approx_sgemm(L, trans[ta], trans[tb], m, n, k, alpha, A, lda, B, ldb,
                                                              beta, C, ldc, &o, NULL),
                                                 SMM_OK);
                            }
                            for (int64_t i = 0; i < m; i++)
                                for (int64_t j = 0; j < n; j++) {
                                    got[i * n + j] = C[L == SMM_ROW_MAJOR ? i * ldc + j : j * ldc + i];
                                    want[i * n + j] = alpha * R[i * n + j] + beta * C0[i * n + j];
                                    ck_assert_msg(isfinite(got[i * n + j]), "%s: C(%lld, %lld) = %g",
                                                  sketch_method_name(o.method), (long long)i, (long long)j,
                                                  got[i * n + j]);
                                }
                            const double diff = relative_difference(got, want, m * n);
                            ck_assert_msg(diff < 1e-5, "%s %s: layout %d transa %d transb %d alpha %g beta %g: %g",
                                          sketch_method_name(o.method), use_plan ? "plan" : "approx_sgemm", L,
                                          trans[ta], trans[tb], alpha, beta, diff);
                            const int64_t lines = L == SMM_ROW_MAJOR ? m : n, used = L == SMM_ROW_MAJOR ? n : m;
                            for (int64_t r = 0; r < lines; r++) /* the padding past each line is not written */
                                for (int64_t c = used; c < ldc; c++)
                                    ck_assert(isnan(C[r * ldc + c]));
                            free(A), free(B), free(C);
                        }
    }
    free(opA), free(opB), free(C0), free(R), free(got), free(want);
}

START_TEST(same_product_in_every_layout)
{
    check_every_layout(37, 29, 50, 24);
}
END_TEST

START_TEST(single_rows_columns_and_dimensions)
{
    /* C as one row or one column, one vector on a side, s == 1 (sketches as one column), k == 1 */
    check_every_layout(1, 7, 9, 5);
    check_every_layout(6, 1, 9, 5);
    check_every_layout(1, 1, 9, 1);
    check_every_layout(6, 4, 9, 1);
    check_every_layout(5, 4, 1, 3);
}
END_TEST

START_TEST(topk_ranks_the_same_estimates)
{
    /* with candidates == topk, top-k keeps the topk largest estimates of each row, which are those of
     * approx_plan_multiply (the methods estimate blocks of the product with the values of the whole
     * product for s <= 256); m and n span several blocks of rows and columns */
    const int64_t m = 70, n = 4500, k = 24, topk = 3;
    uint64_t rng = 8;
    float *A = malloc(sizeof(float) * m * k), *B = malloc(sizeof(float) * k * n), *C = malloc(sizeof(float) * m * n);
    int64_t *idx = malloc(sizeof(int64_t) * m * topk);
    float *val = malloc(sizeof(float) * m * topk);
    test_fill_uniform(A, m * k, &rng);
    test_fill_uniform(B, k * n, &rng);
    for (int mi = 0; mi < METHODS; mi++) {
        approx_options o = options_for(methods[mi], 32, 4, 2);
        o.candidates = (int32_t)topk;
        approx_plan *plan;
        ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, k, n, B, n, &o, NULL, &plan), SMM_OK);
        ck_assert_int_eq(approx_plan_multiply(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, 1.0f, A, k, 0.0f, C, n, NULL), SMM_OK);
        ck_assert_int_eq(approx_plan_topk(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, A, k, topk, idx, val, topk, NULL), SMM_OK);
        for (int64_t i = 0; i < m; i++) {
            const float *row = C + i * n;
            for (int64_t t = 0; t < topk; t++) {
                /* idx is a top-topk column of the estimate: fewer than topk columns beat it */
                const int64_t j = idx[i * topk + t];
                int64_t better = 0;
                for (int64_t u = 0; u < n; u++)
                    better += row[u] > row[j] || (row[u] == row[j] && u < j);
                ck_assert_msg(better < topk, "%s row %lld: column %lld ranks %lld in the estimate",
                              sketch_method_name(o.method), (long long)i, (long long)j, (long long)better);
            }
        }
        approx_plan_free(plan);
    }
    free(A), free(B), free(C), free(idx), free(val);
}
END_TEST

START_TEST(bad_input_leaves_c_untouched)
{
    float A[4] = { 1, 2, 3, 4 }, B[4] = { 1, 0, 0, 1 }, C[4] = { 7, 7, 7, 7 };
    float nan_a[4] = { 1, NAN, 3, 4 }, inf_b[4] = { 1, 0, INFINITY, 1 };
    for (int mi = 0; mi < METHODS; mi++) {
        approx_options o = options_for(methods[mi], 8, 1, 1);
        const int32_t bad_dims[] = { -2, -1, APPROX_MAX_SKETCH_DIM + 1 }; /* 0 is the default */
        for (int d = 0; d < 3; d++) {
            o.size = bad_dims[d];
            ck_assert_int_eq(approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 2, 1.0f, A, 2, B, 2, 0.0f,
                                          C, 2, &o, NULL),
                             SMM_ERR_BAD_ARGUMENT);
            approx_plan *plan;
            ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, 2, 2, B, 2, &o, NULL, &plan),
                             SMM_ERR_BAD_ARGUMENT);
            ck_assert(plan == NULL);
        }
        o.size = 8;
        ck_assert_int_eq(approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 2, 1.0f, nan_a, 2, B, 2, 0.0f,
                                      C, 2, &o, NULL),
                         SMM_ERR_NON_FINITE);
        ck_assert_int_eq(approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 2, 1.0f, A, 2, inf_b, 2, 0.0f,
                                      C, 2, &o, NULL),
                         SMM_ERR_NON_FINITE);
        approx_plan *plan;
        ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, 2, 2, B, 2, &o, NULL, &plan), SMM_OK);
        ck_assert_int_eq(approx_plan_multiply(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, 2, 1.0f, nan_a, 2, 0.5f, C, 2, NULL),
                         SMM_ERR_NON_FINITE);
        approx_plan_free(plan);
        for (int i = 0; i < 4; i++)
            ck_assert_msg(C[i] == 7.0f, "%s: C[%d] = %g after an error", sketch_method_name(o.method), i, C[i]);
    }
}
END_TEST

START_TEST(zero_columns_rows_and_operands)
{
    const int64_t m = 9, n = 7, k = 20;
    const float beta = 0.25f;
    uint64_t rng = 13;
    float A[9 * 20], B[20 * 7], Z[9 * 20], C0[9 * 7], C[9 * 7];
    test_fill_uniform(A, m * k, &rng);
    test_fill_uniform(B, k * n, &rng);
    test_fill_uniform(C0, m * n, &rng);
    for (int64_t i = 0; i < m; i++) /* coordinate 3: zero column of op(A), coordinate 5: both zero */
        A[i * k + 3] = A[i * k + 5] = 0.0f;
    for (int64_t j = 0; j < n; j++) /* coordinate 8: zero row of op(B) */
        B[8 * n + j] = B[5 * n + j] = 0.0f;
    memset(Z, 0, sizeof Z);
    for (int mi = 0; mi < METHODS; mi++) {
        const approx_options o = options_for(methods[mi], 16, 2, 1);
        /* zero coordinates on one side or both: finite (for column-row sampling: never drawn) */
        estimate(m, n, k, A, B, &o, C);
        for (int64_t e = 0; e < m * n; e++)
            ck_assert_msg(isfinite(C[e]), "%s: C[%lld] = %g", sketch_method_name(o.method), (long long)e, C[e]);
        /* all-zero op(A): alpha * 0 + beta * C exactly */
        memcpy(C, C0, sizeof C);
        ck_assert_int_eq(approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, -2.0f, Z, k, B, n, beta, C,
                                      n, &o, NULL),
                         SMM_OK);
        for (int64_t e = 0; e < m * n; e++)
            ck_assert_msg(C[e] == beta * C0[e], "%s: C[%lld] = %g, want %g", sketch_method_name(o.method),
                          (long long)e, C[e], beta * C0[e]);
    }
    /* column-row sampling with no nonzero term (op(A) on coordinates < 10 only, op(B) on the rest): exactly 0 */
    for (int64_t i = 0; i < m; i++)
        for (int64_t t = 10; t < k; t++)
            A[i * k + t] = 0.0f;
    for (int64_t t = 0; t < 10; t++)
        for (int64_t j = 0; j < n; j++)
            B[t * n + j] = 0.0f;
    for (int64_t e = 0; e < m * n; e++)
        C[e] = NAN;
    const approx_options o = options_for(SKETCH_CR_SAMPLING, 16, 2, 1);
    estimate(m, n, k, A, B, &o, C);
    for (int64_t e = 0; e < m * n; e++)
        ck_assert_msg(C[e] == 0.0f, "C[%lld] = %g", (long long)e, C[e]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("approx_classical");
    TCase *tc = tcase_create("approx_classical");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, unbiased_over_seeds);
    tcase_add_test(tc, error_falls_as_sketch_dim_grows);
    tcase_add_test(tc, same_result_for_every_thread_count_and_isa);
    tcase_add_test(tc, sketches_bit_identical_on_every_isa_and_thread_count);
    tcase_add_test(tc, same_product_in_every_layout);
    tcase_add_test(tc, single_rows_columns_and_dimensions);
    tcase_add_test(tc, topk_ranks_the_same_estimates);
    tcase_add_test(tc, bad_input_leaves_c_untouched);
    tcase_add_test(tc, zero_columns_rows_and_operands);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
