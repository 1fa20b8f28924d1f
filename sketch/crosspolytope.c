/* crosspolytope.c - PLACEHOLDER until the cross-polytope family lands: every call fails. */
#include "sketch/crosspolytope.h"

smm_status crosspolytope_code_words(int64_t d, int32_t bits, int64_t *words)
{
    (void)d;
    (void)bits;
    (void)words;
    return SMM_ERR_BAD_METHOD;
}

smm_status crosspolytope_encode_with(const smm_context *ctx, smm_layout layout,
                                     int64_t n, int64_t d, const float *X, int64_t ldx,
                                     int32_t bits, uint64_t seed,
                                     uint64_t *codes, int64_t ldcodes, float *norms)
{
    (void)ctx; (void)layout; (void)n; (void)d; (void)X; (void)ldx;
    (void)bits; (void)seed; (void)codes; (void)ldcodes; (void)norms;
    return SMM_ERR_BAD_METHOD;
}
