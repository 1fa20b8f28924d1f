/*
 * sketchmm/approx.h - approximate matrix products from sketches.
 */
#ifndef SKETCHMM_APPROX_H
#define SKETCHMM_APPROX_H

#include "sketchmm/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Approximation methods. The numbers are stable. */
typedef enum {
    APPROX_SIMHASH = 1 /* dense Gaussian random hyperplanes (sketch_simhash_encode) */
} approx_method;

/*
 * Options of approx_sgemm. Initialise with APPROX_OPTIONS_INIT or
 * approx_options_init() and change the fields you need; a NULL options
 * pointer means the defaults.
 */
typedef struct {
    approx_method method; /* default APPROX_SIMHASH */
    int32_t bits;         /* sketch length per vector, 1..SKETCH_MAX_BITS; default 256 */
    uint64_t seed;        /* hyperplane seed; default 0x5eed */
    int32_t num_threads;  /* threads for this call, 0..SMM_MAX_THREADS; 0 (default) means smm_get_num_threads() */
} approx_options;

#define APPROX_OPTIONS_INIT { APPROX_SIMHASH, 256, UINT64_C(0x5eed), 0 }

/* Set *opts to the defaults above (no-op for NULL). */
void approx_options_init(approx_options *opts);

/*
 * approx_sgemm - C := alpha * est(op(A) * op(B)) + beta * C.
 *
 * Arguments, shapes, leading dimensions, layouts and the beta == 0, k == 0,
 * m == 0 / n == 0 rules are those of exact_sgemm (sketchmm/exact.h).
 *
 * With APPROX_SIMHASH, each row a_i of op(A) and each column b_j of op(B)
 * gets a SimHash code of opts->bits bits (same seed for both sides) and its
 * norm; entry (i, j) is estimated as ||a_i|| ||b_j|| cos(pi * h_ij / bits),
 * h_ij the Hamming distance of the two codes (see sketchmm/sketch.h). A zero
 * row or column gives 0. The cosine estimate has standard deviation about
 * sqrt(theta (pi - theta) / bits) * sin(theta) at angle theta, so the
 * estimate is useful where rows and columns are well aligned.
 *
 * The result depends only on the inputs and the options' method, bits and
 * seed: it is bit-identical for every thread count and ISA path.
 *
 * Returns SMM_OK or, leaving C untouched: every status of exact_sgemm,
 * SMM_ERR_BAD_METHOD, SMM_ERR_BAD_BITS, SMM_ERR_BAD_THREADS (num_threads
 * outside 0..SMM_MAX_THREADS), SMM_ERR_NON_FINITE (A or B holds NaN or Inf).
 */
smm_status approx_sgemm(smm_layout layout, smm_trans transa, smm_trans transb,
                        int64_t m, int64_t n, int64_t k, float alpha,
                        const float *A, int64_t lda, const float *B, int64_t ldb,
                        float beta, float *C, int64_t ldc,
                        const approx_options *opts);

#ifdef __cplusplus
}
#endif

#endif /* SKETCHMM_APPROX_H */
