/* test_runtime.c - status codes, version, ISA selection and thread settings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

/* 15 and 16 are the tools' file statuses (data/dataset.h), unknown to the library. */
static int library_status(int s)
{
    return s != 15 && s != 16;
}

START_TEST(status_strings_are_distinct)
{
    for (int a = SMM_OK; a <= SMM_ERR_BAD_ARGUMENT; a++) {
        if (!library_status(a))
            continue;
        const char *sa = smm_status_str((smm_status)a);
        ck_assert_ptr_nonnull(sa);
        ck_assert_int_gt((int)strlen(sa), 0);
        for (int b = a + 1; b <= SMM_ERR_BAD_ARGUMENT; b++)
            if (library_status(b))
                ck_assert_str_ne(sa, smm_status_str((smm_status)b));
    }
    ck_assert_str_eq(smm_status_str((smm_status)9999), "unknown status code");
    ck_assert_str_eq(smm_status_str((smm_status)15), "unknown status code");
}
END_TEST

/*
 * SMM_ERR_BAD_SIZE is returned for negative dimensions and also for zero (or
 * too large) ones where a function requires at least 1 (approx_plan_create's
 * k and n, the top-k calls' k and n, the Hamming kernels' words): its text
 * must say so, not only "negative".
 */
START_TEST(bad_size_string_covers_zero_and_limits)
{
    const char *s = smm_status_str(SMM_ERR_BAD_SIZE);
    ck_assert_msg(strstr(s, "negative") != NULL && strstr(s, "zero") != NULL && strstr(s, "limit") != NULL,
                  "SMM_ERR_BAD_SIZE reads \"%s\"", s);
    /* the option statuses keep their own texts: an option out of range is a bad argument */
    ck_assert_ptr_null(strstr(smm_status_str(SMM_ERR_BAD_ARGUMENT), "dimension"));
    /* non-finite covers the values a call derives (norms, sketches) as well as the inputs */
    ck_assert_msg(strstr(smm_status_str(SMM_ERR_NON_FINITE), "overflow") != NULL, "SMM_ERR_NON_FINITE reads \"%s\"",
                  smm_status_str(SMM_ERR_NON_FINITE));
}
END_TEST

START_TEST(version_matches_macros)
{
    char expect[32];
    snprintf(expect, sizeof expect, "%d.%d.%d", SKETCHMM_VERSION_MAJOR, SKETCHMM_VERSION_MINOR,
             SKETCHMM_VERSION_PATCH);
    ck_assert_str_eq(smm_version(), expect);
    ck_assert_int_eq(smm_version_number(), SKETCHMM_VERSION_NUMBER);
    ck_assert_int_eq(SKETCHMM_VERSION_NUMBER,
                     SKETCHMM_VERSION_MAJOR * 10000 + SKETCHMM_VERSION_MINOR * 100 + SKETCHMM_VERSION_PATCH);
}
END_TEST

/* An ISA path this build can never run on this CPU. */
static smm_isa foreign_isa(void)
{
#if defined(__aarch64__)
    return SMM_ISA_AVX2;
#else
    return SMM_ISA_NEON;
#endif
}

START_TEST(isa_selection_and_errors)
{
    smm_isa isa;
    ck_assert_int_eq(smm_set_isa(SMM_ISA_SCALAR), SMM_OK);
    ck_assert_int_eq(smm_get_isa(&isa), SMM_OK);
    ck_assert_int_eq(isa, SMM_ISA_SCALAR);
    ck_assert_str_eq(smm_isa_name(isa), "scalar");
    ck_assert_ptr_null(smm_isa_name((smm_isa)42));

    ck_assert_int_eq(smm_set_isa((smm_isa)42), SMM_ERR_BAD_ISA);
    ck_assert_int_eq(smm_get_isa(&isa), SMM_OK); /* an unknown value changes nothing */
    ck_assert_int_eq(isa, SMM_ISA_SCALAR);

    ck_assert_int_eq(smm_isa_supported(foreign_isa()), 0);
    ck_assert_int_eq(smm_set_isa(foreign_isa()), SMM_ERR_ISA_UNAVAILABLE);
    ck_assert_int_eq(smm_get_isa(&isa), SMM_ERR_ISA_UNAVAILABLE);
    float a = 1, b = 2, c = 7;
    ck_assert_int_eq(exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 1, 1, 1, 1, &a, 1, &b, 1, 0, &c, 1),
                     SMM_ERR_ISA_UNAVAILABLE);
    ck_assert(c == 7.0f);
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
    ck_assert_int_eq(exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 1, 1, 1, 1, &a, 1, &b, 1, 0, &c, 1),
                     SMM_OK);
    ck_assert(c == 2.0f);
}
END_TEST

START_TEST(isa_environment_override)
{
    smm_isa isa;
    setenv("SKETCHMM_ISA", "  Scalar ", 1);
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
    ck_assert_int_eq(smm_get_isa(&isa), SMM_OK);
    ck_assert_int_eq(isa, SMM_ISA_SCALAR);

    setenv("SKETCHMM_ISA", smm_isa_name(foreign_isa()), 1);
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_ERR_ISA_UNAVAILABLE);
    ck_assert_str_eq(exact_sgemm_kernel_name(), "unavailable");

    setenv("SKETCHMM_ISA", "sse9", 1);
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_ERR_BAD_ENV);
    float a = 1, b = 2, c = 7;
    ck_assert_int_eq(exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 1, 1, 1, 1, &a, 1, &b, 1, 0, &c, 1),
                     SMM_ERR_BAD_ENV);
    ck_assert(c == 7.0f);

    /* An explicit choice replaces a failed environment selection. */
    ck_assert_int_eq(smm_set_isa(SMM_ISA_SCALAR), SMM_OK);
    ck_assert_int_eq(smm_get_isa(&isa), SMM_OK);

    unsetenv("SKETCHMM_ISA");
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
    ck_assert_int_eq(smm_get_isa(&isa), SMM_OK);
    ck_assert(smm_isa_supported(isa));
    ck_assert_int_ne(isa, SMM_ISA_AUTO);
}
END_TEST

START_TEST(every_supported_isa_can_be_selected)
{
    smm_isa isas[4];
    const int count = test_supported_isas(isas);
    ck_assert_int_ge(count, 1);
    for (int i = 0; i < count; i++) {
        smm_isa got;
        ck_assert_int_eq(smm_set_isa(isas[i]), SMM_OK);
        ck_assert_int_eq(smm_get_isa(&got), SMM_OK);
        ck_assert_int_eq(got, isas[i]);
        ck_assert_str_ne(exact_sgemm_kernel_name(), "unavailable");
        ck_assert_int_gt((int)strlen(sketch_hamming_kernel_name()), 0);
    }
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
}
END_TEST

/*
 * The kernel-name rule of common.h: every *_kernel_name() starts with the
 * smm_isa_name of the path whose kernel runs (the selected path, or one it
 * falls back to: avx512 -> avx2 -> scalar, neon -> scalar), then nothing or
 * "_" and a detail.
 */
static int follows_kernel_name_rule(const char *name, smm_isa selected)
{
    static const smm_isa paths[] = { SMM_ISA_SCALAR, SMM_ISA_AVX2, SMM_ISA_AVX512, SMM_ISA_NEON };
    for (int p = 0; p < 4; p++) {
        const char *isa = smm_isa_name(paths[p]);
        const size_t len = strlen(isa);
        if (strncmp(name, isa, len) != 0 || (name[len] != '\0' && name[len] != '_'))
            continue;
        if (paths[p] == selected || paths[p] == SMM_ISA_SCALAR)
            return 1;
        return selected == SMM_ISA_AVX512 && paths[p] == SMM_ISA_AVX2;
    }
    return 0;
}

START_TEST(kernel_names_start_with_their_isa)
{
    smm_isa isas[4];
    const int count = test_supported_isas(isas);
    for (int i = 0; i < count; i++) {
        ck_assert_int_eq(smm_set_isa(isas[i]), SMM_OK);
        const char *names[5] = { exact_sgemm_kernel_name(), sketch_hamming_kernel_name(),
                                 sketch_crosspolytope_kernel_name(), unary_kernel_name(), mat4_kernel_name() };
        for (int k = 0; k < 5; k++)
            ck_assert_msg(follows_kernel_name_rule(names[k], isas[i]), "path %s: kernel name %d is \"%s\"",
                          smm_isa_name(isas[i]), k, names[k]);
        /* exact_sgemm has a micro-kernel of its own on every path */
        const char *isa = smm_isa_name(isas[i]);
        ck_assert_int_eq(strncmp(exact_sgemm_kernel_name(), isa, strlen(isa)), 0);
    }
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
}
END_TEST

START_TEST(thread_settings)
{
    ck_assert_int_eq(smm_set_num_threads(-1), SMM_ERR_BAD_THREADS);
    ck_assert_int_eq(smm_set_num_threads(3), SMM_OK);
    ck_assert_int_eq(smm_get_num_threads(), 3);

    setenv("SKETCHMM_NUM_THREADS", "2", 1);
    ck_assert_int_eq(smm_set_num_threads(0), SMM_OK);
    ck_assert_int_eq(smm_get_num_threads(), 2);

    setenv("SKETCHMM_NUM_THREADS", "two", 1);
    ck_assert_int_eq(smm_set_num_threads(0), SMM_ERR_BAD_ENV);
    float a = 1, b = 2, c = 7;
    ck_assert_int_eq(exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 1, 1, 1, 1, &a, 1, &b, 1, 0, &c, 1),
                     SMM_ERR_BAD_ENV);
    ck_assert(c == 7.0f);
    setenv("SKETCHMM_NUM_THREADS", "0", 1);
    ck_assert_int_eq(smm_set_num_threads(0), SMM_ERR_BAD_ENV);

    unsetenv("SKETCHMM_NUM_THREADS");
    ck_assert_int_eq(smm_set_num_threads(0), SMM_OK);
    ck_assert_int_ge(smm_get_num_threads(), 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("runtime");
    TCase *tc = tcase_create("runtime");
    tcase_add_test(tc, status_strings_are_distinct);
    tcase_add_test(tc, bad_size_string_covers_zero_and_limits);
    tcase_add_test(tc, version_matches_macros);
    tcase_add_test(tc, isa_selection_and_errors);
    tcase_add_test(tc, isa_environment_override);
    tcase_add_test(tc, every_supported_isa_can_be_selected);
    tcase_add_test(tc, kernel_names_start_with_their_isa);
    tcase_add_test(tc, thread_settings);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
