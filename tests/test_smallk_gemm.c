/*
 * test_smallk_gemm.c - the small-k product (exact/smallk_gemm.h):
 *   - every path's kernel gives the exact product on data whose sums are
 *     exact (small integers), for m, n around the tiles, k = 1 .. 32, A in
 *     both orders, strided B and C, beta 0 (NaN in C does not leak), 1 and
 *     others, alpha 1 and others, row- and column-major C, and writes
 *     nothing outside C's m x n elements; the streaming stores at every
 *     offset of C within a 64-byte line;
 *   - on any data, with beta 0 or 1, it equals exact_sgemm on the same path
 *     bit for bit, for 1 to 3 threads; with any alpha and beta it computes
 *     the arithmetic of the contract bit for bit (fmaf chains on the SIMD
 *     paths, separate multiplies and adds on the scalar one);
 *   - the dense estimate of the sketched-factor methods goes through it and
 *     is the same for every thread count.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "exact/sgemm.h"
#include "exact/smallk_gemm.h"
#include "test_util.h"

#define GUARD 7.25f

static float small_int(uint64_t *rng)
{
    return (float)((int)(test_rng_next(rng) % 7) - 3);
}

/* The exact product of small integers: alpha * sum + beta * c in double (exact for these values). */
static float reference(int64_t k, float alpha, const float *A, int64_t rsa, int64_t csa, const float *B, int64_t ldb,
                       float beta, float c, int64_t i, int64_t j)
{
    double acc = 0.0;
    for (int64_t p = 0; p < k; p++)
        acc += (double)A[i * rsa + p * csa] * (double)B[p * ldb + j];
    return (float)((double)alpha * acc + (beta == 0.0f ? 0.0 : (double)beta * (double)c));
}

START_TEST(kernels_exact_on_integer_data)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    const int64_t ms[] = { 1, 2, 5, 6, 7, 8, 11, 12, 13, 25 };
    const int64_t ns[] = { 1, 5, 11, 12, 13, 15, 16, 17, 31, 32, 33, 47, 64, 65, 100 };
    const float alphas[] = { 1.0f, 2.0f, -1.0f }, betas[] = { 0.0f, 1.0f, -0.5f, 2.0f };
    uint64_t rng = 51;
    for (int64_t k = 1; k <= SMALLK_MAX_K; k++)
        for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++)
            for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
                const int64_t m = ms[mi], n = ns[ni];
                const int a_cols = (k + m + n) % 2; /* A stored with its rows or its columns contiguous */
                const int64_t rsa = a_cols ? 1 : k + 2, csa = a_cols ? m + 1 : 1, ldb = n + 3, ldc = n + 5;
                const int64_t a_size = (m - 1) * rsa + (k - 1) * csa + 1, b_size = (k - 1) * ldb + n;
                float *A = malloc(sizeof(float) * (size_t)a_size), *B = malloc(sizeof(float) * (size_t)b_size);
                float *C0 = malloc(sizeof(float) * (size_t)(m * ldc)), *C = malloc(sizeof(float) * (size_t)(m * ldc));
                ck_assert(A && B && C0 && C);
                for (int64_t t = 0; t < a_size; t++)
                    A[t] = small_int(&rng);
                for (int64_t t = 0; t < b_size; t++)
                    B[t] = small_int(&rng);
                for (int64_t t = 0; t < m * ldc; t++)
                    C0[t] = t % ldc < n ? small_int(&rng) : GUARD;
                const float alpha = alphas[(k + mi) % 3], beta = betas[(k + ni) % 4];
                for (int q = 0; q < nisa; q++) {
                    const smm_context ctx = { isas[q], 1 + (int)((k + mi + ni) % 3) };
                    memcpy(C, C0, sizeof(float) * (size_t)(m * ldc));
                    if (beta == 0.0f) /* C is write-only: NaN there must not reach the result */
                        for (int64_t i = 0; i < m; i++)
                            for (int64_t j = 0; j < n; j++)
                                C[i * ldc + j] = NAN;
                    ck_assert_int_eq(smallk_gemm(&ctx, m, n, k, alpha, A, rsa, csa, B, ldb, 1, beta, C, ldc, 1),
                                     SMM_OK);
                    for (int64_t i = 0; i < m; i++)
                        for (int64_t j = 0; j < ldc; j++) {
                            const float want = j < n ? reference(k, alpha, A, rsa, csa, B, ldb, beta, C0[i * ldc + j],
                                                                 i, j)
                                                     : GUARD;
                            ck_assert_msg(C[i * ldc + j] == want,
                                          "%s m %lld n %lld k %lld alpha %g beta %g: C(%lld, %lld) = %g, want %g",
                                          smallk_kernels_for(isas[q])->head.name, (long long)m, (long long)n,
                                          (long long)k, alpha, beta, (long long)i, (long long)j, C[i * ldc + j], want);
                        }
                    /* column-major C (ld m + 2): the same values, transposed */
                    const int64_t ldt = m + 2;
                    float *T = malloc(sizeof(float) * (size_t)(n * ldt));
                    ck_assert(T != NULL);
                    for (int64_t j = 0; j < n; j++)
                        for (int64_t i = 0; i < ldt; i++)
                            T[j * ldt + i] = i < m ? (beta == 0.0f ? NAN : C0[i * ldc + j]) : GUARD;
                    ck_assert_int_eq(smallk_gemm(&ctx, m, n, k, alpha, A, rsa, csa, B, ldb, 1, beta, T, 1, ldt),
                                     SMM_OK);
                    for (int64_t j = 0; j < n; j++)
                        for (int64_t i = 0; i < ldt; i++) {
                            const float want = i < m ? reference(k, alpha, A, rsa, csa, B, ldb, beta, C0[i * ldc + j],
                                                                 i, j)
                                                     : GUARD;
                            ck_assert_msg(T[j * ldt + i] == want, "%s column-major m %lld n %lld k %lld (%lld, %lld)",
                                          smallk_kernels_for(isas[q])->head.name, (long long)m, (long long)n,
                                          (long long)k, (long long)i, (long long)j);
                        }
                    free(T);
                }
                free(A), free(B), free(C0), free(C);
            }
}
END_TEST

/* The streaming stores: C at every float offset within a 64-byte line, rows 64-byte multiples apart. */
START_TEST(streaming_stores_at_every_offset)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    const int64_t k = 9, ldc = 96, ldb = 200;
    const int64_t ns[] = { 1, 15, 16, 17, 40, 64, 70 };
    uint64_t rng = 53;
    float *A = malloc(sizeof(float) * 13 * k), *B = malloc(sizeof(float) * (size_t)(k * ldb));
    float *base = smm_aligned_alloc(sizeof(float) * (size_t)(14 * ldc + 16)); /* 64-byte aligned */
    ck_assert(A && B && base);
    for (int64_t t = 0; t < 13 * k; t++)
        A[t] = small_int(&rng);
    for (int64_t t = 0; t < k * ldb; t++)
        B[t] = small_int(&rng);
    for (int q = 0; q < nisa; q++) {
        const smallk_kernels *row = smallk_kernels_for(isas[q]);
        for (int64_t off = 0; off < 16; off++)
            for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
                for (int64_t rows = 1; rows <= row->mr; rows++) {
                    const int64_t n = ns[ni];
                    for (int64_t t = 0; t < 14 * ldc + 16; t++)
                        base[t] = GUARD;
                    float *C = base + off;
                    for (int64_t i = 0; i < rows; i++)
                        for (int64_t j = 0; j < n; j++)
                            C[i * ldc + j] = NAN;
                    row->strip(rows, n, k, 1.0f, A, k, 1, B, ldb, 0.0f, C, ldc, 1);
                    for (int64_t t = 0; t < 14 * ldc + 16; t++) {
                        const int64_t i = (t - off) / ldc, j = (t - off) % ldc;
                        const int inside = t >= off && i < rows && j < n;
                        const float want = inside ? reference(k, 1.0f, A, k, 1, B, ldb, 0.0f, 0.0f, i, j) : GUARD;
                        ck_assert_msg(base[t] == want, "%s offset %lld rows %lld n %lld: element %lld", row->head.name,
                                      (long long)off, (long long)rows, (long long)n, (long long)t);
                    }
                }
    }
    free(A), free(B);
    smm_aligned_free(base);
}
END_TEST

/* beta 0 or 1, k within exact_sgemm_sum_depth: exact_sgemm's bits on the same path (rounding included), for every
 * thread count. */
START_TEST(equals_exact_sgemm)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    const int64_t ms[] = { 1, 7, 13, 50, 300 }, ns[] = { 1, 9, 33, 70, 1000 }, ks[] = { 1, 3, 8, 16, 31, 32 };
    uint64_t rng = 55;
    float *A = malloc(sizeof(float) * 300 * 32), *B = malloc(sizeof(float) * 32 * 1000);
    float *C0 = malloc(sizeof(float) * 300 * 1000), *want = malloc(sizeof(float) * 300 * 1000);
    float *got = malloc(sizeof(float) * 300 * 1000);
    ck_assert(A && B && C0 && want && got);
    test_fill_uniform(A, 300 * 32, &rng);
    test_fill_uniform(B, 32 * 1000, &rng);
    test_fill_uniform(C0, 300 * 1000, &rng);
    for (int q = 0; q < nisa; q++)
        for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++)
            for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
                for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
                    for (int variant = 0; variant < 4; variant++) {
                        const int64_t m = ms[mi], n = ns[ni], k = ks[ki];
                        if (k > exact_sgemm_sum_depth(isas[q])) /* a configuration whose kc splits the sum */
                            continue;
                        const float alpha = variant & 1 ? 0.75f : 1.0f, beta = variant & 2 ? 1.0f : 0.0f;
                        const int col_major = (int)((mi + ni + ki) % 2);
                        const int64_t ldc = col_major ? m : n;
                        const smm_context one = { isas[q], 1 };
                        memcpy(want, C0, sizeof(float) * (size_t)(m * n));
                        ck_assert_int_eq(exact_sgemm_with(&one, col_major ? SMM_COL_MAJOR : SMM_ROW_MAJOR,
                                                          col_major ? SMM_TRANS : SMM_NO_TRANS,
                                                          col_major ? SMM_TRANS : SMM_NO_TRANS, m, n, k, alpha, A, k,
                                                          B, n, beta, want, ldc),
                                         SMM_OK);
                        for (int threads = 1; threads <= 3; threads++) {
                            const smm_context ctx = { isas[q], threads };
                            memcpy(got, C0, sizeof(float) * (size_t)(m * n));
                            ck_assert_int_eq(smallk_gemm(&ctx, m, n, k, alpha, A, k, 1, B, n, 1, beta, got,
                                                         col_major ? 1 : ldc, col_major ? ldc : 1),
                                             SMM_OK);
                            ck_assert_msg(memcmp(got, want, sizeof(float) * (size_t)(m * n)) == 0,
                                          "%s m %lld n %lld k %lld alpha %g beta %g %s threads %d",
                                          smallk_kernels_for(isas[q])->head.name, (long long)m, (long long)n,
                                          (long long)k, alpha, beta, col_major ? "col" : "row", threads);
                        }
                    }
    free(A), free(B), free(C0), free(want), free(got);
}
END_TEST

/*
 * Any alpha and beta, any data: the SIMD paths give the fused arithmetic of the contract bit for bit (ab = fmaf(a, b,
 * ab) from 0 in increasing p, then alpha * ab and fmaf(beta, c, .)), the scalar path the separate one.
 */
START_TEST(arithmetic_of_the_contract)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    const int64_t m = 37, n = 53;
    const float alphas[] = { 1.0f, -1.5f }, betas[] = { 0.0f, 1.0f, 0.3f };
    uint64_t rng = 57;
    float A[37 * 32], B[32 * 53], C0[37 * 53], got[37 * 53];
    test_fill_uniform(A, m * 32, &rng);
    test_fill_uniform(B, 32 * n, &rng);
    test_fill_uniform(C0, m * n, &rng);
    for (int64_t k = 1; k <= SMALLK_MAX_K; k += 3)
        for (int ai = 0; ai < 2; ai++)
            for (int bi = 0; bi < 3; bi++) {
                const float alpha = alphas[ai], beta = betas[bi];
                for (int q = 0; q < nisa; q++) {
                    const int fused = isas[q] != SMM_ISA_SCALAR;
                    const smm_context ctx = { isas[q], 2 };
                    memcpy(got, C0, sizeof got);
                    ck_assert_int_eq(smallk_gemm(&ctx, m, n, k, alpha, A, k, 1, B, n, 1, beta, got, n, 1), SMM_OK);
                    for (int64_t i = 0; i < m; i++)
                        for (int64_t j = 0; j < n; j++) {
                            float ab = 0.0f;
                            for (int64_t p = 0; p < k; p++)
                                ab = fused ? fmaf(A[i * k + p], B[p * n + j], ab) : ab + A[i * k + p] * B[p * n + j];
                            float want = alpha * ab;
                            if (beta != 0.0f)
                                want = fused ? fmaf(beta, C0[i * n + j], want) : beta * C0[i * n + j] + want;
                            ck_assert_msg(got[i * n + j] == want, "%s k %lld alpha %g beta %g (%lld, %lld): %a vs %a",
                                          smallk_kernels_for(isas[q])->head.name, (long long)k, alpha, beta,
                                          (long long)i, (long long)j, got[i * n + j], want);
                        }
                }
            }
}
END_TEST

START_TEST(kernel_table_rows)
{
    ck_assert(smallk_kernels_for(SMM_ISA_SCALAR)->strip == smallk_strip_scalar);
    ck_assert_str_eq(smallk_kernels_for(SMM_ISA_SCALAR)->head.name, "scalar");
    ck_assert(smallk_kernels_for(SMM_ISA_AUTO)->strip == smallk_strip_scalar);
#if defined(__x86_64__)
    ck_assert(smallk_kernels_for(SMM_ISA_NEON)->strip == smallk_strip_scalar);
    if (smm_isa_supported(SMM_ISA_AVX2))
        ck_assert(smallk_kernels_for(SMM_ISA_AVX2)->strip == smallk_strip_avx2_6x16);
    if (smm_isa_supported(SMM_ISA_AVX512))
        ck_assert(smallk_kernels_for(SMM_ISA_AVX512)->strip == smallk_strip_avx512_12x32);
#endif
#if defined(__aarch64__)
    ck_assert(smallk_kernels_for(SMM_ISA_NEON)->strip == smallk_strip_neon_8x12);
#endif
}
END_TEST

/*
 * The dense estimate of a sketched-factor method at s <= 32, large enough to stream (C of 8.4 MB): the same bits
 * for every thread count and on a C of another layout (transposed values).
 */
START_TEST(dense_estimate_streams_and_reproduces)
{
    const int64_t m = 1030, n = 2050, k = 40;
    float *A = malloc(sizeof(float) * (size_t)(m * k)), *B = malloc(sizeof(float) * (size_t)(k * n));
    float *C1 = malloc(sizeof(float) * (size_t)(m * n)), *C = malloc(sizeof(float) * (size_t)(m * n));
    ck_assert(A && B && C1 && C);
    uint64_t rng = 59;
    test_fill_uniform(A, m * k, &rng);
    test_fill_uniform(B, k * n, &rng);
    const sketch_method methods[] = { SKETCH_LOWRANK, SKETCH_GAUSSIAN_PROJECTION, SKETCH_COUNTSKETCH };
    for (size_t mi = 0; mi < sizeof methods / sizeof methods[0]; mi++) {
        approx_options o = APPROX_OPTIONS_INIT;
        o.method = methods[mi];
        o.size = 8;
        for (int threads = 1; threads <= 3; threads++) {
            o.num_threads = threads;
            float *out = threads == 1 ? C1 : C;
            ck_assert_int_eq(approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1.0f, A, k, B, n, 0.0f,
                                          out, n, &o, NULL),
                             SMM_OK);
            if (threads > 1)
                ck_assert_msg(memcmp(C, C1, sizeof(float) * (size_t)(m * n)) == 0, "%s threads %d",
                              sketch_method_name(methods[mi]), threads);
        }
        /* column-major C: the transpose of the same values */
        ck_assert_int_eq(approx_sgemm(SMM_COL_MAJOR, SMM_TRANS, SMM_TRANS, m, n, k, 1.0f, A, k, B, n, 0.0f, C, m, &o,
                                      NULL),
                         SMM_OK);
        for (int64_t i = 0; i < m; i += 37)
            for (int64_t j = 0; j < n; j++)
                ck_assert_msg(C[j * m + i] == C1[i * n + j], "%s column-major (%lld, %lld)",
                              sketch_method_name(methods[mi]), (long long)i, (long long)j);
    }
    free(A), free(B), free(C1), free(C);
}
END_TEST

static Suite *smallk_suite(void)
{
    Suite *suite = suite_create("smallk_gemm");
    TCase *tc = tcase_create("smallk_gemm");
    tcase_set_timeout(tc, 600);
    tcase_add_checked_fixture(tc, NULL, test_restore_defaults);
    tcase_add_test(tc, kernels_exact_on_integer_data);
    tcase_add_test(tc, streaming_stores_at_every_offset);
    tcase_add_test(tc, equals_exact_sgemm);
    tcase_add_test(tc, arithmetic_of_the_contract);
    tcase_add_test(tc, kernel_table_rows);
    tcase_add_test(tc, dense_estimate_streams_and_reproduces);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    return test_run_suite(smallk_suite());
}
