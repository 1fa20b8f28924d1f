/*
 * test_approx_pq.c - SKETCH_PQ (approx.h) through the public API: the
 * estimate's error falls as M grows on aligned data, results bit-identical
 * for every thread count and ISA path, every layout and a plan give the same
 * C, top-k exact with all candidates, a plan shared by two threads, and bad
 * input (M = 0 or > k, fewer than 16 columns, NaN) with outputs untouched.
 * The kernels, codebooks and tables themselves are tested in test_pq.c.
 */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "test_util.h"

static approx_options pq_options(int32_t M, int32_t threads)
{
    approx_options o = APPROX_OPTIONS_INIT;
    o.method = SKETCH_PQ;
    o.size = M;
    o.num_threads = threads;
    return o;
}

static smm_status pq_product(int64_t m, int64_t n, int64_t k, const float *A, const float *B,
                             const approx_options *o, float *C)
{
    return approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1.0f, A, k, B, n, 0.0f, C, n, o, NULL);
}

START_TEST(error_falls_as_m_grows)
{
    const int64_t m = 40, n = 600, k = 64;
    float *A = malloc(m * k * sizeof *A), *B = malloc(k * n * sizeof *B), *C = malloc(m * n * sizeof *C);
    float dir[64];
    uint64_t st = 12;
    test_fill_uniform(dir, k, &st);
    test_fill_aligned(A, m, k, dir, 0.5f, &st);
    float *Bt = malloc(n * k * sizeof *Bt);
    test_fill_aligned(Bt, n, k, dir, 0.5f, &st);
    for (int64_t j = 0; j < n; j++)
        for (int64_t t = 0; t < k; t++)
            B[t * n + j] = Bt[j * k + t];
    double last = INFINITY;
    const int32_t Ms[] = { 2, 8, 32 };
    for (int i = 0; i < 3; i++) {
        approx_options o = pq_options(Ms[i], 0);
        ck_assert_int_eq(pq_product(m, n, k, A, B, &o, C), SMM_OK);
        const double err = test_relative_error(m, n, k, A, B, C);
        ck_assert_msg(err < 0.8 * last, "M = %d: relative error %g did not fall below 0.8 x %g", Ms[i], err, last);
        last = err;
    }
    ck_assert_msg(last < 0.05, "M = 32: relative error %g", last);
    free(A), free(B), free(Bt), free(C);
}
END_TEST

START_TEST(bit_identical_for_every_thread_count_isa_and_layout)
{
    const int64_t m = 37, n = 333, k = 50;
    float *A = malloc(m * k * sizeof *A), *B = malloc(k * n * sizeof *B), *Bt = malloc(k * n * sizeof *Bt);
    float *ref = malloc(m * n * sizeof *ref), *C = malloc(m * n * sizeof *C);
    uint64_t st = 3;
    test_fill_uniform(A, m * k, &st);
    test_fill_uniform(B, k * n, &st);
    for (int64_t t = 0; t < k; t++)
        for (int64_t j = 0; j < n; j++)
            Bt[j * k + t] = B[t * n + j];
    approx_options o = pq_options(7, 1); /* 50 = 7 x 7 + 1: the first subspace one longer */
    ck_assert_int_eq(pq_product(m, n, k, A, B, &o, ref), SMM_OK);
    smm_isa isas[4];
    const int count = test_supported_isas(isas);
    for (int i = 0; i < count; i++) {
        ck_assert_int_eq(smm_set_isa(isas[i]), SMM_OK);
        for (int32_t threads = 1; threads <= 2; threads++) {
            o.num_threads = threads;
            memset(C, 0, (size_t)(m * n) * sizeof *C);
            ck_assert_int_eq(pq_product(m, n, k, A, B, &o, C), SMM_OK);
            ck_assert_msg(memcmp(ref, C, (size_t)(m * n) * sizeof *C) == 0, "%s, %d threads",
                          smm_isa_name(isas[i]), threads);
            /* op(B) stored transposed: the same columns */
            ck_assert_int_eq(approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, n, k, 1.0f, A, k, Bt, k, 0.0f,
                                          C, n, &o, NULL),
                             SMM_OK);
            ck_assert_int_eq(memcmp(ref, C, (size_t)(m * n) * sizeof *C), 0);
        }
    }
    test_restore_defaults();
    approx_plan *plan = NULL;
    o.num_threads = 2;
    ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, k, n, B, n, &o, NULL, &plan), SMM_OK);
    ck_assert_int_eq(approx_plan_multiply(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, m, 1.0f, A, k, 0.0f, C, n, NULL), SMM_OK);
    ck_assert_int_eq(memcmp(ref, C, (size_t)(m * n) * sizeof *C), 0);
    approx_plan_free(plan);
    free(A), free(B), free(Bt), free(ref), free(C);
}
END_TEST

typedef struct {
    const approx_plan *plan;
    const float *A;
    int64_t m, k;
    int64_t *idx;
    float *val;
    smm_status status;
} topk_job;

static void *run_topk(void *arg)
{
    topk_job *j = arg;
    j->status = approx_plan_topk(j->plan, SMM_ROW_MAJOR, SMM_NO_TRANS, j->m, j->A, j->k, 5, j->idx, j->val, 5, NULL);
    return NULL;
}

START_TEST(topk_exact_with_all_candidates_and_a_shared_plan)
{
    const int64_t m = 30, n = 250, k = 40, topk = 5;
    float *A = malloc(m * k * sizeof *A), *B = malloc(k * n * sizeof *B);
    int64_t *idx = malloc(2 * m * topk * sizeof *idx), *ref_idx = malloc(m * topk * sizeof *ref_idx);
    float *val = malloc(2 * m * topk * sizeof *val), *ref_val = malloc(m * topk * sizeof *ref_val);
    uint64_t st = 8;
    test_fill_uniform(A, m * k, &st);
    test_fill_uniform(B, k * n, &st);
    approx_options o = pq_options(10, 1);
    o.candidates = (int32_t)n;
    approx_plan *plan = NULL;
    ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, k, n, B, n, &o, NULL, &plan), SMM_OK);
    ck_assert_int_eq(exact_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, A, k, B, n, topk, ref_idx,
                                ref_val, topk),
                     SMM_OK);
    topk_job jobs[2];
    pthread_t th[2];
    for (int t = 0; t < 2; t++) {
        jobs[t] = (topk_job){ plan, A, m, k, idx + t * m * topk, val + t * m * topk, SMM_ERR_NULL_POINTER };
        ck_assert_int_eq(pthread_create(&th[t], NULL, run_topk, &jobs[t]), 0);
    }
    for (int t = 0; t < 2; t++) {
        pthread_join(th[t], NULL);
        ck_assert_int_eq(jobs[t].status, SMM_OK);
        for (int64_t e = 0; e < m * topk; e++) {
            ck_assert_int_eq(jobs[t].idx[e], ref_idx[e]);
            ck_assert_float_eq_tol(jobs[t].val[e], ref_val[e], 1e-4f);
        }
    }
    approx_plan_free(plan);
    free(A), free(B), free(idx), free(ref_idx), free(val), free(ref_val);
}
END_TEST

START_TEST(bad_input_leaves_c_untouched)
{
    const int64_t m = 4, n = 40, k = 8;
    float A[4 * 8], B[8 * 40], C[4 * 40];
    uint64_t st = 1;
    test_fill_uniform(A, m * k, &st);
    test_fill_uniform(B, k * n, &st);
    for (int64_t e = 0; e < m * n; e++)
        C[e] = 7.0f;
    approx_options o = pq_options(0, 0);
    ck_assert_int_eq(pq_product(m, n, k, A, B, &o, C), SMM_ERR_BAD_ARGUMENT); /* M = 0 */
    o = pq_options(9, 0);
    ck_assert_int_eq(pq_product(m, n, k, A, B, &o, C), SMM_ERR_BAD_ARGUMENT); /* M > k */
    o = pq_options(4, 0);
    ck_assert_int_eq(approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, 15, k, 1.0f, A, k, B, n, 0.0f, C, n,
                                  &o, NULL),
                     SMM_ERR_BAD_SIZE); /* 15 columns: fewer than the 16 centroids */
    B[5] = NAN;
    ck_assert_int_eq(pq_product(m, n, k, A, B, &o, C), SMM_ERR_NON_FINITE);
    B[5] = 0.5f;
    A[3] = INFINITY;
    ck_assert_int_eq(pq_product(m, n, k, A, B, &o, C), SMM_ERR_NON_FINITE);
    for (int64_t e = 0; e < m * n; e++)
        ck_assert_float_eq(C[e], 7.0f);
    approx_plan *plan = (approx_plan *)&o;
    o = pq_options(9, 0);
    ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, k, n, B, n, &o, NULL, &plan), SMM_ERR_BAD_ARGUMENT);
    ck_assert_ptr_null(plan);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("approx_pq");
    TCase *tc = tcase_create("approx_pq");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, error_falls_as_m_grows);
    tcase_add_test(tc, bit_identical_for_every_thread_count_isa_and_layout);
    tcase_add_test(tc, topk_exact_with_all_candidates_and_a_shared_plan);
    tcase_add_test(tc, bad_input_leaves_c_untouched);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
