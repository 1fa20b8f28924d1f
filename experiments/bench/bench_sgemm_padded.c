/*
 * bench_sgemm_padded.c - mode `sgemm-padded`: what a padded leading
 * dimension buys a plain SGEMM. The naive and the tiled kernel of
 * sgemm_padded_kernels.h run on n x n row-major matrices stored twice:
 * unpadded (ld = n, 64-byte aligned) and padded (ld = exact_padded_ld(n),
 * allocated with exact_matrix_alloc). With n a power of two the unpadded
 * rows are a multiple of 4 KiB apart, so walking down a column touches a
 * single cache set.
 *
 * The naive kernel is far too slow for whole 4096 x 4096 products, so each
 * kernel computes only the first rows of C (GFLOPS count that work alone).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cli.h"
#include "bench_matrix.h"
#include "bench_modes.h"
#include "bench_report.h"
#include "bench_timing.h"
#include "sgemm_padded_kernels.h"
#include "sketchmm.h"

#define MAX_SIZE 16384
#define DEFAULT_REPS 3
#define DEFAULT_NAIVE_ROWS 16
#define TILED_ALL_ROWS_MAX_N 2048 /* tiled default: every row up to this n ... */
#define TILED_DEFAULT_ROWS 512    /* ... and this many above it */
#define AGREEMENT_TOLERANCE 1e-5  /* max |difference| / n (entries of A and B are in [-1, 1]) */

typedef struct {
    bench_int_list sizes;
    int64_t naive_rows, tiled_rows; /* tiled_rows 0: the default for each n */
    int64_t reps;
} padded_config;

static void describe(FILE *out)
{
    fprintf(out,
        "  A naive product (i, j, k loops, B read down its columns) and a %d x %d x %d tiled one\n"
        "  (i, k, j inside a block), plain C, on n x n row-major matrices with ld = n (unpadded,\n"
        "  64-byte aligned) and with ld = exact_padded_ld(n) (exact_matrix_alloc). Each computes\n"
        "  only the first rows of C; GFLOPS count the work done (2 rows n^2 flops). Padded and\n"
        "  unpadded results, and the two kernels on their common rows, must agree (max |difference|\n"
        "  <= %g n), else the run stops with exit status 1. One warm-up run each, then --reps\n"
        "  rounds each timing the unpadded and the padded storage in turn; prints median GFLOPS\n"
        "  unpadded and padded and the padded/unpadded speedup.\n",
        PADDED_TILE, PADDED_TILE, PADDED_TILE, AGREEMENT_TOLERANCE);
}

/* ------------------------------------------------------------------------ */
/* Storage                                                                  */
/* ------------------------------------------------------------------------ */

/* A, B and C of one storage scheme. */
typedef struct {
    float *A, *B, *C;
    int64_t ld;
    int padded; /* from exact_matrix_alloc */
} operands;

static int alloc_padded(int64_t n, float **matrix, int64_t *ld)
{
    smm_status s = exact_matrix_alloc(SMM_ROW_MAJOR, n, n, matrix, ld);
    if (s != SMM_OK) {
        bench_error("exact_matrix_alloc(%lld x %lld): %s", (long long)n, (long long)n,
                    smm_status_str(s));
        return 0;
    }
    return 1;
}

static int make_operands(int64_t n, int padded, operands *o)
{
    memset(o, 0, sizeof *o);
    o->padded = padded;
    if (padded) {
        int64_t lda, ldb, ldc;
        if (!alloc_padded(n, &o->A, &lda) || !alloc_padded(n, &o->B, &ldb) || !alloc_padded(n, &o->C, &ldc))
            return 0;
        o->ld = lda; /* the same for all three: exact_padded_ld(n) */
    } else {
        o->A = bench_alloc_floats(n * n);
        o->B = bench_alloc_floats(n * n);
        o->C = bench_alloc_floats(n * n);
        o->ld = n;
    }
    bench_fill(o->A, n, n, o->ld, 1);
    bench_fill(o->B, n, n, o->ld, 2);
    bench_zero(o->C, n, n, o->ld);
    return 1;
}

static void free_operands(operands *o)
{
    if (o->padded) {
        exact_matrix_free(o->A);
        exact_matrix_free(o->B);
        exact_matrix_free(o->C);
    } else {
        bench_free_floats(o->A);
        bench_free_floats(o->B);
        bench_free_floats(o->C);
    }
}

/* ------------------------------------------------------------------------ */
/* Runs                                                                     */
/* ------------------------------------------------------------------------ */

typedef void (*padded_kernel)(int64_t n, int64_t rows, const float *A, const float *B, float *C, int64_t ld);

typedef struct {
    padded_kernel kernel;
    int64_t n, rows;
    const operands *o;
} padded_run;

static void run_kernel(void *context)
{
    const padded_run *r = context;
    r->kernel(r->n, r->rows, r->o->A, r->o->B, r->o->C, r->o->ld);
}

/*
 * Median seconds of one kernel on the unpadded and on the padded storage,
 * timed alternately (each round runs unpadded, then padded), so a change of
 * machine load affects both alike. Each storage first gets one untimed run
 * (its C's first rows then hold the result).
 */
static void time_pair(padded_kernel kernel, int64_t n, int64_t rows, const operands *plain, const operands *padded,
                      int reps, double *plain_seconds, double *padded_seconds)
{
    padded_run runs[2] = { { kernel, n, rows, plain }, { kernel, n, rows, padded } };
    double *samples = malloc(2 * (size_t)reps * sizeof *samples);
    if (samples == NULL) {
        bench_error("out of memory");
        exit(BENCH_EXIT_FAILED);
    }
    for (int s = 0; s < 2; s++)
        run_kernel(&runs[s]);
    for (int rep = 0; rep < reps; rep++)
        for (int s = 0; s < 2; s++) {
            double t0 = bench_now_seconds();
            run_kernel(&runs[s]);
            samples[s * reps + rep] = bench_now_seconds() - t0;
        }
    *plain_seconds = bench_median(samples, reps);
    *padded_seconds = bench_median(samples + reps, reps);
    free(samples);
}

/* Copy the first rows of C (ld) to a dense rows x n buffer. */
static void save_rows(const operands *o, int64_t n, int64_t rows, float *out)
{
    for (int64_t i = 0; i < rows; i++)
        memcpy(out + i * n, o->C + i * o->ld, (size_t)n * sizeof *out);
}

static int agree(const char *what, int64_t n, int64_t rows, const float *x, int64_t ldx, const float *y, int64_t ldy,
                 double *difference)
{
    *difference = bench_max_abs_diff(x, ldx, y, ldy, rows, n) / (double)n;
    if (*difference <= AGREEMENT_TOLERANCE)
        return 1;
    bench_error("n = %lld, %s disagree: max |difference| = %.3g n (tolerance %g n)",
                (long long)n, what, *difference, AGREEMENT_TOLERANCE);
    return 0;
}

static int64_t cut_rows(int64_t rows, int64_t n)
{
    return rows < n ? rows : n;
}

/* ------------------------------------------------------------------------ */
/* Mode                                                                     */
/* ------------------------------------------------------------------------ */

static int run_mode(void *config, FILE *csv)
{
    const padded_config *cfg = config;
    const int reps = (int)cfg->reps;
    printf("Plain C kernels on one thread; one warm-up run each, then %d rounds each timing the unpadded\n"
           "and the padded storage in turn (medians). Only the first rows of C are computed (the 'rows'\n"
           "column); GFLOPS count that work alone (2 rows n^2 flops).\n",
           reps);
    printf("'diff' columns: max |difference| / n between padded and unpadded results, and between the\n"
           "tiled and the naive kernel on their common rows. 'other%%': share of the machine's CPU time\n"
           "other processes used during that row's measurement.\n");
    printf("\n%5s %-6s %5s %8s %8s %9s %9s %8s %9s %9s %6s\n", "n", "kernel", "rows", "ld", "ld", "GFLOPS", "GFLOPS",
           "padded/", "diff", "diff", "other%");
    printf("%5s %-6s %5s %8s %8s %9s %9s %8s %9s %9s %6s\n", "", "", "", "unpadded", "padded", "unpadded", "padded",
           "unpadded", "pad/unpad", "vs naive", "");

    const padded_kernel kernels[2] = { padded_naive, padded_tiled };
    const char *const kernel_names[2] = { "naive", "tiled" };
    int status = 0;
    for (int s = 0; s < cfg->sizes.count && status == 0; s++) {
        const int64_t n = cfg->sizes.v[s];
        operands plain, padded;
        if (!make_operands(n, 0, &plain) || !make_operands(n, 1, &padded)) {
            status = BENCH_EXIT_FAILED;
            break;
        }
        const int64_t rows[2] = {
            cut_rows(cfg->naive_rows, n),
            cut_rows(cfg->tiled_rows > 0 ? cfg->tiled_rows : n <= TILED_ALL_ROWS_MAX_N ? n : TILED_DEFAULT_ROWS, n)
        };
        const int64_t common = rows[0] < rows[1] ? rows[0] : rows[1];
        float *naive_result = bench_alloc_floats(common * n);
        for (int kind = 0; kind < 2 && status == 0; kind++) {
            const bench_contention_mark before = bench_contention_now();
            double unpadded_seconds, padded_seconds;
            time_pair(kernels[kind], n, rows[kind], &plain, &padded, reps, &unpadded_seconds, &padded_seconds);
            const double others = bench_contention_others(before, bench_contention_now());
            double difference = 0.0, kernels_difference = NAN;
            if (!agree("padded and unpadded results", n, rows[kind], padded.C, padded.ld, plain.C, plain.ld,
                       &difference)) {
                status = BENCH_EXIT_FAILED;
                break;
            }
            if (kind == 0) {
                save_rows(&plain, n, common, naive_result);
            } else if (!agree("the naive and the tiled kernel", n, common, naive_result, n, plain.C, plain.ld,
                              &kernels_difference)) {
                status = BENCH_EXIT_FAILED;
                break;
            }
            const double flops = 2.0 * (double)rows[kind] * (double)n * (double)n;
            const double gflops_unpadded = flops / unpadded_seconds * 1e-9;
            const double gflops_padded = flops / padded_seconds * 1e-9;
            const double speedup = unpadded_seconds / padded_seconds;
            printf("%5lld %-6s %5lld %8lld %8lld %9.2f %9.2f %8.2f %9.2g", (long long)n, kernel_names[kind],
                   (long long)rows[kind], (long long)plain.ld, (long long)padded.ld, gflops_unpadded, gflops_padded,
                   speedup, difference);
            if (isnan(kernels_difference))
                printf(" %9s", "-");
            else
                printf(" %9.2g", kernels_difference);
            bench_print_share(stdout, others, 6);
            printf("\n");
            fflush(stdout);
            if (csv != NULL) {
                fprintf(csv, "%lld,%s,%lld,%d,%lld,%lld,%.6g,%.6g,%.6g,%.6g,%.6g,%.3g,", (long long)n,
                        kernel_names[kind], (long long)rows[kind], reps, (long long)plain.ld,
                        (long long)padded.ld, unpadded_seconds, padded_seconds, gflops_unpadded, gflops_padded,
                        speedup, difference);
                if (!isnan(kernels_difference))
                    fprintf(csv, "%.3g", kernels_difference);
                fprintf(csv, ",");
                if (!isnan(others))
                    fprintf(csv, "%.3g", others);
                fprintf(csv, "\n");
                fflush(csv);
            }
        }
        bench_free_floats(naive_result);
        free_operands(&plain);
        free_operands(&padded);
    }
    return status;
}

static const bench_option options[] = {
    { .name = "sizes", .arg = "LIST", .kind = BENCH_INT_LIST, .offset = offsetof(padded_config, sizes), .lo = 1,
      .hi = MAX_SIZE, BENCH_DEFAULTS(2048, 4096), .wants = "sizes", .help = "matrix sizes n (default {default})" },
    { .name = "rows", .arg = "R", .kind = BENCH_INT, .offset = offsetof(padded_config, naive_rows), .lo = 1,
      .hi = MAX_SIZE, .def = DEFAULT_NAIVE_ROWS, .wants = "a row count",
      .help = "rows of C the naive kernel computes (default {default})" },
    { .name = "tiled-rows", .arg = "R", .kind = BENCH_INT, .offset = offsetof(padded_config, tiled_rows), .lo = 1,
      .hi = MAX_SIZE, .def = 0, .wants = "a row count",
      .help = "rows of C the tiled kernel computes (default: all for n <= " BENCH_STR(TILED_ALL_ROWS_MAX_N)
              ", else " BENCH_STR(TILED_DEFAULT_ROWS) ")" },
    BENCH_OPTION_REPS(padded_config, reps, 1000000, DEFAULT_REPS, "timed rounds per kernel (default {default})"),
    { .name = NULL },
};

const bench_mode bench_mode_sgemm_padded = {
    .name = "sgemm-padded",
    .summary = "naive and tiled kernels on padded and unpadded (power-of-two stride) matrices",
    .options = options,
    .config_size = sizeof(padded_config),
    .describe = describe,
    .notes = "Row counts above n are cut to n.",
    .csv_header = "n,kernel,rows,reps,ld_unpadded,ld_padded,seconds_unpadded,seconds_padded,gflops_unpadded,"
                  "gflops_padded,speedup_padded_over_unpadded,diff_padded_unpadded_over_n,diff_vs_naive_over_n,"
                  "other_cpu_share\n",
    .csv_rows = "size and kernel",
    .run = run_mode,
};
