/*
 * approx_problem.h - library-internal description of one approximate product,
 * shared by approx_sgemm and the methods behind it.
 *
 * approx_sgemm turns its CBLAS-style arguments into this form once: the m rows
 * of op(A) and the n columns of op(B) as two sets of k-dimensional vectors,
 * each given as a matrix (vector i = row i) with a layout and leading
 * dimension, and C as an m x n view with explicit strides. A method only ever
 * sees vector sets, so one implementation serves every layout and transpose.
 */
#ifndef APPROX_PROBLEM_H
#define APPROX_PROBLEM_H

#include "exact/smm_runtime.h"
#include "sketchmm/approx.h"

typedef struct {
    smm_layout layout; /* storage of the n x d matrix whose rows are the vectors */
    int64_t count;     /* number of vectors */
    const float *data;
    int64_t ld;
} approx_vectors;

typedef struct {
    int64_t m, n, k;
    float alpha, beta;
    approx_vectors rows_a; /* the m rows of op(A) */
    approx_vectors cols_b; /* the n columns of op(B) */
    float *C;              /* entry (i, j) at C[i * rs_c + j * cs_c]; one stride is 1 */
    int64_t rs_c, cs_c;
} approx_problem;

/*
 * C := alpha * est(op(A) op(B)) + beta * C with SimHash codes of opts->bits bits.
 * m, n, k > 0 and alpha != 0; all arguments already validated. C is written
 * only once both sides are sketched (errors leave C untouched).
 */
smm_status approx_simhash_product(const smm_context *ctx, const approx_problem *p, const approx_options *opts);

#endif /* APPROX_PROBLEM_H */
