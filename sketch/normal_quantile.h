/*
 * normal_quantile.h - library-internal standard-normal quantile (inverse CDF)
 * that gives the same double on every IEEE-754 platform.
 *
 * The quantile is Wichura's AS 241 (PPND16, about 16 significant digits).
 * Its logarithm is normal_quantile_log below, built from +, -, *, / and the
 * exact operations frexp/ldexp only, instead of the platform's libm log,
 * whose last bit differs between C libraries. sqrt is correctly rounded by
 * IEEE 754, so libm's is used. The module is compiled with
 * -ffp-contract=off, so no fused multiply-add changes a rounding.
 */
#ifndef SKETCH_NORMAL_QUANTILE_H
#define SKETCH_NORMAL_QUANTILE_H

/*
 * Phi^-1(p) for p in (0, 1); -inf for p <= 0, +inf for p >= 1, NaN for NaN.
 * q = p - 1/2 is formed in double (rounded when p < 1/4, as in AS 241).
 */
double normal_quantile(double p);

/*
 * Phi^-1(1/2 + q) for q in [-1/2, 1/2], taking the offset q from 1/2 itself so
 * that no rounding of p = 1/2 + q happens: the tail probability is 1/2 - |q|,
 * which is exact in the tails. Odd: f(-q) == -f(q) exactly. +-inf at
 * q = +-1/2, NaN for NaN or |q| > 1/2.
 */
double normal_quantile_centered(double q);

/*
 * Natural logarithm of x > 0 (subnormals included) to within a few ulp;
 * -inf for 0, +inf for +inf, NaN for NaN or x < 0. Bit-identical on every
 * IEEE-754 platform.
 */
double normal_quantile_log(double x);

#endif /* SKETCH_NORMAL_QUANTILE_H */
