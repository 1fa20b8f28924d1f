/*
 * bench_timing.h - clocks and repetition statistics for sketchmm_bench: a
 * monotonic wall clock, the x86 time-stamp counter (TSC) and an estimate of
 * its frequency, the median, and a measure-a-function helper (warm-up, then
 * the median of timed repetitions).
 */
#ifndef SKETCHMM_BENCH_TIMING_H
#define SKETCHMM_BENCH_TIMING_H

#include <stdint.h>

/* Seconds from a monotonic clock (an arbitrary origin). */
double bench_now_seconds(void);

/* 1 when bench_cycle_counter() counts cycles (x86 TSC), else 0. */
int bench_cycles_available(void);

/* The TSC now; 0 where bench_cycles_available() is 0. */
uint64_t bench_cycle_counter(void);

/*
 * TSC ticks per second in GHz, measured once against the monotonic clock and
 * cached (takes ~60 ms on the first call); 0 where no TSC is available.
 * The TSC ticks at the nominal frequency, not the current core clock, so
 * "flops per cycle" below means per nominal (TSC) cycle.
 */
double bench_tsc_ghz(void);

/* Median of v[0..count) (sorts v in place); NaN for count == 0. */
double bench_median(double *v, int count);

/*
 * Quantile q (0 <= q <= 1) of v[0..count), interpolating linearly between
 * order statistics (q = 0.5 is the median); sorts v in place; NaN for
 * count == 0.
 */
double bench_quantile(double *v, int count, double q);

/* Medians of one measurement. */
typedef struct {
    double seconds; /* median wall time of one run */
    double cycles;  /* median TSC ticks of one run (0 when unavailable) */
} bench_sample;

typedef void (*bench_action)(void *context);

/*
 * Run `run` untimed at least `warmups` times and for at least
 * BENCH_WARMUP_SECONDS (wide vector units and clocks take tens of
 * microseconds to ramp up, so a single call of a microsecond kernel is not
 * enough), then reps times timed, and return the medians. `reset` (may be
 * NULL) runs before every run, untimed: it restores the output a run
 * accumulates into.
 */
#define BENCH_WARMUP_SECONDS 0.02
bench_sample bench_measure(bench_action run, bench_action reset, void *context, int warmups, int reps);

/* A contender's loop: `calls` calls of contender `who` on the problem in context. */
typedef void (*bench_loop)(const void *context, int who, int64_t calls);

/* Wall seconds of one run of loop(context, who, calls). */
double bench_time_loop(bench_loop loop, const void *context, int who, int64_t calls);

/*
 * Calls per timed sample: the count grows until the faster of two timed loops
 * lasts min_seconds (the faster: a preempted loop would stop the growth too
 * early). Warms the contender up on the way.
 */
int64_t bench_calibrate_loop(bench_loop loop, const void *context, int who, double min_seconds);

#endif /* SKETCHMM_BENCH_TIMING_H */
