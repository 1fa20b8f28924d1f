/*
 * sgemm_pack_scalar.c - the portable C packers (sgemm_pack_lines_fn, the
 * transposing one, and sgemm_pack_rows_fn, the copying one; sgemm_target.h),
 * an element at a time: the packers of the targets without SIMD ones and
 * the twins the SIMD packers (sgemm_pack_avx2.c, sgemm_pack_avx512.c) are
 * tested against.
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

void sgemm_pack_rows_scalar(int w, int64_t count, int64_t kc, const float *src, int64_t ps, float *restrict dst,
                            int64_t panel)
{
    for (int64_t p = 0; p < kc; p++) {
        const float *row = src + p * ps;
        for (int64_t r0 = 0; r0 < count; r0 += w) {
            const int64_t lines = count - r0 < w ? count - r0 : w;
            float *out = dst + (r0 / w) * panel + p * w;
            for (int64_t i = 0; i < lines; i++)
                out[i] = row[r0 + i];
            for (int64_t i = lines; i < w; i++)
                out[i] = 0.0f;
        }
    }
}
