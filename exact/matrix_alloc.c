/* matrix_alloc.c - matrices with padded, cache-line aligned rows (see exact.h). */
#include <string.h>

#include "common/smm_runtime.h"
#include "sketchmm/exact.h"

#define FLOATS_PER_LINE 16     /* one 64-byte cache line */
#define ALIAS_STRIDE_FLOATS 1024 /* 4 KiB: strides that are multiples of it alias in L1 */

int64_t exact_padded_ld(int64_t inner)
{
    if (inner < 0 || inner > INT64_MAX - 2 * FLOATS_PER_LINE)
        return -1;
    int64_t ld = inner > 1 ? inner : 1;
    ld = (ld + FLOATS_PER_LINE - 1) / FLOATS_PER_LINE * FLOATS_PER_LINE;
    if (ld % ALIAS_STRIDE_FLOATS == 0)
        ld += FLOATS_PER_LINE;
    return ld;
}

smm_status exact_matrix_alloc(smm_layout layout, int64_t rows, int64_t cols, float **matrix, int64_t *ld)
{
    if (matrix == NULL || ld == NULL)
        return SMM_ERR_NULL_POINTER;
    smm_status s = smm_check_layout(layout);
    if (s != SMM_OK)
        return s;
    if (rows < 0 || cols < 0)
        return SMM_ERR_BAD_SIZE;
    const int64_t inner = layout == SMM_ROW_MAJOR ? cols : rows;
    const int64_t outer = layout == SMM_ROW_MAJOR ? rows : cols;
    const int64_t padded = exact_padded_ld(inner);
    int64_t elems, bytes;
    if (padded < 0 || smm_mul_size(outer, padded, &elems) != SMM_OK ||
        smm_mul_size(elems, (int64_t)sizeof(float), &bytes) != SMM_OK || (uint64_t)bytes > SIZE_MAX)
        return SMM_ERR_OVERFLOW;
    float *p = NULL;
    if (rows > 0 && cols > 0) { /* an empty matrix gets no memory (NULL), whatever its padding */
        p = smm_aligned_alloc((size_t)bytes);
        if (p == NULL)
            return SMM_ERR_NO_MEMORY;
        memset(p, 0, (size_t)bytes);
    }
    *matrix = p;
    *ld = padded;
    return SMM_OK;
}

void exact_matrix_free(float *matrix)
{
    smm_aligned_free(matrix);
}
