/*
 * test_approx_scale.c - every approximate method is scale-free over the
 * finite float range (approx_scale.h): A B does not change when B is scaled
 * by s and A by 1/s, so neither may an estimate's relative error, for
 * s = 2^-100 .. 2^100 and factors that are not powers of two (1e-25, 1e20).
 * Before the safe range, pq's k-means distances underflowed (every vector the
 * same code: relative error 0.999 at s = 1e-25) and lowrank's power iteration
 * did (0.60 at 2^-100, SMM_ERR_NON_FINITE at 1e20), both with SMM_OK.
 *
 * Checked per method, dense and top-k:
 * - two power-of-two scales outside the window give the same bits (the
 *   method sees the same normalised data), and so do powers of two inside
 *   it for the methods scale-free by themselves;
 * - every scale gives the relative error of the unscaled data within 5%
 *   (and top-k the same recall within 0.05, exact values of the scaled
 *   data), with SMM_OK.
 * MADDNESS encodes the directions of op(A)'s rows with trees learned on
 * op(B)'s and multiplies by their norms, so it is checked like the others
 * (before the codes were of directions it assumed A and B at one scale, and
 * A / s against B s gave a meaningless estimate with SMM_OK).
 * The plan's copy of op(B) (approx_scaled_copy) is checked against its
 * definition on every ISA path and thread count: column-major vectors
 * (transposed in blocks) with counts around the block and a padded leading
 * dimension, row-major ones, with and without a shift.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "approx/approx_scale.h"
#include "test_util.h"

enum { M = 60, K = 48, N = 400, TOPK = 5, CANDIDATES = 60 };

static float A0[M * K], B0[K * N], AL[M * K], BL[K * N];

/* Gaussian-like data (sum of uniforms), and rank-6 data for lowrank. */
static void make_data(void)
{
    uint64_t rng = 20261127;
    for (int i = 0; i < M * K; i++)
        A0[i] = test_rng_uniform(&rng) + test_rng_uniform(&rng) + test_rng_uniform(&rng);
    for (int i = 0; i < K * N; i++)
        B0[i] = test_rng_uniform(&rng) + test_rng_uniform(&rng) + test_rng_uniform(&rng);
    float U[K * 6], V[6 * N], W[M * 6];
    test_fill_uniform(U, K * 6, &rng);
    test_fill_uniform(V, 6 * N, &rng);
    test_fill_uniform(W, M * 6, &rng);
    for (int t = 0; t < K; t++)
        for (int j = 0; j < N; j++) {
            double acc = 0.0;
            for (int r = 0; r < 6; r++)
                acc += (double)U[t * 6 + r] * V[r * N + j];
            BL[t * N + j] = (float)acc;
        }
    for (int i = 0; i < M; i++)
        for (int t = 0; t < K; t++) {
            double acc = 0.0;
            for (int r = 0; r < 6; r++)
                acc += (double)W[i * 6 + r] * U[t * 6 + r];
            AL[i * K + t] = (float)acc;
        }
}

static approx_options options_for(sketch_method method)
{
    approx_options o;
    approx_options_init(&o);
    o.method = method;
    o.size = sketch_method_uses_bits(method) ? 256 : 8;
    o.candidates = CANDIDATES;
    o.num_threads = 1; /* the scale rule, not threading, is under test: one thread keeps it quick on a busy machine */
    return o;
}

/* A / s and B s, rounded to float; s given as a double. */
static void scaled(sketch_method method, double s, float *A, float *B)
{
    const float *a = method == SKETCH_LOWRANK ? AL : A0, *b = method == SKETCH_LOWRANK ? BL : B0;
    for (int i = 0; i < M * K; i++)
        A[i] = (float)((double)a[i] / s);
    for (int i = 0; i < K * N; i++)
        B[i] = (float)((double)b[i] * s);
}

/* One dense product at scale s: its estimate into C (SMM_OK asserted) and its relative error. */
static double dense_at(sketch_method method, double s, float *C)
{
    static float A[M * K], B[K * N];
    scaled(method, s, A, B);
    const approx_options o = options_for(method);
    smm_status st = approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, M, N, K, 1.0f, A, K, B, N, 0.0f, C, N, &o, NULL);
    ck_assert_msg(st == SMM_OK, "%s at scale %g: %s", sketch_method_name(method), s, smm_status_str(st));
    int bad = 0; /* the first entry that is not finite (one assertion: Check logs every ck_assert) */
    while (bad < M * N && isfinite(C[bad]))
        bad++;
    ck_assert_msg(bad == M * N, "%s at scale %g: entry %d is %g", sketch_method_name(method), s, bad, C[bad]);
    return test_relative_error(M, N, K, A, B, C);
}

/* Top-k of the rows of A against the columns of B at scale s: indices, values, and the recall against the exact. */
static double topk_at(sketch_method method, double s, int64_t *idx, float *val)
{
    static float A[M * K], B[K * N];
    scaled(method, s, A, B);
    const approx_options o = options_for(method);
    smm_status st = approx_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, M, N, K, A, K, B, N, TOPK, idx, val, TOPK,
                                &o, NULL);
    ck_assert_msg(st == SMM_OK, "%s top-k at scale %g: %s", sketch_method_name(method), s, smm_status_str(st));
    static int64_t eidx[M * TOPK];
    static float eval[M * TOPK];
    ck_assert_int_eq(
        exact_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, M, N, K, A, K, B, N, TOPK, eidx, eval, TOPK), SMM_OK);
    int hits = 0;
    for (int i = 0; i < M; i++)
        for (int a = 0; a < TOPK; a++)
            for (int e = 0; e < TOPK; e++)
                hits += idx[i * TOPK + a] == eidx[i * TOPK + e];
    /* the returned values are exact products of the scaled data, rounded to float (the first that is not) */
    int bad = M * TOPK;
    double bad_exact = 0.0;
    for (int e = M * TOPK - 1; e >= 0; e--) {
        const int i = e / TOPK;
        double acc = 0.0;
        for (int t = 0; t < K; t++)
            acc += (double)A[i * K + t] * B[t * N + idx[e]];
        if (!(val[e] == (float)acc || fabs(val[e] - acc) <= 1e-6 * fabs(acc))) {
            bad = e;
            bad_exact = acc;
        }
    }
    ck_assert_msg(bad == M * TOPK, "%s top-k at scale %g: value %d is %g, exact %g", sketch_method_name(method), s,
                  bad, bad < M * TOPK ? val[bad] : 0.0f, bad_exact);
    return (double)hits / (M * TOPK);
}

/* Scales outside the window (powers of two) and others. */
enum { SCALES = 4, OTHERS = 7 };
static const double outside[SCALES] = { 0x1p-100, 0x1p-60, 0x1p+60, 0x1p+100 };
static const double others[OTHERS] = { 1e-25, 3e-30, 1e20, 7.5e28, 0x1p-20, 0x1p+20, 0.3 };

/* The dense checks of one method on the current ISA path. */
static void check_dense_scale_free(sketch_method method)
{
    static float C1[M * N], C[M * N], Cout[M * N];
    const double e1 = dense_at(method, 1.0, C1);
    /* outside the window: the method sees the same normalised data, whatever the power of two */
    dense_at(method, outside[0], Cout);
    for (int i = 1; i < SCALES; i++) {
        const double s = outside[i];
        dense_at(method, s, C);
        int t = 0;
        while (t < M * N && C[t] == Cout[t])
            t++;
        ck_assert_msg(t == M * N, "%s: scale %g gave entry %d = %.9g, scale %g gave %.9g", sketch_method_name(method),
                      s, t, t < M * N ? C[t] : 0.0f, outside[0], t < M * N ? Cout[t] : 0.0f);
    }
    /* any scale: the relative error of the unscaled data */
    for (int i = 0; i < OTHERS + SCALES; i++) {
        const double s = i < OTHERS ? others[i] : outside[i - OTHERS];
        const double e = dense_at(method, s, C);
        ck_assert_msg(fabs(e - e1) <= 0.05 * e1 + 1e-5, "%s: relative error %.6g at scale %g, %.6g unscaled",
                      sketch_method_name(method), e, s, e1);
    }
}

START_TEST(dense_estimates_are_scale_free)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int v = 0; v < nisa; v++) {
        ck_assert_int_eq(smm_set_isa(isas[v]), SMM_OK);
        check_dense_scale_free((sketch_method)_i);
    }
    test_restore_defaults();
}
END_TEST

START_TEST(topk_is_scale_free)
{
    const sketch_method method = (sketch_method)_i;
    static int64_t idx1[M * TOPK], idx[M * TOPK], idx_out[M * TOPK];
    static float val1[M * TOPK], val[M * TOPK], val_out[M * TOPK];
    const double r1 = topk_at(method, 1.0, idx1, val1);
    topk_at(method, outside[0], idx_out, val_out);
    for (int i = 1; i < SCALES; i++) {
        topk_at(method, outside[i], idx, val);
        ck_assert_msg(memcmp(idx, idx_out, sizeof idx) == 0, "%s: top-k indices differ between scales %g and %g",
                      sketch_method_name(method), outside[i], outside[0]);
    }
    for (int i = 0; i < OTHERS; i++) {
        const double r = topk_at(method, others[i], idx, val);
        ck_assert_msg(fabs(r - r1) <= 0.05, "%s: recall %.3f at scale %g, %.3f unscaled", sketch_method_name(method),
                      r, others[i], r1);
    }
}
END_TEST

/* How many of the M x N entries of C differ from v. */
static int entries_not(const float *C, float v)
{
    int count = 0;
    for (int i = 0; i < M * N; i++)
        count += C[i] != v;
    return count;
}

/* A product whose own magnitude is beyond float is refused; one below it gives 0. */
START_TEST(products_beyond_float)
{
    static float A[M * K], B[K * N], C[M * N];
    for (int i = 0; i < M * K; i++)
        A[i] = 0x1p+100f * (A0[i] + 4.0f); /* positive: every entry of A B about 2^200 K */
    for (int i = 0; i < K * N; i++)
        B[i] = 0x1p+100f * (B0[i] + 4.0f);
    approx_options o = options_for(SKETCH_PQ);
    for (int i = 0; i < M * N; i++)
        C[i] = 7.0f;
    ck_assert_int_eq(
        approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, M, N, K, 1.0f, A, K, B, N, 0.0f, C, N, &o, NULL),
        SMM_ERR_NON_FINITE);
    ck_assert_int_eq(entries_not(C, 7.0f), 0); /* untouched */
    for (int i = 0; i < M * K; i++)
        A[i] = 0x1p-100f * (A0[i] + 4.0f);
    for (int i = 0; i < K * N; i++)
        B[i] = 0x1p-100f * (B0[i] + 4.0f);
    ck_assert_int_eq(
        approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, M, N, K, 1.0f, A, K, B, N, 0.5f, C, N, &o, NULL), SMM_OK);
    ck_assert_int_eq(entries_not(C, 3.5f), 0); /* 2^-200 K is 0 in float: C := beta C */
    /* an op(A) near FLT_MAX (5 x 2^125) against an op(B) near 2^-100: a product of about 2^25 K, each side
     * brought into range by its own power of two; MADDNESS (which once scaled op(A) by op(B)'s power of two
     * and refused this) gives 2^25 times its estimate of the unscaled sides, bit for bit */
    static float A1[M * K], B1[K * N], C1[M * N];
    for (int i = 0; i < M * K; i++) {
        A1[i] = A0[i] + 4.0f;
        A[i] = 0x1p+125f * A1[i];
    }
    for (int i = 0; i < K * N; i++)
        B1[i] = B0[i] + 4.0f;
    o = options_for(SKETCH_MADDNESS);
    ck_assert_int_eq(
        approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, M, N, K, 1.0f, A1, K, B1, N, 0.0f, C1, N, &o, NULL),
        SMM_OK);
    ck_assert_int_eq(
        approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, M, N, K, 1.0f, A, K, B, N, 0.0f, C, N, &o, NULL),
        SMM_OK);
    int t = 0;
    while (t < M * N && C[t] == 0x1p+25f * C1[t])
        t++;
    ck_assert_msg(t == M * N, "entry %d: %.9g, 2^25 x %.9g", t, t < M * N ? C[t] : 0.0f, t < M * N ? C1[t] : 0.0f);
}
END_TEST

/* approx_scaled_copy: vector i of the copy is vector i of the input times 2^-shift, row-major, whatever the layout,
 * ISA path or thread count; the input is left as it was. */
START_TEST(copy_is_the_scaled_vectors)
{
    enum { DIM = 37, LD_PAD = 5 };
    static const int64_t counts[] = { 1, 15, 16, 17, 255, 256, 257, 600 };
    static const int shifts[] = { 0, 3, -2 };
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    float *data = malloc(sizeof(float) * (DIM + LD_PAD) * (600 + LD_PAD));
    ck_assert_ptr_nonnull(data);
    for (int64_t e = 0; e < (DIM + LD_PAD) * (600 + LD_PAD); e++)
        data[e] = (float)((e * 7919) % 1001 - 500) * 0.01f;
    for (int q = 0; q < nisa; q++)
        for (int threads = 1; threads <= 3; threads++)
            for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
                for (int layout = 0; layout < 2; layout++)
                    for (size_t h = 0; h < sizeof shifts / sizeof *shifts; h++) {
                        const int64_t n = counts[c];
                        const approx_vectors v = layout == 0 ? (approx_vectors){ SMM_COL_MAJOR, n, data, n + LD_PAD }
                                                             : (approx_vectors){ SMM_ROW_MAJOR, n, data, DIM + LD_PAD };
                        const smm_context ctx = { isas[q], threads };
                        float *copy = NULL;
                        approx_vectors out;
                        ck_assert_int_eq(approx_scaled_copy(&ctx, &v, DIM, shifts[h], &copy, &out), SMM_OK);
                        ck_assert(out.layout == SMM_ROW_MAJOR && out.count == n && out.data == copy && out.ld == DIM);
                        const float f = ldexpf(1.0f, -shifts[h]);
                        for (int64_t i = 0; i < n; i++)
                            for (int64_t t = 0; t < DIM; t++) {
                                const float x = layout == 0 ? data[t * v.ld + i] : data[i * v.ld + t];
                                ck_assert_msg(copy[i * DIM + t] == x * f, "isa %d threads %d n %lld layout %d shift %d",
                                              (int)isas[q], threads, (long long)n, layout, shifts[h]);
                            }
                        smm_aligned_free(copy);
                    }
    free(data);
}
END_TEST

int main(void)
{
    make_data();
    Suite *s = suite_create("approx_scale");
    TCase *tc = tcase_create("approx_scale");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, dense_estimates_are_scale_free, SKETCH_SIMHASH, SKETCH_MADDNESS + 1);
    tcase_add_loop_test(tc, topk_is_scale_free, SKETCH_SIMHASH, SKETCH_MADDNESS + 1);
    tcase_add_test(tc, products_beyond_float);
    tcase_add_test(tc, copy_is_the_scaled_vectors);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
