/*
 * approx_codes.c - the four sketch-family methods of approx_sgemm (SimHash,
 * orthogonal and structured SimHash, cross-polytope): entry (i, j) of the
 * product is estimated as |a_i| |b_j| cos-estimate(code_i, code_j).
 *
 * Both vector sets get codes and norms (sketch_encode_with). The estimator is
 * a function of a small integer, the Hamming distance h (0..bits) for the
 * SimHash families or the match count (0..hashes) for cross-polytope, so the
 * cosine comes from a table built once per plan; the distances of one line of
 * C are turned into entries block by block, without a distance matrix.
 */
#include <math.h>
#include <omp.h>

#include "approx/approx_problem.h"
#include "sketch/crosspolytope.h"
#include "sketch/hamming_kernels.h"
#include "sketch/simhash.h"
#include "sketchmm/sketch.h"

/* Distances computed per block of one line of C (fits in L1 with the codes it reads). */
#define CODES_BLOCK 512

/* Codes and norms of one vector set. */
typedef struct {
    int64_t count, words;
    uint64_t *codes; /* code i at codes + i * words */
    float *norms;
} code_set;

/* The plan's side: op(B)'s codes, and what turns a distance into a cosine. */
typedef struct {
    code_set set;
    sketch_family family;
    float *cosine;       /* cosine[h] for every distance / match count h */
    sketch_cp_layout cp; /* cross-polytope only */
    uint64_t *cp_hi, *cp_lo;
} codes_b_state;

static sketch_family family_of(approx_method method)
{
    switch (method) {
    case APPROX_SIMHASH_ORTHOGONAL: return SKETCH_SIMHASH_ORTHOGONAL;
    case APPROX_SIMHASH_STRUCTURED: return SKETCH_SIMHASH_STRUCTURED;
    case APPROX_CROSSPOLYTOPE: return SKETCH_CROSSPOLYTOPE;
    default: return SKETCH_SIMHASH;
    }
}

static void code_set_free(code_set *s)
{
    smm_aligned_free(s->codes);
    smm_aligned_free(s->norms);
    s->codes = NULL;
    s->norms = NULL;
}

static smm_status encode_set(const smm_context *ctx, sketch_family family, const approx_vectors *v, int64_t dim,
                             const approx_options *opts, code_set *out)
{
    int64_t words, code_words, code_bytes, norm_bytes;
    out->count = v->count;
    out->codes = NULL;
    out->norms = NULL;
    smm_status s = sketch_code_words(family, dim, opts->bits, &words);
    if (s != SMM_OK)
        return s;
    out->words = words;
    if (smm_mul_size(v->count, words, &code_words) != SMM_OK ||
        smm_mul_size(code_words, (int64_t)sizeof(uint64_t), &code_bytes) != SMM_OK ||
        smm_mul_size(v->count, (int64_t)sizeof(float), &norm_bytes) != SMM_OK)
        return SMM_ERR_OVERFLOW;
    out->codes = smm_aligned_alloc((size_t)code_bytes);
    out->norms = smm_aligned_alloc((size_t)norm_bytes);
    if (!out->codes || !out->norms) {
        code_set_free(out);
        return SMM_ERR_NO_MEMORY;
    }
    s = sketch_encode_with(ctx, family, v->layout, v->count, dim, v->data, v->ld, opts->bits, opts->seed, out->codes,
                           words, out->norms);
    if (s != SMM_OK)
        code_set_free(out);
    return s;
}

/* Frees either state: sketch_a's is a codes_b_state too, with only its code set. */
static void codes_free_state(void *state)
{
    codes_b_state *st = state;
    if (st == NULL)
        return;
    code_set_free(&st->set);
    smm_aligned_free(st->cosine);
    smm_aligned_free(st->cp_hi);
    smm_aligned_free(st->cp_lo);
    smm_aligned_free(st);
}

static codes_b_state *new_state(void)
{
    codes_b_state *st = smm_aligned_alloc(sizeof *st);
    if (st != NULL) {
        st->set.codes = NULL;
        st->set.norms = NULL;
        st->cosine = NULL;
        st->cp_hi = st->cp_lo = NULL;
    }
    return st;
}

static smm_status codes_sketch_b(const smm_context *ctx, const approx_b_side *b, void **state)
{
    *state = NULL;
    codes_b_state *st = new_state();
    if (st == NULL)
        return SMM_ERR_NO_MEMORY;
    st->family = family_of(b->opts.method);
    const int32_t bits = b->opts.bits;
    int64_t levels = (int64_t)bits + 1; /* Hamming distances 0..bits */
    smm_status s = SMM_OK;
    if (st->family == SKETCH_CROSSPOLYTOPE) {
        s = sketch_crosspolytope_layout(b->k, bits, &st->cp);
        levels = (int64_t)st->cp.hashes + 1; /* match counts 0..hashes */
        if (s == SMM_OK) {
            st->cp_hi = smm_aligned_alloc((size_t)st->cp.words * sizeof(uint64_t));
            st->cp_lo = smm_aligned_alloc((size_t)st->cp.words * sizeof(uint64_t));
            if (!st->cp_hi || !st->cp_lo)
                s = SMM_ERR_NO_MEMORY;
        }
        for (int64_t w = 0; s == SMM_OK && w < st->cp.words; w++)
            crosspolytope_word_masks(&st->cp, w, &st->cp_hi[w], &st->cp_lo[w]);
    }
    if (s == SMM_OK) {
        st->cosine = smm_aligned_alloc((size_t)levels * sizeof(float));
        if (st->cosine == NULL)
            s = SMM_ERR_NO_MEMORY;
    }
    for (int64_t h = 0; s == SMM_OK && h < levels; h++)
        st->cosine[h] = (float)(st->family == SKETCH_CROSSPOLYTOPE
                                    ? sketch_crosspolytope_cosine_estimate(b->k, bits, h)
                                    : sketch_cosine_estimate(h, bits));
    if (s == SMM_OK)
        s = encode_set(ctx, st->family, &b->cols, b->k, &b->opts, &st->set);
    if (s != SMM_OK) {
        codes_free_state(st);
        return s;
    }
    *state = st;
    return SMM_OK;
}

static smm_status codes_sketch_a(const smm_context *ctx, const approx_b_side *b, const void *b_state,
                                 const approx_vectors *rows_a, void **a_state)
{
    const codes_b_state *bs = b_state;
    *a_state = NULL;
    codes_b_state *st = new_state();
    if (st == NULL)
        return SMM_ERR_NO_MEMORY;
    st->family = bs->family;
    smm_status s = encode_set(ctx, bs->family, rows_a, b->k, &b->opts, &st->set);
    if (s != SMM_OK) {
        codes_free_state(st);
        return s;
    }
    *a_state = st;
    return SMM_OK;
}

/* The distance kernel of a plan for one ISA path, and its scratch. */
typedef struct {
    const codes_b_state *b;
    hamming_row_fn hamming;  /* SimHash families */
    cp_match_row_fn matches; /* cross-polytope */
} code_distances;

static code_distances distances_of(const smm_context *ctx, const codes_b_state *b)
{
    code_distances d = { b, NULL, NULL };
    if (b->family == SKETCH_CROSSPOLYTOPE)
        d.matches = cp_match_row_kernel(ctx->isa);
    else
        d.hamming = hamming_row_kernel(ctx->isa);
    return d;
}

/* level[t] = the table index (distance or match count) of q against codes c_0 .. c_{len-1} (len <= CODES_BLOCK). */
static void block_levels(const code_distances *d, const uint64_t *q, const uint64_t *codes, int64_t len,
                         int64_t words, uint32_t *level)
{
    if (d->hamming != NULL) {
        d->hamming(q, codes, len, words, words, level);
        return;
    }
    uint16_t m[CODES_BLOCK];
    d->matches(q, codes, len, words, words, d->b->cp_hi, d->b->cp_lo, (uint32_t)d->b->cp.hashes, m);
    for (int64_t t = 0; t < len; t++)
        level[t] = m[t];
}

/*
 * Entries t < count of one contiguous line of C (a row when C is row-major, a
 * column otherwise): c[t] from the code q of norm q_norm against codes
 * inner->codes[t0 + t]. Each entry is alpha * ((a-norm * b-norm) * cos) with
 * the a-side norm first, so C does not depend on which side is outer.
 */
static void estimate_line(const code_distances *d, const uint64_t *q, float q_norm, int q_is_a, const code_set *inner,
                          int64_t t_begin, int64_t count, float alpha, float beta, float *c)
{
    const float *cosine = d->b->cosine;
    uint32_t level[CODES_BLOCK];
    for (int64_t t0 = 0; t0 < count; t0 += CODES_BLOCK) {
        const int64_t len = count - t0 < CODES_BLOCK ? count - t0 : CODES_BLOCK;
        const float *norms = inner->norms + t_begin + t0;
        float *line = c + t0;
        block_levels(d, q, inner->codes + (t_begin + t0) * inner->words, len, inner->words, level);
        if (beta == 0.0f) { /* C is write-only */
            if (q_is_a)
                for (int64_t t = 0; t < len; t++)
                    line[t] = alpha * ((q_norm * norms[t]) * cosine[level[t]]);
            else
                for (int64_t t = 0; t < len; t++)
                    line[t] = alpha * ((norms[t] * q_norm) * cosine[level[t]]);
        } else {
            if (q_is_a)
                for (int64_t t = 0; t < len; t++)
                    line[t] = alpha * ((q_norm * norms[t]) * cosine[level[t]]) + beta * line[t];
            else
                for (int64_t t = 0; t < len; t++)
                    line[t] = alpha * ((norms[t] * q_norm) * cosine[level[t]]) + beta * line[t];
        }
    }
}

static smm_status codes_estimate(const smm_context *ctx, const approx_b_side *b, const void *b_state,
                                 const void *a_state, const approx_problem *p)
{
    (void)b;
    const codes_b_state *bs = b_state;
    const code_set *a = &((const codes_b_state *)a_state)->set;
    const code_distances d = distances_of(ctx, bs);
    /* Walk C along its unit stride: rows of C when row-major, columns when column-major. */
    const int rows_outer = p->cs_c == 1;
    const code_set *outer = rows_outer ? a : &bs->set;
    const code_set *inner = rows_outer ? &bs->set : a;
    const int64_t ld_outer = rows_outer ? p->rs_c : p->cs_c;
#pragma omp parallel for num_threads(ctx->threads) schedule(static)
    for (int64_t o = 0; o < outer->count; o++)
        estimate_line(&d, outer->codes + o * outer->words, outer->norms[o], rows_outer, inner, 0, inner->count,
                      p->alpha, p->beta, p->C + o * ld_outer);
    return SMM_OK;
}

static size_t codes_block_work_bytes(const approx_b_side *b, const void *b_state, int64_t rows, int64_t cols)
{
    (void)b, (void)b_state, (void)rows, (void)cols;
    return 0;
}

static void codes_estimate_block(const smm_context *ctx, const approx_b_side *b, const void *b_state,
                                 const void *a_state, int64_t i0, int64_t rows, int64_t j0, int64_t cols, float *out,
                                 int64_t ldo, void *work)
{
    (void)b, (void)work;
    const codes_b_state *bs = b_state;
    const code_set *a = &((const codes_b_state *)a_state)->set;
    const code_distances d = distances_of(ctx, bs);
#pragma omp parallel for num_threads(ctx->threads) schedule(static) if (ctx->threads > 1)
    for (int64_t r = 0; r < rows; r++)
        estimate_line(&d, a->codes + (i0 + r) * a->words, a->norms[i0 + r], 1, &bs->set, j0, cols, 1.0f, 0.0f,
                      out + r * ldo);
}

static const approx_method_ops codes_ops = {
    codes_sketch_b, codes_sketch_a, codes_estimate, codes_block_work_bytes, codes_estimate_block, codes_free_state,
};

const approx_method_ops *approx_codes_ops(approx_method method)
{
    switch (method) {
    case APPROX_SIMHASH:
    case APPROX_SIMHASH_ORTHOGONAL:
    case APPROX_SIMHASH_STRUCTURED:
    case APPROX_CROSSPOLYTOPE:
        return &codes_ops;
    default:
        return NULL;
    }
}
