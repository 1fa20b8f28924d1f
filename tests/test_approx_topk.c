/*
 * test_approx_topk.c - plans and top-k: a plan gives the one-shot call's C
 * for every method (and the same C for several A against one plan); top-k is
 * the exact top-k when every column is a candidate, its values are exact dot
 * products, its recall grows with the candidates, it is reproducible across
 * thread counts (and ISA paths for the sketch families); exact_topk agrees
 * with a brute-force reference; bad input gets its status with the outputs
 * untouched. Internals: the refinement's dot kernels equal the scalar one
 * bit for bit, the selection's collect kernels equal the scalar one, and the
 * streaming selection equals a full sort on every ISA path.
 */
#include <math.h>
#include <string.h>

#include "approx/approx_dot.h"
#include "approx/approx_select.h"
#include "test_util.h"

static const sketch_method all_methods[] = { SKETCH_SIMHASH,      SKETCH_SIMHASH_ORTHOGONAL,  SKETCH_SIMHASH_STRUCTURED,
                                             SKETCH_CROSSPOLYTOPE, SKETCH_GAUSSIAN_PROJECTION, SKETCH_SRHT,
                                             SKETCH_COUNTSKETCH,   SKETCH_CR_SAMPLING };
#define NUM_METHODS ((int)(sizeof all_methods / sizeof all_methods[0]))

/* Clustered data: vector i is centre (i % clusters) plus noise; rows x d, row-major. */
static void fill_clustered(float *x, int64_t rows, int64_t d, int clusters, float noise, uint64_t seed)
{
    uint64_t rng = seed;
    float *centres = malloc(sizeof(float) * (size_t)(clusters * d));
    uint64_t crng = 1234; /* the same centres for every call */
    test_fill_uniform(centres, clusters * d, &crng);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t t = 0; t < d; t++)
            x[i * d + t] = centres[(i % clusters) * d + t] + noise * test_rng_uniform(&rng);
    free(centres);
}

/* Brute-force top-k of row i of A B^T (A: m x d, Bt: n x d, row-major) in double: indices by value desc, index asc. */
static void reference_topk(const float *A, const float *Bt, int64_t i, int64_t n, int64_t d, int64_t topk,
                           int64_t *idx, double *val)
{
    for (int64_t t = 0; t < topk; t++) {
        idx[t] = -1;
        val[t] = -INFINITY;
    }
    for (int64_t j = 0; j < n; j++) {
        double v = 0.0;
        for (int64_t p = 0; p < d; p++)
            v += (double)A[i * d + p] * (double)Bt[j * d + p];
        int64_t pos = topk;
        while (pos > 0 && v > val[pos - 1])
            pos--;
        if (pos == topk)
            continue;
        for (int64_t t = topk - 1; t > pos; t--) {
            idx[t] = idx[t - 1];
            val[t] = val[t - 1];
        }
        idx[pos] = j;
        val[pos] = v;
    }
}

static approx_options options_for(sketch_method method)
{
    approx_options o = APPROX_OPTIONS_INIT;
    o.method = method;
    o.size = sketch_method_uses_bits(method) ? 256 : 32;
    o.seed = 77;
    return o;
}

START_TEST(plan_matches_one_shot_for_every_method)
{
    const int64_t m = 23, n = 31, k = 40;
    float *A = malloc(sizeof(float) * m * k), *A2 = malloc(sizeof(float) * m * k);
    float *Bt = malloc(sizeof(float) * n * k);
    float *C1 = malloc(sizeof(float) * m * n), *C2 = malloc(sizeof(float) * m * n);
    fill_clustered(A, m, k, 3, 0.3f, 1);
    fill_clustered(A2, m, k, 3, 0.3f, 2);
    fill_clustered(Bt, n, k, 3, 0.3f, 3);
    for (int mi = 0; mi < NUM_METHODS; mi++) {
        const approx_options o = options_for(all_methods[mi]);
        approx_plan *plan = NULL;
        /* the plan stores B^T (n x k, row-major) as op(B) = (B^T)^T: transb = TRANS */
        ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_TRANS, k, n, Bt, k, &o, NULL, &plan), SMM_OK);
        ck_assert_ptr_nonnull(plan);
        int64_t pk = 0, pn = 0;
        approx_options po;
        approx_options_init(&po);
        ck_assert_int_eq(approx_plan_info(plan, &pk, &pn, &po), SMM_OK);
        ck_assert(pk == k && pn == n && po.method == o.method && po.seed == o.seed);
        const float *As[2] = { A, A2 };
        for (int r = 0; r < 2; r++) {
            for (int64_t t = 0; t < m * n; t++)
                C1[t] = C2[t] = (float)t;
            ck_assert_int_eq(approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, n, k, 0.5f, As[r], k, Bt, k,
                                          0.25f, C1, n, &o, NULL),
                             SMM_OK);
            ck_assert_int_eq(approx_plan_multiply(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, 0.5f, As[r], k, 0.25f, C2, n, NULL),
                             SMM_OK);
            ck_assert_msg(memcmp(C1, C2, sizeof(float) * m * n) == 0, "%s: plan and one-shot differ (A %d)",
                          sketch_method_name(o.method), r);
        }
        /* the plan copied B: changing the caller's B changes nothing */
        float saved = Bt[0];
        Bt[0] = 1e6f;
        ck_assert_int_eq(approx_plan_multiply(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, 0.5f, A2, k, 0.0f, C1, n, NULL), SMM_OK);
        Bt[0] = saved;
        ck_assert_int_eq(approx_plan_multiply(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, 0.5f, A2, k, 0.0f, C2, n, NULL), SMM_OK);
        ck_assert(memcmp(C1, C2, sizeof(float) * m * n) == 0);
        approx_plan_free(plan);
    }
    approx_plan_free(NULL);
    free(A), free(A2), free(Bt), free(C1), free(C2);
}
END_TEST

START_TEST(topk_is_exact_when_every_column_is_a_candidate)
{
    const int64_t m = 19, n = 57, k = 33, topk = 5, ldk = 7;
    float *A = malloc(sizeof(float) * m * k), *Bt = malloc(sizeof(float) * n * k);
    uint64_t rng = 42;
    test_fill_uniform(A, m * k, &rng);
    test_fill_uniform(Bt, n * k, &rng);
    int64_t *idx = malloc(sizeof(int64_t) * m * ldk), ref_idx[5];
    float *val = malloc(sizeof(float) * m * ldk);
    double ref_val[5];
    for (int mi = 0; mi < NUM_METHODS; mi++) {
        approx_options o = options_for(all_methods[mi]);
        o.candidates = (int32_t)n;
        ck_assert_int_eq(approx_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, n, k, A, k, Bt, k, topk, idx, val,
                                     ldk, &o, NULL),
                         SMM_OK);
        for (int64_t i = 0; i < m; i++) {
            reference_topk(A, Bt, i, n, k, topk, ref_idx, ref_val);
            for (int64_t t = 0; t < topk; t++) {
                ck_assert_msg(idx[i * ldk + t] == ref_idx[t], "%s row %lld rank %lld: %lld vs %lld",
                              sketch_method_name(o.method), (long long)i, (long long)t, (long long)idx[i * ldk + t],
                              (long long)ref_idx[t]);
                /* the exact dot product, rounded to float */
                ck_assert_msg(fabs(val[i * ldk + t] - ref_val[t]) <= 1e-6 * fabs(ref_val[t]) + 1e-30,
                              "%s value %g vs %g", sketch_method_name(o.method), val[i * ldk + t], ref_val[t]);
            }
        }
    }
    /* exact_topk: the same indices, values from exact_sgemm (float accumulation) */
    ck_assert_int_eq(exact_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, n, k, A, k, Bt, k, topk, idx, val, ldk),
                     SMM_OK);
    for (int64_t i = 0; i < m; i++) {
        reference_topk(A, Bt, i, n, k, topk, ref_idx, ref_val);
        for (int64_t t = 0; t < topk; t++) {
            ck_assert(idx[i * ldk + t] == ref_idx[t]);
            ck_assert(fabs(val[i * ldk + t] - ref_val[t]) <= 1e-4 * fabs(ref_val[t]) + 1e-5);
        }
    }
    free(A), free(Bt), free(idx), free(val);
}
END_TEST

/* Mean recall of approx_topk against the reference top-k on clustered data. */
static double recall_of(const approx_options *o, const float *A, const float *Bt, int64_t m, int64_t n, int64_t k,
                        int64_t topk)
{
    int64_t *idx = malloc(sizeof(int64_t) * m * topk), *ref_idx = malloc(sizeof(int64_t) * topk);
    float *val = malloc(sizeof(float) * m * topk);
    double *ref_val = malloc(sizeof(double) * topk);
    ck_assert_int_eq(approx_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, n, k, A, k, Bt, k, topk, idx, val, topk, o, NULL),
                     SMM_OK);
    int64_t hits = 0;
    for (int64_t i = 0; i < m; i++) {
        reference_topk(A, Bt, i, n, k, topk, ref_idx, ref_val);
        for (int64_t t = 0; t < topk; t++)
            for (int64_t u = 0; u < topk; u++)
                hits += idx[i * topk + t] == ref_idx[u];
    }
    free(idx), free(ref_idx), free(val), free(ref_val);
    return (double)hits / (double)(m * topk);
}

START_TEST(recall_grows_with_candidates)
{
    const int64_t m = 40, n = 2000, k = 64, topk = 10;
    float *A = malloc(sizeof(float) * m * k), *Bt = malloc(sizeof(float) * n * k);
    fill_clustered(A, m, k, 4, 0.6f, 5);
    fill_clustered(Bt, n, k, 4, 0.6f, 6);
    for (int mi = 0; mi < NUM_METHODS; mi++) {
        approx_options o = options_for(all_methods[mi]);
        o.candidates = 10;
        const double low = recall_of(&o, A, Bt, m, n, k, topk);
        o.candidates = 400;
        const double high = recall_of(&o, A, Bt, m, n, k, topk);
        ck_assert_msg(high > low && high >= 0.9, "%s: recall %.3f at 10 candidates, %.3f at 400",
                      sketch_method_name(o.method), low, high);
    }
    free(A), free(Bt);
}
END_TEST

START_TEST(topk_reproducible_across_threads_and_isas)
{
    const int64_t m = 37, n = 300, k = 50, topk = 4;
    float *A = malloc(sizeof(float) * m * k), *B = malloc(sizeof(float) * k * n);
    uint64_t rng = 9;
    test_fill_uniform(A, m * k, &rng);
    test_fill_uniform(B, k * n, &rng);
    int64_t *idx = malloc(sizeof(int64_t) * m * topk), *ref_idx = malloc(sizeof(int64_t) * m * topk);
    float *val = malloc(sizeof(float) * m * topk), *ref_val = malloc(sizeof(float) * m * topk);
    smm_isa isas[4];
    const int count = test_supported_isas(isas);
    for (int mi = 0; mi < NUM_METHODS; mi++) {
        approx_options o = options_for(all_methods[mi]);
        o.candidates = 20;
        o.num_threads = 1;
        ck_assert_int_eq(smm_set_isa(SMM_ISA_SCALAR), SMM_OK);
        /* column-major A and B: contiguous rows of op(A), strided columns of op(B) in the refinement */
        ck_assert_int_eq(approx_topk(SMM_COL_MAJOR, SMM_TRANS, SMM_TRANS, m, n, k, A, k, B, n, topk, ref_idx, ref_val,
                                     topk, &o, NULL),
                         SMM_OK);
        const int same_isa_bits = sketch_method_uses_bits(o.method);
        for (int i = 0; i < count; i++)
            for (int threads = 1; threads <= 3; threads++) {
                if (!same_isa_bits && isas[i] != SMM_ISA_SCALAR)
                    continue; /* the classical methods' estimates round as exact_sgemm does on each path */
                ck_assert_int_eq(smm_set_isa(isas[i]), SMM_OK);
                o.num_threads = threads;
                ck_assert_int_eq(approx_topk(SMM_COL_MAJOR, SMM_TRANS, SMM_TRANS, m, n, k, A, k, B, n, topk, idx, val,
                                             topk, &o, NULL),
                                 SMM_OK);
                ck_assert_msg(memcmp(idx, ref_idx, sizeof(int64_t) * m * topk) == 0 &&
                                  memcmp(val, ref_val, sizeof(float) * m * topk) == 0,
                              "%s: isa %s, %d threads differ", sketch_method_name(o.method), smm_isa_name(isas[i]),
                              threads);
            }
        ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
        /* the plan gives the one-shot result */
        approx_plan *plan;
        ck_assert_int_eq(approx_plan_create(SMM_COL_MAJOR, SMM_TRANS, k, n, B, n, &o, NULL, &plan), SMM_OK);
        ck_assert_int_eq(approx_plan_topk(plan, SMM_COL_MAJOR, SMM_TRANS, m, A, k, topk, idx, val, topk, NULL), SMM_OK);
        approx_plan_free(plan);
        if (same_isa_bits)
            ck_assert(memcmp(idx, ref_idx, sizeof(int64_t) * m * topk) == 0);
    }
    free(A), free(B), free(idx), free(ref_idx), free(val), free(ref_val);
}
END_TEST

START_TEST(bad_input_leaves_outputs_untouched)
{
    float A[6] = { 1, 2, 3, 4, 5, 6 }, B[6] = { 1, 0, 0, 1, 1, 1 };
    int64_t idx[4] = { -9, -9, -9, -9 };
    float val[4] = { 7, 7, 7, 7 };
    approx_options o = APPROX_OPTIONS_INIT;
    /* m = 2 rows of dimension 3 against n = 2 columns */
#define TOPK(topk_, ldk_, opts_) \
    approx_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 3, A, 3, B, 2, topk_, idx, val, ldk_, opts_, NULL)
    ck_assert_int_eq(TOPK(0, 2, &o), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(TOPK(3, 3, &o), SMM_ERR_BAD_ARGUMENT); /* topk > n */
    ck_assert_int_eq(TOPK(2, 1, &o), SMM_ERR_BAD_LEADING_DIM);
    o.candidates = 1; /* fewer than topk */
    ck_assert_int_eq(TOPK(2, 2, &o), SMM_ERR_BAD_ARGUMENT);
    o.candidates = 3; /* more than n */
    ck_assert_int_eq(TOPK(1, 2, &o), SMM_ERR_BAD_ARGUMENT);
    o.candidates = -1;
    ck_assert_int_eq(TOPK(1, 2, &o), SMM_ERR_BAD_ARGUMENT);
    o.candidates = 0;
    o.method = (sketch_method)0;
    ck_assert_int_eq(TOPK(1, 2, &o), SMM_ERR_BAD_METHOD);
    o.method = SKETCH_GAUSSIAN_PROJECTION;
    o.size = -1;
    ck_assert_int_eq(TOPK(1, 2, &o), SMM_ERR_BAD_ARGUMENT);
    o.size = APPROX_MAX_SKETCH_DIM + 1;
    ck_assert_int_eq(TOPK(1, 2, &o), SMM_ERR_BAD_ARGUMENT);
    o.size = 8;
    ck_assert_int_eq(approx_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 3, A, 3, B, 2, 1, NULL, val, 2, &o, NULL),
                     SMM_ERR_NULL_POINTER);
    A[4] = NAN;
    for (int mi = 0; mi < NUM_METHODS; mi++) {
        o.method = all_methods[mi];
        ck_assert_int_eq(TOPK(1, 2, &o), SMM_ERR_NON_FINITE);
    }
    A[4] = 5;
    ck_assert_int_eq(exact_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 3, A, 3, B, 2, 3, idx, val, 3),
                     SMM_ERR_BAD_ARGUMENT);
#undef TOPK
    for (int i = 0; i < 4; i++)
        ck_assert(idx[i] == -9 && val[i] == 7.0f);

    /* plans */
    approx_plan *plan = (approx_plan *)&o; /* must be reset to NULL on error */
    ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, 3, 2, B, 2, &o, NULL, NULL), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, 0, 2, B, 2, &o, NULL, &plan), SMM_ERR_BAD_SIZE);
    ck_assert_ptr_null(plan);
    ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, 3, 2, B, 1, &o, NULL, &plan), SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(approx_plan_create((smm_layout)1, SMM_NO_TRANS, 3, 2, B, 2, &o, NULL, &plan), SMM_ERR_BAD_LAYOUT);
    B[1] = INFINITY;
    for (int mi = 0; mi < NUM_METHODS; mi++) {
        o.method = all_methods[mi];
        ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, 3, 2, B, 2, &o, NULL, &plan), SMM_ERR_NON_FINITE);
        ck_assert_ptr_null(plan);
    }
    B[1] = 0;
    ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, 3, 2, B, 2, NULL, NULL, &plan), SMM_OK);
    float C[4] = { 7, 7, 7, 7 };
    ck_assert_int_eq(approx_plan_multiply(NULL, SMM_ROW_MAJOR, SMM_NO_TRANS, 2, 1, A, 3, 0, C, 2, NULL),
                     SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(approx_plan_multiply(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, 2, 1, A, 2, 0, C, 2, NULL),
                     SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(approx_plan_multiply(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, 2, 1, A, 3, 0, C, 1, NULL),
                     SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(approx_plan_multiply(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, -1, 1, A, 3, 0, C, 2, NULL), SMM_ERR_BAD_SIZE);
    A[0] = NAN;
    ck_assert_int_eq(approx_plan_multiply(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, 2, 1, A, 3, 0, C, 2, NULL), SMM_ERR_NON_FINITE);
    A[0] = 1;
    for (int i = 0; i < 4; i++)
        ck_assert(C[i] == 7.0f);
    ck_assert_int_eq(approx_plan_topk(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, 2, A, 3, 3, idx, val, 3, NULL),
                     SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(approx_plan_info(NULL, NULL, NULL, NULL), SMM_ERR_NULL_POINTER);
    /* alpha == 0: C := beta * C without sketching; m == 0: nothing */
    ck_assert_int_eq(approx_plan_multiply(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, 2, 0, A, 3, 2, C, 2, NULL), SMM_OK);
    for (int i = 0; i < 4; i++)
        ck_assert(C[i] == 14.0f);
    ck_assert_int_eq(approx_plan_multiply(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, 0, 1, NULL, 3, 0, NULL, 2, NULL), SMM_OK);
    approx_plan_free(plan);
}
END_TEST

START_TEST(dot_kernels_match_scalar)
{
    smm_isa isas[4];
    const int count = test_supported_isas(isas);
    uint64_t rng = 3;
    float x[304], y[304], z[304];
    for (int t = 0; t < 304; t++) { /* wide dynamic range, both signs: rounding shows */
        x[t] = (test_rng_uniform(&rng) - 0.5f) * (float)(1 << (t % 20));
        y[t] = (test_rng_uniform(&rng) - 0.5f) / (float)(1 << (t % 13));
        z[t] = (test_rng_uniform(&rng) - 0.5f) * (float)(1 << (t % 7));
    }
    /* every length up to past four times the 16 lanes, then longer ones; unaligned starts */
    for (int off = 0; off < 3; off++) {
        const float *xs = x + off, *ys = y + (off == 2 ? 3 : off);
        for (int64_t k = 0; k <= 301; k += (k < 70 ? 1 : 17)) {
            const double want = approx_dot_scalar(xs, ys, k);
            double exact = 0.0; /* within float rounding of the plain sum */
            for (int64_t t = 0; t < k; t++)
                exact += (double)xs[t] * (double)ys[t];
            ck_assert(fabs(want - exact) <= 1e-12 * (1.0 + fabs(exact)) * 1e3);
            /* a group: four vectors (two alike, one y itself) against y */
            const float *group[APPROX_DOT_GROUP] = { xs, z + off, ys, xs };
            double group_want[APPROX_DOT_GROUP];
            for (int g = 0; g < APPROX_DOT_GROUP; g++)
                group_want[g] = approx_dot_scalar(group[g], ys, k);
            for (int i = 0; i < count; i++) {
                const approx_dot_kernels *row = approx_dot_kernels_for(isas[i]);
                const double got = row->dot(xs, ys, k);
                ck_assert_msg(memcmp(&got, &want, sizeof got) == 0, "%s (%s) k %lld off %d: %.17g vs %.17g",
                              smm_isa_name(isas[i]), row->head.name, (long long)k, off, got, want);
                double group_got[APPROX_DOT_GROUP];
                row->group(group, ys, k, group_got);
                for (int g = 0; g < APPROX_DOT_GROUP; g++)
                    ck_assert_msg(memcmp(&group_got[g], &group_want[g], sizeof(double)) == 0,
                                  "%s group %d k %lld off %d: %.17g vs %.17g", smm_isa_name(isas[i]), g, (long long)k,
                                  off, group_got[g], group_want[g]);
            }
        }
    }
    /* the rows: scalar everywhere a path has no kernel of its own */
    ck_assert(approx_dot_kernels_for(SMM_ISA_SCALAR)->dot == approx_dot_scalar);
    ck_assert(approx_dot_kernels_for(SMM_ISA_SCALAR)->group == approx_dot_group_scalar);
    ck_assert(approx_dot_kernels_for(SMM_ISA_NEON)->group == approx_dot_group_scalar);
    ck_assert_str_eq(approx_dot_kernels_for(SMM_ISA_SCALAR)->head.name, "scalar");
    ck_assert(approx_dot_kernels_for(SMM_ISA_AUTO)->dot == approx_dot_scalar);
    ck_assert(approx_dot_kernels_for(SMM_ISA_NEON)->dot == approx_dot_scalar);
#if defined(__x86_64__)
    if (smm_isa_supported(SMM_ISA_AVX2))
        ck_assert(approx_dot_kernels_for(SMM_ISA_AVX2)->dot == approx_dot_avx2 &&
                  approx_dot_kernels_for(SMM_ISA_AVX2)->group == approx_dot_group_avx2);
    if (smm_isa_supported(SMM_ISA_AVX512))
        ck_assert(approx_dot_kernels_for(SMM_ISA_AVX512)->dot == approx_dot_avx512 &&
                  approx_dot_kernels_for(SMM_ISA_AVX512)->group == approx_dot_group_avx512);
#endif
}
END_TEST

START_TEST(streaming_selection_equals_full_sort)
{
    const int64_t n = 5000;
    float *score = malloc(sizeof(float) * n);
    scored_index *all = malloc(sizeof(scored_index) * n);
    uint64_t rng = 8;
    const int64_t rs[] = { 1, 2, 7, 64, 100, 4999, 5000, 6000 };
    const int64_t blocks[] = { 333, 64, 5000 }; /* blocks that do not divide the step, vector multiples, one */
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int pattern = 0; pattern < 4; pattern++) {
        for (int64_t j = 0; j < n; j++) /* random, many ties, increasing (every score enters), decreasing */
            score[j] = pattern == 0   ? test_rng_uniform(&rng)
                       : pattern == 1 ? (float)(j % 17)
                       : pattern == 2 ? (float)j
                                      : (float)(n - j);
        for (int64_t j = 0; j < n; j++)
            all[j] = (scored_index){ score[j], j };
        scored_sort(all, n);
        for (int q = 0; q < nisa; q++)
            for (size_t bi = 0; bi < sizeof blocks / sizeof blocks[0]; bi++)
                for (size_t ri = 0; ri < sizeof rs / sizeof rs[0]; ri++) {
                    const int64_t r = rs[ri], block = blocks[bi];
                    scored_index *buf = malloc(sizeof(scored_index) * (size_t)top_select_capacity(r));
                    top_select sel;
                    top_select_init(&sel, buf, r, isas[q]);
                    for (int64_t j0 = 0; j0 < n; j0 += block)
                        top_select_feed(&sel, score + j0, j0, n - j0 < block ? n - j0 : block);
                    const int sorted = bi != 1; /* unsorted: the same set, in increasing column */
                    const int64_t got = top_select_finish(&sel, sorted);
                    ck_assert_int_eq(got, r < n ? r : n);
                    if (!sorted) {
                        for (int64_t t = 1; t < got; t++)
                            ck_assert(buf[t - 1].index < buf[t].index);
                        scored_sort(buf, got);
                    }
                    for (int64_t t = 0; t < got; t++)
                        ck_assert_msg(buf[t].index == all[t].index && buf[t].score == all[t].score,
                                      "%s pattern %d block %lld r %lld rank %lld: %lld vs %lld",
                                      smm_isa_name(isas[q]), pattern, (long long)block, (long long)r, (long long)t,
                                      (long long)buf[t].index, (long long)all[t].index);
                    free(buf);
                }
    }
    for (int64_t t = 1; t < n; t++) /* the order: larger score first, then smaller index */
        ck_assert(all[t - 1].score > all[t].score ||
                  (all[t - 1].score == all[t].score && all[t - 1].index < all[t].index));
    free(score), free(all);
}
END_TEST

/*
 * top_select_take (the fused kernels' way in): after a first block fed as
 * usual, groups of up to 32 scores whose set bits are those above the
 * threshold give the best r of the whole row, as a full sort does; with
 * r = 1 and increasing scores every score is taken and the room runs out
 * inside a group (cuts between its bits).
 */
START_TEST(taken_hits_equal_full_sort)
{
    const int64_t n = 3000, first = 200;
    float *score = malloc(sizeof(float) * n);
    scored_index *all = malloc(sizeof(scored_index) * n);
    uint64_t rng = 12;
    const int64_t rs[] = { 1, 3, 50, 200 };
    const int64_t widths[] = { 32, 7 };
    for (int pattern = 0; pattern < 4; pattern++) {
        for (int64_t j = 0; j < n; j++) /* random, many ties, increasing, decreasing */
            score[j] = pattern == 0   ? test_rng_uniform(&rng)
                       : pattern == 1 ? (float)(j % 13)
                       : pattern == 2 ? (float)j
                                      : (float)(n - j);
        for (int64_t j = 0; j < n; j++)
            all[j] = (scored_index){ score[j], j };
        scored_sort(all, n);
        for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++)
            for (size_t ri = 0; ri < sizeof rs / sizeof rs[0]; ri++) {
                const int64_t r = rs[ri], width = widths[wi];
                scored_index *buf = malloc(sizeof(scored_index) * (size_t)top_select_capacity(r));
                top_select sel;
                top_select_init(&sel, buf, r, SMM_ISA_SCALAR);
                top_select_feed(&sel, score, 0, first);
                ck_assert(sel.full);
                for (int64_t j0 = first; j0 < n; j0 += width) {
                    const int64_t len = n - j0 < width ? n - j0 : width;
                    uint32_t bits = 0;
                    for (int64_t u = 0; u < len; u++)
                        bits |= (uint32_t)(score[j0 + u] > sel.threshold) << u;
                    top_select_take(&sel, score + j0, bits, j0);
                    ck_assert(sel.kept <= sel.room);
                }
                const int64_t got = top_select_finish(&sel, 1);
                ck_assert_int_eq(got, r);
                for (int64_t t = 0; t < got; t++)
                    ck_assert_msg(buf[t].index == all[t].index && buf[t].score == all[t].score,
                                  "pattern %d width %lld r %lld rank %lld: %lld vs %lld", pattern, (long long)width,
                                  (long long)r, (long long)t, (long long)buf[t].index, (long long)all[t].index);
                free(buf);
            }
    }
    free(score), free(all);
}
END_TEST

/*
 * The selection's collect kernels of every path give the scalar twin's answer: lengths around the vector widths,
 * passing scores anywhere, room for a few steps or none, and nothing written outside the room.
 */
START_TEST(select_collect_kernels_match_scalar)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    const int64_t max_len = 150, max_room = 4 * TOP_SELECT_STEP + 3;
    uint64_t rng = 17;
    float *want_s = malloc(sizeof(float) * (size_t)(max_room + 8)), *got_s = malloc(sizeof(float) * (size_t)(max_room + 8));
    int64_t *want_i = malloc(sizeof(int64_t) * (size_t)(max_room + 8)),
            *got_i = malloc(sizeof(int64_t) * (size_t)(max_room + 8));
    for (int64_t len = 0; len <= max_len; len++) {
        /* exactly len floats: a kernel reading past the range fails under the sanitizers */
        float *s = malloc(sizeof(float) * (size_t)(len > 0 ? len : 1));
        for (int pattern = 0; pattern < 4; pattern++) {
            for (int64_t t = 0; t < len; t++) { /* none, sparse, dense, all passing the threshold 0.5 */
                const float u = test_rng_uniform(&rng);
                s[t] = pattern == 0 ? u * 0.5f - 1.0f
                       : pattern == 1 ? (test_rng_next(&rng) % 23 == 0 ? 1.0f + u : -u)
                       : pattern == 2 ? u
                                      : 2.0f + u;
            }
            const int64_t rooms[] = { 0, TOP_SELECT_STEP - 1, TOP_SELECT_STEP, TOP_SELECT_STEP + 5, 3 * TOP_SELECT_STEP,
                                      max_room };
            for (size_t ri = 0; ri < sizeof rooms / sizeof rooms[0]; ri++) {
                const int64_t room = rooms[ri], j0 = 1000 + len;
                for (int64_t t = 0; t < max_room + 8; t++) {
                    want_s[t] = got_s[t] = -7.0f;
                    want_i[t] = got_i[t] = -7;
                }
                int64_t want_w = -1;
                const int64_t want = top_select_collect_scalar(s, len, 0.5f, j0, want_s, want_i, room, &want_w);
                /* the definition: whole steps while a step fits, the passing scores in order */
                int64_t t = 0, w = 0;
                while (t < len && room - w >= TOP_SELECT_STEP) {
                    const int64_t end = len - t < TOP_SELECT_STEP ? len : t + TOP_SELECT_STEP;
                    for (; t < end; t++)
                        if (s[t] > 0.5f) {
                            ck_assert(want_s[w] == s[t] && want_i[w] == j0 + t);
                            w++;
                        }
                }
                ck_assert_int_eq(want, t);
                ck_assert_int_eq(want_w, w);
                for (int q = 0; q < nisa; q++) {
                    const top_select_kernels *row = top_select_kernels_for(isas[q]);
                    for (int64_t u = 0; u < max_room + 8; u++) {
                        got_s[u] = -7.0f;
                        got_i[u] = -7;
                    }
                    int64_t got_w = -1;
                    const int64_t got = row->collect(s, len, 0.5f, j0, got_s, got_i, room, &got_w);
                    ck_assert_msg(got == want && got_w == want_w &&
                                      memcmp(got_s, want_s, sizeof(float) * (size_t)want_w) == 0 &&
                                      memcmp(got_i, want_i, sizeof(int64_t) * (size_t)want_w) == 0,
                                  "%s len %lld pattern %d room %lld", row->head.name, (long long)len, pattern,
                                  (long long)room);
                    for (int64_t u = room; u < max_room + 8; u++) /* nothing written past the room */
                        ck_assert(got_s[u] == -7.0f && got_i[u] == -7);
                }
            }
        }
        free(s);
    }
    free(want_s), free(got_s), free(want_i), free(got_i);
    ck_assert(top_select_kernels_for(SMM_ISA_SCALAR)->collect == top_select_collect_scalar);
    ck_assert(top_select_kernels_for(SMM_ISA_AUTO)->collect == top_select_collect_scalar);
#if defined(__x86_64__)
    if (smm_isa_supported(SMM_ISA_AVX2))
        ck_assert(top_select_kernels_for(SMM_ISA_AVX2)->collect == top_select_collect_avx2);
    if (smm_isa_supported(SMM_ISA_AVX512))
        ck_assert(top_select_kernels_for(SMM_ISA_AVX512)->collect == top_select_collect_avx512);
#endif
#if defined(__aarch64__)
    ck_assert(top_select_kernels_for(SMM_ISA_NEON)->collect == top_select_collect_neon);
#endif
}
END_TEST

/*
 * The score stream's tasks (topk_stream.h): few rows against many columns split the columns among the threads and
 * merge; many rows do not. Either way exact_topk returns, for every thread count, the top-k of exact_sgemm's own full
 * product (the same rounding: the inner dimension is under exact_sgemm's kc), and the classical methods' top-k is the
 * same for every thread count.
 */
START_TEST(stream_splits_give_the_full_product_top_k)
{
    const int64_t n = 9000, k = 20, topk = 7;
    const int64_t ms[] = { 1, 3, 70, 200 };
    float *A = malloc(sizeof(float) * 200 * k), *Bt = malloc(sizeof(float) * n * k), *C = malloc(sizeof(float) * 200 * n);
    int64_t *idx = malloc(sizeof(int64_t) * 200 * topk), *ref_idx = malloc(sizeof(int64_t) * 200 * topk);
    float *val = malloc(sizeof(float) * 200 * topk), *ref_val = malloc(sizeof(float) * 200 * topk);
    scored_index *row = malloc(sizeof(scored_index) * n);
    ck_assert(A && Bt && C && idx && ref_idx && val && ref_val && row);
    uint64_t rng = 21;
    test_fill_uniform(A, 200 * k, &rng);
    test_fill_uniform(Bt, n * k, &rng);
    for (int64_t j = 0; j < n; j += 97) /* ties: repeated columns */
        memcpy(Bt + ((j * 7) % n) * k, Bt + j * k, sizeof(float) * k);
    for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++) {
        const int64_t m = ms[mi];
        ck_assert_int_eq(smm_set_num_threads(1), SMM_OK);
        ck_assert_int_eq(exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, n, k, 1.0f, A, k, Bt, k, 0.0f, C, n),
                         SMM_OK);
        for (int64_t i = 0; i < m; i++) {
            for (int64_t j = 0; j < n; j++)
                row[j] = (scored_index){ C[i * n + j], j };
            scored_first(row, n, topk);
            for (int64_t t = 0; t < topk; t++) {
                ref_idx[i * topk + t] = row[t].index;
                ref_val[i * topk + t] = row[t].score;
            }
        }
        for (int threads = 1; threads <= 3; threads++) {
            ck_assert_int_eq(smm_set_num_threads(threads), SMM_OK);
            ck_assert_int_eq(
                exact_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, n, k, A, k, Bt, k, topk, idx, val, topk), SMM_OK);
            ck_assert_msg(memcmp(idx, ref_idx, sizeof(int64_t) * (size_t)(m * topk)) == 0 &&
                              memcmp(val, ref_val, sizeof(float) * (size_t)(m * topk)) == 0,
                          "exact_topk m %lld threads %d", (long long)m, threads);
        }
        /* a classical method: the same candidates and result for every thread count */
        approx_options o = options_for(SKETCH_GAUSSIAN_PROJECTION);
        o.size = 16;
        o.candidates = 50;
        for (int threads = 1; threads <= 3; threads++) {
            o.num_threads = threads;
            ck_assert_int_eq(approx_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, n, k, A, k, Bt, k, topk, idx, val,
                                         topk, &o, NULL),
                             SMM_OK);
            if (threads == 1) {
                memcpy(ref_idx, idx, sizeof(int64_t) * (size_t)(m * topk));
                memcpy(ref_val, val, sizeof(float) * (size_t)(m * topk));
            } else {
                ck_assert_msg(memcmp(idx, ref_idx, sizeof(int64_t) * (size_t)(m * topk)) == 0 &&
                                  memcmp(val, ref_val, sizeof(float) * (size_t)(m * topk)) == 0,
                              "gaussian projection m %lld threads %d", (long long)m, threads);
            }
        }
    }
    test_restore_defaults();
    free(A), free(Bt), free(C), free(idx), free(ref_idx), free(val), free(ref_val), free(row);
}
END_TEST

/*
 * Search parameters per call: one plan searched with candidates c gives exactly the result of a plan made
 * with candidates c (the sketch does not depend on them), for every method; a plan that borrows op(B)
 * gives the results of one that copies it, and refuses a C over the borrowed op(B).
 */
START_TEST(candidates_per_call_and_borrowed_b)
{
    const int64_t m = 37, n = 700, k = 24, topk = 5;
    float *A = malloc(sizeof(float) * m * k), *Bt = malloc(sizeof(float) * n * k);
    float *C1 = malloc(sizeof(float) * m * n), *C2 = malloc(sizeof(float) * m * n);
    int64_t idx1[37 * 5], idx2[37 * 5];
    float val1[37 * 5], val2[37 * 5];
    fill_clustered(A, m, k, 5, 0.4f, 11);
    fill_clustered(Bt, n, k, 5, 0.4f, 12);
    float *B = malloc(sizeof(float) * k * n); /* Bt^T: the same vectors as columns */
    for (int64_t j = 0; j < n; j++)
        for (int64_t t = 0; t < k; t++)
            B[t * n + j] = Bt[j * k + t];
    for (int method = SKETCH_SIMHASH; method <= SKETCH_MADDNESS; method++) {
        approx_options o = options_for((sketch_method)method);
        o.size = sketch_method_uses_bits(o.method) ? 128 : 8;
        approx_plan *plan = NULL, *fixed = NULL, *borrowing = NULL;
        ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_TRANS, k, n, Bt, k, &o, NULL, &plan), SMM_OK);
        const int32_t cands[] = { 5, 23, 150, 700 };
        for (int c = 0; c < 4; c++) {
            approx_call call = APPROX_CALL_INIT;
            call.candidates = cands[c];
            ck_assert_int_eq(approx_plan_topk(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, A, k, topk, idx1, val1, topk,
                                              &call),
                             SMM_OK);
            approx_options oc = o;
            oc.candidates = cands[c];
            ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_TRANS, k, n, Bt, k, &oc, NULL, &fixed), SMM_OK);
            ck_assert_int_eq(approx_plan_topk(fixed, SMM_ROW_MAJOR, SMM_NO_TRANS, m, A, k, topk, idx2, val2, topk,
                                              NULL),
                             SMM_OK);
            approx_plan_free(fixed);
            ck_assert_msg(memcmp(idx1, idx2, sizeof idx1) == 0 && memcmp(val1, val2, sizeof val1) == 0,
                          "%s: candidates %d per call differ from a plan made with them",
                          sketch_method_name(o.method), (int)cands[c]);
        }
        approx_call bad = APPROX_CALL_INIT;
        bad.candidates = (int32_t)topk - 1; /* below topk */
        ck_assert_int_eq(approx_plan_topk(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, A, k, topk, idx1, val1, topk, &bad),
                         SMM_ERR_BAD_ARGUMENT);
        /* borrowing op(B): the same products and searches */
        approx_options ob = o;
        ob.flags = APPROX_BORROW_B;
        ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_TRANS, k, n, Bt, k, &ob, NULL, &borrowing), SMM_OK);
        ck_assert_int_eq(approx_plan_multiply(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, 1.0f, A, k, 0.0f, C1, n, NULL),
                         SMM_OK);
        ck_assert_int_eq(
            approx_plan_multiply(borrowing, SMM_ROW_MAJOR, SMM_NO_TRANS, m, 1.0f, A, k, 0.0f, C2, n, NULL), SMM_OK);
        ck_assert_msg(memcmp(C1, C2, sizeof(float) * m * n) == 0, "%s: a borrowing plan's product differs",
                      sketch_method_name(o.method));
        ck_assert_int_eq(approx_plan_topk(borrowing, SMM_ROW_MAJOR, SMM_NO_TRANS, m, A, k, topk, idx2, val2, topk,
                                          NULL),
                         SMM_OK);
        ck_assert_int_eq(approx_plan_topk(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, A, k, topk, idx1, val1, topk, NULL),
                         SMM_OK);
        ck_assert(memcmp(idx1, idx2, sizeof idx1) == 0 && memcmp(val1, val2, sizeof val1) == 0);
        /* borrowing a B whose vectors (columns) are strided: the same product again */
        approx_plan *strided = NULL;
        ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, k, n, B, n, &ob, NULL, &strided), SMM_OK);
        ck_assert_int_eq(
            approx_plan_multiply(strided, SMM_ROW_MAJOR, SMM_NO_TRANS, m, 1.0f, A, k, 0.0f, C2, n, NULL), SMM_OK);
        ck_assert_msg(memcmp(C1, C2, sizeof(float) * m * n) == 0,
                      "%s: a plan borrowing strided vectors gives another product", sketch_method_name(o.method));
        approx_plan_free(strided);
        /* a C lying over the borrowed op(B) is refused, nothing written */
        ck_assert_int_eq(approx_plan_multiply(borrowing, SMM_ROW_MAJOR, SMM_NO_TRANS, 1, 1.0f, A, k, 0.0f, Bt, n,
                                              NULL),
                         SMM_ERR_BAD_ARGUMENT);
        approx_options info;
        approx_options_init(&info);
        ck_assert_int_eq(approx_plan_info(borrowing, NULL, NULL, &info), SMM_OK);
        ck_assert(info.flags == APPROX_BORROW_B && info.size == o.size);
        approx_plan_free(borrowing);
        approx_plan_free(plan);
    }
    free(A), free(B), free(Bt), free(C1), free(C2);
}
END_TEST

START_TEST(phase_times_of_each_call)
{
    const int64_t m = 300, n = 2000, k = 64;
    float *A = malloc(sizeof(float) * m * k), *Bt = malloc(sizeof(float) * n * k), *C = malloc(sizeof(float) * m * n);
    int64_t *idx = malloc(sizeof(int64_t) * m * 10);
    float *val = malloc(sizeof(float) * m * 10);
    uint64_t rng = 4;
    test_fill_uniform(A, m * k, &rng);
    test_fill_uniform(Bt, n * k, &rng);
    approx_phase_times t;
    approx_call call = APPROX_CALL_INIT;
    call.times = &t;
    for (int mi = 0; mi < NUM_METHODS; mi++) {
        const approx_options o = options_for(all_methods[mi]);
        ck_assert_int_eq(
            approx_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, n, k, A, k, Bt, k, 10, idx, val, 10, &o, &call),
            SMM_OK);
        ck_assert_msg(t.encode_b > 0 && t.encode_a > 0 && t.estimate > 0 && t.refine > 0, "%s: %g %g %g %g",
                      sketch_method_name(o.method), t.encode_b, t.encode_a, t.estimate, t.refine);
        approx_plan *plan;
        ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_TRANS, k, n, Bt, k, &o, &call, &plan), SMM_OK);
        ck_assert(t.encode_b > 0 && t.encode_a == 0 && t.estimate == 0 && t.refine == 0);
        ck_assert_int_eq(approx_plan_multiply(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, 1.0f, A, k, 0.0f, C, n, &call),
                         SMM_OK);
        ck_assert(t.encode_b == 0 && t.encode_a > 0 && t.estimate > 0 && t.refine == 0);
        approx_plan_free(plan);
    }
    /* a call that fails its checks reports no phase */
    ck_assert_int_eq(
        approx_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, n, k, A, k, Bt, k, 0, idx, val, 10, NULL, &call),
        SMM_ERR_BAD_ARGUMENT);
    ck_assert(t.encode_b == 0 && t.encode_a == 0 && t.estimate == 0 && t.refine == 0);
    /* a call struct of a size this library does not know is refused */
    call.struct_size = 3;
    ck_assert_int_eq(
        approx_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, n, k, A, k, Bt, k, 10, idx, val, 10, NULL, &call),
        SMM_ERR_BAD_ARGUMENT);
    free(A), free(Bt), free(C), free(idx), free(val);
}
END_TEST

/*
 * exact_topk checks its inputs as the approximate calls do: NaN or Inf
 * anywhere in A or B gives SMM_ERR_NON_FINITE with the outputs untouched,
 * in every layout and transpose, on every ISA path; approx_topk agrees.
 */
START_TEST(exact_topk_rejects_non_finite_input)
{
    const int64_t m = 5, n = 9, k = 7, topk = 3, ldk = 4;
    float A[5 * 7], B[7 * 9];
    uint64_t rng = 21;
    test_fill_uniform(A, m * k, &rng);
    test_fill_uniform(B, k * n, &rng);
    int64_t idx[5 * 4];
    float val[5 * 4];
    const float bad_values[] = { NAN, INFINITY, -INFINITY };
    smm_isa isas[4];
    const int count = test_supported_isas(isas);
    for (int ii = 0; ii < count; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        for (int layout_i = 0; layout_i < 2; layout_i++)
            for (int trans_i = 0; trans_i < 4; trans_i++) {
                const smm_layout layout = layout_i ? SMM_COL_MAJOR : SMM_ROW_MAJOR;
                const smm_trans ta = trans_i & 1 ? SMM_TRANS : SMM_NO_TRANS;
                const smm_trans tb = trans_i & 2 ? SMM_TRANS : SMM_NO_TRANS;
                /* the tightest leading dimensions of the stored A (m x k or k x m) and B (k x n or n x k) */
                const int64_t lda = (ta == SMM_NO_TRANS) == (layout == SMM_ROW_MAJOR) ? k : m;
                const int64_t ldb = (tb == SMM_NO_TRANS) == (layout == SMM_ROW_MAJOR) ? n : k;
                /* finite input: SMM_OK */
                ck_assert_int_eq(exact_topk(layout, ta, tb, m, n, k, A, lda, B, ldb, topk, idx, val, ldk), SMM_OK);
                for (int side = 0; side < 2; side++)
                    for (int bi = 0; bi < 3; bi++)
                        for (int where = 0; where < 3; where++) { /* first, middle and last element */
                            float *X = side ? B : A;
                            const int64_t size = side ? k * n : m * k;
                            const int64_t e = where == 0 ? 0 : where == 1 ? size / 2 : size - 1;
                            const float saved = X[e];
                            X[e] = bad_values[bi];
                            for (int t = 0; t < 5 * 4; t++) {
                                idx[t] = -9;
                                val[t] = 7.0f;
                            }
                            const smm_status s =
                                exact_topk(layout, ta, tb, m, n, k, A, lda, B, ldb, topk, idx, val, ldk);
                            ck_assert_msg(s == SMM_ERR_NON_FINITE,
                                          "isa %s layout %d trans %d: %g in %s[%lld] gives status %d (%s)",
                                          smm_isa_name(isas[ii]), layout_i, trans_i, (double)bad_values[bi],
                                          side ? "B" : "A", (long long)e, (int)s, smm_status_str(s));
                            for (int t = 0; t < 5 * 4; t++)
                                ck_assert_msg(idx[t] == -9 && val[t] == 7.0f, "an output was written (entry %d)", t);
                            /* the approximate top-k gives the same status */
                            ck_assert_int_eq(approx_topk(layout, ta, tb, m, n, k, A, lda, B, ldb, topk, idx, val, ldk,
                                                         NULL, NULL),
                                             SMM_ERR_NON_FINITE);
                            X[e] = saved;
                        }
            }
    }
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
    /* m == 0: nothing to do, nothing read from A */
    ck_assert_int_eq(exact_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 0, n, k, NULL, k, B, n, topk, NULL, NULL,
                                ldk),
                     SMM_OK);
}
END_TEST

/*
 * A zero dimension where the call needs at least 1 (approx_plan_create's k
 * and n, the top-k calls' k and n) is SMM_ERR_BAD_SIZE, and the status text
 * says that zero can be the reason; an option out of its range (topk,
 * candidates, sketch_dim) is SMM_ERR_BAD_ARGUMENT.
 */
START_TEST(zero_dimensions_are_bad_size)
{
    float A[6] = { 1, 2, 3, 4, 5, 6 }, B[6] = { 1, 0, 0, 1, 1, 1 };
    int64_t idx[4] = { -9, -9, -9, -9 };
    float val[4] = { 7, 7, 7, 7 };
    approx_plan *plan = NULL;
    smm_status s[6];
    s[0] = approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, 0, 2, B, 2, NULL, NULL, &plan);
    s[1] = approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, 3, 0, B, 2, NULL, NULL, &plan);
    s[2] = approx_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 0, A, 1, B, 2, 1, idx, val, 2, NULL, NULL);
    s[3] = approx_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 0, 3, A, 3, B, 1, 1, idx, val, 2, NULL, NULL);
    s[4] = exact_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 0, A, 1, B, 2, 1, idx, val, 2);
    s[5] = exact_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 0, 3, A, 3, B, 1, 1, idx, val, 2);
    for (int i = 0; i < 6; i++) {
        ck_assert_msg(s[i] == SMM_ERR_BAD_SIZE, "call %d: status %d", i, (int)s[i]);
        ck_assert_msg(strstr(smm_status_str(s[i]), "zero") != NULL, "call %d: \"%s\" does not cover a zero size", i,
                      smm_status_str(s[i]));
    }
    ck_assert_ptr_null(plan);
    for (int i = 0; i < 4; i++)
        ck_assert(idx[i] == -9 && val[i] == 7.0f);
    approx_options o = APPROX_OPTIONS_INIT;
    ck_assert_int_eq(approx_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 3, A, 3, B, 2, 0, idx, val, 2, &o, NULL),
                     SMM_ERR_BAD_ARGUMENT);
    o.method = SKETCH_COUNTSKETCH;
    o.size = -1;
    ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, 3, 2, B, 2, &o, NULL, &plan), SMM_ERR_BAD_ARGUMENT);
    ck_assert_ptr_null(plan);
}
END_TEST

/*
 * The top-k outputs must not overlap the inputs nor each other: the memory
 * spans (first to last element addressed) are compared and an overlap is
 * SMM_ERR_BAD_ARGUMENT with nothing written; buffers that touch without
 * overlapping are fine and give the result of separate buffers.
 */
START_TEST(topk_outputs_must_not_overlap_inputs)
{
    const int64_t m = 2, n = 3, k = 4, topk = 2, ldk = 2;
    /*
     * one arena of 16 words: A (m x k floats = 4 words), idx (m x ldk = 4 words), val (m x ldk floats = 2 words),
     * B (n x k floats = 6 words)
     */
    int64_t *arena = malloc(sizeof(int64_t) * 16), *saved = malloc(sizeof(int64_t) * 16);
    float *A = (float *)arena, *B = (float *)(arena + 10);
    int64_t *idx = arena + 4;
    float *val = (float *)(arena + 8);
    uint64_t rng = 5;
    test_fill_uniform(A, m * k, &rng);
    test_fill_uniform(B, n * k, &rng);
    /* the reference: separate buffers */
    float As[8], Bs[12];
    memcpy(As, A, sizeof As);
    memcpy(Bs, B, sizeof Bs);
    int64_t ref_idx[3][4];
    float ref_val[3][4];
    approx_options o = APPROX_OPTIONS_INIT;
    o.method = SKETCH_GAUSSIAN_PROJECTION;
    o.size = 4;
    o.candidates = 3;
    approx_plan *plan;
    ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_TRANS, k, n, Bs, k, &o, NULL, &plan), SMM_OK);
    ck_assert_int_eq(exact_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, n, k, As, k, Bs, k, topk, ref_idx[0],
                                ref_val[0], ldk),
                     SMM_OK);
    ck_assert_int_eq(approx_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, n, k, As, k, Bs, k, topk, ref_idx[1],
                                 ref_val[1], ldk, &o, NULL),
                     SMM_OK);
    ck_assert_int_eq(approx_plan_topk(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, As, k, topk, ref_idx[2], ref_val[2], ldk, NULL),
                     SMM_OK);
    /* adjacent buffers (A | idx | val | B, each touching the next): accepted, same results */
    for (int call = 0; call < 3; call++) {
        memset(idx, 0, sizeof(int64_t) * 4);
        memset(val, 0, sizeof(float) * 4);
        const smm_status s =
            call == 0   ? exact_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, n, k, A, k, B, k, topk, idx, val, ldk)
            : call == 1 ? approx_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, n, k, A, k, B, k, topk, idx, val, ldk,
                                      &o, NULL)
                        : approx_plan_topk(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, A, k, topk, idx, val, ldk, NULL);
        ck_assert_msg(s == SMM_OK, "call %d on adjacent buffers: status %d", call, (int)s);
        ck_assert(memcmp(idx, ref_idx[call], sizeof(int64_t) * 4) == 0);
        ck_assert(memcmp(val, ref_val[call], sizeof(float) * 4) == 0);
        ck_assert(memcmp(A, As, sizeof As) == 0 && memcmp(B, Bs, sizeof Bs) == 0);
    }
    /* overlaps, each by a single element at the edge of a span */
    struct {
        const char *what;
        int64_t *idx;
        float *val;
    } cases[] = {
        { "idx over the end of A", arena + 3, val },
        { "val over the end of idx", idx, (float *)(arena + 7) + 1 },
        { "val over the start of B", idx, (float *)(arena + 8) + 1 },
        { "idx over the start of B", arena + 7, (float *)(arena + 4) },
        { "idx == val", idx, (float *)idx },
        { "val inside A", arena + 4, (float *)arena + 3 },
    };
    memcpy(saved, arena, sizeof(int64_t) * 16);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int call = 0; call < 3; call++) {
            /* the plan has its own copy of B: for approx_plan_topk only overlaps with A or between the outputs count */
            if (call == 2 && (c == 2 || c == 3))
                continue;
            const smm_status s =
                call == 0 ? exact_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, n, k, A, k, B, k, topk, cases[c].idx,
                                       cases[c].val, ldk)
                : call == 1
                    ? approx_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, n, k, A, k, B, k, topk, cases[c].idx,
                                  cases[c].val, ldk, &o, NULL)
                    : approx_plan_topk(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, A, k, topk, cases[c].idx, cases[c].val,
                                       ldk, NULL);
            ck_assert_msg(s == SMM_ERR_BAD_ARGUMENT, "%s, call %d: status %d (%s)", cases[c].what, call, (int)s,
                          smm_status_str(s));
            ck_assert_msg(memcmp(saved, arena, sizeof(int64_t) * 16) == 0, "%s, call %d: memory was written",
                          cases[c].what, call);
        }
    approx_plan_free(plan);
    free(arena), free(saved);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("approx_topk");
    TCase *tc = tcase_create("approx_topk");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, plan_matches_one_shot_for_every_method);
    tcase_add_test(tc, topk_is_exact_when_every_column_is_a_candidate);
    tcase_add_test(tc, recall_grows_with_candidates);
    tcase_add_test(tc, topk_reproducible_across_threads_and_isas);
    tcase_add_test(tc, bad_input_leaves_outputs_untouched);
    tcase_add_test(tc, dot_kernels_match_scalar);
    tcase_add_test(tc, phase_times_of_each_call);
    tcase_add_test(tc, candidates_per_call_and_borrowed_b);
    tcase_add_test(tc, streaming_selection_equals_full_sort);
    tcase_add_test(tc, taken_hits_equal_full_sort);
    tcase_add_test(tc, select_collect_kernels_match_scalar);
    tcase_add_test(tc, stream_splits_give_the_full_product_top_k);
    tcase_add_test(tc, exact_topk_rejects_non_finite_input);
    tcase_add_test(tc, zero_dimensions_are_bad_size);
    tcase_add_test(tc, topk_outputs_must_not_overlap_inputs);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
