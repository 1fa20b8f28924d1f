/* fwht_scalar.c - portable reference FWHT (see hd_rotation.h for the stage order). */
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
