/*
 * write_probe_avx512.c - the 512-bit streaming-store loop of the write
 * bandwidth probe (write_probe.h): one aligned non-temporal store per
 * 64-byte line.
 */
#include <immintrin.h>

#include "write_probe.h"

void write_probe_stream_avx512(float *x, int64_t count, float value)
{
    const __m512 v = _mm512_set1_ps(value);
    for (int64_t i = 0; i < count; i += 16)
        _mm512_stream_ps(x + i, v);
    _mm_sfence();
}
