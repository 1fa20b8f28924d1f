/*
 * hamming.c - sketch_hamming_u32, sketch_hamming_u16, sketch_hamming_topk and
 * sketch_hamming_kernel_name, through the panel and select kernels of the
 * current ISA path.
 *
 * All pairs: b is first packed into panels of 32 codes (hamming_kernels.h;
 * a copy the size of b, packed in parallel), then the work is split into
 * tiles of HAMMING_ROW_BLOCK rows of a by a column block of packed codes
 * sized to stay in the L2 cache, so each block is reused by all rows of the
 * tile while it is hot; threads take tiles dynamically. Inside a tile the
 * kernel takes queries four at a time, so every code word it loads serves
 * several queries. A large output (HAMMING_STREAM_MIN_BYTES or more) is
 * written with non-temporal stores where the kernel can: a full matrix of
 * distances is rarely read back while it is being produced, and streaming
 * spares the read-for-ownership of every cache line.
 *
 * Top-k: distances are small integers, so no heap is needed. For each block
 * of TOPK_ROWS queries the codes are scanned in chunks (growing from k codes
 * to TOPK_CHUNK): the select kernel computes the chunk's distances and
 * emits only the codes at most the query's current limit (no distance
 * matrix, not even a per-chunk one, is written), and a histogram of the
 * listed candidates gives the threshold T, the smallest distance with at
 * least k candidates at or below it; later codes must then be strictly below
 * T to enter (a later code at distance T has a larger index than every
 * listed one), and T only comes down, step by step, as they do. Candidates
 * are listed in index order; now and then, and at the end, the list is cut
 * back to the k best: those below T and the first ones at T. A query whose
 * T reaches 0 is done. At
 * the end a counting sort by distance of the k candidates (stable, so ties
 * stay in index order) gives the result.
 *
 * Distances are exact integers and the selection rule is a total order, so
 * every result is independent of the split, the thread count and the ISA.
 */
#include <string.h>

#include <omp.h>

#include "common/smm_runtime.h"
#include "sketch/hamming_kernels.h"
#include "sketchmm/sketch.h"

/* Rows of a per all-pairs task. */
#define HAMMING_ROW_BLOCK 64
/* Least na * nb * words worth a parallel region. */
#define HAMMING_PARALLEL_MIN_WORK 65536.0
/* Bytes of packed codes per column block (about a fifth of the L2 cache of recent x86 cores). */
#define HAMMING_COL_BLOCK_BYTES (256 * 1024)
/* Output size from which all-pairs stores may bypass the caches. */
#define HAMMING_STREAM_MIN_BYTES ((double)(8 << 20))
/* Largest word count sketch_hamming_topk accepts (every SKETCH_MAX_BITS code). */
#define HAMMING_TOPK_MAX_WORDS 1024
/* Top-k: queries per kernel call and codes per chunk (a multiple of HAMMING_PANEL). */
#define TOPK_ROWS 4
#define TOPK_CHUNK 1024
/* stride of the select kernel's output rows: a chunk plus the kernels' scratch room */
#define TOPK_LDP (TOPK_CHUNK + HAMMING_SELECT_SLACK)

/* Arguments shared by the three entry points (statuses as documented in sketch.h). */
static smm_status check_codes(int64_t na, const uint64_t *a, int64_t lda, int64_t nb, const uint64_t *b,
                              int64_t ldb, int64_t words)
{
    if (na < 0 || nb < 0 || words < 1)
        return SMM_ERR_BAD_SIZE;
    smm_status s = smm_check_matrix(SMM_ROW_MAJOR, na, words, a, lda, sizeof(uint64_t));
    if (s == SMM_OK)
        s = smm_check_matrix(SMM_ROW_MAJOR, nb, words, b, ldb, sizeof(uint64_t));
    return s;
}

/* Bytes of the packed copy of nb codes of `words` words. */
static smm_status packed_bytes(int64_t nb, int64_t words, int64_t *bytes)
{
    const int64_t panels = nb / HAMMING_PANEL + (nb % HAMMING_PANEL != 0);
    int64_t n;
    smm_status s = smm_mul_size(panels, HAMMING_PANEL * (int64_t)sizeof(uint64_t), &n);
    if (s == SMM_OK)
        s = smm_mul_size(n, words, bytes);
    return s;
}

/* Pack b into panels (inside a parallel region: the panels are shared among the team). */
static void pack_all(const uint64_t *b, int64_t ldb, int64_t nb, int64_t words, uint64_t *panels)
{
    const int64_t npanels = (nb + HAMMING_PANEL - 1) / HAMMING_PANEL;
#pragma omp for schedule(static)
    for (int64_t p = 0; p < npanels; p++) {
        const int64_t j0 = p * HAMMING_PANEL;
        const int64_t count = nb - j0 < HAMMING_PANEL ? nb - j0 : HAMMING_PANEL;
        hamming_pack_panel(b, ldb, j0, count, words, panels + j0 * words);
    }
}

static int team_size(const smm_context *ctx, int64_t tasks, double work)
{
    int threads = tasks < ctx->threads ? (int)tasks : ctx->threads;
    if (work < HAMMING_PARALLEL_MIN_WORK || threads < 1)
        threads = 1; /* fork/join would cost more than the work */
    return threads;
}

/* All pairs into dist (uint16_t when out_u32 == 0, else uint32_t); arguments already checked. */
static smm_status all_pairs(int64_t na, const uint64_t *a, int64_t lda, int64_t nb, const uint64_t *b, int64_t ldb,
                            int64_t words, void *dist, int64_t ldd, int out_u32)
{
    smm_context ctx;
    smm_status s = smm_context_current(&ctx);
    if (s != SMM_OK)
        return s;
    if (na == 0 || nb == 0)
        return SMM_OK;
    int64_t bytes;
    s = packed_bytes(nb, words, &bytes);
    if (s != SMM_OK)
        return s;
    uint64_t *panels = smm_aligned_alloc((size_t)bytes);
    if (panels == NULL)
        return SMM_ERR_NO_MEMORY;

    const hamming_panel_fn kernel = hamming_kernels_for(ctx.isa)->panel;
    const size_t esize = out_u32 ? sizeof(uint32_t) : sizeof(uint16_t);
    const int stream = (double)na * (double)nb * (double)esize >= HAMMING_STREAM_MIN_BYTES;
    /* Column block: as many packed codes as fit the byte budget, a multiple of the panel width. */
    int64_t col_block = HAMMING_COL_BLOCK_BYTES / (8 * words);
    col_block -= col_block % HAMMING_PANEL;
    if (col_block < HAMMING_PANEL)
        col_block = HAMMING_PANEL;
    const int64_t row_blocks = (na + HAMMING_ROW_BLOCK - 1) / HAMMING_ROW_BLOCK;
    const int64_t col_blocks = (nb + col_block - 1) / col_block;
    const int64_t tiles = row_blocks * col_blocks; /* <= na * nb, which fits */
    const int threads = team_size(&ctx, tiles, (double)na * (double)nb * (double)words);

#pragma omp parallel num_threads(threads)
    {
        pack_all(b, ldb, nb, words, panels); /* ends with a barrier */
        /* Tiles in row-block-major order: consecutive tiles share rows of a. */
#pragma omp for schedule(dynamic, 1)
        for (int64_t tile = 0; tile < tiles; tile++) {
            const int64_t i0 = (tile / col_blocks) * HAMMING_ROW_BLOCK;
            const int64_t rows = na - i0 < HAMMING_ROW_BLOCK ? na - i0 : HAMMING_ROW_BLOCK;
            const int64_t j0 = (tile % col_blocks) * col_block;
            const int64_t jn = nb - j0 < col_block ? nb - j0 : col_block;
            kernel(a + i0 * lda, lda, rows, panels + j0 * words, jn, words,
                   (char *)dist + (size_t)(i0 * ldd + j0) * esize, ldd, out_u32, stream);
        }
    }
    smm_aligned_free(panels);
    return SMM_OK;
}

smm_status sketch_hamming_u32(int64_t na, const uint64_t *a, int64_t lda,
                              int64_t nb, const uint64_t *b, int64_t ldb,
                              int64_t words, uint32_t *dist, int64_t ldd)
{
    smm_status s = check_codes(na, a, lda, nb, b, ldb, words);
    if (s == SMM_OK)
        s = smm_check_matrix(SMM_ROW_MAJOR, na, nb, dist, ldd, sizeof(uint32_t));
    if (s != SMM_OK)
        return s;
    return all_pairs(na, a, lda, nb, b, ldb, words, dist, ldd, 1);
}

smm_status sketch_hamming_u16(int64_t na, const uint64_t *a, int64_t lda,
                              int64_t nb, const uint64_t *b, int64_t ldb,
                              int64_t words, uint16_t *dist, int64_t ldd)
{
    if (words > HAMMING_U16_MAX_WORDS)
        return SMM_ERR_BAD_SIZE;
    smm_status s = check_codes(na, a, lda, nb, b, ldb, words);
    if (s == SMM_OK)
        s = smm_check_matrix(SMM_ROW_MAJOR, na, nb, dist, ldd, sizeof(uint16_t));
    if (s != SMM_OK)
        return s;
    return all_pairs(na, a, lda, nb, b, ldb, words, dist, ldd, 0);
}

/* ------------------------------------------------------------------------ */
/* Top-k                                                                    */
/* ------------------------------------------------------------------------ */

/* Selection state of one query. */
typedef struct {
    uint32_t *hist;   /* hist[d]: listed candidates at distance d */
    int64_t *cidx;    /* listed candidates in increasing index, k + 2 * TOPK_CHUNK room */
    uint32_t *cdist;
    int64_t count;    /* listed candidates */
    int64_t limit;    /* codes enter when their distance is <= limit; -1: the query is done */
    int64_t hist_top; /* largest distance listed since the histogram was last cleared (-1: none) */
    int64_t T;        /* threshold once count >= k */
    int64_t le_T;     /* listed candidates at distance <= T, once count >= k */
} topk_state;

/* Per-thread workspace. */
typedef struct {
    uint32_t *pos;  /* TOPK_ROWS rows of TOPK_LDP: codes passed by the select kernel */
    uint32_t *pdist; /* and their distances */
    topk_state st[TOPK_ROWS];
} topk_work;

/*
 * Cut the list (count >= k) back to exactly k: the candidates below T and the
 * first ones at T (branch-free: which ones pass is data-dependent).
 */
static void topk_compact(topk_state *st, int64_t k)
{
    const int64_t T = st->T;
    const int64_t below = st->le_T - st->hist[T];
    int64_t keep_at_T = k - below, kept = 0;
    for (int64_t c = 0; c < st->count; c++) {
        const int64_t dd = st->cdist[c];
        const int64_t at_T = dd == T;
        const int64_t keep = (dd < T) | (at_T & (keep_at_T > 0));
        keep_at_T -= at_T;
        st->cidx[kept] = st->cidx[c];
        st->cdist[kept] = (uint32_t)dd;
        kept += keep;
    }
    for (int64_t dd = T + 1; dd <= st->hist_top; dd++)
        st->hist[dd] = 0;
    st->hist[T] = (uint32_t)(k - below);
    st->hist_top = T;
    st->le_T = k;
    st->count = kept; /* == k */
}

/*
 * List the codes j0 + pos[t] (distances d[t]) that passed the select kernel,
 * then, once there are k, lower the threshold; cut the list back when it
 * could not take another chunk.
 */
static void topk_absorb(topk_state *st, const uint32_t *pos, const uint32_t *d, int64_t count, int64_t j0,
                        int64_t k)
{
    if (count == 0)
        return;
    const int64_t had = st->count;
    int64_t top = st->hist_top;
    for (int64_t t = 0; t < count; t++) {
        const uint32_t dd = d[t];
        st->cidx[had + t] = j0 + pos[t];
        st->cdist[had + t] = dd;
        st->hist[dd]++;
        top = (int64_t)dd > top ? (int64_t)dd : top;
    }
    st->count += count;
    st->hist_top = top;
    if (st->count < k)
        return;
    /* T: the smallest distance with at least k listed candidates at or below it */
    int64_t T, cum;
    if (had < k) { /* first time: count up from 0 */
        T = 0;
        cum = st->hist[0];
        while (cum < k)
            cum += st->hist[++T];
    } else { /* every new candidate is below the old T, which can only come down */
        T = st->T;
        cum = st->le_T + count;
        while (cum - (int64_t)st->hist[T] >= k)
            cum -= st->hist[T--];
    }
    st->T = T;
    st->le_T = cum;
    st->limit = T - 1; /* a later code at distance T ranks after k listed ones */
    if (st->count > k + TOPK_CHUNK)
        topk_compact(st, k);
}

/* Write the k results of a query sorted by (distance, index), and clear its histogram. */
static void topk_finish(topk_state *st, int64_t k, int64_t *idx, uint32_t *dist)
{
    topk_compact(st, k); /* count >= k since nb >= k */
    /* hist becomes the first output position of each distance */
    uint32_t start = 0;
    for (int64_t dd = 0; dd <= st->T; dd++) {
        const uint32_t n = st->hist[dd];
        st->hist[dd] = start;
        start += n;
    }
    for (int64_t c = 0; c < k; c++) { /* stable: the list is in index order */
        const uint32_t p = st->hist[st->cdist[c]]++;
        idx[p] = st->cidx[c];
        dist[p] = st->cdist[c];
    }
    memset(st->hist, 0, (size_t)(st->T + 1) * sizeof(uint32_t));
}

smm_status sketch_hamming_topk(int64_t na, const uint64_t *a, int64_t lda,
                               int64_t nb, const uint64_t *b, int64_t ldb,
                               int64_t words, int64_t k,
                               int64_t *idx, uint32_t *dist, int64_t ldk)
{
    if (na < 0 || nb < 0 || words < 1 || words > HAMMING_TOPK_MAX_WORDS)
        return SMM_ERR_BAD_SIZE;
    if (k < 1 || k > nb)
        return SMM_ERR_BAD_ARGUMENT;
    smm_status s = check_codes(na, a, lda, nb, b, ldb, words);
    if (s == SMM_OK)
        s = smm_check_matrix(SMM_ROW_MAJOR, na, k, idx, ldk, sizeof(int64_t));
    if (s == SMM_OK)
        s = smm_check_matrix(SMM_ROW_MAJOR, na, k, dist, ldk, sizeof(uint32_t));
    if (s != SMM_OK)
        return s;
    smm_context ctx;
    s = smm_context_current(&ctx);
    if (s != SMM_OK || na == 0)
        return s;

    const int64_t max_dist = 64 * words;
    const int64_t query_blocks = (na + TOPK_ROWS - 1) / TOPK_ROWS;
    const int threads = team_size(&ctx, query_blocks, (double)na * (double)nb * (double)words);

    /* Everything is allocated before anything is written. */
    const int64_t cap = k + 2 * TOPK_CHUNK;
    const size_t sel_bytes = (size_t)TOPK_ROWS * TOPK_LDP * sizeof(uint32_t); /* pos, then pdist */
    size_t per_row = (size_t)(max_dist + 1) * sizeof(uint32_t) + (size_t)cap * (sizeof(int64_t) + sizeof(uint32_t));
    per_row = (per_row + 63) & ~(size_t)63; /* keeps every row's int64_t array aligned */
    const size_t per_thread = 2 * sel_bytes + TOPK_ROWS * per_row;
    int64_t packed, work_bytes;
    s = packed_bytes(nb, words, &packed);
    if (s == SMM_OK && (double)per_thread * threads > 1e18)
        s = SMM_ERR_OVERFLOW;
    if (s != SMM_OK)
        return s;
    work_bytes = (int64_t)per_thread * threads;
    uint64_t *panels = smm_aligned_alloc((size_t)packed);
    char *work = smm_aligned_alloc((size_t)work_bytes);
    if (panels == NULL || work == NULL) {
        smm_aligned_free(panels);
        smm_aligned_free(work);
        return SMM_ERR_NO_MEMORY;
    }
    memset(work, 0, (size_t)work_bytes); /* histograms start at zero */

    const hamming_select_fn select = hamming_kernels_for(ctx.isa)->select;

#pragma omp parallel num_threads(threads)
    {
        pack_all(b, ldb, nb, words, panels); /* ends with a barrier */

        /* this thread's workspace (sizes are multiples of 8 bytes) */
        char *mine = work + (size_t)omp_get_thread_num() * per_thread;
        topk_work tw;
        tw.pos = (uint32_t *)mine;
        tw.pdist = (uint32_t *)(mine + sel_bytes);
        char *rows = mine + 2 * sel_bytes;
        for (int r = 0; r < TOPK_ROWS; r++) {
            char *base = rows + (size_t)r * per_row;
            tw.st[r].cidx = (int64_t *)base;
            tw.st[r].cdist = (uint32_t *)(base + (size_t)cap * sizeof(int64_t));
            tw.st[r].hist = (uint32_t *)(base + (size_t)cap * (sizeof(int64_t) + sizeof(uint32_t)));
        }

#pragma omp for schedule(dynamic, 1)
        for (int64_t qb = 0; qb < query_blocks; qb++) {
            const int64_t i0 = qb * TOPK_ROWS;
            const int nrows = na - i0 < TOPK_ROWS ? (int)(na - i0) : TOPK_ROWS;
            for (int r = 0; r < nrows; r++) {
                tw.st[r].count = 0;
                tw.st[r].limit = max_dist;
                tw.st[r].hist_top = -1;
                tw.st[r].T = max_dist;
            }
            /*
             * Chunks grow: the first holds k codes (rounded up to a panel),
             * each later one as many codes as were seen before it, up to
             * TOPK_CHUNK. About k codes of each pass the limit (a random
             * code beats the k-th best of the j0 seen with probability about
             * k / j0), so the candidate bookkeeping stays O(k log nb) per query.
             */
            int64_t chunk_len = (k + HAMMING_PANEL - 1) / HAMMING_PANEL * HAMMING_PANEL;
            if (chunk_len > TOPK_CHUNK)
                chunk_len = TOPK_CHUNK;
            for (int64_t j0 = 0; j0 < nb; j0 += chunk_len, chunk_len = j0 < TOPK_CHUNK ? j0 : TOPK_CHUNK) {
                /* queries still open, compacted to the front for the kernel */
                int open[TOPK_ROWS], nopen = 0;
                for (int r = 0; r < nrows; r++)
                    if (tw.st[r].limit >= 0)
                        open[nopen++] = r;
                if (nopen == 0)
                    break;
                const int64_t n = nb - j0 < chunk_len ? nb - j0 : chunk_len;
                const uint64_t *chunk = panels + j0 * words;
                uint32_t limit[TOPK_ROWS];
                int64_t count[TOPK_ROWS];
                for (int o = 0; o < nopen; o++)
                    limit[o] = (uint32_t)tw.st[open[o]].limit;
                if (nopen == nrows) {
                    select(a + i0 * lda, lda, nrows, chunk, n, words, limit, tw.pos, tw.pdist, TOPK_LDP, count);
                } else {
                    for (int o = 0; o < nopen; o++)
                        select(a + (i0 + open[o]) * lda, lda, 1, chunk, n, words, limit + o, tw.pos + o * TOPK_LDP,
                               tw.pdist + o * TOPK_LDP, TOPK_LDP, count + o);
                }
                for (int o = 0; o < nopen; o++)
                    topk_absorb(&tw.st[open[o]], tw.pos + o * TOPK_LDP, tw.pdist + o * TOPK_LDP, count[o], j0, k);
            }
            for (int r = 0; r < nrows; r++)
                topk_finish(&tw.st[r], k, idx + (i0 + r) * ldk, dist + (i0 + r) * ldk);
        }
    }
    smm_aligned_free(panels);
    smm_aligned_free(work);
    return SMM_OK;
}

const char *sketch_hamming_kernel_name(void)
{
    smm_isa isa;
    if (smm_get_isa(&isa) != SMM_OK)
        return "unavailable";
    return hamming_kernels_for(isa)->head.name;
}
