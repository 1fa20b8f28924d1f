/*
 * simhash.h - library-internal SimHash entry points (sketch/ module).
 *
 * Callers inside the library (approx/) pass an explicit smm_context so that
 * they choose the ISA path and thread count themselves; the public functions
 * of sketch.h resolve the process-wide context and call these.
 */
#ifndef SKETCH_SIMHASH_H
#define SKETCH_SIMHASH_H

#include <stdint.h>

#include "exact/smm_runtime.h"
#include "sketchmm/sketch.h"

/*
 * sketch_simhash_encode with an explicit context: same arguments, same
 * results (codes never depend on ctx), same statuses except that the
 * ISA/thread selection is not consulted. ctx->threads threads are used.
 */
smm_status simhash_encode_with(const smm_context *ctx, smm_layout layout,
                               int64_t n, int64_t d, const float *X, int64_t ldx,
                               int32_t bits, uint64_t seed,
                               uint64_t *codes, int64_t ldcodes, float *norms);

/* Entry (b, t) of the hyperplanes of seed, as documented for sketch_simhash_hyperplanes. */
float simhash_hyperplane_entry(uint64_t seed, uint64_t b, uint64_t t);

/*
 * Rows b0 .. b0 + nrows - 1 of the hyperplanes of seed in dimension d into G
 * (nrows x d, row-major, leading dimension ldg >= d), with `threads` threads.
 * No argument checks.
 */
void simhash_hyperplane_rows(uint64_t seed, int64_t b0, int64_t nrows, int64_t d,
                             float *G, int64_t ldg, int threads);

#endif /* SKETCH_SIMHASH_H */
