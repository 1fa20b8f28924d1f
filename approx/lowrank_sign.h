/*
 * lowrank_sign.h - the kernels of the range finder's sparse sign sketch
 * (lowrank_sign_sketch, approx_lowrank_passes.h): signed vectors added into
 * the rows of a partial sum, each vector into the row its bucket names.
 *
 * Contract of both kernels, for vectors i = 0 .. nb - 1 and coordinates
 * t = 0 .. w - 1 (nb, w >= 0):
 *
 *   part[bucket[i] * ldp + t] += sign[i] * x(i, t)
 *
 * with sign[i] = +1 or -1 and every entry of part summed in increasing i
 * (one float add per term; sign[i] * x(i, t) is exact). So every kernel of
 * the family, on every path, gives the same bits, and the two kernels give
 * the same bits on the same vectors: rows reads x(i, t) = v[i * ldv + t]
 * (the vectors are rows of a row-major matrix), cols reads x(i, t) =
 * v[t * ldv + i] (the vectors are columns: the kernel transposes tiles of
 * them in registers instead of through memory). They read v and part only
 * inside these ranges and write part only at the entries above.
 *
 * The kernels of each ISA path are a row of the table of lowrank_sign.c
 * (common/smm_dispatch.h, docs/kernel-dispatch.md): plain C
 * (lowrank_sign_scalar.c, the twin the others are tested against), AVX2
 * (8 x 8 tiles), AVX-512 (16 x 16 tiles) and NEON (4 x 4 tiles).
 */
#ifndef LOWRANK_SIGN_H
#define LOWRANK_SIGN_H

#include <stdint.h>

#include "common/smm_dispatch.h"
#include "common/smm_runtime.h"

typedef void (*lowrank_sign_fn)(float *part, int64_t ldp, const float *v, int64_t ldv, const int32_t *bucket,
                                const float *sign, int64_t nb, int64_t w);

void lowrank_sign_rows_scalar(float *part, int64_t ldp, const float *v, int64_t ldv, const int32_t *bucket,
                              const float *sign, int64_t nb, int64_t w);
void lowrank_sign_cols_scalar(float *part, int64_t ldp, const float *v, int64_t ldv, const int32_t *bucket,
                              const float *sign, int64_t nb, int64_t w);
#if defined(__x86_64__)
void lowrank_sign_rows_avx2(float *part, int64_t ldp, const float *v, int64_t ldv, const int32_t *bucket,
                            const float *sign, int64_t nb, int64_t w);
void lowrank_sign_cols_avx2(float *part, int64_t ldp, const float *v, int64_t ldv, const int32_t *bucket,
                            const float *sign, int64_t nb, int64_t w);
void lowrank_sign_rows_avx512(float *part, int64_t ldp, const float *v, int64_t ldv, const int32_t *bucket,
                              const float *sign, int64_t nb, int64_t w);
void lowrank_sign_cols_avx512(float *part, int64_t ldp, const float *v, int64_t ldv, const int32_t *bucket,
                              const float *sign, int64_t nb, int64_t w);
#endif
#if defined(__aarch64__)
void lowrank_sign_rows_neon(float *part, int64_t ldp, const float *v, int64_t ldv, const int32_t *bucket,
                            const float *sign, int64_t nb, int64_t w);
void lowrank_sign_cols_neon(float *part, int64_t ldp, const float *v, int64_t ldv, const int32_t *bucket,
                            const float *sign, int64_t nb, int64_t w);
#endif

typedef struct {
    smm_kernel_head head; /* "scalar", "avx2_8x8", "avx512_16x16" or "neon_4x4" */
    lowrank_sign_fn rows; /* vectors as rows of v */
    lowrank_sign_fn cols; /* vectors as columns of v */
} lowrank_sign_kernels;

/* The row of path isa (never NULL; SMM_ISA_AUTO gives the scalar row). */
const lowrank_sign_kernels *lowrank_sign_kernels_for(smm_isa isa);

#endif /* LOWRANK_SIGN_H */
