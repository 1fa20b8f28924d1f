/*
 * mat4_scalar.c - the plain-C 4x4 kernels (contract in mat4_kernels.h): the
 * scalar row of mat4.c's kernel table, the inverse of the NEON row, and the
 * twins the tests compare every path with. Products sum
 * a0 b0 + a1 b1 + a2 b2 + a3 b3 with separate multiplies and adds (the
 * library is built with -ffp-contract=off); the inverse is the cofactor
 * formula every SIMD inverse evaluates with the same operations in the same
 * order.
 */
#include <stdint.h>

#include "exact/mat4_kernels.h"

/*
 * mat4_mul_<t>_scalar, mat4_inv_<t>_scalar, mat4_inv1_<t>_scalar (contracts
 * in mat4_kernels.h), and mat4_adj_<t>: the adjugate of m (minors s, c from
 * mat4_det_<t>) times r = 1/det into inv.
 */
#define MAT4_DEFINE_SCALAR(T, S)                                                                   \
    void mat4_mul_##S##_scalar(int64_t count, const T *restrict a, const T *restrict b,            \
                               T *restrict c)                                                      \
    {                                                                                              \
        for (int64_t t = 0; t < count; t++, a += 16, b += 16, c += 16)                             \
            for (int i = 0; i < 4; i++)                                                            \
                for (int j = 0; j < 4; j++)                                                        \
                    c[4 * i + j] = a[4 * i] * b[j] + a[4 * i + 1] * b[4 + j] + a[4 * i + 2] * b[8 + j] + \
                                   a[4 * i + 3] * b[12 + j];                                       \
    }                                                                                              \
    static inline void mat4_adj_##S(const T *restrict m, const T s[6], const T c[6], T r,          \
                                    T *restrict inv)                                               \
    {                                                                                              \
        inv[0] = (m[5] * c[5] - m[6] * c[4] + m[7] * c[3]) * r;                                    \
        inv[1] = (-m[1] * c[5] + m[2] * c[4] - m[3] * c[3]) * r;                                   \
        inv[2] = (m[13] * s[5] - m[14] * s[4] + m[15] * s[3]) * r;                                 \
        inv[3] = (-m[9] * s[5] + m[10] * s[4] - m[11] * s[3]) * r;                                 \
        inv[4] = (-m[4] * c[5] + m[6] * c[2] - m[7] * c[1]) * r;                                   \
        inv[5] = (m[0] * c[5] - m[2] * c[2] + m[3] * c[1]) * r;                                    \
        inv[6] = (-m[12] * s[5] + m[14] * s[2] - m[15] * s[1]) * r;                                \
        inv[7] = (m[8] * s[5] - m[10] * s[2] + m[11] * s[1]) * r;                                  \
        inv[8] = (m[4] * c[4] - m[5] * c[2] + m[7] * c[0]) * r;                                    \
        inv[9] = (-m[0] * c[4] + m[1] * c[2] - m[3] * c[0]) * r;                                   \
        inv[10] = (m[12] * s[4] - m[13] * s[2] + m[15] * s[0]) * r;                                \
        inv[11] = (-m[8] * s[4] + m[9] * s[2] - m[11] * s[0]) * r;                                 \
        inv[12] = (-m[4] * c[3] + m[5] * c[1] - m[6] * c[0]) * r;                                  \
        inv[13] = (m[0] * c[3] - m[1] * c[1] + m[2] * c[0]) * r;                                   \
        inv[14] = (-m[12] * s[3] + m[13] * s[1] - m[14] * s[0]) * r;                               \
        inv[15] = (m[8] * s[3] - m[9] * s[1] + m[10] * s[0]) * r;                                  \
    }                                                                                              \
    void mat4_inv_##S##_scalar(int64_t count, const T *restrict a, T *restrict inv)                \
    {                                                                                              \
        for (int64_t t = 0; t < count; t++, a += 16, inv += 16) {                                  \
            T s[6], c[6];                                                                          \
            const T det = mat4_det_##S(a, s, c);                                                   \
            mat4_adj_##S(a, s, c, (T)1 / det, inv);                                                \
        }                                                                                          \
    }                                                                                              \
    int mat4_inv1_##S##_scalar(const T *restrict a, T *restrict inv)                               \
    {                                                                                              \
        T s[6], c[6];                                                                              \
        const T det = mat4_det_##S(a, s, c);                                                       \
        if (!mat4_det_ok_##S(det))                                                                 \
            return 0;                                                                              \
        mat4_adj_##S(a, s, c, (T)1 / det, inv);                                                    \
        return 1;                                                                                  \
    }
MAT4_DEFINE_SCALAR(float, f32)
MAT4_DEFINE_SCALAR(double, f64)
