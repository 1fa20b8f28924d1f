/* bench_hamming_plain_avx2.c - the plain C Hamming loop built with this file's flags (-mpopcnt among them). */
#include "bench_hamming_plain.h"

void bench_hamming_plain_popcnt(int64_t na, const uint64_t *a, int64_t nb, const uint64_t *b, int64_t words,
                                uint32_t *dist, int threads)
{
    bench_hamming_plain_loop(na, a, nb, b, words, dist, threads);
}
