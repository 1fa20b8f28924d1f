/*
 * sgemm_pack.c - packing A and B micro-panels (portable part).
 *
 * Lines that run along k (rows of a row-major A, columns of a transposed B)
 * are handed to the target's pack_lines transpose; a strip whose elements
 * are contiguous across the panel width is a row-by-row copy; anything else
 * is a general strided gather.
 */
#include <string.h>

#include "sgemm_pack.h"

void sgemm_pack_lines_portable(int w, int64_t lines, int64_t kc, const float *src, int64_t ls,
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

/*
 * dst[p * w + i] := src[i * is + p * ps] for i < count, 0 for count <= i < w:
 * the strip's elements are is apart across the width and ps apart along k.
 */
static void pack_strip(const sgemm_target *t, int w, int64_t count, int64_t kc, const float *src,
                       int64_t is, int64_t ps, float *restrict dst)
{
    if (ps == 1 && is != 1) {
        t->pack_lines(w, count, kc, src, is, dst);
        return;
    }
    for (int64_t p = 0; p < kc; p++) {
        const float *row = src + p * ps;
        float *out = dst + p * w;
        if (is == 1) {
            memcpy(out, row, (size_t)count * sizeof(float));
        } else {
            for (int64_t i = 0; i < count; i++)
                out[i] = row[i * is];
        }
        for (int64_t i = count; i < w; i++)
            out[i] = 0.0f;
    }
}

void sgemm_pack_a_panel(const sgemm_target *t, int64_t rows, int64_t kc, sgemm_view a,
                        float *restrict Ap)
{
    pack_strip(t, t->mr, rows, kc, a.p, a.rs, a.cs, Ap);
}

void sgemm_pack_b_panel(const sgemm_target *t, int64_t cols, int64_t kc, sgemm_view b,
                        float *restrict Bp)
{
    pack_strip(t, t->nr, cols, kc, b.p, b.cs, b.rs, Bp);
}

void sgemm_pack_a_block(const sgemm_target *t, int64_t mc, int64_t kc, sgemm_view a,
                        float *restrict Ap)
{
    const int mr = t->mr;
    for (int64_t i0 = 0; i0 < mc; i0 += mr) {
        const int64_t rows = mc - i0 < mr ? mc - i0 : mr;
        sgemm_view panel = { a.p + i0 * a.rs, a.rs, a.cs };
        sgemm_pack_a_panel(t, rows, kc, panel, Ap + i0 * kc);
    }
}
