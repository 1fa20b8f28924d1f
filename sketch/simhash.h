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

#include "common/smm_runtime.h"
#include "sketchmm/sketch.h"

/* Words of a SimHash code of `bits` bits, ceil(bits / 64) (sketch.h's code layout); bits >= 0, checked by the caller. */
static inline int64_t simhash_words(int32_t bits)
{
    return ((int64_t)bits + 63) / 64;
}

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

/* ------------------------------------------------------------------------
 * Sketch families (sketch_encode.c, simhash_orthogonal.c, simhash_structured.c)
 * ------------------------------------------------------------------------ */

/*
 * Where the hyperplanes of a projection-and-sign SimHash family come from.
 * rows() writes rows b0 .. b0 + nrows - 1 of the family's `bits` hyperplanes
 * of `seed` in dimension d >= 1 into G (nrows x d, row-major, leading
 * dimension ldg >= d), with `threads` threads and `work`, a workspace of
 * work_doubles(d, bits) doubles allocated by the caller (work_doubles NULL:
 * none, work NULL). work_doubles returns -1 when the size overflows. Rows
 * must be a pure function of (seed, bits, d, row index).
 */
typedef struct {
    void (*rows)(uint64_t seed, int32_t bits, int64_t b0, int64_t nrows, int64_t d,
                 float *G, int64_t ldg, double *work, int threads);
    int64_t (*work_doubles)(int64_t d, int32_t bits);
} simhash_generator;

/* The Gaussian hyperplanes of sketch_simhash_hyperplanes (SKETCH_SIMHASH). */
extern const simhash_generator simhash_gaussian_generator;
/* The same hyperplanes orthonormalised in blocks of min(d, bits) rows (SKETCH_SIMHASH_ORTHOGONAL). */
extern const simhash_generator simhash_orthogonal_generator;

/*
 * simhash_encode_with for the hyperplanes of gen: codes are [D > 0] for the
 * reference double dot product D of the vector with each float row of gen
 * (sketch.h), made fast and exact by the SGEMM + error-bound scheme of
 * simhash_encode.c. Same arguments, checks and statuses as
 * simhash_encode_with (which is this with simhash_gaussian_generator).
 */
smm_status simhash_encode_gen_with(const smm_context *ctx, const simhash_generator *gen,
                                   smm_layout layout, int64_t n, int64_t d, const float *X, int64_t ldx,
                                   int32_t bits, uint64_t seed,
                                   uint64_t *codes, int64_t ldcodes, float *norms);

/* sketch_encode(SKETCH_SIMHASH_STRUCTURED, ...) with an explicit context. */
smm_status simhash_structured_encode_with(const smm_context *ctx, smm_layout layout,
                                          int64_t n, int64_t d, const float *X, int64_t ldx,
                                          int32_t bits, uint64_t seed,
                                          uint64_t *codes, int64_t ldcodes, float *norms);

/* sketch_encode with an explicit context (ctx->threads threads, ctx->isa kernels). */
smm_status sketch_encode_with(const smm_context *ctx, sketch_method method, smm_layout layout,
                              int64_t n, int64_t d, const float *X, int64_t ldx,
                              int32_t bits, uint64_t seed,
                              uint64_t *codes, int64_t ldcodes, float *norms);

#endif /* SKETCH_SIMHASH_H */
