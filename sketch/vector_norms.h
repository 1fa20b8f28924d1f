/*
 * vector_norms.h - library-internal norms of vector batches, shared by the
 * sketch encoders: the group kernels (scalar reference and SIMD twins) and
 * the batch driver on top of them.
 */
#ifndef SKETCH_VECTOR_NORMS_H
#define SKETCH_VECTOR_NORMS_H

#include <stdint.h>

#include "common/smm_dispatch.h"
#include "common/smm_runtime.h"

/*
 * Squared norms and largest magnitudes of SQ_NORMS_GROUP vectors at once:
 * vector k < SQ_NORMS_GROUP is x_k = X + k * row_step, element t < d at
 * x_k[t * elem_step]. ss[k] = the sum of (double)x_t * (double)x_t added in
 * double in increasing t from 0 (the norm definition of sketch.h: one
 * dependent chain per vector; the vector kernels run SQ_NORMS_GROUP chains
 * side by side in SIMD lanes, each product being exact, so every sum is the
 * same double). big[k] = the largest |x_t| as `a > big ? a : big` from 0
 * (NaN elements are skipped). Bit-identical on every path for every input
 * (NaN sums: NaN-ness only). The vector kernels read contiguous elements
 * when elem_step == 1 (row-major) and contiguous vectors when row_step == 1
 * (column-major); other strides take the scalar loop.
 */
#define SQ_NORMS_GROUP 16
typedef void (*sq_norms_fn)(const float *X, int64_t row_step, int64_t elem_step, int64_t d, double *ss,
                            float *big);
void sq_norms_scalar(const float *X, int64_t row_step, int64_t elem_step, int64_t d, double *ss, float *big);
/* The same sums for the first `count` (<= SQ_NORMS_GROUP) vectors, continued
 * from element t0 onwards on top of ss and big as they are: a partial group
 * (t0 = 0, ss and big zero) or the last d % 8 elements of a vector kernel. */
void sq_norms_continue(const float *X, int64_t row_step, int64_t elem_step, int64_t count, int64_t t0,
                       int64_t d, double *ss, float *big);
#if defined(__x86_64__)
void sq_norms_avx2(const float *X, int64_t row_step, int64_t elem_step, int64_t d, double *ss, float *big);
void sq_norms_avx512(const float *X, int64_t row_step, int64_t elem_step, int64_t d, double *ss, float *big);
#endif

/* The group kernel of one ISA path: a row of the table of vector_norms.c (common/smm_dispatch.h). */
typedef struct {
    smm_kernel_head head; /* "scalar", "avx2" or "avx512" */
    sq_norms_fn sq_norms;
} sq_norms_kernels;

/* The row of path isa (never NULL; NEON and SMM_ISA_AUTO give the scalar row). */
const sq_norms_kernels *sq_norms_kernels_for(smm_isa isa);

/*
 * The norms of the n vectors of X (n x d in `layout`, leading dimension ldx;
 * vector i is row i), with ctx->threads threads: nrm[i] = sqrt(ss_i) in
 * double, ss_i as above (the norm definition of sketch.h, rounded to float
 * by the caller), and, when big is not NULL, big[i] = max |x_t|. Returns
 * SMM_ERR_NON_FINITE when some vector holds NaN or Inf or its norm overflows
 * a float (nrm and big are then partly written), else SMM_OK. The same bits
 * on every ISA path and thread count.
 */
smm_status vector_norms(const smm_context *ctx, smm_layout layout, int64_t n, int64_t d,
                        const float *X, int64_t ldx, double *nrm, float *big);

#endif /* SKETCH_VECTOR_NORMS_H */
