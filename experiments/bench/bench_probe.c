/*
 * bench_probe.c - mode `probe`: print the peak FMA throughput of this CPU for
 * 512-bit and 256-bit FMAs on each thread count (see fma_probe.h).
 */
#include <stdio.h>
#include <string.h>

#include "bench_cli.h"
#include "bench_modes.h"
#include "bench_report.h"
#include "bench_timing.h"
#include "fma_probe.h"
#include "popcount_probe.h"
#include "throughput_probe.h"

#define MODE "probe"

static const char *const option_names[] = { "threads", NULL };

void bench_probe_help(FILE *out)
{
    fprintf(out,
        "sketchmm_bench probe [--threads LIST]\n"
        "  Peak single-precision FMA throughput: each thread runs a long loop of independent\n"
        "  FMAs (%d chains of 512-bit, %d chains of 256-bit vectors), best of %d runs of ~%d ms;\n"
        "  with T threads all run at once (OpenMP): total flops over the slowest thread's time\n"
        "  (the sum of the per-thread rates when each thread has a core of its own). An FMA\n"
        "  counts as 2 flops. Widths the build or CPU lacks are reported as unavailable.\n"
        "  Then the Hamming ceiling: the same harness on a loop of 512-bit xor + VPOPCNTQ + add\n"
        "  (%d chains, registers only), in 64-bit words/s; no Hamming kernel over b-bit codes\n"
        "  can pass words/s * 64 / b pairs/s on this CPU.\n"
        "  --threads LIST   comma-separated thread counts (default: 1 and the OpenMP maximum)\n",
        FMA_PROBE_AVX512_CHAINS, FMA_PROBE_AVX2_CHAINS, THROUGHPUT_PROBE_RUNS, THROUGHPUT_PROBE_RUN_MILLISECONDS,
        POPCOUNT_PROBE_CHAINS);
}

int bench_probe_main(int argc, char **argv)
{
    int64_t threads[BENCH_MAX_LIST];
    int nthreads = 0;
    bench_default_threads(threads, &nthreads);
    for (int i = 0; i < argc; i++) {
        char name[BENCH_MAX_OPTION_NAME];
        const char *value;
        int bad = bench_next_option(MODE, option_names, argc, argv, &i, name, &value);
        if (bad)
            return bad;
        if (strcmp(name, "help") == 0) {
            bench_probe_help(stdout);
            return 0;
        } else if (strcmp(name, "threads") == 0) {
            if (!bench_parse_int_list(value, 1, 1024, threads, &nthreads))
                return bench_usage_error(MODE, "--threads wants thread counts in [1, 1024], got '%s'", value);
        } else {
            return bench_usage_error(MODE, "unknown option '--%s'", name);
        }
    }
    if (bench_print_setup(stdout) != 0)
        return BENCH_EXIT_FAILED;
    const bench_contention_mark run_start = bench_contention_now();
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
    bench_print_run_end(stdout, run_start);
    return 0;
}
