/*
 * sgemm_sup.c - the small-product path (portable part): tiles the product
 * into MR x NR blocks and hands each to the target's unpacked kernel.
 */
#include "sgemm_driver.h"
#include "sgemm_sup.h"
#include "common/smm_runtime.h"

int sgemm_sup_applies(const sgemm_target *t, int64_t m, int64_t n, int64_t k)
{
    return t->sup != NULL && (double)m * (double)n * (double)k <= t->sup_max_macs;
}

/*
 * Tile number `tile` (row-major over col_tiles tile columns) of the product, over k in the packed
 * path's blocks of t->kc with its update (beta, then 1 for every later block): an entry gets the same
 * bits on both paths, so it does not depend on the shape of the product it is part of.
 */
static void sup_tile(const sgemm_target *t, int64_t tile, int64_t col_tiles, int64_t m, int64_t n,
                     int64_t k, float alpha, sgemm_view A, const float *b, int64_t rsb, float beta,
                     float *C, int64_t ldc)
{
    const int64_t i0 = tile / col_tiles * t->sup_mr, j0 = tile % col_tiles * t->sup_nr;
    const int64_t rows = m - i0 < t->sup_mr ? m - i0 : t->sup_mr;
    const int64_t cols = n - j0 < t->sup_nr ? n - j0 : t->sup_nr;
    for (int64_t pc = 0; pc < k; pc += t->kc)
        t->sup(rows, cols, k - pc < t->kc ? k - pc : t->kc, alpha, A.p + i0 * A.rs + pc * A.cs, A.rs, A.cs,
               b + pc * rsb + j0, rsb, pc == 0 ? beta : 1.0f, C + i0 * ldc + j0, ldc);
}

smm_status sgemm_sup_run(const sgemm_target *t, int threads, int64_t m, int64_t n, int64_t k,
                         float alpha, sgemm_view A, sgemm_view B, float beta, float *C,
                         int64_t ldc)
{
    const float *b = B.p;
    int64_t rsb = B.rs;
    float *copy = NULL;
    if (B.cs != 1) {
        copy = smm_aligned_alloc((size_t)k * (size_t)n * sizeof(float));
        if (copy == NULL)
            return SMM_ERR_NO_MEMORY;
        for (int64_t j = 0; j < n; j++)
            for (int64_t p = 0; p < k; p++)
                copy[p * n + j] = B.p[p * B.rs + j * B.cs];
        b = copy;
        rsb = n;
    }
    if (sgemm_sup_generated(t, threads, m, n, k, alpha, A, b, rsb, beta, C, ldc)) {
        smm_aligned_free(copy);
        return SMM_OK;
    }

    const int mr = t->sup_mr, nr = t->sup_nr;
    const int64_t row_tiles = (m + mr - 1) / mr, col_tiles = (n + nr - 1) / nr;
    const int64_t tiles = row_tiles * col_tiles;
    const int64_t nt = sgemm_team_size(t, threads, m, n, k);

    /* row-major tile order: consecutive tiles of a thread share their A rows */
    if (nt == 1) {
        for (int64_t tile = 0; tile < tiles; tile++)
            sup_tile(t, tile, col_tiles, m, n, k, alpha, A, b, rsb, beta, C, ldc);
    } else {
#pragma omp parallel for schedule(static) num_threads((int)nt)
        for (int64_t tile = 0; tile < tiles; tile++)
            sup_tile(t, tile, col_tiles, m, n, k, alpha, A, b, rsb, beta, C, ldc);
    }

    smm_aligned_free(copy);
    return SMM_OK;
}
