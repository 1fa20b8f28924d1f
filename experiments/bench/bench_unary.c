/*
 * bench_unary.c - mode `unary`: bandwidth of the unary primitives
 * (sketchmm/unary.h) zero, identity and ReLU, plain and transposed, on
 * square M = N matrices, per ISA path and thread count.
 *
 * GiB/s counts the bytes the operation must move: 4 * M * N written, plus
 * 4 * M * N read for identity and ReLU (zero reads nothing). A repetition is
 * enough back-to-back calls to last >= MIN_REP_SECONDS (small matrices take
 * well under a microsecond), timed as one; the table shows the median
 * repetition divided by its call count. 'x copy' is a row's GiB/s over the
 * plain identity (copy) at the same size, threads and path: the transposes'
 * target is >= 0.5 at the large sizes. Before timing, each contender's result
 * is checked against a plain loop.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cli.h"
#include "bench_modes.h"
#include "bench_report.h"
#include "bench_timing.h"
#include "sketchmm.h"
#include "sketchmm/unary.h"

#define MODE "unary"
#define DEFAULT_REPS 11
#define MAX_SIZE 16384
#define MIN_REP_SECONDS 2e-4

static const int64_t default_sizes[] = { 50, 64, 512, 2048 };
static const char *const option_names[] = { "sizes", "threads", "reps", "isa", "layout", "pad", "csv", NULL };
static const char *const isa_choices[] = { "auto", "scalar", "avx2", "avx512", "neon" };
static const smm_isa isa_values[] = { SMM_ISA_AUTO, SMM_ISA_SCALAR, SMM_ISA_AVX2, SMM_ISA_AVX512, SMM_ISA_NEON };
static const char *const layout_choices[] = { "row", "col" };

typedef struct {
    int64_t sizes[BENCH_MAX_LIST];
    int nsizes;
    int64_t threads[BENCH_MAX_LIST];
    int nthreads;
    int isas[BENCH_MAX_LIST];
    int nisas;
    smm_layout layout;
    int64_t pad;
    int reps;
    const char *csv_path;
} unary_config;

void bench_unary_help(FILE *out)
{
    fprintf(out,
        "sketchmm_bench unary [options]\n"
        "  Bandwidth of unary_apply (sketchmm/unary.h): zero, identity and relu, plain and\n"
        "  transposed ('_t'), on M = N square matrices. GiB/s counts bytes read + written\n"
        "  (zero: written only). Each repetition runs enough calls to last >= %.0f us; the table\n"
        "  shows the median over --reps repetitions per call. 'x copy' is the speed over the plain\n"
        "  identity (copy) at the same size, threads and ISA path (transposes: target >= 0.5 at\n"
        "  512 and 2048). Every contender's result is checked against a plain loop first.\n"
        "  Both matrices are 64-byte aligned; with --pad 0 and M a multiple of 16 large transposes\n"
        "  write B with non-temporal stores.\n"
        "  'other%%' is the share of the machine's CPU time other processes used during the row.\n"
        "  --sizes LIST     M = N values (default 50,64,512,2048)\n"
        "  --threads LIST   thread counts (default: 1 and the OpenMP maximum)\n"
        "  --reps N         timed repetitions (default %d)\n"
        "  --isa LIST       ISA paths: auto,scalar,avx2,avx512,neon (default auto; missing ones are skipped)\n"
        "  --layout L       row or col (default row)\n"
        "  --pad N          leading dimension = M + N (default 0)\n"
        "  --csv FILE       also write one CSV row per measurement\n",
        MIN_REP_SECONDS * 1e6, DEFAULT_REPS);
}

static int parse_args(int argc, char **argv, unary_config *cfg, int *help)
{
    *help = 0;
    cfg->nsizes = (int)(sizeof default_sizes / sizeof default_sizes[0]);
    memcpy(cfg->sizes, default_sizes, sizeof default_sizes);
    bench_default_threads(cfg->threads, &cfg->nthreads);
    cfg->isas[0] = 0;
    cfg->nisas = 1;
    cfg->layout = SMM_ROW_MAJOR;
    cfg->reps = DEFAULT_REPS;
    for (int i = 0; i < argc; i++) {
        char name[BENCH_MAX_OPTION_NAME];
        const char *value;
        int bad = bench_next_option(MODE, option_names, argc, argv, &i, name, &value);
        if (bad)
            return bad;
        if (strcmp(name, "help") == 0) {
            *help = 1;
            return 0;
        } else if (strcmp(name, "sizes") == 0) {
            if (!bench_parse_int_list(value, 1, MAX_SIZE, cfg->sizes, &cfg->nsizes))
                return bench_usage_error(MODE, "--sizes wants sizes in [1, %d], got '%s'", MAX_SIZE, value);
        } else if (strcmp(name, "threads") == 0) {
            if (!bench_parse_int_list(value, 1, SMM_MAX_THREADS, cfg->threads, &cfg->nthreads))
                return bench_usage_error(MODE, "--threads wants thread counts in [1, %d], got '%s'", SMM_MAX_THREADS,
                                         value);
        } else if (strcmp(name, "reps") == 0) {
            int64_t reps;
            if (!bench_parse_int(value, 1, 100000, &reps))
                return bench_usage_error(MODE, "--reps wants a count in [1, 100000], got '%s'", value);
            cfg->reps = (int)reps;
        } else if (strcmp(name, "isa") == 0) {
            if (!bench_parse_choice_list(value, isa_choices, 5, cfg->isas, &cfg->nisas))
                return bench_usage_error(MODE, "--isa wants a list of auto, scalar, avx2, avx512, neon, got '%s'",
                                         value);
        } else if (strcmp(name, "layout") == 0) {
            int which[BENCH_MAX_LIST], count;
            if (!bench_parse_choice_list(value, layout_choices, 2, which, &count) || count != 1)
                return bench_usage_error(MODE, "--layout wants row or col, got '%s'", value);
            cfg->layout = which[0] == 0 ? SMM_ROW_MAJOR : SMM_COL_MAJOR;
        } else if (strcmp(name, "pad") == 0) {
            if (!bench_parse_int(value, 0, 4096, &cfg->pad))
                return bench_usage_error(MODE, "--pad wants a count in [0, 4096], got '%s'", value);
        } else if (strcmp(name, "csv") == 0) {
            cfg->csv_path = value;
        } else {
            return bench_usage_error(MODE, "unknown option '--%s'", name);
        }
    }
    return 0;
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
            fprintf(stderr, "sketchmm_bench unary: %s failed: %s\n", u->c->name, smm_status_str(s));
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

int bench_unary_main(int argc, char **argv)
{
    unary_config cfg;
    memset(&cfg, 0, sizeof cfg);
    int help;
    int bad = parse_args(argc, argv, &cfg, &help);
    if (bad)
        return bad;
    if (help) {
        bench_unary_help(stdout);
        return 0;
    }
    FILE *csv = NULL;
    if (bench_begin(MODE, cfg.csv_path, &csv) != 0)
        return BENCH_EXIT_FAILED;
    const bench_contention_mark run_start = bench_contention_now();
    if (csv != NULL)
        fputs("size,ld,layout,threads,kernel,op,reps,calls_per_rep,seconds_per_call,gib_per_second,ratio_to_copy,"
              "other_cpu_share\n",
              csv);
    smm_isa initial_isa = SMM_ISA_AUTO;
    smm_get_isa(&initial_isa);

    int64_t max_n = 0;
    for (int s = 0; s < cfg.nsizes; s++)
        max_n = cfg.sizes[s] > max_n ? cfg.sizes[s] : max_n;
    const size_t max_elems = (size_t)(max_n * (max_n + cfg.pad));
    /* 64-byte aligned, as smm_aligned_alloc would give (large transposes stream B only when aligned) */
    const size_t bytes_alloc = (max_elems * sizeof(float) + 63) / 64 * 64;
    float *A = aligned_alloc(64, bytes_alloc), *B = aligned_alloc(64, bytes_alloc);
    if (A == NULL || B == NULL) {
        fprintf(stderr, "sketchmm_bench unary: out of memory\n");
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

    printf("Unary primitives, %s-major, leading dimension = M + %lld, %d reps of >= %.0f us, medians.\n",
           cfg.layout == SMM_ROW_MAJOR ? "row" : "column", (long long)cfg.pad, cfg.reps, MIN_REP_SECONDS * 1e6);
    printf("\n%5s %3s %-13s %-11s %9s %11s %7s %6s\n", "M=N", "thr", "kernel", "op", "GiB/s", "us/call", "x copy",
           "other%");
    int status = 0;
    for (int ii = 0; ii < cfg.nisas && status == 0; ii++) {
        const smm_isa isa = isa_values[cfg.isas[ii]];
        if (isa != SMM_ISA_AUTO && !smm_isa_supported(isa)) {
            printf("(%s: not available on this CPU, skipped)\n", isa_choices[cfg.isas[ii]]);
            continue;
        }
        if (smm_set_isa(isa) != SMM_OK) {
            fprintf(stderr, "sketchmm_bench unary: cannot select ISA %s\n", isa_choices[cfg.isas[ii]]);
            status = BENCH_EXIT_FAILED;
            break;
        }
        const char *kernel = unary_kernel_name();
        for (int si = 0; si < cfg.nsizes && status == 0; si++) {
            const int64_t n = cfg.sizes[si], ld = n + cfg.pad;
            for (int ti = 0; ti < cfg.nthreads && status == 0; ti++) {
                const int threads = (int)cfg.threads[ti];
                if (smm_set_num_threads(threads) != SMM_OK) {
                    fprintf(stderr, "sketchmm_bench unary: cannot use %d threads\n", threads);
                    status = BENCH_EXIT_FAILED;
                    break;
                }
                double copy_gib = NAN;
                for (int ci = 0; ci < NCONTENDERS; ci++) {
                    unary_call u = { &contenders[ci], cfg.layout, n, ld, 1, A, B };
                    memset(B, 0xFF, (size_t)(n * ld) * sizeof(float)); /* NaNs: a missed element shows */
                    run_action(&u);
                    if (!verify(&u)) {
                        fprintf(stderr, "sketchmm_bench unary: %s on %s (%lld, %d threads) gave a wrong result\n",
                                u.c->name, kernel, (long long)n, threads);
                        status = BENCH_EXIT_FAILED;
                        break;
                    }
                    /* calls per repetition: enough for MIN_REP_SECONDS, from one timed call */
                    const double t0 = bench_now_seconds();
                    run_action(&u);
                    const double once = bench_now_seconds() - t0;
                    u.calls = once >= MIN_REP_SECONDS ? 1 : (int64_t)(MIN_REP_SECONDS / (once > 1e-8 ? once : 1e-8)) + 1;
                    const bench_contention_mark before = bench_contention_now();
                    const bench_sample sample = bench_measure(run_action, NULL, &u, 1, cfg.reps);
                    const double others = bench_contention_others(before, bench_contention_now());
                    const double sec = sample.seconds / (double)u.calls;
                    const double bytes = (u.c->op == UNARY_ZERO ? 1.0 : 2.0) * (double)n * (double)n * sizeof(float);
                    const double gib = bytes / sec / (1024.0 * 1024.0 * 1024.0);
                    if (ci == 0)
                        copy_gib = gib;
                    printf("%5lld %3d %-13s %-11s %9.2f %11.3f %7.2f", (long long)n, threads, kernel, u.c->name, gib,
                           sec * 1e6, gib / copy_gib);
                    bench_print_share(stdout, others, 6);
                    printf("\n");
                    fflush(stdout);
                    if (csv != NULL) {
                        fprintf(csv, "%lld,%lld,%s,%d,%s,%s,%d,%lld,%.6g,%.6g,%.6g,", (long long)n, (long long)ld,
                                cfg.layout == SMM_ROW_MAJOR ? "row" : "col", threads, kernel, u.c->name, cfg.reps,
                                (long long)u.calls, sec, gib, gib / copy_gib);
                        if (!isnan(others))
                            fprintf(csv, "%.4f", others);
                        fprintf(csv, "\n");
                        fflush(csv);
                    }
                }
            }
        }
    }
    smm_set_isa(initial_isa);
    smm_set_num_threads(0);
    bench_print_run_end(stdout, run_start);
    free(A);
    free(B);
    if (csv != NULL && bench_csv_close(csv, MODE, cfg.csv_path) != 0 && status == 0)
        status = BENCH_EXIT_FAILED;
    return status;
}
