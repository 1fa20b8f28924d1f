/*
 * test_exact_shape.c - an entry of exact_sgemm's product does not depend on
 * the shape of the product it is computed in: a block of rows or columns
 * of A B gets the bits of the same entries of the whole product, on every
 * ISA path, with k across several of the packed path's depth blocks and
 * blocks small enough for the small-product path (which must sum over k in
 * the same blocks), under the default configuration and under tuned ones
 * (every micro-kernel shape of a path, another kc and small-product
 * threshold). Sharded top-k relies on it (mpi/: every rank computes its
 * columns alone, and the result must be bit-identical to one process).
 */
#include <string.h>

#include "test_config.h"
#include "test_util.h"

/* Blocks of columns [j0, j0 + w) and rows [i0, i0 + h) of an m x n product, small and large. */
static const int64_t col_blocks[][2] = { { 0, 1 }, { 7, 5 }, { 123, 33 }, { 300, 100 }, { 1, 599 }, { 0, 600 } };
static const int64_t row_blocks[][2] = { { 0, 1 }, { 5, 7 }, { 13, 17 } };

/* Every block of col_blocks x row_blocks of the m x n product A B^T against C, the whole product. */
static void check_blocks(const char *what, int64_t m, int64_t n, int64_t k, const float *A, const float *B, float *C,
                         float *part)
{
    ck_assert_int_eq(exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, n, k, 1.0f, A, k, B, k, 0.0f, C, n),
                     SMM_OK);
    for (size_t c = 0; c < sizeof col_blocks / sizeof col_blocks[0]; c++)
        for (size_t r = 0; r < sizeof row_blocks / sizeof row_blocks[0]; r++) {
            const int64_t j0 = col_blocks[c][0], w = col_blocks[c][1];
            const int64_t i0 = row_blocks[r][0], h = row_blocks[r][1];
            ck_assert_int_eq(exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, h, w, k, 1.0f, A + i0 * k, k,
                                         B + j0 * k, k, 0.0f, part, w),
                             SMM_OK);
            for (int64_t i = 0; i < h; i++)
                ck_assert_msg(memcmp(part + i * w, C + (i0 + i) * n + j0, (size_t)w * sizeof(float)) == 0,
                              "%s, k %lld: rows %lld.. x columns %lld..%lld differ from the whole product in row %lld",
                              what, (long long)k, (long long)i0, (long long)j0, (long long)(j0 + w - 1),
                              (long long)(i0 + i));
        }
}

/*
 * On every ISA path: under the default configuration, then under a tuned
 * one for each micro-kernel shape of the path (kc 96, so both k cross
 * several blocks, and a small-product threshold between the smallest
 * blocks and the whole product, so both paths meet).
 */
START_TEST(test_blocks_match_whole_product)
{
    const int64_t m = 30, n = 600, ks[] = { 300, 700 };
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    uint64_t rng = 7;
    for (size_t u = 0; u < sizeof ks / sizeof ks[0]; u++) {
        const int64_t k = ks[u];
        float *A = malloc((size_t)(m * k) * sizeof(float)), *B = malloc((size_t)(n * k) * sizeof(float));
        float *C = malloc((size_t)(m * n) * sizeof(float)), *part = malloc((size_t)(m * n) * sizeof(float));
        ck_assert_ptr_nonnull(part);
        test_fill_uniform(A, m * k, &rng);
        test_fill_uniform(B, n * k, &rng); /* n vectors of k: the product is A B^T, as top-k computes it */
        for (int ii = 0; ii < nisa; ii++) {
            ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
            check_blocks(smm_isa_name(isas[ii]), m, n, k, A, B, C, part);
            const sgemm_kernels *row = sgemm_kernels_for(isas[ii]);
            for (int shape = 0; shape < row->nshapes; shape++) {
                tuning_params p;
                tuning_default_params(isas[ii], shape, &p);
                p.kc = 96;
                p.sup_max_macs = 1.0e6;
                const tuning_state saved = use_config(isas[ii], &p);
                check_blocks(row->shapes[shape].name, m, n, k, A, B, C, part);
                restore_config(&saved);
            }
        }
        free(A);
        free(B);
        free(C);
        free(part);
    }
    test_restore_defaults();
}
END_TEST

static Suite *exact_shape_suite(void)
{
    Suite *s = suite_create("exact_shape");
    TCase *tc = tcase_create("blocks");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_blocks_match_whole_product);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(exact_shape_suite());
}
