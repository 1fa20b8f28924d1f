/*
 * throughput_probe.h - the timing harness shared by the peak probes
 * (fma_probe.h, popcount_probe.h): run a throughput loop on one or several
 * threads at once and turn the slowest thread's time into a rate.
 *
 * A probe loop does `iterations` rounds of a fixed amount of work (units,
 * e.g. flops or 64-bit words) and returns a value that depends on all of it,
 * so the compiler cannot drop any.
 */
#ifndef SKETCHMM_BENCH_THROUGHPUT_PROBE_H
#define SKETCHMM_BENCH_THROUGHPUT_PROBE_H

#include <stdint.h>

typedef double (*throughput_probe_loop)(int64_t iterations);

/* Best of THROUGHPUT_PROBE_RUNS runs of about THROUGHPUT_PROBE_RUN_MILLISECONDS each. */
#define THROUGHPUT_PROBE_RUNS 8
#define THROUGHPUT_PROBE_RUN_MILLISECONDS 30

/*
 * Units per second of `threads` threads each running `loop` at the same time
 * (OpenMP, all starting after a barrier): their total units over the slowest
 * thread's time, which is the sum of their rates when each has a core and
 * does not count the same core time twice when they share one. The best of
 * THROUGHPUT_PROBE_RUNS runs. *iterations is the per-run iteration count:
 * when it is 0 it is first calibrated on one thread (to about
 * THROUGHPUT_PROBE_RUN_MILLISECONDS) and stored there, so a caller keeps one
 * per loop. 0 for threads < 1 or more than the harness handles.
 */
double throughput_probe_rate(throughput_probe_loop loop, double units_per_iteration, int threads, int64_t *iterations);

#endif /* SKETCHMM_BENCH_THROUGHPUT_PROBE_H */
