/*
 * approx_select.h - the r largest of a stream of scores, as top-k needs them:
 * scores arrive in blocks of increasing column index and only those that can
 * still make the cut are kept.
 */
#ifndef APPROX_SELECT_H
#define APPROX_SELECT_H

#include <stddef.h>
#include <stdint.h>

#include "common/smm_dispatch.h"

/* A score and its column. Order: larger score first, then smaller index. */
typedef struct {
    float score;
    int64_t index;
} scored_index;

/* Sort a[0 .. count) into the order above (a total order: indices are distinct). */
void scored_sort(scored_index *a, int64_t count);

/* Put the first min(r, count) entries of a[0 .. count), in order, at a[0 ..); the rest follow in no order. */
void scored_first(scored_index *a, int64_t count, int64_t r);

#define TOP_SELECT_STEP 16

/*
 * Append scores t .. t + step - 1 of s that exceed threshold (with their
 * columns j0 + t + u) at score_out[w], index_out[w] ..: every score is
 * written and the passing ones counted, branch-free. Returns the new w.
 * The tail of the collect kernels (approx_select_*.c) once a step has a
 * passing score.
 */
static inline int64_t top_select_append(const float *s, int64_t t, int64_t step, float threshold, int64_t j0,
                                        float *score_out, int64_t *index_out, int64_t w)
{
    for (int64_t u = 0; u < step; u++) {
        score_out[w] = s[t + u];
        index_out[w] = j0 + t + u;
        w += s[t + u] > threshold;
    }
    return w;
}
#define TOP_SELECT_SLACK 4

/*
 * Collect kernel of the selection: the scores above a threshold, with their
 * columns. It walks s[0 .. len) in steps of TOP_SELECT_STEP scores (the last
 * one may be shorter) and, as long as room - *written >= TOP_SELECT_STEP at
 * the start of a step, appends (s[t], j0 + t) to (score_out, index_out) for
 * every t of the step with s[t] > threshold, in increasing t. Returns how
 * many scores it walked (len, or the start of the first step it had no room
 * for), with *written the number appended. It writes score_out and
 * index_out only inside [0, room), entries past *written as scratch (whole
 * vector stores). len >= 0, room >= 0, s holds no NaN. Every kernel returns
 * the same count and appends the same entries.
 * The kernels of each ISA path are a row of the table of approx_select.c
 * (common/smm_dispatch.h): plain C (the twin the others are tested against:
 * one branch per step on whether any score passes, then a branch-free
 * append), AVX2 (movemask of four 8-score compares per 32 scores, then the
 * same append), AVX-512 (compares to masks, 64 scores a branch; a step with
 * a passing score is appended with compress: no branch per score) and NEON.
 */
typedef int64_t (*top_select_collect_fn)(const float *s, int64_t len, float threshold, int64_t j0, float *score_out,
                                         int64_t *index_out, int64_t room, int64_t *written);

int64_t top_select_collect_scalar(const float *s, int64_t len, float threshold, int64_t j0, float *score_out,
                                  int64_t *index_out, int64_t room, int64_t *written);
#if defined(__x86_64__)
int64_t top_select_collect_avx2(const float *s, int64_t len, float threshold, int64_t j0, float *score_out,
                                int64_t *index_out, int64_t room, int64_t *written);
int64_t top_select_collect_avx512(const float *s, int64_t len, float threshold, int64_t j0, float *score_out,
                                  int64_t *index_out, int64_t room, int64_t *written);
#endif
#if defined(__aarch64__)
int64_t top_select_collect_neon(const float *s, int64_t len, float threshold, int64_t j0, float *score_out,
                                int64_t *index_out, int64_t room, int64_t *written);
#endif

typedef struct {
    smm_kernel_head head; /* "scalar", "avx2_movemask", "avx512_compress" or "neon" */
    top_select_collect_fn collect;
} top_select_kernels;

/* The row of path isa (never NULL; SMM_ISA_AUTO gives the scalar row). */
const top_select_kernels *top_select_kernels_for(smm_isa isa);

/*
 * Selection state for the best r (>= 1) scores of one row. Feed the scores of
 * columns j0 .. j0 + len - 1 in increasing j0, none NaN. The first r are
 * kept; after that a score is kept only when it beats the current r-th best
 * (a later column must beat it strictly: equal scores rank by index). The
 * kept scores and columns are two arrays in column order; when they hold
 * TOP_SELECT_SLACK r entries they are cut back to the best r: the r-th best
 * score (a quickselect with branch-free, out-of-place partitions) becomes the
 * threshold, and one branch-free pass keeps the entries above it and the
 * first ones equal to it, in order. Work: the collect kernel (one vector
 * compare per 8 or 16 scores; only kept scores are written) plus O(r) per
 * cut, i.e. O(1) per kept score; about r ln(n / r) scores are kept on
 * random input.
 */
typedef struct {
    scored_index *buf; /* the result (top_select_finish); the kept arrays live in the same buffer */
    float *score;      /* kept scores, TOP_SELECT_SLACK r + TOP_SELECT_STEP room */
    int64_t *index;    /* their columns, increasing */
    float *work[3];    /* the quickselect's work arrays */
    float *group_max;  /* the first block's group maxima */
    int64_t r, kept, room;
    float threshold;   /* the r-th best once kept has reached r (full) */
    int full;
    top_select_collect_fn collect;
} top_select;

/* Entries of the buffer a top_select for r needs. */
int64_t top_select_capacity(int64_t r);

/* Start a selection of the best r into buf (top_select_capacity(r) entries, 8-byte aligned), with the kernels of
 * path isa. */
void top_select_init(top_select *sel, scored_index *buf, int64_t r, smm_isa isa);
void top_select_feed(top_select *sel, const float *score, int64_t j0, int64_t len);

/*
 * Cut the kept entries of a full selection back to its best r; their r-th
 * becomes the threshold (what top_select_feed does when its room runs out).
 */
void top_select_cut(top_select *sel);

/*
 * Keep the scores of a full selection that a fused kernel found above its
 * threshold: bit u of bits set (u < 32) for score[u] > sel->threshold, the
 * scores of columns j0 + u. They are appended in increasing u, each checked
 * again against the threshold in force (a cut, when the room is full, may
 * have raised it): the entries top_select_feed would keep, without its
 * collect pass over the scores, one step of scalar work per set bit (set
 * bits are rare once the threshold has risen).
 */
static inline void top_select_take(top_select *sel, const float *score, uint32_t bits, int64_t j0)
{
    while (bits != 0) {
        const int u = __builtin_ctz(bits);
        bits &= bits - 1;
        if (sel->kept == sel->room)
            top_select_cut(sel);
        if (score[u] > sel->threshold) {
            sel->score[sel->kept] = score[u];
            sel->index[sel->kept] = j0 + u;
            sel->kept++;
        }
    }
}

/*
 * Put the best of what is kept into sel->buf and return how many: min(r,
 * columns fed); in order (larger score first, then smaller column) when
 * sorted != 0, else in increasing column (no sort: for callers that only
 * need the set).
 */
int64_t top_select_finish(top_select *sel, int sorted);

#endif /* APPROX_SELECT_H */
