/*
 * bench_smallk.c - mode `smallk`: the dense rank-s product of the
 * sketched-factor methods against what bounds it. On the Gram product of the
 * default sweep (A = Fashion-MNIST training images 0 .. m-1, B = the next n
 * as columns, k = 784), per rank s:
 *   plan multiply   approx_plan_multiply against a lowrank plan of rank s
 *                   (made once, outside the timing), against exact_sgemm of
 *                   the whole product in the same rounds, with its NMSE (the
 *                   sweep's: mean squared error over the variance of the
 *                   exact product); plan creation timed too (one-shot);
 *   small-k         the product kernel alone, C (m x n) := AS (m x s) SB
 *                   (s x n) (exact/smallk_gemm.h, what the plan multiply runs
 *                   once A is sketched), against exact_sgemm of the same
 *                   m x n x s product (what it ran before), and its GB/s
 *                   of C over the streaming-store probe of the same run: the
 *                   store-bound ceiling is writing m n 4 bytes at that rate;
 *                   and against a stores-only loop writing the same C with
 *                   streaming stores on the same threads just before it
 *                   (no arithmetic): what writing C costs at that moment.
 * Every round times exact_sgemm once and then each rank's contenders, so a
 * row's ratios compare runs made moments apart; medians over --reps rounds.
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
#include "data/dataset.h"
#include "exact/sgemm.h"
#include "exact/smallk_gemm.h"
#include "sketchmm.h"
#include "write_probe.h"

#define DEFAULT_REPS 7
#define MAX_REPS 101
#define FMNIST_TRAIN 60000

typedef struct {
    int64_t m, n, threads, reps;
    bench_int_list ranks;
    const char *data_dir;
} smallk_config;

static void describe(FILE *out)
{
    fprintf(out,
        "  The dense rank-s product of the sketched-factor methods on the Gram product of the\n"
        "  default sweep: A = Fashion-MNIST training images 0..m-1 (m x 784), B = the next n\n"
        "  images as columns (784 x n). Per rank s: 'plan mult' is approx_plan_multiply against a\n"
        "  lowrank plan of rank s made once, 'x exact' the\n"
        "  exact_sgemm time of the whole product over it, NMSE the sweep's (mean squared error\n"
        "  over the variance of the exact product). 'create bor' times approx_plan_create borrowing\n"
        "  B (APPROX_BORROW_B, as approx_sgemm does), 'create cpy' the same with B copied into the\n"
        "  plan; 'x 1shot' is the exact time over create bor + plan mult (what approx_sgemm\n"
        "  does in one call). 'small-k' is the product kernel alone,\n"
        "  C (m x n) := AS (m x s) SB (s x n) (what the plan multiply runs once A is sketched),\n"
        "  'sgemm k=s' exact_sgemm of the same product (the kernel it replaces), 'GB/s' the bytes of\n"
        "  C over the small-k time and '%%write' that over the streaming-store write bandwidth\n"
        "  measured at the start (sketchmm_bench probe's loop): writing C at that rate is the\n"
        "  store-bound ceiling, 'x ceil' the exact product's time over it. '%%C-st' is the time of\n"
        "  a stores-only loop writing the same C with streaming stores on the same threads, run just\n"
        "  before each small-k product, over the small-k time (the probe writes a larger buffer,\n"
        "  best of its runs). Each of --reps rounds times the exact product once, then every\n"
        "  contender of every rank; medians.\n");
}

/* ---- the timed actions ---- */

typedef struct {
    const float *A, *B;
    float *C;
    int64_t m, n, k;
} product;

static double time_exact(const product *p)
{
    const double t0 = bench_now_seconds();
    smm_status s = exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, p->m, p->n, p->k, 1.0f, p->A, p->k, p->B,
                               p->n, 0.0f, p->C, p->n);
    return s == SMM_OK ? bench_now_seconds() - t0 : NAN;
}

static double time_smallk(const smm_context *ctx, const product *p)
{
    const double t0 = bench_now_seconds();
    smm_status s = smallk_gemm(ctx, p->m, p->n, p->k, 1.0f, p->A, p->k, 1, p->B, p->n, 1, 0.0f, p->C, p->n, 1);
    return s == SMM_OK ? bench_now_seconds() - t0 : NAN;
}

/* The sweep's NMSE: mean squared difference over the population variance of the exact product. */
static double nmse_of(const float *approx, const float *exact, int64_t count)
{
    double mean = 0.0, err = 0.0, var = 0.0;
    for (int64_t t = 0; t < count; t++)
        mean += exact[t];
    mean /= (double)count;
    for (int64_t t = 0; t < count; t++) {
        const double d = (double)approx[t] - exact[t], c = (double)exact[t] - mean;
        err += d * d;
        var += c * c;
    }
    return var > 0.0 ? err / var : NAN;
}

typedef struct {
    double multiply[MAX_REPS], create[MAX_REPS], create_copy[MAX_REPS], smallk[MAX_REPS], sgemm[MAX_REPS],
        c_store[MAX_REPS];
    double nmse;
} rank_times;

static int run_mode(void *config, FILE *csv)
{
    const smallk_config *cfg = config;
    const int64_t m = cfg->m, n = cfg->n, k = 784, reps = cfg->reps;
    const int nranks = cfg->ranks.count;
    if (smm_set_num_threads((int)cfg->threads) != SMM_OK) {
        bench_error("cannot use %lld threads", (long long)cfg->threads);
        return BENCH_EXIT_FAILED;
    }
    smm_context ctx;
    if (smm_context_current(&ctx) != SMM_OK) {
        bench_error("no usable ISA path");
        return BENCH_EXIT_FAILED;
    }
    dataset_matrix images;
    char msg[512];
    smm_status s = dataset_load_fashion_mnist(cfg->data_dir, "train", m + n, &images, msg, sizeof msg);
    if (s != SMM_OK) {
        bench_error("%s", msg);
        return BENCH_EXIT_FAILED;
    }
    /* A: images 0 .. m-1 as rows; B: the next n as columns (k x n row-major) */
    float *B = bench_alloc_floats(k * n), *C = bench_alloc_floats(m * n), *Y = bench_alloc_floats(m * n);
    float *AS = bench_alloc_floats(m * SMALLK_MAX_K), *SB = bench_alloc_floats(SMALLK_MAX_K * n);
    rank_times *times = calloc((size_t)nranks, sizeof *times);
    approx_plan **plans = calloc((size_t)nranks, sizeof *plans);
    int status = B && C && Y && AS && SB && times && plans ? 0 : BENCH_EXIT_FAILED;
    if (status == 0) {
        for (int64_t j = 0; j < n; j++)
            for (int64_t t = 0; t < k; t++)
                B[t * n + j] = images.data[(m + j) * k + t];
        uint64_t state = 7;
        for (int64_t t = 0; t < m * SMALLK_MAX_K; t++)
            AS[t] = (float)((double)((state = state * 6364136223846793005u + 1442695040888963407u) >> 40) * 0x1p-24);
        for (int64_t t = 0; t < SMALLK_MAX_K * n; t++)
            SB[t] = (float)((double)((state = state * 6364136223846793005u + 1442695040888963407u) >> 40) * 0x1p-24);
    }
    const float *A = images.data;
    const product exact = { A, B, Y, m, n, k };
    const double stream_gbs = write_probe_gbytes(WRITE_PROBE_STREAM, (int)cfg->threads);
    double exact_times[MAX_REPS];

    approx_options o = APPROX_OPTIONS_INIT;
    o.method = SKETCH_LOWRANK;
    o.flags = APPROX_BORROW_B; /* B is kept alive and unchanged until the plans are freed */
    for (int r = 0; r < nranks && status == 0; r++) {
        o.size = (int32_t)cfg->ranks.v[r];
        if (approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, k, n, B, n, &o, NULL, &plans[r]) != SMM_OK)
            status = BENCH_EXIT_FAILED;
    }
    if (status == 0 && isnan(time_exact(&exact))) /* the reference Y, and a warm-up */
        status = BENCH_EXIT_FAILED;
    for (int r = 0; r < nranks && status == 0; r++) {
        if (approx_plan_multiply(plans[r], SMM_ROW_MAJOR, SMM_NO_TRANS, m, 1.0f, A, k, 0.0f, C, n, NULL) != SMM_OK)
            status = BENCH_EXIT_FAILED;
        else
            times[r].nmse = nmse_of(C, Y, m * n);
    }
    for (int64_t rep = 0; rep < reps && status == 0; rep++) {
        exact_times[rep] = time_exact(&exact);
        for (int r = 0; r < nranks; r++) {
            const int64_t rank = cfg->ranks.v[r];
            double t0 = bench_now_seconds();
            s = approx_plan_multiply(plans[r], SMM_ROW_MAJOR, SMM_NO_TRANS, m, 1.0f, A, k, 0.0f, C, n, NULL);
            times[r].multiply[rep] = bench_now_seconds() - t0;
            approx_plan *fresh = NULL;
            o.size = (int32_t)rank;
            t0 = bench_now_seconds();
            s = s == SMM_OK ? approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, k, n, B, n, &o, NULL, &fresh) : s;
            times[r].create[rep] = bench_now_seconds() - t0;
            approx_plan_free(fresh);
            fresh = NULL;
            o.flags = 0;
            t0 = bench_now_seconds();
            s = s == SMM_OK ? approx_plan_create(SMM_ROW_MAJOR, SMM_NO_TRANS, k, n, B, n, &o, NULL, &fresh) : s;
            times[r].create_copy[rep] = bench_now_seconds() - t0;
            approx_plan_free(fresh);
            o.flags = APPROX_BORROW_B;
            const product small = { AS, SB, C, m, n, rank };
            times[r].c_store[rep] = write_probe_seconds_on(WRITE_PROBE_STREAM, C, m * n, (int)cfg->threads);
            times[r].smallk[rep] = time_smallk(&ctx, &small);
            t0 = bench_now_seconds();
            s = s == SMM_OK ? exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, rank, 1.0f, AS, rank, SB, n,
                                          0.0f, C, n)
                            : s;
            times[r].sgemm[rep] = bench_now_seconds() - t0;
            if (s != SMM_OK || isnan(times[r].smallk[rep])) {
                bench_error("rank %lld: %s", (long long)rank, smm_status_str(s));
                status = BENCH_EXIT_FAILED;
                break;
            }
        }
    }
    if (status == 0) {
        const double exact_s = bench_median(exact_times, (int)reps), c_bytes = 4.0 * (double)m * (double)n;
        const double ceiling_s = stream_gbs > 0.0 ? c_bytes / (stream_gbs * 1e9) : NAN;
        printf("\nGram product %lld x %d x %lld, %lld threads, kernel %s\n", (long long)m, 784, (long long)n,
               (long long)cfg->threads, smallk_kernels_for(ctx.isa)->head.name);
        printf("exact_sgemm %.2f ms; streaming-store write bandwidth %.1f GB/s: writing C (%.1f MiB) takes >= %.2f ms, "
               "the exact product's time over it %.1fx\n",
               exact_s * 1e3, stream_gbs, c_bytes / 1048576.0, ceiling_s * 1e3, exact_s / ceiling_s);
        printf("\n%5s %10s %8s %10s %10s %10s %9s | %9s %7s %7s %6s %10s %8s\n", "rank", "plan mult", "x exact",
               "NMSE", "create bor", "create cpy", "x 1shot", "small-k", "GB/s", "%write", "%C-st", "sgemm k=s",
               "x sgemm");
        for (int r = 0; r < nranks; r++) {
            const double mul = bench_median(times[r].multiply, (int)reps);
            const double cre = bench_median(times[r].create, (int)reps);
            const double cpy = bench_median(times[r].create_copy, (int)reps);
            const double sk = bench_median(times[r].smallk, (int)reps);
            const double sg = bench_median(times[r].sgemm, (int)reps);
            const double c_store_s = bench_median(times[r].c_store, (int)reps);
            const double c_store = c_store_s > 0.0 ? c_store_s : NAN;
            const double gbs = c_bytes / sk * 1e-9;
            printf("%5lld %8.2fms %7.1fx %10.5f %8.2fms %8.2fms %8.1fx | %7.2fms %7.1f %6.0f%% %6.0f%% %8.2fms "
                   "%7.2fx\n",
                   (long long)cfg->ranks.v[r], mul * 1e3, exact_s / mul, times[r].nmse, cre * 1e3, cpy * 1e3,
                   exact_s / (cre + mul), sk * 1e3, gbs, 100.0 * gbs / stream_gbs, 100.0 * c_store / sk, sg * 1e3,
                   sg / sk);
            if (csv != NULL)
                fprintf(csv, "%lld,%lld,%lld,%lld,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", (long long)m,
                        (long long)n, (long long)cfg->threads, (long long)cfg->ranks.v[r],
                        smallk_kernels_for(ctx.isa)->head.name, exact_s, mul, times[r].nmse, cre, sk, sg, gbs,
                        stream_gbs, c_store, cpy);
        }
        fflush(stdout);
    }
    for (int r = 0; plans != NULL && r < nranks; r++)
        approx_plan_free(plans[r]);
    free(plans);
    free(times);
    bench_free_floats(B);
    bench_free_floats(C);
    bench_free_floats(Y);
    bench_free_floats(AS);
    bench_free_floats(SB);
    dataset_matrix_free(&images);
    return status;
}

static int check(void *config)
{
    const smallk_config *cfg = config;
    if (cfg->m + cfg->n > FMNIST_TRAIN)
        return bench_usage_error("--m plus --n must be at most %d (the training images)", FMNIST_TRAIN);
    for (int r = 0; r < cfg->ranks.count; r++)
        if (cfg->ranks.v[r] > SMALLK_MAX_K)
            return bench_usage_error("--ranks: at most %d (the small-k kernel's longest k)", SMALLK_MAX_K);
    return 0;
}

static const bench_option options[] = {
    { .name = "m", .arg = "M", .kind = BENCH_INT, .offset = offsetof(smallk_config, m), .lo = 1, .hi = FMNIST_TRAIN,
      .def = 4096, .wants = "a row count", .help = "rows of A (default {default})" },
    { .name = "n", .arg = "N", .kind = BENCH_INT, .offset = offsetof(smallk_config, n), .lo = 1, .hi = FMNIST_TRAIN,
      .def = 4096, .wants = "a column count", .help = "columns of B (default {default}); m + n <= 60000" },
    { .name = "ranks", .arg = "LIST", .kind = BENCH_INT_LIST, .offset = offsetof(smallk_config, ranks), .lo = 1,
      .hi = SMALLK_MAX_K, BENCH_DEFAULTS(2, 4, 8, 16, 32), .wants = "ranks",
      .help = "lowrank ranks s, the small-k products' k (default {default})" },
    { .name = "threads", .arg = "T", .kind = BENCH_INT, .offset = offsetof(smallk_config, threads), .lo = 1,
      .hi = SMM_MAX_THREADS, .default_kind = BENCH_DEFAULT_MAX_THREADS, .wants = "a thread count",
      .help = "threads of every contender (default: the OpenMP maximum)" },
    BENCH_OPTION_REPS(smallk_config, reps, MAX_REPS, DEFAULT_REPS, "timed rounds (default " BENCH_STR(DEFAULT_REPS) ")"),
    { .name = "data-dir", .arg = "DIR", .kind = BENCH_STRING, .offset = offsetof(smallk_config, data_dir),
      .help = "Fashion-MNIST directory holding train-images-idx3-ubyte.gz\n"
              "(default $SKETCHMM_FASHION_MNIST_DIR, else /usr/share/datasets/fashion-mnist)" },
    { .name = NULL },
};

const bench_mode bench_mode_smallk = {
    .name = "smallk",
    .summary = "dense rank-s product (lowrank plan multiply, small-k kernel) against exact_sgemm and the write bandwidth",
    .options = options,
    .config_size = sizeof(smallk_config),
    .describe = describe,
    .csv_header = "m,n,threads,rank,kernel,exact_seconds,multiply_seconds,nmse,create_seconds,smallk_seconds,"
                  "sgemm_seconds,smallk_gbytes_per_second,stream_gbytes_per_second,c_stores_only_seconds,"
                  "create_copy_seconds\n",
    .csv_rows = "rank",
    .check = check,
    .run = run_mode,
};
