/*
 * fma_probe.h - peak single-precision FMA throughput of this CPU, measured:
 * a long loop of independent 256-bit or 512-bit fused multiply-adds, best of
 * several runs, on one thread or on several threads at once.
 *
 * The loops live in fma_probe_avx2.c and fma_probe_avx512.c (x86_64 builds
 * only); fma_probe.c checks at run time that the CPU has the instructions.
 */
#ifndef SKETCHMM_BENCH_FMA_PROBE_H
#define SKETCHMM_BENCH_FMA_PROBE_H

#include <stdint.h>

typedef enum { FMA_PROBE_256 = 0, FMA_PROBE_512 = 1 } fma_probe_width;

/* "256-bit FMA" or "512-bit FMA". */
const char *fma_probe_width_name(fma_probe_width width);

/*
 * 1 when this build has the loop for `width` and the CPU can run it; else 0
 * and *why (when why is not NULL) says what is missing.
 */
int fma_probe_available(fma_probe_width width, const char **why);

/*
 * Peak GFLOPS (an FMA counts 2 flops) of `threads` threads each running the
 * loop at the same time: their total flops over the slowest thread's time
 * (= the sum of their rates when each has a core), best of several short
 * runs (throughput_probe.h). 0 when the probe is not available.
 */
double fma_probe_gflops(fma_probe_width width, int threads);

/*
 * The loops (fma_probe_avx2.c / fma_probe_avx512.c). Each iteration does
 * one FMA on each of FMA_PROBE_AVX2_CHAINS (FMA_PROBE_AVX512_CHAINS)
 * independent accumulators; the return value depends on all of them, so the
 * compiler cannot drop any. 12 chains fit in the 16 ymm registers with the
 * two constants; the 32 zmm registers hold 16. Either is more than the 8
 * FMAs in flight that two FMA units of 4-cycle latency need. The caller must
 * have checked that the CPU has the instructions.
 */
#define FMA_PROBE_AVX2_CHAINS 12
#define FMA_PROBE_AVX512_CHAINS 16
float fma_probe_loop_avx2(int64_t iterations, float multiplier, float addend);
float fma_probe_loop_avx512(int64_t iterations, float multiplier, float addend);

#endif /* SKETCHMM_BENCH_FMA_PROBE_H */
