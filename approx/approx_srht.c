/*
 * approx_srht.c - SKETCH_SRHT's sketch, the subsampled randomized Hadamard
 * transform: S = D H P / sqrt(s), i.e.
 *
 *     (S^T x)_c = (H D x)_{p_c} / sqrt(s),   c = 0 .. s-1,
 *
 * with x zero-padded to K = 2^L, the smallest power of two >= max(k, 2);
 *   D  diagonal random signs: D_t = -1 when bit t % 64 of
 *      classical_hash(classical_seed("srht signs", seed), t / 64) is set;
 *   H  the unnormalised Walsh-Hadamard matrix of order K (entries +-1,
 *      H H = K I), applied by the library's FWHT (hd_rotation.h);
 *   p_c the top L bits of classical_hash(classical_seed("srht coordinates",
 *      seed), c): s coordinates uniform over 0 .. K-1, with replacement.
 * Unbiased: E over p of (H D a)_p (H D b)_p = (H D a).(H D b) / K = a.b,
 * so E[(S^T a).(S^T b)] = a.b (approx.h writes the same S as
 * sqrt(K/s) D H P / sqrt(K)).
 *
 * Per vector (K log2 K additions, vectors in parallel): x is scaled by the
 * power of two 2^(1-e) that brings max |x_t| = f 2^e, f in [0.5, 1), into
 * [1, 2) and zero-padded (hd_scale_pad), so that the FWHT's growth by up to
 * K cannot overflow; the FWHT runs with D's sign flips fused
 * (the row of hd_kernels_for(ctx->isa)); the sampled coordinates are multiplied by
 * 2^(e-1) / sqrt(s) in double and rounded once to float. Every kernel does
 * the same float operations, so the sketch is bit-identical on every ISA
 * path and thread count.
 */
#include <math.h>
#include <omp.h>

#include "approx/approx_classical.h"
#include "sketch/hd_rotation.h"

/* Least work (floats transformed) worth a parallel region. */
#define SRHT_PARALLEL_MIN_WORK (INT64_C(1) << 14)
/* Largest log2 of the padded dimension. */
#define SRHT_MAX_LOG2_DIM 62

typedef struct {
    int64_t k, s;
    int log2_dim;    /* L */
    int64_t dim;     /* K = 2^L */
    uint32_t *flip;  /* K masks: 0x80000000 where D has -1, else 0 (xor into a float's sign bit) */
    int64_t *coords; /* s sampled coordinates p_c in 0 .. K-1 */
} srht_sketch;

static void srht_free(void *sketch)
{
    srht_sketch *h = sketch;
    if (h == NULL)
        return;
    smm_aligned_free(h->flip);
    smm_aligned_free(h->coords);
    smm_aligned_free(h);
}

static smm_status srht_create(const smm_context *ctx, const classical_data *data, int64_t k, int64_t *s_io,
                              uint64_t seed, void **sketch)
{
    (void)data;
    const int64_t s = *s_io;
    (void)ctx;
    *sketch = NULL;
    int log2_dim = 1;
    while ((INT64_C(1) << log2_dim) < k) {
        if (log2_dim == SRHT_MAX_LOG2_DIM)
            return SMM_ERR_OVERFLOW;
        log2_dim++;
    }
    const int64_t dim = INT64_C(1) << log2_dim;
    smm_status status = SMM_OK;
    srht_sketch *h = classical_alloc(1, 1, sizeof *h, &status);
    uint32_t *flip = classical_alloc(dim, 1, sizeof(uint32_t), &status);
    int64_t *coords = classical_alloc(s, 1, sizeof(int64_t), &status);
    if (status != SMM_OK) {
        smm_aligned_free(h);
        smm_aligned_free(flip);
        smm_aligned_free(coords);
        return status;
    }
    const uint64_t sign_seed = classical_seed("srht signs", seed);
    for (int64_t w = 0; w * 64 < dim; w++) {
        const uint64_t bits = classical_hash(sign_seed, (uint64_t)w);
        const int64_t count = dim - w * 64 < 64 ? dim - w * 64 : 64;
        for (int64_t i = 0; i < count; i++)
            flip[w * 64 + i] = ((bits >> i) & 1u) ? UINT32_C(0x80000000) : 0u;
    }
    const uint64_t coord_seed = classical_seed("srht coordinates", seed);
    for (int64_t c = 0; c < s; c++)
        coords[c] = (int64_t)(classical_hash(coord_seed, (uint64_t)c) >> (64 - log2_dim));
    *h = (srht_sketch){ k, s, log2_dim, dim, flip, coords };
    *sketch = h;
    return SMM_OK;
}

static smm_status srht_apply(const smm_context *ctx, const void *sketch, const approx_vectors *v,
                             classical_view out)
{
    const srht_sketch *h = sketch;
    const int64_t k = h->k, s = h->s, dim = h->dim, count = v->count;
    const int threads = ctx->threads;
    const int64_t buf = (dim + 15) / 16 * 16; /* floats per thread, whole 64-byte lines */
    smm_status status = SMM_OK;
    float *work = classical_alloc(threads, buf, sizeof(float), &status);
    if (status != SMM_OK)
        return status;

    const hd_kernels *hd = hd_kernels_for(ctx->isa);
    const fwht_flip_fn fwht = hd->fwht;
    const scale_pad_fn scale_pad = hd->scale_pad;
    const int64_t row_step = v->layout == SMM_ROW_MAJOR ? v->ld : 1; /* vector i at data + i * row_step */
    const int64_t elem_step = v->layout == SMM_ROW_MAJOR ? 1 : v->ld;
    const double inv_sqrt_s = 1.0 / sqrt((double)s);
    const int parallel = (double)count * (double)dim >= (double)SRHT_PARALLEL_MIN_WORK;

#pragma omp parallel num_threads(threads) if (parallel)
    {
        float *y = work + (int64_t)omp_get_thread_num() * buf;
#pragma omp for schedule(static)
        for (int64_t i = 0; i < count; i++) {
            const float *x = v->data + i * row_step;
            int64_t step = elem_step;
            if (step != 1) { /* a strided vector (a borrowed row-major B) is read once, into y */
                for (int64_t t = 0; t < k; t++)
                    y[t] = x[t * step];
                x = y;
                step = 1;
            }
            float big = 0.0f;
            for (int64_t t = 0; t < k; t++) {
                const float a = fabsf(x[t * step]);
                big = a > big ? a : big;
            }
            int e = 0;
            if (big > 0.0f)
                (void)frexpf(big, &e);
            hd_scale_pad(x, step, k, dim, big, scale_pad, y); /* y = 2^(1-e) x, zero-padded (x may be y) */
            fwht(y, h->flip, dim);                                 /* y = H D y */
            const double factor = ldexp(inv_sqrt_s, e - 1);
            float *o = out.p + i * out.rs;
            for (int64_t c = 0; c < s; c++)
                o[c * out.cs] = (float)((double)y[h->coords[c]] * factor);
        }
    }
    smm_aligned_free(work);
    return SMM_OK;
}

static const classical_sketch_ops srht_sketch_ops = { srht_create, srht_apply, srht_free };

const approx_method approx_method_srht = {
    SKETCH_SRHT, 64, APPROX_MAX_SKETCH_DIM, APPROX_SCALE_EACH, 0, classical_encoded_bytes, topk_shape_of_size,
    NULL, &classical_linear_ops, &srht_sketch_ops,
};
