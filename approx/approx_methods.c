/*
 * approx_methods.c - the method registry (approx_method.h): the entries of
 * the methods' own files, indexed by sketch_method.
 */
#include "approx/approx_method.h"

static const approx_method *const registry[] = {
    [SKETCH_SIMHASH] = &approx_method_simhash,
    [SKETCH_SIMHASH_ORTHOGONAL] = &approx_method_simhash_orthogonal,
    [SKETCH_SIMHASH_STRUCTURED] = &approx_method_simhash_structured,
    [SKETCH_CROSSPOLYTOPE] = &approx_method_crosspolytope,
    [SKETCH_GAUSSIAN_PROJECTION] = &approx_method_gaussian_projection,
    [SKETCH_SRHT] = &approx_method_srht,
    [SKETCH_COUNTSKETCH] = &approx_method_countsketch,
    [SKETCH_CR_SAMPLING] = &approx_method_cr_sampling,
    [SKETCH_LOWRANK] = &approx_method_lowrank,
    [SKETCH_PQ] = &approx_method_pq,
    [SKETCH_MADDNESS] = &approx_method_maddness,
};

const approx_method *approx_method_of(sketch_method method)
{
    const int count = (int)(sizeof registry / sizeof registry[0]);
    return (int)method >= 1 && (int)method < count ? registry[method] : NULL;
}
