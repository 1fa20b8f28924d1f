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

/*
 * The loops. SHUFFLE_PROBE_512 and SHUFFLE_PROBE_256: one byte add per
 * shuffle, the ceiling of any lookup kernel. SHUFFLE_PROBE_512_U16: the
 * exact sums of 8-bit table entries that pq_scan computes, with 16-bit
 * accumulators, need per shuffle result x two word adds and a shift
 * (acc_even += x, acc_odd += x >> 8); this loop does exactly those four
 * operations per shuffle on registers, the ceiling of a kernel that sums
 * 8-bit tables exactly in 16-bit words.
 * SHUFFLE_PROBE_512_VPERMB: the instruction pair of pq_scan's AVX-512
 * kernel, a 64-entry VPERMB lookup (4 subspaces' tables in one register)
 * then VPDPBUSD adding each dword's 4 looked-up bytes into a 32-bit sum: two
 * operations per 64 lookups, accumulation included (AVX512_VBMI and
 * AVX512_VNNI).
 */
typedef enum {
    SHUFFLE_PROBE_512 = 0,
    SHUFFLE_PROBE_256 = 1,
    SHUFFLE_PROBE_512_U16 = 2,
    SHUFFLE_PROBE_512_VPERMB = 3
} shuffle_probe_width;
#define SHUFFLE_PROBE_WIDTHS 4

/* "512-bit vpshufb", "256-bit vpshufb", "512-bit vpshufb+u16" or "512-bit vpermb+vpdpbusd". */
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
/*
 * SHUFFLE_PROBE_512_U16: SHUFFLE_PROBE_CHAINS_U16 chains, each a pair of
 * accumulators (a, b): x = vpshufb(table, a); a += x; b += x >> 8 (16-bit
 * words), 4 vector operations per 64 lookups.
 */
#define SHUFFLE_PROBE_CHAINS_U16 8
double shuffle_probe_loop_u16_avx512(int64_t iterations, uint64_t seed);
/*
 * SHUFFLE_PROBE_512_VPERMB: SHUFFLE_PROBE_CHAINS_VPERMB accumulators, each
 * updated as acc = vpdpbusd(acc, vpermb(index, table), ones), every one
 * with its own (index, table) pair out of four index registers that change
 * every iteration (as code loads would) and four tables; the loop is
 * written in assembly so the compiler can neither share lookups nor spill
 * (on Zen 4 it runs at the rate the C loop happened to reach: ~1.0 pair per
 * TSC cycle).
 */
#define SHUFFLE_PROBE_CHAINS_VPERMB 16
double shuffle_probe_loop_vpermb_avx512(int64_t iterations, uint64_t seed);
double shuffle_probe_loop_avx2(int64_t iterations, uint64_t seed);

#endif /* SKETCHMM_BENCH_SHUFFLE_PROBE_H */
