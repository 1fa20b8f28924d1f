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

#include "approx/approx_method.h"
#include "sketch/crosspolytope.h"
#include "sketch/hamming_kernels.h"
#include "sketch/simhash.h"
#include "sketchmm/sketch.h"

/*
 * Distances are computed for CODES_ROWS lines of C against CODES_BLOCK codes
 * at a time (a multiple of the panel): the block's codes are read once for
 * all its lines, and the distances stay in L1 until they become estimates.
 */
#define CODES_ROWS 4
#define CODES_BLOCK 512

/* Codes and norms of one vector set. */
typedef struct {
    int64_t count, words;
    uint64_t *codes;  /* code i at codes + i * words */
    uint64_t *panels; /* SimHash families: the same codes in the panels of the Hamming panel kernels */
    float *norms;
} code_set;

/* The plan's side: op(B)'s codes, and what turns a distance into a cosine. */
typedef struct {
    code_set set;
    sketch_method method;
    float *cosine;       /* cosine[h] for every distance / match count h */
    sketch_cp_layout cp; /* cross-polytope only */
    uint64_t *cp_hi, *cp_lo;
} codes_b_state;

static void code_set_free(code_set *s)
{
    smm_aligned_free(s->codes);
    smm_aligned_free(s->panels);
    smm_aligned_free(s->norms);
    s->codes = s->panels = NULL;
    s->norms = NULL;
}

/* Pack the codes of a SimHash set into panels (ctx->threads threads). */
static smm_status pack_panels(const smm_context *ctx, code_set *set)
{
    const int64_t npanels = (set->count + HAMMING_PANEL - 1) / HAMMING_PANEL;
    int64_t words;
    if (smm_mul_size(npanels, HAMMING_PANEL * set->words, &words) != SMM_OK || words > INT64_MAX / 8)
        return SMM_ERR_OVERFLOW;
    set->panels = smm_aligned_alloc((size_t)words * sizeof(uint64_t));
    if (set->panels == NULL)
        return SMM_ERR_NO_MEMORY;
#pragma omp parallel for num_threads(ctx->threads) schedule(static)
    for (int64_t p = 0; p < npanels; p++) {
        const int64_t j0 = p * HAMMING_PANEL;
        const int64_t count = set->count - j0 < HAMMING_PANEL ? set->count - j0 : HAMMING_PANEL;
        hamming_pack_panel(set->codes, set->words, j0, count, set->words, set->panels + j0 * set->words);
    }
    return SMM_OK;
}

static smm_status encode_set(const smm_context *ctx, sketch_method method, const approx_vectors *v, int64_t dim,
                             const approx_options *opts, code_set *out)
{
    int64_t words, code_words, code_bytes, norm_bytes;
    out->count = v->count;
    out->codes = out->panels = NULL;
    out->norms = NULL;
    smm_status s = sketch_code_words(method, dim, opts->size, &words);
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
    s = sketch_encode_with(ctx, method, v->layout, v->count, dim, v->data, v->ld, opts->size, opts->seed, out->codes,
                           words, out->norms);
    if (s == SMM_OK && method != SKETCH_CROSSPOLYTOPE)
        s = pack_panels(ctx, out);
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
        st->set.codes = st->set.panels = NULL;
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
    st->method = b->opts.method;
    const int32_t bits = b->opts.size;
    int64_t levels = (int64_t)bits + 1; /* Hamming distances 0..bits */
    smm_status s = SMM_OK;
    if (st->method == SKETCH_CROSSPOLYTOPE) {
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
        st->cosine[h] = (float)(st->method == SKETCH_CROSSPOLYTOPE
                                    ? sketch_crosspolytope_cosine_estimate(b->k, bits, h)
                                    : sketch_cosine_estimate(h, bits));
    if (s == SMM_OK)
        s = encode_set(ctx, st->method, &b->cols, b->k, &b->opts, &st->set);
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
    st->method = bs->method;
    smm_status s = encode_set(ctx, bs->method, rows_a, b->k, &b->opts, &st->set);
    if (s != SMM_OK) {
        codes_free_state(st);
        return s;
    }
    *a_state = st;
    return SMM_OK;
}

/* The distance kernel of a plan for one ISA path. */
typedef struct {
    const codes_b_state *b;
    hamming_panel_fn hamming; /* SimHash families */
    cp_match_row_fn matches;  /* cross-polytope */
} code_distances;

static code_distances distances_of(const smm_context *ctx, const codes_b_state *b)
{
    code_distances d = { b, NULL, NULL };
    if (b->method == SKETCH_CROSSPOLYTOPE)
        d.matches = cp_match_kernels_for(ctx->isa)->row;
    else
        d.hamming = hamming_kernels_for(ctx->isa)->panel;
    return d;
}

/*
 * level[r * CODES_BLOCK + t] = the table index (Hamming distance, or match
 * count) of the code of outer vector o0 + r against inner code t0 + t, for
 * r < rows (<= CODES_ROWS), t < len (<= CODES_BLOCK); t0 is a multiple of
 * HAMMING_PANEL.
 */
static void block_levels(const code_distances *d, const code_set *outer, int64_t o0, int64_t rows,
                         const code_set *inner, int64_t t0, int64_t len, uint32_t *level)
{
    const int64_t words = inner->words;
    if (d->hamming != NULL) {
        d->hamming(outer->codes + o0 * words, words, rows, inner->panels + t0 * words, len, words, level, CODES_BLOCK,
                   1, 0);
        return;
    }
    uint16_t m[CODES_BLOCK];
    for (int64_t r = 0; r < rows; r++) {
        d->matches(outer->codes + (o0 + r) * words, inner->codes + t0 * words, len, words, words, d->b->cp_hi,
                   d->b->cp_lo, (uint32_t)d->b->cp.hashes, m);
        for (int64_t t = 0; t < len; t++)
            level[r * CODES_BLOCK + t] = m[t];
    }
}

/*
 * Lines o0 .. o0 + rows - 1 (rows <= CODES_ROWS) of C, each contiguous (a
 * row when C is row-major, a column otherwise): entry t < count of line r,
 * at c + r * ldc + t, from outer vector o0 + r against inner vector
 * t_begin + t (t_begin a multiple of HAMMING_PANEL). Each entry is
 * alpha * ((a-norm * b-norm) * cos) with the a-side norm first, so C does
 * not depend on which side is outer.
 */
static void estimate_lines(const code_distances *d, const code_set *outer, int64_t o0, int64_t rows, int outer_is_a,
                           const code_set *inner, int64_t t_begin, int64_t count, float alpha, float beta, float *c,
                           int64_t ldc)
{
    const float *cosine = d->b->cosine;
    uint32_t level[CODES_ROWS * CODES_BLOCK];
    for (int64_t t0 = 0; t0 < count; t0 += CODES_BLOCK) {
        const int64_t len = count - t0 < CODES_BLOCK ? count - t0 : CODES_BLOCK;
        const float *norms = inner->norms + t_begin + t0;
        block_levels(d, outer, o0, rows, inner, t_begin + t0, len, level);
        for (int64_t r = 0; r < rows; r++) {
            const float q_norm = outer->norms[o0 + r];
            const uint32_t *lv = level + r * CODES_BLOCK;
            float *line = c + r * ldc + t0;
            if (beta == 0.0f) { /* C is write-only */
                if (outer_is_a)
                    for (int64_t t = 0; t < len; t++)
                        line[t] = alpha * ((q_norm * norms[t]) * cosine[lv[t]]);
                else
                    for (int64_t t = 0; t < len; t++)
                        line[t] = alpha * ((norms[t] * q_norm) * cosine[lv[t]]);
            } else {
                if (outer_is_a)
                    for (int64_t t = 0; t < len; t++)
                        line[t] = alpha * ((q_norm * norms[t]) * cosine[lv[t]]) + beta * line[t];
                else
                    for (int64_t t = 0; t < len; t++)
                        line[t] = alpha * ((norms[t] * q_norm) * cosine[lv[t]]) + beta * line[t];
            }
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
    const int64_t blocks = (outer->count + CODES_ROWS - 1) / CODES_ROWS;
#pragma omp parallel for num_threads(ctx->threads) schedule(static)
    for (int64_t blk = 0; blk < blocks; blk++) {
        const int64_t o0 = blk * CODES_ROWS;
        const int64_t rows = outer->count - o0 < CODES_ROWS ? outer->count - o0 : CODES_ROWS;
        estimate_lines(&d, outer, o0, rows, rows_outer, inner, 0, inner->count, p->alpha, p->beta,
                       p->C + o0 * ld_outer, ld_outer);
    }
    return SMM_OK;
}

static void codes_estimate_block(const smm_context *ctx, const approx_b_side *b, const void *b_state,
                                 const void *a_state, int64_t i0, int64_t rows, int64_t j0, int64_t cols, float *out,
                                 int64_t ldo)
{
    (void)b;
    const codes_b_state *bs = b_state;
    const code_set *a = &((const codes_b_state *)a_state)->set;
    const code_distances d = distances_of(ctx, bs);
    const int64_t blocks = (rows + CODES_ROWS - 1) / CODES_ROWS;
#pragma omp parallel for num_threads(ctx->threads) schedule(static) if (ctx->threads > 1)
    for (int64_t blk = 0; blk < blocks; blk++) {
        const int64_t r0 = blk * CODES_ROWS;
        const int64_t lines = rows - r0 < CODES_ROWS ? rows - r0 : CODES_ROWS;
        estimate_lines(&d, a, i0 + r0, lines, 1, &bs->set, j0, cols, 1.0f, 0.0f, out + r0 * ldo, ldo);
    }
}

static const approx_method_ops codes_ops = {
    codes_sketch_b, codes_sketch_a, codes_estimate, codes_estimate_block, NULL, codes_free_state,
};

/* The code in 64-bit words (sketch_code_words: cross-polytope packs fields), and the norm. */
static int64_t codes_encoded_bytes(sketch_method id, int32_t bits, int64_t k)
{
    int64_t words;
    if (sketch_code_words(id, k, bits, &words) != SMM_OK)
        return -1;
    return words * 8 + (int64_t)sizeof(float);
}

/*
 * Top-k blocks: CODES_TOPK_ROWS rows against CODES_TOPK_COLS codes, small
 * enough to stay in L1 between the estimate and the selection that reads it;
 * each block of codes is read once for all the block's rows.
 */
#define CODES_TOPK_ROWS 8
#define CODES_TOPK_COLS 512
static topk_shape codes_topk_shape(int32_t bits, int64_t k)
{
    (void)bits, (void)k;
    const topk_shape shape = { CODES_TOPK_ROWS, CODES_TOPK_COLS };
    return shape;
}

/* The four entries differ only in their id: the encoder is sketch_encode_with's choice by id. */
const approx_method approx_method_simhash = {
    SKETCH_SIMHASH, 256, SKETCH_MAX_BITS, APPROX_SCALE_NONE, 0, codes_encoded_bytes, codes_topk_shape, NULL,
    &codes_ops, NULL,
};
const approx_method approx_method_simhash_orthogonal = {
    SKETCH_SIMHASH_ORTHOGONAL, 256, SKETCH_MAX_BITS, APPROX_SCALE_NONE, 0, codes_encoded_bytes, codes_topk_shape,
    NULL, &codes_ops, NULL,
};
const approx_method approx_method_simhash_structured = {
    SKETCH_SIMHASH_STRUCTURED, 256, SKETCH_MAX_BITS, APPROX_SCALE_NONE, 0, codes_encoded_bytes, codes_topk_shape,
    NULL, &codes_ops, NULL,
};
const approx_method approx_method_crosspolytope = {
    SKETCH_CROSSPOLYTOPE, 256, SKETCH_MAX_BITS, APPROX_SCALE_NONE, 0, codes_encoded_bytes, codes_topk_shape, NULL,
    &codes_ops, NULL,
};
