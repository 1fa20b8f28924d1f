/*
 * bench_timing.c - monotonic clock, TSC and its frequency, median, and
 * warm-up-then-median measurement (see bench_timing.h).
 */
#include "bench_timing.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define BENCH_HAVE_TSC 1
#else
#define BENCH_HAVE_TSC 0
#endif

double bench_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int bench_cycles_available(void)
{
    return BENCH_HAVE_TSC;
}

uint64_t bench_cycle_counter(void)
{
#if BENCH_HAVE_TSC
    return (uint64_t)__rdtsc();
#else
    return 0;
#endif
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_quantile(double *v, int count, double q)
{
    if (count <= 0)
        return NAN;
    qsort(v, (size_t)count, sizeof *v, compare_doubles);
    const double position = q * (double)(count - 1);
    const int below = (int)floor(position);
    if (below >= count - 1)
        return v[count - 1];
    const double weight = position - (double)below;
    return weight == 0.0 ? v[below] : v[below] + weight * (v[below + 1] - v[below]);
}

double bench_median(double *v, int count)
{
    return bench_quantile(v, count, 0.5);
}

/* TSC ticks over one ~20 ms sleep, divided by the monotonic time it took. */
static double tsc_ghz_once(void)
{
    const struct timespec nap = { 0, 20 * 1000 * 1000 };
    double t0 = bench_now_seconds();
    uint64_t c0 = bench_cycle_counter();
    nanosleep(&nap, NULL);
    uint64_t c1 = bench_cycle_counter();
    double t1 = bench_now_seconds();
    return (double)(c1 - c0) / (t1 - t0) * 1e-9;
}

double bench_tsc_ghz(void)
{
    static double cached = -1.0;
    if (cached >= 0.0)
        return cached;
    if (!BENCH_HAVE_TSC) {
        cached = 0.0;
        return cached;
    }
    double estimates[3];
    for (int i = 0; i < 3; i++)
        estimates[i] = tsc_ghz_once();
    cached = bench_median(estimates, 3);
    return cached;
}

bench_sample bench_measure(bench_action run, bench_action reset, void *context, int warmups, int reps)
{
    const double warmup_start = bench_now_seconds();
    for (int i = 0; i < warmups || bench_now_seconds() - warmup_start < BENCH_WARMUP_SECONDS; i++) {
        if (reset != NULL)
            reset(context);
        run(context);
    }
    bench_sample result = { NAN, 0.0 };
    if (reps <= 0)
        return result;
    double *seconds = malloc((size_t)reps * sizeof *seconds);
    double *cycles = malloc((size_t)reps * sizeof *cycles);
    if (seconds == NULL || cycles == NULL) {
        free(seconds);
        free(cycles);
        return result;
    }
    for (int i = 0; i < reps; i++) {
        if (reset != NULL)
            reset(context);
        double t0 = bench_now_seconds();
        uint64_t c0 = bench_cycle_counter();
        run(context);
        uint64_t c1 = bench_cycle_counter();
        double t1 = bench_now_seconds();
        seconds[i] = t1 - t0;
        cycles[i] = (double)(c1 - c0);
    }
    result.seconds = bench_median(seconds, reps);
    result.cycles = bench_median(cycles, reps);
    free(seconds);
    free(cycles);
    return result;
}

double bench_time_loop(bench_loop loop, const void *context, int who, int64_t calls)
{
    const double t0 = bench_now_seconds();
    loop(context, who, calls);
    return bench_now_seconds() - t0;
}

int64_t bench_calibrate_loop(bench_loop loop, const void *context, int who, double min_seconds)
{
    int64_t calls = 1;
    for (;;) {
        const double a = bench_time_loop(loop, context, who, calls), b = bench_time_loop(loop, context, who, calls);
        const double elapsed = a < b ? a : b;
        if (elapsed >= min_seconds)
            return calls;
        double grow = elapsed > 0.0 ? 1.25 * min_seconds / elapsed : 16.0;
        grow = grow < 2.0 ? 2.0 : grow > 16.0 ? 16.0 : grow;
        calls = (int64_t)ceil((double)calls * grow);
    }
}
