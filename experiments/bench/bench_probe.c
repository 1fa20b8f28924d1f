/*
 * bench_probe.c - mode `probe`: print the peak FMA throughput of this
 * CPU for 512-bit and 256-bit FMAs on each thread count (see fma_probe.h),
 * its xor + popcount throughput, the ceiling of the Hamming kernels
 * (popcount_probe.h), its VPSHUFB + add throughput, the ceiling of the
 * 4-bit lookup-table (PQ fast scan) kernels (shuffle_probe.h), and its
 * memory write bandwidth with streaming and regular stores, the ceiling of
 * kernels bound by writing a large result (write_probe.h).
 */
#include <stddef.h>
#include <stdio.h>

#include "bench_cli.h"
#include "bench_modes.h"
#include "bench_report.h"
#include "bench_timing.h"
#include "fma_probe.h"
#include "popcount_probe.h"
#include "shuffle_probe.h"
#include "throughput_probe.h"
#include "write_probe.h"

typedef struct {
    bench_int_list threads;
} probe_config;

static void describe(FILE *out)
{
    fprintf(out,
        "  Peak single-precision FMA throughput: each thread runs a long loop of independent\n"
        "  FMAs (%d chains of 512-bit, %d chains of 256-bit vectors), best of %d runs of ~%d ms;\n"
        "  with T threads all run at once (OpenMP): total flops over the slowest thread's time\n"
        "  (the sum of the per-thread rates when each thread has a core of its own). An FMA\n"
        "  counts as 2 flops. Widths the build or CPU lacks are reported as unavailable.\n"
        "  Then the Hamming ceiling: the same harness on a loop of 512-bit xor + VPOPCNTQ + add\n"
        "  (%d chains, registers only), in 64-bit words/s; no Hamming kernel over b-bit codes\n"
        "  can pass words/s * 64 / b pairs/s on this CPU.\n"
        "  Then the lookup ceiling: a loop of VPSHUFB + byte add on registers (%d chains of 512-bit\n"
        "  vectors, AVX512BW; %d of 256-bit, AVX2), in 4-bit table lookups/s (16-entry byte tables,\n"
        "  one lookup per byte lane: 64 per 512-bit VPSHUFB, 32 per 256-bit one), the ceiling of PQ\n"
        "  fast-scan kernels. Then two instruction mixes of exact sums of 8-bit entries:\n"
        "  '512-bit vpshufb+u16' (%d chains: per VPSHUFB result x two 16-bit adds and a shift,\n"
        "  a += x, b += x >> 8, the pshufb kernels' accumulation) and '512-bit vpermb+vpdpbusd'\n"
        "  (%d chains: a 64-entry VPERMB lookup, VPDPBUSD adding 4 bytes into 32 bits; the mix of\n"
        "  pq_scan's AVX-512 kernel, needs AVX512_VBMI and VNNI; mode pqscan). Cycles are TSC\n"
        "  (nominal) cycles.\n"
        "  Then the write bandwidth: each thread writes its own contiguous part of a %.0f MiB\n"
        "  buffer (touched once before), with non-temporal 64-byte stores ('streaming stores':\n"
        "  no read of the lines, the ceiling of a kernel bound by writing a large result, e.g.\n"
        "  the small-k product of the sketched-factor methods) or regular vector stores\n"
        "  (each line read for ownership first); GB/s (1e9 bytes) over the slowest thread's\n"
        "  time, best of %d runs.\n",
        FMA_PROBE_AVX512_CHAINS, FMA_PROBE_AVX2_CHAINS, THROUGHPUT_PROBE_RUNS, THROUGHPUT_PROBE_RUN_MILLISECONDS,
        POPCOUNT_PROBE_CHAINS, SHUFFLE_PROBE_CHAINS, SHUFFLE_PROBE_CHAINS_AVX2, SHUFFLE_PROBE_CHAINS_U16,
        SHUFFLE_PROBE_CHAINS_VPERMB, WRITE_PROBE_BYTES / (1024.0 * 1024.0), WRITE_PROBE_RUNS);
}

static int run_mode(void *config, FILE *csv)
{
    const probe_config *cfg = config;
    const int64_t *threads = cfg->threads.v;
    const int nthreads = cfg->threads.count;
    (void)csv; /* none: the mode has no --csv */
    double ghz = bench_tsc_ghz();
    printf("\n%-12s %7s %9s %13s %19s\n", "width", "threads", "GFLOPS", "GFLOPS/thread", "flops/cycle/thread");
    const fma_probe_width widths[2] = { FMA_PROBE_512, FMA_PROBE_256 };
    for (int w = 0; w < 2; w++) {
        const char *why = NULL;
        if (!fma_probe_available(widths[w], &why)) {
            printf("%-12s unavailable: %s\n", fma_probe_width_name(widths[w]), why);
            continue;
        }
        for (int t = 0; t < nthreads; t++) {
            double gflops = fma_probe_gflops(widths[w], (int)threads[t]);
            double per_thread = gflops / (double)threads[t];
            printf("%-12s %7d %9.1f %13.1f", fma_probe_width_name(widths[w]), (int)threads[t], gflops, per_thread);
            if (ghz > 0.0)
                printf(" %19.1f\n", per_thread / ghz);
            else
                printf(" %19s\n", "n/a");
            fflush(stdout);
        }
    }
    const char *why = NULL;
    if (!popcount_probe_available(&why)) {
        printf("\nHamming ceiling unavailable: %s\n", why);
    } else {
        printf("\n%-12s %7s %9s %13s %19s   %s\n", "loop", "threads", "Gwords/s", "Gwords/s/thr", "words/cycle/thread",
               "ceiling Gpairs/s at 64 / 256 / 1024 bits");
        for (int t = 0; t < nthreads; t++) {
            double gwords = popcount_probe_gwords((int)threads[t]);
            double per_thread = gwords / (double)threads[t];
            printf("%-12s %7d %9.2f %13.2f", "xor+popcnt", (int)threads[t], gwords, per_thread);
            if (ghz > 0.0)
                printf(" %19.2f", per_thread / ghz);
            else
                printf(" %19s", "n/a");
            printf("   %.2f / %.2f / %.2f\n", gwords, gwords / 4.0, gwords / 16.0);
            fflush(stdout);
        }
    }
    printf("\n%-24s %7s %10s %13s %19s %20s\n", "loop", "threads", "Glookups/s", "Glookups/s/thr",
           "lookups/cycle/thr", "vpshufb/cycle/thr");
    const shuffle_probe_width shuffles[SHUFFLE_PROBE_WIDTHS] = { SHUFFLE_PROBE_512, SHUFFLE_PROBE_256,
                                                                 SHUFFLE_PROBE_512_U16, SHUFFLE_PROBE_512_VPERMB };
    for (int w = 0; w < SHUFFLE_PROBE_WIDTHS; w++) {
        const char *missing = NULL;
        if (!shuffle_probe_available(shuffles[w], &missing)) {
            printf("%-24s unavailable: %s\n", shuffle_probe_width_name(shuffles[w]), missing);
            continue;
        }
        const double lanes = shuffles[w] == SHUFFLE_PROBE_256 ? 32.0 : 64.0;
        for (int t = 0; t < nthreads; t++) {
            double glookups = shuffle_probe_glookups(shuffles[w], (int)threads[t]);
            double per_thread = glookups / (double)threads[t];
            printf("%-24s %7d %10.1f %13.1f", shuffle_probe_width_name(shuffles[w]), (int)threads[t], glookups,
                   per_thread);
            if (ghz > 0.0)
                printf(" %19.1f %20.2f\n", per_thread / ghz, per_thread / ghz / lanes);
            else
                printf(" %19s %20s\n", "n/a", "n/a");
            fflush(stdout);
        }
    }
    printf("\n%-24s %7s %10s %13s\n", "write loop", "threads", "GB/s", "GB/s/thread");
    const write_probe_kind writes[2] = { WRITE_PROBE_STREAM, WRITE_PROBE_STORE };
    for (int w = 0; w < 2; w++) {
        const char *missing = NULL;
        if (!write_probe_available(writes[w], &missing)) {
            printf("%-24s unavailable: %s\n", write_probe_kind_name(writes[w]), missing);
            continue;
        }
        for (int t = 0; t < nthreads; t++) {
            const double gbytes = write_probe_gbytes(writes[w], (int)threads[t]);
            printf("%-24s %7d %10.1f %13.1f\n", write_probe_kind_name(writes[w]), (int)threads[t], gbytes,
                   gbytes / (double)threads[t]);
            fflush(stdout);
        }
    }
    return 0;
}

static const bench_option options[] = {
    { .name = "threads", .arg = "LIST", .kind = BENCH_INT_LIST, .offset = offsetof(probe_config, threads), .lo = 1,
      .hi = 1024, .default_kind = BENCH_DEFAULT_THREAD_COUNTS, .wants = "thread counts",
      .help = "comma-separated thread counts (default: 1 and the OpenMP maximum)" },
    { .name = NULL },
};

const bench_mode bench_mode_probe = {
    .name = "probe",
    .summary = "peak FMA, xor+popcount and vpshufb lookup throughput, write bandwidth of this CPU, 1 and more threads",
    .options = options,
    .config_size = sizeof(probe_config),
    .describe = describe,
    .run = run_mode,
};
