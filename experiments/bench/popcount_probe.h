/*
 * popcount_probe.h - the ceiling of Hamming-distance throughput on this CPU,
 * measured: a long loop doing, on 512-bit vectors held in registers, the
 * least work a Hamming kernel does per 64-bit code word (xor with the
 * query, VPOPCNTQ, add into a running count), best of several runs, on one
 * thread or on several at once (throughput_probe.h). No memory traffic and
 * no output: a kernel over real codes cannot beat it, so at b bits it
 * bounds pairs/s by words/s * 64 / b.
 *
 * The loop lives in popcount_probe_avx512.c (x86_64 builds only);
 * popcount_probe.c checks at run time that the CPU has AVX512_VPOPCNTDQ.
 */
#ifndef SKETCHMM_BENCH_POPCOUNT_PROBE_H
#define SKETCHMM_BENCH_POPCOUNT_PROBE_H

#include <stdint.h>

/*
 * 1 when this build has the loop and the CPU can run it; else 0 and *why
 * (when why is not NULL) says what is missing.
 */
int popcount_probe_available(const char **why);

/*
 * 64-bit words per second (xor + popcount + add each) of `threads` threads
 * running the loop at once, in units of 1e9; 0 when the probe is not
 * available.
 */
double popcount_probe_gwords(int threads);

/*
 * The loop (popcount_probe_avx512.c): each iteration updates each of
 * POPCOUNT_PROBE_CHAINS independent 8-word accumulators as
 * acc += popcount(acc ^ query). The chain's latency (about 5 cycles) is
 * covered many times over by 12 chains, so the loop is limited by how many
 * such operations the vector ports retire, not by latency. The caller must
 * have checked that the CPU has AVX512_VPOPCNTDQ.
 */
#define POPCOUNT_PROBE_CHAINS 12
#define POPCOUNT_PROBE_WORDS_PER_ITERATION (8 * POPCOUNT_PROBE_CHAINS)
double popcount_probe_loop_avx512(int64_t iterations, uint64_t query);

#endif /* SKETCHMM_BENCH_POPCOUNT_PROBE_H */
