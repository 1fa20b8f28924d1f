/*
 * bench_select.c - the streaming top-r selection of mode topk's OpenBLAS
 * contender (see bench_select.h).
 */
#include "bench_select.h"

#include <stdlib.h>

#include "sketchmm.h"

static inline int before(const bench_scored *a, const bench_scored *b)
{
    return a->score > b->score || (a->score == b->score && a->index < b->index);
}

static inline void swap_entries(bench_scored *a, bench_scored *b)
{
    const bench_scored t = *a;
    *a = *b;
    *b = t;
}

static void insertion_sort(bench_scored *a, int64_t lo, int64_t hi)
{
    for (int64_t i = lo + 1; i <= hi; i++) {
        const bench_scored x = a[i];
        int64_t j = i - 1;
        for (; j >= lo && before(&x, &a[j]); j--)
            a[j + 1] = a[j];
        a[j + 1] = x;
    }
}

/* Median-of-three partition of a[lo .. hi] (hi - lo >= 2); returns the pivot's final position. */
static int64_t partition(bench_scored *a, int64_t lo, int64_t hi)
{
    const int64_t mid = lo + (hi - lo) / 2;
    if (before(&a[mid], &a[lo]))
        swap_entries(&a[mid], &a[lo]);
    if (before(&a[hi], &a[lo]))
        swap_entries(&a[hi], &a[lo]);
    if (before(&a[hi], &a[mid]))
        swap_entries(&a[hi], &a[mid]);
    swap_entries(&a[mid], &a[hi - 1]);
    const bench_scored pivot = a[hi - 1];
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

/* a[0 .. r) become the first r of a[0 .. count) (in no order), a[r - 1] the r-th. */
static void quickselect(bench_scored *a, int64_t count, int64_t r)
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

static int compare_entries(const void *x, const void *y)
{
    const bench_scored *a = x, *b = y;
    return before(a, b) ? -1 : before(b, a) ? 1 : 0;
}

int64_t bench_select_scan_scalar(const float *s, int64_t len, float threshold)
{
    for (int64_t t = 0; t < len; t++)
        if (s[t] > threshold)
            return t;
    return len;
}

bench_select_scan_fn bench_select_scan_for_isa(const char **name)
{
    smm_isa isa = SMM_ISA_SCALAR;
    if (smm_get_isa(&isa) != SMM_OK)
        isa = SMM_ISA_SCALAR;
#ifdef SKETCHMM_BENCH_X86_KERNELS
    if (isa == SMM_ISA_AVX512) {
        *name = "avx512";
        return bench_select_scan_avx512;
    }
    if (isa == SMM_ISA_AVX2) {
        *name = "avx2";
        return bench_select_scan_avx2;
    }
#endif
    *name = "scalar";
    return bench_select_scan_scalar;
}

int64_t bench_select_capacity(int64_t r)
{
    return BENCH_SELECT_SLACK * r + BENCH_SELECT_STEP;
}

void bench_select_init(bench_select *sel, bench_scored *buf, int64_t r, bench_select_scan_fn scan)
{
    sel->buf = buf;
    sel->r = r;
    sel->kept = 0;
    sel->threshold = 0.0f;
    sel->full = 0;
    sel->scan = scan;
}

static void cut(bench_select *sel)
{
    quickselect(sel->buf, sel->kept, sel->r);
    sel->kept = sel->r;
    sel->threshold = sel->buf[sel->r - 1].score;
    sel->full = 1;
}

void bench_select_feed(bench_select *sel, const float *score, int64_t j0, int64_t len)
{
    int64_t t = 0;
    for (; t < len && !sel->full; t++) {
        sel->buf[sel->kept].score = score[t];
        sel->buf[sel->kept].index = j0 + t;
        if (++sel->kept == sel->r)
            cut(sel);
    }
    while (t < len) {
        t += sel->scan(score + t, len - t, sel->threshold);
        if (t >= len)
            break;
        const int64_t step = len - t < BENCH_SELECT_STEP ? len - t : BENCH_SELECT_STEP;
        const float *s = score + t;
        const float threshold = sel->threshold;
        bench_scored *buf = sel->buf;
        int64_t kept = sel->kept;
        for (int64_t u = 0; u < step; u++) {
            buf[kept].score = s[u];
            buf[kept].index = j0 + t + u;
            kept += s[u] > threshold;
        }
        sel->kept = kept;
        if (kept > BENCH_SELECT_SLACK * sel->r)
            cut(sel);
        t += step;
    }
}

int64_t bench_select_finish(bench_select *sel)
{
    qsort(sel->buf, (size_t)sel->kept, sizeof *sel->buf, compare_entries);
    if (sel->kept > sel->r)
        sel->kept = sel->r;
    return sel->kept;
}

void bench_select_first(bench_scored *a, int64_t count, int64_t r)
{
    if (r < count)
        quickselect(a, count, r);
    qsort(a, (size_t)(r < count ? r : count), sizeof *a, compare_entries);
}
