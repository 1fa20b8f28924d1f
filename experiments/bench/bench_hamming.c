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

#define MODE "hamming"
#define DEFAULT_CODES 4096
#define DEFAULT_REPS 5
#define DEFAULT_K 10
#define MAX_CODES (1 << 20)

static const int64_t default_bits[] = { 64, 128, 256, 512, 1024 };
static const char *const option_names[] = { "codes", "topk-codes", "bits", "threads", "reps", "k", "csv", NULL };

typedef struct {
    int64_t codes, topk_codes, k;
    int64_t bits[BENCH_MAX_LIST];
    int nbits;
    int64_t threads[BENCH_MAX_LIST];
    int nthreads;
    int reps;
    const char *csv_path;
} hamming_config;

void bench_hamming_help(FILE *out)
{
    fprintf(out,
        "sketchmm_bench hamming [options]\n"
        "  All-pairs Hamming distances and top-k search: pairs/s (a pair is one query against one\n"
        "  code) of sketch_hamming_u16, sketch_hamming_u32 and sketch_hamming_topk on every ISA path\n"
        "  this CPU runs (smm_set_isa; the kernel name is sketch_hamming_kernel_name()), beside a plain C\n"
        "  loop (__builtin_popcountll, uint32 output, rows split among OpenMP threads) built for the\n"
        "  baseline CPU ('plain_c') and, on x86_64, with -mpopcnt ('plain_c_popcnt'). Random codes,\n"
        "  contiguous (ld = words), outputs written in full. Each contender runs once untimed (its\n"
        "  result is checked: u32 and u16 against the plain loop, top-k of every path against the\n"
        "  scalar path), then --reps times; the table shows the median. 'x plain' is the speed over\n"
        "  the plain loop built with popcnt (or the baseline one) at the same bits and threads;\n"
        "  '%%ceil' is the speed as a share of this CPU's ceiling at the same bits and threads: the\n"
        "  popcount probe (512-bit xor + VPOPCNTQ + add on registers, see the probe mode) in\n"
        "  64-bit words/s, times 64 / bits; no kernel can pass it ('-' where the CPU lacks it).\n"
        "  'other%%' the share of the machine's CPU time other processes used during the row.\n"
        "  --codes N        queries and codes for all pairs, na = nb = N (default %d)\n"
        "  --topk-codes N   codes searched by top-k for each of the --codes queries (default: --codes)\n"
        "  --bits LIST      code lengths, multiples of 64 up to 65472 (default 64,128,256,512,1024)\n"
        "  --threads LIST   thread counts (default: 1 and the OpenMP maximum)\n"
        "  --reps N         timed calls per contender (default %d)\n"
        "  --k N            neighbours per query for top-k (default %d)\n"
        "  --csv FILE       also write one CSV row per measurement\n",
        DEFAULT_CODES, DEFAULT_REPS, DEFAULT_K);
}

static int parse_args(int argc, char **argv, hamming_config *cfg, int *help)
{
    *help = 0;
    cfg->codes = DEFAULT_CODES;
    cfg->topk_codes = 0;
    cfg->k = DEFAULT_K;
    cfg->reps = DEFAULT_REPS;
    cfg->nbits = (int)(sizeof default_bits / sizeof default_bits[0]);
    memcpy(cfg->bits, default_bits, sizeof default_bits);
    bench_default_threads(cfg->threads, &cfg->nthreads);
    for (int i = 0; i < argc; i++) {
        char name[BENCH_MAX_OPTION_NAME];
        const char *value;
        int bad = bench_next_option(MODE, option_names, argc, argv, &i, name, &value);
        if (bad)
            return bad;
        if (strcmp(name, "help") == 0) {
            *help = 1;
            return 0;
        } else if (strcmp(name, "codes") == 0 || strcmp(name, "topk-codes") == 0) {
            int64_t n;
            if (!bench_parse_int(value, 1, MAX_CODES, &n))
                return bench_usage_error(MODE, "--%s wants a count in [1, %d], got '%s'", name, MAX_CODES, value);
            *(strcmp(name, "codes") == 0 ? &cfg->codes : &cfg->topk_codes) = n;
        } else if (strcmp(name, "bits") == 0) {
            if (!bench_parse_int_list(value, 64, 65472, cfg->bits, &cfg->nbits))
                return bench_usage_error(MODE, "--bits wants multiples of 64 in [64, 65472], got '%s'", value);
            for (int b = 0; b < cfg->nbits; b++)
                if (cfg->bits[b] % 64 != 0)
                    return bench_usage_error(MODE, "--bits wants multiples of 64, got %lld", (long long)cfg->bits[b]);
        } else if (strcmp(name, "threads") == 0) {
            if (!bench_parse_int_list(value, 1, SMM_MAX_THREADS, cfg->threads, &cfg->nthreads))
                return bench_usage_error(MODE, "--threads wants thread counts in [1, %d], got '%s'", SMM_MAX_THREADS,
                                         value);
        } else if (strcmp(name, "reps") == 0) {
            int64_t reps;
            if (!bench_parse_int(value, 1, 100000, &reps))
                return bench_usage_error(MODE, "--reps wants a count in [1, 100000], got '%s'", value);
            cfg->reps = (int)reps;
        } else if (strcmp(name, "k") == 0) {
            if (!bench_parse_int(value, 1, MAX_CODES, &cfg->k))
                return bench_usage_error(MODE, "--k wants a count in [1, %d], got '%s'", MAX_CODES, value);
        } else if (strcmp(name, "csv") == 0) {
            cfg->csv_path = value;
        } else {
            return bench_usage_error(MODE, "unknown option '--%s'", name);
        }
    }
    if (cfg->topk_codes == 0)
        cfg->topk_codes = cfg->codes;
    if (cfg->k > cfg->topk_codes)
        return bench_usage_error(MODE, "--k %lld is more than the %lld codes top-k searches", (long long)cfg->k,
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
        fprintf(stderr, "sketchmm_bench hamming: %s failed: %s\n", op_names[c->op], smm_status_str(s));
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
                (long long)cfg->codes, (long long)nb, strcmp(op, "topk") == 0 ? (long long)cfg->k : 0LL, cfg->reps,
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

int bench_hamming_main(int argc, char **argv)
{
    hamming_config cfg;
    memset(&cfg, 0, sizeof cfg);
    int help;
    int bad = parse_args(argc, argv, &cfg, &help);
    if (bad)
        return bad;
    if (help) {
        bench_hamming_help(stdout);
        return 0;
    }
    FILE *csv = NULL;
    if (bench_begin(MODE, cfg.csv_path, &csv) != 0)
        return BENCH_EXIT_FAILED;
    const bench_contention_mark run_start = bench_contention_now();
    if (csv != NULL)
        fputs("bits,threads,kernel,op,queries,codes,k,reps,pairs_per_second,seconds,ratio_to_plain,ceiling_pairs_per_second,"
              "other_cpu_share\n",
              csv);

    static const smm_isa all_isas[] = { SMM_ISA_SCALAR, SMM_ISA_AVX2, SMM_ISA_AVX512, SMM_ISA_NEON };
    smm_isa isas[4];
    int nisa = 0;
    for (int i = 0; i < 4; i++)
        if (smm_isa_supported(all_isas[i]))
            isas[nisa++] = all_isas[i];
    smm_isa initial_isa = SMM_ISA_AUTO;
    smm_get_isa(&initial_isa);

    int64_t max_bits = 0;
    for (int b = 0; b < cfg.nbits; b++)
        max_bits = cfg.bits[b] > max_bits ? cfg.bits[b] : max_bits;
    const int64_t max_words = max_bits / 64, n = cfg.codes, nt = cfg.topk_codes;
    uint64_t *a = malloc((size_t)(n * max_words) * sizeof(uint64_t));
    uint64_t *b = malloc((size_t)(n * max_words) * sizeof(uint64_t));
    uint64_t *bt = nt == n ? b : malloc((size_t)(nt * max_words) * sizeof(uint64_t));
    uint16_t *d16 = malloc((size_t)(n * n) * sizeof(uint16_t));
    uint32_t *d32 = malloc((size_t)(n * n) * sizeof(uint32_t));
    uint32_t *plain = malloc((size_t)(n * n) * sizeof(uint32_t));
    int64_t *idx = malloc((size_t)(n * cfg.k) * sizeof(int64_t)), *idx_ref = malloc((size_t)(n * cfg.k) * sizeof(int64_t));
    uint32_t *kd = malloc((size_t)(n * cfg.k) * sizeof(uint32_t)), *kd_ref = malloc((size_t)(n * cfg.k) * sizeof(uint32_t));
    if (!a || !b || !bt || !d16 || !d32 || !plain || !idx || !idx_ref || !kd || !kd_ref) {
        fprintf(stderr, "sketchmm_bench hamming: out of memory\n");
        return BENCH_EXIT_FAILED;
    }
    memset(d16, 0, (size_t)(n * n) * sizeof(uint16_t)); /* first touch before timing */
    memset(d32, 0, (size_t)(n * n) * sizeof(uint32_t));
    memset(plain, 0, (size_t)(n * n) * sizeof(uint32_t));

    printf("Codes: %lld queries x %lld codes (top-k: %lld codes, k = %lld), %d reps, medians.\n", (long long)n,
           (long long)n, (long long)nt, (long long)cfg.k, cfg.reps);
    /* the ceiling per thread count, measured before the kernels */
    double ceiling_gwords[BENCH_MAX_LIST] = { 0 };
    const char *why = NULL;
    if (popcount_probe_available(&why)) {
        printf("Ceiling (popcount probe, 64-bit words x 1e9/s):");
        for (int ti = 0; ti < cfg.nthreads; ti++) {
            ceiling_gwords[ti] = popcount_probe_gwords((int)cfg.threads[ti]);
            printf(" %lld thread%s %.2f%s", (long long)cfg.threads[ti], cfg.threads[ti] == 1 ? "" : "s",
                   ceiling_gwords[ti], ti + 1 < cfg.nthreads ? "," : "\n");
        }
    } else {
        printf("Ceiling: no popcount probe (%s); %%ceil is left out\n", why);
    }
    printf("\n%5s %3s %-18s %-15s %9s %10s %7s %6s %6s\n", "bits", "thr", "kernel", "op", "Gpairs/s", "ms", "x plain",
           "%ceil", "other%");
    int status = 0;
    for (int bi = 0; bi < cfg.nbits && status == 0; bi++) {
        const int64_t words = cfg.bits[bi] / 64;
        fill_random(a, n * words, 1 + (uint64_t)words);
        fill_random(b, n * words, 1000 + (uint64_t)words);
        if (bt != b)
            fill_random(bt, nt * words, 2000 + (uint64_t)words);
        for (int ti = 0; ti < cfg.nthreads && status == 0; ti++) {
            const int threads = (int)cfg.threads[ti];
            const double ceiling = ceiling_gwords[ti] * 64.0 / (double)cfg.bits[bi];
            if (smm_set_num_threads(threads) != SMM_OK) {
                fprintf(stderr, "sketchmm_bench hamming: cannot use %d threads\n", threads);
                status = BENCH_EXIT_FAILED;
                break;
            }
            hamming_call c = { OP_PLAIN, threads, n, n, words, cfg.k, a, b, bt, d16, d32, idx, kd };
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
                const double sec = measure(&c, cfg.reps, &others);
                plain_gpairs = (double)n * (double)n / sec * 1e-9; /* the last one (popcnt when built) is the reference */
                print_row(cfg.bits[bi], threads, "-", op_names[c.op], plain_gpairs, sec * 1e3, NAN, ceiling, others, csv,
                          &cfg, n);
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
                            memcpy(idx_ref, idx, (size_t)(n * cfg.k) * sizeof(int64_t));
                            memcpy(kd_ref, kd, (size_t)(n * cfg.k) * sizeof(uint32_t));
                        } else {
                            ok = memcmp(idx_ref, idx, (size_t)(n * cfg.k) * sizeof(int64_t)) == 0 &&
                                 memcmp(kd_ref, kd, (size_t)(n * cfg.k) * sizeof(uint32_t)) == 0;
                        }
                        if (bt == b) /* the nearest code's distance is the row minimum */
                            for (int64_t i = 0; i < n && ok; i++) {
                                uint32_t m = UINT32_MAX;
                                for (int64_t j = 0; j < n; j++)
                                    m = plain[i * n + j] < m ? plain[i * n + j] : m;
                                ok = kd[i * cfg.k] == m;
                            }
                    }
                    if (!ok) {
                        fprintf(stderr, "sketchmm_bench hamming: %s on %s (%lld bits, %d threads) gave a wrong result\n",
                                op_names[op], smm_isa_name(isas[ii]), (long long)cfg.bits[bi], threads);
                        status = BENCH_EXIT_FAILED;
                        break;
                    }
                    const double sec = measure(&c, cfg.reps, &others);
                    const double gpairs = (double)n * (double)c.nb / sec * 1e-9;
                    print_row(cfg.bits[bi], threads, kernel, op_names[op], gpairs, sec * 1e3, gpairs / plain_gpairs,
                              ceiling, others, csv, &cfg, c.nb);
                }
            }
            smm_set_isa(initial_isa);
        }
    }
    bench_print_run_end(stdout, run_start);
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
    if (bench_csv_close(csv, MODE, cfg.csv_path) != 0 && status == 0)
        status = BENCH_EXIT_FAILED;
    return status;
}
