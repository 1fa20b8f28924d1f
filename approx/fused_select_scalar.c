/*
 * fused_select_scalar.c - the fused candidate-pass kernel in plain C
 * (fused_select.h): the twin the SIMD kernels are tested against, and the
 * kernel of the scalar path. Scores of a row are summed FUSED_SCALAR_GROUP
 * columns at a time, each from 0 over p in increasing order with a separate
 * multiply and add (the arithmetic of exact_sgemm's scalar kernel), and a
 * group's scores above the row's threshold are taken into its selection
 * (top_select_take).
 * Any number of rows.
 */
#include "approx/fused_select.h"

#define FUSED_SCALAR_GROUP 16

void fused_select_scalar(int64_t rows, int64_t cols, int64_t s, const float *A, int64_t lda, const float *B,
                         int64_t ldb, int64_t j0, top_select *sel)
{
    float score[FUSED_SCALAR_GROUP];
    for (int64_t c0 = 0; c0 < cols; c0 += FUSED_SCALAR_GROUP) {
        const int64_t width = cols - c0 < FUSED_SCALAR_GROUP ? cols - c0 : FUSED_SCALAR_GROUP;
        for (int64_t r = 0; r < rows; r++) {
            const float *a = A + r * lda;
            for (int64_t u = 0; u < width; u++)
                score[u] = 0.0f;
            for (int64_t p = 0; p < s; p++) {
                const float *b = B + p * ldb + c0;
                for (int64_t u = 0; u < width; u++)
                    score[u] += a[p] * b[u];
            }
            const float threshold = sel[r].threshold;
            uint32_t above = 0; /* bit u: score u above the threshold */
            for (int64_t u = 0; u < width; u++)
                above |= (uint32_t)(score[u] > threshold) << u;
            if (above)
                top_select_take(&sel[r], score, above, j0 + c0);
        }
    }
}
