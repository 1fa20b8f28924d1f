/* estimators.c - the SimHash angle, cosine and inner-product estimates and their variances. */
#include <math.h>

#include "sketchmm/sketch.h"

static const double SKETCH_PI = 3.14159265358979323846;

double sketch_angle_estimate(int64_t h, int32_t bits)
{
    if (bits < 1 || bits > SKETCH_MAX_BITS || h < 0 || h > bits)
        return NAN;
    return SKETCH_PI * (double)h / (double)bits;
}

double sketch_cosine_estimate(int64_t h, int32_t bits)
{
    return cos(sketch_angle_estimate(h, bits));
}

double sketch_dot_estimate(int64_t h, int32_t bits, double norm_a, double norm_b)
{
    return norm_a * norm_b * sketch_cosine_estimate(h, bits);
}

double sketch_simhash_angle_variance(double theta, int32_t bits)
{
    if (bits < 1 || bits > SKETCH_MAX_BITS || !(theta >= 0.0 && theta <= SKETCH_PI))
        return NAN;
    return theta * (SKETCH_PI - theta) / (double)bits;
}

double sketch_simhash_cosine_variance(double theta, int32_t bits)
{
    const double s = sin(theta);
    return s * s * sketch_simhash_angle_variance(theta, bits);
}
