/* hamming_scalar.c - portable reference Hamming row kernel (see hamming_kernels.h). */
#include "sketch/hamming_kernels.h"

void hamming_row_scalar(const uint64_t *q, const uint64_t *b, int64_t nb,
                        int64_t ldb, int64_t words, uint32_t *out)
{
    for (int64_t j = 0; j < nb; j++) {
        const uint64_t *bj = b + j * ldb;
        uint64_t count = 0;
        for (int64_t w = 0; w < words; w++)
            count += (uint64_t)__builtin_popcountll(q[w] ^ bj[w]);
        out[j] = (uint32_t)count;
    }
}
