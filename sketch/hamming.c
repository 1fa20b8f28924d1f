/*
 * hamming.c - sketch_hamming_u32, sketch_hamming_u16, sketch_hamming_topk and
 * sketch_hamming_kernel_name, through the kernels of the current ISA path
 * (hamming_kernels.h).
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
 * Top-k: distances are small integers, so no heap is needed, and the
 * distances of a block of TOPK_ROWS queries are never compared one by one in
 * C: kernels compare whole panels with a threshold and only the few codes
 * that pass are touched (hamming_kernels.h).
 *   Prefix: the first max(TOPK_PREFIX_MIN, 8 k) codes (at most nb). The
 *   prefix kernel writes their 16-bit distances to a small buffer and, while
 *   they are in registers, their group minima (code j in group j mod 32 gv,
 *   32 gv >= 2 k): the k-th smallest group minimum T0 has at least k codes
 *   at or below it and is close to the prefix's k-th smallest distance. The
 *   filter kernel lists the panels holding a code at or below T0 (a mask
 *   each), the gather kernel expands them into (code, distance) lists, and
 *   when the prefix is the whole of b (nb <= 4096 for small k) the place
 *   kernel writes the k nearest of those, sorted, and the query is done.
 *   Chunks (nb larger): the threshold T (the smallest distance with k listed
 *   codes at or below it) comes from a histogram of the listed codes; the
 *   scan kernel computes a chunk's distances and, in the same pass, lists
 *   the panels with a code below T (a later code at distance T has a larger
 *   index than the k listed ones), the gather kernel expands them, and they
 *   enter against the running T, which only comes down. The list is cut
 *   back to k when full; at the end a counting sort by distance (stable:
 *   the list is in index order) gives the result. A query whose T reaches
 *   0 is done. Everything per code is branch-free; what branches is per
 *   panel of 32 codes or per listed code. Codes of 1024 words (distances up
 *   to 65536, past 16 bits) take the same steps with 32-bit distances from
 *   the panel kernel, filtered in plain C.
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
/*
 * Top-k: queries per block, codes per chunk after the prefix, and the least
 * prefix (every chunk and prefix a multiple of HAMMING_PANEL).
 */
#define TOPK_ROWS 4
/* Most blocks of queries a thread takes at a time (the dynamic schedule's chunk). */
#define TOPK_BLOCKS_PER_TASK 4
#define TOPK_CHUNK 4096
#define TOPK_PREFIX_MIN 4096

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
    uint32_t *hist;  /* hist[d]: listed candidates at distance d */
    int64_t *cidx;   /* listed candidates in increasing index */
    uint32_t *cdist; /* and their distances */
    int64_t count;   /* listed candidates */
    int64_t cap;     /* room of cidx and cdist */
    int64_t T;       /* the smallest distance with at least k listed candidates at or below it */
    int64_t le_T;    /* listed candidates at distance <= T */
    int64_t low;     /* smallest distance listed (hist is 0 below it) */
    int64_t top;     /* largest distance listed since the histogram was last cleared (hist is 0 above it) */
} topk_state;

/* A thread's kernels and buffers for a block of queries. */
typedef struct {
    const hamming_kernels *kern;
    void *d;         /* TOPK_ROWS rows of ld distances: uint16_t, or uint32_t for codes of more than 1023 words */
    int64_t ld;
    int wide;
    uint32_t *hits;  /* filter / scan output: TOPK_ROWS rows of ldh entries */
    uint32_t *masks;
    int64_t ldh;
    uint32_t *pos;   /* gathered entries: TOPK_ROWS rows of gstride (ld + 32) each */
    uint32_t *dist;
    int64_t gstride;
    uint16_t *work;  /* the bound kernel's group minima */
} topk_work;

/*
 * Branch-free choices (the compiler turns ?: on data into branches, which
 * mispredict on data like this): c ? a : b for c in {0, 1}, and the minimum.
 */
static inline int64_t pick(int64_t c, int64_t a, int64_t b)
{
    return b ^ ((a ^ b) & -c);
}

static inline int64_t min_i64(int64_t a, int64_t b)
{
    return pick(a < b, a, b);
}

/* Filter and gather on 32-bit distances (plain C: only for codes of more than 1023 words). */
static int64_t filter_gather_u32(const uint32_t *d, int64_t n, uint32_t t, uint32_t *pos, uint32_t *dist)
{
    int64_t w = 0;
    for (int64_t j = 0; j < n; j++) {
        pos[w] = (uint32_t)j;
        dist[w] = d[j];
        w += d[j] <= t;
    }
    return w;
}

/* How many of the first n distances of row r are at most t (32-bit distances). */
static int64_t count_u32(const uint32_t *d, int64_t n, int64_t t)
{
    int64_t le = 0;
    for (int64_t j = 0; j < n; j++)
        le += d[j] <= (uint32_t)t;
    return le;
}

/*
 * Cut the list (count >= k listed at or below T) back to exactly k: the
 * candidates below T and the first ones at T (branch-free and stable: which
 * ones pass is data-dependent).
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
    for (int64_t dd = T + 1; dd <= st->top; dd++)
        st->hist[dd] = 0;
    st->hist[T] = (uint32_t)(k - below);
    st->top = T;
    st->le_T = k;
    st->count = kept; /* == k */
}

/*
 * The prefix: row r of tw->d holds the distances of the first n codes
 * (n >= k), and t0 has at least k of them at or below it (the prefix
 * kernel's k-th smallest of group minima; 0 asks for a binary search on
 * counts, for 32-bit distances). The codes at or below t0 are listed
 * (filter and gather kernels: no branch per code), and T is the k-th
 * smallest of them, from the histogram.
 */
static int64_t topk_prefix_gather(const topk_work *tw, int r, int64_t n, int64_t k, int64_t max_dist, uint32_t *t0)
{
    uint32_t *pos = tw->pos + r * tw->gstride, *dist = tw->dist + r * tw->gstride;
    if (tw->wide) {
        const uint32_t *d = (const uint32_t *)tw->d + r * tw->ld;
        int64_t lo = 0, hi = max_dist;
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if (count_u32(d, n, mid) >= k)
                hi = mid;
            else
                lo = mid + 1;
        }
        *t0 = (uint32_t)lo;
        return filter_gather_u32(d, n, *t0, pos, dist);
    }
    const uint16_t *d = (const uint16_t *)tw->d + r * tw->ld;
    uint32_t *hits = tw->hits + r * tw->ldh, *masks = tw->masks + r * tw->ldh;
    const int64_t h = tw->kern->filter(d, n, *t0, hits, masks);
    return tw->kern->gather(d, hits, masks, h, pos, dist);
}

/* Row r's e gathered codes (at most t0, at least k of them) become its list; T is their k-th smallest. */
static void topk_prefix_list(topk_state *st, const topk_work *tw, int r, int64_t e, int64_t k, uint32_t t0)
{
    const uint32_t *pos = tw->pos + r * tw->gstride, *dist = tw->dist + r * tw->gstride;
    int64_t low = t0;
    for (int64_t i = 0; i < e; i++) { /* e <= n <= cap */
        const uint32_t dd = dist[i];
        st->cidx[i] = pos[i];
        st->cdist[i] = dd;
        st->hist[dd]++;
        low = min_i64(dd, low);
    }
    int64_t T = low, le = st->hist[low];
    while (le < k)
        le += st->hist[++T];
    st->count = e;
    st->T = T;
    st->le_T = le;
    st->low = low;
    st->top = t0;
}

/*
 * A chunk: codes j0 + pos[i] at distances dist[i], i < e, in increasing
 * index, all at most the threshold the chunk started with (T - 1). They are
 * taken against the running T: a code enters when its distance is below T
 * (a later code at distance T ranks after the k listed ones), and T comes
 * down as soon as the codes at or below T - 1 reach k. Branch-free entry
 * (written always, counted when it enters); the list is cut back to k when
 * full.
 */
static void topk_absorb(topk_state *st, const uint32_t *pos, const uint32_t *dist, int64_t e, int64_t j0, int64_t k)
{
    int64_t T = st->T, le_T = st->le_T, count = st->count, low = st->low;
    uint32_t *hist = st->hist;
    int64_t *cidx = st->cidx;
    uint32_t *cdist = st->cdist;
    for (int64_t i = 0; i < e; i++) {
        const int64_t d = dist[i];
        const int64_t enters = d < T;
        if (__builtin_expect(count == st->cap, 0)) {
            st->T = T, st->le_T = le_T, st->count = count;
            topk_compact(st, k);
            count = st->count;
            le_T = st->le_T;
        }
        cidx[count] = j0 + pos[i];
        cdist[count] = (uint32_t)d;
        count += enters;
        hist[d] += (uint32_t)enters; /* d <= top: at most the chunk's limit */
        le_T += enters;
        low = min_i64(d, low);
        while (le_T - (int64_t)hist[T] >= k)
            le_T -= hist[T--];
    }
    st->T = T;
    st->le_T = le_T;
    st->count = count;
    st->low = low;
}

/*
 * Write the k results of a query sorted by (distance, index): the listed
 * candidates below T and the first ones at T, placed by a counting sort on
 * distance (stable: the list is in index order), branch-free (the others go
 * to slot k of the scratch out). Clears the histogram.
 */
static void topk_finish(topk_state *st, int64_t k, int64_t *out_idx, uint32_t *out_dist, int64_t *idx,
                        uint32_t *dist)
{
    const int64_t T = st->T; /* at least k listed at or below T: the prefix listed k */
    uint32_t *hist = st->hist;
    /* hist becomes the first output position of each distance up to T; at T only k - (those below) fit */
    uint32_t start = 0;
    for (int64_t dd = st->low; dd <= T; dd++) {
        const uint32_t n = hist[dd];
        hist[dd] = start;
        start += n;
    }
    for (int64_t c = 0; c < st->count; c++) {
        const int64_t dd = st->cdist[c];
        const int64_t at = min_i64(dd, T); /* entries above T only look at T's slot */
        const int64_t p = hist[at];
        const int64_t placed = (dd <= T) & (p < k);
        const int64_t slot = pick(placed, p, k);
        out_idx[slot] = st->cidx[c];
        out_dist[slot] = (uint32_t)dd;
        hist[at] += (uint32_t)placed;
    }
    memcpy(idx, out_idx, (size_t)k * sizeof(int64_t));
    memcpy(dist, out_dist, (size_t)k * sizeof(uint32_t));
    memset(hist + st->low, 0, (size_t)(st->top + 1 - st->low) * sizeof(uint32_t));
    st->count = 0;
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
    const int wide = words > HAMMING_U16_MAX_WORDS;

    /*
     * The prefix: at least TOPK_PREFIX_MIN codes and 8 k (rounded up to a
     * panel), at most nb. Its first threshold comes from all of it: on random
     * codes about k ln(nb / prefix) codes pass after it, against k ln(nb / k)
     * when the threshold grows from the first k codes.
     */
    int64_t prefix = (8 * k + HAMMING_PANEL - 1) / HAMMING_PANEL * HAMMING_PANEL;
    prefix = prefix < TOPK_PREFIX_MIN ? TOPK_PREFIX_MIN : prefix;
    prefix = prefix < nb ? prefix : nb;
    const int64_t span = prefix > TOPK_CHUNK ? prefix : TOPK_CHUNK; /* distances per row of the buffer */
    const int64_t ld = (span + HAMMING_PANEL - 1) / HAMMING_PANEL * HAMMING_PANEL;
    const int64_t ldh = ld / HAMMING_PANEL + HAMMING_LIST_SLACK;
    const int64_t gv = (2 * k + HAMMING_PANEL - 1) / HAMMING_PANEL; /* group minima: 2 k <= 32 gv <= prefix */
    /* listed candidates per query (only when chunks follow the prefix): the prefix's, then room before a cut */
    const int64_t cap = prefix == nb ? 0 : prefix > 2 * k + HAMMING_PANEL ? prefix : 2 * k + HAMMING_PANEL;

    /* Everything is allocated before anything is written (every region a multiple of 64 bytes; only the
     * histograms need zeros). */
    const size_t esize = wide ? sizeof(uint32_t) : sizeof(uint16_t);
    const size_t dist_bytes = ((size_t)TOPK_ROWS * (size_t)ld * esize + 63) & ~(size_t)63;
    const size_t hit_bytes = ((size_t)TOPK_ROWS * (size_t)ldh * 2 * sizeof(uint32_t) + 63) & ~(size_t)63;
    const int64_t gstride = ld + 32;
    const size_t gathered_bytes = ((size_t)TOPK_ROWS * (size_t)gstride * 2 * sizeof(uint32_t) + 63) & ~(size_t)63;
    const size_t group_bytes = ((size_t)TOPK_ROWS * (size_t)gv * HAMMING_PANEL * sizeof(uint16_t) + 63) & ~(size_t)63;
    /* the place kernel's output: up to the prefix's codes and the kernels' room past them */
    const int64_t out_room = (prefix > k + 1 ? prefix : k + 1) + HAMMING_PLACE_SLACK;
    const size_t out_bytes = ((size_t)out_room * (sizeof(int64_t) + sizeof(uint32_t)) + 63) & ~(size_t)63;
    size_t per_row = (size_t)(max_dist + 1) * sizeof(uint32_t) + (size_t)cap * (sizeof(int64_t) + sizeof(uint32_t));
    per_row = (per_row + 63) & ~(size_t)63; /* keeps every row's int64_t array aligned */
    const double per_thread_d = (double)dist_bytes + (double)hit_bytes + (double)gathered_bytes + (double)group_bytes +
                                (double)out_bytes + TOPK_ROWS * (double)per_row;
    int64_t packed;
    s = packed_bytes(nb, words, &packed);
    if (s == SMM_OK && per_thread_d * threads > 1e18)
        s = SMM_ERR_OVERFLOW;
    if (s != SMM_OK)
        return s;
    const size_t per_thread = dist_bytes + hit_bytes + gathered_bytes + group_bytes + out_bytes + TOPK_ROWS * per_row;
    const size_t work_bytes = per_thread * (size_t)threads;
    uint64_t *panels = smm_aligned_alloc((size_t)packed);
    char *work = smm_aligned_alloc(work_bytes);
    if (panels == NULL || work == NULL) {
        smm_aligned_free(panels);
        smm_aligned_free(work);
        return SMM_ERR_NO_MEMORY;
    }

    const hamming_kernels *kernels = hamming_kernels_for(ctx.isa);
    /* blocks per task: fewer scheduling calls, but at least 4 tasks per thread */
    int per_task = (int)(query_blocks / (4 * (int64_t)threads));
    per_task = per_task < 1 ? 1 : per_task > TOPK_BLOCKS_PER_TASK ? TOPK_BLOCKS_PER_TASK : per_task;

#pragma omp parallel num_threads(threads)
    {
        pack_all(b, ldb, nb, words, panels); /* ends with a barrier */

        /* this thread's workspace */
        char *mine = work + (size_t)omp_get_thread_num() * per_thread;
        topk_work tw;
        tw.kern = kernels;
        tw.d = mine;
        tw.ld = ld;
        tw.wide = wide;
        tw.hits = (uint32_t *)(mine + dist_bytes);
        tw.masks = tw.hits + TOPK_ROWS * ldh;
        tw.ldh = ldh;
        tw.pos = (uint32_t *)(mine + dist_bytes + hit_bytes);
        tw.dist = tw.pos + TOPK_ROWS * gstride;
        tw.gstride = gstride;
        tw.work = (uint16_t *)(mine + dist_bytes + hit_bytes + gathered_bytes);
        int64_t *out_idx = (int64_t *)(mine + dist_bytes + hit_bytes + gathered_bytes + group_bytes);
        uint32_t *out_dist = (uint32_t *)(out_idx + out_room);
        char *rows = mine + dist_bytes + hit_bytes + gathered_bytes + group_bytes + out_bytes;
        topk_state st[TOPK_ROWS];
        for (int r = 0; r < TOPK_ROWS; r++) {
            char *base = rows + (size_t)r * per_row;
            st[r].cidx = (int64_t *)base;
            st[r].cdist = (uint32_t *)(base + (size_t)cap * sizeof(int64_t));
            st[r].hist = (uint32_t *)(base + (size_t)cap * (sizeof(int64_t) + sizeof(uint32_t)));
            memset(st[r].hist, 0, (size_t)(max_dist + 1) * sizeof(uint32_t)); /* histograms start at zero */
            st[r].cap = cap;
        }

#pragma omp for schedule(dynamic, per_task)
        for (int64_t qb = 0; qb < query_blocks; qb++) {
            const int64_t i0 = qb * TOPK_ROWS;
            const int nrows = na - i0 < TOPK_ROWS ? (int)(na - i0) : TOPK_ROWS;
            /* the prefix: all its distances, then each query's first threshold and candidates */
            uint32_t t0[TOPK_ROWS];
            if (wide || HAMMING_PANEL * gv > prefix) { /* no group minima: everything passes (or a search) */
                kernels->panel(a + i0 * lda, lda, nrows, panels, prefix, words, tw.d, ld, wide, 0);
                for (int r = 0; r < TOPK_ROWS; r++)
                    t0[r] = (uint32_t)max_dist;
            } else {
                kernels->prefix(a + i0 * lda, lda, nrows, panels, prefix, words, k, gv, tw.d, ld, tw.work, t0);
            }
            if (prefix == nb) { /* the prefix is everything: its k smallest are the result */
                int64_t e[TOPK_ROWS];
                for (int r = 0; r < nrows; r++) /* all rows first: their lists are in memory before they are read */
                    e[r] = topk_prefix_gather(&tw, r, prefix, k, max_dist, &t0[r]);
                for (int r = 0; r < nrows; r++) {
                    const uint32_t *pos = tw.pos + r * tw.gstride, *dst = tw.dist + r * tw.gstride;
                    int64_t low = t0[r];
                    for (int64_t i = 0; i < e[r]; i++)
                        low = min_i64(dst[i], low);
                    kernels->place(pos, dst, e[r], k, 0, (uint32_t)low, t0[r], st[r].hist, out_idx, out_dist);
                    memcpy(idx + (i0 + r) * ldk, out_idx, (size_t)k * sizeof(int64_t));
                    memcpy(dist + (i0 + r) * ldk, out_dist, (size_t)k * sizeof(uint32_t));
                }
                continue;
            }
            for (int r = 0; r < nrows; r++)
                topk_prefix_list(&st[r], &tw, r, topk_prefix_gather(&tw, r, prefix, k, max_dist, &t0[r]), k, t0[r]);
            /* the chunks: the open queries' distances, listed at T - 1, then taken against the running T */
            for (int64_t j0 = prefix; j0 < nb; j0 += TOPK_CHUNK) {
                int open[TOPK_ROWS], nopen = 0;
                for (int r = 0; r < nrows; r++)
                    if (st[r].T > 0) /* T == 0: nothing can enter any more */
                        open[nopen++] = r;
                if (nopen == 0)
                    break;
                const int64_t n = nb - j0 < TOPK_CHUNK ? nb - j0 : TOPK_CHUNK;
                const uint64_t *chunk = panels + j0 * words;
                uint32_t limit[TOPK_ROWS];
                int64_t nh[TOPK_ROWS];
                for (int o = 0; o < nopen; o++)
                    limit[o] = (uint32_t)(st[open[o]].T - 1);
                if (wide) {
                    for (int o = 0; o < nopen; o++)
                        kernels->panel(a + (i0 + open[o]) * lda, lda, 1, chunk, n, words, (uint32_t *)tw.d + o * ld, ld,
                                       1, 0);
                } else if (nopen == nrows) {
                    kernels->scan(a + i0 * lda, lda, nrows, chunk, n, words, limit, tw.d, ld, tw.hits, tw.masks, ldh,
                                  nh);
                } else {
                    for (int o = 0; o < nopen; o++)
                        kernels->scan(a + (i0 + open[o]) * lda, lda, 1, chunk, n, words, limit + o,
                                      (uint16_t *)tw.d + o * ld, ld, tw.hits + o * ldh, tw.masks + o * ldh, ldh, nh + o);
                }
                int64_t e[TOPK_ROWS];
                for (int o = 0; o < nopen; o++) { /* all rows first: their lists are in memory before they are read */
                    uint32_t *pos = tw.pos + o * gstride, *dst = tw.dist + o * gstride;
                    e[o] = wide ? filter_gather_u32((const uint32_t *)tw.d + o * ld, n, limit[o], pos, dst)
                                : kernels->gather((const uint16_t *)tw.d + o * ld, tw.hits + o * ldh, tw.masks + o * ldh,
                                                  nh[o], pos, dst);
                }
                for (int o = 0; o < nopen; o++)
                    topk_absorb(&st[open[o]], tw.pos + o * gstride, tw.dist + o * gstride, e[o], j0, k);
            }
            for (int r = 0; r < nrows; r++)
                topk_finish(&st[r], k, out_idx, out_dist, idx + (i0 + r) * ldk, dist + (i0 + r) * ldk);
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
