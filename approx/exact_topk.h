/*
 * exact_topk.h - library-internal parts of exact_topk (approx.h): the block
 * of scores it streams, and the call with a chosen block and context (the
 * tuner measures candidate blocks through it).
 */
#ifndef APPROX_EXACT_TOPK_H
#define APPROX_EXACT_TOPK_H

#include "approx/topk_stream.h"
#include "sketchmm/approx.h"

/* The block exact_topk uses on path isa for products of length k (exact_topk.c says which). */
topk_shape exact_topk_block(smm_isa isa, int64_t k);

/*
 * exact_topk on the ISA path and thread count of *with (NULL: the current
 * ones, smm_context_current) in blocks of *block (rows, cols >= 1; NULL:
 * exact_topk_block's): exact_topk is exact_topk_with(NULL, NULL, ...).
 * Same arguments, checks and statuses as exact_topk; *with, when given,
 * must be a valid context (a supported path, threads >= 1).
 */
smm_status exact_topk_with(const smm_context *with, const topk_shape *block, smm_layout layout, smm_trans transa,
                           smm_trans transb, int64_t m, int64_t n, int64_t k, const float *A, int64_t lda,
                           const float *B, int64_t ldb, int64_t topk, int64_t *idx, float *val, int64_t ldk);

#endif /* APPROX_EXACT_TOPK_H */
