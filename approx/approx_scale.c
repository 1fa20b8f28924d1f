/*
 * approx_scale.c - the safe range (see approx_scale.h): the finiteness
 * check and largest magnitude of a vector set in one pass, and the
 * power-of-two scaling of a set into a row-major copy.
 */
#include "approx/approx_scale.h"

#include <math.h>
#include <string.h>

#include "exact/unary_kernels.h"

/* Column-major vectors per block of the copy's transposition. */
#define COPY_BLOCK 256

smm_status approx_check_values(const smm_context *ctx, const approx_vectors *v, int64_t dim, int *exponent)
{
    /* the stored matrix: `outer` lines of `inner` contiguous floats */
    const int64_t outer = v->layout == SMM_ROW_MAJOR ? v->count : dim;
    const int64_t inner = v->layout == SMM_ROW_MAJOR ? dim : v->count;
    /* |x| as the bits of a float with the sign cleared: for finite floats their order is the floats' order, and
     * NaN and Inf, whose exponent bits are all 1, lie above every finite one */
    uint32_t largest = 0;
    const int parallel = (double)outer * (double)inner >= 65536.0; /* small checks are not worth a team */
#pragma omp parallel for num_threads(ctx->threads) schedule(static) reduction(max : largest) if (parallel)
    for (int64_t o = 0; o < outer; o++) {
        const float *line = v->data + o * v->ld;
        uint32_t mine = 0;
        for (int64_t t = 0; t < inner; t++) {
            uint32_t u;
            memcpy(&u, line + t, sizeof u);
            u &= UINT32_C(0x7fffffff);
            mine = u > mine ? u : mine;
        }
        largest = mine > largest ? mine : largest;
    }
    if (largest >= UINT32_C(0x7f800000))
        return SMM_ERR_NON_FINITE;
    if (exponent != NULL) {
        float big;
        memcpy(&big, &largest, sizeof big);
        int e = 0;
        if (largest != 0) {
            (void)frexpf(big, &e); /* big = f 2^e, f in [0.5, 1): floor(log2(big)) = e - 1 */
            e -= 1;
        }
        *exponent = e;
    }
    return SMM_OK;
}

void approx_shift_factors(int shift, float *f1, float *f2)
{
    /* 2^-shift in [2^-149, 2^127] (shift <= 149) is one exact float; above 2^127 two, and x only grows (exact) */
    const int first = shift >= -127 ? -shift : -shift / 2;
    *f1 = ldexpf(1.0f, first);
    *f2 = ldexpf(1.0f, -shift - first);
}

smm_status approx_scaled_copy(const smm_context *ctx, const approx_vectors *v, int64_t dim, int shift, float **copy,
                              approx_vectors *out)
{
    *copy = NULL;
    int64_t elems, bytes;
    if (smm_mul_size(v->count, dim, &elems) != SMM_OK || smm_mul_size(elems, sizeof(float), &bytes) != SMM_OK)
        return SMM_ERR_OVERFLOW;
    float *dst = smm_aligned_alloc((size_t)bytes);
    if (dst == NULL)
        return SMM_ERR_NO_MEMORY;
    float f1, f2;
    approx_shift_factors(shift, &f1, &f2);
    const int64_t n = v->count;
    if (v->layout != SMM_ROW_MAJOR) {
        /* vector i is column i of the stored matrix: blocks of COPY_BLOCK vectors transposed in register tiles,
         * each reading the stored rows as COPY_BLOCK-float pieces (one vector at a time read one float per 64-byte
         * line: 5.7 ms for 784 lines of 4096 floats on Zen 4, 2 threads, against 1.2-2 ms) */
        const unary_transpose_fn transpose = unary_kernels_for(ctx->isa)->transpose;
#pragma omp parallel for num_threads(ctx->threads) schedule(static)
        for (int64_t i0 = 0; i0 < n; i0 += COPY_BLOCK)
            transpose(UNARY_IDENTITY, n - i0 < COPY_BLOCK ? n - i0 : COPY_BLOCK, dim, v->data + i0, v->ld,
                      dst + i0 * dim, dim, 0);
    }
    if (v->layout == SMM_ROW_MAJOR || shift != 0) {
#pragma omp parallel for num_threads(ctx->threads) schedule(static)
        for (int64_t i = 0; i < n; i++) { /* vector i at dst + i * dim */
            float *d = dst + i * dim;
            if (v->layout == SMM_ROW_MAJOR)
                memcpy(d, v->data + i * v->ld, (size_t)dim * sizeof(float));
            if (shift != 0)
                for (int64_t t = 0; t < dim; t++)
                    d[t] = d[t] * f1 * f2;
        }
    }
    const approx_vectors scaled = { SMM_ROW_MAJOR, n, dst, dim };
    *copy = dst;
    *out = scaled;
    return SMM_OK;
}
