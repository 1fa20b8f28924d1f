/*
 * sgemm_model.h - the analytical model of the SGEMM cache blocks, in the
 * manner of BLIS (Low, Igual, Smith and Quintana-Orti, "Analytical modeling
 * is enough for high-performance BLIS", ACM TOMS 43(2), 2016): kc, mc and
 * nc for an mr x nr micro-kernel from the sizes, ways, sets and line sizes
 * of the data caches, read at run time (common/smm_cache.h).
 *
 * The driver (sgemm_driver.c) keeps a kc x nr micro-panel of B in L1 while
 * the mr x kc micro-panels of the packed A block stream past it from L2,
 * and keeps the packed B block (kc x nc) in L3. With W ways of S sets of L
 * bytes per level (a way holds S L bytes), in floats of 4 bytes:
 *
 *   kc: the largest multiple of 8 with
 *         ceil(4 kc nr / S1 L1) + ceil(4 kc mr / S1 L1) <= W1 - 1,
 *       the B micro-panel and one A micro-panel each in whole ways of L1,
 *       one way left for the lines of C and the stack, so that the A
 *       panels streaming through never evict B (an LRU cache evicts the
 *       oldest line of the set: A's own);
 *   mc: A gets the ways of L2 that the B micro-panel (twice: the current
 *       and the next) and one spare way leave,
 *         mc = (W2 - 1 - ceil(2 * 4 kc nr / S2 L2)) S2 L2 / (4 kc),
 *       divided among the threads sharing an L2, rounded down to mr;
 *   nc: B gets the ways of L3 the A blocks (twice) and one spare way leave,
 *         nc = (W3 - 1 - ceil(2 * 4 kc mc / S3 L3)) S3 L3 / (4 kc),
 *       rounded down to nr and capped at SGEMM_MODEL_NC_CAP columns (the
 *       packed block is allocated per call, and a share of a large L3 is
 *       all one process can count on); 4096 without an L3.
 *
 * Everything stays within the limits of tuning.h.
 */
#ifndef EXACT_SGEMM_MODEL_H
#define EXACT_SGEMM_MODEL_H

#include <stdint.h>

#include "common/smm_cache.h"
#include "exact/tuning.h"

#define SGEMM_MODEL_NC_CAP 8192

typedef struct {
    int64_t kc, mc, nc;
} sgemm_blocks;

/*
 * The model's blocks for an mr x nr kernel on caches g (l1d and l2 known,
 * sizes positive), for a product on `threads` threads (>= 1: threads
 * sharing an L2 divide its A share).
 */
sgemm_blocks sgemm_model_blocks(int mr, int nr, const smm_cache_geometry *g, int threads);

/*
 * The model's configuration of path isa with shape `shape` of its row: the
 * model's blocks, the split "auto", the default prefetch distance, and the
 * fixed table's small-product threshold, top-k block and 4x4 paths. It
 * passes tuning_check.
 */
void sgemm_model_params(smm_isa isa, int shape, const smm_cache_geometry *g, tuning_params *p);

#endif /* EXACT_SGEMM_MODEL_H */
