/*
 * mat4_kernels.h - library-internal kernels of the 4x4 matrix functions
 * (mat4.c): batched multiply and inverse per ISA path, and the one-matrix
 * inverse. mat4.c holds the portable reference and chooses among them.
 */
#ifndef EXACT_MAT4_KERNELS_H
#define EXACT_MAT4_KERNELS_H

#include <stdint.h>

typedef void (*mat4_mul_f32_fn)(int64_t count, const float *a, const float *b, float *c);
typedef void (*mat4_mul_f64_fn)(int64_t count, const double *a, const double *b, double *c);
typedef void (*mat4_inv_f32_fn)(int64_t count, const float *a, float *inv);
typedef void (*mat4_inv_f64_fn)(int64_t count, const double *a, double *inv);
/* One matrix: 1 and inv written when det passes the criterion of mat4.h, else 0 and inv untouched. */
typedef int (*mat4_inv1_f32_fn)(const float *a, float *inv);
typedef int (*mat4_inv1_f64_fn)(const double *a, double *inv);

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
#endif
#if defined(__aarch64__)
void mat4_mul_f32_neon(int64_t count, const float *a, const float *b, float *c);
void mat4_mul_f64_neon(int64_t count, const double *a, const double *b, double *c);
#endif

#endif /* EXACT_MAT4_KERNELS_H */
