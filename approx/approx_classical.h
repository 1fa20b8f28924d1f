/*
 * approx_classical.h - library-internal parts of the classical randomised
 * products (SKETCH_GAUSSIAN_PROJECTION, SKETCH_SRHT, SKETCH_COUNTSKETCH,
 * SKETCH_CR_SAMPLING; sketchmm/approx.h documents their math).
 *
 * All four estimate op(A) op(B) as the product of two sketched factors,
 *   C ~ AS * SB,   AS = op(A) S (m x s),   SB = S^T op(B) (s x n),
 * for a random k x s matrix S. approx_classical.c owns that shared part (the
 * states, the allocation of the factors and the one exact_sgemm product);
 * each method's file says only how its S is drawn and applied:
 *   approx_gaussian.c, approx_srht.c, approx_countsketch.c: a linear sketch
 *     S drawn once per plan from the seed alone (classical_sketch_ops);
 *   approx_cr_sampling.c: S depends on both operands (its sampling
 *     distribution uses the norms of op(A)'s columns and op(B)'s rows), so
 *     it is drawn per product and builds both factors at once.
 *
 * Randomness: every random choice is a pure function of a derived seed
 * classical_seed(domain, seed) and an index, hashed with XXH3; each method
 * (and each use inside a method) has its own domain string, so methods
 * sharing a user seed are independent of one another.
 */
#ifndef APPROX_CLASSICAL_H
#define APPROX_CLASSICAL_H

#include <stddef.h>
#include <stdint.h>

#include "approx/approx_problem.h"

/* ---- shared helpers (approx_classical.c) ---- */

/* The seed of one domain of randomness: XXH3-64 of the domain's name with seed as the XXH3 seed. */
uint64_t classical_seed(const char *domain, uint64_t seed);

/* XXH3-64 of the 8 little-endian bytes of index, with seed as the XXH3 seed. */
uint64_t classical_hash(uint64_t seed, uint64_t index);

/*
 * 64-byte aligned, uninitialised storage for rows * cols elements of
 * elem_size bytes. On failure returns NULL and sets *status to
 * SMM_ERR_OVERFLOW (the size does not fit) or SMM_ERR_NO_MEMORY; on success
 * leaves *status as it is, so that several allocations can share one status.
 */
void *classical_alloc(int64_t rows, int64_t cols, size_t elem_size, smm_status *status);

/* Where a method writes the sketches of a vector set: element (i, c) at p[i * rs + c * cs]. */
typedef struct {
    float *p;
    int64_t rs, cs;
} classical_view;

/*
 * A rows x cols view with element (i, j) at p[i * rs + j * cs], one of the
 * strides 1, as the (layout, leading dimension) exact_sgemm takes: row-major
 * with ld rs when rows are contiguous, else column-major with ld cs (a single
 * row or column gets the smallest valid ld for its unused stride).
 */
void classical_view_matrix(int64_t rows, int64_t cols, int64_t rs, int64_t cs, smm_layout *layout, int64_t *ld);

/* ---- linear sketches: S fixed by (method, seed, k, s), or made from the data ---- */

/* What a data-aware sketch is made from (the oblivious ones get NULL or ignore it). */
typedef struct {
    const approx_vectors *cols; /* op(B)'s n columns, dimension k */
    double energy;              /* approx_options.energy: 0, or the fraction of ||op(B)||_F^2 to capture */
} classical_data;

typedef struct {
    /*
     * Draw S (dimension k >= 1, sketch dimension *s >= 1) of `seed` (the
     * user's seed; the method derives its own domains) into *sketch, with
     * ctx->threads threads. `data` holds the vectors the sketch is made for
     * (op(B)'s n columns, dimension k) and the energy option: the oblivious
     * sketches ignore it (it may be NULL for them), a data-aware one (the
     * low-rank basis) is computed from it and may lower *s (to at most k). SMM_OK, SMM_ERR_OVERFLOW or SMM_ERR_NO_MEMORY
     * (*sketch NULL then).
     */
    smm_status (*create)(const smm_context *ctx, const classical_data *data, int64_t k, int64_t *s, uint64_t seed,
                         void **sketch);
    /*
     * out(i, c) := (S^T v_i)_c for every vector v_i of v (dimension k, the
     * sketch's), c < s, with ctx->threads threads. The values do not depend
     * on the thread count (nor, except for exact_sgemm's rounding in the
     * Gaussian projection, on ctx->isa). SMM_OK, or SMM_ERR_NO_MEMORY with
     * out untouched.
     */
    smm_status (*apply)(const smm_context *ctx, const void *sketch, const approx_vectors *v, classical_view out);
    /* Free a sketch of create (NULL is a no-op). */
    void (*free)(void *sketch);
} classical_sketch_ops;

/*
 * out(i, c) := (S^T v_i)_c for a stored k x s sketch matrix S (row-major):
 * one exact_sgemm of the vectors of v (dimension k) with S, in out's layout.
 * The apply of every sketch kept as a matrix (approx_gaussian.c).
 */
smm_status classical_matrix_apply(const smm_context *ctx, const float *S, int64_t k, int64_t s,
                                  const approx_vectors *v, classical_view out);

/* S = G / sqrt(s), G i.i.d. N(0, 1) (approx_gaussian.c). */
extern const classical_sketch_ops classical_gaussian_sketch;
/* S = D H P / sqrt(s): random signs, Walsh-Hadamard, s sampled coordinates (approx_srht.c). */
extern const classical_sketch_ops classical_srht_sketch;
/* S[t][h(t)] = sigma(t), zero elsewhere (approx_countsketch.c). */
extern const classical_sketch_ops classical_countsketch_sketch;
/* S = V, an orthonormal basis of op(B)'s dominant column space from a randomized range finder (approx_lowrank.c). */
extern const classical_sketch_ops classical_lowrank_sketch;

/* ---- column-row sampling (approx_cr_sampling.c) ---- */

/*
 * norms[t] := sqrt(sum over i of v_i[t]^2) for t < k: the norm of
 * coordinate t across the vectors of v (a column of op(A) when v holds
 * op(A)'s rows, a row of op(B) when it holds op(B)'s columns). Each sum is
 * taken in double in increasing i, so the result does not depend on
 * ctx->threads or the layout.
 */
void cr_coordinate_norms(const smm_context *ctx, const approx_vectors *v, int64_t k, double *norms);

/*
 * Draw the s sampled coordinates and build both factors: as (m x s,
 * row-major, ld s) from the rows of op(A) and sb (s x n, row-major, ld n)
 * from the columns of op(B), given the coordinate norms of both sides
 * (a_norms, b_norms: k each). All zero when no coordinate has a nonzero
 * weight. `seed` is the user's seed. SMM_OK, or SMM_ERR_OVERFLOW /
 * SMM_ERR_NO_MEMORY (workspace) with as and sb untouched.
 */
smm_status cr_sample_factors(const smm_context *ctx, const approx_vectors *rows_a, const double *a_norms,
                             const approx_vectors *cols_b, const double *b_norms, int64_t k, int64_t s,
                             uint64_t seed, float *as, float *sb);

#endif /* APPROX_CLASSICAL_H */
