/*
 * gen_crosspolytope_mc.c - Monte Carlo collision probabilities of the
 * implemented cross-polytope hash (3-round HD-rotation, sketch.h) for
 * D = 2, 4, ..., 2^emax, at theta_k = k pi / 256, k = 0 .. 256. Feeds the
 * small-D rows of the calibration table (scripts/gen_crosspolytope_table.py
 * --mc FILE).
 *
 * Sample s (s = 0 .. N-1, each from its own splitmix64 stream): x and z are
 * i.i.d. standard normal vectors in R^D (Box-Muller in double), z is made
 * orthogonal to x and both are normalised (in double) and rounded to float;
 * rotation block 0 of seed s is applied to both (hd_rotate, scalar FWHT), and
 * both results are brought to the same power-of-two scale. By linearity of
 * the rotation, the rotation of the unit vector cos(theta) x + sin(theta) z
 * is cos(theta) a + sin(theta) b, so every angle reuses the same two
 * rotations (common random numbers: the estimates at different angles share
 * their samples and the curve is smooth). The hash of that vector is
 * compared with the hash of a (theta = 0), for the full hash of dimension D
 * and for the smaller hashes of dimension D' = 2^e2 < D on the first D'
 * coordinates (the last hash of a code whose budget is not a multiple of the
 * field width). Counts are integers summed per
 * sample, so the output does not depend on the thread count.
 *
 * Build (from the repository root, after building the library in build/):
 *   gcc -O2 -fopenmp -Iinclude -I. scripts/gen_crosspolytope_mc.c \
 *       build/libsketchmm.a -lxxhash -lm -o /tmp/gen_cp_mc
 *   /tmp/gen_cp_mc 10 200000 > /tmp/cp_mc.txt
 * Output: lines "e e2 k hits samples" (D = 2^e, D' = 2^e2 <= D).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sketch/hd_rotation.h"

#define STEPS 256

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static double gauss(uint64_t *s)
{
    const double u1 = ((double)(next(s) >> 11) + 0.5) * 0x1p-53;
    const double u2 = (double)(next(s) >> 11) * 0x1p-53;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* hd_rotate's input scale exponent: max |x| * 2^(1-e) in [1, 2). */
static int scale_exp(const float *x, int64_t d)
{
    float big = 0.0f;
    for (int64_t t = 0; t < d; t++)
        big = fabsf(x[t]) > big ? fabsf(x[t]) : big;
    int e = 0;
    (void)frexpf(big, &e);
    return e;
}

/* h[e2] = the cross-polytope hash of dimension 2^e2 of y (its first 2^e2
 * coordinates), e2 = 0 .. e, in one pass over the prefixes. */
static void cp_hashes(const float *y, int e, int64_t *h)
{
    int64_t best = 0;
    float big = fabsf(y[0]);
    h[0] = y[0] < 0.0f ? 1 : 0;
    for (int e2 = 1; e2 <= e; e2++) {
        const int64_t lo = INT64_C(1) << (e2 - 1), hi = INT64_C(1) << e2;
        for (int64_t i = lo; i < hi; i++)
            if (fabsf(y[i]) > big) {
                big = fabsf(y[i]);
                best = i;
            }
        h[e2] = best + (y[best] < 0.0f ? hi : 0);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s EMAX SAMPLES\n", argv[0]);
        return 2;
    }
    const int emax = atoi(argv[1]);
    const long n = atol(argv[2]);
    for (int e = 1; e <= emax; e++) {
        const int64_t D = INT64_C(1) << e;
        long hits[STEPS + 1][32] = { { 0 } };
        #pragma omp parallel
        {
            long my[STEPS + 1][32] = { { 0 } };
            int64_t h0[32], h[32];
            double *xd = malloc(D * sizeof *xd), *zd = malloc(D * sizeof *zd);
            float *x = malloc(D * sizeof *x), *z = malloc(D * sizeof *z);
            float *a = aligned_alloc(64, D * sizeof *a), *b = aligned_alloc(64, D * sizeof *b);
            float *y = malloc(D * sizeof *y);
            uint32_t *flip = malloc(HD_ROUNDS * D * sizeof *flip);
            float cs[STEPS + 1], sn[STEPS + 1];
            for (int k = 0; k <= STEPS; k++) {
                cs[k] = (float)cos(k * 3.14159265358979323846 / STEPS);
                sn[k] = (float)sin(k * 3.14159265358979323846 / STEPS);
            }
            #pragma omp for schedule(dynamic, 256)
            for (long s = 0; s < n; s++) {
                uint64_t st = (uint64_t)s * UINT64_C(0x2545F4914F6CDD1D) + (uint64_t)e;
                double nx = 0.0, dot = 0.0, nz = 0.0;
                for (int64_t t = 0; t < D; t++) {
                    xd[t] = gauss(&st);
                    nx += xd[t] * xd[t];
                }
                for (int64_t t = 0; t < D; t++) {
                    zd[t] = gauss(&st);
                    dot += zd[t] * xd[t];
                }
                for (int64_t t = 0; t < D; t++)
                    zd[t] -= dot / nx * xd[t];
                for (int64_t t = 0; t < D; t++)
                    nz += zd[t] * zd[t];
                for (int64_t t = 0; t < D; t++) {
                    x[t] = (float)(xd[t] / sqrt(nx));
                    z[t] = (float)(zd[t] / sqrt(nz));
                }
                hd_rotation_signs((uint64_t)s, 0, D, flip);
                hd_rotate(flip, x, 1, D, D, fwht_flip_scalar, a);
                hd_rotate(flip, z, 1, D, D, fwht_flip_scalar, b);
                const float rescale = ldexpf(1.0f, scale_exp(z, D) - scale_exp(x, D));
                for (int64_t i = 0; i < D; i++)
                    b[i] *= rescale; /* exact: a power of two */
                cp_hashes(a, e, h0);
                for (int k = 0; k <= STEPS; k++) {
                    for (int64_t i = 0; i < D; i++)
                        y[i] = cs[k] * a[i] + sn[k] * b[i];
                    cp_hashes(y, e, h);
                    for (int e2 = 0; e2 <= e; e2++)
                        my[k][e2] += h[e2] == h0[e2];
                }
            }
            #pragma omp critical
            for (int k = 0; k <= STEPS; k++)
                for (int e2 = 0; e2 <= e; e2++)
                    hits[k][e2] += my[k][e2];
            free(xd); free(zd); free(x); free(z); free(a); free(b); free(y); free(flip);
        }
        for (int e2 = 0; e2 <= e; e2++)
            for (int k = 0; k <= STEPS; k++)
                printf("%d %d %d %ld %ld\n", e, e2, k, hits[k][e2], n);
        fflush(stdout);
        fprintf(stderr, "D = %lld done\n", (long long)D);
    }
    return 0;
}
