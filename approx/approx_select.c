/*
 * approx_select.c - the r largest of a stream of scores (see approx_select.h).
 */
#include "approx/approx_select.h"


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

int64_t top_select_capacity(int64_t r)
{
    return TOP_SELECT_SLACK * r + TOP_SELECT_STEP;
}

void top_select_init(top_select *sel, scored_index *buf, int64_t r)
{
    sel->buf = buf;
    sel->r = r;
    sel->kept = 0;
    sel->threshold = 0.0f;
    sel->full = 0;
}

/* Keep the best r, and make the r-th the threshold. */
static void cut(top_select *sel)
{
    scored_select(sel->buf, sel->kept, sel->r);
    sel->kept = sel->r;
    sel->threshold = sel->buf[sel->r - 1].score;
    sel->full = 1;
}

void top_select_feed(top_select *sel, const float *score, int64_t j0, int64_t len)
{
    int64_t t = 0;
    for (; t < len && !sel->full; t++) { /* the first r columns are all kept */
        sel->buf[sel->kept].score = score[t];
        sel->buf[sel->kept].index = j0 + t;
        if (++sel->kept == sel->r)
            cut(sel);
    }
    while (t < len) {
        const int64_t step = len - t < TOP_SELECT_STEP ? len - t : TOP_SELECT_STEP;
        const float *s = score + t;
        const float threshold = sel->threshold;
        int any = 0;
        for (int64_t u = 0; u < step; u++)
            any |= s[u] > threshold;
        if (any) {
            /* branch-free append: every score is written, only the passing ones are counted */
            scored_index *buf = sel->buf;
            int64_t kept = sel->kept;
            for (int64_t u = 0; u < step; u++) {
                buf[kept].score = s[u];
                buf[kept].index = j0 + t + u;
                kept += s[u] > threshold;
            }
            sel->kept = kept;
            if (sel->kept > TOP_SELECT_SLACK * sel->r) /* room for one more step: see the capacity */
                cut(sel);
        }
        t += step;
    }
}

int64_t top_select_finish(top_select *sel)
{
    scored_sort(sel->buf, sel->kept);
    if (sel->kept > sel->r)
        sel->kept = sel->r;
    return sel->kept;
}
