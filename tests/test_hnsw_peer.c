/*
 * test_hnsw_peer.c - the hnswlib bridge of sketchmm_bench topk
 * (experiments/bench/hnsw_peer_bridge.h): on a tiny database searched with a
 * breadth ef that covers it, the graph over the MIPS-to-L2 reduction
 * returns the exact top-k by inner product (recall 1 by the benchmark's own
 * definition, experiments/topk_recall.h), best first, on vectors of very
 * different norms, where the nearest neighbour in L2 is mostly not the
 * largest inner product (checked: the graph must search the reduced
 * vectors); bad arguments fail with a message. On a CPU
 * without the bridge's AVX-512 flags the peer must say so and is not called.
 * Correctness only: speed belongs to sketchmm_bench.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#include "common/smm_runtime.h"
#include "hnsw_peer.h"
#include "hnsw_peer_bridge.h"
#include "topk_recall.h"

enum { N = 400, D = 24, Q = 20, K = 10 };

/* Queries and a database whose norms span 0.1 .. 10 (a vector's scale from its index). */
static void make_data(float *xb, float *xq)
{
    uint64_t rng = 31;
    for (int i = 0; i < N; i++) {
        const float scale = 0.1f * powf(100.0f, (float)i / (N - 1));
        for (int t = 0; t < D; t++)
            xb[i * D + t] = scale * (test_rng_uniform(&rng) - 0.5f);
    }
    for (int i = 0; i < Q * D; i++)
        xq[i] = test_rng_uniform(&rng) - 0.5f;
}

/* The exact top-K of each query by inner product (double), best first. */
static void exact_topk_ref(const float *xb, const float *xq, int64_t *idx)
{
    for (int q = 0; q < Q; q++) {
        double best[K];
        for (int r = 0; r < K; r++)
            best[r] = -INFINITY, idx[q * K + r] = -1;
        for (int j = 0; j < N; j++) {
            const double s = topk_dot_double(xq + q * D, xb + j * D, D);
            int r = K;
            while (r > 0 && s > best[r - 1])
                r--;
            if (r == K)
                continue;
            memmove(best + r + 1, best + r, (size_t)(K - 1 - r) * sizeof(double));
            memmove(idx + q * K + r + 1, idx + q * K + r, (size_t)(K - 1 - r) * sizeof(int64_t));
            best[r] = s;
            idx[q * K + r] = j;
        }
    }
}

START_TEST(exact_on_a_tiny_case)
{
    if (!smm_cpu()->avx512_vpopcntdq) {
        ck_assert_int_eq(hnsw_peer_ready(), 0);
        ck_assert_msg(strstr(hnsw_peer_status(), "AVX-512") != NULL, "status: %s", hnsw_peer_status());
        return;
    }
    ck_assert_msg(hnsw_peer_ready(), "%s", hnsw_peer_status());
    static float xb[N * D], xq[Q * D], thr[Q];
    static int64_t exact[Q * K], got[Q * K];
    make_data(xb, xq);
    exact_topk_ref(xb, xq, exact);
    int differ = 0; /* queries whose nearest vector in L2 is not their best inner product */
    for (int q = 0; q < Q; q++) {
        int nearest = 0;
        double dmin = INFINITY;
        for (int j = 0; j < N; j++) {
            double d2 = 0.0;
            for (int t = 0; t < D; t++)
                d2 += ((double)xq[q * D + t] - xb[j * D + t]) * ((double)xq[q * D + t] - xb[j * D + t]);
            if (d2 < dmin)
                dmin = d2, nearest = j;
        }
        differ += nearest != exact[q * K];
    }
    ck_assert_msg(differ >= Q / 2, "only %d of %d queries tell L2 from inner product", differ, Q);
    topk_recall_thresholds(xq, xb, Q, D, exact, K, K, thr);
    char err[256] = "";
    void *index = smm_hnsw_bridge_build(D, N, xb, 16, 200, 100, 2, err, sizeof err);
    ck_assert_msg(index != NULL, "build: %s", err);
    ck_assert_msg(smm_hnsw_bridge_search(index, Q, xq, K, N, 2, got, err, sizeof err) == 0, "search: %s", err);
    const double recall = topk_recall(xq, xb, Q, N, D, got, K, K, thr);
    ck_assert_msg(recall == 1.0, "recall %.4f at ef = n", recall);
    /* best first: inner products do not increase along a row */
    for (int q = 0; q < Q; q++)
        for (int r = 1; r < K; r++)
            ck_assert_msg(topk_dot_double(xq + q * D, xb + got[q * K + r] * D, D) <=
                              topk_dot_double(xq + q * D, xb + got[q * K + r - 1] * D, D),
                          "query %d: column %d better than column %d", q, r, r - 1);
    smm_hnsw_bridge_free(index);
}
END_TEST

START_TEST(bad_arguments)
{
    if (!hnsw_peer_ready())
        return; /* exact_on_a_tiny_case checked why */
    static float xb[N * D];
    int64_t I[K];
    char err[256] = "";
    ck_assert_ptr_null(smm_hnsw_bridge_build(0, N, xb, 16, 200, 100, 1, err, sizeof err));
    ck_assert_msg(strstr(err, "bad argument") != NULL, "message: %s", err);
    err[0] = '\0';
    ck_assert_ptr_null(smm_hnsw_bridge_build(D, N, NULL, 16, 200, 100, 1, err, sizeof err));
    ck_assert_msg(err[0] != '\0', "no message");
    err[0] = '\0';
    ck_assert_int_eq(smm_hnsw_bridge_search(NULL, 1, xb, K, 10, 1, I, err, sizeof err), -1);
    ck_assert_msg(err[0] != '\0', "no message");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("hnsw_peer");
    TCase *tc = tcase_create("bridge");
    tcase_add_test(tc, exact_on_a_tiny_case);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(suite());
}
