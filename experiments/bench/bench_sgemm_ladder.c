/*
 * bench_sgemm_ladder.c - mode `sgemm-ladder`: the optimisation ladder of
 * seed article 002, its matrix-multiplication variants from blocked and
 * saxpy to tiled AVX (sgemm_ladder_kernels.h), and exact_sgemm on one
 * thread, on square row-major C += A * B, in flops per TSC cycle and GFLOPS,
 * next to the flops per cycle the article published for its Skylake laptop.
 *
 * Every variant's result is checked against double-precision sums before it
 * is timed; a mismatch stops the run (exit status 1).
 */
#include <float.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cli.h"
#include "bench_matrix.h"
#include "bench_modes.h"
#include "bench_report.h"
#include "bench_timing.h"
#include "sgemm_ladder_kernels.h"
#include "sketchmm.h"

#define SIZE_QUANTUM 64      /* the article's sizes, and what the AVX2 variants need */
#define MAX_SIZE 8192
#define DEFAULT_REPS 5
#define FULL_CHECK_MAX_N 256 /* check every entry up to this n, else CHECK_SAMPLES entries */
#define CHECK_SAMPLES 256
#define PUBLISHED_SIZES 16   /* the article's tables: n = 64, 128, ..., 1024 */

typedef struct {
    const char *name;
    sgemm_ladder_kernel kernel; /* NULL: exact_sgemm on one thread */
    int needs_avx2;
    /* flops/cycle in the article's tables for n = 64 * (index + 1); Skylake, turbo off, GCC -O3 -mavx2 -mfma */
    double published[PUBLISHED_SIZES];
} sgemm_ladder_variant;

static const sgemm_ladder_variant variants[] = {
    { "blocked", sgemm_ladder_blocked, 0,
      { 4.5916, 4.41515, 4.29101, 3.76492, 3.72997, 3.35322, 3.4907, 3.09821, 3.35608, 3.12571, 3.28726, 3.02899,
        3.23122, 2.74011, 2.34571, 1.67082 } },
    { "saxpy", sgemm_ladder_saxpy, 0,
      { 5.16997, 6.62783, 6.87346, 6.73044, 6.16362, 6.55264, 6.57594, 6.72991, 6.59614, 6.52757, 6.79166, 6.8997,
        6.7976, 6.61836, 6.29888, 5.67463 } },
#ifdef SKETCHMM_BENCH_X86_KERNELS
    { "saxpy_avx", sgemm_ladder_saxpy_avx, 1,
      { 9.92632, 9.47109, 8.73214, 8.17689, 7.1626, 7.03508, 6.86115, 7.23017, 6.79068, 6.81996, 6.68561, 6.80027,
        5.69882, 6.66899, 6.10599, 5.55935 } },
    { "tiled_avx", sgemm_ladder_tiled_avx, 1,
      { 6.79165, 6.79166, 6.55159, 8.0809, 8.14656, 8.19794, 8.2022, 7.55769, 7.44294, 7.46682, 7.44912, 7.50282,
        6.49766, 7.40346, 6.87725, 5.9569 } },
    { "tiled_avx_unrolled", sgemm_ladder_tiled_avx_unrolled, 1,
      { 25.7981, 25.8072, 23.8638, 23.1335, 23.5822, 23.6613, 21.718, 20.4233, 18.5289, 18.7098, 18.53, 18.8777,
        16.8168, 18.8595, 14.3098, 10.5531 } },
#endif
    { "exact_sgemm", NULL, 0, { 0 } }, /* one thread, like the rest */
};
#define VARIANT_COUNT ((int)(sizeof variants / sizeof variants[0]))

typedef struct {
    int64_t min, max, step;
    int64_t reps;
} sgemm_ladder_config;

static void describe(FILE *out)
{
    fprintf(out,
        "  The variants of seed article 002 on square row-major C += A * B (C zeroed before each\n"
        "  run, untimed): blocked (8 x 8 blocks, B read down columns), saxpy (i, k, j), and on\n"
        "  x86_64 with AVX2 saxpy_avx, tiled_avx and tiled_avx_unrolled (256-bit FMA); then\n"
        "  exact_sgemm on one thread. Each result is checked against double-precision sums (all\n"
        "  entries up to n = %d, %d sampled entries above) and must be within 2 n FLT_EPSILON\n"
        "  sum|a||b|, else the run stops with exit status 1. Then warm-up runs (at least one, and\n"
        "  at least %g ms) and --reps timed ones; prints the median's flops per TSC cycle\n"
        "  (2 n^3 flops) and GFLOPS, and\n"
        "  the article's published flops/cycle (Skylake laptop, turbo off) where it has one.\n",
        FULL_CHECK_MAX_N, CHECK_SAMPLES, BENCH_WARMUP_SECONDS * 1e3);
}

static int check_options(void *config)
{
    const sgemm_ladder_config *cfg = config;
    if (cfg->min > cfg->max)
        return bench_usage_error("--min %lld is above --max %lld", (long long)cfg->min, (long long)cfg->max);
    return 0;
}

static void exact_one_thread(int64_t n, const float *A, const float *B, float *C)
{
    smm_status s = exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, n, n, n, 1.0f, A, n, B, n, 1.0f, C, n);
    if (s != SMM_OK) {
        bench_error("exact_sgemm failed: %s", smm_status_str(s));
        exit(BENCH_EXIT_FAILED);
    }
}

/* ------------------------------------------------------------------------ */
/* Reference                                                                */
/* ------------------------------------------------------------------------ */

/* One entry of A * B in double precision, with the error bound a float result must meet. */
typedef struct {
    int64_t i, j;
    double value, bound;
} reference_entry;

static reference_entry reference_at(int64_t n, const float *A, const float *B, int64_t i, int64_t j)
{
    double sum = 0.0, magnitude = 0.0;
    for (int64_t k = 0; k < n; k++) {
        double product = (double)A[i * n + k] * (double)B[k * n + j];
        sum += product;
        magnitude += fabs(product);
    }
    return (reference_entry){ i, j, sum, 2.0 * (double)n * FLT_EPSILON * magnitude + FLT_MIN };
}

/* Every entry for n <= FULL_CHECK_MAX_N, else CHECK_SAMPLES pseudo-random ones; *count receives how many. */
static reference_entry *build_reference(int64_t n, const float *A, const float *B, int64_t *count)
{
    int64_t entries = n <= FULL_CHECK_MAX_N ? n * n : CHECK_SAMPLES;
    reference_entry *ref = malloc((size_t)entries * sizeof *ref);
    if (ref == NULL) {
        bench_error("out of memory");
        exit(BENCH_EXIT_FAILED);
    }
    uint64_t state = 0x853c49e6748fea9bULL;
    for (int64_t e = 0; e < entries; e++) {
        int64_t i, j;
        if (n <= FULL_CHECK_MAX_N) {
            i = e / n;
            j = e % n;
        } else {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            i = (int64_t)((state >> 33) % (uint64_t)n);
            j = (int64_t)((state >> 13) % (uint64_t)n);
        }
        ref[e] = reference_at(n, A, B, i, j);
    }
    *count = entries;
    return ref;
}

/* Largest |C - reference| / bound; above 1 is a failure (+Inf for NaN). */
static double worst_error(int64_t n, const float *C, const reference_entry *ref, int64_t count, int64_t *where)
{
    double worst = 0.0;
    *where = 0;
    for (int64_t e = 0; e < count; e++) {
        double ratio = fabs((double)C[ref[e].i * n + ref[e].j] - ref[e].value) / ref[e].bound;
        if (isnan(ratio))
            ratio = INFINITY;
        if (ratio > worst) {
            worst = ratio;
            *where = e;
        }
    }
    return worst;
}

/* ------------------------------------------------------------------------ */
/* Timing                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct {
    const sgemm_ladder_variant *variant;
    int64_t n;
    const float *A, *B;
    float *C;
} sgemm_ladder_run;

static void run_variant(void *context)
{
    sgemm_ladder_run *r = context;
    if (r->variant->kernel != NULL)
        r->variant->kernel(r->n, r->A, r->B, r->C);
    else
        exact_one_thread(r->n, r->A, r->B, r->C);
}

static void zero_output(void *context)
{
    sgemm_ladder_run *r = context;
    bench_zero(r->C, r->n, r->n, r->n);
}

static int variant_available(const sgemm_ladder_variant *v)
{
    return !v->needs_avx2 || smm_isa_supported(SMM_ISA_AVX2);
}

static double published_figure(const sgemm_ladder_variant *v, int64_t n)
{
    if (n % 64 != 0 || n / 64 < 1 || n / 64 > PUBLISHED_SIZES || v->published[n / 64 - 1] == 0.0)
        return NAN;
    return v->published[n / 64 - 1];
}

/* ------------------------------------------------------------------------ */
/* Mode                                                                     */
/* ------------------------------------------------------------------------ */

static int run_mode(void *config, FILE *csv)
{
    const sgemm_ladder_config *cfg = config;
    const int reps = (int)cfg->reps;
    if (smm_set_num_threads(1) != SMM_OK)
        return BENCH_EXIT_FAILED;
    const double ghz = bench_tsc_ghz();
    printf("Square row-major C += A * B, median of %d timed runs after >= %g ms of warm-up; exact_sgemm on\n"
           "1 thread. "
           "Plain C variants are built for the baseline CPU with -ffp-contract=off (the article\n"
           "used GCC -O3 -mavx2 -mfma -funroll-loops).\n"
           "flops/cycle: per TSC tick (%s); the article's: per core cycle, Skylake laptop, turbo off.\n",
           reps, BENCH_WARMUP_SECONDS * 1e3, bench_cycles_available() ? "nominal rate" : "unavailable here");
    for (int v = 0; v < VARIANT_COUNT; v++)
        if (!variant_available(&variants[v]))
            printf("%s: skipped, this CPU lacks AVX2 + FMA\n", variants[v].name);
#ifndef SKETCHMM_BENCH_X86_KERNELS
    printf("saxpy_avx, tiled_avx, tiled_avx_unrolled: not built (x86_64 only)\n");
#endif
    printf("\n%5s  %-20s %10s %8s %11s %12s\n", "n", "variant", "ms", "GFLOPS", "flops/cycle", "article f/c");

    int status = 0;
    for (int64_t n = cfg->min; n <= cfg->max && status == 0; n += cfg->step) {
        float *A = bench_alloc_floats(n * n), *B = bench_alloc_floats(n * n), *C = bench_alloc_floats(n * n);
        bench_fill(A, n, n, n, 1);
        bench_fill(B, n, n, n, 2);
        int64_t nref;
        reference_entry *ref = build_reference(n, A, B, &nref);
        const double flops = 2.0 * (double)n * (double)n * (double)n;
        for (int v = 0; v < VARIANT_COUNT && status == 0; v++) {
            const sgemm_ladder_variant *variant = &variants[v];
            if (!variant_available(variant))
                continue;
            sgemm_ladder_run run = { variant, n, A, B, C };
            zero_output(&run);
            run_variant(&run);
            int64_t where;
            double error = worst_error(n, C, ref, nref, &where);
            if (!(error <= 1.0)) {
                const reference_entry *e = &ref[where];
                bench_error("%s at n = %lld: C(%lld, %lld) = %.9g, double-precision sum %.9g "
                            "(bound %.3g)",
                            variant->name, (long long)n, (long long)e->i, (long long)e->j, C[e->i * n + e->j],
                            e->value, e->bound);
                status = BENCH_EXIT_FAILED;
                break;
            }
            bench_sample sample = bench_measure(run_variant, zero_output, &run, 1, reps);
            double gflops = flops / sample.seconds * 1e-9;
            double per_cycle = bench_cycles_available() && sample.cycles > 0.0 ? flops / sample.cycles : NAN;
            double article = published_figure(variant, n);
            printf("%5lld  %-20s %10.3f %8.2f", (long long)n, variant->name, sample.seconds * 1e3, gflops);
            if (isnan(per_cycle))
                printf(" %11s", "n/a");
            else
                printf(" %11.2f", per_cycle);
            if (isnan(article))
                printf(" %12s\n", "-");
            else
                printf(" %12.2f\n", article);
            fflush(stdout);
            if (csv != NULL) {
                fprintf(csv, "%lld,%s,%d,%.6g,%.6g,", (long long)n, variant->name, reps, sample.seconds, gflops);
                if (!isnan(per_cycle))
                    fprintf(csv, "%.6g", per_cycle);
                fprintf(csv, ",");
                if (!isnan(article))
                    fprintf(csv, "%.6g", article);
                fprintf(csv, ",%.6g,%.3g\n", ghz, error);
                fflush(csv);
            }
        }
        free(ref);
        bench_free_floats(A);
        bench_free_floats(B);
        bench_free_floats(C);
    }
    smm_set_num_threads(0);
    return status;
}

/* The sizes, multiples of SIZE_QUANTUM. */
#define SIZE_OPTION(field, default_size, text)                                                                   \
    {                                                                                                            \
        .name = #field, .arg = "N", .kind = BENCH_INT, .offset = offsetof(sgemm_ladder_config, field),           \
        .lo = SIZE_QUANTUM, .hi = MAX_SIZE, .multiple = SIZE_QUANTUM, .def = default_size,                       \
        .wants = "a multiple of " BENCH_STR(SIZE_QUANTUM), .help = text                                          \
    }

static const bench_option options[] = {
    SIZE_OPTION(min, 64, NULL),
    SIZE_OPTION(max, 1024, NULL),
    SIZE_OPTION(step, 64, "sizes n = min, min+step, ..., <= max; multiples of " BENCH_STR(SIZE_QUANTUM) "\n"
                      "(defaults {default}, {default}, {default})"),
    BENCH_OPTION_REPS(sgemm_ladder_config, reps, 1000000, DEFAULT_REPS,
                      "timed runs per variant and size (default {default})"),
    { .name = NULL },
};

const bench_mode bench_mode_sgemm_ladder = {
    .name = "sgemm-ladder",
    .summary = "the matrix-multiplication kernels of seed article 002 (flops/cycle, GFLOPS)",
    .options = options,
    .config_size = sizeof(sgemm_ladder_config),
    .describe = describe,
    .csv_header = "n,variant,reps,seconds,gflops,flops_per_cycle,article_flops_per_cycle,tsc_ghz,"
                  "max_error_over_bound\n",
    .csv_rows = "variant and size",
    .check = check_options,
    .run = run_mode,
};
