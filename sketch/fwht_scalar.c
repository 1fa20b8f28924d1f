/* fwht_scalar.c - portable reference FWHT (see hd_rotation.h for the stage order). */
#include <string.h>

#include "sketch/hd_rotation.h"

void fwht_scalar(float *v, int64_t D)
{
    for (int64_t h = 1; h < D; h *= 2) {
        for (int64_t i = 0; i < D; i += 2 * h) {
            for (int64_t j = i; j < i + h; j++) {
                const float a = v[j], b = v[j + h];
                v[j] = a + b;
                v[j + h] = a - b;
            }
        }
    }
}

void fwht_flip_scalar(float *v, const uint32_t *flip, int64_t D)
{
    if (flip) {
        for (int64_t i = 0; i < D; i++) {
            uint32_t u;
            memcpy(&u, &v[i], sizeof u);
            u ^= flip[i];
            memcpy(&v[i], &u, sizeof u);
        }
    }
    fwht_scalar(v, D);
}

void sign_pack_scalar(const float *y, int64_t count, uint64_t *words)
{
    for (int64_t w0 = 0; w0 < count; w0 += 64) {
        const int64_t len = count - w0 < 64 ? count - w0 : 64;
        uint64_t word = 0, bit = 1;
        for (int64_t i = 0; i < len; i++, bit <<= 1) {
            int32_t u;
            memcpy(&u, &y[w0 + i], sizeof u);
            if (u > 0) /* sign bit clear and not +0: y > 0 */
                word |= bit;
        }
        words[w0 / 64] = word;
    }
}
