/*
 * sketch_encode.c - the method-generic entry points of sketch.h:
 * sketch_method_name, sketch_method_from_name, sketch_method_uses_bits, sketch_code_words and
 * sketch_encode, dispatching to the encoders of each family.
 */
#include <string.h>

#include "common/smm_runtime.h"
#include "sketch/crosspolytope.h"
#include "sketch/hd_rotation.h"
#include "sketch/simhash.h"

const char *sketch_method_name(sketch_method method)
{
    switch (method) {
    case SKETCH_SIMHASH:
        return "simhash";
    case SKETCH_SIMHASH_ORTHOGONAL:
        return "simhash_orthogonal";
    case SKETCH_SIMHASH_STRUCTURED:
        return "simhash_structured";
    case SKETCH_CROSSPOLYTOPE:
        return "crosspolytope";
    case SKETCH_GAUSSIAN_PROJECTION:
        return "gaussian_projection";
    case SKETCH_SRHT:
        return "srht";
    case SKETCH_COUNTSKETCH:
        return "countsketch";
    case SKETCH_CR_SAMPLING:
        return "cr_sampling";
    case SKETCH_LOWRANK:
        return "lowrank";
    case SKETCH_PQ:
        return "pq";
    case SKETCH_MADDNESS:
        return "maddness";
    default:
        return NULL;
    }
}

sketch_method sketch_method_from_name(const char *name)
{
    if (name == NULL)
        return (sketch_method)0;
    for (int m = SKETCH_SIMHASH; m <= SKETCH_MADDNESS; m++)
        if (strcmp(name, sketch_method_name((sketch_method)m)) == 0)
            return (sketch_method)m;
    return (sketch_method)0;
}

int sketch_method_uses_bits(sketch_method method)
{
    switch (method) {
    case SKETCH_SIMHASH:
    case SKETCH_SIMHASH_ORTHOGONAL:
    case SKETCH_SIMHASH_STRUCTURED:
    case SKETCH_CROSSPOLYTOPE:
        return 1;
    default:
        return 0;
    }
}

smm_status sketch_code_words(sketch_method method, int64_t d, int32_t bits, int64_t *words)
{
    switch (method) {
    case SKETCH_SIMHASH:
    case SKETCH_SIMHASH_ORTHOGONAL:
    case SKETCH_SIMHASH_STRUCTURED:
        if (d < 0 || (method == SKETCH_SIMHASH_STRUCTURED && d > HD_MAX_DIM))
            return SMM_ERR_BAD_SIZE;
        if (bits < 1 || bits > SKETCH_MAX_BITS)
            return SMM_ERR_BAD_BITS;
        if (!words)
            return SMM_ERR_NULL_POINTER;
        *words = simhash_words(bits);
        return SMM_OK;
    case SKETCH_CROSSPOLYTOPE:
        return crosspolytope_code_words(d, bits, words);
    default: /* the linear sketches have no codes */
        return SMM_ERR_BAD_METHOD;
    }
}

smm_status sketch_encode_with(const smm_context *ctx, sketch_method method, smm_layout layout,
                              int64_t n, int64_t d, const float *X, int64_t ldx,
                              int32_t bits, uint64_t seed,
                              uint64_t *codes, int64_t ldcodes, float *norms)
{
    switch (method) {
    case SKETCH_SIMHASH:
        return simhash_encode_with(ctx, layout, n, d, X, ldx, bits, seed, codes, ldcodes, norms);
    case SKETCH_SIMHASH_ORTHOGONAL:
        return simhash_encode_gen_with(ctx, &simhash_orthogonal_generator, layout, n, d, X, ldx, bits, seed,
                                       codes, ldcodes, norms);
    case SKETCH_SIMHASH_STRUCTURED:
        return simhash_structured_encode_with(ctx, layout, n, d, X, ldx, bits, seed, codes, ldcodes, norms);
    case SKETCH_CROSSPOLYTOPE:
        return crosspolytope_encode_with(ctx, layout, n, d, X, ldx, bits, seed, codes, ldcodes, norms);
    default: /* the linear sketches have no codes */
        return SMM_ERR_BAD_METHOD;
    }
}

smm_status sketch_encode(sketch_method method, smm_layout layout, int64_t n, int64_t d,
                         const float *X, int64_t ldx, int32_t bits, uint64_t seed,
                         uint64_t *codes, int64_t ldcodes, float *norms)
{
    if (!sketch_method_uses_bits(method))
        return SMM_ERR_BAD_METHOD;
    smm_context ctx;
    smm_status s = smm_context_current(&ctx);
    if (s != SMM_OK)
        return s;
    return sketch_encode_with(&ctx, method, layout, n, d, X, ldx, bits, seed, codes, ldcodes, norms);
}
