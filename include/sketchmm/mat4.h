/*
 * sketchmm/mat4.h - fixed-size 4x4 matrix kernels: product, inverse and copy
 * in float and double, for one matrix and for contiguous batches.
 *
 * Storage: a 4x4 matrix is 16 contiguous values in row-major order,
 * element (i, j) at index 4 * i + j. A batch of `count` matrices is
 * 16 * count contiguous values, matrix t starting at index 16 * t.
 *
 * ISA path: every function runs the kernel of the process-wide path
 * (smm_set_isa / SKETCHMM_ISA, see common.h); mat4_kernel_name() names it. The
 * SIMD multiply kernels use fused multiply-add, so their results may differ
 * from the scalar path in the last bits (each element is a 4-term dot
 * product; the difference is a few units in the last place); the SIMD
 * paths (AVX2, AVX-512, NEON) all compute a0 b0 + a1 b1 + a2 b2 + a3 b3
 * as one product followed by three fused multiply-adds, in that order, and
 * give the same bits. The
 * determinant, and with it the singular-matrix decision of the inverse, is
 * computed with the same operations in the same order on every path. The
 * batched multiply and inverse may run the kernel of a narrower SIMD path
 * than the selected one where the configuration of the exact core says it
 * is faster on this CPU (sketchmm/tuning.h, smm_exact_config.mat4_paths;
 * chosen by the tuner): the results are the same bits.
 *
 * Cost: the single-matrix functions allocate nothing, start no threads and
 * only read the selected ISA path (an atomic load). The batched functions
 * split large batches among smm_get_num_threads() OpenMP threads; results
 * never depend on the thread count.
 *
 * Aliasing: outputs must not overlap inputs (no in-place operation). Every
 * function compares the memory span of its output (16 values, or 16 * count
 * for a batch) with those of its inputs after the NULL checks and returns
 * SMM_ERR_BAD_ARGUMENT, writing nothing, when they share a byte (a few
 * instructions per call); buffers that touch are fine.
 * Thread safety: every function may be called from several threads at once
 * on distinct outputs.
 * Statuses: on any status other than SMM_OK the output is left untouched.
 */
#ifndef SKETCHMM_MAT4_H
#define SKETCHMM_MAT4_H

#include <stdint.h>

#include "sketchmm/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * C = A * B for one 4x4 matrix: c[4i+j] = sum_k a[4i+k] * b[4k+j].
 * Returns SMM_ERR_NULL_POINTER when a, b or c is NULL, SMM_ERR_BAD_ARGUMENT
 * when c overlaps a or b, or the ISA selection error of common.h.
 */
SMM_API smm_status mat4_mul_f32(const float *a, const float *b, float *c);
SMM_API smm_status mat4_mul_f64(const double *a, const double *b, double *c);

/*
 * inv = A^-1 for one 4x4 matrix, by cofactors: the twelve 2x2 minors of
 * rows 0-1 and rows 2-3, the determinant det as their Laplace sum, and the
 * adjugate times 1/det, all in the element type.
 * Singular criterion: returns SMM_ERR_BAD_ARGUMENT ("singular matrix") when
 * det is 0, NaN or infinite, or when 1/det is not finite (|det| below about
 * 1/FLT_MAX resp. 1/DBL_MAX); inv is then untouched. A matrix that passes
 * may still be badly conditioned: the criterion is exact singularity of
 * the computed determinant, not a condition-number test.
 * Returns SMM_ERR_NULL_POINTER when a or inv is NULL, SMM_ERR_BAD_ARGUMENT
 * when inv overlaps a (checked before the determinant), or the ISA
 * selection error of common.h.
 */
SMM_API smm_status mat4_inv_f32(const float *a, float *inv);
SMM_API smm_status mat4_inv_f64(const double *a, double *inv);

/* dst = src for one 4x4 matrix. SMM_ERR_NULL_POINTER when either is NULL, SMM_ERR_BAD_ARGUMENT when they overlap. */
SMM_API smm_status mat4_copy_f32(const float *src, float *dst);
SMM_API smm_status mat4_copy_f64(const double *src, double *dst);

/*
 * Batched forms: matrix t of the output from matrix t of the inputs, for
 * t = 0 .. count - 1 (layout above). count == 0 does nothing and allows
 * NULL pointers. Returns SMM_ERR_BAD_SIZE for count < 0, SMM_ERR_OVERFLOW
 * when 16 * count elements do not fit in size_t, SMM_ERR_NULL_POINTER when
 * count > 0 and a pointer is NULL, SMM_ERR_BAD_ARGUMENT when the output
 * array overlaps an input array, or the ISA / thread selection error of
 * common.h. Each matrix gives the same result as the single-matrix call.
 *
 * mat4_inv_batch_*: every determinant is checked first; when any matrix is
 * singular (criterion of mat4_inv_f32) the call returns SMM_ERR_BAD_ARGUMENT
 * and writes nothing at all.
 */
SMM_API smm_status mat4_mul_batch_f32(int64_t count, const float *a, const float *b, float *c);
SMM_API smm_status mat4_mul_batch_f64(int64_t count, const double *a, const double *b, double *c);
SMM_API smm_status mat4_inv_batch_f32(int64_t count, const float *a, float *inv);
SMM_API smm_status mat4_inv_batch_f64(int64_t count, const double *a, double *inv);
SMM_API smm_status mat4_copy_batch_f32(int64_t count, const float *src, float *dst);
SMM_API smm_status mat4_copy_batch_f64(int64_t count, const double *src, double *dst);

/*
 * The kernel family the current ISA path runs for the 4x4 multiply:
 * "scalar", "avx2", "avx512" or "neon"; "unavailable" when the ISA
 * selection failed (the kernel-name rule of common.h). Never NULL.
 */
SMM_API const char *mat4_kernel_name(void);

#ifdef __cplusplus
}
#endif

#endif /* SKETCHMM_MAT4_H */
