/*
 * approx_problem.h - library-internal description of approximate products
 * and the interface every method behind approx_sgemm implements.
 *
 * A method works in three steps, which is what makes plans possible:
 *   sketch_b   once per plan: whatever it keeps of op(B)'s n vectors;
 *   sketch_a   once per product: whatever it needs of op(A)'s m vectors
 *              (it may read the plan's state, e.g. for column-row sampling);
 *   estimate   C := alpha * est + beta * C for the whole product, or
 *   estimate_block  the estimates (alpha 1, beta 0) of a block of rows and
 *              columns of op(A) op(B) into a buffer (top-k never stores
 *              the whole estimate).
 * What a method is besides these steps (its size, its scale rule, its
 * top-k blocks, its limits) is in its registry entry (approx_method.h).
 */
#ifndef APPROX_PROBLEM_H
#define APPROX_PROBLEM_H

#include <stddef.h>

#include "approx/approx_select.h"
#include "approx/approx_vectors.h"
#include "sketchmm/approx.h"

struct approx_method;

/* The plan's side: op(B)'s n vectors (the caller's during a one-shot call or when borrowed, else the plan's copy). */
typedef struct {
    approx_vectors cols;                /* the n columns of op(B), cols.count == n */
    int64_t k;                          /* their dimension, >= 1 */
    approx_options opts;                /* validated, size resolved; num_threads resolved into the context */
    const struct approx_method *method; /* the registry entry of opts.method */
} approx_b_side;

/* One product against a plan. */
typedef struct {
    int64_t m, n, k;
    float alpha, beta;
    approx_vectors rows_a; /* the m rows of op(A) */
    float *C;              /* entry (i, j) at C[i * rs_c + j * cs_c]; one stride is 1 */
    int64_t rs_c, cs_c;
} approx_problem;

/* Column blocks of estimate_block start at multiples of this (the Hamming panel width). */
#define APPROX_COLUMN_ALIGN 32

typedef struct {
    /* Sketch op(B): *state gets what the method keeps (freed by free_state). ctx->threads threads. */
    smm_status (*sketch_b)(const smm_context *ctx, const approx_b_side *b, void **state);
    /* Sketch the m rows of op(A) for a product against (b, b_state). ctx->threads threads. */
    smm_status (*sketch_a)(const smm_context *ctx, const approx_b_side *b, const void *b_state,
                           const approx_vectors *rows_a, void **a_state);
    /*
     * C := alpha * est + beta * C (p->m x p->n, p->alpha != 0; beta == 0
     * means C is write-only). ctx->threads threads. Statuses only for
     * allocation failures; C untouched then.
     */
    smm_status (*estimate)(const smm_context *ctx, const approx_b_side *b, const void *b_state,
                           const void *a_state, const approx_problem *p);
    /*
     * out[r * ldo + c] = est(a_{i0 + r}, b_{j0 + c}) (alpha 1, beta 0) for
     * r < rows, c < cols, j0 a multiple of APPROX_COLUMN_ALIGN, rows and
     * cols within the method's top-k block (approx_method.topk_shape): the
     * values estimate writes (up to the rounding noted by a method), with
     * ctx->threads threads (top-k calls it with one from inside its own
     * parallel loop). Safe to call from several threads at once. Never fails.
     */
    void (*estimate_block)(const smm_context *ctx, const approx_b_side *b, const void *b_state,
                           const void *a_state, int64_t i0, int64_t rows, int64_t j0, int64_t cols, float *out,
                           int64_t ldo);
    /*
     * Optional (NULL: none). Feed sel[r] (r < rows; full selections,
     * approx_select.h) with est(a_{i0 + r}, b_{j0 + c}) for c < cols, the
     * values estimate_block gives for that block, bit for bit, without
     * storing them; block limits, threads and safety as estimate_block.
     * Returns 1 when done, 0 with sel untouched when it cannot give exactly
     * those values for this product (top-k then calls estimate_block).
     */
    int (*select_block)(const smm_context *ctx, const approx_b_side *b, const void *b_state, const void *a_state,
                        int64_t i0, int64_t rows, int64_t j0, int64_t cols, top_select *sel);
    /* Free a state of sketch_b or sketch_a (NULL is a no-op). */
    void (*free_state)(void *state);
} approx_method_ops;

#endif /* APPROX_PROBLEM_H */
