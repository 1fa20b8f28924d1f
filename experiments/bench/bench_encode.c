/*
 * bench_encode.c - mode `encode`: encoding speed of every sketch family
 * (sketch_encode) in vectors per second, with the accuracy of the angle
 * estimate on the same data, so that speed is compared at known accuracy.
 *
 * Data: n / 2 pairs of vectors of dimension d (Gaussian entries from a fixed
 * seed), pair p at the angle theta_p = pi (p + 1/2) / (n / 2), so the angles
 * cover (0, pi) evenly. Timing: one warm-up call per family, then --reps
 * rounds, each encoding all n vectors once with every family in turn
 * (row-major, norms requested); the table shows medians, and the ratio
 * column is the median of per-round ratios against dense SimHash
 * (sketch_simhash_encode's family), so that both sides of a ratio were
 * timed moments apart. Accuracy (from the codes of the last call): for each
 * pair, the angle estimate pi h / bits against theta_p; 'bias' is the mean
 * error, 'rmse' the root mean square error, 'mse/simhash' the mean squared
 * error over the mean of SimHash's theoretical variance theta (pi - theta) /
 * bits (1 for plain SimHash up to noise; below 1 means more accurate).
 * Cross-polytope codes are a different estimator: their accuracy is not
 * shown here (n/a), nor anything when the family is not available.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cli.h"
#include "bench_contention.h"
#include "bench_matrix.h"
#include "bench_modes.h"
#include "bench_report.h"
#include "bench_timing.h"
#include "sketchmm.h"

#define MAX_DIM 65536
#define DEFAULT_N 4096
#define DEFAULT_REPS 5
#define FAMILIES 4 /* family f (array index) is method SKETCH_SIMHASH + f: simhash first */
#define BENCH_PI 3.14159265358979323846

typedef struct {
    bench_int_list dims, bits, threads;
    int64_t n, reps, seed;
} encode_config;

static void describe(FILE *out)
{
    fputs("  Vectors per second of sketch_encode for each family (simhash, simhash_orthogonal,\n"
          "  simhash_structured, crosspolytope; 'n/a' when the library returns SMM_ERR_BAD_METHOD),\n"
          "  row-major with norms, on n vectors forming n/2 pairs at angles spread over (0, pi).\n"
          "  One warm-up call, then --reps rounds timing every family in turn; medians, and the\n"
          "  median per-round speed ratio against dense simhash. Accuracy of the angle estimate\n"
          "  pi h / bits on the same pairs: bias, rmse, and mse over SimHash's theoretical variance\n"
          "  theta (pi - theta) / bits (averaged over the pairs).\n",
          out);
}

/* splitmix64 */
static uint64_t rng_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static double rng_gauss(uint64_t *state)
{
    const double u1 = ((double)(rng_next(state) >> 11) + 0.5) * 0x1p-53;
    const double u2 = (double)(rng_next(state) >> 11) * 0x1p-53;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * BENCH_PI * u2);
}

/*
 * n / 2 pairs (rows 2p, 2p + 1 of X, n x d row-major): x = u, y = cos(theta) u
 * + sin(theta) v with u, v orthonormal Gaussian directions; theta[p] receives
 * the angle of the float vectors (measured in double).
 */
static void make_pairs(int64_t n, int64_t d, float *X, double *theta)
{
    uint64_t rng = UINT64_C(0x5eed) + (uint64_t)d;
    double *u = malloc((size_t)d * sizeof *u), *v = malloc((size_t)d * sizeof *v);
    if (!u || !v) {
        bench_error("out of memory");
        exit(BENCH_EXIT_FAILED);
    }
    for (int64_t p = 0; p < n / 2; p++) {
        const double th = BENCH_PI * ((double)p + 0.5) / (double)(n / 2);
        double uu = 0.0, uv = 0.0, vv = 0.0;
        for (int64_t t = 0; t < d; t++) {
            u[t] = rng_gauss(&rng);
            v[t] = rng_gauss(&rng);
            uu += u[t] * u[t];
        }
        for (int64_t t = 0; t < d; t++) {
            u[t] /= sqrt(uu);
            uv += u[t] * v[t];
        }
        for (int64_t t = 0; t < d; t++) {
            v[t] -= uv * u[t];
            vv += v[t] * v[t];
        }
        float *x = X + 2 * p * d, *y = x + d;
        double xy = 0.0, xx = 0.0, yy = 0.0;
        for (int64_t t = 0; t < d; t++) {
            x[t] = (float)u[t];
            y[t] = (float)(cos(th) * u[t] + sin(th) * v[t] / sqrt(vv));
            xy += (double)x[t] * y[t];
            xx += (double)x[t] * x[t];
            yy += (double)y[t] * y[t];
        }
        double c = xy / sqrt(xx * yy);
        theta[p] = acos(c > 1.0 ? 1.0 : c < -1.0 ? -1.0 : c);
    }
    free(u);
    free(v);
}

typedef struct {
    sketch_method family;
    int64_t n, d;
    const float *X;
    int32_t bits;
    uint64_t seed;
    uint64_t *codes;
    int64_t ldcodes;
    float *norms;
    smm_status status;
} encode_call;

static void run_encode(void *context)
{
    encode_call *c = context;
    c->status = sketch_encode(c->family, SMM_ROW_MAJOR, c->n, c->d, c->X, c->d, c->bits, c->seed, c->codes,
                              c->ldcodes, c->norms);
}

typedef struct {
    double bias, rmse, mse_ratio;
} accuracy;

static accuracy measure_accuracy(const encode_call *c, const double *theta)
{
    const int64_t pairs = c->n / 2;
    const int64_t words = (c->bits + 63) / 64;
    double sum = 0.0, sum2 = 0.0, theory = 0.0;
    for (int64_t p = 0; p < pairs; p++) {
        const uint64_t *a = c->codes + 2 * p * c->ldcodes, *b = a + c->ldcodes;
        int64_t h = 0;
        for (int64_t w = 0; w < words; w++)
            h += __builtin_popcountll(a[w] ^ b[w]);
        const double err = sketch_angle_estimate(h, c->bits) - theta[p];
        sum += err;
        sum2 += err * err;
        theory += theta[p] * (BENCH_PI - theta[p]) / c->bits;
    }
    accuracy r = { sum / (double)pairs, sqrt(sum2 / (double)pairs), sum2 / theory };
    return r;
}

static int run_mode(void *config, FILE *csv)
{
    const encode_config *cfg = config;
    const int reps = (int)cfg->reps;
    printf("sketch_encode of n = %lld row-major vectors (%lld pairs at angles over (0, pi)), norms on;\n"
           "one warm-up call, then %d rounds timing each family in turn (medians). 'vs dense': median\n"
           "per-round speed ratio against simhash. Accuracy of pi h / bits on the pairs: bias, rmse\n"
           "(radians), mse / mean SimHash variance theta (pi - theta) / bits. 'other%%': share of the\n"
           "machine's CPU time other processes used during the row's rounds.\n",
           (long long)cfg->n, (long long)(cfg->n / 2), reps);
    printf("\n%6s %6s %4s %-19s %12s %9s %9s %8s %8s %7s %6s\n", "d", "bits", "thr", "family", "vectors/s",
           "us/vector", "vs dense", "bias", "rmse", "mse/sh", "other%");
    int status = 0;
    for (int id = 0; id < cfg->dims.count; id++) {
        const int64_t d = cfg->dims.v[id], n = cfg->n;
        float *X = bench_alloc_floats(n * d);
        double *theta = malloc((size_t)(n / 2) * sizeof *theta);
        if (!theta) {
            bench_error("out of memory");
            return BENCH_EXIT_FAILED;
        }
        make_pairs(n, d, X, theta);
        for (int ib = 0; ib < cfg->bits.count; ib++) {
            const int32_t bits = (int32_t)cfg->bits.v[ib];
            const int64_t ldcodes = (bits + 63) / 64 * 4 + 8; /* room for cross-polytope's fields */
            for (int it = 0; it < cfg->threads.count; it++) {
                const int threads = (int)cfg->threads.v[it];
                smm_status s = smm_set_num_threads(threads);
                if (s != SMM_OK) {
                    bench_error("smm_set_num_threads(%d): %s", threads,
                                smm_status_str(s));
                    status = BENCH_EXIT_FAILED;
                    continue;
                }
                encode_call calls[FAMILIES];
                int available[FAMILIES];
                double *secs = malloc((size_t)FAMILIES * reps * sizeof *secs);
                double *ratios = malloc((size_t)FAMILIES * reps * sizeof *ratios);
                if (!secs || !ratios) {
                    bench_error("out of memory");
                    return BENCH_EXIT_FAILED;
                }
                for (int f = 0; f < FAMILIES; f++) {
                    encode_call *c = &calls[f];
                    int64_t words = 0;
                    c->family = (sketch_method)(SKETCH_SIMHASH + f);
                    c->n = n;
                    c->d = d;
                    c->X = X;
                    c->bits = bits;
                    c->seed = (uint64_t)cfg->seed;
                    c->ldcodes = ldcodes;
                    available[f] = sketch_code_words(c->family, d, bits, &words) == SMM_OK;
                    if (available[f] && words > ldcodes)
                        c->ldcodes = words;
                    c->codes = malloc((size_t)(n * c->ldcodes) * sizeof(uint64_t));
                    c->norms = malloc((size_t)n * sizeof(float));
                    if (!c->codes || !c->norms) {
                        bench_error("out of memory");
                        return BENCH_EXIT_FAILED;
                    }
                    if (available[f]) {
                        run_encode(c); /* warm-up */
                        if (c->status == SMM_ERR_BAD_METHOD) {
                            available[f] = 0;
                        } else if (c->status != SMM_OK) {
                            bench_error("%s d=%lld bits=%d: %s",
                                        sketch_method_name(c->family), (long long)d, bits, smm_status_str(c->status));
                            available[f] = 0;
                            status = BENCH_EXIT_FAILED;
                        }
                    }
                }
                const bench_contention_mark mark0 = bench_contention_now();
                for (int r = 0; r < reps; r++) {
                    for (int f = 0; f < FAMILIES; f++) {
                        if (!available[f])
                            continue;
                        const double t0 = bench_now_seconds();
                        run_encode(&calls[f]);
                        secs[f * reps + r] = bench_now_seconds() - t0;
                    }
                    for (int f = 0; f < FAMILIES; f++)
                        if (available[f] && available[0])
                            ratios[f * reps + r] = secs[0 * reps + r] / secs[f * reps + r];
                }
                const double other = bench_contention_others(mark0, bench_contention_now());
                for (int f = 0; f < FAMILIES; f++) {
                    const char *name = sketch_method_name(calls[f].family);
                    printf("%6lld %6d %4d %-19s ", (long long)d, bits, threads, name);
                    if (!available[f]) {
                        printf("%12s %9s %9s %8s %8s %7s ", "n/a", "n/a", "n/a", "n/a", "n/a", "n/a");
                        bench_print_share(stdout, other, 6);
                        printf("\n");
                        if (csv)
                            fprintf(csv, "%lld,%d,%d,%lld,%s,n/a,,,,,,,\n", (long long)d, bits, threads,
                                    (long long)n, name);
                        continue;
                    }
                    const double sec = bench_median(secs + f * reps, reps);
                    const double ratio = available[0] ? bench_median(ratios + f * reps, reps) : NAN;
                    const int simhash_like = f != SKETCH_CROSSPOLYTOPE;
                    accuracy acc = { NAN, NAN, NAN };
                    if (simhash_like)
                        acc = measure_accuracy(&calls[f], theta);
                    printf("%12.4g %9.3f %9.2f ", (double)n / sec, sec / (double)n * 1e6, ratio);
                    if (simhash_like)
                        printf("%8.4f %8.4f %7.3f ", acc.bias, acc.rmse, acc.mse_ratio);
                    else
                        printf("%8s %8s %7s ", "n/a", "n/a", "n/a");
                    bench_print_share(stdout, other, 6);
                    printf("\n");
                    if (csv) {
                        fprintf(csv, "%lld,%d,%d,%lld,%s,ok,%.6g,%.6g,%.6g,", (long long)d, bits, threads,
                                (long long)n, name, (double)n / sec, sec, ratio);
                        if (simhash_like)
                            fprintf(csv, "%.6g,%.6g,%.6g,", acc.bias, acc.rmse, acc.mse_ratio);
                        else
                            fprintf(csv, ",,,");
                        if (!isnan(other))
                            fprintf(csv, "%.3g", other);
                        fprintf(csv, "\n");
                        fflush(csv);
                    }
                }
                for (int f = 0; f < FAMILIES; f++) {
                    free(calls[f].codes);
                    free(calls[f].norms);
                }
                free(secs);
                free(ratios);
            }
        }
        bench_free_floats(X);
        free(theta);
    }
    smm_set_num_threads(0);
    return status;
}

static const bench_option options[] = {
    { .name = "dims", .arg = "LIST", .kind = BENCH_INT_LIST, .offset = offsetof(encode_config, dims), .lo = 1,
      .hi = MAX_DIM, BENCH_DEFAULTS(784, 128), .wants = "dimensions", .help = "dimensions d (default {default})" },
    { .name = "bits", .arg = "LIST", .kind = BENCH_INT_LIST, .offset = offsetof(encode_config, bits), .lo = 1,
      .hi = SKETCH_MAX_BITS, BENCH_DEFAULTS(256), .wants = "code lengths", .help = "code lengths (default {default})" },
    BENCH_OPTION_THREAD_COUNTS(encode_config, threads),
    { .name = "n", .arg = "N", .kind = BENCH_INT, .offset = offsetof(encode_config, n), .lo = 2, .hi = INT64_C(1) << 24,
      .multiple = 2, .def = DEFAULT_N, .wants = "an even count", .help = "vectors per call, even (default {default})" },
    BENCH_OPTION_REPS(encode_config, reps, 1000000, DEFAULT_REPS, "timed rounds (default {default})"),
    { .name = "seed", .arg = "S", .kind = BENCH_INT, .offset = offsetof(encode_config, seed), .lo = 0,
      .hi = INT64_MAX, .def = 1, .wants = "a non-negative integer", .range_in_wants = 1,
      .help = "sketch seed (default {default})" },
    { .name = NULL },
};

const bench_mode bench_mode_encode = {
    .name = "encode",
    .summary = "sketch_encode of every sketch family: vectors/s, ratio to dense SimHash, angle accuracy",
    .options = options,
    .config_size = sizeof(encode_config),
    .describe = describe,
    .csv_header = "d,bits,threads,n,family,status,vectors_per_second,seconds,ratio_vs_simhash,bias,rmse,"
                  "mse_over_simhash_variance,other_share\n",
    .csv_rows = "configuration and family",
    .run = run_mode,
};
