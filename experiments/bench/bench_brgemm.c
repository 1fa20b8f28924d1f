/*
 * bench_brgemm.c - mode `brgemm`: GFLOPS of sketchmm's batch-reduce GEMM
 * (sketchmm/brgemm.h) against libxsmm 1.17 (peer_libxsmm.h, optional),
 * OpenBLAS (peer_blas.h, optional) and plain C loops, in the same run on the
 * same grid of small products
 *
 *     C := C + sum_{i < batch} A_i B_i      (alpha = beta = 1)
 *
 * column-major with minimal leading dimensions (lda = M, ldb = K, ldc = M)
 * and the A_i, B_i packed one after the other (stride_a = M K,
 * stride_b = K N), on the calling thread only.
 *
 * Contenders (each called through its own entry point in a tight loop):
 *   sketchmm   brgemm_execute_strided (a plan made with code generation on: generated kernels)
 *   precomp    brgemm_execute_strided on a plan made with code generation off (the precompiled tiles)
 *   smm_ptr    brgemm_execute_pointers            (--kind pointers)
 *   libxsmm    libxsmm_smmdispatch at batch 1, libxsmm_smmdispatch_reducebatch_strd
 *              at batch > 1 (the reference figures)
 *   xsmm_rb    libxsmm_smmdispatch_reducebatch_strd at batch 1 (at batch > 1 that is
 *              the libxsmm column already)
 *   xsmm_addr  libxsmm_smmdispatch_reducebatch_addr (--kind pointers), on fresh
 *              copies of the pointer arrays per call (peer_libxsmm.c says why)
 *   OpenBLAS   cblas_sgemm with beta = 1, once per product of the batch
 *   naive      plain C loops (column j, product i, term p, rows innermost), compiled here
 * Plans and generated kernels are made outside the timed loops.
 *
 * Per configuration: every contender's C, after one call from the same
 * starting C, is checked against a double-precision sum (|error| <= 1e-4 of
 * sum |a| |b| + |c|); a wrong one skips the configuration with a message
 * (exit status 1 at the end). Then per contender a call count is calibrated so
 * that one timed sample (that many calls on the same hot buffers) lasts at
 * least MIN_SAMPLE_SECONDS; one untimed round; then --reps rounds, each timing
 * every contender in turn (A B C, A B C, ...) so that machine noise hits them
 * alike. The figure is the median GFLOPS over the rounds, flops = 2 M N K batch
 * per call. The summary gives, per batch value, the arithmetic mean GFLOPS over
 * the grid and the ratio of the means, the same at K = 1, and 64x64x64.
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
#include "sketchmm/brgemm.h"

#define DEFAULT_REPS 5
#define MAX_DIMENSION 1024
#define MAX_BATCH 1024
#define MIN_SAMPLE_SECONDS 1e-3 /* one timed sample lasts at least this (see measure) */
#define TOLERANCE 1e-4          /* |C - reference| <= TOLERANCE * (sum |a| |b| + |c|) */
#define TARGET_MEAN_RATIO 1.10  /* the target: sketchmm's mean over libxsmm's, every batch */
#define TARGET_K1_RATIO 1.00    /* ... and at K = 1 */
#define ALPHA 1.0f
#define BETA 1.0f

#define DEFAULT_MN 1, 2, 4, 8, 13, 16, 24, 32, 48, 64 /* M and N */

static const char *const kind_choices[] = { "strided", "pointers", NULL };

/* The contenders, in the order of a round and of the columns. */
enum { SMM, SMM_PRE, SMM_PTR, XSMM, XSMM_RB, XSMM_ADDR, OPENBLAS, NAIVE, IMPLS };
static const char *const impl_names[IMPLS] = { "sketchmm", "precomp", "smm_ptr", "libxsmm", "xsmm_rb",
                                               "xsmm_addr", "OpenBLAS", "naive" };
/* Their CSV column names after prefix, in the same order. */
#define IMPL_CSV_COLUMNS(prefix)                                                                               \
    prefix "sketchmm," prefix "sketchmm_precompiled," prefix "sketchmm_pointers," prefix "libxsmm,"           \
    prefix "libxsmm_reducebatch_strd_b1," prefix "libxsmm_reducebatch_addr," prefix "openblas," prefix "naive"

typedef struct {
    bench_int_list m, n, k, batch;
    bench_choice_list kinds; /* indices into kind_choices */
    bench_choice_list isas;  /* indices into bench_isa_choices */
    int64_t reps;
    int strided, pointers;   /* from --kind */
} brgemm_config;

static void describe(FILE *out)
{
    fprintf(out,
        "  Batch-reduce GEMM C := C + sum_i A_i B_i (sketchmm/brgemm.h), column-major, lda = M,\n"
        "  ldb = K, ldc = M, stride_a = M K, stride_b = K N, one thread, against libxsmm %s\n"
        "  (libxsmm_smmdispatch at batch 1, libxsmm_smmdispatch_reducebatch_strd at batch > 1;\n"
        "  'xsmm_rb': reducebatch_strd at batch 1), OpenBLAS cblas_sgemm (beta = 1, one call per\n"
        "  product) and plain C loops ('naive'), all in the same run on the same grid.\n"
        "  Each contender's C is first checked against a double-precision sum (|error| <= %g of\n"
        "  sum |a||b| + |c|; a wrong one skips the configuration, exit status 1). A timed sample is\n"
        "  a loop of calls on the same hot buffers lasting >= %.1f ms (count calibrated once per\n"
        "  configuration and contender); --reps rounds time the contenders in turn, each round\n"
        "  starting with the next contender (none always follows the same one); the figure is\n"
        "  the median GFLOPS (2 M N K batch flops per call). Plans and libxsmm kernels are made\n"
        "  outside the timed loops. The summary: per batch value, the arithmetic mean GFLOPS over\n"
        "  the grid and the ratio of the means (target: sketchmm >= %.2f x libxsmm), the same\n"
        "  at K = 1 (target >= %.2f x) and the 64x64x64 figures; then the code generator: the\n"
        "  median time of brgemm_plan_create on a new description (it generates a kernel) and on\n"
        "  the same description again (served from the cache), and the call overhead: every\n"
        "  contender at 4x4x4, batch 1, in ns per call. 'precomp': sketchmm's precompiled\n"
        "  kernels (a plan made with code generation off).\n",
#ifdef SKETCHMM_HAVE_LIBXSMM
        "1.17",
#else
        "1.17 (not built in here)",
#endif
        TOLERANCE, MIN_SAMPLE_SECONDS * 1e3, TARGET_MEAN_RATIO, TARGET_K1_RATIO);
}

static int check_options(void *config)
{
    brgemm_config *cfg = config;
    cfg->strided = cfg->pointers = 0;
    for (int c = 0; c < cfg->kinds.count; c++) {
        if (cfg->kinds.v[c] == 0)
            cfg->strided = 1;
        else
            cfg->pointers = 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* One configuration                                                        */
/* ------------------------------------------------------------------------ */

typedef struct {
    int64_t m, n, k, batch;
    int64_t lda, ldb, ldc, stride_a, stride_b;
    const float *A, *B;         /* batch matrices each, stride_a (stride_b) apart */
    const float **Ap, **Bp;     /* A_i and B_i, for the pointer kinds */
    float *C0;                  /* the starting C of the checks */
    float *C[IMPLS];            /* one output per contender */
    brgemm_plan *plan;
    brgemm_plan *plan_pre;        /* the same description with code generation off: the precompiled kernels */
    double create_new, create_hit; /* seconds of brgemm_plan_create: a new description, then the same again */
    int generated, hit;           /* the two made a new kernel / found it in the cache (sketchmm/jit.h counts) */
    peer_xsmm_kernel xsmm[IMPLS]; /* XSMM, XSMM_RB, XSMM_ADDR */
    peer_sgemm_fn openblas;
    int active[IMPLS];
    int64_t calls[IMPLS];       /* per timed sample */
} problem;

/*
 * C := BETA * C + ALPHA * sum_i A_i B_i, plain column-major loops (the naive
 * contender): per column j, per product i and term p, a row loop over i
 * (contiguous in A_i and C), which the compiler vectorises at the baseline ISA.
 */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void naive_brgemm(const problem *p, float *C)
{
    for (int64_t j = 0; j < p->n; j++) {
        float *restrict c = C + j * p->ldc;
        for (int64_t i = 0; i < p->m; i++)
            c[i] *= BETA;
        for (int64_t b = 0; b < p->batch; b++) {
            const float *restrict a = p->A + b * p->stride_a;
            const float *restrict bj = p->B + b * p->stride_b + j * p->ldb;
            for (int64_t q = 0; q < p->k; q++) {
                const float s = ALPHA * bj[q];
                for (int64_t i = 0; i < p->m; i++)
                    c[i] += a[i + q * p->lda] * s;
            }
        }
    }
}

static void fail_call(const char *what, smm_status s)
{
    bench_error("%s failed: %s", what, smm_status_str(s));
    exit(BENCH_EXIT_FAILED);
}

/* calls calls of contender who on its C. */
static void run_calls(const void *context, int who, int64_t calls)
{
    const problem *p = context;
    float *C = p->C[who];
    switch (who) {
    case SMM:
        for (int64_t c = 0; c < calls; c++) {
            const smm_status s = brgemm_execute_strided(p->plan, p->A, p->B, C, p->batch);
            if (s != SMM_OK)
                fail_call("brgemm_execute_strided", s);
        }
        break;
    case SMM_PRE:
        for (int64_t c = 0; c < calls; c++) {
            const smm_status s = brgemm_execute_strided(p->plan_pre, p->A, p->B, C, p->batch);
            if (s != SMM_OK)
                fail_call("brgemm_execute_strided", s);
        }
        break;
    case SMM_PTR:
        for (int64_t c = 0; c < calls; c++) {
            const smm_status s = brgemm_execute_pointers(p->plan, p->Ap, p->Bp, C, p->batch);
            if (s != SMM_OK)
                fail_call("brgemm_execute_pointers", s);
        }
        break;
    case XSMM:
    case XSMM_RB:
        peer_libxsmm_repeat_strided(&p->xsmm[who], p->A, p->B, C, p->batch, calls);
        break;
    case XSMM_ADDR:
        peer_libxsmm_repeat_pointers(&p->xsmm[who], p->Ap, p->Bp, C, p->batch, calls);
        break;
    case OPENBLAS:
        for (int64_t c = 0; c < calls; c++)
            for (int64_t b = 0; b < p->batch; b++)
                p->openblas((int)SMM_COL_MAJOR, (int)SMM_NO_TRANS, (int)SMM_NO_TRANS, (int)p->m, (int)p->n, (int)p->k,
                            ALPHA, p->A + b * p->stride_a, (int)p->lda, p->B + b * p->stride_b, (int)p->ldb, BETA, C,
                            (int)p->ldc);
        break;
    default:
        for (int64_t c = 0; c < calls; c++)
            naive_brgemm(p, C);
        break;
    }
}

/* Reference C0 + sum_i A_i B_i in double and its magnitude sum |a||b| + |c0|, per element. */
static void reference(const problem *p, double *ref, double *magnitude)
{
    for (int64_t j = 0; j < p->n; j++)
        for (int64_t i = 0; i < p->m; i++) {
            const double c0 = (double)p->C0[i + j * p->ldc];
            double sum = 0.0, size = 0.0;
            for (int64_t b = 0; b < p->batch; b++) {
                const float *a = p->A + b * p->stride_a, *bb = p->B + b * p->stride_b;
                for (int64_t q = 0; q < p->k; q++) {
                    const double product = (double)a[i + q * p->lda] * (double)bb[q + j * p->ldb];
                    sum += product;
                    size += fabs(product);
                }
            }
            ref[i + j * p->m] = (double)BETA * c0 + (double)ALPHA * sum;
            magnitude[i + j * p->m] = fabs((double)BETA * c0) + fabs((double)ALPHA) * size;
        }
}

/* One call of who from C0, checked against the reference; 1 when right, else prints why. */
static int check(const problem *p, int who, const double *ref, const double *magnitude)
{
    float *C = p->C[who];
    memcpy(C, p->C0, (size_t)(p->ldc * p->n) * sizeof *C);
    run_calls(p, who, 1);
    for (int64_t j = 0; j < p->n; j++)
        for (int64_t i = 0; i < p->m; i++) {
            const double got = (double)C[i + j * p->ldc], want = ref[i + j * p->m];
            const double bound = TOLERANCE * magnitude[i + j * p->m];
            if (!(fabs(got - want) <= bound)) {
                bench_error("%s is WRONG on M=%lld N=%lld K=%lld batch=%lld: C(%lld, %lld) = %.9g, "
                            "expected %.9g (|error| %.3g > %g of sum |a||b| + |c| = %.3g); configuration skipped",
                            impl_names[who], (long long)p->m, (long long)p->n, (long long)p->k, (long long)p->batch,
                            (long long)i, (long long)j, got, want, fabs(got - want), TOLERANCE, bound);
                return 0;
            }
        }
    return 1;
}

/* Operands of one configuration (see the top of this file); C's entries and C0 in [-1, 1]. */
static void allocate(problem *p, int64_t m, int64_t n, int64_t k, int64_t batch)
{
    p->m = m, p->n = n, p->k = k, p->batch = batch;
    p->lda = m, p->ldb = k, p->ldc = m;
    p->stride_a = m * k, p->stride_b = k * n;
    float *A = bench_alloc_floats(batch * p->stride_a), *B = bench_alloc_floats(batch * p->stride_b);
    for (int64_t b = 0; b < batch; b++) {
        bench_fill(A + b * p->stride_a, k, m, p->lda, 1 + 2 * (uint64_t)b);
        bench_fill(B + b * p->stride_b, n, k, p->ldb, 2 + 2 * (uint64_t)b);
    }
    p->A = A, p->B = B;
    p->Ap = malloc((size_t)batch * sizeof *p->Ap);
    p->Bp = malloc((size_t)batch * sizeof *p->Bp);
    if (p->Ap == NULL || p->Bp == NULL) {
        bench_error("out of memory");
        exit(BENCH_EXIT_FAILED);
    }
    for (int64_t b = 0; b < batch; b++) {
        p->Ap[b] = A + b * p->stride_a;
        p->Bp[b] = B + b * p->stride_b;
    }
    p->C0 = bench_alloc_floats(p->ldc * n);
    bench_fill(p->C0, n, m, p->ldc, 99);
    for (int who = 0; who < IMPLS; who++) {
        p->C[who] = bench_alloc_floats(p->ldc * n);
        memcpy(p->C[who], p->C0, (size_t)(p->ldc * n) * sizeof(float)); /* first touch before timing */
    }
}

static void release(problem *p)
{
    brgemm_plan_free(p->plan);
    brgemm_plan_free(p->plan_pre);
    bench_free_floats((float *)p->A);
    bench_free_floats((float *)p->B);
    free(p->Ap);
    free(p->Bp);
    bench_free_floats(p->C0);
    for (int who = 0; who < IMPLS; who++)
        bench_free_floats(p->C[who]);
}

/* ------------------------------------------------------------------------ */
/* Results and report                                                       */
/* ------------------------------------------------------------------------ */

typedef struct {
    int isa_index;
    int64_t m, n, k, batch;
    double gflops[IMPLS]; /* NaN: not measured */
} result_row;

typedef struct {
    result_row *rows;
    size_t count, capacity;
} result_list;

static void add_row(result_list *list, const result_row *row)
{
    if (list->count == list->capacity) {
        const size_t capacity = list->capacity == 0 ? 256 : 2 * list->capacity;
        result_row *rows = realloc(list->rows, capacity * sizeof *rows);
        if (rows == NULL) {
            bench_error("out of memory");
            exit(BENCH_EXIT_FAILED);
        }
        list->rows = rows;
        list->capacity = capacity;
    }
    list->rows[list->count++] = *row;
}

/* Which columns the run shows (by --kind; a contender that is not available shows '-'). */
static void shown_columns(const brgemm_config *cfg, int *shown)
{
    shown[SMM] = cfg->strided;
    shown[SMM_PRE] = cfg->strided;
    shown[SMM_PTR] = cfg->pointers;
    shown[XSMM] = cfg->strided;
    shown[XSMM_RB] = cfg->strided;
    shown[XSMM_ADDR] = cfg->pointers;
    shown[OPENBLAS] = 1;
    shown[NAIVE] = 1;
}

static double ratio_of(double num, double den)
{
    return isnan(num) || isnan(den) || den <= 0.0 ? NAN : num / den;
}


/* value with CSV quoting (plan names contain spaces, maybe commas) */
static void csv_text(FILE *csv, const char *text)
{
    fputc(',', csv);
    fputc('"', csv);
    for (const char *c = text; *c != '\0'; c++) {
        if (*c == '"')
            fputc('"', csv);
        fputc(*c, csv);
    }
    fputc('"', csv);
}

static void print_header(const int *shown)
{
    printf("\nGFLOPS (median of the rounds); 'sk/xsmm' = sketchmm / libxsmm, 'ptr/addr' = smm_ptr / xsmm_addr;\n"
           "'other%%': share of the machine's CPU time other processes used during the row.\n\n");
    printf("%4s %4s %4s %5s", "M", "N", "K", "batch");
    for (int who = 0; who < IMPLS; who++)
        if (shown[who])
            printf(" %9s", impl_names[who]);
    if (shown[SMM])
        printf(" %7s", "sk/xsmm");
    if (shown[SMM_PTR])
        printf(" %8s", "ptr/addr");
    printf(" %6s\n", "other%");
}

static void report(const problem *p, const result_row *row, const int *shown, int reps, double others, FILE *csv,
                   const char *openblas_core)
{
    const double *g = row->gflops;
    printf("%4lld %4lld %4lld %5lld", (long long)p->m, (long long)p->n, (long long)p->k, (long long)p->batch);
    for (int who = 0; who < IMPLS; who++)
        if (shown[who])
            bench_print_number(g[who], 9, 2);
    if (shown[SMM])
        bench_print_number(ratio_of(g[SMM], g[XSMM]), 7, 2);
    if (shown[SMM_PTR])
        bench_print_number(ratio_of(g[SMM_PTR], g[XSMM_ADDR]), 8, 2);
    bench_print_share(stdout, others, 6);
    printf("\n");
    fflush(stdout);
    if (csv == NULL)
        return;
    fprintf(csv, "%s,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%d", bench_isa_name(), (long long)p->m,
            (long long)p->n, (long long)p->k, (long long)p->batch, (long long)p->lda, (long long)p->ldb,
            (long long)p->ldc, (long long)p->stride_a, (long long)p->stride_b, reps);
    for (int who = 0; who < IMPLS; who++)
        bench_csv_number(csv, g[who]);
    const double main_sk = !isnan(g[SMM]) ? g[SMM] : g[SMM_PTR];
    bench_csv_number(csv, ratio_of(g[SMM], g[XSMM]));
    bench_csv_number(csv, ratio_of(g[SMM_PTR], g[XSMM_ADDR]));
    bench_csv_number(csv, ratio_of(main_sk, g[OPENBLAS]));
    bench_csv_number(csv, ratio_of(main_sk, g[NAIVE]));
    for (int who = 0; who < IMPLS; who++)
        bench_csv_number(csv, p->active[who] ? (double)p->calls[who] : NAN);
    bench_csv_number(csv, others);
    fprintf(csv, ",%s,%s,%s", !p->active[XSMM] ? "" : p->batch == 1 ? "smmdispatch" : "reducebatch_strd",
            peer_libxsmm_arch(), openblas_core);
    csv_text(csv, brgemm_plan_name(p->plan));
    fputc('\n', csv);
    fflush(csv);
}

/* Mean GFLOPS of every contender over rows matching (isa, batch, k1 / m n k = 64 when asked). */
typedef struct {
    double sum[IMPLS];
    int count[IMPLS];
    int configs;
    /* ratio of means over the configurations where both were measured */
    double pair_num[2], pair_den[2];
} mean_set;

enum { PAIR_STRIDED, PAIR_POINTERS };

static mean_set means_of(const result_list *list, int isa_index, int64_t batch, int only_k1, int only_64)
{
    mean_set s;
    memset(&s, 0, sizeof s);
    for (size_t r = 0; r < list->count; r++) {
        const result_row *row = &list->rows[r];
        if (row->isa_index != isa_index || row->batch != batch)
            continue;
        if (only_k1 && row->k != 1)
            continue;
        if (only_64 && !(row->m == 64 && row->n == 64 && row->k == 64))
            continue;
        s.configs++;
        for (int who = 0; who < IMPLS; who++)
            if (!isnan(row->gflops[who])) {
                s.sum[who] += row->gflops[who];
                s.count[who]++;
            }
        if (!isnan(row->gflops[SMM]) && !isnan(row->gflops[XSMM])) {
            s.pair_num[PAIR_STRIDED] += row->gflops[SMM];
            s.pair_den[PAIR_STRIDED] += row->gflops[XSMM];
        }
        if (!isnan(row->gflops[SMM_PTR]) && !isnan(row->gflops[XSMM_ADDR])) {
            s.pair_num[PAIR_POINTERS] += row->gflops[SMM_PTR];
            s.pair_den[PAIR_POINTERS] += row->gflops[XSMM_ADDR];
        }
    }
    return s;
}

/* One summary line; returns the strided ratio of means (NaN when there is none). */
static double print_mean_line(const mean_set *s, int64_t batch, const int *shown, double target, int *incomplete)
{
    printf("%5lld %7d", (long long)batch, s->configs);
    for (int who = 0; who < IMPLS; who++) {
        if (!shown[who])
            continue;
        bench_print_number(s->count[who] > 0 ? s->sum[who] / s->count[who] : NAN, 9, 2);
        if (s->count[who] > 0 && s->count[who] < s->configs)
            *incomplete = 1;
    }
    const double strided = ratio_of(s->pair_num[PAIR_STRIDED], s->pair_den[PAIR_STRIDED]);
    if (shown[SMM])
        bench_print_number(strided, 7, 2);
    if (shown[SMM_PTR])
        bench_print_number(ratio_of(s->pair_num[PAIR_POINTERS], s->pair_den[PAIR_POINTERS]), 8, 2);
    if (target > 0.0 && shown[SMM])
        printf("  %s", isnan(strided) ? "-" : strided >= target ? "met" : "NOT met");
    printf("\n");
    return strided;
}

static void print_summary_block(const result_list *list, const brgemm_config *cfg, int isa_index, const int *shown,
                                const char *title, int only_k1, int only_64, double target)
{
    printf("\n%s\n%5s %7s", title, "batch", "configs");
    for (int who = 0; who < IMPLS; who++)
        if (shown[who])
            printf(" %9s", impl_names[who]);
    if (shown[SMM])
        printf(" %7s", "sk/xsmm");
    if (shown[SMM_PTR])
        printf(" %8s", "ptr/addr");
    if (target > 0.0 && shown[SMM])
        printf("  target >= %.2f", target);
    printf("\n");
    int incomplete = 0, any = 0;
    for (int b = 0; b < cfg->batch.count; b++) {
        /* a batch value listed twice is summarised once */
        int seen = 0;
        for (int e = 0; e < b; e++)
            seen |= cfg->batch.v[e] == cfg->batch.v[b];
        if (seen)
            continue;
        const mean_set s = means_of(list, isa_index, cfg->batch.v[b], only_k1, only_64);
        if (s.configs == 0)
            continue;
        any = 1;
        print_mean_line(&s, cfg->batch.v[b], shown, target, &incomplete);
    }
    if (!any)
        printf("  (no configuration)\n");
    if (incomplete)
        printf("  (a mean over fewer configurations than listed: that contender was not measured everywhere;\n"
               "   the ratios use only the configurations where both were)\n");
}

/* ------------------------------------------------------------------------ */
/* Mode                                                                     */
/* ------------------------------------------------------------------------ */

/*
 * Median GFLOPS of each active contender over reps rounds. The contenders
 * take turns within a round, and round r starts with contender r (mod their
 * count), so none is always timed right after the same other one. Each timed
 * sample follows one untimed call of the same contender and lasts at least
 * MIN_SAMPLE_SECONDS.
 * Why: with a fixed order (sketchmm first, right after the plain C loops) and
 * 0.2 ms samples, sketchmm measured 45-120 GFLOPS on one configuration
 * (32x48x64, batch 16) from run to run while libxsmm, timed right after it,
 * held steady; 1 ms samples steadied both. The order itself still moved the
 * batch-1 ratios of 8 configurations (M 32, 64; N 32, 48; K 16, 32) from
 * 0.59-0.93 (sketchmm first) to 0.83-1.01 (sketchmm last, after libxsmm).
 */
static void measure(problem *p, int reps, double *gflops)
{
    double *samples = malloc((size_t)IMPLS * (size_t)reps * sizeof *samples);
    if (samples == NULL) {
        bench_error("out of memory");
        exit(BENCH_EXIT_FAILED);
    }
    for (int who = 0; who < IMPLS; who++)
        if (p->active[who])
            p->calls[who] = bench_calibrate_loop(run_calls, p, who, MIN_SAMPLE_SECONDS);
    for (int who = 0; who < IMPLS; who++) /* one untimed round */
        if (p->active[who])
            run_calls(p, who, p->calls[who]);
    const double flops = 2.0 * (double)p->m * (double)p->n * (double)p->k * (double)p->batch;
    for (int rep = 0; rep < reps; rep++)
        for (int turn = 0; turn < IMPLS; turn++) {
            const int who = (rep + turn) % IMPLS; /* round rep starts with contender rep */
            if (p->active[who]) {
                run_calls(p, who, 1); /* untimed: see measure's comment */
                const double seconds = bench_time_loop(run_calls, p, who, p->calls[who]);
                samples[who * reps + rep] = flops * (double)p->calls[who] / seconds * 1e-9;
            }
        }
    for (int who = 0; who < IMPLS; who++)
        gflops[who] = p->active[who] ? bench_median(samples + who * reps, reps) : NAN;
    free(samples);
}

/*
 * The plans of a configuration: one made with code generation on (timed, and
 * made a second time to time the cache: sketchmm/jit.h counts say whether a
 * kernel was generated and then found), and one with it off.
 */
static void create_plans(const brgemm_desc *desc, problem *p)
{
    smm_jit_stats s0, s1, s2;
    smm_jit_get_stats(&s0);
    double t0 = bench_now_seconds();
    smm_status s = brgemm_plan_create(desc, &p->plan);
    p->create_new = bench_now_seconds() - t0;
    if (s != SMM_OK)
        fail_call("brgemm_plan_create", s);
    smm_jit_get_stats(&s1);
    brgemm_plan *again = NULL;
    t0 = bench_now_seconds();
    s = brgemm_plan_create(desc, &again);
    p->create_hit = bench_now_seconds() - t0;
    if (s != SMM_OK)
        fail_call("brgemm_plan_create", s);
    smm_jit_get_stats(&s2);
    brgemm_plan_free(again);
    p->generated = s1.generated == s0.generated + 1;
    p->hit = s2.hits == s1.hits + 1 && s2.generated == s1.generated;
    const int jit = smm_get_jit();
    smm_set_jit(0);
    s = brgemm_plan_create(desc, &p->plan_pre);
    smm_set_jit(jit);
    if (s != SMM_OK)
        fail_call("brgemm_plan_create", s);
}

/*
 * Set up, check and measure one configuration. Returns 1 when measured, 0 when
 * a contender was wrong (the configuration is skipped), and exits on setup
 * errors that would hit every configuration.
 */
static int run_configuration(const brgemm_config *cfg, problem *p, peer_blas *openblas, double *gflops)
{
    const brgemm_desc desc = { SMM_COL_MAJOR, p->m, p->n, p->k, p->lda, p->ldb, p->ldc, p->stride_a, p->stride_b,
                               ALPHA, BETA };
    create_plans(&desc, p);
    for (int who = 0; who < IMPLS; who++)
        p->active[who] = 0;
    p->active[SMM] = cfg->strided;
    p->active[SMM_PRE] = cfg->strided;
    p->active[SMM_PTR] = cfg->pointers;
    p->active[NAIVE] = 1;
    if (peer_blas_ready(openblas)) {
        p->openblas = peer_blas_sgemm(openblas);
        p->active[OPENBLAS] = 1;
    }
    if (peer_libxsmm_ready()) {
        const char *why = NULL;
        if (cfg->strided) {
            const peer_xsmm_form form = p->batch == 1 ? PEER_XSMM_GEMM : PEER_XSMM_STRIDED;
            p->active[XSMM] = peer_libxsmm_dispatch(&p->xsmm[XSMM], form, p->m, p->n, p->k, p->lda, p->ldb, p->ldc,
                                                    p->stride_a, p->stride_b, ALPHA, BETA, &why);
            if (!p->active[XSMM])
                printf("(libxsmm: %s)\n", why);
            if (p->batch == 1) {
                p->active[XSMM_RB] = peer_libxsmm_dispatch(&p->xsmm[XSMM_RB], PEER_XSMM_STRIDED, p->m, p->n, p->k,
                                                           p->lda, p->ldb, p->ldc, p->stride_a, p->stride_b, ALPHA,
                                                           BETA, &why);
                if (!p->active[XSMM_RB])
                    printf("(libxsmm reducebatch_strd: %s)\n", why);
            }
        }
        if (cfg->pointers) {
            p->active[XSMM_ADDR] = peer_libxsmm_dispatch(&p->xsmm[XSMM_ADDR], PEER_XSMM_ADDRESS, p->m, p->n, p->k,
                                                         p->lda, p->ldb, p->ldc, 0, 0, ALPHA, BETA, &why);
            if (!p->active[XSMM_ADDR])
                printf("(libxsmm reducebatch_addr: %s)\n", why);
        }
    }

    double *ref = malloc((size_t)(p->m * p->n) * sizeof *ref), *magnitude = malloc((size_t)(p->m * p->n) * sizeof *ref);
    if (ref == NULL || magnitude == NULL) {
        bench_error("out of memory");
        exit(BENCH_EXIT_FAILED);
    }
    reference(p, ref, magnitude);
    int ok = 1;
    for (int who = 0; who < IMPLS && ok; who++)
        if (p->active[who])
            ok = check(p, who, ref, magnitude);
    free(ref);
    free(magnitude);
    /* brgemm.h: the two batch kinds give the same bits */
    if (ok && p->active[SMM] && p->active[SMM_PTR] &&
        memcmp(p->C[SMM], p->C[SMM_PTR], (size_t)(p->ldc * p->n) * sizeof(float)) != 0) {
        bench_error("brgemm_execute_strided and brgemm_execute_pointers give different bits on "
                    "M=%lld N=%lld K=%lld batch=%lld (brgemm.h promises the same); configuration skipped",
                    (long long)p->m, (long long)p->n, (long long)p->k, (long long)p->batch);
        ok = 0;
    }
    if (!ok)
        return 0;
    measure(p, (int)cfg->reps, gflops);
    return 1;
}

/* What one ISA path's run learns besides the grid: plan creation times, and the cost of a call at 4x4x4. */
typedef struct {
    double *create_new, *create_hit; /* seconds, one per configuration that generated (found) its kernel */
    int new_count, hit_count;
    smm_jit_stats begin, end;        /* the library's counts around the run */
    double call_ns[IMPLS];           /* 4x4x4, batch 1: ns per call (NaN: not measured) */
} path_extras;

#define OVERHEAD_MNK 4 /* the call-overhead target's product: 4x4x4, batch 1 */

/* Record a configuration's plan creations. */
static void note_creation(path_extras *x, const problem *p)
{
    if (p->generated)
        x->create_new[x->new_count++] = p->create_new;
    if (p->hit)
        x->create_hit[x->hit_count++] = p->create_hit;
}

/* The call overhead: 4x4x4 at batch 1, every contender, ns per call from the median GFLOPS. */
static int measure_call_overhead(const brgemm_config *cfg, peer_blas *openblas, path_extras *x)
{
    problem p;
    memset(&p, 0, sizeof p);
    allocate(&p, OVERHEAD_MNK, OVERHEAD_MNK, OVERHEAD_MNK, 1);
    double gflops[IMPLS];
    const int ok = run_configuration(cfg, &p, openblas, gflops);
    const double flops = 2.0 * OVERHEAD_MNK * OVERHEAD_MNK * OVERHEAD_MNK;
    for (int who = 0; who < IMPLS; who++)
        x->call_ns[who] = ok && !isnan(gflops[who]) ? flops / gflops[who] : NAN;
    release(&p);
    return ok;
}

static void print_extras(path_extras *x, const int *shown)
{
    const double us_new = x->new_count > 0 ? 1e6 * bench_median(x->create_new, x->new_count) : NAN;
    const double us_hit = x->hit_count > 0 ? 1e6 * bench_median(x->create_hit, x->hit_count) : NAN;
    const int64_t generated = x->end.generated - x->begin.generated, hits = x->end.hits - x->begin.hits;
    printf("\nCode generation: brgemm_plan_create of a new description %.1f us (median of %d, each writing a\n"
           "kernel with both entry points and making it executable), of the same description again %.2f us\n"
           "(median of %d, served from the cache); the library counted %lld kernels generated in %.1f us each\n"
           "on average, %lld cache hits, %lld failures (target: <= 50 us per kernel).\n",
           us_new, x->new_count, us_hit, x->hit_count, (long long)generated,
           generated > 0 ? 1e6 * (x->end.generate_seconds - x->begin.generate_seconds) / (double)generated : NAN,
           (long long)hits, (long long)(x->end.failed - x->begin.failed));
    printf("Call overhead, %dx%dx%d batch 1 (ns per call):", OVERHEAD_MNK, OVERHEAD_MNK, OVERHEAD_MNK);
    for (int who = 0; who < IMPLS; who++)
        if (shown[who] && !isnan(x->call_ns[who]))
            printf(" %s %.2f", impl_names[who], x->call_ns[who]);
    const double ratio = x->call_ns[SMM] / x->call_ns[XSMM];
    printf("; sketchmm / libxsmm %.2f", ratio);
    if (!isnan(ratio))
        printf(" (target <= 1.20: %s)", ratio <= 1.20 ? "met" : "NOT met");
    printf("\n");
}

static int run_mode(void *config, FILE *csv)
{
    const brgemm_config *cfg = config;
    const int reps = (int)cfg->reps;
    peer_libxsmm_open();
    printf("%s\n", peer_libxsmm_status());
    peer_blas *openblas = peer_blas_open(PEER_OPENBLAS);
    printf("%s\n", peer_blas_status(openblas));
    peer_blas_set_threads(openblas, 1);

    int shown[IMPLS];
    shown_columns(cfg, shown);
    smm_isa initial_isa = SMM_ISA_AUTO;
    smm_get_isa(&initial_isa);
    printf("C := C + sum_i A_i B_i, column-major, lda = M, ldb = K, ldc = M, stride_a = M K, stride_b = K N,\n"
           "1 thread; %d rounds, samples of >= %.1f ms, medians.\n",
           reps, MIN_SAMPLE_SECONDS * 1e3);

    result_list results = { NULL, 0, 0 };
    int status = 0, ran_isa[BENCH_MAX_LIST] = { 0 };
    static path_extras extras[BENCH_MAX_LIST];
    const int grid = cfg->batch.count * cfg->m.count * cfg->n.count * cfg->k.count;
    static char plan_name[BENCH_MAX_LIST][512], isa_label[BENCH_MAX_LIST][32];
    for (int ii = 0; ii < cfg->isas.count; ii++) {
        plan_name[ii][0] = '\0';
        const int selected = bench_select_isa(cfg->isas.v[ii], "\n");
        if (selected == 0)
            continue;
        if (selected < 0) {
            status = BENCH_EXIT_FAILED;
            break;
        }
        ran_isa[ii] = 1;
        path_extras *x = &extras[ii];
        x->create_new = malloc((size_t)grid * sizeof(double));
        x->create_hit = malloc((size_t)grid * sizeof(double));
        if (x->create_new == NULL || x->create_hit == NULL) {
            bench_error("out of memory");
            exit(BENCH_EXIT_FAILED);
        }
        smm_jit_get_stats(&x->begin);
        snprintf(isa_label[ii], sizeof isa_label[ii], "%s", bench_isa_name());
        printf("\nsketchmm ISA path: %s\n", isa_label[ii]);
        print_header(shown);
        /* warm the vector units and clocks up once before the first timing */
        const double warm_start = bench_now_seconds();
        while (bench_now_seconds() - warm_start < BENCH_WARMUP_SECONDS) {
        }
        for (int bi = 0; bi < cfg->batch.count; bi++)
            for (int mi = 0; mi < cfg->m.count; mi++)
                for (int ni = 0; ni < cfg->n.count; ni++)
                    for (int ki = 0; ki < cfg->k.count; ki++) {
                        problem p;
                        memset(&p, 0, sizeof p);
                        allocate(&p, cfg->m.v[mi], cfg->n.v[ni], cfg->k.v[ki], cfg->batch.v[bi]);
                        result_row row = { ii, p.m, p.n, p.k, p.batch, { 0 } };
                        const bench_contention_mark before = bench_contention_now();
                        const int ok = run_configuration(cfg, &p, openblas, row.gflops);
                        note_creation(x, &p);
                        if (!ok) {
                            status = BENCH_EXIT_FAILED;
                            release(&p);
                            continue;
                        }
                        const double others = bench_contention_others(before, bench_contention_now());
                        report(&p, &row, shown, reps, others, csv, peer_blas_kernel(openblas));
                        add_row(&results, &row);
                        /* the plan of 64x64x64 at the largest batch, else of the first configuration */
                        if (plan_name[ii][0] == '\0' || (p.m == 64 && p.n == 64 && p.k == 64))
                            snprintf(plan_name[ii], sizeof plan_name[ii], "M=%lld N=%lld K=%lld batch=%lld: %s",
                                     (long long)p.m, (long long)p.n, (long long)p.k, (long long)p.batch,
                                     brgemm_plan_name(p.plan));
                        release(&p);
                    }
        smm_jit_get_stats(&x->end);
        if (!measure_call_overhead(cfg, openblas, x))
            status = BENCH_EXIT_FAILED;
    }

    for (int ii = 0; ii < cfg->isas.count; ii++) {
        if (!ran_isa[ii])
            continue;
        printf("\n==== Summary, sketchmm ISA path %s ====\n", isa_label[ii]);
        printf("sketchmm plan (%s)\n", plan_name[ii][0] != '\0' ? plan_name[ii] : "none");
        printf("libxsmm target arch: %s; OpenBLAS core: %s\n", peer_libxsmm_arch(), peer_blas_kernel(openblas));
        printf("GFLOPS: arithmetic means over the grid; 'sk/xsmm' = mean(sketchmm) / mean(libxsmm)\n");
        print_summary_block(&results, cfg, ii, shown, "Whole grid:", 0, 0, TARGET_MEAN_RATIO);
        print_summary_block(&results, cfg, ii, shown, "K = 1 only:", 1, 0, TARGET_K1_RATIO);
        print_summary_block(&results, cfg, ii, shown, "64x64x64:", 0, 1, 0.0);
        print_extras(&extras[ii], shown);
        free(extras[ii].create_new);
        free(extras[ii].create_hit);
    }
    if (status != 0)
        printf("\nSome configurations were skipped: a contender gave a wrong result (see stderr).\n");

    smm_set_isa(initial_isa);
    free(results.rows);
    peer_blas_free(openblas);
    peer_libxsmm_close();
    return status;
}

/* --m, --n, --k: the sizes of the grid. */
#define SIZE_OPTION(field, text, ...)                                                                            \
    {                                                                                                            \
        .name = #field, .arg = "LIST", .kind = BENCH_INT_LIST, .offset = offsetof(brgemm_config, field), .lo = 1, \
        .hi = MAX_DIMENSION, BENCH_DEFAULTS(__VA_ARGS__), .wants = "sizes", .help = text                         \
    }

static const bench_option options[] = {
    SIZE_OPTION(m, "M values (default {default})", DEFAULT_MN),
    SIZE_OPTION(n, "N values (default the same)", DEFAULT_MN),
    SIZE_OPTION(k, "K values (default {default})", 1, 16, 32, 64, 128),
    { .name = "batch", .arg = "LIST", .kind = BENCH_INT_LIST, .offset = offsetof(brgemm_config, batch), .lo = 1,
      .hi = MAX_BATCH, BENCH_DEFAULTS(1, 16), .wants = "counts", .help = "batch counts (default {default})" },
    BENCH_OPTION_REPS(brgemm_config, reps, 100000, DEFAULT_REPS, "timed rounds per configuration (default {default})"),
    { .name = "kind", .arg = "LIST", .kind = BENCH_CHOICE_LIST, .offset = offsetof(brgemm_config, kinds),
      .choices = kind_choices, BENCH_DEFAULTS(0),
      .help = "strided,pointers (default {default}): brgemm_execute_strided against\n"
              "reducebatch_strd, and/or brgemm_execute_pointers ('smm_ptr') against\n"
              "reducebatch_addr ('xsmm_addr'; each of its calls copies the two pointer arrays\n"
              "first: libxsmm 1.17's kernels move the pointers in them and leave them moved)" },
    BENCH_OPTION_ISAS(brgemm_config, isas,
                      "sketchmm's ISA paths: auto,scalar,avx2,avx512,neon (default {default}; missing ones\n"
                      "are skipped); the whole grid runs on each"),
    { .name = NULL },
};

const bench_mode bench_mode_brgemm = {
    .name = "brgemm",
    .summary = "batch-reduce GEMM C += sum A_i B_i on small sizes: GFLOPS vs libxsmm, OpenBLAS, plain loops",
    .options = options,
    .config_size = sizeof(brgemm_config),
    .describe = describe,
    .notes = "libxsmm is linked in when libxsmm-dev was found at configure time (else reported as not\n"
             "built in); SKETCHMM_BENCH_NO_PEERS=1 leaves OpenBLAS out (libxsmm stays).",
    .csv_header = "isa,m,n,k,batch,lda,ldb,ldc,stride_a,stride_b,reps," IMPL_CSV_COLUMNS("gflops_")
                  ",ratio_sketchmm_libxsmm,ratio_pointers_addr,ratio_sketchmm_openblas,ratio_sketchmm_naive,"
                  IMPL_CSV_COLUMNS("calls_") ",other_cpu_share,libxsmm_form,libxsmm_arch,openblas_core,sketchmm_plan\n",
    .csv_rows = "configuration",
    .check = check_options,
    .run = run_mode,
};
