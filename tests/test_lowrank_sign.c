/*
 * test_lowrank_sign.c - the sparse sign sketch of the low-rank range finder
 * (approx/lowrank_sign.h, approx/approx_lowrank_passes.h):
 *   - every path's kernels give the plain-C twin's bits on any data (the
 *     order of the additions is the contract), on edge shapes: vector counts
 *     and coordinate counts around the tile widths (1 .. 100), 1 to 24 rows
 *     of the partial, strides past the ranges, v read only inside its range
 *     and part written only at its entries; the rows and cols kernels give
 *     the same bits on the same vectors;
 *   - lowrank_sign_sketch gives the same bits for 1 to 3 threads, for row-
 *     and column-major vectors and on every path, and agrees with the
 *     definition (a double sum of the signed vectors per bucket) to a
 *     rounding error, on shapes from n = 1, k = 1, l = 1 to several chunks.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "approx/approx_classical.h"
#include "approx/approx_lowrank_passes.h"
#include "approx/lowrank_sign.h"
#include "test_util.h"

/* bucket[i] in [0, l) and sign[i] = +-1 from the generator. */
static void fill_buckets(int32_t *bucket, float *sign, int64_t nb, int64_t l, uint64_t *rng)
{
    for (int64_t i = 0; i < nb; i++) {
        const uint64_t h = test_rng_next(rng);
        bucket[i] = (int32_t)(h % (uint64_t)l);
        sign[i] = h >> 63 ? -1.0f : 1.0f;
    }
}

START_TEST(kernels_match_twin_on_edge_shapes)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    const int64_t counts[] = { 0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65, 100 };
    const int64_t ls[] = { 1, 2, 5, 24 };
    const int ncounts = (int)(sizeof counts / sizeof counts[0]);
    uint64_t rng = 3131;
    for (size_t li = 0; li < sizeof ls / sizeof ls[0]; li++)
        for (int ni = 0; ni < ncounts; ni++)
            for (int wi = 1; wi < ncounts; wi++) { /* w >= 1 */
                const int64_t l = ls[li], nb = counts[ni], w = counts[wi], ldp = w + 3;
                const int64_t part_size = (l - 1) * ldp + w;
                /* rows: vector i at v + i (w + 5); cols: coordinate t of vector i at v + t (nb + 2) + i; the
                 * buffers hold exactly the floats read, so a read past them fails under the sanitizers */
                const int64_t ld_rows = w + 5, ld_cols = nb + 2;
                const int64_t rows_size = nb > 0 ? (nb - 1) * ld_rows + w : 0;
                const int64_t cols_size = nb > 0 ? (w - 1) * ld_cols + nb : 0;
                float *vr = malloc(sizeof(float) * (size_t)(rows_size > 0 ? rows_size : 1));
                float *vc = malloc(sizeof(float) * (size_t)(cols_size > 0 ? cols_size : 1));
                float *start = malloc(sizeof(float) * (size_t)part_size);
                float *want = malloc(sizeof(float) * (size_t)part_size);
                float *got = malloc(sizeof(float) * (size_t)part_size);
                int32_t *bucket = malloc(sizeof(int32_t) * (size_t)(nb > 0 ? nb : 1));
                float *sign = malloc(sizeof(float) * (size_t)(nb > 0 ? nb : 1));
                ck_assert(vr && vc && start && want && got && bucket && sign);
                fill_buckets(bucket, sign, nb, l, &rng);
                test_fill_uniform(start, part_size, &rng);
                for (int64_t i = 0; i < nb; i++) /* the same vectors in both layouts */
                    for (int64_t t = 0; t < w; t++)
                        vr[i * ld_rows + t] = vc[t * ld_cols + i] = test_rng_uniform(&rng) * 8.0f;
                memcpy(want, start, sizeof(float) * (size_t)part_size);
                lowrank_sign_rows_scalar(want, ldp, vr, ld_rows, bucket, sign, nb, w);
                memcpy(got, start, sizeof(float) * (size_t)part_size);
                lowrank_sign_cols_scalar(got, ldp, vc, ld_cols, bucket, sign, nb, w);
                ck_assert_msg(memcmp(got, want, sizeof(float) * (size_t)part_size) == 0,
                              "twin cols vs rows: l %lld nb %lld w %lld", (long long)l, (long long)nb, (long long)w);
                for (int64_t b = 0; b < l; b++) /* the gap between rows untouched */
                    for (int64_t t = w; b < l - 1 && t < ldp; t++)
                        ck_assert(want[b * ldp + t] == start[b * ldp + t]);
                for (int q = 0; q < nisa; q++) {
                    const lowrank_sign_kernels *kern = lowrank_sign_kernels_for(isas[q]);
                    for (int layout = 0; layout < 2; layout++) {
                        memcpy(got, start, sizeof(float) * (size_t)part_size);
                        if (layout == 0)
                            kern->rows(got, ldp, vr, ld_rows, bucket, sign, nb, w);
                        else
                            kern->cols(got, ldp, vc, ld_cols, bucket, sign, nb, w);
                        ck_assert_msg(memcmp(got, want, sizeof(float) * (size_t)part_size) == 0,
                                      "%s %s: l %lld nb %lld w %lld differs from the twin", kern->head.name,
                                      layout == 0 ? "rows" : "cols", (long long)l, (long long)nb, (long long)w);
                    }
                }
                free(vr), free(vc), free(start), free(want), free(got), free(bucket), free(sign);
            }
}
END_TEST

START_TEST(kernel_table_rows)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    ck_assert_str_eq(lowrank_sign_kernels_for(SMM_ISA_SCALAR)->head.name, "scalar");
    ck_assert_ptr_eq(lowrank_sign_kernels_for(SMM_ISA_AUTO), lowrank_sign_kernels_for(SMM_ISA_SCALAR));
    for (int q = 0; q < nisa; q++) {
        const lowrank_sign_kernels *kern = lowrank_sign_kernels_for(isas[q]);
        const char *want = isas[q] == SMM_ISA_AVX2     ? "avx2_8x8"
                           : isas[q] == SMM_ISA_AVX512 ? "avx512_16x16"
                           : isas[q] == SMM_ISA_NEON   ? "neon_4x4"
                                                       : "scalar";
        ck_assert_str_eq(kern->head.name, want);
        ck_assert(kern->rows != NULL && kern->cols != NULL);
    }
}
END_TEST

/* Yt of the definition: for each column j of op(B), sign_j times it added to row bucket_j, in double. */
static void sketch_reference(const float *X, int64_t n, int64_t k, int64_t l, uint64_t seed, double *ref,
                             double *magnitude)
{
    memset(ref, 0, sizeof(double) * (size_t)(l * k));
    memset(magnitude, 0, sizeof(double) * (size_t)(l * k));
    for (int64_t j = 0; j < n; j++) {
        const uint64_t h = classical_hash(seed, (uint64_t)j);
        const int64_t b = (int64_t)(((h & 0xffffffffu) * (uint64_t)l) >> 32);
        const double sgn = h >> 63 ? -1.0 : 1.0;
        for (int64_t t = 0; t < k; t++) {
            ref[b * k + t] += sgn * X[j * k + t];
            magnitude[b * k + t] += fabs(X[j * k + t]);
        }
    }
}

START_TEST(sketch_bits_independent_of_threads_layout_and_path)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    /* n across chunk boundaries (2048 columns), k across tile widths, l down to 1 */
    const int64_t shapes[][3] = { { 1, 1, 1 },     { 1, 17, 3 },    { 5, 1, 2 },    { 37, 33, 5 },
                                  { 300, 100, 9 }, { 2048, 16, 4 }, { 2049, 7, 1 }, { 5000, 65, 24 } };
    uint64_t rng = 77;
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        const int64_t n = shapes[si][0], k = shapes[si][1], l = shapes[si][2];
        const uint64_t seed = 1000 + si;
        float *X = malloc(sizeof(float) * (size_t)(n * k)); /* row-major: column j of op(B) at X + j k */
        float *Xc = malloc(sizeof(float) * (size_t)((k - 1) * (n + 3) + n)); /* column-major, ld n + 3 */
        float *Yt = malloc(sizeof(float) * (size_t)(l * k)), *first = malloc(sizeof(float) * (size_t)(l * k));
        double *ref = malloc(sizeof(double) * (size_t)(l * k)), *mag = malloc(sizeof(double) * (size_t)(l * k));
        ck_assert(X && Xc && Yt && first && ref && mag);
        test_fill_uniform(X, n * k, &rng);
        for (int64_t j = 0; j < n; j++)
            for (int64_t t = 0; t < k; t++)
                Xc[t * (n + 3) + j] = X[j * k + t];
        sketch_reference(X, n, k, l, seed, ref, mag);
        const approx_vectors rows = { SMM_ROW_MAJOR, n, X, k }, cols = { SMM_COL_MAJOR, n, Xc, n + 3 };
        int have_first = 0;
        for (int q = 0; q < nisa; q++)
            for (int layout = 0; layout < 2; layout++)
                for (int threads = 1; threads <= 3; threads++) {
                    const smm_context ctx = { isas[q], threads };
                    for (int64_t e = 0; e < l * k; e++)
                        Yt[e] = NAN;
                    ck_assert_int_eq(lowrank_sign_sketch(&ctx, layout == 0 ? &rows : &cols, k, l, seed, Yt), SMM_OK);
                    if (!have_first) {
                        for (int64_t e = 0; e < l * k; e++) /* float sums of at most 2048 terms each */
                            ck_assert_msg(fabs(Yt[e] - ref[e]) <= 4e-4 * mag[e] + 1e-30,
                                          "n %lld k %lld l %lld: entry %lld %g vs %g", (long long)n, (long long)k,
                                          (long long)l, (long long)e, Yt[e], ref[e]);
                        memcpy(first, Yt, sizeof(float) * (size_t)(l * k));
                        have_first = 1;
                    }
                    ck_assert_msg(memcmp(Yt, first, sizeof(float) * (size_t)(l * k)) == 0,
                                  "n %lld k %lld l %lld: isa %d %s threads %d gives other bits", (long long)n,
                                  (long long)k, (long long)l, (int)isas[q], layout == 0 ? "row-major" : "col-major",
                                  threads);
                }
        free(X), free(Xc), free(Yt), free(first), free(ref), free(mag);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lowrank_sign");
    TCase *tc = tcase_create("lowrank_sign");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, kernel_table_rows);
    tcase_add_test(tc, kernels_match_twin_on_edge_shapes);
    tcase_add_test(tc, sketch_bits_independent_of_threads_layout_and_path);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
