/*
 * test_hamming.c - Check suite of the Hamming part of the sketch module:
 * the panel and filter kernels of every ISA path against the scalar
 * references, sketch_hamming_u16 / sketch_hamming_u32 against a naive
 * definition on edge shapes (word counts around vector widths, empty and
 * odd set sizes, padded leading dimensions, unaligned pointers, outputs
 * large enough for non-temporal stores), sketch_hamming_topk against a brute
 * force selection (with many ties), on every ISA path this CPU runs and with
 * 1 and 2 threads, and the argument checks (documented statuses, outputs
 * untouched). Under qemu-aarch64 the NEON path is among the paths tested.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#include "common/smm_runtime.h"
#include "sketch/hamming_kernels.h"

static const uint16_t SENTINEL16 = 0xBEEF;
static const uint32_t SENTINEL32 = 0xDEADBEEFu;

/* An ISA path this CPU cannot run, or SMM_ISA_AUTO when it runs them all. */
static smm_isa unsupported_isa(void)
{
    static const smm_isa all[] = { SMM_ISA_AVX2, SMM_ISA_AVX512, SMM_ISA_NEON };
    for (int i = 0; i < 3; i++)
        if (!smm_isa_supported(all[i]))
            return all[i];
    return SMM_ISA_AUTO;
}

static void fill_codes(uint64_t *c, int64_t count, uint64_t *rng)
{
    for (int64_t k = 0; k < count; k++)
        c[k] = test_rng_next(rng);
}

/* popcount(x xor y) over words, bit by bit: the definition. */
static uint32_t naive_distance(const uint64_t *x, const uint64_t *y, int64_t words)
{
    uint32_t c = 0;
    for (int64_t w = 0; w < words; w++) {
        uint64_t v = x[w] ^ y[w];
        while (v) {
            v &= v - 1;
            c++;
        }
    }
    return c;
}

/* A buffer of n uint64_t starting `offset` bytes past a 64-byte boundary (offset a multiple of 8). */
typedef struct {
    void *raw;
    uint64_t *p;
} codes_buf;

static codes_buf codes_alloc(int64_t n, size_t offset)
{
    codes_buf c;
    c.raw = malloc((size_t)(n > 0 ? n : 1) * sizeof(uint64_t) + 128);
    ck_assert_ptr_nonnull(c.raw);
    uintptr_t base = ((uintptr_t)c.raw + 63) & ~(uintptr_t)63;
    c.p = (uint64_t *)(base + offset);
    return c;
}

/* ======================================================================
 * Panel and filter kernels against the scalar references
 * ====================================================================== */

static const int64_t kernel_words[] = { 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 33, 1023, 1024, 1030 };
static const int64_t kernel_nbs[] = { 0, 1, 7, 8, 9, 31, 32, 33, 70 };
static const int64_t kernel_nas[] = { 0, 1, 2, 3, 4, 5, 9 };

START_TEST(test_panel_kernels_match_scalar)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    uint64_t rng = 11;
    for (size_t wi = 0; wi < sizeof kernel_words / sizeof kernel_words[0]; wi++) {
        const int64_t words = kernel_words[wi];
        for (size_t ni = 0; ni < sizeof kernel_nbs / sizeof kernel_nbs[0]; ni++) {
            const int64_t nb = kernel_nbs[ni];
            for (size_t ai = 0; ai < sizeof kernel_nas / sizeof kernel_nas[0]; ai++) {
                const int64_t na = kernel_nas[ai];
                if (words >= 1023 && (nb > 33 || na > 5))
                    continue;
                const int64_t lda = words + (int64_t)(ai % 3), ldb = words + (int64_t)(ni % 2), ldo = nb + 3;
                uint64_t *a = malloc((size_t)(na * lda + 1) * sizeof(uint64_t));
                uint64_t *b = malloc((size_t)(nb * ldb + 1) * sizeof(uint64_t));
                const int64_t npanels = (nb + HAMMING_PANEL - 1) / HAMMING_PANEL;
                uint64_t *panels = smm_aligned_alloc((size_t)(npanels * HAMMING_PANEL * words + 1) * sizeof(uint64_t));
                const size_t out_n = (size_t)(na * ldo + 1);
                uint32_t *want = malloc(out_n * sizeof(uint32_t)), *got32 = malloc(out_n * sizeof(uint32_t));
                uint16_t *got16 = malloc(out_n * sizeof(uint16_t));
                ck_assert(a && b && panels && want && got32 && got16);
                fill_codes(a, na * lda, &rng);
                fill_codes(b, nb * ldb, &rng);
                if (na > 0 && nb > 2) /* the extremes: distance 0 and 64 * words */
                    for (int64_t w = 0; w < words; w++) {
                        b[w] = a[w];
                        b[ldb + w] = ~a[w];
                    }
                for (int64_t p = 0; p < npanels; p++) {
                    const int64_t count = nb - p * HAMMING_PANEL < HAMMING_PANEL ? nb - p * HAMMING_PANEL : HAMMING_PANEL;
                    hamming_pack_panel(b, ldb, p * HAMMING_PANEL, count, words, panels + p * HAMMING_PANEL * words);
                }
                for (size_t t = 0; t < out_n; t++)
                    want[t] = SENTINEL32;
                for (int64_t i = 0; i < na; i++)
                    for (int64_t j = 0; j < nb; j++)
                        want[i * ldo + j] = naive_distance(a + i * lda, b + j * ldb, words);
                for (int k = 0; k < nisa; k++) {
                    const hamming_kernels *row = hamming_kernels_for(isas[k]);
                    const hamming_panel_fn kernel = row->panel;
                    for (int stream = 0; stream < 2; stream++) {
                        for (size_t t = 0; t < out_n; t++)
                            got32[t] = SENTINEL32;
                        kernel(a, lda, na, panels, nb, words, got32, ldo, 1, stream);
                        ck_assert_msg(memcmp(got32, want, out_n * sizeof(uint32_t)) == 0,
                                      "u32: kernel %s words %lld na %lld nb %lld stream %d",
                                      row->head.name, (long long)words, (long long)na,
                                      (long long)nb, stream);
                        if (words > HAMMING_U16_MAX_WORDS)
                            continue;
                        for (size_t t = 0; t < out_n; t++)
                            got16[t] = SENTINEL16;
                        kernel(a, lda, na, panels, nb, words, got16, ldo, 0, stream);
                        for (size_t t = 0; t < out_n; t++) {
                            const uint32_t expect = want[t] == SENTINEL32 ? SENTINEL16 : want[t];
                            ck_assert_msg(got16[t] == expect, "u16: kernel %s words %lld na %lld nb %lld at %zu",
                                          row->head.name, (long long)words, (long long)na,
                                          (long long)nb, t);
                        }
                    }
                }
                free(a);
                free(b);
                smm_aligned_free(panels);
                free(want);
                free(got32);
                free(got16);
            }
        }
    }
}
END_TEST

/*
 * Filter kernels: every path lists the scalar twin's panels and masks, which follow the definition, for lengths
 * around the panel width, limits that pass none, some, all (and past 16 bits), distances at both extremes; nothing
 * is written past the slack, and nothing past n is read (the buffer is exactly n distances).
 */
START_TEST(test_filter_kernels_match_scalar)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    uint64_t rng = 12;
    static const int64_t lens[] = { 0, 1, 5, 16, 31, 32, 33, 63, 64, 65, 100, 1024, 1055 };
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        const int64_t n = lens[li], panels = (n + HAMMING_PANEL - 1) / HAMMING_PANEL;
        uint16_t *d = malloc((size_t)(n > 0 ? n : 1) * sizeof(uint16_t));
        const size_t room = (size_t)panels + HAMMING_LIST_SLACK + 3;
        uint32_t *want_h = malloc(room * sizeof(uint32_t)), *want_m = malloc(room * sizeof(uint32_t));
        uint32_t *got_h = malloc(room * sizeof(uint32_t)), *got_m = malloc(room * sizeof(uint32_t));
        ck_assert(d && want_h && want_m && got_h && got_m);
        for (int spread = 0; spread < 3; spread++) {
            for (int64_t j = 0; j < n; j++) /* near 128, over the whole range, the extremes */
                d[j] = spread == 0   ? (uint16_t)(120 + test_rng_next(&rng) % 17)
                       : spread == 1 ? (uint16_t)test_rng_next(&rng)
                                     : (uint16_t)(test_rng_next(&rng) % 2 ? 65535 : 0);
            const uint32_t limits[] = { 0, 119, 124, 128, 136, 30000, 65534, 65535, 70000 };
            for (size_t ti = 0; ti < sizeof limits / sizeof limits[0]; ti++) {
                const uint32_t t = limits[ti];
                for (size_t u = 0; u < room; u++)
                    want_h[u] = want_m[u] = SENTINEL32;
                const int64_t want = hamming_filter_scalar(d, n, t, want_h, want_m);
                /* the definition */
                int64_t h = 0;
                for (int64_t p = 0; p < panels; p++) {
                    uint32_t m = 0;
                    for (int64_t c = 0; c < HAMMING_PANEL && p * HAMMING_PANEL + c < n; c++)
                        if (d[p * HAMMING_PANEL + c] <= t)
                            m |= 1u << c;
                    if (m != 0) {
                        ck_assert(h < want && want_h[h] == (uint32_t)p && want_m[h] == m);
                        h++;
                    }
                }
                ck_assert_int_eq(h, want);
                for (int k = 0; k < nisa; k++) {
                    const hamming_kernels *row = hamming_kernels_for(isas[k]);
                    for (size_t u = 0; u < room; u++)
                        got_h[u] = got_m[u] = SENTINEL32;
                    const int64_t got = row->filter(d, n, t, got_h, got_m);
                    ck_assert_msg(got == want && memcmp(got_h, want_h, (size_t)want * sizeof(uint32_t)) == 0 &&
                                      memcmp(got_m, want_m, (size_t)want * sizeof(uint32_t)) == 0,
                                  "filter %s n %lld spread %d limit %u", row->head.name, (long long)n, spread, t);
                    for (size_t u = (size_t)panels + HAMMING_LIST_SLACK; u < room; u++) /* the slack at most */
                        ck_assert(got_h[u] == SENTINEL32 && got_m[u] == SENTINEL32);
                }
            }
        }
        free(d);
        free(want_h);
        free(want_m);
        free(got_h);
        free(got_m);
    }
}
END_TEST

/* Random codes a (na x lda) and b (nb x ldb), b packed into panels (caller frees both and the panels). */
static uint64_t *packed_codes(int64_t nb, int64_t words, int64_t ldb, uint64_t *rng, uint64_t **b_out)
{
    uint64_t *b = malloc((size_t)(nb * ldb + 1) * sizeof(uint64_t));
    const int64_t npanels = (nb + HAMMING_PANEL - 1) / HAMMING_PANEL;
    uint64_t *panels = smm_aligned_alloc((size_t)(npanels * HAMMING_PANEL * words + 1) * sizeof(uint64_t));
    ck_assert(b && panels);
    fill_codes(b, nb * ldb, rng);
    for (int64_t p = 0; p < npanels; p++) {
        const int64_t count = nb - p * HAMMING_PANEL < HAMMING_PANEL ? nb - p * HAMMING_PANEL : HAMMING_PANEL;
        hamming_pack_panel(b, ldb, p * HAMMING_PANEL, count, words, panels + p * HAMMING_PANEL * words);
    }
    *b_out = b;
    return panels;
}

/*
 * Scan and prefix kernels: the distances of the panel kernel and, per row, what the filter kernel lists (scan)
 * or the bound kernel returns (prefix), on every path, equal to the scalar kernels; nothing written past the rows.
 */
START_TEST(test_scan_prefix_kernels_match_scalar)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    uint64_t rng = 13;
    static const int64_t words_list[] = { 1, 2, 3, 4, 5, 8, 9, 17, 1023 };
    static const int64_t nbs[] = { 1, 31, 32, 33, 64, 100, 1024, 1030 };
    static const int64_t nas[] = { 1, 2, 3, 4, 5, 9 };
    for (size_t wi = 0; wi < sizeof words_list / sizeof words_list[0]; wi++)
        for (size_t ni = 0; ni < sizeof nbs / sizeof nbs[0]; ni++)
            for (size_t ai = 0; ai < sizeof nas / sizeof nas[0]; ai++) {
                const int64_t words = words_list[wi], nb = nbs[ni], na = nas[ai];
                if (words >= 1023 && (nb > 64 || na > 3))
                    continue;
                const int64_t lda = words + (int64_t)(ai % 2), ldb = words + (int64_t)(ni % 2);
                const int64_t ldd = nb + 5, ldh = (nb + HAMMING_PANEL - 1) / HAMMING_PANEL + HAMMING_LIST_SLACK;
                uint64_t *a = malloc((size_t)(na * lda + 1) * sizeof(uint64_t)), *b;
                ck_assert(a);
                fill_codes(a, na * lda, &rng);
                uint64_t *panels = packed_codes(nb, words, ldb, &rng, &b);
                if (nb > 2) { /* distance 0 and the largest, then the first panel again */
                    for (int64_t w = 0; w < words; w++) {
                        b[w] = a[w];
                        b[ldb + w] = ~a[w];
                    }
                    hamming_pack_panel(b, ldb, 0, nb < HAMMING_PANEL ? nb : HAMMING_PANEL, words, panels);
                }
                const size_t dn = (size_t)(na * ldd), hn = (size_t)(na * ldh);
                uint16_t *want_d = malloc(dn * sizeof(uint16_t)), *got_d = malloc(dn * sizeof(uint16_t));
                uint32_t *want_h = malloc(hn * sizeof(uint32_t)), *want_m = malloc(hn * sizeof(uint32_t));
                uint32_t *got_h = malloc(hn * sizeof(uint32_t)), *got_m = malloc(hn * sizeof(uint32_t));
                uint32_t *limit = malloc((size_t)na * sizeof(uint32_t)), *want_t = malloc((size_t)na * sizeof(uint32_t));
                uint32_t *got_t = malloc((size_t)(na + 1) * sizeof(uint32_t));
                int64_t *want_n = malloc((size_t)(na + 1) * sizeof(int64_t)), *got_n = malloc((size_t)(na + 1) * sizeof(int64_t));
                uint16_t *work = malloc((size_t)(na * 4 * HAMMING_PANEL) * sizeof(uint16_t));
                ck_assert(want_d && got_d && want_h && want_m && got_h && got_m && limit && want_t && got_t && want_n &&
                          got_n && work);
                for (int64_t i = 0; i < na; i++)
                    limit[i] = (uint32_t)(i % 3 == 0 ? 32 * words - 3 * words : i % 3 == 1 ? 0 : 70000);
                for (size_t t = 0; t < dn; t++)
                    want_d[t] = SENTINEL16;
                hamming_scan_scalar(a, lda, na, panels, nb, words, limit, want_d, ldd, want_h, want_m, ldh, want_n);
                for (int64_t i = 0; i < na; i++) /* the scalar scan is the panel kernel, then the filter kernel */
                    for (int64_t j = 0; j < nb; j++)
                        ck_assert(want_d[i * ldd + j] == naive_distance(a + i * lda, b + j * ldb, words));
                for (int q = 0; q < nisa; q++) {
                    const hamming_kernels *row = hamming_kernels_for(isas[q]);
                    for (size_t t = 0; t < dn; t++)
                        got_d[t] = SENTINEL16;
                    got_n[na] = -7;
                    row->scan(a, lda, na, panels, nb, words, limit, got_d, ldd, got_h, got_m, ldh, got_n);
                    ck_assert_msg(memcmp(got_d, want_d, dn * sizeof(uint16_t)) == 0, "scan %s: distances, words %lld nb %lld na %lld",
                                  row->head.name, (long long)words, (long long)nb, (long long)na);
                    ck_assert_int_eq(got_n[na], -7);
                    for (int64_t i = 0; i < na; i++)
                        ck_assert_msg(got_n[i] == want_n[i] &&
                                          memcmp(got_h + i * ldh, want_h + i * ldh, (size_t)want_n[i] * sizeof(uint32_t)) == 0 &&
                                          memcmp(got_m + i * ldh, want_m + i * ldh, (size_t)want_n[i] * sizeof(uint32_t)) == 0,
                                      "scan %s: lists, words %lld nb %lld na %lld row %lld", row->head.name,
                                      (long long)words, (long long)nb, (long long)na, (long long)i);
                }
                /* prefix: k <= 32 gv <= nb */
                for (int64_t gv = 1; gv <= 3 && HAMMING_PANEL * gv <= nb; gv++) {
                    const int64_t ks[] = { 1, 10, HAMMING_PANEL * gv };
                    for (int ki = 0; ki < 3; ki++) {
                        const int64_t k = ks[ki];
                        for (size_t t = 0; t < dn; t++)
                            want_d[t] = SENTINEL16;
                        hamming_prefix_scalar(a, lda, na, panels, nb, words, k, gv, want_d, ldd, work, want_t);
                        for (int64_t i = 0; i < na; i++) { /* the bound: at least k at or below it, fewer than k below */
                            int64_t le = 0, lt = 0;
                            for (int64_t j = 0; j < nb; j++) {
                                le += want_d[i * ldd + j] <= want_t[i];
                                lt += want_d[i * ldd + j] < want_t[i];
                            }
                            ck_assert(le >= k);
                            uint16_t gmin[3 * HAMMING_PANEL];
                            for (int64_t l = 0; l < HAMMING_PANEL * gv; l++)
                                gmin[l] = 65535;
                            for (int64_t j = 0; j < nb; j++) {
                                const int64_t l = j % (HAMMING_PANEL * gv);
                                gmin[l] = want_d[i * ldd + j] < gmin[l] ? want_d[i * ldd + j] : gmin[l];
                            }
                            int64_t glt = 0, gle = 0;
                            for (int64_t l = 0; l < HAMMING_PANEL * gv; l++) {
                                glt += gmin[l] < want_t[i];
                                gle += gmin[l] <= want_t[i];
                            }
                            ck_assert(glt < k && gle >= k); /* the k-th smallest group minimum */
                            (void)lt;
                        }
                        for (int q = 0; q < nisa; q++) {
                            const hamming_kernels *row = hamming_kernels_for(isas[q]);
                            for (size_t t = 0; t < dn; t++)
                                got_d[t] = SENTINEL16;
                            got_t[na] = 7;
                            row->prefix(a, lda, na, panels, nb, words, k, gv, got_d, ldd, work, got_t);
                            ck_assert_msg(memcmp(got_d, want_d, dn * sizeof(uint16_t)) == 0 &&
                                              memcmp(got_t, want_t, (size_t)na * sizeof(uint32_t)) == 0 && got_t[na] == 7,
                                          "prefix %s words %lld nb %lld na %lld k %lld gv %lld", row->head.name,
                                          (long long)words, (long long)nb, (long long)na, (long long)k, (long long)gv);
                            for (int64_t i = 0; i < na; i++) /* the bound kernel alone */
                                ck_assert(row->bound(want_d + i * ldd, nb, k, gv, work) == want_t[i]);
                        }
                    }
                }
                free(a), free(b), smm_aligned_free(panels);
                free(want_d), free(got_d), free(want_h), free(want_m), free(got_h), free(got_m);
                free(limit), free(want_t), free(got_t), free(want_n), free(got_n), free(work);
            }
}
END_TEST

/*
 * Gather and place kernels: every path expands a filter's lists into the same codes and distances as the scalar
 * kernel, and places the k nearest of them in the same order (nothing past its room) and leaves hist zero.
 */
START_TEST(test_gather_place_kernels_match_scalar)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    uint64_t rng = 14;
    static const int64_t lens[] = { 32, 64, 100, 1024 };
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
        for (int spread = 0; spread < 3; spread++)
            for (int li2 = 0; li2 < 4; li2++) {
                const int64_t n = lens[li], panels = (n + HAMMING_PANEL - 1) / HAMMING_PANEL;
                const size_t room = (size_t)(panels * HAMMING_PANEL + 32);
                uint16_t *d = malloc((size_t)(panels * HAMMING_PANEL) * sizeof(uint16_t));
                uint32_t *hits = malloc((size_t)(panels + HAMMING_LIST_SLACK) * sizeof(uint32_t));
                uint32_t *masks = malloc((size_t)(panels + HAMMING_LIST_SLACK) * sizeof(uint32_t));
                uint32_t *want_p = malloc(room * sizeof(uint32_t)), *want_d = malloc(room * sizeof(uint32_t));
                uint32_t *got_p = malloc(room * sizeof(uint32_t)), *got_d = malloc(room * sizeof(uint32_t));
                ck_assert(d && hits && masks && want_p && want_d && got_p && got_d);
                for (int64_t j = 0; j < panels * HAMMING_PANEL; j++) /* few values: many ties */
                    d[j] = spread == 0   ? (uint16_t)(100 + test_rng_next(&rng) % 9)
                           : spread == 1 ? (uint16_t)(test_rng_next(&rng) % 60000)
                                         : (uint16_t)(test_rng_next(&rng) % 3);
                const uint32_t t = spread == 0 ? 101 + (uint32_t)li2 : spread == 1 ? 1000u << li2 : (uint32_t)li2;
                const int64_t h = hamming_filter_scalar(d, n, t, hits, masks);
                const int64_t want = hamming_gather_scalar(d, hits, masks, h, want_p, want_d);
                int64_t e = 0;
                for (int64_t j = 0; j < n; j++)
                    if (d[j] <= t) {
                        ck_assert(e < want && want_p[e] == (uint32_t)j && want_d[e] == d[j]);
                        e++;
                    }
                ck_assert_int_eq(e, want);
                uint32_t lo = t, *hist = calloc((size_t)t + 1, sizeof(uint32_t));
                ck_assert(hist);
                for (int64_t i = 0; i < e; i++)
                    lo = want_d[i] < lo ? want_d[i] : lo;
                for (int q = 0; q < nisa; q++) {
                    const hamming_kernels *row = hamming_kernels_for(isas[q]);
                    const int64_t got = row->gather(d, hits, masks, h, got_p, got_d);
                    ck_assert_msg(got == want && memcmp(got_p, want_p, (size_t)want * sizeof(uint32_t)) == 0 &&
                                      memcmp(got_d, want_d, (size_t)want * sizeof(uint32_t)) == 0,
                                  "gather %s n %lld spread %d limit %u", row->head.name, (long long)n, spread, t);
                    /* place the k nearest (k <= e) against the definition: stable by distance */
                    const int64_t ks[] = { 1, 3, e / 2, e };
                    for (int ki = 0; ki < 4; ki++) {
                        const int64_t k = ks[ki];
                        if (k < 1)
                            continue;
                        const int64_t room2 = e + HAMMING_PLACE_SLACK;
                        int64_t *out_idx = malloc((size_t)(room2 + 1) * sizeof(int64_t));
                        uint32_t *out_dist = malloc((size_t)(room2 + 1) * sizeof(uint32_t));
                        ck_assert(out_idx && out_dist);
                        out_idx[room2] = -7;
                        out_dist[room2] = SENTINEL32;
                        row->place(want_p, want_d, e, k, 1000, lo, t, hist, out_idx, out_dist);
                        ck_assert(out_idx[room2] == -7 && out_dist[room2] == SENTINEL32); /* nothing past the room */
                        int64_t w = 0;
                        for (uint32_t dd = lo; dd <= t && w < k; dd++)
                            for (int64_t i = 0; i < e && w < k; i++)
                                if (want_d[i] == dd) {
                                    ck_assert_msg(out_idx[w] == 1000 + (int64_t)want_p[i] && out_dist[w] == dd,
                                                  "place %s n %lld spread %d k %lld rank %lld", row->head.name,
                                                  (long long)n, spread, (long long)k, (long long)w);
                                    w++;
                                }
                        for (uint32_t dd = 0; dd <= t; dd++)
                            ck_assert(hist[dd] == 0);
                        free(out_idx);
                        free(out_dist);
                    }
                }
                free(hist), free(d), free(hits), free(masks), free(want_p), free(want_d), free(got_p), free(got_d);
            }
}
END_TEST

START_TEST(test_kernel_dispatch)
{
    const hamming_kernels *scalar = hamming_kernels_for(SMM_ISA_SCALAR);
    ck_assert(scalar->row == hamming_row_scalar && scalar->panel == hamming_panel_scalar &&
              scalar->filter == hamming_filter_scalar);
    ck_assert_str_eq(scalar->head.name, "scalar");
    ck_assert(hamming_kernels_for(SMM_ISA_AUTO) == scalar);
#if defined(__x86_64__)
    if (smm_isa_supported(SMM_ISA_AVX2)) {
        const hamming_kernels *avx2 = hamming_kernels_for(SMM_ISA_AVX2);
        ck_assert(avx2->row == hamming_row_avx2 && avx2->panel == hamming_panel_avx2 &&
                  avx2->filter == hamming_filter_avx2);
        ck_assert_str_eq(avx2->head.name, "avx2_pshufb");
    }
    if (smm_isa_supported(SMM_ISA_AVX512)) {
        /* the AVX-512 row needs VPOPCNTDQ; without it the path runs the AVX2 row */
        const hamming_kernels *avx512 = hamming_kernels_for(SMM_ISA_AVX512);
        if (smm_cpu()->flags & SMM_CPU_VPOPCNTDQ) {
            ck_assert(avx512->row == hamming_row_avx512_vpopcntdq && avx512->panel == hamming_panel_avx512_vpopcntdq &&
                      avx512->filter == hamming_filter_avx512);
            ck_assert_str_eq(avx512->head.name, "avx512_vpopcntdq");
            ck_assert_uint_eq(avx512->head.needs, SMM_CPU_VPOPCNTDQ);
        } else {
            ck_assert(avx512 == hamming_kernels_for(SMM_ISA_AVX2));
        }
    }
#endif
#if defined(__aarch64__)
    /* the suite runs under qemu-aarch64: the NEON kernels must be the ones tested there */
    ck_assert(smm_isa_supported(SMM_ISA_NEON));
    const hamming_kernels *neon = hamming_kernels_for(SMM_ISA_NEON);
    ck_assert(neon->panel == hamming_panel_neon && neon->filter == hamming_filter_neon && neon->row == hamming_row_neon);
    ck_assert_str_eq(neon->head.name, "neon_cnt");
    ck_assert_int_eq(smm_set_isa(SMM_ISA_NEON), SMM_OK);
    ck_assert_str_eq(sketch_hamming_kernel_name(), "neon_cnt");
    test_restore_defaults();
#endif
}
END_TEST

/* ======================================================================
 * sketch_hamming_u16 and sketch_hamming_u32
 * ====================================================================== */

static const int64_t api_words[] = { 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 1023 };
static const int64_t api_sizes[] = { 0, 1, 7, 8, 9, 33 };

/* Run both entry points on one shape with every ISA and 1 and 2 threads; compare with the definition. */
static void check_all_pairs(int64_t na, int64_t nb, int64_t words, int64_t lda, int64_t ldb, int64_t ldd,
                            size_t a_off, size_t b_off, size_t d_off, uint64_t *rng)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    codes_buf abuf = codes_alloc(na * lda, a_off), bbuf = codes_alloc(nb * ldb, b_off);
    uint64_t *a = abuf.p, *b = bbuf.p;
    fill_codes(a, na * lda, rng);
    fill_codes(b, nb * ldb, rng);
    if (na > 0 && nb > 1)
        for (int64_t w = 0; w < words; w++) {
            b[w] = a[w];
            b[ldb + w] = ~a[w];
        }
    const size_t n = (size_t)(na * ldd) + 64;
    uint32_t *want = malloc(n * sizeof(uint32_t));
    char *raw32 = malloc(n * sizeof(uint32_t) + 128), *raw16 = malloc(n * sizeof(uint16_t) + 128);
    ck_assert(want && raw32 && raw16);
    uint32_t *got32 = (uint32_t *)((((uintptr_t)raw32 + 63) & ~(uintptr_t)63) + 4 * d_off);
    uint16_t *got16 = (uint16_t *)((((uintptr_t)raw16 + 63) & ~(uintptr_t)63) + 2 * d_off);
    for (size_t t = 0; t < n; t++)
        want[t] = SENTINEL32;
    for (int64_t i = 0; i < na; i++)
        for (int64_t j = 0; j < nb; j++)
            want[i * ldd + j] = naive_distance(a + i * lda, b + j * ldb, words);
    for (int k = 0; k < nisa; k++) {
        ck_assert_int_eq(smm_set_isa(isas[k]), SMM_OK);
        for (int threads = 1; threads <= 2; threads++) {
            ck_assert_int_eq(smm_set_num_threads(threads), SMM_OK);
            for (size_t t = 0; t < n; t++) {
                got32[t] = SENTINEL32;
                got16[t] = SENTINEL16;
            }
            ck_assert_int_eq(sketch_hamming_u32(na, a, lda, nb, b, ldb, words, got32, ldd), SMM_OK);
            ck_assert_msg(memcmp(got32, want, n * sizeof(uint32_t)) == 0,
                          "u32 %s threads %d: na %lld nb %lld words %lld lda %lld ldb %lld ldd %lld",
                          smm_isa_name(isas[k]), threads, (long long)na, (long long)nb, (long long)words,
                          (long long)lda, (long long)ldb, (long long)ldd);
            if (words > 1023)
                continue;
            ck_assert_int_eq(sketch_hamming_u16(na, a, lda, nb, b, ldb, words, got16, ldd), SMM_OK);
            for (size_t t = 0; t < n; t++) {
                const uint32_t expect = want[t] == SENTINEL32 ? SENTINEL16 : want[t];
                if (got16[t] != expect)
                    ck_abort_msg("u16 %s threads %d: na %lld nb %lld words %lld at %zu: %u, want %u",
                                 smm_isa_name(isas[k]), threads, (long long)na, (long long)nb, (long long)words, t,
                                 got16[t], expect);
            }
        }
    }
    test_restore_defaults();
    free(abuf.raw);
    free(bbuf.raw);
    free(want);
    free(raw32);
    free(raw16);
}

START_TEST(test_all_pairs_edge_shapes)
{
    uint64_t rng = 21;
    const size_t nw = sizeof api_words / sizeof api_words[0], ns = sizeof api_sizes / sizeof api_sizes[0];
    const int64_t words = api_words[_i];
    for (size_t x = 0; x < ns; x++)
        for (size_t y = 0; y < ns; y++) {
            const int64_t na = api_sizes[x], nb = api_sizes[y];
            if (words == 1023 && na * nb > 64)
                continue;
            /* minimal leading dimensions, aligned */
            check_all_pairs(na, nb, words, words, words, nb > 0 ? nb : 1, 0, 0, 0, &rng);
            /* padded leading dimensions, unaligned pointers */
            check_all_pairs(na, nb, words, words + 1 + (int64_t)(x % 3), words + 2, nb + 5, 8, 24, 1 + y, &rng);
        }
    (void)nw;
}
END_TEST

/* Outputs of 8 MiB and more use the streaming path; aligned and unaligned rows. */
START_TEST(test_all_pairs_large)
{
    uint64_t rng = 22;
    check_all_pairs(1100, 4100, 1, 1, 1, 4100, 0, 0, 0, &rng);     /* u32 18 MB, u16 9 MB, aligned rows */
    check_all_pairs(1030, 4099, 2, 3, 2, 4101, 8, 0, 3, &rng);     /* rows not 64-byte aligned */
    check_all_pairs(301, 3000, 4, 4, 4, 3008, 0, 8, 0, &rng);     /* several column blocks, 4 words */
}
END_TEST

START_TEST(test_all_pairs_long_codes_u32)
{
    uint64_t rng = 23;
    check_all_pairs(5, 37, 1024, 1024, 1025, 40, 0, 8, 1, &rng);
    check_all_pairs(3, 9, 1030, 1031, 1030, 9, 8, 0, 0, &rng);
}
END_TEST

START_TEST(test_all_pairs_errors)
{
    test_restore_defaults();
    uint64_t a[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, b[8] = { 8, 7, 6, 5, 4, 3, 2, 1 };
    uint16_t d16[16];
    uint32_t d32[16];
    for (int k = 0; k < 16; k++) {
        d16[k] = SENTINEL16;
        d32[k] = SENTINEL32;
    }
    ck_assert_int_eq(sketch_hamming_u16(-1, a, 2, 2, b, 2, 2, d16, 2), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(sketch_hamming_u16(2, a, 2, -1, b, 2, 2, d16, 2), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(sketch_hamming_u16(2, a, 2, 2, b, 2, 0, d16, 2), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(sketch_hamming_u16(1, a, 1024, 1, b, 1024, 1024, d16, 1), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(sketch_hamming_u16(2, a, 1, 2, b, 2, 2, d16, 2), SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(sketch_hamming_u16(2, a, 2, 2, b, 1, 2, d16, 2), SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(sketch_hamming_u16(2, a, 2, 3, b, 2, 2, d16, 2), SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(sketch_hamming_u16(2, a, 2, 0, b, 2, 2, d16, 0), SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(sketch_hamming_u16(2, NULL, 2, 2, b, 2, 2, d16, 2), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(sketch_hamming_u16(2, a, 2, 2, NULL, 2, 2, d16, 2), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(sketch_hamming_u16(2, a, 2, 2, b, 2, 2, NULL, 2), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(sketch_hamming_u16(INT64_MAX / 2, a, 4, 2, b, 2, 2, d16, 2), SMM_ERR_OVERFLOW);
    ck_assert_int_eq(sketch_hamming_u16(2, a, 2, 2, b, 2, 2, d16, INT64_MAX / 2), SMM_ERR_OVERFLOW);
    /* u32 keeps its rules, and takes long codes */
    ck_assert_int_eq(sketch_hamming_u32(2, a, 2, 2, b, 2, 0, d32, 2), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(sketch_hamming_u32(2, a, 2, 2, b, 2, 2, d32, 1), SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(sketch_hamming_u32(2, a, 2, 2, b, 2, 2, NULL, 2), SMM_ERR_NULL_POINTER);
    const smm_isa missing = unsupported_isa();
    if (missing != SMM_ISA_AUTO) {
        smm_set_isa(missing);
        ck_assert_int_eq(sketch_hamming_u16(2, a, 2, 2, b, 2, 2, d16, 2), SMM_ERR_ISA_UNAVAILABLE);
        ck_assert_int_eq(sketch_hamming_u32(2, a, 2, 2, b, 2, 2, d32, 2), SMM_ERR_ISA_UNAVAILABLE);
        test_restore_defaults();
    }
    for (int k = 0; k < 16; k++) {
        ck_assert(d16[k] == SENTINEL16);
        ck_assert(d32[k] == SENTINEL32);
    }
    /* empty sets: nothing written, NULL allowed where there is nothing */
    ck_assert_int_eq(sketch_hamming_u16(0, NULL, 2, 2, b, 2, 2, NULL, 2), SMM_OK);
    ck_assert_int_eq(sketch_hamming_u16(2, a, 2, 0, NULL, 2, 2, NULL, 1), SMM_OK);
    ck_assert_int_eq(sketch_hamming_u16(1, a, 1023, 1, b, 1023, 1023, NULL, 1), SMM_ERR_NULL_POINTER);
}
END_TEST

/* ======================================================================
 * sketch_hamming_topk
 * ====================================================================== */

typedef struct {
    uint32_t d;
    int64_t j;
} scored;

static int by_distance_then_index(const void *x, const void *y)
{
    const scored *p = x, *q = y;
    if (p->d != q->d)
        return p->d < q->d ? -1 : 1;
    return p->j < q->j ? -1 : p->j > q->j;
}

/*
 * Codes with few distinct values make many ties: every word is drawn from
 * `variety` random words (variety 0: independent random words).
 */
static void fill_tied_codes(uint64_t *c, int64_t n, int64_t ld, int variety, uint64_t *rng)
{
    uint64_t pool[8];
    for (int v = 0; v < 8; v++)
        pool[v] = test_rng_next(rng);
    for (int64_t i = 0; i < n; i++)
        for (int64_t w = 0; w < ld; w++) {
            const uint64_t r = test_rng_next(rng);
            c[i * ld + w] = variety == 0 ? r : pool[r % (uint64_t)variety];
        }
}

static void check_topk(int64_t na, int64_t nb, int64_t words, int64_t k, int64_t ldk, int variety, uint64_t *rng)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    const int64_t lda = words + 1, ldb = words + (nb % 2);
    codes_buf abuf = codes_alloc(na * lda, 8), bbuf = codes_alloc(nb * ldb, 16);
    uint64_t *a = abuf.p, *b = bbuf.p;
    fill_tied_codes(a, na, lda, variety, rng);
    fill_tied_codes(b, nb, ldb, variety, rng);
    if (na > 1 && nb > 3) { /* exact duplicates of a query at both ends of b */
        memcpy(b + (nb - 1) * ldb, a + lda, (size_t)words * sizeof(uint64_t));
        memcpy(b + 2 * ldb, a + lda, (size_t)words * sizeof(uint64_t));
    }
    const size_t n = (size_t)(na * ldk) + 1;
    int64_t *want_idx = malloc(n * sizeof(int64_t)), *got_idx = malloc(n * sizeof(int64_t));
    uint32_t *want_dist = malloc(n * sizeof(uint32_t)), *got_dist = malloc(n * sizeof(uint32_t));
    scored *all = malloc((size_t)nb * sizeof(scored));
    ck_assert(want_idx && got_idx && want_dist && got_dist && all);
    for (size_t t = 0; t < n; t++) {
        want_idx[t] = -7;
        want_dist[t] = SENTINEL32;
    }
    for (int64_t i = 0; i < na; i++) {
        for (int64_t j = 0; j < nb; j++)
            all[j] = (scored){ naive_distance(a + i * lda, b + j * ldb, words), j };
        qsort(all, (size_t)nb, sizeof(scored), by_distance_then_index);
        for (int64_t t = 0; t < k; t++) {
            want_idx[i * ldk + t] = all[t].j;
            want_dist[i * ldk + t] = all[t].d;
        }
    }
    for (int q = 0; q < nisa; q++) {
        ck_assert_int_eq(smm_set_isa(isas[q]), SMM_OK);
        for (int threads = 1; threads <= 2; threads++) {
            ck_assert_int_eq(smm_set_num_threads(threads), SMM_OK);
            for (size_t t = 0; t < n; t++) {
                got_idx[t] = -7;
                got_dist[t] = SENTINEL32;
            }
            ck_assert_int_eq(sketch_hamming_topk(na, a, lda, nb, b, ldb, words, k, got_idx, got_dist, ldk), SMM_OK);
            ck_assert_msg(memcmp(got_idx, want_idx, n * sizeof(int64_t)) == 0 &&
                              memcmp(got_dist, want_dist, n * sizeof(uint32_t)) == 0,
                          "topk %s threads %d: na %lld nb %lld words %lld k %lld variety %d", smm_isa_name(isas[q]),
                          threads, (long long)na, (long long)nb, (long long)words, (long long)k, variety);
        }
    }
    test_restore_defaults();
    free(abuf.raw);
    free(bbuf.raw);
    free(want_idx);
    free(got_idx);
    free(want_dist);
    free(got_dist);
    free(all);
}

START_TEST(test_topk_matches_brute_force)
{
    uint64_t rng = 31;
    static const int64_t words_list[] = { 1, 2, 3, 4, 5, 8, 9, 17 };
    static const int64_t nbs[] = { 1, 7, 8, 9, 33, 1023, 1025, 2500 };
    for (size_t wi = 0; wi < sizeof words_list / sizeof words_list[0]; wi++)
        for (size_t ni = 0; ni < sizeof nbs / sizeof nbs[0]; ni++) {
            const int64_t words = words_list[wi], nb = nbs[ni];
            const int64_t ks[] = { 1, 3 < nb ? 3 : nb, 10 < nb ? 10 : nb, nb };
            for (int ki = 0; ki < 4; ki++) {
                const int64_t k = ks[ki];
                if (k == nb && nb > 100 && ki != 3)
                    continue;
                const int variety = (int)((wi + ni + (size_t)ki) % 3) * 2; /* 0: random, 2, 4: heavy ties */
                const int64_t na = 1 + (int64_t)((wi * 7 + ni * 3 + (size_t)ki) % 9);
                check_topk(na, nb, words, k, k + (ki % 2) * 3, variety, &rng);
            }
        }
}
END_TEST

START_TEST(test_topk_special)
{
    uint64_t rng = 32;
    check_topk(0, 5, 3, 2, 2, 0, &rng);      /* no queries */
    check_topk(6, 3000, 1, 1, 1, 2, &rng);   /* everything tied: the first indices win */
    check_topk(9, 3000, 4, 50, 64, 0, &rng); /* random, the prefix is everything */
    check_topk(5, 70, 1023, 7, 7, 0, &rng);  /* the longest 16-bit codes */
    check_topk(3, 40, 1024, 5, 6, 0, &rng);  /* 32-bit distances */
    check_topk(2, 40, 1024, 40, 40, 2, &rng);
    /* past the prefix (4096 codes, or 8 k): chunks, the running threshold, cuts of the list */
    check_topk(9, 4097, 1, 10, 10, 0, &rng);   /* one code after the prefix */
    check_topk(7, 9000, 1, 10, 12, 0, &rng);   /* random */
    check_topk(5, 9000, 4, 3, 3, 2, &rng);     /* heavy ties */
    check_topk(3, 13000, 2, 40, 40, 4, &rng);  /* ties, four chunks */
    check_topk(2, 7000, 2, 700, 700, 0, &rng); /* a large k: a longer prefix, cuts */
    check_topk(3, 7000, 3, 700, 701, 2, &rng);
    check_topk(2, 4500, 1024, 5, 5, 0, &rng);  /* 32-bit distances with chunks */
}
END_TEST

START_TEST(test_topk_errors)
{
    test_restore_defaults();
    uint64_t a[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, b[8] = { 8, 7, 6, 5, 4, 3, 2, 1 };
    int64_t idx[8];
    uint32_t dist[8];
    for (int t = 0; t < 8; t++) {
        idx[t] = -7;
        dist[t] = SENTINEL32;
    }
    ck_assert_int_eq(sketch_hamming_topk(-1, a, 2, 2, b, 2, 2, 1, idx, dist, 1), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(sketch_hamming_topk(2, a, 2, -1, b, 2, 2, 1, idx, dist, 1), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(sketch_hamming_topk(2, a, 2, 2, b, 2, 0, 1, idx, dist, 1), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(sketch_hamming_topk(1, a, 1025, 1, b, 1025, 1025, 1, idx, dist, 1), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(sketch_hamming_topk(2, a, 2, 2, b, 2, 2, 0, idx, dist, 1), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(sketch_hamming_topk(2, a, 2, 2, b, 2, 2, -3, idx, dist, 1), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(sketch_hamming_topk(2, a, 2, 2, b, 2, 2, 3, idx, dist, 3), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(sketch_hamming_topk(0, NULL, 2, 0, NULL, 2, 2, 1, NULL, NULL, 1), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(sketch_hamming_topk(2, a, 2, 2, b, 2, 2, 2, idx, dist, 1), SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(sketch_hamming_topk(2, a, 1, 2, b, 2, 2, 1, idx, dist, 1), SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(sketch_hamming_topk(2, a, 2, 2, b, 1, 2, 1, idx, dist, 1), SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(sketch_hamming_topk(2, NULL, 2, 2, b, 2, 2, 1, idx, dist, 1), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(sketch_hamming_topk(2, a, 2, 2, NULL, 2, 2, 1, idx, dist, 1), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(sketch_hamming_topk(2, a, 2, 2, b, 2, 2, 1, NULL, dist, 1), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(sketch_hamming_topk(2, a, 2, 2, b, 2, 2, 1, idx, NULL, 1), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(sketch_hamming_topk(2, a, 2, 2, b, 2, 2, 1, idx, dist, INT64_MAX / 2), SMM_ERR_OVERFLOW);
    const smm_isa missing = unsupported_isa();
    if (missing != SMM_ISA_AUTO) {
        smm_set_isa(missing);
        ck_assert_int_eq(sketch_hamming_topk(2, a, 2, 2, b, 2, 2, 1, idx, dist, 1), SMM_ERR_ISA_UNAVAILABLE);
        test_restore_defaults();
    }
    for (int t = 0; t < 8; t++) {
        ck_assert(idx[t] == -7);
        ck_assert(dist[t] == SENTINEL32);
    }
    /* no queries: nothing written, outputs may be NULL */
    ck_assert_int_eq(sketch_hamming_topk(0, NULL, 2, 2, b, 2, 2, 1, NULL, NULL, 1), SMM_OK);
    /* and a valid call writes exactly k entries per row */
    ck_assert_int_eq(sketch_hamming_topk(2, a, 2, 2, b, 2, 2, 1, idx, dist, 3), SMM_OK);
    ck_assert(idx[1] == -7 && idx[2] == -7 && idx[4] == -7 && dist[5] == SENTINEL32);
}
END_TEST

static Suite *hamming_suite(void)
{
    Suite *s = suite_create("hamming");
    TCase *tc = tcase_create("kernels");
    tcase_add_test(tc, test_panel_kernels_match_scalar);
    tcase_add_test(tc, test_filter_kernels_match_scalar);
    tcase_add_test(tc, test_scan_prefix_kernels_match_scalar);
    tcase_add_test(tc, test_gather_place_kernels_match_scalar);
    tcase_add_test(tc, test_kernel_dispatch);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);

    tc = tcase_create("all_pairs");
    tcase_add_loop_test(tc, test_all_pairs_edge_shapes, 0, (int)(sizeof api_words / sizeof api_words[0]));
    tcase_add_test(tc, test_all_pairs_large);
    tcase_add_test(tc, test_all_pairs_long_codes_u32);
    tcase_add_test(tc, test_all_pairs_errors);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);

    tc = tcase_create("topk");
    tcase_add_test(tc, test_topk_matches_brute_force);
    tcase_add_test(tc, test_topk_special);
    tcase_add_test(tc, test_topk_errors);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(hamming_suite());
}
