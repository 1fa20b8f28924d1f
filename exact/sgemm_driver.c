/*
 * sgemm_driver.c - the portable blocked SGEMM driver.
 *
 * Workspace: one packed B block (kc x nc rounded up to nr, shared by the
 * team) and one packed A block (mc rounded up to mr, by kc) per thread,
 * taken once per call before C is written, from the calling thread's kept
 * workspace (sgemm_workspace.h).
 */
#include <math.h>
#include <stddef.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "sgemm_driver.h"
#include "common/smm_runtime.h"
#include "exact/sgemm_workspace.h"

/* Products smaller than this many multiply-adds run on one thread. */
#define SGEMM_PARALLEL_MIN_MACS (64.0 * 64.0 * 64.0)

int64_t sgemm_team_size(const sgemm_target *t, int threads, int64_t m, int64_t n, int64_t k)
{
    const int64_t tiles = ((m + t->mr - 1) / t->mr) * ((n + t->nr - 1) / t->nr);
    if ((double)m * (double)n * (double)k < SGEMM_PARALLEL_MIN_MACS)
        return 1;
    return threads < tiles ? threads : tiles;
}

static int64_t min_i64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static int64_t round_up(int64_t a, int64_t b)
{
    return ceil_div(a, b) * b;
}

static int64_t gcd_i64(int64_t a, int64_t b)
{
    while (b != 0) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/*
 * C[rows x cols] := buf (beta == 0, C not read) or beta * C + buf; buf has
 * row stride ldb. fused: rounded once, fma(beta, c, buf), as the kernels of
 * a fused target update C, so an element gets the same bits in an edge tile
 * as in a full one (and every shape of a path the same bits).
 */
static void sgemm_edge_update(int64_t rows, int64_t cols, const float *restrict buf, int64_t ldb,
                              float beta, int fused, float *restrict C, int64_t ldc)
{
    for (int64_t i = 0; i < rows; i++) {
        const float *src = buf + i * ldb;
        float *dst = C + i * ldc;
        if (beta == 0.0f) {
            for (int64_t j = 0; j < cols; j++)
                dst[j] = src[j];
        } else if (fused) {
            for (int64_t j = 0; j < cols; j++)
                dst[j] = fmaf(beta, dst[j], src[j]);
        } else {
            for (int64_t j = 0; j < cols; j++)
                dst[j] = beta * dst[j] + src[j];
        }
    }
}

/*
 * The two inner loops over one packed A block (mc x kc) and the B
 * micro-panels [jr_first, jr_end) of one packed B block: C is the tile
 * origin of the block, ncols the block's valid columns.
 */
static void sgemm_macro_kernel(const sgemm_target *t, int64_t mc, int64_t ncols, int64_t kc,
                               int64_t jr_first, int64_t jr_end, float alpha,
                               const float *Ap, const float *Bp, float beta,
                               float *C, int64_t ldc)
{
    _Alignas(64) float edge[SGEMM_MAX_MR * SGEMM_MAX_NR];
    const int mr = t->mr, nr = t->nr;
    for (int64_t jr = jr_first; jr < jr_end; jr++) {
        const int64_t j0 = jr * nr;
        const int64_t cols = min_i64(nr, ncols - j0);
        const float *bpanel = Bp + j0 * kc;
        for (int64_t i0 = 0; i0 < mc; i0 += mr) {
            const int64_t rows = min_i64(mr, mc - i0);
            const float *apanel = Ap + i0 * kc;
            float *ctile = C + i0 * ldc + j0;
            if (rows == mr && cols == nr) {
                t->kernel(kc, alpha, apanel, bpanel, beta, ctile, ldc, t->a_ahead);
            } else {
                t->kernel(kc, alpha, apanel, bpanel, 0.0f, edge, nr, t->a_ahead);
                sgemm_edge_update(rows, cols, edge, nr, beta, t->fused, ctile, ldc);
            }
        }
    }
}

/* Pack B micro-panels [jr_first, jr_end) of the kc x nc block whose origin is b. */
static void pack_b_panels(const sgemm_target *t, sgemm_view b, int64_t kc, int64_t nc,
                          int64_t jr_first, int64_t jr_end, float *Bp)
{
    const int64_t j0 = jr_first * t->nr, j1 = min_i64(jr_end * t->nr, nc);
    if (j1 > j0) {
        sgemm_view range = { b.p + j0 * b.cs, b.rs, b.cs };
        sgemm_pack_b_block(t, j1 - j0, kc, range, Bp + j0 * kc);
    }
}

smm_status sgemm_driver_run(const sgemm_target *t, int threads,
                            int64_t m, int64_t n, int64_t k, float alpha,
                            sgemm_view A, sgemm_view B, float beta, float *C, int64_t ldc)
{
    const int mr = t->mr, nr = t->nr;
    const int64_t kc_blk = min_i64(t->kc, k);
    const int64_t nc_blk = min_i64(t->nc, round_up(n, nr));
    int64_t mc_blk = min_i64(t->mc, round_up(m, mr));

    const int64_t nt = sgemm_team_size(t, threads, m, n, k);

    /*
     * Work split. The m rows go into ic blocks of whole register tiles (mr
     * rows), the blocks differing by at most one tile: m = 2048 in blocks of
     * at most 156 rows is 14 blocks of 144 or 156 rows, not 13 of 156 and a
     * thin one of 20, which on 2 threads gave one thread 1092 rows and the
     * other 956. With several threads (t->split):
     * - columns, or auto with a short m (one ic block, under 8 register rows
     *   per thread if it were split): the threads take each ic block's B
     *   micro-panels in contiguous chunks (jsplit = nt), each packing the A
     *   block itself and only its own B panels;
     * - otherwise (rows, auto) the number of ic blocks is raised to a
     *   multiple of the team size when m allows; when there are still too
     *   few, each ic block's B micro-panels are split into jsplit chunks so
     *   that ic_blocks * jsplit is a multiple of nt.
     * None of this changes what any tile computes.
     */
    const int64_t tiles = ceil_div(m, mr);
    int64_t ic_blocks = ceil_div(m, mc_blk);
    const int split_columns =
        t->split == SGEMM_SPLIT_COLUMNS ||
        (t->split == SGEMM_SPLIT_AUTO && ic_blocks == 1 && m < nt * 8 * mr && ceil_div(nc_blk, nr) >= nt);
    if (nt > 1 && !split_columns)
        ic_blocks = min_i64(round_up(ic_blocks, nt), tiles);
    mc_blk = ceil_div(tiles, ic_blocks) * mr; /* the tallest block */
    const int64_t jsplit = split_columns ? nt : nt / gcd_i64(ic_blocks, nt);
    const int64_t items = ic_blocks * jsplit;
    /* B packed in the item loop, a group of micro-panels at a time (see below) */
    const int fuse = nt == 1 || ic_blocks == 1 || split_columns;
    const int64_t fuse_group = ceil_div(SGEMM_PACK_GROUP_FLOATS, nr); /* about 1 KiB of each B row */

    /* Workspace, before C is touched. Each region starts on a 64-byte boundary. */
    const size_t b_floats = (size_t)round_up(kc_blk * round_up(nc_blk, nr), 16);
    const size_t a_floats = (size_t)round_up(mc_blk * kc_blk, 16);
    float *work = sgemm_workspace_take((b_floats + (size_t)nt * a_floats) * sizeof(float));
    if (work == NULL)
        return SMM_ERR_NO_MEMORY;
    float *const Bp = work;

#pragma omp parallel num_threads((int)nt) if (nt > 1)
    {
#ifdef _OPENMP
        const int64_t tid = omp_get_thread_num();
#else
        const int64_t tid = 0;
#endif
        float *const Ap = work + b_floats + (size_t)tid * a_floats;

        for (int64_t jc = 0; jc < n; jc += nc_blk) {
            const int64_t nc = min_i64(nc_blk, n - jc);
            const int64_t panels = ceil_div(nc, nr);
            for (int64_t pc = 0; pc < k; pc += kc_blk) {
                const int64_t kc = min_i64(kc_blk, k - pc);
                const float beta_blk = pc == 0 ? beta : 1.0f;

                /*
                 * B packing. With one ic block, one thread or the columns
                 * split, B is packed in the item loop below ("fused"), with
                 * the first ic block: a group of micro-panels at a time, used
                 * at once while it is in L2, by the thread that first uses it
                 * (a thread's jr chunk is then its own, for every ic block).
                 * Otherwise the team packs the B block (kc x nc) together
                 * first, each thread a contiguous range of micro-panels
                 * (packing walks B's rows, so a contiguous range reads memory
                 * in long runs), and the barrier publishes it.
                 */
                const sgemm_view bblock = { B.p + pc * B.rs + jc * B.cs, B.rs, B.cs };
                if (!fuse) {
                    pack_b_panels(t, bblock, kc, nc, panels * tid / nt, panels * (tid + 1) / nt, Bp);
#pragma omp barrier
                }

                /* Work items are (ic block, jr chunk), ic-major (a thread's items share A blocks) or chunk-major. */
                int64_t packed_ic = -1;
#pragma omp for schedule(static)
                for (int64_t item = 0; item < items; item++) {
                    /* columns: chunk-major, so each thread's items are its chunk of every ic block */
                    const int64_t icb = split_columns ? item % ic_blocks : item / jsplit;
                    const int64_t chunk = split_columns ? item / ic_blocks : item % jsplit;
                    const int64_t ic = tiles * icb / ic_blocks * mr;
                    const int64_t mc = min_i64(tiles * (icb + 1) / ic_blocks * mr, m) - ic;
                    if (icb != packed_ic) {
                        sgemm_view ablock = { A.p + ic * A.rs + pc * A.cs, A.rs, A.cs };
                        sgemm_pack_a_block(t, mc, kc, ablock, Ap);
                        packed_ic = icb;
                    }
                    const int64_t jr_first = panels * chunk / jsplit;
                    const int64_t jr_end = panels * (chunk + 1) / jsplit;
                    if (fuse && icb == 0) {
                        for (int64_t g0 = jr_first; g0 < jr_end; g0 += fuse_group) {
                            const int64_t g1 = min_i64(g0 + fuse_group, jr_end);
                            pack_b_panels(t, bblock, kc, nc, g0, g1, Bp);
                            sgemm_macro_kernel(t, mc, nc, kc, g0, g1, alpha, Ap, Bp, beta_blk,
                                               C + ic * ldc + jc, ldc);
                        }
                    } else {
                        sgemm_macro_kernel(t, mc, nc, kc, jr_first, jr_end, alpha, Ap, Bp,
                                           beta_blk, C + ic * ldc + jc, ldc);
                    }
                }
                /* the loop's implied barrier keeps Bp alive until every thread is done with it */
            }
        }
    }

    sgemm_workspace_give(work);
    return SMM_OK;
}
