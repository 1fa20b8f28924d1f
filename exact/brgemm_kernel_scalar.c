/*
 * brgemm_kernel_scalar.c - the portable C BRGEMM tile kernels (contract in
 * brgemm_kernels.h): blocks of up to 8 rows by 1..4 columns, accumulated with
 * separate multiplies and adds (the library is built with
 * -ffp-contract=off), then c := alpha * acc (beta == 0) or
 * beta * c + alpha * acc. The row loops are written so a compiler may
 * vectorise them for the baseline CPU without changing any rounding.
 */
#include <stddef.h>

#include "brgemm_kernels.h"
#include "brgemm_tile_table.h"

#define ROWS_MAX (2 * BRGEMM_SCALAR_VL)
#define NB_MAX BRGEMM_SCALAR_NB_MAX_1

static inline __attribute__((always_inline)) void
tile(const int kind, const int mv, const int nb, const brgemm_args *g, int rows, const brgemm_batch *bt, float *C)
{
    (void)mv; /* the row count is a run-time bound here */
    float acc[NB_MAX][ROWS_MAX] = { { 0.0f } };
    const int64_t k = g->k, lda = g->lda, ldb = g->ldb;
    for (int64_t i = 0; i < bt->batch; i++) {
        const float *a = kind == BRGEMM_KIND_POINTERS ? bt->ap[i] + bt->a_off : bt->a + i * g->stride_a;
        const float *b = kind == BRGEMM_KIND_POINTERS ? bt->bp[i] + bt->b_off : bt->b + i * g->stride_b;
        for (int64_t p = 0; p < k; p++) {
            const float *ap = a + p * lda; /* by index: no pointer is formed past the last column */
            for (int j = 0; j < nb; j++) {
                const float bj = b[p + j * ldb];
                for (int r = 0; r < rows; r++)
                    acc[j][r] += ap[r] * bj;
            }
        }
    }
    const float alpha = g->alpha, beta = g->beta;
    for (int j = 0; j < nb; j++) {
        float *c = C + j * g->ldc;
        if (beta == 0.0f)
            for (int r = 0; r < rows; r++)
                c[r] = alpha * acc[j][r];
        else
            for (int r = 0; r < rows; r++)
                c[r] = beta * c[r] + alpha * acc[j][r];
    }
}

BRGEMM_TILES_4(0, 1) BRGEMM_TILES_4(1, 1)

static const brgemm_tile_fn tiles[2][NB_MAX] = { { BRGEMM_ROW_4(0, 1) }, { BRGEMM_ROW_4(1, 1) } };

/* The row count is a run-time bound here, so every vector count shares one instance. */
brgemm_tile_fn brgemm_tile_scalar(int kind, int mv, int nb)
{
    (void)mv;
    return tiles[kind][nb - 1];
}
