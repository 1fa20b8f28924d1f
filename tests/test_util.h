/*
 * test_util.h - helpers shared by the Check suites: a seeded generator for
 * test data and the list of ISA paths this CPU can run.
 */
#ifndef SMM_TEST_UTIL_H
#define SMM_TEST_UTIL_H

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
