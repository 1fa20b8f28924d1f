/*
 * sgemm_pack.c - portable packing of A and B into SGEMM micro-panels.
 *
 * Each routine picks its loop order from the strides so that the reads run
 * along the source's contiguous direction when it has one.
 */
#include "sgemm_pack.h"

void sgemm_pack_a_panel(int mr, int64_t rows, int64_t kc, sgemm_view a, float *restrict Ap)
{
    if (a.cs == 1) {
        /* rows of a are contiguous: read a row, scatter it with stride mr */
        for (int64_t i = 0; i < rows; i++) {
            const float *src = a.p + i * a.rs;
            for (int64_t p = 0; p < kc; p++)
                Ap[p * mr + i] = src[p];
        }
    } else {
        for (int64_t p = 0; p < kc; p++) {
            const float *src = a.p + p * a.cs;
            float *dst = Ap + p * mr;
            for (int64_t i = 0; i < rows; i++)
                dst[i] = src[i * a.rs];
        }
    }
    if (rows < mr) {
        for (int64_t p = 0; p < kc; p++)
            for (int64_t i = rows; i < mr; i++)
                Ap[p * mr + i] = 0.0f;
    }
}

void sgemm_pack_b_panel(int nr, int64_t cols, int64_t kc, sgemm_view b, float *restrict Bp)
{
    if (b.cs == 1 || b.rs != 1) {
        /* row by row: contiguous reads when b.cs == 1 */
        for (int64_t p = 0; p < kc; p++) {
            const float *src = b.p + p * b.rs;
            float *dst = Bp + p * nr;
            for (int64_t j = 0; j < cols; j++)
                dst[j] = src[j * b.cs];
            for (int64_t j = cols; j < nr; j++)
                dst[j] = 0.0f;
        }
    } else {
        /* columns of b are contiguous: read a column, scatter it with stride nr */
        for (int64_t j = 0; j < cols; j++) {
            const float *src = b.p + j * b.cs;
            for (int64_t p = 0; p < kc; p++)
                Bp[p * nr + j] = src[p];
        }
        if (cols < nr) {
            for (int64_t p = 0; p < kc; p++)
                for (int64_t j = cols; j < nr; j++)
                    Bp[p * nr + j] = 0.0f;
        }
    }
}

void sgemm_pack_a_block(int mr, int64_t mc, int64_t kc, sgemm_view a, float *restrict Ap)
{
    for (int64_t i0 = 0; i0 < mc; i0 += mr) {
        const int64_t rows = mc - i0 < mr ? mc - i0 : mr;
        sgemm_view panel = { a.p + i0 * a.rs, a.rs, a.cs };
        sgemm_pack_a_panel(mr, rows, kc, panel, Ap + i0 * kc);
    }
}
