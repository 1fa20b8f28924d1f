/*
 * test_mat4.c - Check suite of sketchmm/mat4.h on every ISA path this CPU
 * runs: products against a plain double reference (relative tolerance per
 * element, scaled by sum_k |a_ik| |b_kj|) and against the scalar twins of
 * mat4_scalar.c (their bits on the scalar path, within the rounding of the
 * fused chain on the SIMD paths), batches against single calls, inverses
 * (A * inv(A) ~ I within a tolerance scaled by the 1-norm condition number;
 * every path, batched and single, bitwise equal to the twins, as
 * mat4_kernels.h promises), singular input rejected with the output
 * untouched, NULL pointers and bad counts.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "exact/mat4_kernels.h"
#include "sketchmm/mat4.h"
#include "test_util.h"

#define MAX_BATCH 40000

static float fa[16 * MAX_BATCH], fb[16 * MAX_BATCH], fc[16 * MAX_BATCH], fd[16 * MAX_BATCH];
static double da[16 * MAX_BATCH], db[16 * MAX_BATCH], dc[16 * MAX_BATCH], dd[16 * MAX_BATCH];

static void fill_f32(float *x, int64_t n, uint64_t seed)
{
    uint64_t st = seed;
    test_fill_uniform(x, n, &st);
}

static void fill_f64(double *x, int64_t n, uint64_t seed)
{
    uint64_t st = seed;
    for (int64_t i = 0; i < n; i++)
        x[i] = (double)(test_rng_next(&st) >> 11) * 0x1.0p-52 - 1.0;
}

/* max over elements of |c - ref| / (sum_k |a_ik||b_kj|), reference in long double */
static double mul_error_f64(const double *a, const double *b, const double *c)
{
    double worst = 0.0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            long double ref = 0.0L, mag = 0.0L;
            for (int k = 0; k < 4; k++) {
                ref += (long double)a[4 * i + k] * b[4 * k + j];
                mag += fabsl((long double)a[4 * i + k] * b[4 * k + j]);
            }
            const double e = (double)(fabsl((long double)c[4 * i + j] - ref) / (mag > 0 ? mag : 1.0L));
            worst = e > worst ? e : worst;
        }
    return worst;
}

/* The same for float matrices (widened exactly to double first). */
static double mul_error_f32(const float *a, const float *b, const float *c)
{
    double a64[16], b64[16], c64[16];
    for (int t = 0; t < 16; t++) {
        a64[t] = a[t];
        b64[t] = b[t];
        c64[t] = c[t];
    }
    return mul_error_f64(a64, b64, c64);
}

/* 1-norm (max column sum) */
static double norm1_f64(const double *m)
{
    double best = 0.0;
    for (int j = 0; j < 4; j++) {
        double s = 0.0;
        for (int i = 0; i < 4; i++)
            s += fabs(m[4 * i + j]);
        best = s > best ? s : best;
    }
    return best;
}

/* max |(A inv)_ij - delta_ij| in long double */
static double residual_f64(const double *a, const double *inv)
{
    double worst = 0.0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            long double s = 0.0L;
            for (int k = 0; k < 4; k++)
                s += (long double)a[4 * i + k] * inv[4 * k + j];
            const double e = (double)fabsl(s - (i == j ? 1.0L : 0.0L));
            worst = e > worst ? e : worst;
        }
    return worst;
}

static void f32_to_f64(const float *x, double *y, int n)
{
    for (int i = 0; i < n; i++)
        y[i] = x[i];
}

static void set_isa_or_fail(smm_isa isa)
{
    ck_assert_int_eq(smm_set_isa(isa), SMM_OK);
}

START_TEST(test_mul_reference)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    fill_f32(fa, 16 * 1000, 1);
    fill_f32(fb, 16 * 1000, 2);
    fill_f64(da, 16 * 1000, 3);
    fill_f64(db, 16 * 1000, 4);
    for (int ii = 0; ii < nisa; ii++) {
        set_isa_or_fail(isas[ii]);
        double worst32 = 0.0, worst64 = 0.0;
        for (int t = 0; t < 1000; t++) {
            ck_assert_int_eq(mat4_mul_f32(fa + 16 * t, fb + 16 * t, fc + 16 * t), SMM_OK);
            ck_assert_int_eq(mat4_mul_f64(da + 16 * t, db + 16 * t, dc + 16 * t), SMM_OK);
            const double e32 = mul_error_f32(fa + 16 * t, fb + 16 * t, fc + 16 * t);
            const double e64 = mul_error_f64(da + 16 * t, db + 16 * t, dc + 16 * t);
            worst32 = e32 > worst32 ? e32 : worst32;
            worst64 = e64 > worst64 ? e64 : worst64;
        }
        /* a 4-term sum: at most 3 roundings of the sum plus 1 of a product (FMA or not) */
        ck_assert_msg(worst32 <= 4.0 * FLT_EPSILON, "%s f32 relative error %g", smm_isa_name(isas[ii]), worst32);
        ck_assert_msg(worst64 <= 4.0 * DBL_EPSILON, "%s f64 relative error %g", smm_isa_name(isas[ii]), worst64);
        ck_assert_ptr_nonnull(mat4_kernel_name());
    }
    /* against the scalar twins: their bits on the scalar path, within twice that bound of them elsewhere */
    mat4_mul_f32_scalar(1000, fa, fb, fd);
    mat4_mul_f64_scalar(1000, da, db, dd);
    for (int ii = 0; ii < nisa; ii++) {
        set_isa_or_fail(isas[ii]);
        ck_assert_int_eq(mat4_mul_batch_f32(1000, fa, fb, fc), SMM_OK);
        ck_assert_int_eq(mat4_mul_batch_f64(1000, da, db, dc), SMM_OK);
        if (isas[ii] == SMM_ISA_SCALAR) {
            ck_assert_msg(memcmp(fc, fd, 16 * 1000 * sizeof(float)) == 0, "scalar f32 product: not the twin's bits");
            ck_assert_msg(memcmp(dc, dd, 16 * 1000 * sizeof(double)) == 0, "scalar f64 product: not the twin's bits");
            continue;
        }
        for (int t = 0; t < 1000; t++)
            for (int e = 0; e < 16; e++) {
                double mag32 = 0.0, mag64 = 0.0;
                for (int q = 0; q < 4; q++) {
                    mag32 += fabs((double)fa[16 * t + 4 * (e / 4) + q] * fb[16 * t + 4 * q + e % 4]);
                    mag64 += fabs(da[16 * t + 4 * (e / 4) + q] * db[16 * t + 4 * q + e % 4]);
                }
                ck_assert_msg(fabs((double)fc[16 * t + e] - fd[16 * t + e]) <= 8.0 * FLT_EPSILON * mag32 &&
                                  fabs(dc[16 * t + e] - dd[16 * t + e]) <= 8.0 * DBL_EPSILON * mag64,
                              "%s matrix %d element %d: farther from the twin than the bound above allows twice",
                              smm_isa_name(isas[ii]), t, e);
            }
    }
    /* every SIMD path: one product then three fused multiply-adds, k = 0 .. 3 in order (mat4.h) */
    for (int ii = 0; ii < nisa; ii++) {
        if (isas[ii] == SMM_ISA_SCALAR)
            continue;
        set_isa_or_fail(isas[ii]);
        for (int t = 0; t < 1000; t++) {
            const float *a32 = fa + 16 * t, *b32 = fb + 16 * t;
            const double *a64 = da + 16 * t, *b64 = db + 16 * t;
            float c32[16];
            double c64[16];
            ck_assert_int_eq(mat4_mul_f32(a32, b32, c32), SMM_OK);
            ck_assert_int_eq(mat4_mul_f64(a64, b64, c64), SMM_OK);
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++) {
                    float e32 = a32[4 * i] * b32[j];
                    double e64 = a64[4 * i] * b64[j];
                    for (int k = 1; k < 4; k++) {
                        e32 = fmaf(a32[4 * i + k], b32[4 * k + j], e32);
                        e64 = fma(a64[4 * i + k], b64[4 * k + j], e64);
                    }
                    ck_assert_msg(memcmp(&e32, &c32[4 * i + j], sizeof e32) == 0 &&
                                      memcmp(&e64, &c64[4 * i + j], sizeof e64) == 0,
                                  "%s matrix %d (%d, %d): not the fused chain", smm_isa_name(isas[ii]), t, i, j);
                }
        }
    }
    /* identity: exact on every path */
    float id32[16] = { 0 }, out32[16];
    double id64[16] = { 0 }, out64[16];
    for (int i = 0; i < 4; i++)
        id32[5 * i] = 1.0f, id64[5 * i] = 1.0;
    for (int ii = 0; ii < nisa; ii++) {
        set_isa_or_fail(isas[ii]);
        ck_assert_int_eq(mat4_mul_f32(fa, id32, out32), SMM_OK);
        ck_assert_mem_eq(out32, fa, sizeof out32);
        ck_assert_int_eq(mat4_mul_f64(id64, da, out64), SMM_OK);
        ck_assert_mem_eq(out64, da, sizeof out64);
    }
    smm_set_isa(SMM_ISA_AUTO);
}
END_TEST

/* batches (several sizes, one and two threads) give the single-call bits */
START_TEST(test_batch_equals_single)
{
    static const int64_t counts[] = { 1, 2, 3, 7, 8, 9, 15, 16, 17, 37, MAX_BATCH };
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    fill_f32(fa, 16 * MAX_BATCH, 11);
    fill_f32(fb, 16 * MAX_BATCH, 12);
    fill_f64(da, 16 * MAX_BATCH, 13);
    fill_f64(db, 16 * MAX_BATCH, 14);
    /* keep the inverses well away from singular: add 4 I */
    for (int64_t t = 0; t < MAX_BATCH; t++)
        for (int i = 0; i < 4; i++)
            fa[16 * t + 5 * i] += 4.0f, da[16 * t + 5 * i] += 4.0;
    for (int ii = 0; ii < nisa; ii++) {
        set_isa_or_fail(isas[ii]);
        for (int threads = 1; threads <= 2; threads++) {
            ck_assert_int_eq(smm_set_num_threads(threads), SMM_OK);
            for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
                const int64_t n = counts[ci];
                float one32[16];
                double one64[16];
                ck_assert_int_eq(mat4_mul_batch_f32(n, fa, fb, fc), SMM_OK);
                ck_assert_int_eq(mat4_mul_batch_f64(n, da, db, dc), SMM_OK);
                for (int64_t t = 0; t < n; t += (n > 100 ? 97 : 1)) {
                    mat4_mul_f32(fa + 16 * t, fb + 16 * t, one32);
                    ck_assert_mem_eq(one32, fc + 16 * t, sizeof one32);
                    mat4_mul_f64(da + 16 * t, db + 16 * t, one64);
                    ck_assert_mem_eq(one64, dc + 16 * t, sizeof one64);
                }
                ck_assert_int_eq(mat4_inv_batch_f32(n, fa, fc), SMM_OK);
                ck_assert_int_eq(mat4_inv_batch_f64(n, da, dc), SMM_OK);
                for (int64_t t = 0; t < n; t += (n > 100 ? 97 : 1)) {
                    ck_assert_int_eq(mat4_inv_f32(fa + 16 * t, one32), SMM_OK);
                    ck_assert_mem_eq(one32, fc + 16 * t, sizeof one32);
                    ck_assert_int_eq(mat4_inv_f64(da + 16 * t, one64), SMM_OK);
                    ck_assert_mem_eq(one64, dc + 16 * t, sizeof one64);
                }
                ck_assert_int_eq(mat4_copy_batch_f32(n, fa, fd), SMM_OK);
                ck_assert_mem_eq(fd, fa, (size_t)n * 16 * sizeof(float));
                ck_assert_int_eq(mat4_copy_batch_f64(n, da, dd), SMM_OK);
                ck_assert_mem_eq(dd, da, (size_t)n * 16 * sizeof(double));
            }
        }
    }
    smm_set_num_threads(0);
    smm_set_isa(SMM_ISA_AUTO);
}
END_TEST

/* A inv(A) ~ I within 64 eps cond_1(A); every path gives the scalar bits */
START_TEST(test_inverse)
{
    enum { N = 2000 };
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    fill_f32(fa, 16 * N, 21);
    fill_f64(da, 16 * N, 22);
    /* some badly conditioned ones: row 3 close to row 0 + row 1 */
    for (int t = 0; t < N; t += 10)
        for (int j = 0; j < 4; j++) {
            da[16 * t + 12 + j] = da[16 * t + j] + da[16 * t + 4 + j] + 1e-9 * (j + 1);
            fa[16 * t + 12 + j] = fa[16 * t + j] + fa[16 * t + 4 + j] + 1e-3f * (float)(j + 1);
        }
    /* the twins: the batch kernels, and the single-matrix ones (which must accept every matrix here) */
    static float ref32[16 * N];
    static double ref64[16 * N];
    mat4_inv_f32_scalar(N, fa, ref32);
    mat4_inv_f64_scalar(N, da, ref64);
    for (int t = 0; t < N; t++) {
        float one32[16];
        double one64[16];
        ck_assert_int_eq(mat4_inv1_f32_scalar(fa + 16 * t, one32), 1);
        ck_assert_int_eq(mat4_inv1_f64_scalar(da + 16 * t, one64), 1);
        ck_assert(memcmp(one32, ref32 + 16 * t, sizeof one32) == 0 && memcmp(one64, ref64 + 16 * t, sizeof one64) == 0);
    }
    for (int ii = 0; ii < nisa; ii++) {
        set_isa_or_fail(isas[ii]);
        ck_assert_int_eq(mat4_inv_batch_f32(N, fa, fc), SMM_OK);
        ck_assert_int_eq(mat4_inv_batch_f64(N, da, dc), SMM_OK);
        ck_assert_msg(memcmp(ref32, fc, sizeof ref32) == 0, "%s f32 inverse differs from the twin",
                      smm_isa_name(isas[ii]));
        ck_assert_msg(memcmp(ref64, dc, sizeof ref64) == 0, "%s f64 inverse differs from the twin",
                      smm_isa_name(isas[ii]));
        for (int t = 0; t < N; t++) {
            float one32[16];
            double one64[16];
            ck_assert_int_eq(mat4_inv_f32(fa + 16 * t, one32), SMM_OK);
            ck_assert_int_eq(mat4_inv_f64(da + 16 * t, one64), SMM_OK);
            ck_assert_msg(memcmp(one32, ref32 + 16 * t, sizeof one32) == 0 &&
                              memcmp(one64, ref64 + 16 * t, sizeof one64) == 0,
                          "%s single inverse of matrix %d differs from the twin", smm_isa_name(isas[ii]), t);
        }
        for (int t = 0; t < N; t++) {
            double a64[16], i64[16];
            const double cond64 = norm1_f64(da + 16 * t) * norm1_f64(dc + 16 * t);
            const double r64 = residual_f64(da + 16 * t, dc + 16 * t);
            ck_assert_msg(r64 <= 64.0 * DBL_EPSILON * cond64, "f64 matrix %d: residual %g, cond %g", t, r64, cond64);
            f32_to_f64(fa + 16 * t, a64, 16);
            f32_to_f64(fc + 16 * t, i64, 16);
            const double cond32 = norm1_f64(a64) * norm1_f64(i64);
            const double r32 = residual_f64(a64, i64);
            ck_assert_msg(r32 <= 64.0 * FLT_EPSILON * cond32, "f32 matrix %d: residual %g, cond %g", t, r32, cond32);
        }
    }
    smm_set_isa(SMM_ISA_AUTO);
}
END_TEST

/* rank 3 (exact in floating point), NaN, and a determinant whose reciprocal overflows */
START_TEST(test_singular)
{
    const double rank3[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 2, 0, 1, 3, 6, 8, 10, 12 }; /* row 3 = row 0 + row 1 */
    double tiny[16] = { 0 }, nan64[16];
    for (int i = 0; i < 4; i++)
        tiny[5 * i] = 1e-80; /* det 1e-320: subnormal, 1/det overflows */
    memcpy(nan64, rank3, sizeof nan64);
    nan64[0] = 0; nan64[12] = 7; /* regular... */
    nan64[6] = NAN;              /* ... but NaN */
    float rank3f[16], tinyf[16] = { 0 };
    for (int i = 0; i < 16; i++)
        rank3f[i] = (float)rank3[i];
    for (int i = 0; i < 4; i++)
        tinyf[5 * i] = 1e-12f;
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int ii = 0; ii < nisa; ii++) {
        set_isa_or_fail(isas[ii]);
        double out[16];
        float outf[16];
        const double *bad64[] = { rank3, tiny, nan64 };
        for (int k = 0; k < 3; k++) {
            for (int i = 0; i < 16; i++)
                out[i] = -7.0;
            ck_assert_int_eq(mat4_inv1_f64_scalar(bad64[k], out), 0); /* the twin refuses it too */
            ck_assert_int_eq(mat4_inv_f64(bad64[k], out), SMM_ERR_BAD_ARGUMENT);
            for (int i = 0; i < 16; i++)
                ck_assert(out[i] == -7.0);
        }
        const float *bad32[] = { rank3f, tinyf };
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < 16; i++)
                outf[i] = -7.0f;
            ck_assert_int_eq(mat4_inv1_f32_scalar(bad32[k], outf), 0);
            ck_assert_int_eq(mat4_inv_f32(bad32[k], outf), SMM_ERR_BAD_ARGUMENT);
            for (int i = 0; i < 16; i++)
                ck_assert(outf[i] == -7.0f);
        }
        /* a batch with one singular matrix writes nothing, wherever it sits: first or last lane of
           a vector block (8 doubles, 16 floats), or in the tail that the blocks leave */
        enum { N = 100 };
        static const int where[] = { 0, 7, 8, 15, 16, 57, 95, 99 };
        for (size_t w = 0; w < sizeof where / sizeof where[0]; w++)
            for (int k = 0; k < 3; k++) {
                fill_f64(da, 16 * N, 31);
                fill_f32(fa, 16 * N, 32);
                memcpy(da + 16 * where[w], bad64[k], sizeof rank3);
                if (k < 2)
                    memcpy(fa + 16 * where[w], bad32[k], sizeof rank3f);
                else
                    fa[16 * where[w] + 6] = NAN;
                for (int i = 0; i < 16 * N; i++)
                    dc[i] = -7.0, fc[i] = -7.0f;
                ck_assert_int_eq(mat4_inv_batch_f64(N, da, dc), SMM_ERR_BAD_ARGUMENT);
                ck_assert_int_eq(mat4_inv_batch_f32(N, fa, fc), SMM_ERR_BAD_ARGUMENT);
                for (int i = 0; i < 16 * N; i++) {
                    ck_assert(dc[i] == -7.0);
                    ck_assert(fc[i] == -7.0f);
                }
            }
        /* tiny but regular determinants (1 / det finite) pass, in a block and in the tail */
        fill_f64(da, 16 * N, 33);
        fill_f32(fa, 16 * N, 34);
        for (size_t w = 0; w < sizeof where / sizeof where[0]; w++) {
            memset(da + 16 * where[w], 0, 16 * sizeof(double));
            memset(fa + 16 * where[w], 0, 16 * sizeof(float));
            for (int i = 0; i < 4; i++) {
                da[16 * where[w] + 5 * i] = 1e-76;  /* det 1e-304 > 1 / DBL_MAX */
                fa[16 * where[w] + 5 * i] = 3e-10f; /* det 8.1e-39 > 1 / FLT_MAX */
            }
        }
        ck_assert_int_eq(mat4_inv_batch_f64(N, da, dc), SMM_OK);
        ck_assert_int_eq(mat4_inv_batch_f32(N, fa, fc), SMM_OK);
        for (size_t w = 0; w < sizeof where / sizeof where[0]; w++) {
            double one64[16];
            float one32[16];
            ck_assert_int_eq(mat4_inv_f64(da + 16 * where[w], one64), SMM_OK);
            ck_assert_int_eq(mat4_inv_f32(fa + 16 * where[w], one32), SMM_OK);
            ck_assert_mem_eq(one64, dc + 16 * where[w], sizeof one64);
            ck_assert_mem_eq(one32, fc + 16 * where[w], sizeof one32);
            ck_assert(isfinite(one64[0]) && one64[0] > 1e75);
            ck_assert(isfinite(one32[0]) && one32[0] > 3e9f);
        }
    }
    smm_set_isa(SMM_ISA_AUTO);
}
END_TEST

START_TEST(test_arguments)
{
    float f[16] = { 0 }, g[16] = { 0 };
    double d[16] = { 0 }, e[16] = { 0 };
    ck_assert_int_eq(mat4_mul_f32(NULL, f, g), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(mat4_mul_f32(f, NULL, g), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(mat4_mul_f32(f, f, NULL), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(mat4_mul_f64(NULL, d, e), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(mat4_mul_f64(d, d, NULL), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(mat4_inv_f32(NULL, g), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(mat4_inv_f32(f, NULL), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(mat4_inv_f64(NULL, e), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(mat4_inv_f64(d, NULL), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(mat4_copy_f32(NULL, g), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(mat4_copy_f64(d, NULL), SMM_ERR_NULL_POINTER);
    /* the zero matrix is singular */
    ck_assert_int_eq(mat4_inv_f32(f, g), SMM_ERR_BAD_ARGUMENT);
    ck_assert_int_eq(mat4_inv_f64(d, e), SMM_ERR_BAD_ARGUMENT);

    ck_assert_int_eq(mat4_mul_batch_f32(-1, f, f, g), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(mat4_mul_batch_f64(-1, d, d, e), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(mat4_inv_batch_f32(-5, f, g), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(mat4_inv_batch_f64(INT64_MIN, d, e), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(mat4_copy_batch_f32(-1, f, g), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(mat4_copy_batch_f64(-1, d, e), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(mat4_mul_batch_f32(INT64_MAX / 8, f, f, g), SMM_ERR_OVERFLOW);
    ck_assert_int_eq(mat4_copy_batch_f64(INT64_MAX, d, e), SMM_ERR_OVERFLOW);
    /* count 0: nothing to do, NULL allowed */
    ck_assert_int_eq(mat4_mul_batch_f32(0, NULL, NULL, NULL), SMM_OK);
    ck_assert_int_eq(mat4_mul_batch_f64(0, NULL, NULL, NULL), SMM_OK);
    ck_assert_int_eq(mat4_inv_batch_f32(0, NULL, NULL), SMM_OK);
    ck_assert_int_eq(mat4_inv_batch_f64(0, NULL, NULL), SMM_OK);
    ck_assert_int_eq(mat4_copy_batch_f32(0, NULL, NULL), SMM_OK);
    ck_assert_int_eq(mat4_copy_batch_f64(0, NULL, NULL), SMM_OK);
    /* count > 0 with a NULL */
    ck_assert_int_eq(mat4_mul_batch_f32(1, f, NULL, g), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(mat4_mul_batch_f64(1, d, d, NULL), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(mat4_inv_batch_f32(1, NULL, g), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(mat4_inv_batch_f64(1, d, NULL), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(mat4_copy_batch_f32(1, NULL, g), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(mat4_copy_batch_f64(1, d, NULL), SMM_ERR_NULL_POINTER);
    /* copy */
    for (int i = 0; i < 16; i++)
        f[i] = (float)i, d[i] = -i;
    ck_assert_int_eq(mat4_copy_f32(f, g), SMM_OK);
    ck_assert_mem_eq(f, g, sizeof f);
    ck_assert_int_eq(mat4_copy_f64(d, e), SMM_OK);
    ck_assert_mem_eq(d, e, sizeof d);
}
END_TEST

static Suite *mat4_suite(void)
{
    Suite *s = suite_create("mat4");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_mul_reference);
    tcase_add_test(tc, test_batch_equals_single);
    tcase_add_test(tc, test_inverse);
    tcase_add_test(tc, test_singular);
    tcase_add_test(tc, test_arguments);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(mat4_suite());
}
