/*
 * approx_vectors.h - the vector sets every approximate method works on, and
 * the memory helpers the methods share (approx_vectors.c). A leaf: it uses
 * common/ only.
 *
 * The public calls turn their CBLAS-style arguments into vector sets once:
 * the m rows of op(A) and the n columns of op(B), each given as a matrix
 * whose rows are the vectors (with a layout and leading dimension), so one
 * implementation of a method serves every layout and transpose.
 */
#ifndef APPROX_VECTORS_H
#define APPROX_VECTORS_H

#include <stddef.h>
#include <stdint.h>

#include "common/smm_runtime.h"

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

/*
 * The vectors a matrix argument holds, as rows of a matrix in some layout:
 * rows of op(X) when `rows` is set, columns of op(X) otherwise.
 */
approx_vectors approx_vectors_of(smm_layout layout, smm_trans trans, int rows, int64_t count, const float *X,
                                 int64_t ld);

/*
 * Vectors first, first + 1, .. of v as the rows of a row-major SGEMM operand:
 * *X and *trans such that op(X) (leading dimension v->ld) has them as rows.
 * As the columns of an operand (a right-hand factor), flip *trans.
 */
void approx_vectors_operand(const approx_vectors *v, int64_t first, const float **X, smm_trans *trans);

/*
 * The vectors of v (dimension dim) as a row-major matrix (*X, leading
 * dimension *ld): v's own storage when it is row-major (*copy NULL), else a
 * transposed copy in *copy (smm_aligned_free it). SMM_OK, SMM_ERR_OVERFLOW
 * or SMM_ERR_NO_MEMORY.
 */
smm_status approx_row_major(const approx_vectors *v, int64_t dim, const float **X, int64_t *ld, float **copy);

/* smm_aligned_alloc of count * size bytes; NULL with *status set to SMM_ERR_OVERFLOW or SMM_ERR_NO_MEMORY
 * on failure (*status untouched on success, so several calls can share one status). */
void *approx_alloc(int64_t count, int64_t size, smm_status *status);

/* A method's state struct of `size` bytes, aligned and zeroed (its pointers NULL), or NULL when memory ran out. */
void *approx_new_state(size_t size);

#endif /* APPROX_VECTORS_H */
