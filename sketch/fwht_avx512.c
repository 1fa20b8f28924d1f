/* fwht_avx512.c - AVX-512 FWHT (see hd_rotation.h): stages h >= 16 sixteen butterflies at a time. */
#include <immintrin.h>

#include "sketch/hd_rotation.h"

void fwht_avx512(float *v, int64_t D)
{
    if (D < 32) {
        fwht_scalar(v, D);
        return;
    }
    for (int64_t h = 1; h < 16; h *= 2)
        for (int64_t i = 0; i < D; i += 2 * h)
            for (int64_t j = i; j < i + h; j++) {
                const float a = v[j], b = v[j + h];
                v[j] = a + b;
                v[j + h] = a - b;
            }
    for (int64_t h = 16; h < D; h *= 2)
        for (int64_t i = 0; i < D; i += 2 * h)
            for (int64_t j = i; j < i + h; j += 16) {
                const __m512 a = _mm512_loadu_ps(v + j), b = _mm512_loadu_ps(v + j + h);
                _mm512_storeu_ps(v + j, _mm512_add_ps(a, b));
                _mm512_storeu_ps(v + j + h, _mm512_sub_ps(a, b));
            }
}
