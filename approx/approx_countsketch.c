/*
 * approx_countsketch.c - SKETCH_COUNTSKETCH's sketch: coordinate t of a
 * vector goes to bucket h(t) in 0 .. s-1 with sign sigma(t) = +-1,
 *
 *     (S^T x)_c = sum over t with h(t) = c of sigma(t) x_t,
 *
 * i.e. S[t][h(t)] = sigma(t) and S is zero elsewhere. With
 * w = classical_hash(classical_seed("countsketch", seed), t):
 * h(t) = ((w >> 32) * s) >> 32 (the high 32 bits scaled to 0 .. s-1) and
 * sigma(t) = -1 when bit 0 of w is set. No scaling: every row of S has one
 * entry of magnitude 1, so (S S^T)_tt = 1, and off the diagonal
 * E[sigma(t) sigma(u)] = 0, hence E[S S^T] = I.
 *
 * One pass over each vector (k additions, vectors in parallel); each bucket
 * sums its coordinates in float in increasing t, so the sketch is the same
 * on every ISA path and thread count.
 */
#include <omp.h>
#include <string.h>

#include "approx/approx_classical.h"

/* Least work (coordinates plus buckets touched) worth a parallel region. */
#define COUNTSKETCH_PARALLEL_MIN_WORK (INT64_C(1) << 14)

typedef struct {
    int64_t k, s;
    uint32_t *bucket; /* h(t), k entries */
    float *sign;      /* sigma(t), k entries */
} countsketch_sketch;

static void countsketch_free(void *sketch)
{
    countsketch_sketch *cs = sketch;
    if (cs == NULL)
        return;
    smm_aligned_free(cs->bucket);
    smm_aligned_free(cs->sign);
    smm_aligned_free(cs);
}

static smm_status countsketch_create(const smm_context *ctx, const classical_data *data, int64_t k, int64_t *s_io,
                                     uint64_t seed, void **sketch)
{
    (void)data;
    const int64_t s = *s_io;
    *sketch = NULL;
    smm_status status = SMM_OK;
    countsketch_sketch *cs = classical_alloc(1, 1, sizeof *cs, &status);
    uint32_t *bucket = classical_alloc(k, 1, sizeof(uint32_t), &status);
    float *sign = classical_alloc(k, 1, sizeof(float), &status);
    if (status != SMM_OK) {
        smm_aligned_free(cs);
        smm_aligned_free(bucket);
        smm_aligned_free(sign);
        return status;
    }
    const uint64_t domain = classical_seed("countsketch", seed);
#pragma omp parallel for num_threads(ctx->threads) schedule(static) if (k >= COUNTSKETCH_PARALLEL_MIN_WORK)
    for (int64_t t = 0; t < k; t++) {
        const uint64_t w = classical_hash(domain, (uint64_t)t);
        bucket[t] = (uint32_t)(((w >> 32) * (uint64_t)s) >> 32);
        sign[t] = (w & 1u) ? -1.0f : 1.0f;
    }
    *cs = (countsketch_sketch){ k, s, bucket, sign };
    *sketch = cs;
    return SMM_OK;
}

static smm_status countsketch_apply(const smm_context *ctx, const void *sketch, const approx_vectors *v,
                                    classical_view out)
{
    const countsketch_sketch *cs = sketch;
    const int64_t k = cs->k, s = cs->s, count = v->count;
    const int threads = ctx->threads;
    const int64_t buf = (s + 15) / 16 * 16; /* floats per thread, whole 64-byte lines */
    smm_status status = SMM_OK;
    float *work = classical_alloc(threads, buf, sizeof(float), &status);
    if (status != SMM_OK)
        return status;

    const int64_t row_step = v->layout == SMM_ROW_MAJOR ? v->ld : 1; /* vector i at data + i * row_step */
    const int64_t elem_step = v->layout == SMM_ROW_MAJOR ? 1 : v->ld;
    const int parallel = (double)count * (double)(k + s) >= (double)COUNTSKETCH_PARALLEL_MIN_WORK;

#pragma omp parallel num_threads(threads) if (parallel)
    {
        float *acc = work + (int64_t)omp_get_thread_num() * buf;
#pragma omp for schedule(static)
        for (int64_t i = 0; i < count; i++) {
            const float *x = v->data + i * row_step;
            memset(acc, 0, (size_t)s * sizeof(float));
            for (int64_t t = 0; t < k; t++)
                acc[cs->bucket[t]] += cs->sign[t] * x[t * elem_step];
            float *o = out.p + i * out.rs;
            for (int64_t c = 0; c < s; c++)
                o[c * out.cs] = acc[c];
        }
    }
    smm_aligned_free(work);
    return SMM_OK;
}

static const classical_sketch_ops countsketch_sketch_ops = { countsketch_create, countsketch_apply, NULL,
                                                            countsketch_free };

const approx_method approx_method_countsketch = {
    SKETCH_COUNTSKETCH, 64, APPROX_MAX_SKETCH_DIM, APPROX_SCALE_EACH, 0, classical_encoded_bytes, topk_shape_of_size,
    NULL, &classical_linear_ops, &countsketch_sketch_ops,
};
