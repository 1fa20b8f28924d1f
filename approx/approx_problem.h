/*
 * approx_problem.h - library-internal description of approximate products
 * and the interface every method behind approx_sgemm implements.
 *
 * The public calls turn their CBLAS-style arguments into vector sets once:
 * the m rows of op(A) and the n columns of op(B), each given as a matrix whose
 * rows are the vectors (with a layout and leading dimension), and C as an
 * m x n view with explicit strides. A method only ever sees vector sets, so
 * one implementation serves every layout and transpose.
 *
 * A method works in three steps, which is what makes plans possible:
 *   sketch_b   once per plan: whatever it keeps of op(B)'s n vectors;
 *   sketch_a   once per product: whatever it needs of op(A)'s m vectors
 *              (it may read the plan's state, e.g. for column-row sampling);
 *   estimate   C := alpha * est + beta * C for the whole product, or
 *   estimate_block  the estimates (alpha 1, beta 0) of a block of rows and
 *              columns of op(A) op(B) into a buffer (top-k never stores
 *              the whole estimate).
 */
#ifndef APPROX_PROBLEM_H
#define APPROX_PROBLEM_H

#include <stddef.h>

#include "common/smm_runtime.h"
#include "sketchmm/approx.h"

typedef struct {
    smm_layout layout; /* storage of the count x dim matrix whose rows are the vectors */
    int64_t count;     /* number of vectors */
    const float *data;
    int64_t ld;
} approx_vectors;

/* Element t of vector i of v. */
static inline float approx_vectors_at(const approx_vectors *v, int64_t i, int64_t t)
{
    return v->layout == SMM_ROW_MAJOR ? v->data[i * v->ld + t] : v->data[t * v->ld + i];
}

/* The plan's side: op(B)'s n vectors (the caller's during a one-shot call, else the plan's copy). */
typedef struct {
    approx_vectors cols; /* the n columns of op(B), cols.count == n */
    int64_t k;           /* their dimension, >= 1 */
    approx_options opts; /* validated; num_threads resolved into the context instead */
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

/* How a method's data is brought into the safe range (approx_scale.h). */
typedef enum {
    APPROX_SCALE_EACH = 0, /* op(A) and op(B) each by their own power of two (the estimate is bilinear) */
    APPROX_SCALE_SHARED,   /* op(A) by op(B)'s power of two: it is encoded by what was learned on op(B) */
    APPROX_SCALE_NONE      /* neither: the method is scale-free itself and checks its data as it goes */
} approx_scale_rule;

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
     * Bytes of workspace estimate_block needs for blocks of up to rows x cols
     * entries (0: none).
     */
    size_t (*block_work_bytes)(const approx_b_side *b, const void *b_state, int64_t rows, int64_t cols);
    /*
     * out[r * ldo + c] = est(a_{i0 + r}, b_{j0 + c}) (alpha 1, beta 0) for
     * r < rows, c < cols, j0 a multiple of APPROX_COLUMN_ALIGN: the values estimate writes (up to the rounding
     * noted by a method), with ctx->threads threads (top-k calls it with
     * one from inside its own parallel loop, or with all on large blocks),
     * and `work` of block_work_bytes(b, b_state, rows, cols). Never fails.
     */
    void (*estimate_block)(const smm_context *ctx, const approx_b_side *b, const void *b_state,
                           const void *a_state, int64_t i0, int64_t rows, int64_t j0, int64_t cols, float *out,
                           int64_t ldo, void *work);
    /* Free a state of sketch_b or sketch_a (NULL is a no-op). */
    void (*free_state)(void *state);
    approx_scale_rule scale;
    /*
     * The method's own limits on validated options against a k x n op(B)
     * (k, n >= 1), checked before any data is read: SMM_OK, or the status
     * with a sentence naming the limit in msg (msg may be NULL). NULL: none.
     */
    smm_status (*check_sizes)(const approx_options *opts, int64_t k, int64_t n, char *msg, size_t msg_size);
} approx_method_ops;

/* Helpers for methods (approx_plan.c). */

/* smm_aligned_alloc of count * size bytes; NULL with *status set to SMM_ERR_OVERFLOW or SMM_ERR_NO_MEMORY
 * on failure (*status untouched on success, so several calls can share one status). */
void *approx_alloc(int64_t count, int64_t size, smm_status *status);

/* A method's state struct of `size` bytes, aligned and zeroed (its pointers NULL), or NULL when memory ran out. */
void *approx_new_state(size_t size);

/*
 * The vectors of v (dimension dim) as a row-major matrix (*X, leading
 * dimension *ld): v's own storage when it is row-major (*copy NULL), else a
 * transposed copy in *copy (smm_aligned_free it). SMM_OK, SMM_ERR_OVERFLOW
 * or SMM_ERR_NO_MEMORY.
 */
smm_status approx_row_major(const approx_vectors *v, int64_t dim, const float **X, int64_t *ld, float **copy);

/* The methods (approx_codes.c: the four sketch families; approx_pq.c: product quantization;
 * approx_maddness.c: MADDNESS hash trees; approx_classical.c: the linear sketches and column-row sampling). */
const approx_method_ops *approx_codes_ops(sketch_method method);
const approx_method_ops *approx_pq_ops(sketch_method method);
const approx_method_ops *approx_maddness_ops(sketch_method method);
const approx_method_ops *approx_classical_ops(sketch_method method);

/* The ops of any method, or NULL for an unknown one. */
const approx_method_ops *approx_ops(sketch_method method);

#endif /* APPROX_PROBLEM_H */
