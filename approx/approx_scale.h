/*
 * approx_scale.h - the safe range: the vectors an approximate method works
 * on are brought into a range where its float arithmetic neither underflows
 * nor overflows, by an exact power of two.
 *
 * The data-aware and classical methods square their data or add up
 * products of it in float (k-means distances, the range finder's power
 * iteration, norms of sketched factors, ridge regression): on data scaled
 * far from 1 (|x| ~ 1e-25 or 1e20, finite floats whose product A B is
 * finite) those sums underflow to 0 or overflow to Inf and an estimate
 * silently degrades. So before a method sees op(B) (at plan creation) and
 * op(A) (at each call), a side whose largest magnitude lies outside
 * [2^-APPROX_SAFE_EXPONENT, 2^APPROX_SAFE_EXPONENT) is multiplied by 2^-e,
 * e = floor(log2(largest magnitude)), which puts that magnitude in [1, 2),
 * and the estimate is multiplied back by 2^(e_a + e_b) (folded into alpha;
 * top-k's exact values are computed in double from the scaled vectors and
 * multiplied back in double). Multiplying a float by a power of two is
 * exact unless the result is subnormal, so:
 * - data inside the window is not touched: the same bits as without this
 *   step;
 * - est(A 2^-s, B 2^s) is est(A, B) bit for bit for every power of two
 *   that keeps the data finite and normal, and within rounding of the data
 *   for any other factor s (the relative error does not move);
 * - entries below 2^-126 of a side's largest magnitude times 2^e would
 *   become subnormal: they are 2^-126 of the largest entry, far below
 *   float's resolution of a sum that holds it.
 * A call whose scale 2^(e_a + e_b) times alpha overflows a float (the
 * product's own magnitude does) returns SMM_ERR_NON_FINITE; one where it
 * underflows to 0 gives C := beta C.
 */
#ifndef APPROX_SCALE_H
#define APPROX_SCALE_H

#include "approx/approx_vectors.h"

/* Largest magnitudes in [2^-32, 2^32) are left alone. */
#define APPROX_SAFE_EXPONENT 32

/*
 * SMM_ERR_NON_FINITE when one of the count x dim entries of v is NaN or Inf,
 * else SMM_OK; then, when exponent is not NULL, *exponent = floor(log2 of
 * the largest magnitude) (-149 .. 127; 0 when every entry is 0).
 * ctx->threads threads.
 */
smm_status approx_check_values(const smm_context *ctx, const approx_vectors *v, int64_t dim, int *exponent);

/* The power of two a side with that largest exponent is scaled by (2^-shift): 0 inside the window. */
static inline int approx_safe_shift(int exponent)
{
    return exponent >= -APPROX_SAFE_EXPONENT && exponent < APPROX_SAFE_EXPONENT ? 0 : exponent;
}

/* approx_check_values without the exponent. */
static inline smm_status approx_check_finite(const smm_context *ctx, const approx_vectors *v, int64_t dim)
{
    return approx_check_values(ctx, v, dim, NULL);
}

/*
 * Two powers of two with f1 f2 = 2^-shift (-149 <= shift <= 127): x * f1 * f2
 * is x 2^-shift rounded once (exact where it is normal); f2 is 1 unless
 * 2^-shift exceeds the largest float power of two.
 */
void approx_shift_factors(int shift, float *f1, float *f2);

/*
 * The count x dim vectors of v times 2^-shift (approx_shift_factors) into a new row-major matrix
 * (*copy, smm_aligned_free it; *out describes it). SMM_OK, SMM_ERR_OVERFLOW
 * or SMM_ERR_NO_MEMORY (*copy NULL). ctx->threads threads.
 */
smm_status approx_scaled_copy(const smm_context *ctx, const approx_vectors *v, int64_t dim, int shift, float **copy,
                              approx_vectors *out);

#endif /* APPROX_SCALE_H */
