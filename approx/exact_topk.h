/*
 * exact_topk.h - library-internal parts of exact_topk (approx.h): the block
 * of scores it streams, and the call with a chosen block (the tuner
 * measures candidate blocks through it).
 */
#ifndef APPROX_EXACT_TOPK_H
#define APPROX_EXACT_TOPK_H

#include "approx/topk_stream.h"
#include "sketchmm/approx.h"

/* The block exact_topk uses on path isa for products of length k (exact_topk.c says which). */
topk_block exact_topk_block(smm_isa isa, int64_t k);

/*
 * exact_topk with the block *block (rows, cols >= 1) instead of
 * exact_topk_block's; block NULL: exact_topk itself. Same arguments,
 * checks and statuses as exact_topk.
 */
smm_status exact_topk_in_blocks(const topk_block *block, smm_layout layout, smm_trans transa, smm_trans transb,
                                int64_t m, int64_t n, int64_t k, const float *A, int64_t lda, const float *B,
                                int64_t ldb, int64_t topk, int64_t *idx, float *val, int64_t ldk);

#endif /* APPROX_EXACT_TOPK_H */
