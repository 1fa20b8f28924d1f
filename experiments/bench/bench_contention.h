/*
 * bench_contention.h - how much of the machine other processes used while a
 * measurement ran: the CPU time all CPUs spent busy (/proc/stat, including
 * time a hypervisor stole), minus this process's own (/proc/self/stat), over
 * the capacity of all CPUs for the same wall time. On a shared machine a
 * timing taken while others were busy is suspect; this says which ones.
 * Linux only; elsewhere the share is unknown (NaN). Resolution: the kernel
 * counts in clock ticks (usually 10 ms), so short intervals are rough.
 */
#ifndef SKETCHMM_BENCH_CONTENTION_H
#define SKETCHMM_BENCH_CONTENTION_H

#include <stdint.h>

typedef struct {
    double seconds;         /* monotonic clock */
    int64_t machine_busy;   /* ticks all CPUs spent busy; -1 when unknown */
    int64_t self;           /* ticks this process's threads ran; -1 when unknown */
} bench_contention_mark;

/* Record the counters now. */
bench_contention_mark bench_contention_now(void);

/*
 * Fraction of all CPUs' capacity (0 to 1) that other processes (and the
 * hypervisor) used between two marks; NaN when unknown or the interval is
 * empty.
 */
double bench_contention_others(bench_contention_mark from, bench_contention_mark to);

#endif /* SKETCHMM_BENCH_CONTENTION_H */
