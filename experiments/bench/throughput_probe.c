/*
 * throughput_probe.c - the timing harness of the peak probes (see
 * throughput_probe.h).
 */
#include "throughput_probe.h"

#include <math.h>
#include <omp.h>

#include "bench_timing.h"

#define RUN_SECONDS (THROUGHPUT_PROBE_RUN_MILLISECONDS * 1e-3)
#define MAX_THREADS 1024

/* results land here so the loops are not optimised away */
static volatile double probe_sink;

/* Run the loop once; returns its wall time in seconds. */
static double time_loop(throughput_probe_loop loop, int64_t iterations)
{
    double t0 = bench_now_seconds();
    double result = loop(iterations);
    double elapsed = bench_now_seconds() - t0;
    probe_sink = result;
    return elapsed;
}

/* Iterations that take about RUN_SECONDS on one thread. */
static int64_t calibrate_iterations(throughput_probe_loop loop)
{
    int64_t iterations = 1 << 16;
    for (;;) {
        double seconds = time_loop(loop, iterations);
        if (seconds >= RUN_SECONDS / 8 || iterations >= ((int64_t)1 << 40))
            return (int64_t)ceil((double)iterations * RUN_SECONDS / fmax(seconds, 1e-9));
        iterations *= 4;
    }
}

double throughput_probe_rate(throughput_probe_loop loop, double units_per_iteration, int threads, int64_t *iterations)
{
    if (threads < 1 || threads > MAX_THREADS)
        return 0.0;
    if (*iterations == 0)
        *iterations = calibrate_iterations(loop);
    const int64_t n = *iterations;
    const double units_per_thread = units_per_iteration * (double)n;

    double seconds[MAX_THREADS];
    double best = 0.0;
    int team = 1;
    for (int run = 0; run < THROUGHPUT_PROBE_RUNS; run++) {
#pragma omp parallel num_threads(threads)
        {
            int me = omp_get_thread_num();
            if (me == 0)
                team = omp_get_num_threads();
#pragma omp barrier
            seconds[me] = time_loop(loop, n);
        }
        /* OpenMP may give fewer threads than asked; only those ran */
        double slowest = 0.0;
        for (int t = 0; t < team; t++)
            slowest = fmax(slowest, seconds[t]);
        double total = (double)team * units_per_thread / slowest;
        if (total > best)
            best = total;
    }
    return best;
}
