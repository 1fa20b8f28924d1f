/*
 * approx_gaussian.c - SKETCH_GAUSSIAN_PROJECTION's sketch: S = G / sqrt(s)
 * with G a k x s matrix of i.i.d. standard normal numbers.
 *
 * Entry G[t][c] is simhash_hyperplane_entry(g, c, t) with
 * g = classical_seed("gaussian_projection", seed): XXH3 of (c, t) under g,
 * turned into N(0, 1) by the portable normal quantile, so column c of G is
 * SimHash's hyperplane c of seed g, and every entry is the same float on
 * every platform. S[t][c] = G[t][c] * (1 / sqrt(s)), the product in double
 * rounded once to float. E[S S^T] = E[G G^T] / s = I.
 *
 * S is drawn once (the plan keeps it, k s floats) and applied with
 * exact_sgemm: S^T v for every vector v of a set is one product V S
 * (2 k s flops per vector), by classical_matrix_apply, which serves every
 * sketch kept as a matrix.
 */
#include <math.h>

#include "approx/approx_classical.h"
#include "exact/sgemm.h"
#include "sketch/simhash.h"

/* Least number of entries worth a parallel region when drawing S. */
#define GAUSSIAN_PARALLEL_MIN_ENTRIES (INT64_C(1) << 14)

typedef struct {
    int64_t k, s;
    float *S; /* k x s, row-major */
} gaussian_sketch;

static void gaussian_free(void *sketch)
{
    gaussian_sketch *g = sketch;
    if (g == NULL)
        return;
    smm_aligned_free(g->S);
    smm_aligned_free(g);
}

static smm_status gaussian_create(const smm_context *ctx, const classical_data *data, int64_t k, int64_t *s_io,
                                  uint64_t seed, void **sketch)
{
    (void)data;
    const int64_t s = *s_io;
    *sketch = NULL;
    smm_status status = SMM_OK;
    gaussian_sketch *g = classical_alloc(1, 1, sizeof *g, &status);
    float *S = classical_alloc(k, s, sizeof(float), &status);
    if (status != SMM_OK) {
        smm_aligned_free(g);
        smm_aligned_free(S);
        return status;
    }
    const uint64_t domain = classical_seed("gaussian_projection", seed);
    const double scale = 1.0 / sqrt((double)s);
#pragma omp parallel for num_threads(ctx->threads) schedule(static) if (k * s >= GAUSSIAN_PARALLEL_MIN_ENTRIES)
    for (int64_t t = 0; t < k; t++)
        for (int64_t c = 0; c < s; c++)
            S[t * s + c] = (float)((double)simhash_hyperplane_entry(domain, (uint64_t)c, (uint64_t)t) * scale);
    *g = (gaussian_sketch){ k, s, S };
    *sketch = g;
    return SMM_OK;
}

smm_status classical_matrix_apply(const smm_context *ctx, const float *S, int64_t k, int64_t s,
                                  const approx_vectors *v, classical_view out)
{
    smm_layout layout;
    int64_t ldo;
    classical_view_matrix(v->count, s, out.rs, out.cs, &layout, &ldo);
    /* out = V S (count x s) in `layout`: V (count x k) is itself when stored in that layout, else
     * transposed; S (k x s) is row-major, so transposed when the product is column-major */
    const smm_trans trans_v = v->layout == layout ? SMM_NO_TRANS : SMM_TRANS;
    const smm_trans trans_s = layout == SMM_ROW_MAJOR ? SMM_NO_TRANS : SMM_TRANS;
    return exact_sgemm_with(ctx, layout, trans_v, trans_s, v->count, s, k, 1.0f, v->data, v->ld, S, s, 0.0f, out.p,
                            ldo);
}

static smm_status gaussian_apply(const smm_context *ctx, const void *sketch, const approx_vectors *v,
                                 classical_view out)
{
    const gaussian_sketch *g = sketch;
    return classical_matrix_apply(ctx, g->S, g->k, g->s, v, out);
}

const classical_sketch_ops classical_gaussian_sketch = { gaussian_create, gaussian_apply, NULL, gaussian_free };

const approx_method approx_method_gaussian_projection = {
    SKETCH_GAUSSIAN_PROJECTION, 64, APPROX_MAX_SKETCH_DIM, APPROX_SCALE_EACH, 0, classical_encoded_bytes, topk_shape_of_size,
    NULL, &classical_linear_ops, &classical_gaussian_sketch,
};
