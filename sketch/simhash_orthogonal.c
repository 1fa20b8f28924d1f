/*
 * simhash_orthogonal.c - the hyperplanes of SKETCH_SIMHASH_ORTHOGONAL
 * ("super-bit" LSH, Ji et al. 2012): the Gaussian hyperplanes of the seed
 * (simhash_hyperplane_entry), orthonormalised in consecutive blocks of
 * K = min(d, bits) rows, block j being rows jK .. min(jK + K, bits) - 1.
 *
 * Orthonormalisation: modified Gram-Schmidt in double, rows in increasing
 * order: row i is divided by its norm, then its projection is removed from
 * every later row k of the block (r = <q_k, q_i>, q_k -= r q_i). Each row
 * sees the same operations in the same order whatever the thread count (the
 * threads split the later rows k, never a dot product), dot products use the
 * fixed four-way order of dot4() and the compiler is not allowed to contract
 * (-ffp-contract=off), so the rows are the same doubles on every platform;
 * rounded to float (entries below 2^-100 in magnitude become 0, so no row
 * holds a subnormal) they are the hyperplanes. Codes are then the signs of
 * the reference double dot products with these float rows, computed as in
 * simhash_encode.c.
 *
 * Why: the K rows of a block are a uniformly random orthonormal frame (Gram-
 * Schmidt of an i.i.d. Gaussian matrix), so each row alone is uniform on the
 * sphere: every bit still differs with probability theta / pi (the angle
 * estimate stays unbiased), while bits of one block are negatively
 * correlated, which lowers the variance of the estimate below
 * theta (pi - theta) / bits (markedly when bits is comparable to d).
 * Cost: bits * K * d flops of orthonormalisation per call, on top of the
 * encoding itself.
 */
#include <math.h>

#include "common/smm_runtime.h"
#include "sketch/simhash.h"

/* Least work (doubles touched) worth a parallel region. */
#define ORTHO_PARALLEL_MIN_WORK (INT64_C(1) << 15)

/* <a, b> in double, four partial sums (term t into sum t % 4, increasing t), (s0 + s1) + (s2 + s3). */
static double dot4(const double *a, const double *b, int64_t d)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int64_t t = 0;
    for (; t + 4 <= d; t += 4) {
        s0 += a[t] * b[t];
        s1 += a[t + 1] * b[t + 1];
        s2 += a[t + 2] * b[t + 2];
        s3 += a[t + 3] * b[t + 3];
    }
    for (; t < d; t++) {
        const double p = a[t] * b[t];
        switch (t & 3) {
        case 0: s0 += p; break;
        case 1: s1 += p; break;
        case 2: s2 += p; break;
        default: s3 += p; break;
        }
    }
    return (s0 + s1) + (s2 + s3);
}

static int64_t block_rows_of(int64_t d, int32_t bits)
{
    return d < (int64_t)bits ? d : (int64_t)bits;
}

static int64_t ortho_work_doubles(int64_t d, int32_t bits)
{
    int64_t n;
    if (smm_mul_size(block_rows_of(d, bits), d, &n) != SMM_OK)
        return -1;
    return n;
}

/* Rows r0 .. r0 + rows - 1 of the Gaussian hyperplanes, orthonormalised, into Q (rows x d). */
static void ortho_block(uint64_t seed, int64_t r0, int64_t rows, int64_t d, double *Q, int threads)
{
    #pragma omp parallel for num_threads(threads) schedule(static) if (rows * d >= ORTHO_PARALLEL_MIN_WORK)
    for (int64_t r = 0; r < rows; r++)
        for (int64_t t = 0; t < d; t++)
            Q[r * d + t] = (double)simhash_hyperplane_entry(seed, (uint64_t)(r0 + r), (uint64_t)t);
    for (int64_t i = 0; i < rows; i++) {
        double *qi = Q + i * d;
        const double nrm = sqrt(dot4(qi, qi, d));
        if (nrm > 0.0) /* always, in practice: Gaussian rows are independent */
            for (int64_t t = 0; t < d; t++)
                qi[t] /= nrm;
        #pragma omp parallel for num_threads(threads) schedule(static) if ((rows - i) * d >= ORTHO_PARALLEL_MIN_WORK)
        for (int64_t k = i + 1; k < rows; k++) {
            double *qk = Q + k * d;
            const double r = dot4(qk, qi, d);
            for (int64_t t = 0; t < d; t++)
                qk[t] -= r * qi[t];
        }
    }
}

static void ortho_rows(uint64_t seed, int32_t bits, int64_t b0, int64_t nrows, int64_t d,
                       float *G, int64_t ldg, double *work, int threads)
{
    const int64_t K = block_rows_of(d, bits);
    for (int64_t blk = b0 / K; blk * K < b0 + nrows; blk++) {
        const int64_t r0 = blk * K;
        const int64_t rows = (int64_t)bits - r0 < K ? (int64_t)bits - r0 : K;
        ortho_block(seed, r0, rows, d, work, threads);
        const int64_t lo = r0 > b0 ? r0 : b0;
        const int64_t hi = r0 + rows < b0 + nrows ? r0 + rows : b0 + nrows;
        for (int64_t r = lo; r < hi; r++) {
            const double *q = work + (r - r0) * d;
            float *g = G + (r - b0) * ldg;
            for (int64_t t = 0; t < d; t++)
                g[t] = fabs(q[t]) < 0x1p-100 ? 0.0f : (float)q[t];
        }
    }
}

const simhash_generator simhash_orthogonal_generator = { ortho_rows, ortho_work_doubles };
