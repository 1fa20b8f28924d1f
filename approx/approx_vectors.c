/*
 * approx_vectors.c - vector sets as methods see them, and the allocations
 * the methods share (approx_vectors.h).
 */
#include "approx/approx_vectors.h"

#include <string.h>

#include "sketchmm/unary.h"

/* Transposing a matrix flips its layout, so op(X) = X^T in one layout is X in the other. */
approx_vectors approx_vectors_of(smm_layout layout, smm_trans trans, int rows, int64_t count, const float *X,
                                 int64_t ld)
{
    const int transposed = (trans == SMM_TRANS) != !rows; /* rows of op(X), or rows of op(X)^T */
    const smm_layout flipped = layout == SMM_ROW_MAJOR ? SMM_COL_MAJOR : SMM_ROW_MAJOR;
    approx_vectors v = { transposed ? flipped : layout, count, X, ld };
    return v;
}

void approx_vectors_operand(const approx_vectors *v, int64_t first, const float **X, smm_trans *trans)
{
    /* row-major: vector i is row i of the stored matrix; column-major: row i of it is column i stored row-major */
    *X = v->layout == SMM_ROW_MAJOR ? v->data + first * v->ld : v->data + first;
    *trans = v->layout == SMM_ROW_MAJOR ? SMM_NO_TRANS : SMM_TRANS;
}

void *approx_alloc(int64_t count, int64_t size, smm_status *status)
{
    int64_t bytes;
    if (smm_mul_size(count, size, &bytes) != SMM_OK) {
        *status = SMM_ERR_OVERFLOW;
        return NULL;
    }
    void *p = smm_aligned_alloc((size_t)bytes);
    if (p == NULL)
        *status = SMM_ERR_NO_MEMORY;
    return p;
}

void *approx_new_state(size_t size)
{
    void *st = smm_aligned_alloc(size);
    if (st != NULL)
        memset(st, 0, size);
    return st;
}

smm_status approx_row_major(const approx_vectors *v, int64_t dim, const float **X, int64_t *ld, float **copy)
{
    *copy = NULL;
    if (v->layout == SMM_ROW_MAJOR) {
        *X = v->data;
        *ld = v->ld;
        return SMM_OK;
    }
    smm_status status = SMM_OK;
    float *c = approx_alloc(v->count, dim * (int64_t)sizeof(float), &status);
    if (c == NULL)
        return status;
    /* the vectors are the columns of a dim x count row-major matrix: its transpose, in cache blocks */
    status = unary_apply(UNARY_IDENTITY, SMM_ROW_MAJOR, SMM_TRANS, v->count, dim, v->data, v->ld, c, dim);
    if (status != SMM_OK) {
        smm_aligned_free(c);
        return status;
    }
    *X = *copy = c;
    *ld = dim;
    return SMM_OK;
}
