/*
 * lowrank_sign_scalar.c - the sparse sign sketch's kernels in plain C
 * (lowrank_sign.h): the twin the SIMD kernels are tested against, and the
 * kernels of the scalar path.
 */
#include "approx/lowrank_sign.h"

void lowrank_sign_rows_scalar(float *part, int64_t ldp, const float *v, int64_t ldv, const int32_t *bucket,
                              const float *sign, int64_t nb, int64_t w)
{
    for (int64_t i = 0; i < nb; i++) {
        float *restrict y = part + bucket[i] * ldp;
        const float *restrict x = v + i * ldv;
        for (int64_t t = 0; t < w; t++)
            y[t] += sign[i] * x[t];
    }
}

void lowrank_sign_cols_scalar(float *part, int64_t ldp, const float *v, int64_t ldv, const int32_t *bucket,
                              const float *sign, int64_t nb, int64_t w)
{
    for (int64_t t = 0; t < w; t++) {
        const float *restrict x = v + t * ldv;
        for (int64_t i = 0; i < nb; i++)
            part[bucket[i] * ldp + t] += sign[i] * x[i];
    }
}
