/*
 * write_probe_avx2.c - the 256-bit streaming-store loop of the write
 * bandwidth probe (write_probe.h): two aligned non-temporal stores per
 * 64-byte line.
 */
#include <immintrin.h>

#include "write_probe.h"

void write_probe_stream_avx2(float *x, int64_t count, float value)
{
    const __m256 v = _mm256_set1_ps(value);
    for (int64_t i = 0; i < count; i += 16) {
        _mm256_stream_ps(x + i, v);
        _mm256_stream_ps(x + i + 8, v);
    }
    _mm_sfence();
}
