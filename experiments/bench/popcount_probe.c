/*
 * popcount_probe.c - run the xor + popcount + add loop through the shared
 * probe harness (throughput_probe.h); see popcount_probe.h.
 */
#include "popcount_probe.h"

#include <stddef.h>

#include "throughput_probe.h"

/* volatile: the compiler cannot treat the query as known */
static volatile uint64_t probe_query = UINT64_C(0x9E3779B97F4A7C15);

int popcount_probe_available(const char **why)
{
    const char *missing = NULL;
#ifndef SKETCHMM_BENCH_X86_KERNELS
    missing = "no popcount probe for this architecture (x86_64 only)";
#else
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512vpopcntdq"))
        missing = "this CPU lacks AVX512_VPOPCNTDQ";
#endif
    if (why != NULL)
        *why = missing;
    return missing == NULL;
}

#ifdef SKETCHMM_BENCH_X86_KERNELS
static double loop_512(int64_t iterations)
{
    return popcount_probe_loop_avx512(iterations, probe_query);
}
#endif

double popcount_probe_gwords(int threads)
{
    if (!popcount_probe_available(NULL))
        return 0.0;
#ifdef SKETCHMM_BENCH_X86_KERNELS
    static int64_t calibrated;
    return 1e-9 * throughput_probe_rate(loop_512, POPCOUNT_PROBE_WORDS_PER_ITERATION, threads, &calibrated);
#else
    (void)threads;
    return 0.0;
#endif
}
