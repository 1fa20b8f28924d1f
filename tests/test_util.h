/*
 * test_util.h - helpers shared by the Check suites: a seeded generator for
 * test data and the list of ISA paths this CPU can run.
 */
#ifndef SMM_TEST_UTIL_H
#define SMM_TEST_UTIL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <check.h>

#include "sketchmm.h"

/* splitmix64: a small, seeded, platform-independent generator for test data. */
static inline uint64_t test_rng_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform in [-1, 1). */
static inline float test_rng_uniform(uint64_t *state)
{
    return (float)((double)(test_rng_next(state) >> 11) * 0x1.0p-52 - 1.0);
}

/* Fill n floats with uniform values in [-1, 1). */
static inline void test_fill_uniform(float *x, int64_t n, uint64_t *state)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = test_rng_uniform(state);
}

/* rows x d, row-major: every row a shared direction plus uniform noise of the given size (aligned data). */
static inline void test_fill_aligned(float *x, int64_t rows, int64_t d, const float *direction, float noise,
                                     uint64_t *rng)
{
    for (int64_t i = 0; i < rows; i++)
        for (int64_t t = 0; t < d; t++)
            x[i * d + t] = direction[t] + noise * test_rng_uniform(rng);
}

/* Store the row-major rows x cols matrix X as op(stored) in `layout`, leading dimension ld. */
static inline void test_store(smm_layout layout, smm_trans trans, int64_t rows, int64_t cols, const float *X,
                              float *stored, int64_t ld)
{
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            /* op(X)(i, j) is stored X(i, j) or X(j, i) */
            const int64_t r = trans == SMM_NO_TRANS ? i : j, c = trans == SMM_NO_TRANS ? j : i;
            stored[layout == SMM_ROW_MAJOR ? r * ld + c : c * ld + r] = X[i * cols + j];
        }
}

/* Floats a rows x cols op(X) takes when stored in `layout` with leading dimension ld. */
static inline int64_t test_stored_size(smm_layout layout, smm_trans trans, int64_t rows, int64_t cols, int64_t ld)
{
    const int64_t r = trans == SMM_NO_TRANS ? rows : cols, c = trans == SMM_NO_TRANS ? cols : rows;
    return layout == SMM_ROW_MAJOR ? r * ld : c * ld;
}

/* ||C - A B||_F for row-major A (m x k), B (k x n) and C (m x n), the product in double; ||A B||_F in *ref_norm. */
static inline double test_product_error(int64_t m, int64_t n, int64_t k, const float *A, const float *B,
                                        const float *C, double *ref_norm)
{
    double err = 0.0, ref = 0.0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double acc = 0.0;
            for (int64_t t = 0; t < k; t++)
                acc += (double)A[i * k + t] * (double)B[t * n + j];
            err += (C[i * n + j] - acc) * (C[i * n + j] - acc);
            ref += acc * acc;
        }
    if (ref_norm)
        *ref_norm = sqrt(ref);
    return sqrt(err);
}

/* ||C - A B||_F / ||A B||_F, as test_product_error. */
static inline double test_relative_error(int64_t m, int64_t n, int64_t k, const float *A, const float *B,
                                         const float *C)
{
    double ref;
    const double err = test_product_error(m, n, k, A, B, C, &ref);
    return err / ref;
}

/* FNV-1a 64 of n bytes, continuing from h (start: UINT64_C(0xcbf29ce484222325)): golden hashes of outputs. */
static inline uint64_t test_fnv1a(const void *p, size_t n, uint64_t h)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= UINT64_C(0x100000001B3);
    }
    return h;
}

/*
 * The ISA paths this CPU supports, SMM_ISA_SCALAR first. Returns how many
 * were written to isas (at most 4).
 */
static inline int test_supported_isas(smm_isa isas[4])
{
    static const smm_isa all[] = { SMM_ISA_SCALAR, SMM_ISA_AVX2, SMM_ISA_AVX512, SMM_ISA_NEON };
    int n = 0;
    for (int i = 0; i < 4; i++)
        if (smm_isa_supported(all[i]))
            isas[n++] = all[i];
    return n;
}

/* Back to the automatic ISA choice, thread count and code generation setting (a fixture's teardown). */
static inline void test_restore_defaults(void)
{
    smm_set_isa(SMM_ISA_AUTO);
    smm_set_num_threads(0);
    smm_set_jit(-1);
}

/* Run a suite and return a process exit code (0 when nothing failed). */
static inline int test_run_suite(Suite *suite)
{
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif /* SMM_TEST_UTIL_H */
