/*
 * test_jit.c - Check suite of the run-time code generation machinery
 * (sketchmm/jit.h, exact/jit_code.h, exact/jit_cache.h), through BRGEMM
 * plans, the first user of generated kernels:
 * - the on/off switch: smm_set_jit, SKETCHMM_JIT (0, 1, spaces, garbage),
 *   plan names saying "generated" or "precompiled (code generation off)";
 * - the cache: a second plan of a description is served from it (counts of
 *   sketchmm/jit.h), a freed plan's kernel stays cached, the cache keeps to
 *   SMM_JIT_CACHE_KERNELS (least recently used kernels dropped), plans held
 *   beyond the bound still run, threads creating the same plans at once get
 *   one kernel per description and right results;
 * - W^X: the page of a generated kernel is read+execute, and no mapping of
 *   the process is writable and executable at once;
 * - fork: parent and child both keep running inherited plans while each
 *   makes and frees kernels of its own (the shared code pages are frozen);
 * - exact_sgemm's small products on generated kernels: the bits of the
 *   precompiled small-product kernels;
 * - a system that refuses executable memory (a seccomp filter that fails
 *   mmap and mprotect with PROT_EXEC, in a child process): plans are
 *   created, say why they are precompiled, and compute the right result;
 *   smm_jit_status reports SMM_ERR_NO_EXEC_MEMORY. (Skipped with a note
 *   where seccomp cannot be installed, e.g. under qemu-user.)
 */
#define _GNU_SOURCE 1 /* setenv, unsetenv, syscall */

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_config.h"
#include "test_util.h"

#include "exact/brgemm_jit.h"
#include "exact/jit_cache.h"
#include "sketchmm/brgemm.h"
#include "sketchmm/exact.h"
#include "sketchmm/jit.h"

/* The paths of this machine that have a BRGEMM generator. */
static int generating_isas(smm_isa *isas)
{
    static const smm_isa all[] = { SMM_ISA_AVX2, SMM_ISA_AVX512, SMM_ISA_NEON };
    int n = 0;
    for (int i = 0; i < 3; i++)
        if (smm_isa_supported(all[i]))
            isas[n++] = all[i];
    return n;
}

/* A column-major description, unique per `tag` (its leading dimension of A). */
static brgemm_desc desc_tagged(int64_t m, int64_t n, int64_t k, int64_t tag)
{
    const brgemm_desc d = { SMM_COL_MAJOR, m, n, k, m + tag, k, m, (m + tag) * k, k * n, 1.0f, 1.0f };
    return d;
}

static brgemm_plan *plan_of(const brgemm_desc *d)
{
    brgemm_plan *p = NULL;
    ck_assert_int_eq(brgemm_plan_create(d, &p), SMM_OK);
    return p;
}

static smm_jit_stats stats_now(void)
{
    smm_jit_stats s;
    memset(&s, 0xFF, sizeof s);
    smm_jit_get_stats(&s);
    return s;
}

/*
 * C := C + A B with a plan of d (batch 1, column-major) on small integers,
 * checked against the exact sum: returns 1 when right.
 */
static int plan_computes(const brgemm_plan *plan, const brgemm_desc *d)
{
    const int64_t m = d->m, n = d->n, k = d->k;
    float *A = malloc((size_t)(d->lda * k) * sizeof(float)), *B = malloc((size_t)(d->ldb * n) * sizeof(float));
    float *C = malloc((size_t)(d->ldc * n) * sizeof(float));
    ck_assert(A && B && C);
    for (int64_t x = 0; x < d->lda * k; x++)
        A[x] = (float)((x * 7) % 5 - 2);
    for (int64_t x = 0; x < d->ldb * n; x++)
        B[x] = (float)((x * 3) % 7 - 3);
    for (int64_t x = 0; x < d->ldc * n; x++)
        C[x] = (float)(x % 3);
    int ok = brgemm_execute_strided(plan, A, B, C, 1) == SMM_OK;
    for (int64_t j = 0; ok && j < n; j++)
        for (int64_t r = 0; r < m; r++) {
            float want = (float)((r + j * d->ldc) % 3);
            for (int64_t p = 0; p < k; p++)
                want += A[r + p * d->lda] * B[p + j * d->ldb];
            ok &= C[r + j * d->ldc] == want;
        }
    free(A);
    free(B);
    free(C);
    return ok;
}

START_TEST(test_switch)
{
    smm_isa isas[3];
    const int nisa = generating_isas(isas);
    unsetenv("SKETCHMM_JIT");
    ck_assert_int_eq(smm_set_jit(-1), SMM_OK);
    ck_assert_int_eq(smm_get_jit(), 1); /* on by default */
    ck_assert_int_eq(smm_set_jit(2), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(smm_set_jit(-2), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(smm_get_jit(), 1); /* unchanged */
    const brgemm_desc d = desc_tagged(13, 7, 5, 1);
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        ck_assert_int_eq(smm_set_jit(0), SMM_OK);
        ck_assert_int_eq(smm_get_jit(), 0);
        brgemm_plan *off = plan_of(&d);
        ck_assert_msg(strstr(brgemm_plan_name(off), " precompiled (code generation off)") != NULL, "%s",
                      brgemm_plan_name(off));
        ck_assert_int_eq(smm_set_jit(1), SMM_OK);
        brgemm_plan *on = plan_of(&d);
        ck_assert_msg(strstr(brgemm_plan_name(on), " generated") != NULL, "%s", brgemm_plan_name(on));
        ck_assert(plan_computes(off, &d) && plan_computes(on, &d));
        brgemm_plan_free(off);
        brgemm_plan_free(on);
    }
    /* the environment: read by smm_set_jit(-1) (and at the first use) */
    static const struct {
        const char *value;
        int on;
        smm_status status;
    } env[] = {
        { "0", 0, SMM_OK }, { " 1 ", 1, SMM_OK }, { "1", 1, SMM_OK }, { "", 1, SMM_OK }, { " 0\t", 0, SMM_OK },
        { "2", 0, SMM_ERR_BAD_ENV }, { "on", 0, SMM_ERR_BAD_ENV }, { "01", 0, SMM_ERR_BAD_ENV },
    };
    for (size_t e = 0; e < sizeof env / sizeof env[0]; e++) {
        setenv("SKETCHMM_JIT", env[e].value, 1);
        ck_assert_int_eq(smm_set_jit(-1), env[e].status);
        ck_assert_int_eq(smm_get_jit(), env[e].on);
        brgemm_plan *p = NULL;
        /* an unparsable value fails computing calls, as SKETCHMM_ISA does */
        ck_assert_int_eq(brgemm_plan_create(&d, &p), env[e].status);
        if (env[e].status != SMM_OK) {
            ck_assert_ptr_null(p);
            continue;
        }
        if (nisa > 0)
            ck_assert_msg((strstr(brgemm_plan_name(p), " generated") != NULL) == env[e].on, "SKETCHMM_JIT='%s': %s",
                          env[e].value, brgemm_plan_name(p));
        brgemm_plan_free(p);
    }
    unsetenv("SKETCHMM_JIT");
    ck_assert_int_eq(smm_set_jit(-1), SMM_OK);
    /* smm_set_jit(1) overrides a bad environment until the next -1 */
    setenv("SKETCHMM_JIT", "x", 1);
    ck_assert_int_eq(smm_set_jit(1), SMM_OK);
    brgemm_plan *p = plan_of(&d);
    brgemm_plan_free(p);
    unsetenv("SKETCHMM_JIT");
    test_restore_defaults();
}
END_TEST

START_TEST(test_cache_reuse)
{
    smm_isa isas[3];
    const int nisa = generating_isas(isas);
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        const brgemm_desc d = desc_tagged(9, 11, 6, 1000 + ii);
        const smm_jit_stats s0 = stats_now();
        brgemm_plan *first = plan_of(&d);
        const smm_jit_stats s1 = stats_now();
        ck_assert_int_eq(s1.generated, s0.generated + 1);
        ck_assert_int_eq(s1.hits, s0.hits);
        ck_assert_int_eq(s1.kernels, s0.kernels + 1);
        ck_assert_int_gt(s1.code_bytes, s0.code_bytes);
        ck_assert(s1.generate_seconds > s0.generate_seconds);
        brgemm_plan *second = plan_of(&d);
        const smm_jit_stats s2 = stats_now();
        ck_assert_int_eq(s2.generated, s1.generated);
        ck_assert_int_eq(s2.hits, s1.hits + 1);
        ck_assert(plan_computes(first, &d) && plan_computes(second, &d));
        brgemm_plan_free(first);
        brgemm_plan_free(second);
        /* freed, the kernel stays cached */
        brgemm_plan *third = plan_of(&d);
        const smm_jit_stats s3 = stats_now();
        ck_assert_int_eq(s3.generated, s2.generated);
        ck_assert_int_eq(s3.hits, s2.hits + 1);
        ck_assert_int_eq(s3.kernels, s2.kernels);
        brgemm_plan_free(third);
        /* another description is another kernel; the same with another alpha too */
        brgemm_desc other = d;
        other.alpha = 2.0f;
        brgemm_plan *fourth = plan_of(&other);
        ck_assert_int_eq(stats_now().generated, s3.generated + 1);
        brgemm_plan_free(fourth);
        /* generation off: nothing generated, nothing looked up */
        ck_assert_int_eq(smm_set_jit(0), SMM_OK);
        const smm_jit_stats s5 = stats_now();
        brgemm_plan *off = plan_of(&d);
        const smm_jit_stats s6 = stats_now();
        ck_assert_int_eq(s6.generated, s5.generated);
        ck_assert_int_eq(s6.hits, s5.hits);
        brgemm_plan_free(off);
        ck_assert_int_eq(smm_set_jit(1), SMM_OK);
    }
    smm_jit_get_stats(NULL); /* allowed */
    test_restore_defaults();
}
END_TEST

/* More distinct kernels than the cache holds: freed plans' kernels are dropped, held ones keep running. */
START_TEST(test_cache_bound)
{
    smm_isa isas[3];
    if (generating_isas(isas) == 0)
        return;
    ck_assert_int_eq(smm_set_isa(isas[0]), SMM_OK);
    const int extra = 40, total = SMM_JIT_CACHE_KERNELS + extra;
    const smm_jit_stats s0 = stats_now();
    for (int i = 0; i < total; i++) {
        const brgemm_desc d = desc_tagged(2, 2, 1, 5000 + i);
        brgemm_plan *p = plan_of(&d);
        brgemm_plan_free(p);
    }
    const smm_jit_stats s1 = stats_now();
    ck_assert_int_eq(s1.generated, s0.generated + total);
    ck_assert_int_ge(s1.evicted, s0.evicted + extra);
    ck_assert_int_le(s1.kernels, SMM_JIT_CACHE_KERNELS);
    /* the first descriptions were dropped: asking again writes them again */
    const brgemm_desc d0 = desc_tagged(2, 2, 1, 5000);
    brgemm_plan *again = plan_of(&d0);
    ck_assert_int_eq(stats_now().generated, s1.generated + 1);
    brgemm_plan_free(again);

    /* plans held beyond the bound: each keeps its kernel and computes */
    brgemm_plan **held = malloc((size_t)total * sizeof *held);
    ck_assert_ptr_nonnull(held);
    for (int i = 0; i < total; i++) {
        const brgemm_desc d = desc_tagged(3, 2, 2, 20000 + i);
        held[i] = plan_of(&d);
        ck_assert_msg(strstr(brgemm_plan_name(held[i]), " generated") != NULL, "%s", brgemm_plan_name(held[i]));
    }
    ck_assert_int_ge(stats_now().kernels, total);
    for (int i = 0; i < total; i += 97) {
        const brgemm_desc d = desc_tagged(3, 2, 2, 20000 + i);
        ck_assert(plan_computes(held[i], &d));
    }
    for (int i = 0; i < total; i++)
        brgemm_plan_free(held[i]);
    free(held);
    ck_assert_int_le(stats_now().kernels, SMM_JIT_CACHE_KERNELS);
    test_restore_defaults();
}
END_TEST

typedef struct {
    int rounds, wrong;
    pthread_barrier_t *start;
} worker;

static void *create_and_run(void *arg)
{
    worker *w = arg;
    pthread_barrier_wait(w->start);
    for (int r = 0; r < w->rounds; r++) {
        const brgemm_desc d = desc_tagged(5 + r % 4, 3, 2, 90000 + r % 8);
        brgemm_plan *p = NULL;
        if (brgemm_plan_create(&d, &p) != SMM_OK || !plan_computes(p, &d))
            w->wrong++;
        brgemm_plan_free(p);
    }
    return NULL;
}

/* Four threads create, run and free plans of the same 8 descriptions at once: each is generated once. */
START_TEST(test_cache_threads)
{
    smm_isa isas[3];
    if (generating_isas(isas) == 0)
        return;
    ck_assert_int_eq(smm_set_isa(isas[0]), SMM_OK);
    enum { THREADS = 4 };
    pthread_t t[THREADS];
    worker w[THREADS];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, THREADS);
    const smm_jit_stats s0 = stats_now();
    for (int i = 0; i < THREADS; i++) {
        w[i].rounds = 64;
        w[i].wrong = 0;
        w[i].start = &start;
        ck_assert_int_eq(pthread_create(&t[i], NULL, create_and_run, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        ck_assert_int_eq(w[i].wrong, 0);
    }
    pthread_barrier_destroy(&start);
    const smm_jit_stats s1 = stats_now();
    ck_assert_int_eq(s1.generated, s0.generated + 8);
    ck_assert_int_eq(s1.hits, s0.hits + THREADS * 64 - 8);
    test_restore_defaults();
}
END_TEST

/*
 * The permissions ("rwxp") of the mapping holding address a ("" when none
 * does), checking on the way that no mapping of this process is writable and
 * executable at once.
 */
static void permissions_at(const void *a, char perms[5])
{
    perms[0] = '\0';
    FILE *f = fopen("/proc/self/maps", "r");
    ck_assert_ptr_nonnull(f);
    char line[512];
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned long lo, hi;
        char p[5];
        if (sscanf(line, "%lx-%lx %4s", &lo, &hi, p) != 3)
            continue;
        ck_assert_msg(!(p[1] == 'w' && p[2] == 'x'), "writable and executable: %s", line);
        if ((uintptr_t)a >= lo && (uintptr_t)a < hi)
            memcpy(perms, p, 5);
    }
    fclose(f);
}

START_TEST(test_write_xor_execute)
{
    smm_isa isas[3];
    const int nisa = generating_isas(isas);
    for (int ii = 0; ii < nisa; ii++) {
        brgemm_jit_desc d;
        memset(&d, 0, sizeof d);
        d.isa = (int32_t)isas[ii];
        d.m = 21;
        d.n = 9;
        d.k = 4;
        d.lda = d.ldc = 21;
        d.b_step = 1;
        d.b_col = 4;
        d.stride_a = 84;
        d.stride_b = 36;
        const float one = 1.0f;
        memcpy(&d.alpha_bits, &one, 4);
        memcpy(&d.beta_bits, &one, 4);
#if defined(__x86_64__)
        const jit_writer writer = brgemm_jit_write_x86;
#else
        const jit_writer writer = brgemm_jit_write_a64;
#endif
        const jit_kernel *k = NULL;
        ck_assert_int_eq(jit_kernel_get(writer, &d, sizeof d, JIT_FOR_PLAN, &k), SMM_OK);
        char perms[5];
        for (int e = 0; e < 2; e++) {
            permissions_at(jit_kernel_entry(k, e), perms);
            ck_assert_msg(perms[0] == 'r' && perms[1] == '-' && perms[2] == 'x', "kernel page mapped '%s'", perms);
        }
        jit_kernel_release(k);
    }
    ck_assert_int_eq(smm_jit_status(), SMM_OK);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Small products of exact_sgemm on generated kernels.                        */
/* ------------------------------------------------------------------------- */

/*
 * exact_sgemm's small products (one thread's worth, under the path's bound
 * for unpacked kernels) run generated kernels where generation is on: the
 * same bits as with it off (the precompiled small-product kernels), for both
 * layouts, every transpose pair, every update mode (beta == 0 with NaN and
 * Inf in C), edge sizes of every register tile, padded leading dimensions,
 * and depths of one, two and three of the packed path's blocks of k (256,
 * summed block after block on both paths), under each path's default
 * configuration and under one with kc 96.
 */
START_TEST(test_small_sgemm)
{
    smm_isa isas[3];
    const int nisa = generating_isas(isas);
    static const int64_t sizes[] = { 1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 15, 16, 17, 24, 31, 32, 33, 47, 48, 63, 64 };
    static const int64_t depths[] = { 1, 2, 3, 5, 8, 16, 17, 31, 64, 255, 256, 257, 511, 700 };
    static const float ab[][2] = { { 1.0f, 1.0f }, { 1.0f, 0.0f }, { -2.0f, 0.0f }, { 0.5f, 1.0f }, { 1.0f, -1.5f } };
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]), ndepths = (int)(sizeof depths / sizeof depths[0]);
    uint64_t rng = 4242;
    int compared = 0;
    ck_assert_int_eq(smm_set_num_threads(1), SMM_OK);
    for (int t = 0; t < 160; t++) {
        const int64_t m = sizes[t % nsizes], n = sizes[test_rng_next(&rng) % (uint64_t)nsizes];
        const int64_t k = depths[test_rng_next(&rng) % (uint64_t)ndepths];
        const smm_layout layout = test_rng_next(&rng) & 1 ? SMM_ROW_MAJOR : SMM_COL_MAJOR;
        const smm_trans ta = test_rng_next(&rng) & 1 ? SMM_TRANS : SMM_NO_TRANS;
        const smm_trans tb = test_rng_next(&rng) & 1 ? SMM_TRANS : SMM_NO_TRANS;
        const int pair = (int)(test_rng_next(&rng) % 5);
        const float alpha = ab[pair][0], beta = ab[pair][1];
        /* stored shapes: op(A) m x k, op(B) k x n, C m x n, each padded by a few elements */
        const int64_t ar = ta == SMM_NO_TRANS ? m : k, ac = ta == SMM_NO_TRANS ? k : m;
        const int64_t br = tb == SMM_NO_TRANS ? k : n, bc = tb == SMM_NO_TRANS ? n : k;
        const int row = layout == SMM_ROW_MAJOR;
        const int64_t lda = (row ? ac : ar) + 3, ldb = (row ? bc : br) + 1, ldc = (row ? n : m) + 2;
        const int64_t sa = (row ? ar : ac) * lda, sb = (row ? br : bc) * ldb, sc = (row ? m : n) * ldc;
        float *A = malloc((size_t)sa * sizeof(float)), *B = malloc((size_t)sb * sizeof(float));
        float *C0 = malloc((size_t)sc * sizeof(float)), *got = malloc((size_t)sc * sizeof(float));
        float *want = malloc((size_t)sc * sizeof(float));
        ck_assert(A && B && C0 && got && want);
        test_fill_uniform(A, sa, &rng);
        test_fill_uniform(B, sb, &rng);
        test_fill_uniform(C0, sc, &rng);
        if (beta == 0.0f)
            for (int64_t x = 0; x < sc; x += 3)
                C0[x] = x % 2 ? NAN : INFINITY;
        for (int ii = 0; ii < 2 * nisa; ii++) {
            /* each path under its default configuration, then under one with kc 96 (deep products cross
             * several blocks) */
            const smm_isa isa = isas[ii / 2];
            ck_assert_int_eq(smm_set_isa(isa), SMM_OK);
            tuning_state saved;
            memset(&saved, 0, sizeof saved);
            if (ii % 2) {
                tuning_params p;
                tuning_default_params(isa, 0, &p);
                p.kc = 96;
                saved = use_config(isa, &p);
            }
            for (int jit = 1; jit >= 0; jit--) {
                float *C = jit ? got : want;
                memcpy(C, C0, (size_t)sc * sizeof(float));
                ck_assert_int_eq(smm_set_jit(jit), SMM_OK);
                const smm_jit_stats before = stats_now();
                ck_assert_int_eq(exact_sgemm(layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc), SMM_OK);
                const smm_jit_stats after = stats_now();
                /* with generation on, a kernel was made or found (the resident cache) */
                ck_assert_int_eq(after.generated + after.hits > before.generated + before.hits, jit);
            }
            for (int64_t x = 0; x < sc; x++)
                if (memcmp(&got[x], &want[x], sizeof(float)) != 0)
                    ck_abort_msg("%s (%s) %s %c%c m=%lld n=%lld k=%lld alpha=%g beta=%g: C[%lld] = %a generated, %a "
                                 "precompiled",
                                 smm_isa_name(isa), ii % 2 ? "kc 96" : "default", row ? "row" : "col",
                                 ta == SMM_TRANS ? 'T' : 'N', tb == SMM_TRANS ? 'T' : 'N', (long long)m, (long long)n, (long long)k,
                                 (double)alpha, (double)beta, (long long)x, (double)got[x], (double)want[x]);
            if (ii % 2)
                restore_config(&saved);
            compared++;
        }
        free(A);
        free(B);
        free(C0);
        free(got);
        free(want);
    }
    ck_assert_int_eq(compared, 2 * 160 * nisa);
    test_restore_defaults();
}
END_TEST

/*
 * A thread reuses the kernels of its last small product when the next one is the same product
 * (sgemm_sup_jit.c). Here each call differs from the one before it in one thing only (alpha, beta,
 * ldc, lda, ldb, a transposition, the depth, the layout), generated and precompiled results compared
 * bit for bit: a reuse that ignored that one thing would give the previous product's kernel.
 */
START_TEST(test_small_sgemm_one_change)
{
    smm_isa isas[3];
    const int nisa = generating_isas(isas);
    typedef struct {
        smm_layout layout;
        smm_trans ta;
        int64_t k, lda, ldb, ldc;
        float alpha, beta;
    } call;
    const int64_t m = 13, n = 9;
    static const call calls[] = {
        { SMM_ROW_MAJOR, SMM_NO_TRANS, 40, 40, 9, 9, 1.0f, 1.0f },   { SMM_ROW_MAJOR, SMM_NO_TRANS, 40, 40, 9, 9, 2.0f, 1.0f },
        { SMM_ROW_MAJOR, SMM_NO_TRANS, 40, 40, 9, 9, 2.0f, 0.0f },   { SMM_ROW_MAJOR, SMM_NO_TRANS, 40, 40, 9, 11, 2.0f, 0.0f },
        { SMM_ROW_MAJOR, SMM_NO_TRANS, 40, 43, 9, 11, 2.0f, 0.0f },  { SMM_ROW_MAJOR, SMM_NO_TRANS, 40, 43, 10, 11, 2.0f, 0.0f },
        { SMM_ROW_MAJOR, SMM_TRANS, 40, 43, 10, 11, 2.0f, 0.0f },    { SMM_ROW_MAJOR, SMM_TRANS, 39, 43, 10, 11, 2.0f, 0.0f },
        { SMM_COL_MAJOR, SMM_TRANS, 39, 43, 40, 13, 2.0f, 0.0f },    { SMM_COL_MAJOR, SMM_TRANS, 39, 43, 40, 13, 2.0f, -0.5f },
        { SMM_COL_MAJOR, SMM_TRANS, 39, 43, 40, 13, 1.0f, -0.5f },   { SMM_COL_MAJOR, SMM_TRANS, 39, 43, 40, 13, 1.0f, -0.5f },
    };
    const int ncalls = (int)(sizeof calls / sizeof calls[0]);
    enum { BIG = 64 * 64 };
    float *A = malloc(BIG * sizeof(float)), *B = malloc(BIG * sizeof(float)), *C0 = malloc(BIG * sizeof(float));
    float *got = malloc(BIG * sizeof(float)), *want = malloc(BIG * sizeof(float));
    ck_assert(A && B && C0 && got && want);
    uint64_t rng = 777;
    test_fill_uniform(A, BIG, &rng);
    test_fill_uniform(B, BIG, &rng);
    test_fill_uniform(C0, BIG, &rng);
    ck_assert_int_eq(smm_set_num_threads(1), SMM_OK);
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        for (int c = 0; c < ncalls; c++) {
            const call *x = &calls[c];
            for (int jit = 1; jit >= 0; jit--) {
                float *C = jit ? got : want;
                memcpy(C, C0, BIG * sizeof(float));
                ck_assert_int_eq(smm_set_jit(jit), SMM_OK);
                ck_assert_int_eq(exact_sgemm(x->layout, x->ta, SMM_NO_TRANS, m, n, x->k, x->alpha, A, x->lda, B,
                                             x->ldb, x->beta, C, x->ldc),
                                 SMM_OK);
            }
            for (int64_t e = 0; e < BIG; e++)
                if (memcmp(&got[e], &want[e], sizeof(float)) != 0)
                    ck_abort_msg("%s call %d (k=%lld lda=%lld ldb=%lld ldc=%lld alpha=%g beta=%g): C[%lld] = %a "
                                 "generated, %a precompiled",
                                 smm_isa_name(isas[ii]), c, (long long)x->k, (long long)x->lda, (long long)x->ldb,
                                 (long long)x->ldc, (double)x->alpha, (double)x->beta, (long long)e, (double)got[e],
                                 (double)want[e]);
        }
    }
    free(A);
    free(B);
    free(C0);
    free(got);
    free(want);
    test_restore_defaults();
}
END_TEST

/*
 * Generated code lives in pages shared between a process and its forked
 * children (jit_code.c): at a fork both freeze them. Here a parent holds a
 * plan and forks; the child makes plans (new code, which must not land in
 * the shared pages) and keeps them while the parent, after the child is done
 * writing, makes plans of its own; then the child runs all its plans again:
 * had the parent written into the pages the child's code is in, they would
 * compute garbage (or crash). The inherited plan stays right on both sides.
 */
#define FORK_PLANS 60
START_TEST(test_fork)
{
    smm_isa isas[3];
    if (generating_isas(isas) == 0)
        return;
    ck_assert_int_eq(smm_set_isa(isas[0]), SMM_OK);
    const brgemm_desc held_desc = desc_tagged(17, 9, 5, 60000);
    brgemm_plan *held = plan_of(&held_desc);
    ck_assert(plan_computes(held, &held_desc));
    int ready[2], done[2];
    ck_assert_int_eq(pipe(ready), 0);
    ck_assert_int_eq(pipe(done), 0);
    fflush(NULL);
    const pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        brgemm_plan *mine[FORK_PLANS];
        brgemm_desc descs[FORK_PLANS];
        int code = plan_computes(held, &held_desc) ? 0 : 1;
        for (int i = 0; i < FORK_PLANS; i++) {
            descs[i] = desc_tagged(5 + i % 11, 3 + i % 5, 2 + i % 3, 70000 + i);
            mine[i] = plan_of(&descs[i]);
        }
        char c = 'x';
        ssize_t ignored = write(ready[1], &c, 1); /* the child has written its code */
        ignored = read(done[0], &c, 1);            /* wait while the parent writes its own */
        (void)ignored;
        for (int i = 0; i < FORK_PLANS && code == 0; i++)
            if (!plan_computes(mine[i], &descs[i]))
                code = 2;
        if (code == 0 && !plan_computes(held, &held_desc))
            code = 3;
        _exit(code);
    }
    char c;
    ck_assert_int_eq(read(ready[0], &c, 1), 1);
    brgemm_plan *ours[FORK_PLANS];
    brgemm_desc descs[FORK_PLANS];
    for (int i = 0; i < FORK_PLANS; i++) {
        descs[i] = desc_tagged(6 + i % 9, 4 + i % 7, 1 + i % 4, 80000 + i);
        ours[i] = plan_of(&descs[i]);
    }
    ck_assert_int_eq(write(done[1], "x", 1), 1);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child check %d failed (signal %d)",
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    for (int i = 0; i < FORK_PLANS; i++) {
        ck_assert(plan_computes(ours[i], &descs[i]));
        brgemm_plan_free(ours[i]);
    }
    ck_assert(plan_computes(held, &held_desc));
    brgemm_plan_free(held);
    for (int f = 0; f < 2; f++) {
        close(ready[f]);
        close(done[f]);
    }
    test_restore_defaults();
}
END_TEST

/* ------------------------------------------------------------------------- */
/* A system that refuses executable memory.                                   */
/* ------------------------------------------------------------------------- */

#if defined(__x86_64__)
#define THIS_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define THIS_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* Fail mmap, mprotect and pkey_mprotect with EACCES when their protection asks for PROT_EXEC. */
static int refuse_exec_memory(void)
{
#ifdef THIS_AUDIT_ARCH
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, THIS_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mmap, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mprotect, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pkey_mprotect, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])), /* the low half: prot */
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { (unsigned short)(sizeof code / sizeof code[0]), code };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return 0;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
#else
    return 0;
#endif
}

enum { CHILD_OK = 0, CHILD_NO_SECCOMP = 77 };

START_TEST(test_no_exec_memory)
{
    smm_isa isas[3];
    const int nisa = generating_isas(isas);
    fflush(NULL);
    const pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (!refuse_exec_memory())
            _exit(CHILD_NO_SECCOMP);
        /* the filter works: an executable mapping is refused */
        void *x = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (x != MAP_FAILED)
            _exit(10);
        int code = CHILD_OK;
        for (int ii = 0; ii < nisa && code == CHILD_OK; ii++) {
            if (smm_set_isa(isas[ii]) != SMM_OK)
                code = 11;
            const brgemm_desc d = desc_tagged(19, 6, 3, 777 + ii); /* new to the cache */
            brgemm_plan *p = NULL;
            if (code == CHILD_OK && brgemm_plan_create(&d, &p) != SMM_OK)
                code = 12;
            else if (code == CHILD_OK &&
                     strstr(brgemm_plan_name(p), " precompiled (executable memory refused)") == NULL)
                code = 13;
            else if (code == CHILD_OK && !plan_computes(p, &d))
                code = 14;
            brgemm_plan_free(p);
        }
        if (code == CHILD_OK && smm_jit_status() != SMM_ERR_NO_EXEC_MEMORY)
            code = 15;
        if (code == CHILD_OK && nisa > 0 && stats_now().failed < 1)
            code = 16;
        _exit(code);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status), "the child died (signal %d)", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    if (WEXITSTATUS(status) == CHILD_NO_SECCOMP) {
        printf("test_no_exec_memory: seccomp filters cannot be installed here: not checked\n");
        return;
    }
    ck_assert_msg(WEXITSTATUS(status) == CHILD_OK, "child check %d failed", WEXITSTATUS(status));
}
END_TEST

static Suite *jit_suite(void)
{
    Suite *s = suite_create("jit");
    TCase *tc = tcase_create("jit");
    tcase_add_test(tc, test_switch);
    tcase_add_test(tc, test_cache_reuse);
    tcase_add_test(tc, test_cache_bound);
    tcase_add_test(tc, test_cache_threads);
    tcase_add_test(tc, test_write_xor_execute);
    tcase_add_test(tc, test_small_sgemm);
    tcase_add_test(tc, test_small_sgemm_one_change);
    tcase_add_test(tc, test_fork);
    tcase_add_test(tc, test_no_exec_memory);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(jit_suite());
}
