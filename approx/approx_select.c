/*
 * approx_select.c - the r largest of a stream of scores (see approx_select.h).
 */
#include "approx/approx_select.h"

#include <math.h>


/* 1 when a comes before b: larger score first, then smaller index (a total order). */
static inline int before(const scored_index *a, const scored_index *b)
{
    return a->score > b->score || (a->score == b->score && a->index < b->index);
}

static inline void swap_entries(scored_index *a, scored_index *b)
{
    const scored_index t = *a;
    *a = *b;
    *b = t;
}

/*
 * Partition a[lo .. hi] (hi - lo >= 2) around the median of a[lo], a[mid],
 * a[hi]; returns p with a[lo .. p) before a[p] and a[p] before a(p .. hi].
 */
static int64_t partition(scored_index *a, int64_t lo, int64_t hi)
{
    const int64_t mid = lo + (hi - lo) / 2;
    if (before(&a[mid], &a[lo]))
        swap_entries(&a[mid], &a[lo]);
    if (before(&a[hi], &a[lo]))
        swap_entries(&a[hi], &a[lo]);
    if (before(&a[hi], &a[mid]))
        swap_entries(&a[hi], &a[mid]);
    /* a[lo] <= a[mid] <= a[hi] in the order; the median goes to hi - 1 as the pivot */
    swap_entries(&a[mid], &a[hi - 1]);
    const scored_index pivot = a[hi - 1];
    int64_t i = lo, j = hi - 1;
    for (;;) {
        while (before(&a[++i], &pivot)) {
        }
        while (before(&pivot, &a[--j])) {
        }
        if (i >= j)
            break;
        swap_entries(&a[i], &a[j]);
    }
    swap_entries(&a[i], &a[hi - 1]);
    return i;
}

static void insertion_sort(scored_index *a, int64_t lo, int64_t hi)
{
    for (int64_t i = lo + 1; i <= hi; i++) {
        const scored_index x = a[i];
        int64_t j = i - 1;
        for (; j >= lo && before(&x, &a[j]); j--)
            a[j + 1] = a[j];
        a[j + 1] = x;
    }
}

/* Quicksort of a[lo .. hi]; with `limit` set, only the part that decides a[0 .. limit) is ordered. */
static void sort_range(scored_index *a, int64_t lo, int64_t hi, int64_t limit)
{
    while (hi - lo >= 16) {
        const int64_t p = partition(a, lo, hi);
        if (p >= limit) { /* everything past p comes after the first `limit` */
            hi = p - 1;
            continue;
        }
        /* recurse into the smaller side, loop on the larger: O(log n) stack */
        if (p - lo < hi - p) {
            sort_range(a, lo, p - 1, limit);
            lo = p + 1;
        } else {
            sort_range(a, p + 1, hi, limit);
            hi = p - 1;
        }
    }
    insertion_sort(a, lo, hi);
}

void scored_sort(scored_index *a, int64_t count)
{
    if (count > 1)
        sort_range(a, 0, count - 1, count);
}

/*
 * Quickselect: reorder a[0 .. count) so that a[0 .. r) are its first r
 * entries (in no particular order) and a[r - 1] is the r-th. O(count)
 * expected: only the side holding position r - 1 is partitioned further.
 */
static void scored_select(scored_index *a, int64_t count, int64_t r)
{
    int64_t lo = 0, hi = count - 1;
    const int64_t target = r - 1;
    while (hi - lo >= 16) {
        const int64_t p = partition(a, lo, hi);
        if (p == target)
            return;
        if (p > target)
            hi = p - 1;
        else
            lo = p + 1;
    }
    insertion_sort(a, lo, hi);
}

void scored_first(scored_index *a, int64_t count, int64_t r)
{
    if (r < count)
        scored_select(a, count, r);
    scored_sort(a, r < count ? r : count);
}

static const top_select_kernels table[SMM_ISA_COUNT] = {
    [SMM_ISA_SCALAR] = { { "scalar", 0 }, top_select_collect_scalar },
#if defined(__x86_64__)
    [SMM_ISA_AVX2] = { { "avx2_movemask", 0 }, top_select_collect_avx2 },
    [SMM_ISA_AVX512] = { { "avx512_compress", 0 }, top_select_collect_avx512 },
#endif
#if defined(__aarch64__)
    [SMM_ISA_NEON] = { { "neon", 0 }, top_select_collect_neon },
#endif
};

const top_select_kernels *top_select_kernels_for(smm_isa isa)
{
    return SMM_KERNELS_FOR(table, isa);
}

/* Room of the kept arrays: a cut when another step might not fit. */
static int64_t kept_room(int64_t r)
{
    return TOP_SELECT_SLACK * r + TOP_SELECT_STEP;
}

/*
 * Buffer layout (scored_index entries of 16 bytes): the result, r entries;
 * the kept columns (room int64_t: room / 2 entries); the kept scores, the
 * quickselect's three work arrays and the group maxima of the first block
 * (room floats each: room / 4 entries each).
 */
int64_t top_select_capacity(int64_t r)
{
    const int64_t room = kept_room(r);
    return r + (room + 1) / 2 + 5 * ((room + 3) / 4);
}

void top_select_init(top_select *sel, scored_index *buf, int64_t r, smm_isa isa)
{
    const int64_t room = kept_room(r), quarter = (room + 3) / 4;
    sel->buf = buf;
    sel->index = (int64_t *)(buf + r);
    sel->score = (float *)(buf + r + (room + 1) / 2);
    for (int w = 0; w < 3; w++)
        sel->work[w] = (float *)(buf + r + (room + 1) / 2 + (1 + w) * quarter);
    sel->group_max = (float *)(buf + r + (room + 1) / 2 + 4 * quarter);
    sel->r = r;
    sel->kept = 0;
    sel->room = room;
    sel->threshold = 0.0f;
    sel->full = 0;
    sel->collect = top_select_kernels_for(isa)->collect;
}

static inline float min_f(float a, float b)
{
    return a < b ? a : b;
}

static inline float max_f(float a, float b)
{
    return a > b ? a : b;
}

/*
 * The score at position target (0-based) of x[0 .. count) in decreasing
 * order (x is not changed): quickselect with branch-free, out-of-place
 * partitions (a comparison's outcome is a data-dependent coin flip on
 * scores, so a branch per element would be mispredicted half the time, and
 * an in-place swap would wait on the store before it). Each round writes the
 * scores above the median-of-three pivot to one work array and those below
 * it to another (every score is stored to both, only the counts advance);
 * the pivot's equals are only counted. The side holding target becomes the
 * next round's input, the third array the next output: work holds three
 * arrays of count floats.
 */
static float nth_largest(const float *x, int64_t count, int64_t target, float *const work[3])
{
    const float *src = x;
    int free_a = 0, free_b = 1, spare = 2; /* the output arrays of the round, and the one left */
    while (count > 1) {
        const float a = src[0], b = src[count / 2], c = src[count - 1];
        const float p = max_f(min_f(a, b), min_f(max_f(a, b), c));
        float *above = work[free_a], *below = work[free_b];
        int64_t na = 0, nb = 0;
        for (int64_t t = 0; t < count; t++) {
            const float v = src[t];
            above[na] = v;
            below[nb] = v;
            na += v > p;
            nb += v < p;
        }
        if (target < na) {
            src = above;
            count = na;
            const int used = free_a; /* the input is now `above`: the other two are the outputs */
            free_a = free_b;
            free_b = spare;
            spare = used;
        } else if (target < count - nb) {
            return p; /* one of the pivot's equals */
        } else {
            target -= count - nb;
            src = below;
            count = nb;
            const int used = free_b;
            free_b = spare;
            spare = used;
        }
    }
    return src[0];
}

/*
 * Keep the best `keep` (<= kept) entries, in column order: those above the
 * keep-th best score and the first ones equal to it (equal scores rank by
 * column). Returns that score.
 */
static float cut_to(top_select *sel, int64_t keep)
{
    const int64_t kept = sel->kept;
    float *score = sel->score;
    int64_t *index = sel->index;
    const float thr = nth_largest(score, kept, keep - 1, sel->work);
    int64_t above = 0;
    for (int64_t t = 0; t < kept; t++)
        above += score[t] > thr;
    int64_t equal_left = keep - above, w = 0;
    for (int64_t t = 0; t < kept; t++) { /* branch-free and stable */
        const float v = score[t];
        const int64_t equal = v == thr;
        const int64_t take = (v > thr) | (equal & (equal_left > 0));
        equal_left -= equal;
        score[w] = v;
        index[w] = index[t];
        w += take;
    }
    sel->kept = w; /* == keep */
    return thr;
}

/*
 * The first block of a row, when it holds at least 4 groups' worth: a
 * threshold that already reflects the whole block. Group g is the scores at
 * t = g (mod G), G = r rounded up to a multiple of 16 (contiguous in
 * vectors); the r-th largest of the G group maxima, T0, has at least r
 * scores at or above it (r group maxima), so every score below it can go:
 * the block is collected with "at or above T0" (the threshold just below
 * T0) and cut back to r. On random order about r (1 + len / G) scores pass
 * instead of the r ln(len / r) of growing the threshold from the first r.
 * Returns how many scores it used (0: not done).
 */
static int64_t feed_first_block(top_select *sel, const float *score, int64_t j0, int64_t len)
{
    const int64_t r = sel->r, groups = (r + 15) / 16 * 16;
    if (len < 4 * groups || groups > sel->room)
        return 0;
    float *gmax = sel->group_max;
    for (int64_t g = 0; g < groups; g++)
        gmax[g] = score[g];
    const int64_t whole = len / groups * groups;
    for (int64_t c = groups; c < whole; c += groups)
        for (int64_t g = 0; g < groups; g++) /* branch-free: maxss */
            gmax[g] = score[c + g] > gmax[g] ? score[c + g] : gmax[g];
    const float t0 = nth_largest(gmax, groups, r - 1, sel->work);
    if (t0 == -INFINITY)
        return 0; /* "at or above" would need a threshold below -inf */
    sel->threshold = nextafterf(t0, -INFINITY);
    sel->full = 1; /* from here on, the threshold rule holds */
    int64_t t = 0;
    while (t < len) {
        int64_t written;
        t += sel->collect(score + t, len - t, sel->threshold, j0 + t, sel->score + sel->kept, sel->index + sel->kept,
                          sel->room - sel->kept, &written);
        sel->kept += written;
        if (t < len || sel->kept > r) /* no room for another step, or the block is done: back to the best r */
            sel->threshold = cut_to(sel, r);
    }
    return len;
}

void top_select_cut(top_select *sel)
{
    sel->threshold = cut_to(sel, sel->r);
}

void top_select_feed(top_select *sel, const float *score, int64_t j0, int64_t len)
{
    int64_t t = 0;
    if (sel->kept == 0 && !sel->full)
        t = feed_first_block(sel, score, j0, len);
    for (; t < len && !sel->full; t++) { /* the first r columns are all kept */
        sel->score[sel->kept] = score[t];
        sel->index[sel->kept] = j0 + t;
        if (++sel->kept == sel->r) {
            sel->threshold = cut_to(sel, sel->r);
            sel->full = 1;
        }
    }
    while (t < len) {
        int64_t written;
        t += sel->collect(score + t, len - t, sel->threshold, j0 + t, sel->score + sel->kept, sel->index + sel->kept,
                          sel->room - sel->kept, &written);
        sel->kept += written;
        if (t < len) /* no room for another step */
            sel->threshold = cut_to(sel, sel->r);
    }
}

int64_t top_select_finish(top_select *sel, int sorted)
{
    if (sel->kept > sel->r)
        cut_to(sel, sel->r);
    const int64_t kept = sel->kept;
    for (int64_t t = 0; t < kept; t++) {
        sel->buf[t].score = sel->score[t];
        sel->buf[t].index = sel->index[t];
    }
    if (sorted)
        scored_sort(sel->buf, kept);
    return kept;
}
