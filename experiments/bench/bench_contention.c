/*
 * bench_contention.c - CPU time other processes used during a measurement,
 * from /proc/stat and /proc/self/stat (see bench_contention.h).
 */
#include "bench_contention.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench_timing.h"

/* Busy ticks of all CPUs: the "cpu" line of /proc/stat less idle and iowait. */
static int64_t machine_busy_ticks(void)
{
    FILE *f = fopen("/proc/stat", "r");
    if (f == NULL)
        return -1;
    long long user, nice, system, idle, iowait, irq, softirq, steal;
    int fields = fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &user, &nice, &system, &idle, &iowait,
                        &irq, &softirq, &steal);
    fclose(f);
    if (fields != 8)
        return -1;
    return (int64_t)(user + nice + system + irq + softirq + steal);
}

/* utime + stime of this process (all its threads), fields 14 and 15 of /proc/self/stat. */
static int64_t self_ticks(void)
{
    FILE *f = fopen("/proc/self/stat", "r");
    if (f == NULL)
        return -1;
    char line[1024];
    char *got = fgets(line, sizeof line, f);
    fclose(f);
    if (got == NULL)
        return -1;
    /* the command name (field 2) may hold spaces: start after its closing parenthesis */
    const char *p = strrchr(line, ')');
    long long utime, stime;
    if (p == NULL || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lld %lld", &utime, &stime) != 2)
        return -1;
    return (int64_t)(utime + stime);
}

bench_contention_mark bench_contention_now(void)
{
    bench_contention_mark m;
    m.machine_busy = machine_busy_ticks();
    m.self = self_ticks();
    m.seconds = bench_now_seconds();
    return m;
}

double bench_contention_others(bench_contention_mark from, bench_contention_mark to)
{
    const long ticks_per_second = sysconf(_SC_CLK_TCK);
    const double elapsed = to.seconds - from.seconds;
    if (from.machine_busy < 0 || to.machine_busy < 0 || from.self < 0 || to.self < 0 || ticks_per_second <= 0 ||
        elapsed <= 0.0)
        return NAN;
    const double capacity = elapsed * (double)ticks_per_second * (double)omp_get_num_procs();
    const double others = (double)((to.machine_busy - from.machine_busy) - (to.self - from.self));
    return fmin(1.0, fmax(0.0, others / capacity));
}
