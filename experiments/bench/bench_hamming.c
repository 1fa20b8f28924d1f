/*
 * bench_hamming.c - mode `hamming`: pairs per second of the library's
 * Hamming entry points (sketch_hamming_u16, sketch_hamming_u32,
 * sketch_hamming_topk) on every ISA path this CPU runs (chosen with
 * smm_set_isa), per code length and thread count, beside a plain C loop
 * (__builtin_popcountll, uint32 output, OpenMP rows) measured in the same
 * run: built for the baseline CPU and, on x86_64, with -mpopcnt.
 *
 * The ceiling: the popcount probe (popcount_probe.h) measured first on each
 * thread count; '%ceil' is a row's pairs/s over words/s * 64 / bits.
 *
 * Per (bits, threads): random codes, na = nb = --codes (top-k: --topk-codes
 * codes of b), one untimed call of each contender, whose results are checked
 * (u32 and u16 against the plain loop, top-k of every path against the
 * scalar path's), then --reps timed calls each; the table shows the median.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "bench_cli.h"
#include "bench_hamming_plain.h"
#include "bench_modes.h"
#include "bench_report.h"
#include "bench_timing.h"
#include "popcount_probe.h"
#include "sketchmm.h"

#define DEFAULT_CODES 4096
#define DEFAULT_REPS 5
#define DEFAULT_K 10
#define MAX_CODES (1 << 20)

typedef struct {
    int64_t codes, topk_codes, k; /* topk_codes 0: not given (then codes) */
    bench_int_list bits, threads;
    int64_t reps;
} hamming_config;

static void describe(FILE *out)
{
    fputs("  All-pairs Hamming distances and top-k search: pairs/s (a pair is one query against one\n"
          "  code) of sketch_hamming_u16, sketch_hamming_u32 and sketch_hamming_topk on every ISA path\n"
          "  this CPU runs (smm_set_isa; the kernel name is sketch_hamming_kernel_name()), beside a plain C\n"
          "  loop (__builtin_popcountll, uint32 output, rows split among OpenMP threads) built for the\n"
          "  baseline CPU ('plain_c') and, on x86_64, with -mpopcnt ('plain_c_popcnt'). Random codes,\n"
          "  contiguous (ld = words), outputs written in full. Each contender runs once untimed (its\n"
          "  result is checked: u32 and u16 against the plain loop, top-k of every path against the\n"
          "  scalar path), then --reps times; the table shows the median. 'x plain' is the speed over\n"
          "  the plain loop built with popcnt (or the baseline one) at the same bits and threads;\n"
          "  '%ceil' is the speed as a share of this CPU's ceiling at the same bits and threads: the\n"
          "  popcount probe (512-bit xor + VPOPCNTQ + add on registers, see mode probe) in\n"
          "  64-bit words/s, times 64 / bits; no kernel can pass it ('-' where the CPU lacks it).\n"
          "  'other%' the share of the machine's CPU time other processes used during the row.\n",
          out);
}

static int check_options(void *config)
{
    hamming_config *cfg = config;
    if (cfg->topk_codes == 0)
        cfg->topk_codes = cfg->codes;
    if (cfg->k > cfg->topk_codes)
        return bench_usage_error("--k %lld is more than the %lld codes top-k searches", (long long)cfg->k,
                                 (long long)cfg->topk_codes);
    return 0;
}

/* ------------------------------------------------------------------------ */

enum { OP_U16, OP_U32, OP_TOPK, OP_PLAIN, OP_PLAIN_POPCNT };
static const char *const op_names[] = { "u16", "u32", "topk", "plain_c", "plain_c_popcnt" };

typedef struct {
    int op;
    int threads;
    int64_t na, nb, words, k;
    const uint64_t *a, *b, *bt; /* bt: the codes top-k searches */
    uint16_t *d16;
    uint32_t *d32;
    int64_t *idx;
    uint32_t *kdist;
} hamming_call;

static int run_call(const hamming_call *c)
{
    smm_status s = SMM_OK;
    switch (c->op) {
    case OP_U16:
        s = sketch_hamming_u16(c->na, c->a, c->words, c->nb, c->b, c->words, c->words, c->d16, c->nb);
        break;
    case OP_U32:
        s = sketch_hamming_u32(c->na, c->a, c->words, c->nb, c->b, c->words, c->words, c->d32, c->nb);
        break;
    case OP_TOPK:
        s = sketch_hamming_topk(c->na, c->a, c->words, c->nb, c->bt, c->words, c->words, c->k, c->idx, c->kdist,
                                c->k);
        break;
    case OP_PLAIN:
        bench_hamming_plain_loop(c->na, c->a, c->nb, c->b, c->words, c->d32, c->threads);
        break;
#if defined(SKETCHMM_BENCH_X86_KERNELS)
    case OP_PLAIN_POPCNT:
        bench_hamming_plain_popcnt(c->na, c->a, c->nb, c->b, c->words, c->d32, c->threads);
        break;
#endif
    default:
        break;
    }
    if (s != SMM_OK) {
        bench_error("%s failed: %s", op_names[c->op], smm_status_str(s));
        return 0;
    }
    return 1;
}

static void run_action(void *context)
{
    if (!run_call(context))
        exit(BENCH_EXIT_FAILED);
}

static void fill_random(uint64_t *x, int64_t n, uint64_t seed)
{
    uint64_t z = seed;
    for (int64_t i = 0; i < n; i++) {
        z += UINT64_C(0x9E3779B97F4A7C15);
        uint64_t v = z;
        v = (v ^ (v >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
        v = (v ^ (v >> 27)) * UINT64_C(0x94D049BB133111EB);
        x[i] = v ^ (v >> 31);
    }
}

static void print_row(int64_t bits, int threads, const char *kernel, const char *op, double gpairs, double ms,
                      double ratio, double ceiling, double others, FILE *csv, const hamming_config *cfg, int64_t nb)
{
    printf("%5lld %3d %-18s %-15s %9.3f %10.3f", (long long)bits, threads, kernel, op, gpairs, ms);
    if (isnan(ratio))
        printf(" %7s", "-");
    else
        printf(" %7.2f", ratio);
    if (ceiling > 0.0)
        printf(" %6.0f", 100.0 * gpairs / ceiling);
    else
        printf(" %6s", "-");
    bench_print_share(stdout, others, 6);
    printf("\n");
    fflush(stdout);
    if (csv != NULL) {
        fprintf(csv, "%lld,%d,%s,%s,%lld,%lld,%lld,%d,%.6g,%.6g,", (long long)bits, threads, kernel, op,
                (long long)cfg->codes, (long long)nb, strcmp(op, "topk") == 0 ? (long long)cfg->k : 0LL, (int)cfg->reps,
                gpairs * 1e9, ms * 1e-3);
        if (!isnan(ratio))
            fprintf(csv, "%.6g", ratio);
        fprintf(csv, ",");
        if (ceiling > 0.0)
            fprintf(csv, "%.6g", ceiling * 1e9);
        fprintf(csv, ",");
        if (!isnan(others))
            fprintf(csv, "%.4f", others);
        fprintf(csv, "\n");
        fflush(csv);
    }
}

/* Median seconds of one call (after a warm-up), and the contention share meanwhile. */
static double measure(hamming_call *c, int reps, double *others)
{
    const bench_contention_mark before = bench_contention_now();
    bench_sample sample = bench_measure(run_action, NULL, c, 1, reps);
    *others = bench_contention_others(before, bench_contention_now());
    return sample.seconds;
}

static int run_mode(void *config, FILE *csv)
{
    const hamming_config *cfg = config;
    const int reps = (int)cfg->reps;
    static const smm_isa all_isas[] = { SMM_ISA_SCALAR, SMM_ISA_AVX2, SMM_ISA_AVX512, SMM_ISA_NEON };
    smm_isa isas[4];
    int nisa = 0;
    for (int i = 0; i < 4; i++)
        if (smm_isa_supported(all_isas[i]))
            isas[nisa++] = all_isas[i];
    smm_isa initial_isa = SMM_ISA_AUTO;
    smm_get_isa(&initial_isa);

    int64_t max_bits = 0;
    for (int b = 0; b < cfg->bits.count; b++)
        max_bits = cfg->bits.v[b] > max_bits ? cfg->bits.v[b] : max_bits;
    const int64_t max_words = max_bits / 64, n = cfg->codes, nt = cfg->topk_codes;
    uint64_t *a = malloc((size_t)(n * max_words) * sizeof(uint64_t));
    uint64_t *b = malloc((size_t)(n * max_words) * sizeof(uint64_t));
    uint64_t *bt = nt == n ? b : malloc((size_t)(nt * max_words) * sizeof(uint64_t));
    uint16_t *d16 = malloc((size_t)(n * n) * sizeof(uint16_t));
    uint32_t *d32 = malloc((size_t)(n * n) * sizeof(uint32_t));
    uint32_t *plain = malloc((size_t)(n * n) * sizeof(uint32_t));
    int64_t *idx = malloc((size_t)(n * cfg->k) * sizeof(int64_t));
    int64_t *idx_ref = malloc((size_t)(n * cfg->k) * sizeof(int64_t));
    uint32_t *kd = malloc((size_t)(n * cfg->k) * sizeof(uint32_t));
    uint32_t *kd_ref = malloc((size_t)(n * cfg->k) * sizeof(uint32_t));
    if (!a || !b || !bt || !d16 || !d32 || !plain || !idx || !idx_ref || !kd || !kd_ref) {
        bench_error("out of memory");
        return BENCH_EXIT_FAILED;
    }
    memset(d16, 0, (size_t)(n * n) * sizeof(uint16_t)); /* first touch before timing */
    memset(d32, 0, (size_t)(n * n) * sizeof(uint32_t));
    memset(plain, 0, (size_t)(n * n) * sizeof(uint32_t));

    printf("Codes: %lld queries x %lld codes (top-k: %lld codes, k = %lld), %d reps, medians.\n", (long long)n,
           (long long)n, (long long)nt, (long long)cfg->k, reps);
    /* the ceiling per thread count, measured before the kernels */
    double ceiling_gwords[BENCH_MAX_LIST] = { 0 };
    const char *why = NULL;
    if (popcount_probe_available(&why)) {
        printf("Ceiling (popcount probe, 64-bit words x 1e9/s):");
        for (int ti = 0; ti < cfg->threads.count; ti++) {
            ceiling_gwords[ti] = popcount_probe_gwords((int)cfg->threads.v[ti]);
            printf(" %lld thread%s %.2f%s", (long long)cfg->threads.v[ti], cfg->threads.v[ti] == 1 ? "" : "s",
                   ceiling_gwords[ti], ti + 1 < cfg->threads.count ? "," : "\n");
        }
    } else {
        printf("Ceiling: no popcount probe (%s); %%ceil is left out\n", why);
    }
    printf("\n%5s %3s %-18s %-15s %9s %10s %7s %6s %6s\n", "bits", "thr", "kernel", "op", "Gpairs/s", "ms", "x plain",
           "%ceil", "other%");
    int status = 0;
    for (int bi = 0; bi < cfg->bits.count && status == 0; bi++) {
        const int64_t words = cfg->bits.v[bi] / 64;
        fill_random(a, n * words, 1 + (uint64_t)words);
        fill_random(b, n * words, 1000 + (uint64_t)words);
        if (bt != b)
            fill_random(bt, nt * words, 2000 + (uint64_t)words);
        for (int ti = 0; ti < cfg->threads.count && status == 0; ti++) {
            const int threads = (int)cfg->threads.v[ti];
            const double ceiling = ceiling_gwords[ti] * 64.0 / (double)cfg->bits.v[bi];
            if (smm_set_num_threads(threads) != SMM_OK) {
                bench_error("cannot use %d threads", threads);
                status = BENCH_EXIT_FAILED;
                break;
            }
            hamming_call c = { OP_PLAIN, threads, n, n, words, cfg->k, a, b, bt, d16, d32, idx, kd };
            /* the plain loops: the reference results, then their speed */
            double others, plain_gpairs = NAN;
            c.d32 = plain;
            run_call(&c);
            int plain_ops[2] = { OP_PLAIN, -1 };
#if defined(SKETCHMM_BENCH_X86_KERNELS)
            plain_ops[1] = OP_PLAIN_POPCNT;
#endif
            for (int p = 0; p < 2; p++) {
                if (plain_ops[p] < 0)
                    continue;
                c.op = plain_ops[p];
                const double sec = measure(&c, reps, &others);
                plain_gpairs = (double)n * (double)n / sec * 1e-9; /* the last one (popcnt when built) is the reference */
                print_row(cfg->bits.v[bi], threads, "-", op_names[c.op], plain_gpairs, sec * 1e3, NAN, ceiling, others,
                          csv, cfg, n);
            }
            c.d32 = d32;
            for (int ii = 0; ii < nisa && status == 0; ii++) {
                smm_set_isa(isas[ii]);
                const char *kernel = sketch_hamming_kernel_name();
                for (int op = OP_U16; op <= OP_TOPK && status == 0; op++) {
                    c.op = op;
                    c.nb = op == OP_TOPK ? nt : n;
                    if (!run_call(&c)) {
                        status = BENCH_EXIT_FAILED;
                        break;
                    }
                    /* check the untimed call's result */
                    int ok = 1;
                    if (op == OP_U32)
                        ok = memcmp(d32, plain, (size_t)(n * n) * sizeof(uint32_t)) == 0;
                    if (op == OP_U16)
                        for (int64_t t = 0; t < n * n && ok; t++)
                            ok = d16[t] == plain[t];
                    if (op == OP_TOPK) {
                        if (ii == 0) {
                            memcpy(idx_ref, idx, (size_t)(n * cfg->k) * sizeof(int64_t));
                            memcpy(kd_ref, kd, (size_t)(n * cfg->k) * sizeof(uint32_t));
                        } else {
                            ok = memcmp(idx_ref, idx, (size_t)(n * cfg->k) * sizeof(int64_t)) == 0 &&
                                 memcmp(kd_ref, kd, (size_t)(n * cfg->k) * sizeof(uint32_t)) == 0;
                        }
                        if (bt == b) /* the nearest code's distance is the row minimum */
                            for (int64_t i = 0; i < n && ok; i++) {
                                uint32_t m = UINT32_MAX;
                                for (int64_t j = 0; j < n; j++)
                                    m = plain[i * n + j] < m ? plain[i * n + j] : m;
                                ok = kd[i * cfg->k] == m;
                            }
                    }
                    if (!ok) {
                        bench_error("%s on %s (%lld bits, %d threads) gave a wrong result",
                                    op_names[op], smm_isa_name(isas[ii]), (long long)cfg->bits.v[bi], threads);
                        status = BENCH_EXIT_FAILED;
                        break;
                    }
                    const double sec = measure(&c, reps, &others);
                    const double gpairs = (double)n * (double)c.nb / sec * 1e-9;
                    print_row(cfg->bits.v[bi], threads, kernel, op_names[op], gpairs, sec * 1e3, gpairs / plain_gpairs,
                              ceiling, others, csv, cfg, c.nb);
                }
            }
            smm_set_isa(initial_isa);
        }
    }
    smm_set_num_threads(0);
    free(a);
    free(b);
    if (bt != b)
        free(bt);
    free(d16);
    free(d32);
    free(plain);
    free(idx);
    free(idx_ref);
    free(kd);
    free(kd_ref);
    return status;
}

static const bench_option options[] = {
    { .name = "codes", .arg = "N", .kind = BENCH_INT, .offset = offsetof(hamming_config, codes), .lo = 1,
      .hi = MAX_CODES, .def = DEFAULT_CODES, .wants = "a count",
      .help = "queries and codes for all pairs, na = nb = N (default {default})" },
    { .name = "topk-codes", .arg = "N", .kind = BENCH_INT, .offset = offsetof(hamming_config, topk_codes), .lo = 1,
      .hi = MAX_CODES, .def = 0, .wants = "a count",
      .help = "codes searched by top-k for each of the --codes queries (default: --codes)" },
    { .name = "bits", .arg = "LIST", .kind = BENCH_INT_LIST, .offset = offsetof(hamming_config, bits), .lo = 64,
      .hi = 65472, .multiple = 64, BENCH_DEFAULTS(64, 128, 256, 512, 1024), .wants = "multiples of 64",
      .help = "code lengths, multiples of 64 up to 65472 (default {default})" },
    BENCH_OPTION_THREAD_COUNTS(hamming_config, threads),
    BENCH_OPTION_REPS(hamming_config, reps, 100000, DEFAULT_REPS, "timed calls per contender (default {default})"),
    { .name = "k", .arg = "N", .kind = BENCH_INT, .offset = offsetof(hamming_config, k), .lo = 1, .hi = MAX_CODES,
      .def = DEFAULT_K, .wants = "a count", .help = "neighbours per query for top-k (default {default})" },
    { .name = NULL },
};

const bench_mode bench_mode_hamming = {
    .name = "hamming",
    .summary = "all-pairs Hamming distances (u16, u32) and top-k: pairs/s per kernel beside plain C",
    .options = options,
    .config_size = sizeof(hamming_config),
    .describe = describe,
    .csv_header = "bits,threads,kernel,op,queries,codes,k,reps,pairs_per_second,seconds,ratio_to_plain,"
                  "ceiling_pairs_per_second,other_cpu_share\n",
    .csv_rows = "measurement",
    .check = check_options,
    .run = run_mode,
};
