/*
 * bench_sgemm_small.c - mode `sgemm-small`: exact_sgemm on small products
 * (the path of unpacked small-product kernels, one thread), its generated
 * kernels against its precompiled ones, libxsmm 1.17 (peer_libxsmm.h,
 * optional) and OpenBLAS (peer_blas.h, optional), in the same run:
 *
 *     C := C + A B     (row-major, no transposes, lda = K, ldb = N, ldc = N)
 *
 * Contenders, each a tight loop of calls on the same hot buffers:
 *   generated  exact_sgemm with code generation on (sketchmm/jit.h)
 *   precomp    exact_sgemm with it off (the precompiled small-product kernels)
 *   libxsmm    libxsmm_smmdispatch of the column-major product C^T = B^T A^T
 *   OpenBLAS   cblas_sgemm
 * Every contender's C, after one call from the same starting C, is checked
 * against a double-precision sum (|error| <= 1e-4 of sum |a||b| + |c|); the
 * two sketchmm contenders must also agree bit for bit (their arithmetic is
 * the same). A timed sample is a loop lasting >= MIN_SAMPLE_SECONDS (count
 * calibrated per contender); --reps rounds time the contenders in turn,
 * round r starting with contender r; the figure is the median GFLOPS. The
 * summary gives the mean GFLOPS over the grid and per K, the ratios of the
 * means, and the shapes where the generated kernels lose to the precompiled.
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
#include "peer_blas.h"
#include "peer_libxsmm.h"
#include "sketchmm.h"

#define DEFAULT_REPS 5
#define MAX_DIMENSION 512
#define MIN_SAMPLE_SECONDS 1e-3
#define TOLERANCE 1e-4

enum { GENERATED, PRECOMP, XSMM, OPENBLAS, IMPLS };
static const char *const impl_names[IMPLS] = { "generated", "precomp", "libxsmm", "OpenBLAS" };

typedef struct {
    bench_int_list m, n, k;
    int64_t reps;
} small_config;

static void describe(FILE *out)
{
    fprintf(out,
        "  exact_sgemm on small products, C := C + A B, row-major, no transposes, tight leading\n"
        "  dimensions, one thread: the small-product path on generated kernels ('generated', code\n"
        "  generation on) against its precompiled kernels ('precomp', off), libxsmm %s\n"
        "  (libxsmm_smmdispatch of C^T = B^T A^T) and OpenBLAS, in the same run. Results are\n"
        "  checked against a double-precision sum (and generated against precomp bit for bit)\n"
        "  before timing; samples of >= %.1f ms, --reps rounds with the contenders in turn,\n"
        "  medians. The summary: mean GFLOPS and ratios of means over the grid and per K, and\n"
        "  the shapes where the generated kernels lose to the precompiled ones.\n",
#ifdef SKETCHMM_HAVE_LIBXSMM
        "1.17",
#else
        "1.17 (not built in here)",
#endif
        MIN_SAMPLE_SECONDS * 1e3);
}

typedef struct {
    int64_t m, n, k;
    float *A, *B, *C0, *C[IMPLS];
    peer_xsmm_kernel xsmm;
    peer_sgemm_fn openblas;
    int active[IMPLS];
    int64_t calls[IMPLS];
} problem;

static void fail_call(const char *what, smm_status s)
{
    bench_error("%s failed: %s", what, smm_status_str(s));
    exit(BENCH_EXIT_FAILED);
}

static void run_calls(const void *context, int who, int64_t calls)
{
    const problem *p = context;
    float *C = p->C[who];
    const int m = (int)p->m, n = (int)p->n, k = (int)p->k;
    switch (who) {
    case GENERATED:
    case PRECOMP:
        smm_set_jit(who == GENERATED);
        for (int64_t c = 0; c < calls; c++) {
            const smm_status s = exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, p->m, p->n, p->k, 1.0f, p->A,
                                             p->k, p->B, p->n, 1.0f, C, p->n);
            if (s != SMM_OK)
                fail_call("exact_sgemm", s);
        }
        break;
    case XSMM:
        peer_libxsmm_repeat_strided(&p->xsmm, p->B, p->A, C, 1, calls);
        break;
    default:
        for (int64_t c = 0; c < calls; c++)
            p->openblas((int)SMM_ROW_MAJOR, (int)SMM_NO_TRANS, (int)SMM_NO_TRANS, m, n, k, 1.0f, p->A, k, p->B, n,
                        1.0f, C, n);
        break;
    }
}

/* One call of who from C0 against the double-precision result; 1 when right. */
static int check(const problem *p, int who)
{
    float *C = p->C[who];
    memcpy(C, p->C0, (size_t)(p->m * p->n) * sizeof *C);
    run_calls(p, who, 1);
    for (int64_t i = 0; i < p->m; i++)
        for (int64_t j = 0; j < p->n; j++) {
            double sum = p->C0[i * p->n + j], size = fabs(sum);
            for (int64_t q = 0; q < p->k; q++) {
                const double prod = (double)p->A[i * p->k + q] * (double)p->B[q * p->n + j];
                sum += prod;
                size += fabs(prod);
            }
            if (!(fabs((double)C[i * p->n + j] - sum) <= TOLERANCE * size)) {
                bench_error("%s is WRONG on %lldx%lldx%lld at (%lld, %lld): %.9g, expected %.9g", impl_names[who],
                            (long long)p->m, (long long)p->n, (long long)p->k, (long long)i, (long long)j,
                            (double)C[i * p->n + j], sum);
                return 0;
            }
        }
    return 1;
}

/* Set up, check and measure one shape; 0 when a contender was wrong. */
static int run_shape(problem *p, peer_blas *openblas, int reps, double *gflops)
{
    p->active[GENERATED] = p->active[PRECOMP] = 1;
    p->active[XSMM] = peer_libxsmm_ready() &&
                      peer_libxsmm_dispatch(&p->xsmm, PEER_XSMM_GEMM, p->n, p->m, p->k, p->n, p->k, p->n, 0, 0, 1.0f,
                                            1.0f, NULL);
    p->active[OPENBLAS] = peer_blas_ready(openblas);
    if (p->active[OPENBLAS])
        p->openblas = peer_blas_sgemm(openblas);
    for (int who = 0; who < IMPLS; who++)
        if (p->active[who] && !check(p, who))
            return 0;
    if (memcmp(p->C[GENERATED], p->C[PRECOMP], (size_t)(p->m * p->n) * sizeof(float)) != 0) {
        bench_error("generated and precompiled kernels give different bits on %lldx%lldx%lld", (long long)p->m,
                    (long long)p->n, (long long)p->k);
        return 0;
    }
    double *samples = malloc((size_t)IMPLS * (size_t)reps * sizeof *samples);
    if (samples == NULL) {
        bench_error("out of memory");
        exit(BENCH_EXIT_FAILED);
    }
    for (int who = 0; who < IMPLS; who++)
        if (p->active[who])
            p->calls[who] = bench_calibrate_loop(run_calls, p, who, MIN_SAMPLE_SECONDS);
    const double flops = 2.0 * (double)p->m * (double)p->n * (double)p->k;
    for (int rep = 0; rep < reps; rep++)
        for (int turn = 0; turn < IMPLS; turn++) {
            const int who = (rep + turn) % IMPLS;
            if (p->active[who]) {
                run_calls(p, who, 1);
                samples[who * reps + rep] = flops * (double)p->calls[who] / bench_time_loop(run_calls, p, who, p->calls[who]) * 1e-9;
            }
        }
    for (int who = 0; who < IMPLS; who++)
        gflops[who] = p->active[who] ? bench_median(samples + who * reps, reps) : NAN;
    free(samples);
    return 1;
}

typedef struct {
    double sum[IMPLS];
    int count;
} means;

static void add_to(means *m, const double *g)
{
    int all = 1;
    for (int who = 0; who < IMPLS; who++)
        all &= !isnan(g[who]) || who >= XSMM;
    if (!all)
        return;
    for (int who = 0; who < IMPLS; who++)
        m->sum[who] += g[who];
    m->count++;
}

static void print_means(const char *label, const means *m)
{
    printf("%-12s %5d", label, m->count);
    for (int who = 0; who < IMPLS; who++)
        bench_print_number(m->count > 0 ? m->sum[who] / m->count : NAN, 10, 2);
    bench_print_number(m->sum[GENERATED] / m->sum[PRECOMP], 8, 2);
    bench_print_number(m->sum[GENERATED] / m->sum[XSMM], 8, 2);
    printf("\n");
}

static int run_mode(void *config, FILE *csv)
{
    const small_config *cfg = config;
    const int reps = (int)cfg->reps;
    peer_libxsmm_open();
    printf("%s\n", peer_libxsmm_status());
    peer_blas *openblas = peer_blas_open(PEER_OPENBLAS);
    printf("%s\n", peer_blas_status(openblas));
    peer_blas_set_threads(openblas, 1);
    smm_set_num_threads(1);
    printf("exact_sgemm small products, row-major NN, C := C + A B, 1 thread, ISA path %s, kernel %s;\n"
           "%d rounds, samples of >= %.1f ms, medians (GFLOPS).\n\n",
           bench_isa_name(), exact_sgemm_kernel_name(), reps, MIN_SAMPLE_SECONDS * 1e3);
    printf("%4s %4s %4s", "M", "N", "K");
    for (int who = 0; who < IMPLS; who++)
        printf(" %10s", impl_names[who]);
    printf(" %8s %8s %6s\n", "gen/pre", "gen/xsmm", "other%");
    means all = { { 0 }, 0 }, per_k[BENCH_MAX_LIST];
    memset(per_k, 0, sizeof per_k);
    int status = 0, losses = 0;
    char lost[2048] = "";
    const double warm_start = bench_now_seconds();
    while (bench_now_seconds() - warm_start < BENCH_WARMUP_SECONDS) {
    }
    for (int ki = 0; ki < cfg->k.count; ki++)
        for (int mi = 0; mi < cfg->m.count; mi++)
            for (int ni = 0; ni < cfg->n.count; ni++) {
                problem p;
                memset(&p, 0, sizeof p);
                p.m = cfg->m.v[mi];
                p.n = cfg->n.v[ni];
                p.k = cfg->k.v[ki];
                p.A = bench_alloc_floats(p.m * p.k);
                p.B = bench_alloc_floats(p.k * p.n);
                p.C0 = bench_alloc_floats(p.m * p.n);
                bench_fill(p.A, p.m, p.k, p.k, 1);
                bench_fill(p.B, p.k, p.n, p.n, 2);
                bench_fill(p.C0, p.m, p.n, p.n, 3);
                for (int who = 0; who < IMPLS; who++) {
                    p.C[who] = bench_alloc_floats(p.m * p.n);
                    memcpy(p.C[who], p.C0, (size_t)(p.m * p.n) * sizeof(float));
                }
                double g[IMPLS];
                const bench_contention_mark before = bench_contention_now();
                if (!run_shape(&p, openblas, reps, g)) {
                    status = BENCH_EXIT_FAILED;
                } else {
                    const double others = bench_contention_others(before, bench_contention_now());
                    printf("%4lld %4lld %4lld", (long long)p.m, (long long)p.n, (long long)p.k);
                    for (int who = 0; who < IMPLS; who++)
                        bench_print_number(g[who], 10, 2);
                    bench_print_number(g[GENERATED] / g[PRECOMP], 8, 2);
                    bench_print_number(g[GENERATED] / g[XSMM], 8, 2);
                    bench_print_share(stdout, others, 6);
                    printf("\n");
                    fflush(stdout);
                    add_to(&all, g);
                    add_to(&per_k[ki], g);
                    if (g[GENERATED] < g[PRECOMP]) {
                        losses++;
                        const size_t len = strlen(lost);
                        snprintf(lost + len, sizeof lost - len, " %lldx%lldx%lld (%.2f)", (long long)p.m,
                                 (long long)p.n, (long long)p.k, g[GENERATED] / g[PRECOMP]);
                    }
                    if (csv != NULL) {
                        fprintf(csv, "%s,%lld,%lld,%lld,%d", bench_isa_name(), (long long)p.m, (long long)p.n,
                                (long long)p.k, reps);
                        for (int who = 0; who < IMPLS; who++)
                            bench_csv_number(csv, g[who]);
                        bench_csv_number(csv, g[GENERATED] / g[PRECOMP]);
                        bench_csv_number(csv, g[GENERATED] / g[XSMM]);
                        bench_csv_number(csv, others);
                        fputc('\n', csv);
                        fflush(csv);
                    }
                }
                bench_free_floats(p.A);
                bench_free_floats(p.B);
                bench_free_floats(p.C0);
                for (int who = 0; who < IMPLS; who++)
                    bench_free_floats(p.C[who]);
            }
    printf("\nMeans (GFLOPS) over the shapes where every sketchmm contender ran; ratios of the means:\n");
    printf("%-12s %5s", "", "count");
    for (int who = 0; who < IMPLS; who++)
        printf(" %10s", impl_names[who]);
    printf(" %8s %8s\n", "gen/pre", "gen/xsmm");
    print_means("whole grid", &all);
    for (int ki = 0; ki < cfg->k.count; ki++) {
        char label[32];
        snprintf(label, sizeof label, "K = %lld", (long long)cfg->k.v[ki]);
        print_means(label, &per_k[ki]);
    }
    printf("Generated slower than precompiled on %d shape%s%s%s\n", losses, losses == 1 ? "" : "s",
           losses > 0 ? ":" : ".", lost);
    smm_set_jit(-1);
    smm_set_num_threads(0);
    peer_blas_free(openblas);
    peer_libxsmm_close();
    return status;
}

#define SIZE_OPTION(field, text, ...)                                                                            \
    {                                                                                                            \
        .name = #field, .arg = "LIST", .kind = BENCH_INT_LIST, .offset = offsetof(small_config, field), .lo = 1,  \
        .hi = MAX_DIMENSION, BENCH_DEFAULTS(__VA_ARGS__), .wants = "sizes", .help = text                         \
    }

static const bench_option options[] = {
    SIZE_OPTION(m, "M values (default {default})", 4, 8, 13, 16, 24, 32, 48, 64),
    SIZE_OPTION(n, "N values (default the same)", 4, 8, 13, 16, 24, 32, 48, 64),
    SIZE_OPTION(k, "K values (default {default})", 4, 16, 64),
    BENCH_OPTION_REPS(small_config, reps, 100000, DEFAULT_REPS, "timed rounds per shape (default {default})"),
    { .name = NULL },
};

const bench_mode bench_mode_sgemm_small = {
    .name = "sgemm-small",
    .summary = "exact_sgemm small products: generated against precompiled kernels, libxsmm, OpenBLAS",
    .options = options,
    .config_size = sizeof(small_config),
    .describe = describe,
    .notes = "libxsmm is linked in when libxsmm-dev was found at configure time; SKETCHMM_BENCH_NO_PEERS=1\n"
             "leaves OpenBLAS out (libxsmm stays). The ISA path is the library's (SKETCHMM_ISA).",
    .csv_header = "isa,m,n,k,reps,gflops_generated,gflops_precompiled,gflops_libxsmm,gflops_openblas,"
                  "ratio_generated_precompiled,ratio_generated_libxsmm,other_cpu_share\n",
    .csv_rows = "shape",
    .run = run_mode,
};
