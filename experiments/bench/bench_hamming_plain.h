/*
 * bench_hamming_plain.h - the plain C all-pairs Hamming loop the `hamming`
 * mode compares the library with: three nested loops, __builtin_popcountll,
 * uint32 output, rows split among OpenMP threads. Compiled twice: for the
 * baseline CPU in bench_hamming.c, and with the AVX2 file flags (which
 * include -mpopcnt, so the builtin is one instruction) in
 * bench_hamming_plain_avx2.c on x86_64.
 */
#ifndef SKETCHMM_BENCH_HAMMING_PLAIN_H
#define SKETCHMM_BENCH_HAMMING_PLAIN_H

#include <stdint.h>

static inline void bench_hamming_plain_loop(int64_t na, const uint64_t *a, int64_t nb, const uint64_t *b,
                                            int64_t words, uint32_t *dist, int threads)
{
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < na; i++)
        for (int64_t j = 0; j < nb; j++) {
            uint32_t c = 0;
            for (int64_t w = 0; w < words; w++)
                c += (uint32_t)__builtin_popcountll(a[i * words + w] ^ b[j * words + w]);
            dist[i * nb + j] = c;
        }
}

/* The same loop built with -mpopcnt (x86_64 only; bench_hamming_plain_avx2.c). */
void bench_hamming_plain_popcnt(int64_t na, const uint64_t *a, int64_t nb, const uint64_t *b, int64_t words,
                                uint32_t *dist, int threads);

#endif /* SKETCHMM_BENCH_HAMMING_PLAIN_H */
