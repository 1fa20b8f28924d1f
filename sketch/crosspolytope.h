/*
 * crosspolytope.h - library-internal cross-polytope LSH entry points
 * (sketch/ module), called by sketch_encode and sketch_code_words.
 */
#ifndef SKETCH_CROSSPOLYTOPE_H
#define SKETCH_CROSSPOLYTOPE_H

#include <stdint.h>

#include "exact/smm_runtime.h"
#include "sketchmm/sketch.h"

/* Words per cross-polytope code for dimension d and a budget of `bits` bits. */
smm_status crosspolytope_code_words(int64_t d, int32_t bits, int64_t *words);

/* sketch_encode(SKETCH_CROSSPOLYTOPE, ...) with an explicit context (ctx->threads threads). */
smm_status crosspolytope_encode_with(const smm_context *ctx, smm_layout layout,
                                     int64_t n, int64_t d, const float *X, int64_t ldx,
                                     int32_t bits, uint64_t seed,
                                     uint64_t *codes, int64_t ldcodes, float *norms);

#endif /* SKETCH_CROSSPOLYTOPE_H */
