/*
 * sgemm_pack_scalar.c - the portable C transposing packer
 * (sgemm_pack_lines_fn, sgemm_target.h), an element at a time: the packer of
 * the targets without a SIMD one and the twin the SIMD packers
 * (sgemm_pack_avx2.c, sgemm_pack_avx512.c) are tested against.
 */
#include "sgemm_target.h"

void sgemm_pack_lines_scalar(int w, int64_t lines, int64_t kc, const float *src, int64_t ls,
                             float *restrict dst)
{
    for (int64_t i = 0; i < lines; i++) {
        const float *line = src + i * ls;
        for (int64_t p = 0; p < kc; p++)
            dst[p * w + i] = line[p];
    }
    for (int64_t p = 0; p < kc; p++)
        for (int64_t i = lines; i < w; i++)
            dst[p * w + i] = 0.0f;
}
