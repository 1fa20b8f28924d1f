/*
 * test_dispatch.c - the kernel-table lookup of common/smm_dispatch.h: a
 * path's own row, the fallbacks (avx512 -> avx2 -> scalar, neon -> scalar),
 * rows needing CPU features this machine lacks.
 */
#include <string.h>

#include "test_util.h"

#include "common/smm_dispatch.h"

typedef struct {
    smm_kernel_head head;
    int id;
} fake_row;

START_TEST(own_row_and_fallbacks)
{
    static const fake_row only_scalar[SMM_ISA_COUNT] = { [SMM_ISA_SCALAR] = { { "scalar", 0 }, 1 } };
    for (int isa = SMM_ISA_SCALAR; isa < SMM_ISA_COUNT; isa++)
        ck_assert_int_eq(SMM_KERNELS_FOR(only_scalar, (smm_isa)isa)->id, 1);

    static const fake_row avx2_only[SMM_ISA_COUNT] = {
        [SMM_ISA_SCALAR] = { { "scalar", 0 }, 1 },
        [SMM_ISA_AVX2] = { { "avx2_x", 0 }, 2 },
    };
    ck_assert_int_eq(SMM_KERNELS_FOR(avx2_only, SMM_ISA_AVX2)->id, 2);
    ck_assert_int_eq(SMM_KERNELS_FOR(avx2_only, SMM_ISA_AVX512)->id, 2); /* avx512 -> avx2 */
    ck_assert_int_eq(SMM_KERNELS_FOR(avx2_only, SMM_ISA_NEON)->id, 1);   /* neon -> scalar */
    ck_assert_str_eq(SMM_KERNELS_FOR(avx2_only, SMM_ISA_AVX512)->head.name, "avx2_x");
}
END_TEST

START_TEST(rows_needing_features)
{
    /* a feature no CPU reports (all bits): the row is never taken, its path falls back */
    static const fake_row table[SMM_ISA_COUNT] = {
        [SMM_ISA_SCALAR] = { { "scalar", 0 }, 1 },
        [SMM_ISA_AVX2] = { { "avx2_x", 0 }, 2 },
        [SMM_ISA_AVX512] = { { "avx512_x", ~0u }, 3 },
    };
    ck_assert_int_eq(SMM_KERNELS_FOR(table, SMM_ISA_AVX512)->id, 2);
    /* a feature this CPU has (its own flags, whatever they are): taken */
    const unsigned have = smm_cpu()->flags;
    const fake_row ours[SMM_ISA_COUNT] = {
        [SMM_ISA_SCALAR] = { { "scalar", 0 }, 1 },
        [SMM_ISA_AVX512] = { { "avx512_y", have }, 4 },
    };
    ck_assert_int_eq(SMM_KERNELS_FOR(ours, SMM_ISA_AVX512)->id, 4);
}
END_TEST

START_TEST(cpu_flags_imply_their_path)
{
    const smm_cpu_features *f = smm_cpu();
    if (f->flags != 0)
        ck_assert_int_eq(f->avx512, 1); /* every SMM_CPU_* feature is an AVX-512 extension */
    ck_assert_int_eq((f->flags & SMM_CPU_VPOPCNTDQ) != 0, f->avx512_vpopcntdq);
}
END_TEST

static Suite *dispatch_suite(void)
{
    Suite *s = suite_create("dispatch");
    TCase *tc = tcase_create("tables");
    tcase_add_test(tc, own_row_and_fallbacks);
    tcase_add_test(tc, rows_needing_features);
    tcase_add_test(tc, cpu_flags_imply_their_path);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(dispatch_suite());
}
