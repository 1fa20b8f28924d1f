/*
 * sgemm_pack.c - packing A and B micro-panels (portable part).
 *
 * Lines that run along k (rows of a row-major A, columns of a transposed B)
 * are handed to the target's pack_lines transpose (sgemm_pack_scalar.c or a
 * SIMD sgemm_pack_*.c); a strip whose elements are contiguous across the
 * panel width is a row-by-row copy, the target's pack_rows; anything else is
 * a general strided gather, here.
 */
#include "sgemm_pack.h"

/*
 * ceil(count / w) consecutive w-wide micro-panels of a strip: panel r holds
 * lines r*w .. r*w+w-1 as dst[r * w * kc + p * w + i] := src[(r*w + i) * is
 * + p * ps], zero past line count. Lines are is apart, steps along k ps apart.
 * The copying cases go a group of panels (about SGEMM_PACK_GROUP_FLOATS lines) at a
 * time, k-step by k-step across the group: each source row is then read in
 * runs of about 1 KiB and each group writes a few sequential streams. Both
 * extremes measured slower here (kc = 256, 4096 columns of row-major B):
 * one panel at a time (128-byte runs, 2.7 GB/s) and every panel at once (a
 * write stream per panel, all 32 KiB apart: 2.6 GB/s), against 4.5-5.5 GB/s
 * for groups of 256 to 512 lines.
 */
static void pack_panels(const sgemm_target *t, int w, int64_t count, int64_t kc,
                        const float *src, int64_t is, int64_t ps, float *restrict dst)
{
    const int64_t panel_floats = (int64_t)w * kc;
    if (ps == 1 && is != 1) {
        for (int64_t r0 = 0; r0 < count; r0 += w) {
            const int64_t lines = count - r0 < w ? count - r0 : w;
            t->pack_lines(w, lines, kc, src + r0 * is, is, dst + (r0 / w) * panel_floats);
        }
        return;
    }
    const int64_t group = (int64_t)w * ((SGEMM_PACK_GROUP_FLOATS + w - 1) / w);
    if (is == 1) { /* each step's lines are contiguous: the target's copying packer, a group at a time */
        for (int64_t g0 = 0; g0 < count; g0 += group) {
            const int64_t lines = count - g0 < group ? count - g0 : group;
            t->pack_rows(w, lines, kc, src + g0, ps, dst + (g0 / w) * panel_floats, panel_floats);
        }
        return;
    }
    for (int64_t g0 = 0; g0 < count; g0 += group) {
        const int64_t g1 = count - g0 < group ? count : g0 + group;
        for (int64_t p = 0; p < kc; p++) {
            const float *row = src + p * ps;
            for (int64_t r0 = g0; r0 < g1; r0 += w) {
                const int64_t lines = g1 - r0 < w ? g1 - r0 : w;
                float *out = dst + (r0 / w) * panel_floats + p * w;
                for (int64_t i = 0; i < lines; i++)
                    out[i] = row[(r0 + i) * is];
                for (int64_t i = lines; i < w; i++)
                    out[i] = 0.0f;
            }
        }
    }
}

void sgemm_pack_a_block(const sgemm_target *t, int64_t mc, int64_t kc, sgemm_view a,
                        float *restrict Ap)
{
    pack_panels(t, t->mr, mc, kc, a.p, a.rs, a.cs, Ap);
}

void sgemm_pack_b_block(const sgemm_target *t, int64_t nc, int64_t kc, sgemm_view b,
                        float *restrict Bp)
{
    pack_panels(t, t->nr, nc, kc, b.p, b.cs, b.rs, Bp);
}
