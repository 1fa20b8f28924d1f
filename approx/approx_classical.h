/*
 * approx_classical.h - library-internal parts of the classical randomised
 * products (SKETCH_GAUSSIAN_PROJECTION, SKETCH_SRHT, SKETCH_COUNTSKETCH,
 * SKETCH_CR_SAMPLING; sketchmm/approx.h documents their math).
 *
 * All four estimate op(A) op(B) as the product of two sketched factors,
 *   C ~ AS * SB,   AS = op(A) S (m x s),   SB = S^T op(B) (s x n),
 * for a random k x s matrix S. approx_classical.c owns that shared part (the
 * states, the allocation of the factors, the one exact_sgemm product, and the
 * operations of the linear sketches); each method's file says only how its
 * S is drawn and applied, and holds its registry entry (approx_method.h):
 *   approx_gaussian.c, approx_srht.c, approx_countsketch.c, approx_lowrank.c:
 *     a linear sketch S drawn once per plan (classical_sketch_ops, the
 *     entry's impl; lowrank's from op(B) itself), run by classical_linear_ops;
 *   approx_cr_sampling.c: S depends on both operands (its sampling
 *     distribution uses the norms of op(A)'s columns and op(B)'s rows), so
 *     it is drawn per product and builds both factors at once: its own
 *     sketch_b and sketch_a on the shared states and product.
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

#include "approx/approx_method.h"

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

/* ---- the states and the product AS * SB (approx_classical.c) ---- */

/* One struct for both sides (see approx_classical.c). */
typedef struct {
    int64_t s;                                    /* sketch dimension */
    const struct classical_sketch_ops *sketch_ops; /* b state of a linear sketch: its S */
    void *sketch;
    double *coord_norms; /* b state of column-row sampling: norms of op(B)'s rows */
    float *as;           /* a state: AS, m x s row-major */
    float *sb;           /* SB, s x n row-major: b state of a linear sketch, a state of column-row sampling */
} classical_state;

/* A zeroed state of sketch dimension s, or NULL with *status set. */
classical_state *classical_new_state(int64_t s, smm_status *status);
/* Hand a finished state out (*state), or free it when status is not SMM_OK; returns status. */
smm_status classical_finish_state(classical_state *st, smm_status status, void **state);
/* approx_method_ops.free_state of every classical method. */
void classical_free_state(void *state);
/*
 * SMM_ERR_NON_FINITE when one of the rows x cols floats of the row-major
 * factor p (leading dimension cols) is NaN or Inf, i.e. its sketch
 * overflowed; SMM_OK otherwise.
 */
smm_status classical_factor_finite(const smm_context *ctx, const float *p, int64_t rows, int64_t cols);
/* approx_method_ops.estimate and .estimate_block: AS * SB (SB the a state's when it has one, else the plan's). */
smm_status classical_estimate(const smm_context *ctx, const approx_b_side *b, const void *b_state,
                              const void *a_state, const approx_problem *p);
void classical_estimate_block(const smm_context *ctx, const approx_b_side *b, const void *b_state,
                              const void *a_state, int64_t i0, int64_t rows, int64_t j0, int64_t cols, float *out,
                              int64_t ldo);
/* approx_method_ops.select_block: the top-k candidate pass of AS * SB with the scores in registers (s <=
 * FUSED_SELECT_MAX_DIM and exact_sgemm_sum_depth; 0 for longer sketches). */
int classical_select_block(const smm_context *ctx, const approx_b_side *b, const void *b_state, const void *a_state,
                           int64_t i0, int64_t rows, int64_t j0, int64_t cols, top_select *sel);
/* approx_method.encoded_bytes of the sketched-factor methods: s floats. */
int64_t classical_encoded_bytes(sketch_method id, int32_t s, int64_t k);

/* ---- linear sketches: S fixed by (method, seed, k, s), or made from the data ---- */

/* What a data-aware sketch is made from (the oblivious ones get NULL or ignore it). */
typedef struct {
    const approx_vectors *cols; /* op(B)'s n columns, dimension k */
    double energy;              /* approx_options.energy: 0, or the fraction of ||op(B)||_F^2 to capture */
} classical_data;

typedef struct classical_sketch_ops {
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
    /*
     * The plan's sketch of the vectors v create was made from (data->cols):
     * out as apply writes it, from what create kept of them (the low-rank
     * basis: its last pass's products), which it then releases; apply when
     * it kept nothing. NULL for the sketches that keep nothing (apply
     * serves). SMM_OK, or SMM_ERR_NO_MEMORY with out untouched.
     */
    smm_status (*sketch_data)(const smm_context *ctx, void *sketch, const approx_vectors *v, classical_view out);
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

/* The operations of every linear sketch (its S from the registry entry's impl): SB per plan, AS per product. */
extern const approx_method_ops classical_linear_ops;

/* S = G / sqrt(s), G i.i.d. N(0, 1) (approx_gaussian.c; lowrank's range finder draws its test matrix with it). */
extern const classical_sketch_ops classical_gaussian_sketch;

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
