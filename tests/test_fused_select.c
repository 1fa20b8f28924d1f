/*
 * test_fused_select.c - the fused candidate pass (approx/fused_select.h):
 *   - every path's kernel selects what its plain-C twin selects, on data whose
 *     sums are exact (small integers: every rounding order gives the same
 *     bits, and ties are everywhere), on edge shapes: rows 1 .. 13, columns
 *     around the tile widths, sketch dimensions 1 .. 256, B with a stride
 *     and read only inside its range;
 *   - on any data, the candidates of the fused pass equal those of the
 *     buffered pass (exact_sgemm's block of scores fed to the selections)
 *     bit for bit, for every sketched-factor method, every path and 1 to 3
 *     threads, including longer sketches (left to the buffered pass) and
 *     candidate counts beyond a first block; under a configuration whose
 *     kc is shorter than the sketch, exact_sgemm splits the sum and the
 *     blocks stay with the buffered pass (its bits).
 */
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "approx/approx_classical.h"
#include "approx/approx_plan.h"
#include "approx/fused_select.h"
#include "approx/topk_stream.h"
#include "exact/sgemm.h"
#include "exact/tuning.h"
#include "test_util.h"

/* A small integer in [-3, 3]. */
static float small_int(uint64_t *rng)
{
    return (float)((int)(test_rng_next(rng) % 7) - 3);
}

/* score(r, c) of row-major A (ld lda) and B (ld ldb) as a double sum (exact for small integers). */
static float reference_score(const float *A, int64_t lda, const float *B, int64_t ldb, int64_t s, int64_t r, int64_t c)
{
    double acc = 0.0;
    for (int64_t p = 0; p < s; p++)
        acc += (double)A[r * lda + p] * (double)B[p * ldb + c];
    return (float)acc;
}

START_TEST(kernels_match_twin_on_exact_sums)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    const int64_t row_counts[] = { 1, 2, 5, 6, 7, 8, 11, 12, 13 };
    const int64_t col_counts[] = { 1, 4, 11, 12, 13, 15, 16, 17, 24, 31, 32, 33, 47, 64, 65, 200 };
    const int64_t dims[] = { 1, 2, 3, 8, 16, 17, 31, 32, 33, 64, 256 };
    const int64_t rs[] = { 1, 3, 10 };
    const int64_t pre = 12; /* columns fed before the kernel: every selection full (r <= pre) */
    uint64_t rng = 31;
    for (size_t di = 0; di < sizeof dims / sizeof dims[0]; di++)
        for (size_t ci = 0; ci < sizeof col_counts / sizeof col_counts[0]; ci++) {
            const int64_t s = dims[di], cols = col_counts[ci], rows = 13, lda = s + 3, ldb = pre + cols + 5;
            const int64_t n = pre + cols;
            /* exactly the floats read: a kernel reading past A's rows or B's last row fails under the sanitizers */
            float *A = malloc(sizeof(float) * (size_t)((rows - 1) * lda + s));
            float *B = malloc(sizeof(float) * (size_t)((s - 1) * ldb + n));
            float *score = malloc(sizeof(float) * (size_t)n);
            ck_assert(A && B && score);
            for (int64_t t = 0; t < (rows - 1) * lda + s; t++)
                A[t] = small_int(&rng);
            for (int64_t t = 0; t < (s - 1) * ldb + n; t++)
                B[t] = small_int(&rng);
            for (size_t ri = 0; ri < sizeof row_counts / sizeof row_counts[0]; ri++)
                for (size_t qi = 0; qi < sizeof rs / sizeof rs[0]; qi++) {
                    const int64_t nrows = row_counts[ri], r = rs[qi], cap = top_select_capacity(r);
                    scored_index *want = malloc(sizeof(scored_index) * (size_t)(nrows * cap));
                    scored_index *got = malloc(sizeof(scored_index) * (size_t)(nrows * cap));
                    top_select sel_want[13], sel_got[13];
                    ck_assert(want && got);
                    /* the definition: every score of the row fed to a selection */
                    for (int64_t i = 0; i < nrows; i++) {
                        for (int64_t c = 0; c < n; c++)
                            score[c] = reference_score(A, lda, B, ldb, s, i, c);
                        top_select_init(&sel_want[i], want + i * cap, r, SMM_ISA_SCALAR);
                        top_select_feed(&sel_want[i], score, 0, n);
                        top_select_finish(&sel_want[i], 1);
                    }
                    for (int q = -1; q < nisa; q++) { /* q = -1: the twin itself */
                        const fused_select_kernels *row = fused_select_kernels_for(q < 0 ? SMM_ISA_SCALAR : isas[q]);
                        for (int64_t i = 0; i < nrows; i++) {
                            for (int64_t c = 0; c < pre; c++)
                                score[c] = reference_score(A, lda, B, ldb, s, i, c);
                            top_select_init(&sel_got[i], got + i * cap, r, q < 0 ? SMM_ISA_SCALAR : isas[q]);
                            top_select_feed(&sel_got[i], score, 0, pre);
                            ck_assert(sel_got[i].full);
                        }
                        if (q < 0) {
                            fused_select_scalar(nrows, cols, s, A, lda, B + pre, ldb, pre, sel_got);
                        } else if (nrows <= row->mr) {
                            row->select(nrows, cols, s, A, lda, B + pre, ldb, pre, sel_got);
                        } else {
                            fused_select_block(isas[q], nrows, cols, s, A, lda, B + pre, ldb, pre, sel_got);
                        }
                        for (int64_t i = 0; i < nrows; i++) {
                            const int64_t count = top_select_finish(&sel_got[i], 1);
                            ck_assert_int_eq(count, r);
                            for (int64_t t = 0; t < r; t++)
                                ck_assert_msg(got[i * cap + t].index == want[i * cap + t].index &&
                                                  got[i * cap + t].score == want[i * cap + t].score,
                                              "%s rows %lld cols %lld s %lld r %lld: row %lld rank %lld: %lld %g "
                                              "vs %lld %g",
                                              q < 0 ? "twin" : row->head.name, (long long)nrows, (long long)cols,
                                              (long long)s, (long long)r, (long long)i, (long long)t,
                                              (long long)got[i * cap + t].index, got[i * cap + t].score,
                                              (long long)want[i * cap + t].index, want[i * cap + t].score);
                        }
                    }
                    free(want), free(got);
                }
            free(A), free(B), free(score);
        }
}
END_TEST

START_TEST(kernel_table_rows)
{
    ck_assert(fused_select_kernels_for(SMM_ISA_SCALAR)->select == fused_select_scalar);
    ck_assert_str_eq(fused_select_kernels_for(SMM_ISA_SCALAR)->head.name, "scalar");
    ck_assert(fused_select_kernels_for(SMM_ISA_AUTO)->select == fused_select_scalar);
#if defined(__x86_64__)
    ck_assert(fused_select_kernels_for(SMM_ISA_NEON)->select == fused_select_scalar);
    if (smm_isa_supported(SMM_ISA_AVX2))
        ck_assert(fused_select_kernels_for(SMM_ISA_AVX2)->select == fused_select_avx2_6x16);
    if (smm_isa_supported(SMM_ISA_AVX512))
        ck_assert(fused_select_kernels_for(SMM_ISA_AVX512)->select == fused_select_avx512_12x32);
#endif
#if defined(__aarch64__)
    ck_assert(fused_select_kernels_for(SMM_ISA_NEON)->select == fused_select_neon_8x12);
#endif
}
END_TEST

/* ---- the candidate pass of a plan, with and without the fused blocks ---- */

typedef struct {
    const approx_plan *plan;
    const void *a_state;
} plan_blocks;

static smm_status plan_score(const void *arg, const smm_context *ctx, int64_t i0, int64_t rows, int64_t j0,
                             int64_t cols, float *out, int64_t ldo)
{
    const plan_blocks *e = arg;
    e->plan->method->ops->estimate_block(ctx, &e->plan->b, e->plan->b_state, e->a_state, i0, rows, j0, cols, out,
                                         ldo);
    return SMM_OK;
}

static int fused_blocks_taken;

static int plan_select(const void *arg, const smm_context *ctx, int64_t i0, int64_t rows, int64_t j0, int64_t cols,
                       top_select *sel)
{
    const plan_blocks *e = arg;
    const int done = e->plan->method->ops->select_block(ctx, &e->plan->b, e->plan->b_state, e->a_state, i0, rows, j0,
                                                        cols, sel);
    __atomic_add_fetch(&fused_blocks_taken, done, __ATOMIC_RELAXED);
    return done;
}

typedef struct {
    int64_t r;
    int64_t *cand;
    float *score;
} kept_rows;

static void keep_rows(void *arg, int64_t i, scored_index *best, int64_t count, void *scratch)
{
    (void)scratch;
    const kept_rows *k = arg;
    for (int64_t t = 0; t < count; t++) {
        k->cand[i * k->r + t] = best[t].index;
        k->score[i * k->r + t] = best[t].score;
    }
}

/*
 * The candidates of the fused pass equal the buffered pass's for methods x sizes on every path and 1 to 3 threads;
 * blocks go to the fused kernels exactly when s <= FUSED_SELECT_MAX_DIM and exact_sgemm_sum_depth (the path's kc).
 */
static void check_fused_equals_buffered(const sketch_method *methods, size_t nmethods, const int64_t *sizes,
                                        size_t nsizes)
{
    const int64_t n = 4500, k = 40, mmax = 130; /* three column blocks, the last partial */
    const int64_t ms[] = { 5, 130 };
    const int64_t rs[] = { 1, 20, 2100 };
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    float *A = malloc(sizeof(float) * (size_t)(mmax * k)), *Bt = malloc(sizeof(float) * (size_t)(n * k));
    int64_t *cand_want = malloc(sizeof(int64_t) * (size_t)(mmax * 2100)), *cand_got = malloc(sizeof(int64_t) * (size_t)(mmax * 2100));
    float *score_want = malloc(sizeof(float) * (size_t)(mmax * 2100)), *score_got = malloc(sizeof(float) * (size_t)(mmax * 2100));
    ck_assert(A && Bt && cand_want && cand_got && score_want && score_got);
    uint64_t rng = 41;
    test_fill_uniform(A, mmax * k, &rng);
    test_fill_uniform(Bt, n * k, &rng);
    for (int64_t j = 0; j < n; j += 89) /* ties: repeated database vectors */
        memcpy(Bt + ((j * 11) % n) * k, Bt + j * k, sizeof(float) * (size_t)k);
    for (size_t mi = 0; mi < nmethods; mi++)
        for (size_t si = 0; si < nsizes; si++)
            for (int q = 0; q < nisa; q++) {
                approx_options o = APPROX_OPTIONS_INIT;
                o.method = methods[mi];
                o.size = (int32_t)sizes[si];
                o.seed = 5;
                ck_assert_int_eq(smm_set_isa(isas[q]), SMM_OK);
                approx_plan *plan;
                ck_assert_int_eq(approx_plan_create(SMM_ROW_MAJOR, SMM_TRANS, k, n, Bt, k, &o, NULL, &plan), SMM_OK);
                const int64_t s = ((const classical_state *)plan->b_state)->s;
                const int fusable = s <= FUSED_SELECT_MAX_DIM && s <= exact_sgemm_sum_depth(isas[q]);
                for (size_t ai = 0; ai < sizeof ms / sizeof ms[0]; ai++) {
                    const int64_t m = ms[ai];
                    const smm_context one = { isas[q], 1 };
                    const approx_vectors rows_a = approx_vectors_of(SMM_ROW_MAJOR, SMM_NO_TRANS, 1, m, A, k);
                    void *a_state = NULL;
                    ck_assert_int_eq(plan->method->ops->sketch_a(&one, &plan->b, plan->b_state, &rows_a, &a_state),
                                     SMM_OK);
                    const plan_blocks e = { plan, a_state };
                    for (size_t ri = 0; ri < sizeof rs / sizeof rs[0]; ri++) {
                        const int64_t r = rs[ri];
                        const topk_scores buffered = { plan_score, NULL, &e }, fused = { plan_score, plan_select, &e };
                        kept_rows want = { r, cand_want, score_want }, got = { r, cand_got, score_got };
                        const smm_context ctx1 = { isas[q], 1 };
                        ck_assert_int_eq(topk_stream(&ctx1, m, n, r, topk_stream_shape(s), 1, &buffered, keep_rows,
                                                     &want, 0),
                                         SMM_OK);
                        for (int threads = 1; threads <= 3; threads++) {
                            const smm_context ctx = { isas[q], threads };
                            fused_blocks_taken = 0;
                            ck_assert_int_eq(topk_stream(&ctx, m, n, r, topk_stream_shape(s), 1, &fused, keep_rows,
                                                         &got, 0),
                                             SMM_OK);
                            /* one thread, three tasks of three blocks: fused once the selections are full */
                            if (fusable && threads == 1 && m == 130)
                                ck_assert_int_gt(fused_blocks_taken, 0);
                            if (!fusable)
                                ck_assert_int_eq(fused_blocks_taken, 0);
                            ck_assert_msg(memcmp(cand_got, cand_want, sizeof(int64_t) * (size_t)(m * r)) == 0 &&
                                              memcmp(score_got, score_want, sizeof(float) * (size_t)(m * r)) == 0,
                                          "%s s %lld %s m %lld r %lld threads %d: candidates differ",
                                          sketch_method_name(methods[mi]), (long long)s, smm_isa_name(isas[q]),
                                          (long long)m, (long long)r, threads);
                        }
                    }
                    plan->method->ops->free_state(a_state);
                }
                approx_plan_free(plan);
            }
    free(A), free(Bt), free(cand_want), free(cand_got), free(score_want), free(score_got);
}

START_TEST(fused_pass_equals_buffered_pass)
{
    const sketch_method methods[] = { SKETCH_LOWRANK, SKETCH_GAUSSIAN_PROJECTION, SKETCH_SRHT, SKETCH_COUNTSKETCH,
                                      SKETCH_CR_SAMPLING };
    const int64_t sizes[] = { 1, 7, 16, 33, 300 };
    check_fused_equals_buffered(methods, sizeof methods / sizeof methods[0], sizes, sizeof sizes / sizeof sizes[0]);
}
END_TEST

/* A configuration whose kc (16, the least) is shorter than the sketch: the buffered pass's bits, no fused block. */
START_TEST(fused_pass_follows_the_configured_depth)
{
    const tuning_state saved = *tuning_active();
    tuning_state shallow = saved;
    for (int isa = 0; isa < SMM_ISA_COUNT; isa++)
        shallow.params[isa].kc = TUNING_KC_MIN;
    tuning_install(&shallow);
    const sketch_method methods[] = { SKETCH_LOWRANK };
    const int64_t sizes[] = { 16, 33 }; /* 16: within the depth (fused), 33: beyond it (buffered) */
    check_fused_equals_buffered(methods, sizeof methods / sizeof methods[0], sizes, sizeof sizes / sizeof sizes[0]);
    ck_assert_int_eq(exact_sgemm_sum_depth(SMM_ISA_SCALAR), TUNING_KC_MIN);
    tuning_install(&saved);
}
END_TEST

static Suite *fused_select_suite(void)
{
    Suite *suite = suite_create("fused_select");
    TCase *tc = tcase_create("fused_select");
    tcase_set_timeout(tc, 1500); /* about 8 minutes under sanitizers or qemu-aarch64 on a quiet machine */
    tcase_add_checked_fixture(tc, NULL, test_restore_defaults);
    tcase_add_test(tc, kernels_match_twin_on_exact_sums);
    tcase_add_test(tc, kernel_table_rows);
    tcase_add_test(tc, fused_pass_equals_buffered_pass);
    tcase_add_test(tc, fused_pass_follows_the_configured_depth);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    return test_run_suite(fused_select_suite());
}
