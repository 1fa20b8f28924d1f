/*
 * bench_select.h - the per-row top-r selection of mode topk's "openblas
 * blocks" contender: OpenBLAS computes the scores, this keeps each row's r
 * best while the scores stream past, block after block of columns.
 *
 * The same algorithm as sketchmm's own selection (approx/approx_select.h,
 * which the benchmark cannot call: it is not public API), written again
 * here: the first r scores are kept; after that a vector scan finds the next
 * score above the r-th best kept so far (the threshold), the
 * BENCH_SELECT_STEP scores from it are appended branch-free (the passing ones
 * counted), and when BENCH_SELECT_SLACK r are kept a quickselect cuts the
 * list back to r and raises the threshold. Order: larger score first, then
 * smaller column (equal scores rank by column). The scan kernels: plain C,
 * AVX2 (8 scores per compare) and AVX-512 (16 per compare), four vectors a
 * step, chosen from sketchmm's ISA path (smm_get_isa) so SKETCHMM_ISA acts
 * on both contenders alike.
 */
#ifndef SKETCHMM_BENCH_SELECT_H
#define SKETCHMM_BENCH_SELECT_H

#include <stdint.h>

#define BENCH_SELECT_STEP 16
#define BENCH_SELECT_SLACK 4

typedef struct {
    float score;
    int64_t index;
} bench_scored;

/* The least t in [0, len) with s[t] > threshold, or len. */
typedef int64_t (*bench_select_scan_fn)(const float *s, int64_t len, float threshold);

int64_t bench_select_scan_scalar(const float *s, int64_t len, float threshold);
#ifdef SKETCHMM_BENCH_X86_KERNELS
int64_t bench_select_scan_avx2(const float *s, int64_t len, float threshold);
int64_t bench_select_scan_avx512(const float *s, int64_t len, float threshold);
#endif

/* The scan kernel of sketchmm's current ISA path, and its name ("scalar", "avx2", "avx512"). */
bench_select_scan_fn bench_select_scan_for_isa(const char **name);

typedef struct {
    bench_scored *buf; /* bench_select_capacity(r) entries */
    int64_t r, kept;
    float threshold;
    int full;
    bench_select_scan_fn scan;
} bench_select;

int64_t bench_select_capacity(int64_t r);
void bench_select_init(bench_select *sel, bench_scored *buf, int64_t r, bench_select_scan_fn scan);
/* Feed the scores of columns j0 .. j0 + len - 1 (increasing j0 from call to call). */
void bench_select_feed(bench_select *sel, const float *score, int64_t j0, int64_t len);
/* Sort what is kept; the best min(r, columns fed) come first in sel->buf. Returns that count. */
int64_t bench_select_finish(bench_select *sel);
/* Order a[0 .. count) and keep the best r first (merging partial lists). */
void bench_select_first(bench_scored *a, int64_t count, int64_t r);

#endif /* SKETCHMM_BENCH_SELECT_H */
