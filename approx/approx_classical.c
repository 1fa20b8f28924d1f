/*
 * approx_classical.c - the part the four classical randomised products share
 * (approx_classical.h): C ~ alpha * AS * SB + beta * C with AS = op(A) S and
 * SB = S^T op(B), behind the method interface of approx_problem.h.
 *
 * States (one struct for both sides, freed by classical_free_state)
 *   b state   linear sketches (Gaussian, SRHT, CountSketch): the method's S
 *             and SB = S^T op(B), s x n row-major, made once per plan;
 *             column-row sampling: the norms of op(B)'s rows only (k
 *             doubles), since its S depends on op(A) too.
 *   a state   AS = op(A) S, m x s row-major; for column-row sampling also
 *             its own SB, built from the plan's op(B) (b->cols stays valid
 *             for the plan's life) with the same sampled coordinates.
 *
 * The product: estimate writes alpha * AS * SB + beta * C straight into the
 * caller's C (so an allocation failure leaves C untouched, and beta == 0
 * never reads C), with the small-k kernel when s <= SMALLK_MAX_K and
 * exact_sgemm sums s in one run (exact_sgemm_sum_depth: its kc; the product
 * is bound by writing C; exact/smallk_gemm.h: exact_sgemm's arithmetic, bit
 * for bit when beta is 0 or 1), else one exact_sgemm_with call;
 * estimate_block computes a block of rows and columns of AS * SB with
 * exact_sgemm on one thread. exact_sgemm rounds every entry the same way
 * whatever C's layout, the block or the thread count (its small-product
 * path sums in blocks of kc like its packed path). If exact_sgemm cannot
 * allocate its workspace in estimate_block, which must not fail, the block
 * is computed by a plain double-accumulation loop.
 * select_block feeds top-k's selections from the same block without
 * storing it (fused_select.h: the scores summed in registers as exact_sgemm
 * sums them, bit for bit, for s up to exact_sgemm_sum_depth and
 * FUSED_SELECT_MAX_DIM; longer sketches are left to estimate_block).
 *
 * Overflow: the inputs are finite (checked before sketching), but a sketch
 * of values near FLT_MAX can overflow (a Gaussian or CountSketch sum, a
 * Walsh-Hadamard butterfly, a column-row sample scaled by 1 / sqrt(s p_t)).
 * Each factor is checked once it is made (O(s m) or O(s n) reads, against
 * the O(s m k) or more of making it): NaN or Inf in AS or SB fails the
 * sketch with SMM_ERR_NON_FINITE, as the sketch families fail when a norm
 * overflows, so C is never written from an overflowed sketch. (Finite
 * factors bound every estimate by |AS_i| |SB_j|; an estimate beyond
 * FLT_MAX still overflows to Inf in C, as in exact_sgemm.)
 */
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "approx/approx_classical.h"
#include "approx/approx_scale.h"
#include "approx/fused_select.h"
#include "exact/sgemm.h"
#include "exact/smallk_gemm.h"

/* ------------------------------------------------------------------------
 * Shared helpers
 * ------------------------------------------------------------------------ */

uint64_t classical_seed(const char *domain, uint64_t seed)
{
    return XXH3_64bits_withSeed(domain, strlen(domain), seed);
}

uint64_t classical_hash(uint64_t seed, uint64_t index)
{
    unsigned char key[8];
    for (int i = 0; i < 8; i++)
        key[i] = (unsigned char)(index >> (8 * i));
    return XXH3_64bits_withSeed(key, sizeof key, seed);
}

void *classical_alloc(int64_t rows, int64_t cols, size_t elem_size, smm_status *status)
{
    int64_t elems, bytes;
    if (smm_mul_size(rows, cols, &elems) != SMM_OK || smm_mul_size(elems, (int64_t)elem_size, &bytes) != SMM_OK ||
        (uint64_t)bytes > (uint64_t)PTRDIFF_MAX) {
        *status = SMM_ERR_OVERFLOW;
        return NULL;
    }
    void *p = smm_aligned_alloc(bytes > 0 ? (size_t)bytes : 1);
    if (p == NULL)
        *status = SMM_ERR_NO_MEMORY;
    return p;
}

void classical_view_matrix(int64_t rows, int64_t cols, int64_t rs, int64_t cs, smm_layout *layout, int64_t *ld)
{
    if (cs == 1 && (rs != 1 || rows == 1)) {
        *layout = SMM_ROW_MAJOR;
        *ld = rows == 1 && rs < cols ? cols : rs;
    } else {
        *layout = SMM_COL_MAJOR;
        *ld = cols == 1 && cs < rows ? rows : cs;
    }
}

smm_status classical_factor_finite(const smm_context *ctx, const float *p, int64_t rows, int64_t cols)
{
    const approx_vectors v = { SMM_ROW_MAJOR, rows, p, cols };
    return approx_check_finite(ctx, &v, cols);
}

/* ------------------------------------------------------------------------
 * States
 * ------------------------------------------------------------------------ */

void classical_free_state(void *state)
{
    classical_state *st = state;
    if (st == NULL)
        return;
    if (st->sketch_ops != NULL)
        st->sketch_ops->free(st->sketch);
    smm_aligned_free(st->coord_norms);
    smm_aligned_free(st->as);
    smm_aligned_free(st->sb);
    smm_aligned_free(st);
}

classical_state *classical_new_state(int64_t s, smm_status *status)
{
    classical_state *st = classical_alloc(1, 1, sizeof *st, status);
    if (st != NULL)
        *st = (classical_state){ .s = s };
    return st;
}

smm_status classical_finish_state(classical_state *st, smm_status status, void **state)
{
    if (status != SMM_OK) {
        classical_free_state(st);
        return status;
    }
    *state = st;
    return SMM_OK;
}

/* ------------------------------------------------------------------------
 * Linear sketches: S from (method, seed, k, s); SB once per plan
 * ------------------------------------------------------------------------ */

static smm_status linear_sketch_b(const smm_context *ctx, const approx_b_side *b, void **state)
{
    *state = NULL;
    smm_status status = SMM_OK;
    const int64_t n = b->cols.count;
    classical_state *st = classical_new_state(b->opts.size, &status);
    if (st == NULL)
        return status;
    st->sketch_ops = b->method->impl; /* the method's S (its registry entry) */
    const classical_data data = { &b->cols, b->opts.energy };
    status = st->sketch_ops->create(ctx, &data, b->k, &st->s, b->opts.seed, &st->sketch);
    if (status == SMM_OK)
        st->sb = classical_alloc(st->s, n, sizeof(float), &status);
    if (status == SMM_OK) {
        const classical_view sb = { st->sb, 1, n }; /* S^T b_j is column j of SB */
        status = st->sketch_ops->sketch_data != NULL ? st->sketch_ops->sketch_data(ctx, st->sketch, &b->cols, sb)
                                                     : st->sketch_ops->apply(ctx, st->sketch, &b->cols, sb);
    }
    if (status == SMM_OK)
        status = classical_factor_finite(ctx, st->sb, st->s, n);
    return classical_finish_state(st, status, state);
}

static smm_status linear_sketch_a(const smm_context *ctx, const approx_b_side *b, const void *b_state,
                                  const approx_vectors *rows_a, void **a_state)
{
    (void)b;
    *a_state = NULL;
    const classical_state *bs = b_state;
    smm_status status = SMM_OK;
    classical_state *st = classical_new_state(bs->s, &status);
    if (st == NULL)
        return status;
    st->as = classical_alloc(rows_a->count, st->s, sizeof(float), &status);
    if (status == SMM_OK) {
        const classical_view as = { st->as, st->s, 1 }; /* S^T a_i is row i of AS */
        status = bs->sketch_ops->apply(ctx, bs->sketch, rows_a, as);
    }
    if (status == SMM_OK)
        status = classical_factor_finite(ctx, st->as, rows_a->count, st->s);
    return classical_finish_state(st, status, a_state);
}

/* ------------------------------------------------------------------------
 * The product AS * SB
 * ------------------------------------------------------------------------ */

/* SB of a product: the a state's (column-row sampling) or the plan's. */
static const float *factor_sb(const void *b_state, const void *a_state)
{
    const classical_state *as = a_state, *bs = b_state;
    return as->sb != NULL ? as->sb : bs->sb;
}

smm_status classical_estimate(const smm_context *ctx, const approx_b_side *b, const void *b_state,
                                     const void *a_state, const approx_problem *p)
{
    (void)b;
    const classical_state *as = a_state;
    const float *sb = factor_sb(b_state, a_state);
    /* bound by writing C: the small-k kernel (streaming stores for a large C), exact_sgemm's bits */
    if (as->s <= SMALLK_MAX_K && as->s <= exact_sgemm_sum_depth(ctx->isa))
        return smallk_gemm(ctx, p->m, p->n, as->s, p->alpha, as->as, as->s, 1, sb, p->n, 1, p->beta, p->C, p->rs_c,
                           p->cs_c);
    smm_layout layout;
    int64_t ldc;
    classical_view_matrix(p->m, p->n, p->rs_c, p->cs_c, &layout, &ldc);
    /* AS (m x s) and SB (s x n) are row-major: as stored column-major they are transposed */
    const smm_trans trans = layout == SMM_ROW_MAJOR ? SMM_NO_TRANS : SMM_TRANS;
    return exact_sgemm_with(ctx, layout, trans, trans, p->m, p->n, as->s, p->alpha, as->as, as->s, sb, p->n,
                            p->beta, p->C, ldc);
}

void classical_estimate_block(const smm_context *ctx, const approx_b_side *b, const void *b_state,
                              const void *a_state, int64_t i0, int64_t rows, int64_t j0, int64_t cols, float *out,
                              int64_t ldo)
{
    const classical_state *as = a_state;
    const int64_t n = b->cols.count, s = as->s;
    const float *as_rows = as->as + i0 * s;                  /* rows i0 .. of AS */
    const float *sb_cols = factor_sb(b_state, a_state) + j0; /* columns j0 .. of SB */
    if (exact_sgemm_with(ctx, SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, rows, cols, s, 1.0f, as_rows, s, sb_cols,
                         n, 0.0f, out, ldo) == SMM_OK)
        return;
    /* exact_sgemm could not allocate its workspace: the same sums without one */
    for (int64_t r = 0; r < rows; r++)
        for (int64_t j = 0; j < cols; j++) {
            double acc = 0.0;
            for (int64_t c = 0; c < s; c++)
                acc += (double)as_rows[r * s + c] * (double)sb_cols[c * n + j];
            out[r * ldo + j] = (float)acc;
        }
}

int classical_select_block(const smm_context *ctx, const approx_b_side *b, const void *b_state, const void *a_state,
                           int64_t i0, int64_t rows, int64_t j0, int64_t cols, top_select *sel)
{
    const classical_state *as = a_state;
    const int64_t n = b->cols.count, s = as->s;
    /* exact_sgemm splits a sum longer than its depth: such blocks stay with estimate_block */
    if (s > FUSED_SELECT_MAX_DIM || s > exact_sgemm_sum_depth(ctx->isa))
        return 0;
    fused_select_block(ctx->isa, rows, cols, s, as->as + i0 * s, s, factor_sb(b_state, a_state) + j0, n, j0, sel);
    return 1;
}

/* ------------------------------------------------------------------------
 * The linear sketches' operations and facts
 * ------------------------------------------------------------------------ */

const approx_method_ops classical_linear_ops = {
    linear_sketch_b,        linear_sketch_a, classical_estimate, classical_estimate_block,
    classical_select_block, classical_free_state,
};

int64_t classical_encoded_bytes(sketch_method id, int32_t s, int64_t k)
{
    (void)id, (void)k;
    return 4 * (int64_t)s;
}
