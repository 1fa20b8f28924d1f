/*
 * test_approx_maddness.c - SKETCH_MADDNESS (approx.h) through the public
 * API: near-exact estimates on data that 4-level trees separate perfectly;
 * the estimate's error falls as C grows on aligned data; results
 * bit-identical for every thread count and layout (and across ISA paths
 * within the tables' SGEMM rounding); a plan multiplied and searched from
 * several threads at once gives the reference results; top-k exact with all
 * candidates; the estimate blocks of top-k, starting anywhere, equal to the
 * product's entries; and bad input (C = 0, > k or > 256, fewer than 16 columns,
 * NaN or Inf) with status and outputs untouched. The trees, prototypes,
 * codes and tables themselves are tested in test_maddness.c.
 */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "approx/approx_plan.h"
#include "test_util.h"

static approx_options md_options(int32_t C, int32_t threads)
{
    approx_options o = APPROX_OPTIONS_INIT;
    o.method = SKETCH_MADDNESS;
    o.size = C;
    o.num_threads = threads;
    return o;
}

static smm_status md_product(int64_t m, int64_t n, int64_t k, const float *A, const float *B,
                             const approx_options *o, float *C)
{
    return approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1.0f, A, k, B, n, 0.0f, C, n, o, NULL);
}

/* Row-major rows x k -> its transpose (k x rows). */
static float *transposed(const float *X, int64_t rows, int64_t k)
{
    float *T = malloc((size_t)(rows * k) * sizeof(float));
    for (int64_t i = 0; i < rows; i++)
        for (int64_t t = 0; t < k; t++)
            T[t * rows + i] = X[i * k + t];
    return T;
}

/*
 * Each codebook's part of a vector is one of 16 clusters (4 dimensions of
 * +-8, +-4, +-2, +-1 by the cluster's bits, 0.01 noise) plus a dimension of
 * 0.05 noise, chosen independently per codebook: the trees separate the
 * clusters exactly and sum_c P_{c,leaf} reconstructs every vector to about
 * 1%, so the estimate is near-exact (the tables' quantization and the
 * ridge's shrinkage are what remain).
 */
START_TEST(near_exact_on_separable_clusters)
{
    const int32_t Cb = 8;
    const int64_t k = 5 * Cb, m = 100, n = 2000;
    static const float s[4] = { 8.0f, 4.0f, 2.0f, 1.0f };
    float *A = malloc((size_t)(m * k) * sizeof(float)), *Bt = malloc((size_t)(n * k) * sizeof(float));
    float *C = malloc((size_t)(m * n) * sizeof(float));
    uint64_t rng = 17;
    for (int pass = 0; pass < 2; pass++) {
        float *X = pass == 0 ? A : Bt;
        const int64_t rows = pass == 0 ? m : n;
        for (int64_t i = 0; i < rows; i++)
            for (int32_t c = 0; c < Cb; c++) {
                const int q = (int)(test_rng_next(&rng) >> 60);
                float *x = X + i * k + 5 * c;
                for (int u = 0; u < 4; u++)
                    x[u] = ((q >> u) & 1 ? s[u] : -s[u]) + 0.01f * test_rng_uniform(&rng);
                x[4] = 0.05f * test_rng_uniform(&rng);
            }
    }
    float *B = transposed(Bt, n, k);
    approx_options o = md_options(Cb, 0);
    ck_assert_int_eq(md_product(m, n, k, A, B, &o, C), SMM_OK);
    const double err = test_relative_error(m, n, k, A, B, C);
    /* measured: 0.0091 */
    ck_assert_msg(err < 0.02, "separable clusters: relative error %g", err);
    free(A), free(B), free(Bt), free(C);
}
END_TEST

START_TEST(error_falls_as_c_grows)
{
    const int64_t m = 40, n = 1500, k = 64;
    float *A = malloc(m * k * sizeof *A), *Bt = malloc(n * k * sizeof *Bt), *C = malloc(m * n * sizeof *C);
    float dir[64];
    uint64_t st = 12;
    test_fill_uniform(dir, k, &st);
    test_fill_aligned(A, m, k, dir, 0.5f, &st);
    test_fill_aligned(Bt, n, k, dir, 0.5f, &st);
    float *B = transposed(Bt, n, k);
    /* measured: 0.0748, 0.0408, 0.0074 (PQ with M = C: 0.0657, 0.0389, 0.0053); C = 1, 2, 8, 32: 0.0845,
     * 0.0792, 0.0644, 0.0214 (each tree reads only 4 dimensions of its subspace: few codebooks gain little) */
    double last = INFINITY;
    const int32_t Cs[] = { 4, 16, 64 };
    for (int i = 0; i < 3; i++) {
        approx_options o = md_options(Cs[i], 0);
        ck_assert_int_eq(md_product(m, n, k, A, B, &o, C), SMM_OK);
        const double err = test_relative_error(m, n, k, A, B, C);
        ck_assert_msg(err < 0.7 * last, "C = %d: relative error %g did not fall below 0.7 x %g", Cs[i], err, last);
        last = err;
    }
    ck_assert_msg(last < 0.02, "C = 64: relative error %g", last);
    free(A), free(B), free(Bt), free(C);
}
END_TEST

START_TEST(bit_identical_for_every_thread_count_and_layout)
{
    const int64_t m = 37, n = 333, k = 50;
    float *A = malloc(m * k * sizeof *A), *B = malloc(k * n * sizeof *B), *Bt = malloc(k * n * sizeof *Bt);
    float *At = malloc(m * k * sizeof *At), *Ccm = malloc(m * n * sizeof *Ccm);
    float *ref = malloc(m * n * sizeof *ref), *C = malloc(m * n * sizeof *C), *scalar = malloc(m * n * sizeof *C);
    uint64_t st = 3;
    test_fill_uniform(A, m * k, &st);
    test_fill_uniform(B, k * n, &st);
    for (int64_t t = 0; t < k; t++)
        for (int64_t j = 0; j < n; j++)
            Bt[j * k + t] = B[t * n + j];
    for (int64_t i = 0; i < m; i++)
        for (int64_t t = 0; t < k; t++)
            At[t * m + i] = A[i * k + t];
    approx_options o = md_options(7, 1); /* 50 = 7 x 7 + 1: the first subspace one longer */
    smm_isa isas[4];
    const int count = test_supported_isas(isas);
    double cmax = 0.0;
    for (int i = 0; i < count; i++) {
        ck_assert_int_eq(smm_set_isa(isas[i]), SMM_OK);
        o.num_threads = 1;
        ck_assert_int_eq(md_product(m, n, k, A, B, &o, ref), SMM_OK);
        if (i == 0) {
            memcpy(scalar, ref, (size_t)(m * n) * sizeof *C);
            for (int64_t e = 0; e < m * n; e++)
                cmax = fabs(ref[e]) > cmax ? fabs(ref[e]) : cmax;
        } else {
            /* the tables' SGEMM may round differently on this path: a byte now and then one step off */
            double worst = 0.0;
            for (int64_t e = 0; e < m * n; e++)
                worst = fabs(ref[e] - scalar[e]) > worst ? fabs(ref[e] - scalar[e]) : worst;
            ck_assert_msg(worst <= 0.02 * cmax, "%s against scalar: %g of %g", smm_isa_name(isas[i]), worst, cmax);
        }
        for (int32_t threads = 1; threads <= 2; threads++) {
            o.num_threads = threads;
            memset(C, 0, (size_t)(m * n) * sizeof *C);
            ck_assert_int_eq(md_product(m, n, k, A, B, &o, C), SMM_OK);
            ck_assert_msg(memcmp(ref, C, (size_t)(m * n) * sizeof *C) == 0, "%s, %d threads",
                          smm_isa_name(isas[i]), threads);
            /* op(B) stored transposed: the same columns */
            ck_assert_int_eq(approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, n, k, 1.0f, A, k, Bt, k, 0.0f,
                                          C, n, &o, NULL),
                             SMM_OK);
            ck_assert_int_eq(memcmp(ref, C, (size_t)(m * n) * sizeof *C), 0);
            /* op(A) stored transposed (codes read with a stride) */
            ck_assert_int_eq(approx_sgemm(SMM_ROW_MAJOR, SMM_TRANS, SMM_NO_TRANS, m, n, k, 1.0f, At, m, B, n, 0.0f,
                                          C, n, &o, NULL),
                             SMM_OK);
            ck_assert_int_eq(memcmp(ref, C, (size_t)(m * n) * sizeof *C), 0);
            /* column-major storage of the same A, B and C */
            ck_assert_int_eq(approx_sgemm(SMM_COL_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1.0f, At, m, Bt, k,
                                          0.0f, Ccm, m, &o, NULL),
                             SMM_OK);
            for (int64_t r = 0; r < m; r++)
                for (int64_t c = 0; c < n; c++)
                    ck_assert(Ccm[c * m + r] == ref[r * n + c]);
        }
        /* alpha and beta: C := 2 est + 0.5 C */
        for (int64_t e = 0; e < m * n; e++)
            C[e] = 1.0f;
        o.num_threads = 2;
        ck_assert_int_eq(approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 2.0f, A, k, B, n, 0.5f, C,
                                      n, &o, NULL),
                         SMM_OK);
        for (int64_t e = 0; e < m * n; e++)
            ck_assert(C[e] == 2.0f * ref[e] + 0.5f * 1.0f);
    }
    test_restore_defaults();
    free(A), free(B), free(Bt), free(At), free(Ccm), free(ref), free(C), free(scalar);
}
END_TEST

typedef struct {
    const approx_plan *plan;
    const float *A;
    int64_t m, n, k;
    int64_t *idx;
    float *val;
    float *C;
    smm_status status, mstatus;
} plan_job;

static void *run_plan(void *arg)
{
    plan_job *j = arg;
    for (int rep = 0; rep < 3; rep++) {
        j->status = approx_plan_topk(j->plan, SMM_ROW_MAJOR, SMM_NO_TRANS, j->m, j->A, j->k, 5, j->idx, j->val, 5, NULL);
        j->mstatus = approx_plan_multiply(j->plan, SMM_ROW_MAJOR, SMM_NO_TRANS, j->m, 1.0f, j->A, j->k, 0.0f, j->C,
                                          j->n, NULL);
    }
    return NULL;
}

START_TEST(topk_exact_with_all_candidates_and_a_shared_plan)
{
    const int64_t m = 70, n = 250, k = 40, topk = 5;
    float *A = malloc(m * k * sizeof *A), *B = malloc(k * n * sizeof *B);
    int64_t *idx = malloc(2 * m * topk * sizeof *idx), *ref_idx = malloc(m * topk * sizeof *ref_idx);
    float *val = malloc(2 * m * topk * sizeof *val), *ref_val = malloc(m * topk * sizeof *ref_val);
    float *C = malloc(2 * m * n * sizeof *C), *ref_c = malloc(m * n * sizeof *ref_c);
    uint64_t st = 8;
    test_fill_uniform(A, m * k, &st);
    test_fill_uniform(B, k * n, &st);
    approx_options o = md_options(10, 2);
    o.candidates = (int32_t)n;
    approx_plan *plan = NULL;
    ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, k, n, B, n, &o, NULL, &plan), SMM_OK);
    ck_assert_int_eq(exact_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, A, k, B, n, topk, ref_idx,
                                ref_val, topk),
                     SMM_OK);
    ck_assert_int_eq(md_product(m, n, k, A, B, &o, ref_c), SMM_OK);
    plan_job jobs[2];
    pthread_t th[2];
    for (int t = 0; t < 2; t++) {
        jobs[t] = (plan_job){ plan, A, m, n, k, idx + t * m * topk, val + t * m * topk, C + t * m * n,
                              SMM_ERR_NULL_POINTER, SMM_ERR_NULL_POINTER };
        ck_assert_int_eq(pthread_create(&th[t], NULL, run_plan, &jobs[t]), 0);
    }
    for (int t = 0; t < 2; t++) {
        pthread_join(th[t], NULL);
        ck_assert_int_eq(jobs[t].status, SMM_OK);
        ck_assert_int_eq(jobs[t].mstatus, SMM_OK);
        for (int64_t e = 0; e < m * topk; e++) {
            ck_assert_int_eq(jobs[t].idx[e], ref_idx[e]);
            ck_assert_float_eq_tol(jobs[t].val[e], ref_val[e], 1e-4f);
        }
        /* the plan's product is approx_sgemm's, from any thread */
        ck_assert(memcmp(jobs[t].C, ref_c, (size_t)(m * n) * sizeof *C) == 0);
    }
    /* fewer candidates: the one-shot call and the plan agree, returned values are exact dot products */
    o.candidates = 20;
    approx_plan_free(plan);
    ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, k, n, B, n, &o, NULL, &plan), SMM_OK);
    ck_assert_int_eq(approx_plan_topk(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, A, k, topk, idx, val, topk, NULL), SMM_OK);
    ck_assert_int_eq(approx_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, A, k, B, n, topk,
                                 idx + m * topk, val + m * topk, topk, &o, NULL),
                     SMM_OK);
    ck_assert(memcmp(idx, idx + m * topk, (size_t)(m * topk) * sizeof *idx) == 0);
    for (int64_t i = 0; i < m; i++)
        for (int64_t t = 0; t < topk; t++) {
            double d = 0.0;
            for (int64_t p = 0; p < k; p++)
                d += (double)A[i * k + p] * (double)B[p * n + idx[i * topk + t]];
            ck_assert(fabs(d - val[i * topk + t]) <= 1e-5);
        }
    approx_plan_free(plan);
    free(A), free(B), free(idx), free(ref_idx), free(val), free(ref_val), free(C), free(ref_c);
}
END_TEST

/*
 * The method's estimate_block (top-k's source of estimates) on blocks that
 * start anywhere, of any size: the values approx_plan_multiply writes, bit
 * for bit (the raw path with its 4 x 4 transposition and every tail).
 */
START_TEST(estimate_blocks_match_the_product)
{
    const int64_t m = 150, n = 300, k = 24;
    float *A = malloc(m * k * sizeof *A), *B = malloc(k * n * sizeof *B), *C = malloc(m * n * sizeof *C);
    float *out = malloc(m * n * sizeof *out);
    uint64_t st = 23;
    test_fill_uniform(A, m * k, &st);
    test_fill_uniform(B, k * n, &st);
    approx_options o = md_options(6, 2);
    approx_plan *plan = NULL;
    ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, k, n, B, n, &o, NULL, &plan), SMM_OK);
    ck_assert_int_eq(approx_plan_multiply(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, 1.0f, A, k, 0.0f, C, n, NULL), SMM_OK);
    smm_context ctx;
    ck_assert_int_eq(smm_context_current(&ctx), SMM_OK);
    const approx_vectors rows = { SMM_ROW_MAJOR, m, A, k };
    void *a_state = NULL;
    ck_assert_int_eq(plan->method->ops->sketch_a(&ctx, &plan->b, plan->b_state, &rows, &a_state), SMM_OK);
    static const int64_t blocks[][4] = { /* i0, rows, j0, cols */
        { 0, 150, 0, 300 }, { 5, 3, 32, 40 }, { 31, 70, 0, 33 }, { 100, 50, 256, 44 }, { 129, 1, 64, 1 },
        { 7, 140, 96, 200 },
    };
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        const int64_t i0 = blocks[b][0], r = blocks[b][1], j0 = blocks[b][2], c = blocks[b][3];
        for (int64_t e = 0; e < r * c; e++)
            out[e] = NAN;
        plan->method->ops->estimate_block(&ctx, &plan->b, plan->b_state, a_state, i0, r, j0, c, out, c);
        for (int64_t i = 0; i < r; i++)
            for (int64_t j = 0; j < c; j++)
                ck_assert_msg(out[i * c + j] == C[(i0 + i) * n + j0 + j], "block %zu entry (%lld, %lld)", b,
                              (long long)(i0 + i), (long long)(j0 + j));
    }
    plan->method->ops->free_state(a_state);
    approx_plan_free(plan);
    free(A), free(B), free(C), free(out);
}
END_TEST

/*
 * Image-like rows: non-negative, 16 prototypes (random non-negative vectors)
 * each row a random mix of one of them (weight 0.6..1) and uniform noise,
 * at a random brightness in [0.5, 1.5): rows of very different norms.
 */
static void fill_images(float *X, int64_t rows, int64_t k, uint64_t *rng)
{
    float proto[16][64];
    uint64_t ps = 4242; /* the same prototypes for queries and database */
    for (int p = 0; p < 16; p++)
        for (int64_t t = 0; t < k; t++)
            proto[p][t] = 0.5f + 0.5f * test_rng_uniform(&ps);
    for (int64_t i = 0; i < rows; i++) {
        const int p = (int)(test_rng_next(rng) >> 60);
        const float w = 0.8f + 0.2f * test_rng_uniform(rng), b = 1.0f + 0.5f * test_rng_uniform(rng);
        for (int64_t t = 0; t < k; t++)
            X[i * k + t] = b * (w * proto[p][t] + (1.0f - w) * (0.5f + 0.5f * test_rng_uniform(rng)));
    }
}

/* Value-based recall of top-k indices against the exact k-th value of each row. */
static double recall_of(int64_t m, int64_t topk, const int64_t *idx, const float *ref_val, const float *A,
                        const float *B, int64_t k, int64_t n)
{
    int64_t hits = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t t = 0; t < topk; t++) {
            double d = 0.0;
            for (int64_t p = 0; p < k; p++)
                d += (double)A[i * k + p] * (double)B[p * n + idx[i * topk + t]];
            hits += d >= (double)ref_val[i * topk + topk - 1] * (1.0 - 1e-6);
        }
    return (double)hits / (double)(m * topk);
}

/*
 * The codes describe directions, so the rows of op(A) may come at any
 * scale: queries times s (1/255, 255, 0.3, 2^-20, 2^20) find the same top-k
 * as unscaled ones (the same indices for powers of two; recall within 0.02
 * for the others), and est(s A) = s est(A), bit for bit for a power of two.
 * Before the codes were of directions, the trees learned on op(B) compared
 * raw values of op(A) with thresholds of op(B)'s scale: queries at 1/255
 * fell into the same few leaves (recall@10 0.24 with 40 candidates, 0.99
 * unscaled).
 */
START_TEST(rows_of_a_at_any_scale)
{
    const int64_t m = 100, n = 2000, k = 64, topk = 10;
    float *A = malloc(m * k * sizeof *A), *As = malloc(m * k * sizeof *As), *Bt = malloc(n * k * sizeof *Bt);
    int64_t *ref_idx = malloc(m * topk * sizeof *ref_idx), *idx1 = malloc(m * topk * sizeof *idx1);
    int64_t *idx = malloc(m * topk * sizeof *idx);
    float *ref_val = malloc(m * topk * sizeof *ref_val), *val = malloc(m * topk * sizeof *val);
    float *C1 = malloc(m * n * sizeof *C1), *C = malloc(m * n * sizeof *C);
    uint64_t st = 31;
    fill_images(A, m, k, &st);
    fill_images(Bt, n, k, &st);
    float *B = transposed(Bt, n, k);
    ck_assert_int_eq(exact_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, A, k, B, n, topk, ref_idx,
                                ref_val, topk),
                     SMM_OK);
    approx_options o = md_options(16, 0);
    o.candidates = 40;
    approx_plan *plan = NULL;
    ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, k, n, B, n, &o, NULL, &plan), SMM_OK);
    ck_assert_int_eq(approx_plan_topk(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, A, k, topk, idx1, val, topk, NULL), SMM_OK);
    ck_assert_int_eq(approx_plan_multiply(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, 1.0f, A, k, 0.0f, C1, n, NULL), SMM_OK);
    const double r1 = recall_of(m, topk, idx1, ref_val, A, B, k, n);
    ck_assert_msg(r1 >= 0.9, "unscaled recall@10 %.3f", r1); /* measured: 0.99 */
    static const double scales[] = { 1.0 / 255.0, 255.0, 0.3, 0x1p-20, 0x1p+20 };
    for (size_t q = 0; q < sizeof scales / sizeof scales[0]; q++) {
        const double sc = scales[q];
        int e2;
        const int pow2 = frexp(sc, &e2) == 0.5;
        for (int64_t e = 0; e < m * k; e++)
            As[e] = (float)(A[e] * sc);
        ck_assert_int_eq(approx_plan_topk(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, As, k, topk, idx, val, topk, NULL),
                         SMM_OK);
        const double r = recall_of(m, topk, idx, ref_val, A, B, k, n);
        ck_assert_msg(r >= r1 - 0.02, "queries times %g: recall@10 %.3f, unscaled %.3f", sc, r, r1);
        ck_assert_int_eq(approx_plan_multiply(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, 1.0f, As, k, 0.0f, C, n, NULL),
                         SMM_OK);
        double diff = 0.0, ref = 0.0;
        for (int64_t e = 0; e < m * n; e++) {
            const double want = C1[e] * sc;
            diff += (C[e] - want) * (C[e] - want);
            ref += want * want;
            if (pow2)
                ck_assert_msg(C[e] == (float)want, "times %g: entry %lld = %.9g, want %.9g", sc, (long long)e, C[e],
                              want);
        }
        if (pow2)
            ck_assert(memcmp(idx, idx1, (size_t)(m * topk) * sizeof *idx) == 0);
        ck_assert_msg(sqrt(diff / ref) <= 0.01, "times %g: estimate off s est(A) by %g", sc, sqrt(diff / ref));
    }
    approx_plan_free(plan);
    free(A), free(As), free(B), free(Bt), free(ref_idx), free(idx1), free(idx), free(ref_val), free(val), free(C1),
        free(C);
}
END_TEST

START_TEST(bad_input_leaves_outputs_untouched)
{
    const int64_t m = 4, n = 40, k = 8;
    float A[4 * 8], B[8 * 40], C[4 * 40];
    uint64_t st = 1;
    test_fill_uniform(A, m * k, &st);
    test_fill_uniform(B, k * n, &st);
    for (int64_t e = 0; e < m * n; e++)
        C[e] = 7.0f;
    approx_options o = md_options(0, 0);
    ck_assert_int_eq(md_product(m, n, k, A, B, &o, C), SMM_ERR_BAD_ARGUMENT); /* C = 0 */
    o = md_options(9, 0);
    ck_assert_int_eq(md_product(m, n, k, A, B, &o, C), SMM_ERR_BAD_ARGUMENT); /* C > k */
    o = md_options(4, 0);
    ck_assert_int_eq(approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, 15, k, 1.0f, A, k, B, n, 0.0f, C, n,
                                  &o, NULL),
                     SMM_ERR_BAD_SIZE); /* 15 columns: fewer than the 16 leaves */
    B[5] = NAN;
    ck_assert_int_eq(md_product(m, n, k, A, B, &o, C), SMM_ERR_NON_FINITE);
    B[5] = INFINITY;
    ck_assert_int_eq(md_product(m, n, k, A, B, &o, C), SMM_ERR_NON_FINITE);
    B[5] = 0.5f;
    A[3] = INFINITY;
    ck_assert_int_eq(md_product(m, n, k, A, B, &o, C), SMM_ERR_NON_FINITE);
    A[3] = NAN;
    ck_assert_int_eq(md_product(m, n, k, A, B, &o, C), SMM_ERR_NON_FINITE);
    for (int64_t e = 0; e < m * n; e++)
        ck_assert_float_eq(C[e], 7.0f);
    /* top-k: NaN in A, outputs untouched */
    int64_t idx[4 * 2];
    float val[4 * 2];
    for (int e = 0; e < 8; e++) {
        idx[e] = -7;
        val[e] = -7.0f;
    }
    o.candidates = 10;
    ck_assert_int_eq(approx_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, A, k, B, n, 2, idx, val, 2, &o, NULL),
                     SMM_ERR_NON_FINITE);
    A[3] = 0.25f;
    o.candidates = 1; /* fewer candidates than topk */
    ck_assert_int_eq(approx_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, A, k, B, n, 2, idx, val, 2, &o, NULL),
                     SMM_ERR_BAD_ARGUMENT);
    for (int e = 0; e < 8; e++)
        ck_assert(idx[e] == -7 && val[e] == -7.0f);
    approx_plan *plan = (approx_plan *)&o;
    o = md_options(9, 0);
    ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, k, n, B, n, &o, NULL, &plan), SMM_ERR_BAD_ARGUMENT);
    ck_assert_ptr_null(plan);
    /* more codebooks than the ridge system allows (k large enough) */
    {
        const int64_t kk = 300, nn = 16;
        float *BB = calloc((size_t)(kk * nn), sizeof(float));
        plan = (approx_plan *)&o;
        o = md_options(257, 0);
        ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, kk, nn, BB, nn, &o, NULL, &plan),
                         SMM_ERR_BAD_ARGUMENT);
        ck_assert_ptr_null(plan);
        free(BB);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("approx_maddness");
    TCase *tc = tcase_create("approx_maddness");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, near_exact_on_separable_clusters);
    tcase_add_test(tc, error_falls_as_c_grows);
    tcase_add_test(tc, bit_identical_for_every_thread_count_and_layout);
    tcase_add_test(tc, topk_exact_with_all_candidates_and_a_shared_plan);
    tcase_add_test(tc, estimate_blocks_match_the_product);
    tcase_add_test(tc, rows_of_a_at_any_scale);
    tcase_add_test(tc, bad_input_leaves_outputs_untouched);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
