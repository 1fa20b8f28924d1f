/*
 * approx_simhash.c - the SimHash estimate of a product.
 *
 * Both vector sets get codes and norms (sketch/simhash), then each entry is
 * ||a_i|| ||b_j|| cos(pi * h_ij / bits). h takes bits + 1 values, so the
 * cosine comes from a table, and the Hamming distances of one output row are
 * turned into C entries block by block, without a distance matrix.
 */
#include <omp.h>

#include "approx/approx_problem.h"
#include "sketch/hamming_kernels.h"
#include "sketch/simhash.h"
#include "sketchmm/sketch.h"

/* Distances computed per block of one output row (fits in L1 with the codes it reads). */
#define APPROX_BLOCK 512

typedef struct {
    uint64_t *codes;
    float *norms;
    int64_t words;
} sketched_set;

static void sketched_free(sketched_set *s)
{
    smm_aligned_free(s->codes);
    smm_aligned_free(s->norms);
}

static smm_status sketch_set(const smm_context *ctx, const approx_vectors *v, int64_t dim,
                             const approx_options *opts, sketched_set *out)
{
    int64_t code_words, code_bytes, norm_bytes;
    out->words = sketch_words(opts->bits);
    out->codes = NULL;
    out->norms = NULL;
    if (smm_mul_size(v->count, out->words, &code_words) != SMM_OK ||
        smm_mul_size(code_words, (int64_t)sizeof(uint64_t), &code_bytes) != SMM_OK ||
        smm_mul_size(v->count, (int64_t)sizeof(float), &norm_bytes) != SMM_OK)
        return SMM_ERR_OVERFLOW;
    out->codes = smm_aligned_alloc((size_t)code_bytes);
    out->norms = smm_aligned_alloc((size_t)norm_bytes);
    if (!out->codes || !out->norms)
        return SMM_ERR_NO_MEMORY;
    return simhash_encode_with(ctx, v->layout, v->count, dim, v->data, v->ld, opts->bits, opts->seed,
                               out->codes, out->words, out->norms);
}

/*
 * One contiguous line of C (a row when C is row-major, a column otherwise):
 * c[t] for t < count, from the code q of norm q_norm against the codes of the
 * inner set. Each entry is alpha * ((q_norm * norm_t) * cos), so the two norms
 * meet in the same order whichever side is outer: C does not depend on the
 * layout.
 */
static void estimate_line(hamming_row_fn hamming, const uint64_t *q, float q_norm, const sketched_set *inner,
                          int64_t count, const float *cos_table, float alpha, float beta, float *c,
                          uint32_t *dist)
{
    for (int64_t t0 = 0; t0 < count; t0 += APPROX_BLOCK) {
        const int64_t len = count - t0 < APPROX_BLOCK ? count - t0 : APPROX_BLOCK;
        const float *norms = inner->norms + t0;
        float *line = c + t0;
        hamming(q, inner->codes + t0 * inner->words, len, inner->words, inner->words, dist);
        if (beta == 0.0f) { /* C is write-only */
            for (int64_t t = 0; t < len; t++)
                line[t] = alpha * (q_norm * norms[t] * cos_table[dist[t]]);
        } else {
            for (int64_t t = 0; t < len; t++)
                line[t] = alpha * (q_norm * norms[t] * cos_table[dist[t]]) + beta * line[t];
        }
    }
}

smm_status approx_simhash_product(const smm_context *ctx, const approx_problem *p, const approx_options *opts)
{
    sketched_set a = { NULL, NULL, 0 }, b = { NULL, NULL, 0 };
    float *cos_table = smm_aligned_alloc(((size_t)opts->bits + 1) * sizeof(float));
    uint32_t *dist = smm_aligned_alloc((size_t)ctx->threads * APPROX_BLOCK * sizeof(uint32_t));
    smm_status s = cos_table && dist ? SMM_OK : SMM_ERR_NO_MEMORY;
    if (s == SMM_OK)
        s = sketch_set(ctx, &p->rows_a, p->k, opts, &a);
    if (s == SMM_OK)
        s = sketch_set(ctx, &p->cols_b, p->k, opts, &b);
    if (s == SMM_OK) {
        for (int32_t h = 0; h <= opts->bits; h++)
            cos_table[h] = (float)sketch_cosine_estimate(h, opts->bits);

        /* Walk C along its unit stride: rows of C when row-major, columns when column-major. */
        const int rows_outer = p->cs_c == 1;
        const sketched_set *outer = rows_outer ? &a : &b;
        const sketched_set *inner = rows_outer ? &b : &a;
        const int64_t n_outer = rows_outer ? p->m : p->n;
        const int64_t n_inner = rows_outer ? p->n : p->m;
        const int64_t ld_outer = rows_outer ? p->rs_c : p->cs_c;
        const hamming_row_fn hamming = hamming_row_kernel(ctx->isa);

#pragma omp parallel num_threads(ctx->threads)
        {
            uint32_t *my_dist = dist + (size_t)omp_get_thread_num() * APPROX_BLOCK;
#pragma omp for schedule(static)
            for (int64_t o = 0; o < n_outer; o++)
                estimate_line(hamming, outer->codes + o * outer->words, outer->norms[o], inner, n_inner, cos_table,
                              p->alpha, p->beta, p->C + o * ld_outer, my_dist);
        }
    }
    smm_aligned_free(dist);
    smm_aligned_free(cos_table);
    sketched_free(&a);
    sketched_free(&b);
    return s;
}
