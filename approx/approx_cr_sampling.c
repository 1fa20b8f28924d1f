/*
 * approx_cr_sampling.c - SKETCH_CR_SAMPLING, column-row sampling (Drineas,
 * Kannan, Mahoney 2006): op(A) op(B) = sum over t of a_:t b_t: (column t of
 * op(A) times row t of op(B)) is estimated from s terms drawn with
 * replacement,
 *
 *     C ~ sum over c < s of a_:t_c b_t_c: / (s p_t_c),
 *     p_t = q_t / Q,   q_t = |a_:t| |b_t:|,   Q = sum over t of q_t,
 *
 * which is unbiased and has the smallest E||C - C-hat||_F^2 of any sampling
 * distribution (approx.h).
 *
 * Norms: |a_:t| and |b_t:| are sqrt of sums of squares in double, each in
 * increasing vector index (cr_coordinate_norms). q_t and the running sums
 * cdf_t = q_0 + .. + q_t are doubles in increasing t.
 *
 * Draws: draw c takes u_c = ((w >> 11) + 1/2) 2^-53 Q in (0, Q], with
 * w = classical_hash(classical_seed("cr_sampling", seed), c), and picks the
 * first t with cdf_t > u_c (inverse CDF by binary search; the last t with
 * q_t > 0 if rounding leaves none). A coordinate with q_t == 0 adds nothing
 * to the running sum, so it is never drawn and 1/p_t is never formed. When
 * Q == 0 (e.g. op(A) or op(B) all zero) the product is exactly 0 and both
 * factors are zero.
 *
 * Factors: the 1/(s p_t) of each term is split evenly by norm,
 *     AS[i][c] = a_i[t_c] sqrt(Q/s) / |a_:t_c|,
 *     SB[c][j] = b_j[t_c] sqrt(Q/s) / |b_t_c:|,
 * whose product is a_it b_tj Q / (s q_t) as above; every sampled column of
 * AS and row of SB then has norm sqrt(Q/s), so neither factor can overflow
 * when the terms are very unequal in size. Each entry is the product in
 * double rounded once to float. Everything here is the same on every ISA
 * path and thread count; only the final exact_sgemm rounds per ISA.
 *
 * The method: the plan keeps the norms of op(B)'s rows (and op(B) itself,
 * which each product samples: its entry's reads_b), each product draws S
 * and builds both factors, multiplied by the shared classical product.
 */
#include <math.h>

#include "approx/approx_classical.h"

/* Least work (elements touched) worth a parallel region. */
#define CR_PARALLEL_MIN_WORK (INT64_C(1) << 14)
/* Coordinates per block when the norms are summed over contiguous rows. */
#define CR_NORM_BLOCK 512

void cr_coordinate_norms(const smm_context *ctx, const approx_vectors *v, int64_t k, double *norms)
{
    const int64_t count = v->count;
    const int parallel = (double)count * (double)k >= (double)CR_PARALLEL_MIN_WORK;
    if (v->layout == SMM_COL_MAJOR) {
        /* coordinate t of every vector is the contiguous line data + t * ld */
#pragma omp parallel for num_threads(ctx->threads) schedule(static) if (parallel)
        for (int64_t t = 0; t < k; t++) {
            const float *line = v->data + t * v->ld;
            double ss = 0.0;
            for (int64_t i = 0; i < count; i++)
                ss += (double)line[i] * (double)line[i];
            norms[t] = sqrt(ss);
        }
        return;
    }
    /* vector i is the contiguous row data + i * ld: blocks of coordinates, rows in increasing i */
    const int64_t blocks = (k + CR_NORM_BLOCK - 1) / CR_NORM_BLOCK;
#pragma omp parallel for num_threads(ctx->threads) schedule(static) if (parallel)
    for (int64_t blk = 0; blk < blocks; blk++) {
        const int64_t t0 = blk * CR_NORM_BLOCK, t1 = t0 + CR_NORM_BLOCK < k ? t0 + CR_NORM_BLOCK : k;
        for (int64_t t = t0; t < t1; t++)
            norms[t] = 0.0;
        for (int64_t i = 0; i < count; i++) {
            const float *row = v->data + i * v->ld;
            for (int64_t t = t0; t < t1; t++)
                norms[t] += (double)row[t] * (double)row[t];
        }
        for (int64_t t = t0; t < t1; t++)
            norms[t] = sqrt(norms[t]);
    }
}

/* The first t < k with cdf[t] > u, or `fallback` when there is none. */
static int64_t cr_inverse_cdf(const double *cdf, int64_t k, double u, int64_t fallback)
{
    int64_t lo = 0, hi = k;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (cdf[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo < k ? lo : fallback;
}

smm_status cr_sample_factors(const smm_context *ctx, const approx_vectors *rows_a, const double *a_norms,
                             const approx_vectors *cols_b, const double *b_norms, int64_t k, int64_t s,
                             uint64_t seed, float *as, float *sb)
{
    const int64_t m = rows_a->count, n = cols_b->count;
    smm_status status = SMM_OK;
    double *cdf = classical_alloc(k, 1, sizeof(double), &status);
    int64_t *coords = classical_alloc(s, 1, sizeof(int64_t), &status);
    double *scale_a = classical_alloc(s, 1, sizeof(double), &status);
    double *scale_b = classical_alloc(s, 1, sizeof(double), &status);
    if (status != SMM_OK) {
        smm_aligned_free(cdf);
        smm_aligned_free(coords);
        smm_aligned_free(scale_a);
        smm_aligned_free(scale_b);
        return status;
    }

    double total = 0.0;
    int64_t last = -1; /* the last coordinate with q_t > 0 */
    for (int64_t t = 0; t < k; t++) {
        const double q = a_norms[t] * b_norms[t];
        total += q;
        cdf[t] = total;
        if (q > 0.0)
            last = t;
    }

    if (last < 0) { /* every term is zero: so is the product */
        for (int64_t c = 0; c < s; c++) {
            coords[c] = 0;
            scale_a[c] = scale_b[c] = 0.0;
        }
    } else {
        const uint64_t domain = classical_seed("cr_sampling", seed);
        const double norm = sqrt(total / (double)s); /* of each sampled column of AS and row of SB */
#pragma omp parallel for num_threads(ctx->threads) schedule(static) if (s >= CR_PARALLEL_MIN_WORK)
        for (int64_t c = 0; c < s; c++) {
            const uint64_t w = classical_hash(domain, (uint64_t)c);
            const double u = ((double)(w >> 11) + 0.5) * 0x1p-53 * total;
            const int64_t t = cr_inverse_cdf(cdf, k, u, last);
            coords[c] = t;
            scale_a[c] = norm / a_norms[t];
            scale_b[c] = norm / b_norms[t];
        }
    }

#pragma omp parallel for num_threads(ctx->threads) schedule(static) if ((double)m * (double)s >= CR_PARALLEL_MIN_WORK)
    for (int64_t i = 0; i < m; i++)
        for (int64_t c = 0; c < s; c++)
            as[i * s + c] = (float)((double)approx_vectors_at(rows_a, i, coords[c]) * scale_a[c]);
#pragma omp parallel for num_threads(ctx->threads) schedule(static) if ((double)n * (double)s >= CR_PARALLEL_MIN_WORK)
    for (int64_t c = 0; c < s; c++)
        for (int64_t j = 0; j < n; j++)
            sb[c * n + j] = (float)((double)approx_vectors_at(cols_b, j, coords[c]) * scale_b[c]);

    smm_aligned_free(cdf);
    smm_aligned_free(coords);
    smm_aligned_free(scale_a);
    smm_aligned_free(scale_b);
    return SMM_OK;
}

/* ------------------------------------------------------------------------
 * Column-row sampling: op(B)'s row norms per plan, S drawn per product
 * ------------------------------------------------------------------------ */

static smm_status cr_sketch_b(const smm_context *ctx, const approx_b_side *b, void **state)
{
    *state = NULL;
    smm_status status = SMM_OK;
    classical_state *st = classical_new_state(b->opts.size, &status);
    if (st == NULL)
        return status;
    st->coord_norms = classical_alloc(b->k, 1, sizeof(double), &status);
    if (status == SMM_OK)
        cr_coordinate_norms(ctx, &b->cols, b->k, st->coord_norms);
    return classical_finish_state(st, status, state);
}

static smm_status cr_sketch_a(const smm_context *ctx, const approx_b_side *b, const void *b_state,
                              const approx_vectors *rows_a, void **a_state)
{
    *a_state = NULL;
    const classical_state *bs = b_state;
    smm_status status = SMM_OK;
    classical_state *st = classical_new_state(bs->s, &status);
    if (st == NULL)
        return status;
    double *a_norms = classical_alloc(b->k, 1, sizeof(double), &status);
    st->as = classical_alloc(rows_a->count, st->s, sizeof(float), &status);
    st->sb = classical_alloc(st->s, b->cols.count, sizeof(float), &status);
    if (status == SMM_OK) {
        cr_coordinate_norms(ctx, rows_a, b->k, a_norms);
        status = cr_sample_factors(ctx, rows_a, a_norms, &b->cols, bs->coord_norms, b->k, st->s, b->opts.seed,
                                   st->as, st->sb);
    }
    if (status == SMM_OK)
        status = classical_factor_finite(ctx, st->as, rows_a->count, st->s);
    if (status == SMM_OK)
        status = classical_factor_finite(ctx, st->sb, st->s, b->cols.count);
    smm_aligned_free(a_norms);
    return classical_finish_state(st, status, a_state);
}

static const approx_method_ops cr_ops = {
    cr_sketch_b, cr_sketch_a, classical_estimate, classical_estimate_block, classical_select_block, classical_free_state,
};

const approx_method approx_method_cr_sampling = {
    SKETCH_CR_SAMPLING, 64, APPROX_MAX_SKETCH_DIM, APPROX_SCALE_EACH, 1, classical_encoded_bytes, topk_shape_of_size,
    NULL, &cr_ops, NULL,
};
