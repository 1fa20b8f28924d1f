/*
 * approx_select_avx512.c - the collect kernel of the top-k selection
 * (approx_select.h) with AVX-512: 64 scores (four steps) compared with the
 * threshold into masks per branch; when one passes, the four steps are
 * appended with compress (the scores, and the columns as two vectors of 8
 * int64_t) and whole-vector stores, with no branch per step or score. Near
 * the end of the range or of the room it goes a step at a time, the last
 * partial step loaded under a mask (lanes past len are not read).
 */
#include <immintrin.h>

#include "approx/approx_select.h"

/* Append the passing scores of one step (scores v, mask m of them, columns j ..) at w; returns the new w. */
static inline int64_t append_step(__m512 v, __mmask16 m, int64_t j, float *score_out, int64_t *index_out, int64_t w)
{
    const __m512i base = _mm512_add_epi64(_mm512_set1_epi64((long long)j), _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
    const __mmask8 mlo = (__mmask8)(m & 0xff), mhi = (__mmask8)(m >> 8);
    const int nlo = __builtin_popcount(mlo);
    _mm512_storeu_ps(score_out + w, _mm512_maskz_compress_ps(m, v));
    _mm512_storeu_si512((void *)(index_out + w), _mm512_maskz_compress_epi64(mlo, base));
    _mm512_storeu_si512((void *)(index_out + w + nlo),
                        _mm512_maskz_compress_epi64(mhi, _mm512_add_epi64(base, _mm512_set1_epi64(8))));
    return w + __builtin_popcount(m);
}

int64_t top_select_collect_avx512(const float *s, int64_t len, float threshold, int64_t j0, float *score_out,
                                  int64_t *index_out, int64_t room, int64_t *written)
{
    const __m512 thr = _mm512_set1_ps(threshold);
    int64_t t = 0, w = 0;
    while (t < len && room - w >= TOP_SELECT_STEP) {
        if (len - t >= 4 * TOP_SELECT_STEP) { /* four steps per branch */
            const __m512 v0 = _mm512_loadu_ps(s + t), v1 = _mm512_loadu_ps(s + t + 16);
            const __m512 v2 = _mm512_loadu_ps(s + t + 32), v3 = _mm512_loadu_ps(s + t + 48);
            const __mmask16 m0 = _mm512_cmp_ps_mask(v0, thr, _CMP_GT_OQ), m1 = _mm512_cmp_ps_mask(v1, thr, _CMP_GT_OQ);
            const __mmask16 m2 = _mm512_cmp_ps_mask(v2, thr, _CMP_GT_OQ), m3 = _mm512_cmp_ps_mask(v3, thr, _CMP_GT_OQ);
            if (__builtin_expect((m0 | m1 | m2 | m3) == 0, 1)) {
                t += 4 * TOP_SELECT_STEP;
                continue;
            }
            if (room - w >= 4 * TOP_SELECT_STEP) { /* room for all four: appended without a branch per step */
                w = append_step(v0, m0, j0 + t, score_out, index_out, w);
                w = append_step(v1, m1, j0 + t + 16, score_out, index_out, w);
                w = append_step(v2, m2, j0 + t + 32, score_out, index_out, w);
                w = append_step(v3, m3, j0 + t + 48, score_out, index_out, w);
                t += 4 * TOP_SELECT_STEP;
                continue;
            }
        }
        /* one step (the last one under a mask: lanes past len are not read) */
        const int64_t rest = len - t;
        const __mmask16 valid = rest >= TOP_SELECT_STEP ? (__mmask16)0xffff : (__mmask16)((1u << rest) - 1u);
        const __m512 v = _mm512_maskz_loadu_ps(valid, s + t);
        const __mmask16 m = _mm512_mask_cmp_ps_mask(valid, v, thr, _CMP_GT_OQ);
        w = append_step(v, m, j0 + t, score_out, index_out, w);
        t += rest < TOP_SELECT_STEP ? rest : TOP_SELECT_STEP;
    }
    *written = w;
    return t;
}
