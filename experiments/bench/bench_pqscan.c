/*
 * bench_pqscan.c - mode `pqscan`: 4-bit table lookups per second of the
 * product-quantization scan kernels (sketch/pq.h, pq_scan) on every ISA
 * path this CPU runs, per number of subspaces M and thread count, as a
 * share of two ceilings measured at the start of the same run on the same
 * thread count (shuffle_probe.h):
 *
 *   %shuf  the byte-shuffle probe of the path's width (VPSHUFB + byte add:
 *          no lookup kernel can pass it);
 *   %mix   (avx512) the probe of the kernel's own instruction pair, VPERMB
 *          + VPDPBUSD on registers: what the loads, the code transposes and
 *          the stores cost on top of it.
 *
 * The work is the scan of approximate top-k and dense products: --rows
 * query tables against n codes, cut into tiles of --tile columns whose
 * uint32 sums go to a per-thread buffer that stays in cache; threads share
 * the tiles (OpenMP, static). The buffer's rows are --tile + --pad entries
 * apart, as a caller should lay out its tile: with rows a multiple of 4 KiB
 * apart (--pad 0 and the default tile of 2,048) every row's sums of a block
 * fall in the same L1 sets, which costs the AVX-512 kernel 10-20% at M = 16
 * on Zen 4. Random tables and codes. Each path's sums are checked against
 * the scalar path's on the first tile before timing.
 */
#include <math.h>
#include <omp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cli.h"
#include "bench_contention.h"
#include "bench_modes.h"
#include "bench_timing.h"
#include "shuffle_probe.h"
#include "sketch/pq.h"
#include "sketchmm.h"

#define DEFAULT_N 65536
#define DEFAULT_ROWS 16
#define DEFAULT_TILE 2048
#define DEFAULT_PAD 32
#define DEFAULT_REPS 5

typedef struct {
    bench_int_list M, threads;
    int64_t n, rows, tile, pad, reps;
} pqscan_config;

typedef struct {
    smm_isa isa;
    int threads;
    int32_t M;
    int64_t n, rows, tile, ld; /* ld: row stride of the tile buffers */
    const uint8_t *lut, *codes;
    uint32_t **out; /* one tile buffer per thread */
} pqscan_call;

static void describe(FILE *out)
{
    fputs("  Lookups per second of the PQ fast-scan kernels (pq_scan: 16-entry byte tables selected by\n"
          "  4-bit codes, exact uint32 sums) on every ISA path this CPU runs, for each M (subspaces)\n"
          "  and thread count: --rows query tables against --n random codes in tiles of --tile\n"
          "  columns, each tile's sums written to a per-thread buffer (the tile of a top-k or dense\n"
          "  product; rows --tile + --pad entries apart), tiles shared by the threads. A lookup is one table entry added for one\n"
          "  (query, code, subspace): rows * n * M per call. Each path's sums are checked against the\n"
          "  scalar path's first. The ceilings are measured first, on the same thread counts:\n"
          "  '%shuf' is the speed over the byte-shuffle probe of the path's vector width (VPSHUFB +\n"
          "  byte add on registers; mode probe), '%mix' (avx512) over the probe of the kernel's own\n"
          "  instruction pair, VPERMB + VPDPBUSD on registers. Median of --reps calls after a warm-up;\n"
          "  'other%' the share of the machine's CPU time other processes used meanwhile.\n",
          out);
}

static void run_action(void *context)
{
    const pqscan_call *c = context;
    const int64_t bb = pq_block_bytes(c->M), tiles = (c->n + c->tile - 1) / c->tile;
#pragma omp parallel for num_threads(c->threads) schedule(static)
    for (int64_t t = 0; t < tiles; t++) {
        const int64_t j0 = t * c->tile, cols = c->n - j0 < c->tile ? c->n - j0 : c->tile;
        pq_scan(c->isa, c->lut, c->rows, c->M, c->codes + (j0 / PQ_BLOCK) * bb, 0, cols,
                c->out[omp_get_thread_num()], c->ld);
    }
}

static void fill_bytes(uint8_t *p, int64_t count, uint64_t seed)
{
    uint64_t x = seed * UINT64_C(0x9E3779B97F4A7C15) + 1;
    for (int64_t i = 0; i < count; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        p[i] = (uint8_t)(x >> 32);
    }
}

static int run_mode(void *config, FILE *csv)
{
    const pqscan_config *cfg = config;
    (void)csv;
    static const smm_isa all_isas[] = { SMM_ISA_SCALAR, SMM_ISA_AVX2, SMM_ISA_AVX512, SMM_ISA_NEON };
    int32_t max_m = 0;
    for (int i = 0; i < cfg->M.count; i++)
        max_m = cfg->M.v[i] > max_m ? (int32_t)cfg->M.v[i] : max_m;
    int max_threads = 1;
    for (int i = 0; i < cfg->threads.count; i++)
        max_threads = cfg->threads.v[i] > max_threads ? (int)cfg->threads.v[i] : max_threads;
    const int64_t code_bytes = pq_codes_bytes(max_m, cfg->n), lut_bytes = cfg->rows * max_m * 16;
    const int64_t ld = cfg->tile + cfg->pad;
    uint8_t *codes = smm_aligned_alloc((size_t)code_bytes), *lut = smm_aligned_alloc((size_t)lut_bytes);
    uint32_t *out[SMM_MAX_THREADS] = { 0 }, *ref = malloc((size_t)(cfg->rows * ld) * sizeof(uint32_t));
    int status = codes && lut && ref ? 0 : BENCH_EXIT_FAILED;
    for (int t = 0; t < max_threads && status == 0; t++)
        if ((out[t] = smm_aligned_alloc((size_t)(cfg->rows * ld) * sizeof(uint32_t))) == NULL)
            status = BENCH_EXIT_FAILED;
    if (status != 0) {
        bench_error("out of memory");
        goto done;
    }

    printf("Scan: %lld query tables x %lld codes, tiles of %lld columns (rows %lld entries apart), %lld reps, "
           "medians.\n",
           (long long)cfg->rows, (long long)cfg->n, (long long)cfg->tile, (long long)ld, (long long)cfg->reps);
    double ceiling[SHUFFLE_PROBE_WIDTHS][BENCH_MAX_LIST] = { { 0 } };
    for (int w = 0; w < SHUFFLE_PROBE_WIDTHS; w++) {
        const char *why = NULL;
        if (!shuffle_probe_available((shuffle_probe_width)w, &why)) {
            printf("Ceiling %s: unavailable (%s)\n", shuffle_probe_width_name((shuffle_probe_width)w), why);
            continue;
        }
        printf("Ceiling %-20s (Glookups/s):", shuffle_probe_width_name((shuffle_probe_width)w));
        for (int ti = 0; ti < cfg->threads.count; ti++) {
            ceiling[w][ti] = shuffle_probe_glookups((shuffle_probe_width)w, (int)cfg->threads.v[ti]);
            printf(" %lld thread%s %.1f", (long long)cfg->threads.v[ti], cfg->threads.v[ti] == 1 ? "" : "s",
                   ceiling[w][ti]);
        }
        printf("\n");
    }
    printf("\n%5s %3s %-15s %11s %9s %6s %6s %6s\n", "M", "thr", "kernel", "Glookups/s", "ms", "%shuf", "%mix",
           "other%");
    for (int mi = 0; mi < cfg->M.count && status == 0; mi++) {
        const int32_t M = (int32_t)cfg->M.v[mi];
        fill_bytes(codes, pq_codes_bytes(M, cfg->n), 17 + (uint64_t)M);
        fill_bytes(lut, cfg->rows * M * 16, 1017 + (uint64_t)M);
        const int64_t first = cfg->n < cfg->tile ? cfg->n : cfg->tile;
        pq_scan(SMM_ISA_SCALAR, lut, cfg->rows, M, codes, 0, first, ref, ld);
        for (int ti = 0; ti < cfg->threads.count && status == 0; ti++) {
            const int threads = (int)cfg->threads.v[ti];
            for (int ii = 0; ii < 4 && status == 0; ii++) {
                const smm_isa isa = all_isas[ii];
                if (!smm_isa_supported(isa))
                    continue;
                pqscan_call c = { isa, threads, M, cfg->n, cfg->rows, cfg->tile, ld, lut, codes, out };
                pq_scan(isa, lut, cfg->rows, M, codes, 0, first, out[0], ld);
                for (int64_t r = 0; r < cfg->rows && status == 0; r++)
                    if (memcmp(out[0] + r * ld, ref + r * ld, (size_t)first * sizeof(uint32_t)) != 0) {
                        bench_error("pq_scan on %s (M = %d) differs from the scalar path", smm_isa_name(isa), M);
                        status = BENCH_EXIT_FAILED;
                    }
                if (status != 0)
                    break;
                const bench_contention_mark before = bench_contention_now();
                const bench_sample s = bench_measure(run_action, NULL, &c, 1, (int)cfg->reps);
                const double others = bench_contention_others(before, bench_contention_now());
                const double glookups = (double)cfg->rows * (double)cfg->n * (double)M / s.seconds * 1e-9;
                const double shuf = isa == SMM_ISA_AVX512 ? ceiling[SHUFFLE_PROBE_512][ti]
                                    : isa == SMM_ISA_AVX2 ? ceiling[SHUFFLE_PROBE_256][ti]
                                                          : 0.0;
                const double mix = ceiling[SHUFFLE_PROBE_512_VPERMB][ti];
                printf("%5d %3d %-15s %11.1f %9.3f", M, threads, pq_scan_kernel_name(isa), glookups, s.seconds * 1e3);
                if (shuf > 0.0)
                    printf(" %6.1f", 100.0 * glookups / shuf);
                else
                    printf(" %6s", "-");
                if (mix > 0.0 && isa == SMM_ISA_AVX512)
                    printf(" %6.1f", 100.0 * glookups / mix);
                else
                    printf(" %6s", "-");
                if (isnan(others))
                    printf(" %6s\n", "?");
                else
                    printf(" %6.1f\n", 100.0 * others);
                fflush(stdout);
            }
        }
    }
done:
    for (int t = 0; t < max_threads; t++)
        smm_aligned_free(out[t]);
    free(ref);
    smm_aligned_free(codes);
    smm_aligned_free(lut);
    return status;
}

static const bench_option options[] = {
    { .name = "M", .arg = "LIST", .kind = BENCH_INT_LIST, .offset = offsetof(pqscan_config, M), .lo = 1,
      .hi = PQ_MAX_SUBSPACES, BENCH_DEFAULTS(16, 49, 98, 196), .wants = "subspace counts",
      .help = "subspace counts M (default {default})" },
    { .name = "n", .arg = "N", .kind = BENCH_INT, .offset = offsetof(pqscan_config, n), .lo = 32, .hi = 1 << 24,
      .multiple = PQ_BLOCK, .def = DEFAULT_N, .wants = "a code count, a multiple of 32",
      .help = "codes scanned per call (default {default})" },
    { .name = "rows", .arg = "N", .kind = BENCH_INT, .offset = offsetof(pqscan_config, rows), .lo = 1, .hi = 4096,
      .def = DEFAULT_ROWS, .wants = "a query count", .help = "query tables per call (default {default})" },
    { .name = "tile", .arg = "N", .kind = BENCH_INT, .offset = offsetof(pqscan_config, tile), .lo = 32,
      .hi = 1 << 20, .multiple = PQ_BLOCK, .def = DEFAULT_TILE, .wants = "a column count, a multiple of 32",
      .help = "columns per tile (default {default})" },
    { .name = "pad", .arg = "N", .kind = BENCH_INT, .offset = offsetof(pqscan_config, pad), .lo = 0, .hi = 4096,
      .def = DEFAULT_PAD, .wants = "an entry count",
      .help = "entries between a tile row's end and the next row (default {default})" },
    BENCH_OPTION_THREAD_COUNTS(pqscan_config, threads),
    BENCH_OPTION_REPS(pqscan_config, reps, 1000, DEFAULT_REPS, "timed calls per row (default {default})"),
    { .name = NULL },
};

const bench_mode bench_mode_pqscan = {
    .name = "pqscan",
    .summary = "PQ fast-scan kernels: 4-bit lookups/s per ISA path against the byte-shuffle probes of the same run",
    .options = options,
    .config_size = sizeof(pqscan_config),
    .describe = describe,
    .run = run_mode,
};
