/*
 * crosspolytope_match_scalar.c - portable reference match row kernel (the
 * contract is in crosspolytope.h): the twin the AVX2 and AVX-512 kernels are
 * tested against, and the kernel of the scalar and NEON paths.
 */
#include "sketch/crosspolytope.h"

void cp_match_row_scalar(const uint64_t *q, const uint64_t *b, int64_t nb, int64_t ldb,
                         int64_t words, const uint64_t *hi, const uint64_t *lo,
                         uint32_t fields, uint16_t *out)
{
    for (int64_t j = 0; j < nb; j++) {
        const uint64_t *bj = b + j * ldb;
        uint32_t differ = 0;
        for (int64_t w = 0; w < words; w++) {
            const uint64_t x = q[w] ^ bj[w];
            differ += (uint32_t)__builtin_popcountll((((x & lo[w]) + lo[w]) | x) & hi[w]);
        }
        out[j] = (uint16_t)(fields - differ);
    }
}
