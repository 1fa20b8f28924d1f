/*
 * normal_quantile.c - standard-normal quantile (Wichura, AS 241 PPND16) with
 * a portable natural logarithm; see normal_quantile.h.
 *
 * Reference: M. J. Wichura, "Algorithm AS 241: The percentage points of the
 * normal distribution", Applied Statistics 37 (1988) 477-484.
 */
#include <math.h>

#include "sketch/normal_quantile.h"

/* ln 2 split as in fdlibm: LN2_HI has its 32 low mantissa bits zero, so
 * e * LN2_HI is exact for |e| < 2^20; LN2_HI + LN2_LO = ln 2 to ~2^-85. */
static const double LN2_HI = 6.93147180369123816490e-01; /* 0x3FE62E42FEE00000 */
static const double LN2_LO = 1.90821492927058770002e-10; /* 0x3DEA39EF35793C76 */
static const double SQRT_HALF = 0x1.6a09e667f3bcdp-1;

double normal_quantile_log(double x)
{
    if (isnan(x) || x < 0.0)
        return NAN;
    if (x == 0.0)
        return -INFINITY;
    if (isinf(x))
        return x;

    /* x = f * 2^e with f in [sqrt(1/2), sqrt(2)); frexp and the doubling are exact. */
    int e;
    double f = frexp(x, &e);
    if (f < SQRT_HALF) {
        f = ldexp(f, 1);
        e -= 1;
    }

    /* ln f = 2 atanh(s), s = (f - 1) / (f + 1), |s| <= 0.1716 (f - 1 is exact).
     * 2 atanh(s) = 2s + 2s * (s^2/3 + s^4/5 + ...); with s^2 <= 0.0295 the
     * terms through s^22/23 bring the truncation error below 2^-60 relative. */
    const double s = (f - 1.0) / (f + 1.0);
    const double z = s * s;
    double r = 1.0 / 23.0;
    r = r * z + 1.0 / 21.0;
    r = r * z + 1.0 / 19.0;
    r = r * z + 1.0 / 17.0;
    r = r * z + 1.0 / 15.0;
    r = r * z + 1.0 / 13.0;
    r = r * z + 1.0 / 11.0;
    r = r * z + 1.0 / 9.0;
    r = r * z + 1.0 / 7.0;
    r = r * z + 1.0 / 5.0;
    r = r * z + 1.0 / 3.0;
    const double two_s = 2.0 * s;
    const double ln_f = two_s + two_s * (z * r);

    const double de = (double)e;
    return de * LN2_HI + (de * LN2_LO + ln_f);
}

/* PPND16 for q = p - 1/2 and the tail probability r = min(p, 1 - p). */
static double ppnd16(double q, double r)
{
    if (fabs(q) <= 0.425) {
        const double t = 0.180625 - q * q;
        const double num =
            (((((((2.5090809287301226727e+3 * t + 3.3430575583588128105e+4) * t +
                  6.7265770927008700853e+4) * t + 4.5921953931549871457e+4) * t +
                1.3731693765509461125e+4) * t + 1.9715909503065514427e+3) * t +
              1.3314166789178437745e+2) * t + 3.3871328727963666080e+0);
        const double den =
            (((((((5.2264952788528545610e+3 * t + 2.8729085735721942674e+4) * t +
                  3.9307895800092710610e+4) * t + 2.1213794301586595867e+4) * t +
                5.3941960214247511077e+3) * t + 6.8718700749205790830e+2) * t +
              4.2313330701600911252e+1) * t + 1.0);
        return q * num / den;
    }
    if (!(r > 0.0))
        return q < 0.0 ? -INFINITY : INFINITY;

    double t = sqrt(-normal_quantile_log(r));
    double val;
    if (t <= 5.0) {
        t -= 1.6;
        const double num =
            (((((((7.74545014278341407640e-4 * t + 2.27238449892691845833e-2) * t +
                  2.41780725177450611770e-1) * t + 1.27045825245236838258e+0) * t +
                3.64784832476320460504e+0) * t + 5.76949722146069140550e+0) * t +
              4.63033784615654529590e+0) * t + 1.42343711074968357734e+0);
        const double den =
            (((((((1.05075007164441684324e-9 * t + 5.47593808499534494600e-4) * t +
                  1.51986665636164571966e-2) * t + 1.48103976427480074590e-1) * t +
                6.89767334985100004550e-1) * t + 1.67638483018380384940e+0) * t +
              2.05319162663775882187e+0) * t + 1.0);
        val = num / den;
    } else {
        t -= 5.0;
        const double num =
            (((((((2.01033439929228813265e-7 * t + 2.71155556874348757815e-5) * t +
                  1.24266094738807843860e-3) * t + 2.65321895265761230930e-2) * t +
                2.96560571828504891230e-1) * t + 1.78482653991729133580e+0) * t +
              5.46378491116411436990e+0) * t + 6.65790464350110377720e+0);
        const double den =
            (((((((2.04426310338993978564e-15 * t + 1.42151175831644588870e-7) * t +
                  1.84631831751005468180e-5) * t + 7.86869131145613259100e-4) * t +
                1.48753612908506148525e-2) * t + 1.36929880922735805310e-1) * t +
              5.99832206555887937690e-1) * t + 1.0);
        val = num / den;
    }
    return q < 0.0 ? -val : val;
}

double normal_quantile(double p)
{
    if (isnan(p))
        return NAN;
    if (p <= 0.0)
        return -INFINITY;
    if (p >= 1.0)
        return INFINITY;
    /* 1 - p is exact for p >= 1/2 (Sterbenz). */
    return ppnd16(p - 0.5, p < 0.5 ? p : 1.0 - p);
}

double normal_quantile_centered(double q)
{
    if (isnan(q) || fabs(q) > 0.5)
        return NAN;
    /* 1/2 - |q| is exact for |q| >= 1/4 (Sterbenz), which covers the tails. */
    return ppnd16(q, 0.5 - fabs(q));
}
