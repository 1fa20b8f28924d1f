/*
 * fma_probe.c - run the FMA throughput loops on one or several threads and
 * turn their times into GFLOPS (see fma_probe.h).
 *
 * Each run lasts about FMA_PROBE_RUN_SECONDS per thread; the iteration count
 * is calibrated once per width on one thread. With several threads every
 * thread times its own loop, all starting together after a barrier; the
 * team's rate is all their flops over the slowest thread's time. When each
 * thread has a core of its own this is the sum of the per-thread rates; when
 * threads share cores (more threads than cores, or a busy machine) it does
 * not count the same core time twice, as summing would.
 */
#include "fma_probe.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "bench_timing.h"
#include "sketchmm.h"

#define FMA_PROBE_RUN_SECONDS (FMA_PROBE_RUN_MILLISECONDS * 1e-3)
#define FMA_PROBE_MAX_THREADS 1024

/* volatile: the compiler cannot treat the loop's constants as known */
static volatile float probe_multiplier = 0.999999f;
static volatile float probe_addend = 1e-6f;
/* results land here so the loops are not optimised away */
static volatile float probe_sink;

const char *fma_probe_width_name(fma_probe_width width)
{
    return width == FMA_PROBE_512 ? "512-bit FMA" : "256-bit FMA";
}

int fma_probe_available(fma_probe_width width, const char **why)
{
    const char *missing = NULL;
#ifndef SKETCHMM_BENCH_X86_KERNELS
    (void)width;
    missing = "no FMA probe for this architecture (x86_64 only)";
#else
    if (width == FMA_PROBE_512 && !smm_isa_supported(SMM_ISA_AVX512))
        missing = "this CPU lacks AVX-512";
    else if (width == FMA_PROBE_256 && !smm_isa_supported(SMM_ISA_AVX2))
        missing = "this CPU lacks AVX2 + FMA";
#endif
    if (why != NULL)
        *why = missing;
    return missing == NULL;
}

static int chains_of(fma_probe_width width)
{
#ifdef SKETCHMM_BENCH_X86_KERNELS
    return width == FMA_PROBE_512 ? FMA_PROBE_AVX512_CHAINS : FMA_PROBE_AVX2_CHAINS;
#else
    (void)width;
    return 0;
#endif
}

static int lanes_of(fma_probe_width width)
{
    return width == FMA_PROBE_512 ? 16 : 8;
}

/* Run the loop once; returns its wall time in seconds. */
static double time_loop(fma_probe_width width, int64_t iterations)
{
    double t0 = bench_now_seconds();
    float result = 0.0f;
#ifdef SKETCHMM_BENCH_X86_KERNELS
    if (width == FMA_PROBE_512)
        result = fma_probe_loop_avx512(iterations, probe_multiplier, probe_addend);
    else
        result = fma_probe_loop_avx2(iterations, probe_multiplier, probe_addend);
#else
    (void)width;
    (void)iterations;
#endif
    double elapsed = bench_now_seconds() - t0;
    probe_sink = result;
    return elapsed;
}

/* Iterations that take about FMA_PROBE_RUN_SECONDS on one thread. */
static int64_t calibrate_iterations(fma_probe_width width)
{
    int64_t iterations = 1 << 16;
    for (;;) {
        double seconds = time_loop(width, iterations);
        if (seconds >= FMA_PROBE_RUN_SECONDS / 8 || iterations >= ((int64_t)1 << 40))
            return (int64_t)ceil((double)iterations * FMA_PROBE_RUN_SECONDS / fmax(seconds, 1e-9));
        iterations *= 4;
    }
}

double fma_probe_gflops(fma_probe_width width, int threads)
{
    if (!fma_probe_available(width, NULL) || threads < 1 || threads > FMA_PROBE_MAX_THREADS)
        return 0.0;
    static int64_t calibrated[2];
    if (calibrated[width] == 0)
        calibrated[width] = calibrate_iterations(width);
    const int64_t iterations = calibrated[width];
    const double flops_per_thread = 2.0 * (double)lanes_of(width) * chains_of(width) * (double)iterations;

    double seconds[FMA_PROBE_MAX_THREADS];
    double best = 0.0;
    int team = 1;
    for (int run = 0; run < FMA_PROBE_RUNS; run++) {
#pragma omp parallel num_threads(threads)
        {
            int me = omp_get_thread_num();
            if (me == 0)
                team = omp_get_num_threads();
#pragma omp barrier
            seconds[me] = time_loop(width, iterations);
        }
        /* OpenMP may give fewer threads than asked; only those ran */
        double slowest = 0.0;
        for (int t = 0; t < team; t++)
            slowest = fmax(slowest, seconds[t]);
        double total = (double)team * flops_per_thread / slowest * 1e-9;
        if (total > best)
            best = total;
    }
    return best;
}
