/*
 * approx_dot.h - exact-valued dot products for top-k refinement: <x, y> over
 * k floats, every product exact in double (24 + 24 bits fit in 53), summed
 * in double in APPROX_DOT_LANES = 16 lanes (element t into lane t % 16, in
 * increasing t: enough independent sums to keep two FMA units busy), then
 * the lanes added pairwise: lane l + lane l + 8, then l + 4, l + 2, l + 1.
 * A fused multiply-add of an exact product rounds like the separate add, so
 * every kernel gives the same bits. The scalar kernels (approx_dot_scalar.c)
 * are the reference.
 */
#ifndef APPROX_DOT_H
#define APPROX_DOT_H

#include <stdint.h>

#include "common/smm_dispatch.h"
#include "common/smm_runtime.h"

typedef double (*approx_dot_fn)(const float *x, const float *y, int64_t k);

/* Vectors x per call of a group kernel. */
#define APPROX_DOT_GROUP 4

/*
 * out[g] = <x[g], y> for g < APPROX_DOT_GROUP, each with the bits of
 * approx_dot_fn: the refinement's pairs that share a database vector y,
 * which is read and widened once for the group, with four times the
 * independent sums of one dot product.
 */
typedef void (*approx_dot_group_fn)(const float *const x[APPROX_DOT_GROUP], const float *y, int64_t k,
                                    double out[APPROX_DOT_GROUP]);

double approx_dot_scalar(const float *x, const float *y, int64_t k);
void approx_dot_group_scalar(const float *const x[APPROX_DOT_GROUP], const float *y, int64_t k,
                             double out[APPROX_DOT_GROUP]);
#if defined(__x86_64__)
double approx_dot_avx2(const float *x, const float *y, int64_t k);
void approx_dot_group_avx2(const float *const x[APPROX_DOT_GROUP], const float *y, int64_t k,
                           double out[APPROX_DOT_GROUP]);
double approx_dot_avx512(const float *x, const float *y, int64_t k);
void approx_dot_group_avx512(const float *const x[APPROX_DOT_GROUP], const float *y, int64_t k,
                             double out[APPROX_DOT_GROUP]);
#endif

/* The kernels of one ISA path: a row of the table of approx_dot.c (common/smm_dispatch.h). */
typedef struct {
    smm_kernel_head head; /* "scalar", "avx2" or "avx512" */
    approx_dot_fn dot;
    approx_dot_group_fn group;
} approx_dot_kernels;

/* The row of path isa (never NULL; NEON and SMM_ISA_AUTO give the scalar row). */
const approx_dot_kernels *approx_dot_kernels_for(smm_isa isa);

#define APPROX_DOT_LANES 16

/* The lanes summed in the fixed order above (lane is overwritten). */
static inline double approx_dot_lanes(double lane[APPROX_DOT_LANES])
{
    for (int half = APPROX_DOT_LANES / 2; half >= 1; half /= 2)
        for (int l = 0; l < half; l++)
            lane[l] += lane[l + half];
    return lane[0];
}

/* The products of elements t0 .. k - 1 (fewer than APPROX_DOT_LANES) added to lanes 0 .. */
static inline void approx_dot_tail(const float *x, const float *y, int64_t t0, int64_t k,
                                   double lane[APPROX_DOT_LANES])
{
    for (int64_t l = 0; t0 + l < k; l++)
        lane[l] += (double)x[t0 + l] * (double)y[t0 + l];
}

#endif /* APPROX_DOT_H */
