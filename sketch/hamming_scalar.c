/* hamming_scalar.c - portable reference Hamming kernels (row, panel, select) and the panel packer (see hamming_kernels.h). */
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

/* Reference select kernel: each distance summed word by word from the packed layout, then compared. */
void hamming_select_scalar(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                           int64_t words, const uint32_t *limit, uint32_t *pos, uint32_t *dist, int64_t ldp,
                           int64_t *count)
{
    for (int64_t i = 0; i < na; i++) {
        const uint64_t *q = a + i * lda;
        int64_t n = 0;
        for (int64_t j = 0; j < nb; j++) {
            const uint64_t *panel = panels + (j / HAMMING_PANEL) * HAMMING_PANEL * words;
            const int64_t c = j % HAMMING_PANEL, lane = (c % 4) * 8 + c / 4;
            uint64_t d = 0;
            for (int64_t w = 0; w < words; w++)
                d += (uint64_t)__builtin_popcountll(q[w] ^ panel[w * HAMMING_PANEL + lane]);
            if (d <= limit[i]) {
                pos[i * ldp + n] = (uint32_t)j;
                dist[i * ldp + n] = (uint32_t)d;
                n++;
            }
        }
        count[i] = n;
    }
}
