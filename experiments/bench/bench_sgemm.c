/*
 * bench_sgemm.c - mode `sgemm`: GFLOPS of exact_sgemm against OpenBLAS and
 * BLIS (through their cblas_sgemm) on the same products, their ratios, and
 * exact_sgemm's fraction of the measured FMA peak.
 *
 * Per configuration (shape, layout, transposes, threads): one untimed call of
 * each contender (warm-up; their results are compared there), then --reps
 * rounds, each timing exact, OpenBLAS and BLIS one after the other, so a
 * change of machine load hits all three alike; the table shows median
 * GFLOPS, and ratios as the median of the per-round ratios (with half their
 * interquartile range, so a reader sees how steady the row was).
 * Calls shorter than BATCH_TARGET_SECONDS are repeated within a round (the
 * same count for all three) and the round's time divided by that count.
 * Each contender's turn starts after a sleep (settle()): measured here on 2
 * threads, OpenBLAS lost a third of its speed without one, its cores taken
 * by the libgomp threads exact_sgemm left spinning, and exact_sgemm lost up
 * to 30% at 256^3 when the pause (then 30 ms) was shorter than the time
 * OpenBLAS's idle workers keep polling (OPENBLAS_THREAD_TIMEOUT=4, which
 * makes them sleep at once, removed the loss).
 */
#include <float.h>
#include <stddef.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_cli.h"
#include "bench_matrix.h"
#include "bench_modes.h"
#include "bench_report.h"
#include "bench_timing.h"
#include "fma_probe.h"
#include "kernel_probe.h"
#include "peer_blas.h"
#include "sketchmm.h"

#define MAX_CASES 512
#define MAX_DIMENSION 65536
#define DEFAULT_REPS 7
#define HUGE_SHAPE_REPS 5
#define HUGE_SHAPE_ELEMENTS ((int64_t)4096 * 4096 * 4096) /* m*n*k from which default reps drop */
#define BATCH_TARGET_SECONDS 0.01
#define BATCH_MAX_CALLS 100000
#define SETTLE_SECONDS 0.15 /* pause before each contender's timed calls (see settle()) */
#define PEAK_PLAUSIBLE 0.8  /* a T-thread FMA peak under this fraction of T x the 1-thread one is re-measured */
#define PEAK_RETRIES 3
#define PEER_TOLERANCE 1e-4     /* max |C_exact - C_peer| / (k max|a| max|b|) */
#define REFERENCE_SAMPLES 64    /* entries of exact's C checked against a double sum */

/* contenders: exact_sgemm, then the peers in peer_kind order */
enum { EXACT = 0, CONTENDERS = 1 + PEER_COUNT };

typedef struct {
    bench_shape shape;
    smm_layout layout;
    smm_trans transa, transb;
} sgemm_case;

typedef struct {
    /* the options */
    int suite;                /* index into suite_names; -1: not given */
    bench_int_list sizes;     /* the last --sizes; after_option collects every one into shapes */
    bench_shape_list shapes_given; /* the last --shapes, likewise */
    bench_choice_list layouts, pairs; /* --layouts, --trans (indices into layout_names, trans_names) */
    bench_int_list threads;
    int64_t reps;             /* 0: not given (DEFAULT_REPS, HUGE_SHAPE_REPS for huge shapes) */
    /* from them */
    bench_shape shapes[2 * BENCH_MAX_LIST]; /* --sizes (as n x n x n) and --shapes, in command-line order */
    int nshapes;
    int explicit_lists;       /* --sizes, --shapes, --layouts or --trans given */
    sgemm_case cases[MAX_CASES];
    int ncases;
} sgemm_config;

/* One product with its operands, and one output per contender. */
typedef struct {
    sgemm_case c;
    const float *A, *B;
    int64_t lda, ldb, ldc;
    float *C[CONTENDERS];
    peer_blas *peers[PEER_COUNT];
} sgemm_problem;

static const char *const layout_names[] = { "row", "col", NULL };
static const char *const trans_names[] = { "NN", "NT", "TN", "TT", NULL };
static const char *const suite_names[] = { "square", "full", NULL };
static const int64_t square_suite_sizes[] = { 64, 128, 256, 512, 1024, 2048, 4096 };

static void describe(FILE *out)
{
    fprintf(out,
        "  exact_sgemm (sketchmm, threads via smm_set_num_threads, ISA path from SKETCHMM_ISA)\n"
        "  against OpenBLAS and BLIS cblas_sgemm (opened with dlopen) on C = A * B, alpha 1,\n"
        "  beta 0, 64-byte aligned matrices with minimal leading dimensions and entries in [-1, 1].\n"
        "  Per configuration: one untimed call each, whose results must agree (max |difference|\n"
        "  <= %g k max|a| max|b|, and exact's C against a double-precision sum on %d entries),\n"
        "  else the run stops with exit status 1; then --reps rounds, each timing exact, OpenBLAS\n"
        "  and BLIS in turn (calls under %g ms are repeated to fill that time; each contender's\n"
        "  turn starts after a %g ms pause, so that the previous one's idle worker threads have\n"
        "  stopped spinning and do not take its cores). Prints median GFLOPS (2mnk flops), the\n"
        "  ratios exact/peer (median over rounds of the ratio within a round, and '+-': half the\n"
        "  interquartile range of those ratios), and exact's fraction of peak: its GFLOPS over\n"
        "  the FMA probe's (512-bit FMAs for the avx512 path, 256-bit for avx2) measured at the\n"
        "  start on the same thread count, and 'other%%': the share of the machine's CPU time other processes used\n"
        "  meanwhile (high values mark rows disturbed by other load). Ends with the smallest\n"
        "  ratios per thread count.\n",
        PEER_TOLERANCE, REFERENCE_SAMPLES, BATCH_TARGET_SECONDS * 1e3, SETTLE_SECONDS * 1e3);
}

/* ------------------------------------------------------------------------ */
/* Configurations                                                           */
/* ------------------------------------------------------------------------ */

static smm_trans trans_a_of(int pair)
{
    return pair >= 2 ? SMM_TRANS : SMM_NO_TRANS;
}

static smm_trans trans_b_of(int pair)
{
    return pair % 2 == 1 ? SMM_TRANS : SMM_NO_TRANS;
}

static int trans_pair_of(smm_trans transa, smm_trans transb)
{
    return (transa == SMM_TRANS ? 2 : 0) + (transb == SMM_TRANS ? 1 : 0);
}

static int add_case(sgemm_config *cfg, bench_shape shape, smm_layout layout, int pair)
{
    for (int i = 0; i < cfg->ncases; i++) {
        const sgemm_case *c = &cfg->cases[i];
        if (c->shape.m == shape.m && c->shape.n == shape.n && c->shape.k == shape.k && c->layout == layout &&
            trans_pair_of(c->transa, c->transb) == pair)
            return 1; /* already listed */
    }
    if (cfg->ncases >= MAX_CASES)
        return 0;
    cfg->cases[cfg->ncases++] = (sgemm_case){ shape, layout, trans_a_of(pair), trans_b_of(pair) };
    return 1;
}

static bench_shape square(int64_t n)
{
    return (bench_shape){ n, n, n };
}

static void build_suite(sgemm_config *cfg, int full)
{
    const int nsquare = (int)(sizeof square_suite_sizes / sizeof square_suite_sizes[0]);
    for (int i = 0; i < nsquare; i++)
        add_case(cfg, square(square_suite_sizes[i]), SMM_ROW_MAJOR, 0);
    if (!full)
        return;
    for (int layout = 0; layout < 2; layout++)
        for (int pair = 0; pair < 4; pair++)
            add_case(cfg, square(1024), layout == 0 ? SMM_ROW_MAJOR : SMM_COL_MAJOR, pair);
    const int64_t odd_sizes[] = { 1000, 2047, 4095 };
    for (int i = 0; i < 3; i++)
        add_case(cfg, square(odd_sizes[i]), SMM_ROW_MAJOR, 0);
    const bench_shape skinny[] = { { 4096, 64, 4096 }, { 64, 4096, 4096 }, { 4096, 4096, 64 } };
    for (int i = 0; i < 3; i++)
        add_case(cfg, skinny[i], SMM_ROW_MAJOR, 0);
}

/* --sizes and --shapes add to one list of shapes, in command-line order; each of the four is explicit. */
static int after_option(void *config, const bench_option *option)
{
    sgemm_config *cfg = config;
    if (strcmp(option->name, "sizes") == 0)
        for (int s = 0; s < cfg->sizes.count && cfg->nshapes < 2 * BENCH_MAX_LIST; s++)
            cfg->shapes[cfg->nshapes++] = square(cfg->sizes.v[s]);
    if (strcmp(option->name, "shapes") == 0)
        for (int s = 0; s < cfg->shapes_given.count && cfg->nshapes < 2 * BENCH_MAX_LIST; s++)
            cfg->shapes[cfg->nshapes++] = cfg->shapes_given.v[s];
    if (strcmp(option->name, "sizes") == 0 || strcmp(option->name, "shapes") == 0 ||
        strcmp(option->name, "layouts") == 0 || strcmp(option->name, "trans") == 0)
        cfg->explicit_lists = 1;
    return 0;
}

/* The configurations: the suite, or every shape x layout x transpose pair given. */
static int check_options(void *config)
{
    sgemm_config *cfg = config;
    if (cfg->suite >= 0 && cfg->explicit_lists)
        return bench_usage_error("--suite does not combine with --sizes, --shapes, --layouts or --trans");
    if (!cfg->explicit_lists) {
        build_suite(cfg, cfg->suite == 1);
        return 0;
    }
    if (cfg->nshapes == 0) {
        const int nsquare = (int)(sizeof square_suite_sizes / sizeof square_suite_sizes[0]);
        for (int s = 0; s < nsquare; s++)
            cfg->shapes[cfg->nshapes++] = square(square_suite_sizes[s]);
    }
    for (int s = 0; s < cfg->nshapes; s++)
        for (int l = 0; l < cfg->layouts.count; l++)
            for (int p = 0; p < cfg->pairs.count; p++)
                if (!add_case(cfg, cfg->shapes[s], cfg->layouts.v[l] == 0 ? SMM_ROW_MAJOR : SMM_COL_MAJOR,
                              cfg->pairs.v[p]))
                    return bench_usage_error("more than %d configurations", MAX_CASES);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Operands                                                                 */
/* ------------------------------------------------------------------------ */

/* Stored size of op(X) = rows x cols given its transpose flag. */
typedef struct {
    int64_t lines, length; /* as in bench_matrix.h; ld = max(1, length) */
} storage;

static storage storage_of(smm_layout layout, smm_trans trans, int64_t op_rows, int64_t op_cols)
{
    int64_t rows = trans == SMM_NO_TRANS ? op_rows : op_cols;
    int64_t cols = trans == SMM_NO_TRANS ? op_cols : op_rows;
    if (layout == SMM_ROW_MAJOR)
        return (storage){ rows, cols };
    return (storage){ cols, rows };
}

static int64_t minimal_ld(storage s)
{
    return s.length > 1 ? s.length : 1;
}

/* op(X)(r, c) of a matrix stored in layout with leading dimension ld. */
static float op_element(const float *X, smm_layout layout, smm_trans trans, int64_t ld, int64_t r, int64_t c)
{
    int64_t row = trans == SMM_NO_TRANS ? r : c;
    int64_t col = trans == SMM_NO_TRANS ? c : r;
    return layout == SMM_ROW_MAJOR ? X[row * ld + col] : X[col * ld + row];
}

static float *c_entry(float *C, smm_layout layout, int64_t ldc, int64_t i, int64_t j)
{
    return layout == SMM_ROW_MAJOR ? &C[i * ldc + j] : &C[j * ldc + i];
}

/* ------------------------------------------------------------------------ */
/* Calls                                                                    */
/* ------------------------------------------------------------------------ */

static int peer_fits(const sgemm_problem *p)
{
    const int64_t big = p->c.shape.m > p->c.shape.n ? p->c.shape.m : p->c.shape.n;
    return big <= INT_MAX && p->c.shape.k <= INT_MAX && p->lda <= INT_MAX && p->ldb <= INT_MAX &&
           p->ldc <= INT_MAX;
}

static int contender_ready(const sgemm_problem *p, int who)
{
    if (who == EXACT)
        return 1;
    return peer_blas_ready(p->peers[who - 1]) && peer_fits(p);
}

static const char *contender_name(const sgemm_problem *p, int who)
{
    return who == EXACT ? "exact_sgemm" : peer_blas_name(p->peers[who - 1]);
}

static void call_contender(const sgemm_problem *p, int who)
{
    const sgemm_case *c = &p->c;
    if (who == EXACT) {
        smm_status s = exact_sgemm(c->layout, c->transa, c->transb, c->shape.m, c->shape.n, c->shape.k, 1.0f,
                                   p->A, p->lda, p->B, p->ldb, 0.0f, p->C[EXACT], p->ldc);
        if (s != SMM_OK) {
            bench_error("exact_sgemm failed: %s", smm_status_str(s));
            exit(BENCH_EXIT_FAILED);
        }
        return;
    }
    peer_sgemm_fn sgemm = peer_blas_sgemm(p->peers[who - 1]);
    sgemm((int)c->layout, (int)c->transa, (int)c->transb, (int)c->shape.m, (int)c->shape.n, (int)c->shape.k, 1.0f,
          p->A, (int)p->lda, p->B, (int)p->ldb, 0.0f, p->C[who], (int)p->ldc);
}

/* ------------------------------------------------------------------------ */
/* Verification                                                             */
/* ------------------------------------------------------------------------ */

/* exact's C against double-precision sums on REFERENCE_SAMPLES entries (and the corners); 1 when within bounds. */
static int check_against_reference(const sgemm_problem *p)
{
    const sgemm_case *c = &p->c;
    const int64_t m = c->shape.m, n = c->shape.n, k = c->shape.k;
    uint64_t state = 0x2545f4914f6cdd1dULL;
    for (int s = 0; s < REFERENCE_SAMPLES; s++) {
        int64_t i, j;
        if (s < 4) {
            i = (s & 1) ? m - 1 : 0;
            j = (s & 2) ? n - 1 : 0;
        } else {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            i = (int64_t)((state >> 33) % (uint64_t)m);
            j = (int64_t)((state >> 17) % (uint64_t)n);
        }
        double sum = 0.0, magnitude = 0.0;
        for (int64_t q = 0; q < k; q++) {
            double product = (double)op_element(p->A, c->layout, c->transa, p->lda, i, q) *
                             (double)op_element(p->B, c->layout, c->transb, p->ldb, q, j);
            sum += product;
            magnitude += fabs(product);
        }
        double got = *c_entry(p->C[EXACT], c->layout, p->ldc, i, j);
        double bound = 2.0 * (double)k * FLT_EPSILON * magnitude + FLT_MIN;
        if (!(fabs(got - sum) <= bound)) {
            bench_error("exact_sgemm C(%lld, %lld) = %.9g but the double-precision sum is "
                        "%.9g (bound %.3g)",
                        (long long)i, (long long)j, got, sum, bound);
            return 0;
        }
    }
    return 1;
}

/* max |C_exact - C_peer| / (k max|a| max|b|) (0 when A or B is zero). */
static double relative_difference(const sgemm_problem *p, int who, double scale)
{
    const sgemm_case *c = &p->c;
    storage sc = storage_of(c->layout, SMM_NO_TRANS, c->shape.m, c->shape.n);
    double diff = bench_max_abs_diff(p->C[EXACT], p->ldc, p->C[who], p->ldc, sc.lines, sc.length);
    return scale > 0.0 ? diff / scale : diff;
}

/* ------------------------------------------------------------------------ */
/* One configuration                                                        */
/* ------------------------------------------------------------------------ */

typedef struct {
    double seconds[CONTENDERS];  /* median seconds per call; NaN when the contender did not run */
    double gflops[CONTENDERS];
    double difference[CONTENDERS]; /* relative difference to exact (peers) */
    /*
     * Peers: exact's speed over the peer's, as the median over rounds of the
     * ratio within each round (exact and the peer timed moments apart, so a
     * change of load between rounds cancels), and half the interquartile
     * range of those per-round ratios (how much the row's rounds disagreed).
     */
    double ratio[CONTENDERS], ratio_spread[CONTENDERS];
    int reps, batch;
} sgemm_result;

static double now_minus(double start)
{
    return bench_now_seconds() - start;
}

/*
 * Sleep SETTLE_SECONDS before a contender's timed calls. After a parallel
 * call returns, its library's idle worker threads keep spinning for a while
 * (libgomp, used by exact_sgemm and BLIS, for up to milliseconds; OpenBLAS's
 * pthreads yield in a loop for about 2^28 timer ticks by default, ~0.1 s at
 * 2.6 GHz, before they sleep): without a pause they would take cores from
 * the next contender in the round.
 */
static void settle(void)
{
    const struct timespec pause = { 0, (long)(SETTLE_SECONDS * 1e9) };
    nanosleep(&pause, NULL);
}

/*
 * Calls of exact_sgemm per timed sample: enough for BATCH_TARGET_SECONDS,
 * from a run of growing batches (warm, so thread start-up does not count).
 */
static int choose_batch(const sgemm_problem *p)
{
    int calls = 1;
    for (;;) {
        double start = bench_now_seconds();
        for (int call = 0; call < calls; call++)
            call_contender(p, EXACT);
        double elapsed = now_minus(start);
        if (elapsed >= BATCH_TARGET_SECONDS)
            return calls;
        if (elapsed >= BATCH_TARGET_SECONDS / 8 || calls >= BATCH_MAX_CALLS)
            return (int)fmin(BATCH_MAX_CALLS, ceil(calls * BATCH_TARGET_SECONDS / fmax(elapsed, 1e-9)));
        calls *= 4;
    }
}

static int run_configuration(sgemm_problem *p, int threads, int reps, sgemm_result *r)
{
    const sgemm_case *c = &p->c;
    smm_status s = smm_set_num_threads(threads);
    if (s != SMM_OK) {
        bench_error("smm_set_num_threads(%d): %s", threads, smm_status_str(s));
        return 0;
    }
    for (int q = 0; q < PEER_COUNT; q++)
        peer_blas_set_threads(p->peers[q], threads);

    /* warm-up: one call each */
    for (int who = 0; who < CONTENDERS; who++) {
        r->seconds[who] = r->gflops[who] = r->difference[who] = NAN;
        r->ratio[who] = r->ratio_spread[who] = NAN;
        if (contender_ready(p, who))
            call_contender(p, who);
    }
    r->batch = choose_batch(p);
    r->reps = reps;

    if (!check_against_reference(p))
        return 0;
    storage sa = storage_of(c->layout, c->transa, c->shape.m, c->shape.k);
    storage sb = storage_of(c->layout, c->transb, c->shape.k, c->shape.n);
    double scale = (double)c->shape.k * bench_max_abs(p->A, sa.lines, sa.length, p->lda) *
                   bench_max_abs(p->B, sb.lines, sb.length, p->ldb);
    for (int who = 1; who < CONTENDERS; who++) {
        if (!contender_ready(p, who))
            continue;
        r->difference[who] = relative_difference(p, who, scale);
        if (!(r->difference[who] <= PEER_TOLERANCE)) {
            bench_error("exact_sgemm and %s disagree on %lldx%lldx%lld %s %s: max |difference| "
                        "= %.3g k max|a| max|b| (tolerance %g)",
                        contender_name(p, who), (long long)c->shape.m, (long long)c->shape.n, (long long)c->shape.k,
                        layout_names[c->layout == SMM_ROW_MAJOR ? 0 : 1],
                        trans_names[trans_pair_of(c->transa, c->transb)],
                        r->difference[who], PEER_TOLERANCE);
            return 0;
        }
    }

    double *samples = malloc((size_t)CONTENDERS * (size_t)reps * sizeof *samples);
    if (samples == NULL) {
        bench_error("out of memory");
        return 0;
    }
    for (int rep = 0; rep < reps; rep++)
        for (int who = 0; who < CONTENDERS; who++) {
            if (!contender_ready(p, who))
                continue;
            settle();
            double t0 = bench_now_seconds();
            for (int call = 0; call < r->batch; call++)
                call_contender(p, who);
            samples[who * reps + rep] = now_minus(t0) / r->batch;
        }
    /* per-round ratios first: the medians below sort the samples */
    double *ratios = malloc((size_t)reps * sizeof *ratios);
    if (ratios == NULL) {
        free(samples);
        bench_error("out of memory");
        return 0;
    }
    for (int who = 1; who < CONTENDERS; who++) {
        if (!contender_ready(p, who))
            continue;
        for (int rep = 0; rep < reps; rep++)
            ratios[rep] = samples[who * reps + rep] / samples[EXACT * reps + rep];
        r->ratio[who] = bench_median(ratios, reps);
        r->ratio_spread[who] = 0.5 * (bench_quantile(ratios, reps, 0.75) - bench_quantile(ratios, reps, 0.25));
    }
    free(ratios);
    const double flops = 2.0 * (double)c->shape.m * (double)c->shape.n * (double)c->shape.k;
    for (int who = 0; who < CONTENDERS; who++) {
        if (!contender_ready(p, who))
            continue;
        r->seconds[who] = bench_median(samples + who * reps, reps);
        r->gflops[who] = flops / r->seconds[who] * 1e-9;
    }
    free(samples);
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Output                                                                   */
/* ------------------------------------------------------------------------ */


static void print_table_header(void)
{
    printf("'ex/OB', 'ex/BLIS': median over rounds of exact's speed over the peer's within the round;\n"
           "'+-': half the interquartile range of those per-round ratios.\n");
    printf("'other%%': share of the machine's CPU time other processes used during that row's measurement.\n");
    printf("\n%17s %6s %5s %3s %8s %8s %8s %7s %5s %7s %5s %6s %4s %6s\n", "m x n x k", "layout", "trans", "thr",
           "exact", "OpenBLAS", "BLIS", "ex/OB", "+-", "ex/BLIS", "+-", "%peak", "reps", "other%");
    printf("%17s %6s %5s %3s %8s %8s %8s %7s %5s %7s %5s %6s %4s %6s\n", "", "", "", "", "GFLOPS", "GFLOPS", "GFLOPS",
           "", "", "", "", "", "", "");
}

static void report(const sgemm_problem *p, int threads, const sgemm_result *r, double peak, double others,
                   FILE *csv)
{
    const sgemm_case *c = &p->c;
    char shape[64];
    snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)c->shape.m, (long long)c->shape.n,
             (long long)c->shape.k);
    const char *layout = layout_names[c->layout == SMM_ROW_MAJOR ? 0 : 1];
    const char *trans = trans_names[trans_pair_of(c->transa, c->transb)];
    const double ratio_openblas = r->ratio[1 + PEER_OPENBLAS], ratio_blis = r->ratio[1 + PEER_BLIS];
    double fraction = peak > 0.0 ? r->gflops[EXACT] / peak : NAN;
    printf("%17s %6s %5s %3d", shape, layout, trans, threads);
    bench_print_number(r->gflops[EXACT], 8, 1);
    bench_print_number(r->gflops[1 + PEER_OPENBLAS], 8, 1);
    bench_print_number(r->gflops[1 + PEER_BLIS], 8, 1);
    bench_print_number(ratio_openblas, 7, 2);
    bench_print_number(r->ratio_spread[1 + PEER_OPENBLAS], 5, 2);
    bench_print_number(ratio_blis, 7, 2);
    bench_print_number(r->ratio_spread[1 + PEER_BLIS], 5, 2);
    bench_print_number(100.0 * fraction, 6, 1);
    printf(" %4d", r->reps);
    bench_print_share(stdout, others, 6);
    printf("\n");
    fflush(stdout);
    if (csv == NULL)
        return;
    fprintf(csv, "%lld,%lld,%lld,%s,%s,%d,%d,%d", (long long)c->shape.m, (long long)c->shape.n,
            (long long)c->shape.k, layout, trans, threads, r->reps, r->batch);
    for (int who = 0; who < CONTENDERS; who++)
        bench_csv_number(csv, r->seconds[who]);
    for (int who = 0; who < CONTENDERS; who++)
        bench_csv_number(csv, r->gflops[who]);
    bench_csv_number(csv, ratio_openblas);
    bench_csv_number(csv, ratio_blis);
    bench_csv_number(csv, r->ratio_spread[1 + PEER_OPENBLAS]);
    bench_csv_number(csv, r->ratio_spread[1 + PEER_BLIS]);
    bench_csv_number(csv, peak > 0.0 ? peak : NAN);
    bench_csv_number(csv, fraction);
    bench_csv_number(csv, r->difference[1 + PEER_OPENBLAS]);
    bench_csv_number(csv, r->difference[1 + PEER_BLIS]);
    bench_csv_number(csv, others);
    fprintf(csv, ",%s,%s,%s,%s,\"", bench_isa_name(), exact_sgemm_kernel_name(),
            peer_blas_kernel(p->peers[PEER_OPENBLAS]), peer_blas_kernel(p->peers[PEER_BLIS]));
    for (const char *q = bench_exact_config(); *q; q++) { /* one quoted field: its quotes doubled */
        if (*q == '"')
            fputc('"', csv);
        fputc(*q, csv);
    }
    fprintf(csv, "\"\n");
    fflush(csv);
}

/* Smallest exact/peer ratio of one group of configurations at one thread count. */
typedef struct {
    double ratio;
    sgemm_case where;
} smallest_ratio;

enum { GROUP_LARGE, GROUP_SMALL, GROUP_OTHER, GROUPS };
static const char *const group_names[GROUPS] = { "sizes >= 256", "sizes 64/128", "other shapes" };

/* large: every dimension >= 256; small: every dimension <= 128; other: the rest (skinny shapes) */
static int group_of(bench_shape s)
{
    int64_t smallest = s.m < s.n ? (s.m < s.k ? s.m : s.k) : (s.n < s.k ? s.n : s.k);
    int64_t largest = s.m > s.n ? (s.m > s.k ? s.m : s.k) : (s.n > s.k ? s.n : s.k);
    if (smallest >= 256)
        return GROUP_LARGE;
    if (largest <= 128)
        return GROUP_SMALL;
    return GROUP_OTHER;
}

static void note_ratio(smallest_ratio *slot, double ratio, const sgemm_case *c)
{
    if (isnan(ratio))
        return;
    if (isnan(slot->ratio) || ratio < slot->ratio) {
        slot->ratio = ratio;
        slot->where = *c;
    }
}

static void print_summary(const sgemm_config *cfg, smallest_ratio minima[][PEER_COUNT][GROUPS],
                          peer_blas *const *peers)
{
    int ready = 0;
    for (int q = 0; q < PEER_COUNT; q++)
        ready += peer_blas_ready(peers[q]);
    if (ready == 0) {
        printf("\nNo peer available: no ratios.\n");
        return;
    }
    printf("\nSmallest ratio exact_sgemm / peer (median of per-round ratios), per thread count:\n");
    for (int t = 0; t < cfg->threads.count; t++)
        for (int q = 0; q < PEER_COUNT; q++) {
            if (!peer_blas_ready(peers[q]))
                continue;
            printf("  threads %lld, vs %-8s:", (long long)cfg->threads.v[t], peer_blas_name(peers[q]));
            int any = 0;
            for (int g = 0; g < GROUPS; g++) {
                const smallest_ratio *s = &minima[t][q][g];
                if (isnan(s->ratio))
                    continue;
                printf("%s %s %.2f (%lldx%lldx%lld %s %s)", any ? ";" : "", group_names[g], s->ratio,
                       (long long)s->where.shape.m, (long long)s->where.shape.n, (long long)s->where.shape.k,
                       layout_names[s->where.layout == SMM_ROW_MAJOR ? 0 : 1],
                       trans_names[trans_pair_of(s->where.transa, s->where.transb)]);
                any = 1;
            }
            printf("%s\n", any ? "" : " no configuration");
        }
}

/* ------------------------------------------------------------------------ */
/* Mode                                                                     */
/* ------------------------------------------------------------------------ */

/* Probe width the ISA path's exact kernel uses; -1 when there is none (scalar, NEON). */
static int peak_width(void)
{
    smm_isa isa;
    if (smm_get_isa(&isa) != SMM_OK)
        return -1;
    if (isa == SMM_ISA_AVX512)
        return FMA_PROBE_512;
    if (isa == SMM_ISA_AVX2)
        return FMA_PROBE_256;
    return -1;
}

static void measure_peaks(const sgemm_config *cfg, double *peaks)
{
    int width = peak_width();
    const char *why = NULL;
    if (width < 0 || !fma_probe_available((fma_probe_width)width, &why)) {
        printf("Peak: no FMA probe for ISA path %s%s%s; %%peak is left out\n", bench_isa_name(),
               why != NULL ? ": " : "", why != NULL ? why : "");
        for (int t = 0; t < cfg->threads.count; t++)
            peaks[t] = 0.0;
        return;
    }
    /* one thread always, for reference, then every thread count of the run */
    const double single = fma_probe_gflops((fma_probe_width)width, 1);
    printf("Peak (%s probe, all threads together): 1 thread %.1f GFLOPS", fma_probe_width_name((fma_probe_width)width),
           single);
    int disturbed = 0;
    for (int t = 0; t < cfg->threads.count; t++) {
        const int threads = (int)cfg->threads.v[t];
        peaks[t] = threads == 1 ? single : fma_probe_gflops((fma_probe_width)width, threads);
        /* far below threads x single: another process probably had a core; the best of a few more tries */
        for (int retry = 0; retry < PEAK_RETRIES && peaks[t] < PEAK_PLAUSIBLE * threads * single; retry++) {
            const struct timespec pause = { 0, 100 * 1000 * 1000 };
            nanosleep(&pause, NULL);
            peaks[t] = fmax(peaks[t], fma_probe_gflops((fma_probe_width)width, threads));
        }
        if (peaks[t] < PEAK_PLAUSIBLE * threads * single)
            disturbed = 1;
        if (threads != 1)
            printf(", %d threads %.1f GFLOPS", threads, peaks[t]);
    }
    printf("\n");
    if (disturbed)
        printf("Warning: a multi-thread peak is below %.0f%% of threads x the 1-thread peak: the machine is busy\n"
               "or the threads share cores; %%peak on that thread count is overstated.\n",
               100.0 * PEAK_PLAUSIBLE);
    fflush(stdout);
}

static void allocate_operands(sgemm_problem *p)
{
    const sgemm_case *c = &p->c;
    storage sa = storage_of(c->layout, c->transa, c->shape.m, c->shape.k);
    storage sb = storage_of(c->layout, c->transb, c->shape.k, c->shape.n);
    storage sc = storage_of(c->layout, SMM_NO_TRANS, c->shape.m, c->shape.n);
    p->lda = minimal_ld(sa);
    p->ldb = minimal_ld(sb);
    p->ldc = minimal_ld(sc);
    float *A = bench_alloc_floats(sa.lines * p->lda);
    float *B = bench_alloc_floats(sb.lines * p->ldb);
    bench_fill(A, sa.lines, sa.length, p->lda, 1);
    bench_fill(B, sb.lines, sb.length, p->ldb, 2);
    p->A = A;
    p->B = B;
    for (int who = 0; who < CONTENDERS; who++) {
        p->C[who] = NULL;
        if (!contender_ready(p, who))
            continue;
        p->C[who] = bench_alloc_floats(sc.lines * p->ldc);
        bench_zero(p->C[who], sc.lines, sc.length, p->ldc); /* first touch before timing */
    }
}

static void free_operands(sgemm_problem *p)
{
    bench_free_floats((float *)p->A);
    bench_free_floats((float *)p->B);
    for (int who = 0; who < CONTENDERS; who++)
        bench_free_floats(p->C[who]);
}

static int run_mode(void *config, FILE *csv)
{
    const sgemm_config *cfg = config;
    peer_blas *peers[PEER_COUNT];
    for (int q = 0; q < PEER_COUNT; q++) {
        peers[q] = peer_blas_open((peer_kind)q);
        printf("%s\n", peer_blas_status(peers[q]));
    }
    double peaks[BENCH_MAX_LIST];
    measure_peaks(cfg, peaks);
    /* the ceiling the micro-kernel itself sets, against the one-thread FMA peak of the same run */
    const double ceiling = kernel_probe_gflops();
    if (ceiling > 0.0) {
        const double single = peak_width() >= 0 ? fma_probe_gflops((fma_probe_width)peak_width(), 1) : 0.0;
        printf("Ceiling (micro-kernel %s alone, kc %lld, panels in cache, 1 thread): %.1f GFLOPS", kernel_probe_name(),
               kernel_probe_kc(), ceiling);
        if (single > 0.0)
            printf(" = %.1f%% of the 1-thread FMA peak measured now (%.1f)", 100.0 * ceiling / single, single);
        printf("\n");
    }
    if (cfg->reps == 0)
        printf("Repetitions: %d (%d for shapes with m*n*k >= 4096^3), --reps not given\n", DEFAULT_REPS,
               HUGE_SHAPE_REPS);

    static smallest_ratio minima[BENCH_MAX_LIST][PEER_COUNT][GROUPS];
    for (int t = 0; t < BENCH_MAX_LIST; t++)
        for (int q = 0; q < PEER_COUNT; q++)
            for (int g = 0; g < GROUPS; g++)
                minima[t][q][g].ratio = NAN;

    print_table_header();
    int status = 0;
    for (int i = 0; i < cfg->ncases && status == 0; i++) {
        sgemm_problem problem = { .c = cfg->cases[i] };
        for (int q = 0; q < PEER_COUNT; q++)
            problem.peers[q] = peers[q];
        allocate_operands(&problem);
        const bench_shape s = problem.c.shape;
        int reps = (int)cfg->reps;
        if (reps == 0)
            reps = s.m * s.n * s.k >= HUGE_SHAPE_ELEMENTS ? HUGE_SHAPE_REPS : DEFAULT_REPS;
        for (int t = 0; t < cfg->threads.count && status == 0; t++) {
            sgemm_result result;
            const bench_contention_mark before = bench_contention_now();
            if (!run_configuration(&problem, (int)cfg->threads.v[t], reps, &result)) {
                status = BENCH_EXIT_FAILED;
                break;
            }
            const double others = bench_contention_others(before, bench_contention_now());
            report(&problem, (int)cfg->threads.v[t], &result, peaks[t], others, csv);
            for (int q = 0; q < PEER_COUNT; q++)
                note_ratio(&minima[t][q][group_of(s)], result.ratio[1 + q], &problem.c);
        }
        free_operands(&problem);
    }
    if (status == 0)
        print_summary(cfg, minima, peers);
    smm_set_num_threads(0);
    for (int q = 0; q < PEER_COUNT; q++)
        peer_blas_free(peers[q]);
    return status;
}

static const bench_option options[] = {
    { .name = "suite", .arg = "square|full", .kind = BENCH_CHOICE, .offset = offsetof(sgemm_config, suite),
      .choices = suite_names, .def = -1,
      .help = "square (default): n = 64,128,...,4096, row-major NN, threads 1 and\n"
              "the OpenMP maximum; full: square plus row and col with NN,NT,TN,TT\n"
              "at n = 1024, n = 1000, 2047, 4095 (row NN) and MxNxK = 4096x64x4096,\n"
              "64x4096x4096, 4096x4096x64 (row NN)" },
    { .name = "sizes", .arg = "LIST", .kind = BENCH_INT_LIST, .offset = offsetof(sgemm_config, sizes), .lo = 1,
      .hi = MAX_DIMENSION, .wants = "sizes", .help = "square sizes n (e.g. 64,128,1000); replaces the suite" },
    { .name = "shapes", .arg = "LIST", .kind = BENCH_SHAPES, .offset = offsetof(sgemm_config, shapes_given),
      .lo = 1, .hi = MAX_DIMENSION, .wants = "MxNxK with dimensions",
      .help = "shapes MxNxK (e.g. 4096x64x4096,100x200x300); replaces the suite" },
    { .name = "layouts", .arg = "LIST", .kind = BENCH_CHOICE_LIST, .offset = offsetof(sgemm_config, layouts),
      .choices = layout_names, BENCH_DEFAULTS(0),
      .help = "row,col (default {default}; with --sizes/--shapes or alone)" },
    { .name = "trans", .arg = "LIST", .kind = BENCH_CHOICE_LIST, .offset = offsetof(sgemm_config, pairs),
      .choices = trans_names, BENCH_DEFAULTS(0),
      .help = "NN,NT,TN,TT (default {default}; op(A) op(B); with --sizes/--shapes or alone)" },
    BENCH_OPTION_THREAD_COUNTS(sgemm_config, threads),
    BENCH_OPTION_REPS(sgemm_config, reps, 1000000, 0 /* not given */,
                      "timed rounds per configuration (default " BENCH_STR(DEFAULT_REPS) "; "
                      BENCH_STR(HUGE_SHAPE_REPS) " when m*n*k >= 4096^3)"),
    { .name = NULL },
};

const bench_mode bench_mode_sgemm = {
    .name = "sgemm",
    .summary = "exact_sgemm against OpenBLAS and BLIS (GFLOPS, ratios, fraction of peak)",
    .options = options,
    .config_size = sizeof(sgemm_config),
    .describe = describe,
    .notes = "Without --suite, --sizes or --shapes the square suite runs; --layouts and --trans alone\n"
             "apply to the square suite's sizes.",
    .csv_header = "m,n,k,layout,trans,threads,reps,batch,seconds_exact,seconds_openblas,seconds_blis,gflops_exact,"
                  "gflops_openblas,gflops_blis,ratio_exact_openblas,ratio_exact_blis,ratio_spread_openblas,"
                  "ratio_spread_blis,peak_gflops,fraction_of_peak,"
                  "rel_diff_openblas,rel_diff_blis,other_cpu_share,isa,exact_kernel,openblas_core,blis_arch,"
                  "exact_config\n",
    .csv_rows = "configuration (all numbers, kernels,\nOpenBLAS core, BLIS arch, ISA path, the exact core's configuration)",
    .after_option = after_option,
    .check = check_options,
    .run = run_mode,
};
