/*
 * approx_select.c - the r largest of a stream of scores (see approx_select.h).
 */
#include "approx/approx_select.h"

#include <stdlib.h>

static int scored_cmp(const void *x, const void *y)
{
    const scored_index *a = x, *b = y;
    if (a->score != b->score)
        return a->score > b->score ? -1 : 1;
    return a->index < b->index ? -1 : (a->index > b->index);
}

void scored_sort(scored_index *a, int64_t count)
{
    qsort(a, (size_t)count, sizeof *a, scored_cmp);
}

int64_t top_select_capacity(int64_t r)
{
    return 2 * r + TOP_SELECT_STEP;
}

void top_select_init(top_select *sel, scored_index *buf, int64_t r)
{
    sel->buf = buf;
    sel->r = r;
    sel->kept = 0;
    sel->threshold = 0.0f;
    sel->full = 0;
}

/* Sort, keep the best r, and make the r-th the threshold. */
static void cut(top_select *sel)
{
    scored_sort(sel->buf, sel->kept);
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
            for (int64_t u = 0; u < step; u++)
                if (s[u] > threshold) {
                    sel->buf[sel->kept].score = s[u];
                    sel->buf[sel->kept].index = j0 + t + u;
                    sel->kept++;
                }
            if (sel->kept > 2 * sel->r) /* room for one more step: capacity 2r + TOP_SELECT_STEP */
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
