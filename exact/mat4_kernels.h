/*
 * mat4_kernels.h - library-internal kernels of the 4x4 matrix functions
 * (mat4.c): batched multiply and inverse per ISA path, and the one-matrix
 * inverse, as rows of mat4.c's kernel table (common/smm_dispatch.h).
 *
 * Kernel contract (every ISA): a batch kernel computes matrices
 * 0 .. count - 1 (16 contiguous row-major values each, count >= 1), inputs
 * and output do not overlap. Batch inverse kernels are only called on
 * batches whose determinants all passed mat4_det_ok_*; single-matrix
 * inverse kernels (inv1) apply that criterion themselves and write nothing
 * for a singular matrix. Both compute the determinant with
 * mat4_det_f32/_f64 below, so the singular decision never depends on the
 * path. The plain-C twins (mat4_scalar.c) are the scalar row and the
 * reference of the tests: every inverse gives their bits; the SIMD
 * multiplies, one product then three fused multiply-adds, may differ from
 * them in the last bits (sketchmm/mat4.h).
 */
#ifndef EXACT_MAT4_KERNELS_H
#define EXACT_MAT4_KERNELS_H

#include <math.h>
#include <stdint.h>

#include "common/smm_dispatch.h"

typedef void (*mat4_mul_f32_fn)(int64_t count, const float *a, const float *b, float *c);
typedef void (*mat4_mul_f64_fn)(int64_t count, const double *a, const double *b, double *c);
typedef void (*mat4_inv_f32_fn)(int64_t count, const float *a, float *inv);
typedef void (*mat4_inv_f64_fn)(int64_t count, const double *a, double *inv);
/* One matrix: 1 and inv written when det passes the criterion of mat4.h, else 0 and inv untouched. */
typedef int (*mat4_inv1_f32_fn)(const float *a, float *inv);
typedef int (*mat4_inv1_f64_fn)(const double *a, double *inv);
/* 1 when every determinant of the count matrices at a passes the criterion of mat4.h. */
typedef int (*mat4_regular_f32_fn)(int64_t count, const float *a);
typedef int (*mat4_regular_f64_fn)(int64_t count, const double *a);

/*
 * The determinant every path computes, here once so that all of them use the
 * same operations in the same order (the tree builds with -ffp-contract=off)
 * and the singular decision never depends on the path.
 *
 * mat4_det_<t>(m, s, c): the 2x2 minors of rows 0-1 (s) and rows 2-3 (c),
 * element (i, j) = m[4i+j]: s[0] cols 0,1  s[1] cols 0,2  s[2] cols 0,3
 * s[3] cols 1,2  s[4] cols 1,3  s[5] cols 2,3, c[k] likewise with the column
 * pair of s[5 - k]; returns det = s0 c5 - s1 c4 + s2 c3 + s3 c2 - s4 c1 + s5 c0,
 * summed as ((s0 c5 - s1 c4) + (s2 c3 + s3 c2)) + (s5 c0 - s4 c1).
 * mat4_det_ok_<t>(det): the singular criterion of mat4.h, det and 1/det both
 * finite and nonzero.
 * mat4_regular_<t>_portable(count, a): 1 when every determinant of the count
 * matrices at a passes it (the check every batched inverse runs first).
 */
#define MAT4_DEFINE_DET(T, S)                                                                      \
    static inline T mat4_det_##S(const T *m, T s[6], T c[6])                                       \
    {                                                                                              \
        s[0] = m[0] * m[5] - m[4] * m[1];                                                          \
        s[1] = m[0] * m[6] - m[4] * m[2];                                                          \
        s[2] = m[0] * m[7] - m[4] * m[3];                                                          \
        s[3] = m[1] * m[6] - m[5] * m[2];                                                          \
        s[4] = m[1] * m[7] - m[5] * m[3];                                                          \
        s[5] = m[2] * m[7] - m[6] * m[3];                                                          \
        c[5] = m[10] * m[15] - m[14] * m[11];                                                      \
        c[4] = m[9] * m[15] - m[13] * m[11];                                                       \
        c[3] = m[9] * m[14] - m[13] * m[10];                                                       \
        c[2] = m[8] * m[15] - m[12] * m[11];                                                       \
        c[1] = m[8] * m[14] - m[12] * m[10];                                                       \
        c[0] = m[8] * m[13] - m[12] * m[9];                                                        \
        return ((s[0] * c[5] - s[1] * c[4]) + (s[2] * c[3] + s[3] * c[2])) + (s[5] * c[0] - s[4] * c[1]); \
    }                                                                                              \
    static inline int mat4_det_ok_##S(T det)                                                       \
    {                                                                                              \
        return det != 0 && isfinite(det) && isfinite((T)1 / det);                                  \
    }                                                                                              \
    static inline int mat4_regular_##S##_portable(int64_t count, const T *a)                       \
    {                                                                                              \
        int ok = 1;                                                                                \
        for (int64_t t = 0; t < count; t++) {                                                      \
            T s[6], c[6];                                                                          \
            ok &= mat4_det_ok_##S(mat4_det_##S(a + 16 * t, s, c));                                 \
        }                                                                                          \
        return ok;                                                                                 \
    }
MAT4_DEFINE_DET(float, f32)
MAT4_DEFINE_DET(double, f64)

/* The kernels of one ISA path, a row of the kernel table in mat4.c. */
typedef struct {
    smm_kernel_head head; /* name: "scalar", "avx2", "avx512", "neon" (mat4_kernel_name) */
    mat4_mul_f32_fn mul_f32;
    mat4_mul_f64_fn mul_f64;
    mat4_inv_f32_fn inv_f32;
    mat4_inv_f64_fn inv_f64;
    mat4_inv1_f32_fn inv1_f32;
    mat4_inv1_f64_fn inv1_f64;
    mat4_regular_f32_fn regular_f32;
    mat4_regular_f64_fn regular_f64;
} mat4_kernels;

/* The row path isa (SMM_ISA_SCALAR .. SMM_ISA_NEON) runs: its own or the one it falls back to (SMM_KERNELS_FOR). */
const mat4_kernels *mat4_kernels_for(smm_isa isa);

/* The plain-C twins (mat4_scalar.c): products with separate multiplies and adds, the reference inverse. */
void mat4_mul_f32_scalar(int64_t count, const float *restrict a, const float *restrict b, float *restrict c);
void mat4_mul_f64_scalar(int64_t count, const double *restrict a, const double *restrict b, double *restrict c);
void mat4_inv_f32_scalar(int64_t count, const float *restrict a, float *restrict inv);
void mat4_inv_f64_scalar(int64_t count, const double *restrict a, double *restrict inv);
int mat4_inv1_f32_scalar(const float *restrict a, float *restrict inv);
int mat4_inv1_f64_scalar(const double *restrict a, double *restrict inv);

#if defined(__x86_64__)
void mat4_mul_f32_avx2(int64_t count, const float *a, const float *b, float *c);
void mat4_mul_f64_avx2(int64_t count, const double *a, const double *b, double *c);
void mat4_inv_f32_avx2(int64_t count, const float *a, float *inv);
void mat4_inv_f64_avx2(int64_t count, const double *a, double *inv);
int mat4_inv1_f32_avx2(const float *a, float *inv);
int mat4_inv1_f64_avx2(const double *a, double *inv);
void mat4_mul_f32_avx512(int64_t count, const float *a, const float *b, float *c);
void mat4_mul_f64_avx512(int64_t count, const double *a, const double *b, double *c);
void mat4_inv_f32_avx512(int64_t count, const float *a, float *inv);
void mat4_inv_f64_avx512(int64_t count, const double *a, double *inv);
int mat4_regular_f32_avx512(int64_t count, const float *a);
int mat4_regular_f64_avx512(int64_t count, const double *a);
#endif
#if defined(__aarch64__)
void mat4_mul_f32_neon(int64_t count, const float *a, const float *b, float *c);
void mat4_mul_f64_neon(int64_t count, const double *a, const double *b, double *c);
#endif

#endif /* EXACT_MAT4_KERNELS_H */
