/* hamming_scalar.c - portable reference Hamming kernels (row, panel, filter) and the panel packer (see hamming_kernels.h). */
#include "sketch/hamming_kernels.h"

void hamming_row_scalar(const uint64_t *q, const uint64_t *b, int64_t nb,
                        int64_t ldb, int64_t words, uint32_t *out)
{
    for (int64_t j = 0; j < nb; j++) {
        const uint64_t *bj = b + j * ldb;
        uint64_t count = 0;
        for (int64_t w = 0; w < words; w++)
            count += (uint64_t)__builtin_popcountll(q[w] ^ bj[w]);
        out[j] = (uint32_t)count;
    }
}

void hamming_pack_panel(const uint64_t *b, int64_t ldb, int64_t j0, int64_t count, int64_t words,
                        uint64_t *panel)
{
    for (int64_t w = 0; w < words; w++) {
        uint64_t *dst = panel + w * HAMMING_PANEL;
        for (int c = 0; c < HAMMING_PANEL; c++)
            dst[(c % 4) * 8 + c / 4] = c < count ? b[(j0 + c) * ldb + w] : 0;
    }
}

/* Reference panel kernel: each distance summed word by word from the packed layout. */
void hamming_panel_scalar(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                          int64_t words, void *out, int64_t ldo, int out_u32, int stream)
{
    (void)stream;
    for (int64_t i = 0; i < na; i++) {
        const uint64_t *q = a + i * lda;
        for (int64_t j = 0; j < nb; j++) {
            const uint64_t *panel = panels + (j / HAMMING_PANEL) * HAMMING_PANEL * words;
            const int64_t c = j % HAMMING_PANEL, lane = (c % 4) * 8 + c / 4;
            uint64_t count = 0;
            for (int64_t w = 0; w < words; w++)
                count += (uint64_t)__builtin_popcountll(q[w] ^ panel[w * HAMMING_PANEL + lane]);
            if (out_u32)
                ((uint32_t *)out)[i * ldo + j] = (uint32_t)count;
            else
                ((uint16_t *)out)[i * ldo + j] = (uint16_t)count;
        }
    }
}

/* Reference filter kernel: each distance compared, the panels with one at or below the limit listed. */
int64_t hamming_filter_scalar(const uint16_t *d, int64_t n, uint32_t t, uint32_t *hits, uint32_t *masks)
{
    int64_t h = 0;
    for (int64_t j0 = 0; j0 < n; j0 += HAMMING_PANEL) {
        const int64_t len = n - j0 < HAMMING_PANEL ? n - j0 : HAMMING_PANEL;
        uint32_t m = 0;
        for (int64_t c = 0; c < len; c++)
            m |= (uint32_t)(d[j0 + c] <= t) << c;
        if (m != 0) {
            hits[h] = (uint32_t)(j0 / HAMMING_PANEL);
            masks[h++] = m;
        }
    }
    return h;
}

/* Scan kernel: the panel kernel, then the filter kernel on each row. */
void hamming_scan_scalar(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb, int64_t words,
                         const uint32_t *limit, uint16_t *d, int64_t ldd, uint32_t *hits, uint32_t *masks, int64_t ldh,
                         int64_t *nhits)
{
    hamming_panel_scalar(a, lda, na, panels, nb, words, d, ldd, 0, 0);
    for (int64_t i = 0; i < na; i++)
        nhits[i] = hamming_filter_scalar(d + i * ldd, nb, limit[i], hits + i * ldh, masks + i * ldh);
}

/* Bound kernel: the group minima, then the k-th smallest of them by a binary search on counts. */
uint32_t hamming_bound_scalar(const uint16_t *d, int64_t n, int64_t k, int64_t gv, uint16_t *work)
{
    const int64_t g = HAMMING_PANEL * gv;
    for (int64_t l = 0; l < g; l++)
        work[l] = d[l];
    for (int64_t j = g; j < n; j++)
        work[j % g] = d[j] < work[j % g] ? d[j] : work[j % g];
    uint32_t lo = 0, hi = 65535;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        int64_t le = 0;
        for (int64_t l = 0; l < g; l++)
            le += work[l] <= mid;
        if (le >= k)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Gather kernel: the set bits of each mask, lowest first. */
int64_t hamming_gather_scalar(const uint16_t *d, const uint32_t *hits, const uint32_t *masks, int64_t h, uint32_t *pos,
                              uint32_t *dist)
{
    int64_t w = 0;
    for (int64_t t = 0; t < h; t++) {
        const uint32_t base = hits[t] * HAMMING_PANEL;
        for (uint32_t m = masks[t]; m != 0; m &= m - 1) {
            const uint32_t j = base + (uint32_t)__builtin_ctz(m);
            pos[w] = j;
            dist[w++] = d[j];
        }
    }
    return w;
}

/* Prefix kernel: the panel kernel, then the bound kernel on each row. */
void hamming_prefix_scalar(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                           int64_t words, int64_t k, int64_t gv, uint16_t *d, int64_t ldd, uint16_t *work, uint32_t *t0)
{
    hamming_panel_scalar(a, lda, na, panels, nb, words, d, ldd, 0, 0);
    for (int64_t i = 0; i < na; i++)
        t0[i] = hamming_bound_scalar(d + i * ldd, nb, k, gv, work);
}

/* Place kernel: a counting sort on distance (stable), the codes past the k-th left out. */
void hamming_place_scalar(const uint32_t *pos, const uint32_t *dist, int64_t e, int64_t k, int64_t base, uint32_t lo,
                          uint32_t hi, uint32_t *hist, int64_t *out_idx, uint32_t *out_dist)
{
    for (int64_t i = 0; i < e; i++)
        hist[dist[i]]++;
    uint32_t start = 0;
    for (uint32_t d = lo; d <= hi; d++) {
        const uint32_t n = hist[d];
        hist[d] = start;
        start += n;
        if (d == hi)
            break; /* hi may be UINT32_MAX */
    }
    for (int64_t i = 0; i < e; i++) {
        const uint32_t t = hist[dist[i]]++;
        if (t < (uint64_t)k) {
            out_idx[t] = base + pos[i];
            out_dist[t] = dist[i];
        }
    }
    for (uint32_t d = lo; d <= hi; d++) {
        hist[d] = 0;
        if (d == hi)
            break;
    }
}
