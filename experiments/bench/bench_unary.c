/*
 * bench_unary.c - mode `unary`: bandwidth of the unary primitives
 * (sketchmm/unary.h) zero, identity and ReLU, plain and transposed, on
 * square M = N matrices, per ISA path and thread count.
 *
 * GiB/s counts the bytes the operation must move: 4 * M * N written, plus
 * 4 * M * N read for identity and ReLU (zero reads nothing). A repetition is
 * enough back-to-back calls to last >= MIN_REP_SECONDS (small matrices take
 * well under a microsecond), timed as one; the table shows the median
 * repetition divided by its call count. Every call is measured twice, with
 * code generation on (the generated kernels) and off (the precompiled ones),
 * in alternation within each repetition; 'gen/pre' is the ratio of the two
 * (target >= 1 at 512 and 2048). 'x copy' is a row's GiB/s over the plain
 * identity (copy) at the same size, threads and path, generated and
 * precompiled apart: the transposes' target is >= 0.5 at the large sizes.
 * Before timing, each contender's result is checked against a plain loop,
 * both ways.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cli.h"
#include "bench_modes.h"
#include "bench_report.h"
#include "bench_timing.h"
#include "sketchmm.h"
#include "sketchmm/unary.h"

#define DEFAULT_REPS 11
#define MAX_SIZE 16384
#define MIN_REP_SECONDS 2e-4

static const char *const layout_choices[] = { "row", "col", NULL };

typedef struct {
    bench_int_list sizes, threads;
    bench_choice_list isas; /* indices into bench_isa_choices */
    int layout;             /* index into layout_choices */
    int64_t pad;
    int64_t reps;
} unary_config;

static void describe(FILE *out)
{
    fprintf(out,
        "  Bandwidth of unary_apply (sketchmm/unary.h): zero, identity and relu, plain and\n"
        "  transposed ('_t'), on M = N square matrices. GiB/s counts bytes read + written\n"
        "  (zero: written only). Each repetition runs enough calls to last >= %.0f us; the table\n"
        "  shows the median over --reps repetitions per call, with code generation on ('generated')\n"
        "  and off ('precomp', the precompiled kernels) in alternation; 'gen/pre' is their ratio\n"
        "  (target >= 1 at 512 and 2048). 'x copy' is the speed over the plain identity (copy) at\n"
        "  the same size, threads and ISA path (transposes: target >= 0.5 at 512 and 2048). Every\n"
        "  contender's result is checked against a plain loop first, both ways.\n"
        "  Both matrices are 64-byte aligned; with --pad 0 and M a multiple of 16 large transposes\n"
        "  write B with non-temporal stores.\n"
        "  'other%%' is the share of the machine's CPU time other processes used during the row.\n",
        MIN_REP_SECONDS * 1e6);
}

/* ------------------------------------------------------------------------ */

typedef struct {
    const char *name;
    unary_op op;
    smm_trans trans;
} contender;

/* identity first: the copy every row is compared with */
static const contender contenders[] = {
    { "identity", UNARY_IDENTITY, SMM_NO_TRANS }, { "zero", UNARY_ZERO, SMM_NO_TRANS },
    { "relu", UNARY_RELU, SMM_NO_TRANS },         { "identity_t", UNARY_IDENTITY, SMM_TRANS },
    { "zero_t", UNARY_ZERO, SMM_TRANS },          { "relu_t", UNARY_RELU, SMM_TRANS },
};
#define NCONTENDERS ((int)(sizeof contenders / sizeof contenders[0]))

typedef struct {
    const contender *c;
    smm_layout layout;
    int64_t n, ld, calls;
    const float *A;
    float *B;
} unary_call;

static void run_action(void *context)
{
    const unary_call *u = context;
    for (int64_t i = 0; i < u->calls; i++) {
        const smm_status s = unary_apply(u->c->op, u->layout, u->c->trans, u->n, u->n, u->A, u->ld, u->B, u->ld);
        if (s != SMM_OK) {
            bench_error("%s failed: %s", u->c->name, smm_status_str(s));
            exit(BENCH_EXIT_FAILED);
        }
    }
}

/* 1 when B holds op(A) or op(A)^T (n x n, leading dimension ld; both layouts address the same way here). */
static int verify(const unary_call *u)
{
    for (int64_t i = 0; i < u->n; i++)
        for (int64_t j = 0; j < u->n; j++) {
            const float x = u->c->trans == SMM_TRANS ? u->A[j * u->ld + i] : u->A[i * u->ld + j];
            float want = u->c->op == UNARY_ZERO ? 0.0f : x;
            if (u->c->op == UNARY_RELU && x < 0.0f)
                want = 0.0f;
            if (memcmp(&want, &u->B[i * u->ld + j], sizeof want) != 0)
                return 0;
        }
    return 1;
}

static int run_mode(void *config, FILE *csv)
{
    const unary_config *cfg = config;
    const int reps = (int)cfg->reps;
    const smm_layout layout = cfg->layout == 0 ? SMM_ROW_MAJOR : SMM_COL_MAJOR;
    smm_isa initial_isa = SMM_ISA_AUTO;
    smm_get_isa(&initial_isa);

    int64_t max_n = 0;
    for (int s = 0; s < cfg->sizes.count; s++)
        max_n = cfg->sizes.v[s] > max_n ? cfg->sizes.v[s] : max_n;
    const size_t max_elems = (size_t)(max_n * (max_n + cfg->pad));
    /* 64-byte aligned, as smm_aligned_alloc would give (large transposes stream B only when aligned) */
    const size_t bytes_alloc = (max_elems * sizeof(float) + 63) / 64 * 64;
    float *A = aligned_alloc(64, bytes_alloc), *B = aligned_alloc(64, bytes_alloc);
    if (A == NULL || B == NULL) {
        bench_error("out of memory");
        free(A);
        free(B);
        return BENCH_EXIT_FAILED;
    }
    uint64_t z = 12345;
    for (size_t i = 0; i < max_elems; i++) { /* uniform in [-1, 1) */
        z = z * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
        A[i] = (float)((double)(z >> 11) * 0x1.0p-52 - 1.0);
    }
    memset(B, 0, max_elems * sizeof(float)); /* first touch before timing */

    printf("Unary primitives, %s-major, leading dimension = M + %lld, %d reps of >= %.0f us, medians;\n"
           "'generated': code generation on, 'precomp': off (the same calls, in alternation).\n",
           layout == SMM_ROW_MAJOR ? "row" : "column", (long long)cfg->pad, reps, MIN_REP_SECONDS * 1e6);
    printf("\n%5s %3s %-8s %-11s %10s %10s %7s %8s %8s %11s %6s\n", "M=N", "thr", "path", "op", "generated",
           "precomp", "gen/pre", "x copy", "x copy", "us/call", "other%");
    printf("%5s %3s %-8s %-11s %10s %10s %7s %8s %8s %11s %6s\n", "", "", "", "", "GiB/s", "GiB/s", "", "gen",
           "pre", "gen", "");
    int status = 0;
    double *samples = malloc(2 * (size_t)reps * sizeof *samples);
    if (samples == NULL) {
        bench_error("out of memory");
        status = BENCH_EXIT_FAILED;
    }
    for (int ii = 0; ii < cfg->isas.count && status == 0; ii++) {
        const int selected = bench_select_isa(cfg->isas.v[ii], "");
        if (selected == 0)
            continue;
        if (selected < 0) {
            status = BENCH_EXIT_FAILED;
            break;
        }
        const char *path = bench_isa_name();
        smm_set_jit(1);
        const char *gen_kernel = unary_kernel_name();
        smm_set_jit(0);
        printf("(%s: generated kernels %s, precompiled %s)\n", path, gen_kernel, unary_kernel_name());
        for (int si = 0; si < cfg->sizes.count && status == 0; si++) {
            const int64_t n = cfg->sizes.v[si], ld = n + cfg->pad;
            for (int ti = 0; ti < cfg->threads.count && status == 0; ti++) {
                const int threads = (int)cfg->threads.v[ti];
                if (smm_set_num_threads(threads) != SMM_OK) {
                    bench_error("cannot use %d threads", threads);
                    status = BENCH_EXIT_FAILED;
                    break;
                }
                double copy_gib[2] = { NAN, NAN };
                for (int ci = 0; ci < NCONTENDERS && status == 0; ci++) {
                    unary_call u = { &contenders[ci], layout, n, ld, 1, A, B };
                    for (int jit = 1; jit >= 0; jit--) {
                        smm_set_jit(jit);
                        memset(B, 0xFF, (size_t)(n * ld) * sizeof(float)); /* NaNs: a missed element shows */
                        run_action(&u);
                        if (!verify(&u)) {
                            bench_error("%s on %s (%lld, %d threads, code generation %s) gave a wrong result",
                                        u.c->name, path, (long long)n, threads, jit ? "on" : "off");
                            status = BENCH_EXIT_FAILED;
                        }
                    }
                    if (status != 0)
                        break;
                    /* calls per repetition: enough for MIN_REP_SECONDS, from one timed call */
                    const double t0 = bench_now_seconds();
                    run_action(&u);
                    const double once = bench_now_seconds() - t0;
                    u.calls = once >= MIN_REP_SECONDS ? 1 : (int64_t)(MIN_REP_SECONDS / (once > 1e-8 ? once : 1e-8)) + 1;
                    const bench_contention_mark before = bench_contention_now();
                    /* generated and precompiled in alternation, so that machine noise hits both alike */
                    for (int r = 0; r < reps; r++)
                        for (int jit = 1; jit >= 0; jit--) {
                            smm_set_jit(jit);
                            const double start = bench_now_seconds();
                            run_action(&u);
                            samples[(1 - jit) * reps + r] = (bench_now_seconds() - start) / (double)u.calls;
                        }
                    const double others = bench_contention_others(before, bench_contention_now());
                    const double bytes = (u.c->op == UNARY_ZERO ? 1.0 : 2.0) * (double)n * (double)n * sizeof(float);
                    double gib[2], sec[2];
                    for (int v = 0; v < 2; v++) {
                        sec[v] = bench_median(samples + v * reps, reps);
                        gib[v] = bytes / sec[v] / (1024.0 * 1024.0 * 1024.0);
                        if (ci == 0)
                            copy_gib[v] = gib[v];
                    }
                    printf("%5lld %3d %-8s %-11s %10.2f %10.2f %7.2f %8.2f %8.2f %11.3f", (long long)n, threads, path,
                           u.c->name, gib[0], gib[1], gib[0] / gib[1], gib[0] / copy_gib[0], gib[1] / copy_gib[1],
                           sec[0] * 1e6);
                    bench_print_share(stdout, others, 6);
                    printf("\n");
                    fflush(stdout);
                    if (csv != NULL) {
                        fprintf(csv, "%lld,%lld,%s,%d,%s,%s,%s,%d,%lld,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,", (long long)n,
                                (long long)ld, layout == SMM_ROW_MAJOR ? "row" : "col", threads, gen_kernel,
                                unary_kernel_name(), u.c->name, reps, (long long)u.calls, sec[0], sec[1], gib[0],
                                gib[1], gib[0] / gib[1], gib[0] / copy_gib[0], gib[1] / copy_gib[1]);
                        if (!isnan(others))
                            fprintf(csv, "%.4f", others);
                        fprintf(csv, "\n");
                        fflush(csv);
                    }
                }
            }
        }
    }
    free(samples);
    smm_set_jit(-1);
    smm_set_isa(initial_isa);
    smm_set_num_threads(0);
    free(A);
    free(B);
    return status;
}

static const bench_option options[] = {
    { .name = "sizes", .arg = "LIST", .kind = BENCH_INT_LIST, .offset = offsetof(unary_config, sizes), .lo = 1,
      .hi = MAX_SIZE, BENCH_DEFAULTS(50, 64, 512, 2048), .wants = "sizes", .help = "M = N values (default {default})" },
    BENCH_OPTION_THREAD_COUNTS(unary_config, threads),
    BENCH_OPTION_REPS(unary_config, reps, 100000, DEFAULT_REPS, "timed repetitions (default {default})"),
    BENCH_OPTION_ISAS(unary_config, isas,
                      "ISA paths: auto,scalar,avx2,avx512,neon (default {default}; missing ones are skipped)"),
    { .name = "layout", .arg = "L", .kind = BENCH_CHOICE, .offset = offsetof(unary_config, layout),
      .choices = layout_choices, .def = 0, .help = "row or col (default {default})" },
    { .name = "pad", .arg = "N", .kind = BENCH_INT, .offset = offsetof(unary_config, pad), .lo = 0, .hi = 4096,
      .def = 0, .wants = "a count", .help = "leading dimension = M + N (default {default})" },
    { .name = NULL },
};

const bench_mode bench_mode_unary = {
    .name = "unary",
    .summary = "zero, identity, relu and their transposes: GiB/s and transpose/copy ratio",
    .options = options,
    .config_size = sizeof(unary_config),
    .describe = describe,
    .csv_header = "size,ld,layout,threads,kernel_generated,kernel_precompiled,op,reps,calls_per_rep,"
                  "seconds_per_call_generated,seconds_per_call_precompiled,gib_per_second_generated,"
                  "gib_per_second_precompiled,ratio_generated_precompiled,ratio_to_copy_generated,"
                  "ratio_to_copy_precompiled,other_cpu_share\n",
    .csv_rows = "measurement",
    .run = run_mode,
};
