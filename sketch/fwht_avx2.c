/* fwht_avx2.c - AVX2 FWHT (see hd_rotation.h): stages h >= 8 eight butterflies at a time. */
#include <immintrin.h>

#include "sketch/hd_rotation.h"

void fwht_avx2(float *v, int64_t D)
{
    if (D < 16) {
        fwht_scalar(v, D);
        return;
    }
    for (int64_t h = 1; h < 8; h *= 2)
        for (int64_t i = 0; i < D; i += 2 * h)
            for (int64_t j = i; j < i + h; j++) {
                const float a = v[j], b = v[j + h];
                v[j] = a + b;
                v[j + h] = a - b;
            }
    for (int64_t h = 8; h < D; h *= 2)
        for (int64_t i = 0; i < D; i += 2 * h)
            for (int64_t j = i; j < i + h; j += 8) {
                const __m256 a = _mm256_loadu_ps(v + j), b = _mm256_loadu_ps(v + j + h);
                _mm256_storeu_ps(v + j, _mm256_add_ps(a, b));
                _mm256_storeu_ps(v + j + h, _mm256_sub_ps(a, b));
            }
}
