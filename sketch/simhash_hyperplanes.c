/*
 * simhash_hyperplanes.c - the Gaussian hyperplanes of a SimHash seed.
 *
 * Entry (b, t) is a pure function of (seed, b, t): a 64-bit XXH3 hash of the
 * 16 little-endian bytes of b and t, turned into a uniform u in (0, 1) and
 * then into a standard-normal value by the portable quantile of
 * normal_quantile.c. Integer hashing, exact conversions and the portable
 * quantile make every entry the same float on every IEEE-754 platform.
 */
/* XXH3 compiled inline: the same hash as libxxhash (xxHash's output is
 * specified bit for bit), but the 16-byte case specialises to a few
 * instructions, which halves the cost of an entry. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "common/smm_runtime.h"
#include "sketch/normal_quantile.h"
#include "sketch/simhash.h"

float simhash_hyperplane_entry(uint64_t seed, uint64_t b, uint64_t t)
{
    unsigned char key[16];
    for (int i = 0; i < 8; i++) {
        key[i] = (unsigned char)(b >> (8 * i));
        key[8 + i] = (unsigned char)(t >> (8 * i));
    }
    const uint64_t h = XXH3_64bits_withSeed(key, sizeof key, seed);
    /* u = (k + 1/2) * 2^-53 with k = h >> 11 in [0, 2^53). u itself needs 54
     * bits, but its offset from 1/2,
     *   q = u - 1/2 = (2k + 1 - 2^53) * 2^-54,
     * is an odd integer of magnitude < 2^53 times a power of two, so exact in
     * double. The quantile is taken from q (tail probability 1/2 - |q|, also
     * exact): u is never rounded to 1, and u and 1 - u give opposite values. */
    const int64_t k = (int64_t)(h >> 11);
    const int64_t m = 2 * k + 1 - (INT64_C(1) << 53);
    const double q = (double)m * 0x1p-54;
    return (float)normal_quantile_centered(q);
}

void simhash_hyperplane_rows(uint64_t seed, int64_t b0, int64_t nrows, int64_t d,
                             float *G, int64_t ldg, int threads)
{
    #pragma omp parallel for num_threads(threads) schedule(static) if (nrows * d >= 16384)
    for (int64_t r = 0; r < nrows; r++) {
        float *row = G + r * ldg;
        for (int64_t t = 0; t < d; t++)
            row[t] = simhash_hyperplane_entry(seed, (uint64_t)(b0 + r), (uint64_t)t);
    }
}

smm_status sketch_simhash_hyperplanes(int32_t bits, int64_t d, uint64_t seed,
                                      float *G, int64_t ldg)
{
    if (bits < 1 || bits > SKETCH_MAX_BITS)
        return SMM_ERR_BAD_BITS;
    smm_status s = smm_check_matrix(SMM_ROW_MAJOR, bits, d, G, ldg, sizeof(float));
    if (s != SMM_OK)
        return s;
    if (d == 0)
        return SMM_OK;
    simhash_hyperplane_rows(seed, 0, bits, d, G, ldg, smm_get_num_threads());
    return SMM_OK;
}
