/*
 * crosspolytope_layout.c - the shape of a cross-polytope code
 * (sketch_crosspolytope_layout, crosspolytope_code_words) and the field
 * masks of each of its words (see sketch.h, "Cross-polytope LSH").
 */
#include "sketch/crosspolytope.h"
#include "sketch/hd_rotation.h"

smm_status sketch_crosspolytope_layout(int64_t d, int32_t bits, sketch_cp_layout *layout)
{
    if (d < 0)
        return SMM_ERR_BAD_SIZE;
    const int64_t D = hd_rotation_dim(d);
    if (D == 0)
        return SMM_ERR_BAD_SIZE;
    if (bits < 1 || bits > SKETCH_MAX_BITS)
        return SMM_ERR_BAD_BITS;
    if (!layout)
        return SMM_ERR_NULL_POINTER;
    int32_t lg = 0;
    while ((INT64_C(1) << lg) < D)
        lg++;
    sketch_cp_layout l;
    l.dim = D;
    l.width = lg + 1;
    l.full_hashes = bits / l.width;
    l.last_width = bits % l.width;
    l.last_dim = l.last_width > 0 ? INT64_C(1) << (l.last_width - 1) : 0;
    l.hashes = l.full_hashes + (l.last_width > 0);
    l.fields_per_word = 64 / l.width;
    l.words = (l.hashes + l.fields_per_word - 1) / l.fields_per_word;
    *layout = l;
    return SMM_OK;
}

smm_status crosspolytope_code_words(int64_t d, int32_t bits, int64_t *words)
{
    if (d < 0 || hd_rotation_dim(d) == 0)
        return SMM_ERR_BAD_SIZE;
    if (bits < 1 || bits > SKETCH_MAX_BITS)
        return SMM_ERR_BAD_BITS;
    if (!words)
        return SMM_ERR_NULL_POINTER;
    sketch_cp_layout l;
    smm_status s = sketch_crosspolytope_layout(d, bits, &l);
    if (s == SMM_OK)
        *words = l.words;
    return s;
}

void crosspolytope_word_masks(const sketch_cp_layout *lay, int64_t w, uint64_t *hi, uint64_t *lo)
{
    uint64_t h = 0, m = 0;
    const int64_t k0 = w * lay->fields_per_word;
    for (int64_t k = k0; k < k0 + lay->fields_per_word && k < lay->hashes; k++) {
        const int width = k < lay->full_hashes ? lay->width : lay->last_width;
        const int shift = (int)(k - k0) * lay->width;
        h |= UINT64_C(1) << (shift + width - 1);
        m |= ((UINT64_C(1) << (width - 1)) - 1) << shift;
    }
    *hi = h;
    *lo = m;
}
