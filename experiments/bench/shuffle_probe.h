/*
 * shuffle_probe.h - the ceiling of 4-bit table lookups on this CPU, the
 * inner operation of PQ fast-scan kernels: VPSHUFB looks up 16-entry byte
 * tables, one lookup per byte lane (64 per 512-bit instruction, 32 per
 * 256-bit one). A long loop of VPSHUFB + byte add on registers only (no
 * loads, no stores), best of several runs, on one thread or several at once
 * (throughput_probe.h): no lookup-table scan kernel can pass it.
 *
 * The loops live in shuffle_probe_avx512.c (VPSHUFB on zmm needs AVX512BW)
 * and shuffle_probe_avx2.c (x86_64 builds only); shuffle_probe.c checks the
 * CPU at run time.
 */
#ifndef SKETCHMM_BENCH_SHUFFLE_PROBE_H
#define SKETCHMM_BENCH_SHUFFLE_PROBE_H

#include <stdint.h>

typedef enum { SHUFFLE_PROBE_512 = 0, SHUFFLE_PROBE_256 = 1 } shuffle_probe_width;

/* "512-bit vpshufb" or "256-bit vpshufb". */
const char *shuffle_probe_width_name(shuffle_probe_width width);

/* 1 when this build has the loop and the CPU runs it; else 0 and *why (when not NULL) says what is missing. */
int shuffle_probe_available(shuffle_probe_width width, const char **why);

/* Lookups per second of `threads` threads running the loop at once, in units of 1e9; 0 when unavailable. */
double shuffle_probe_glookups(shuffle_probe_width width, int threads);

/*
 * The loops: each iteration updates SHUFFLE_PROBE_CHAINS (512-bit) or
 * SHUFFLE_PROBE_CHAINS_AVX2 (256-bit: 16 registers, and GCC spills 12
 * chains to the stack) independent accumulators as acc = acc +
 * vpshufb(table, acc) (the table a register). A chain's latency (shuffle +
 * add, 2-3 cycles) is covered by the chains, so the loop is bound by how
 * many shuffles the vector ports issue. The caller must have checked the
 * CPU (AVX512BW, AVX2).
 */
#define SHUFFLE_PROBE_CHAINS 12
#define SHUFFLE_PROBE_CHAINS_AVX2 10
double shuffle_probe_loop_avx512(int64_t iterations, uint64_t seed);
double shuffle_probe_loop_avx2(int64_t iterations, uint64_t seed);

#endif /* SKETCHMM_BENCH_SHUFFLE_PROBE_H */
