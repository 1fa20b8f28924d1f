/*
 * approx_select.h - the r largest of a stream of scores, as top-k needs them:
 * scores arrive in blocks of increasing column index and only those that can
 * still make the cut are kept.
 */
#ifndef APPROX_SELECT_H
#define APPROX_SELECT_H

#include <stddef.h>
#include <stdint.h>

/* A score and its column. Order: larger score first, then smaller index. */
typedef struct {
    float score;
    int64_t index;
} scored_index;

/* Sort a[0 .. count) into the order above (a total order: indices are distinct). */
void scored_sort(scored_index *a, int64_t count);

/* Put the first min(r, count) entries of a[0 .. count), in order, at a[0 ..); the rest follow in no order. */
void scored_first(scored_index *a, int64_t count, int64_t r);

/*
 * Selection state for the best r (>= 1) scores of one row. Feed the scores of
 * columns j0 .. j0 + len - 1 in increasing j0, none NaN. The first r are
 * kept; after that a score is kept only when it beats the current r-th best
 * (a later column must beat it strictly: equal scores rank by index), and the
 * kept list is cut back to r (a quickselect) when it holds TOP_SELECT_SLACK r
 * (each cut costs O(kept), so a larger slack means fewer of them). Work: one
 * comparison per score (branch-free loops over steps of TOP_SELECT_STEP
 * scores) plus O(r) per cut; about r ln(n / r) scores are kept on random
 * input.
 */
#define TOP_SELECT_STEP 16
#define TOP_SELECT_SLACK 4
typedef struct {
    scored_index *buf; /* top_select_capacity(r) entries */
    int64_t r, kept;
    float threshold;   /* the r-th best once kept has reached r (full) */
    int full;
} top_select;

/* Entries of the buffer a top_select for r needs. */
int64_t top_select_capacity(int64_t r);

void top_select_init(top_select *sel, scored_index *buf, int64_t r);
void top_select_feed(top_select *sel, const float *score, int64_t j0, int64_t len);

/* Sort what is kept and return how many of the best come first in sel->buf: min(r, columns fed). */
int64_t top_select_finish(top_select *sel);

#endif /* APPROX_SELECT_H */
