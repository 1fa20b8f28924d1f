/*
 * make_ann_dataset.c - sketchmm_make_ann: write a nearest-neighbour benchmark
 * in the ann-benchmarks HDF5 layout (data/dataset.h) with the exact
 * inner-product answer computed once by exact_topk, so sweeps and analyses
 * reuse it instead of recomputing it.
 *
 *   sketchmm_make_ann [--source fashion-mnist|digits] [--out FILE] [--topk K]
 *                     [--train-rows N] [--test-rows M] [--data-dir DIR] [--seed S]
 *
 * Fashion-MNIST: train = the train split, test = the t10k split. digits:
 * train and test are dataset_digits() images of seeds S and S + 1 (for tests
 * and machines without the Fashion-MNIST package).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "data/dataset.h"

enum { EXIT_RUN_FAILED = 1, EXIT_USAGE = 2 };

typedef struct {
    const char *source;   /* "fashion-mnist" or "digits" */
    const char *out;
    const char *data_dir; /* Fashion-MNIST directory; NULL: env or default */
    int64_t topk;
    int64_t train_rows;   /* 0: the whole split (digits: DIGITS_TRAIN_DEFAULT) */
    int64_t test_rows;
    uint64_t seed;
} make_ann_config;

enum { DIGITS_TRAIN_DEFAULT = 1000, DIGITS_TEST_DEFAULT = 100 };

static void usage(FILE *f, const char *prog)
{
    fprintf(f,
        "usage: %s [options]\n"
        "Write a nearest-neighbour benchmark in the ann-benchmarks HDF5 layout:\n"
        "/train (n x d float32), /test (q x d float32), /neighbors (q x K int32: the\n"
        "exact K largest inner products <test_i, train_j>, largest first, from\n"
        "exact_topk), /distances (q x K float32: those inner products), root\n"
        "attributes distance = \"dot\" and dimension = d.\n"
        "\n"
        "  --source NAME      fashion-mnist (default: train = train split, test = t10k\n"
        "                     split) or digits (8 x 8 digit-like images from --seed)\n"
        "  --out FILE         output file (default fashion-mnist-784-dot.hdf5, or\n"
        "                     digits-64-dot.hdf5 for --source digits)\n"
        "  --topk K           neighbours per query (default 100; at most n)\n"
        "  --train-rows N     first N train vectors (default all 60000; digits 1000)\n"
        "  --test-rows M      first M test vectors (default all 10000; digits 100)\n"
        "  --data-dir DIR     Fashion-MNIST directory (default $%s or\n"
        "                     %s)\n"
        "  --seed S           digits only (default 1)\n"
        "  --help             this text\n",
        prog, DATASET_FASHION_MNIST_ENV, DATASET_FASHION_MNIST_DEFAULT_DIR);
}

static int parse_i64(const char *s, int64_t lo, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo)
        return 0;
    *out = (int64_t)v;
    return 1;
}

/* Returns -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, make_ann_config *cfg)
{
    const char *prog = argv[0];
    *cfg = (make_ann_config){ "fashion-mnist", NULL, NULL, 100, 0, 0, 1 };
    int seen_seed = 0;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0) {
            usage(stdout, prog);
            return EXIT_SUCCESS;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "%s: %s: unknown option or missing value (see --help)\n", prog, opt);
            return EXIT_USAGE;
        }
        const char *val = argv[++i];
        int ok = 1;
        int64_t seed = 0;
        seen_seed |= strcmp(opt, "--seed") == 0;
        if (strcmp(opt, "--source") == 0) {
            cfg->source = val;
            ok = strcmp(val, "fashion-mnist") == 0 || strcmp(val, "digits") == 0;
        } else if (strcmp(opt, "--out") == 0) {
            cfg->out = val;
        } else if (strcmp(opt, "--data-dir") == 0) {
            cfg->data_dir = val;
        } else if (strcmp(opt, "--topk") == 0) {
            ok = parse_i64(val, 1, &cfg->topk);
        } else if (strcmp(opt, "--train-rows") == 0) {
            ok = parse_i64(val, 1, &cfg->train_rows);
        } else if (strcmp(opt, "--test-rows") == 0) {
            ok = parse_i64(val, 1, &cfg->test_rows);
        } else if (strcmp(opt, "--seed") == 0) {
            ok = parse_i64(val, 0, &seed);
            cfg->seed = (uint64_t)seed;
        } else {
            fprintf(stderr, "%s: unknown option %s (see --help)\n", prog, opt);
            return EXIT_USAGE;
        }
        if (!ok) {
            fprintf(stderr, "%s: bad value for %s: %s (see --help)\n", prog, opt, val);
            return EXIT_USAGE;
        }
    }
    int digits = strcmp(cfg->source, "digits") == 0;
    if (cfg->data_dir != NULL && digits) {
        fprintf(stderr, "%s: --data-dir applies to --source fashion-mnist only\n", prog);
        return EXIT_USAGE;
    }
    if (seen_seed && !digits) {
        fprintf(stderr, "%s: --seed applies to --source digits only\n", prog);
        return EXIT_USAGE;
    }
    if (cfg->out == NULL)
        cfg->out = digits ? "digits-64-dot.hdf5" : "fashion-mnist-784-dot.hdf5";
    if (digits && cfg->train_rows == 0)
        cfg->train_rows = DIGITS_TRAIN_DEFAULT;
    if (digits && cfg->test_rows == 0)
        cfg->test_rows = DIGITS_TEST_DEFAULT;
    return -1;
}

/* train and test of the configured source into a; a message in msg on failure. */
static smm_status load_source(const make_ann_config *cfg, dataset_ann *a, char *msg, size_t msg_size)
{
    smm_status s;
    if (strcmp(cfg->source, "digits") == 0) {
        s = dataset_digits(cfg->train_rows, cfg->seed, &a->train, NULL);
        if (s == SMM_OK)
            s = dataset_digits(cfg->test_rows, cfg->seed + 1, &a->test, NULL);
        if (s != SMM_OK)
            snprintf(msg, msg_size, "cannot generate the digits");
        return s;
    }
    s = dataset_load_fashion_mnist(cfg->data_dir, "train", cfg->train_rows, &a->train, msg, msg_size);
    if (s == SMM_OK)
        s = dataset_load_fashion_mnist(cfg->data_dir, "t10k", cfg->test_rows, &a->test, msg, msg_size);
    return s;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    make_ann_config cfg;
    int rc = parse_args(argc, argv, &cfg);
    if (rc >= 0)
        return rc;

    char msg[1024] = "";
    dataset_ann a;
    memset(&a, 0, sizeof a);
    smm_status s = load_source(&cfg, &a, msg, sizeof msg);
    if (s == SMM_OK && cfg.topk > a.train.rows) {
        snprintf(msg, sizeof msg, "--topk %" PRId64 " exceeds the %" PRId64 " train vectors", cfg.topk,
                 a.train.rows);
        s = SMM_ERR_BAD_ARGUMENT;
    }
    if (s == SMM_OK) {
        fprintf(stderr, "%s: exact top-%" PRId64 " of %" PRId64 " queries against %" PRId64
                " vectors, d = %" PRId64 " ...\n", argv[0], cfg.topk, a.test.rows, a.train.rows, a.train.cols);
        double t0 = now_seconds();
        a.topk = cfg.topk;
        s = dataset_ann_ground_truth(&a.train, &a.test, cfg.topk, &a.neighbors, &a.distances);
        if (s != SMM_OK)
            snprintf(msg, sizeof msg, "exact_topk failed");
        else
            fprintf(stderr, "%s: done in %.2f s\n", argv[0], now_seconds() - t0);
    }
    if (s == SMM_OK) {
        snprintf(a.distance, sizeof a.distance, "%s", DATASET_ANN_DISTANCE_DOT);
        s = dataset_write_ann(cfg.out, &a, msg, sizeof msg);
    }
    if (s != SMM_OK) {
        fprintf(stderr, "%s: %s%s%s\n", argv[0], dataset_status_str(s), msg[0] ? ": " : "", msg);
        dataset_ann_free(&a);
        return EXIT_RUN_FAILED;
    }
    printf("%s: train %" PRId64 " x %" PRId64 ", test %" PRId64 " x %" PRId64 ", top-%" PRId64
           " neighbours by inner product (%s)\n", cfg.out, a.train.rows, a.train.cols, a.test.rows,
           a.test.cols, a.topk, cfg.source);
    dataset_ann_free(&a);
    return EXIT_SUCCESS;
}
