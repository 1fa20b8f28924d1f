/*
 * sweep.c - sketchmm_sweep: time exact_sgemm against approx_sgemm over a list
 * of sketch lengths and record speed and error in an HDF5 table.
 *
 * Timing: exact_sgemm is timed alone once (reference values, progress
 * line), then every configuration alternates exact and approximate runs and
 * records both medians, so a change of machine load during a sweep affects
 * both sides of a row's speedup alike.
 *
 * The product is a Gram-type product C = A * B: the data set gives m + n
 * vectors of dimension k; A holds the first m as rows (m x k, row-major) and
 * B the other n as columns (k x n, row-major, an explicit transposed copy).
 * On Fashion-MNIST the vectors are training images, whose pairwise cosines are
 * high, which is where sign-random-projection estimates do well.
 *
 * Run `sketchmm_sweep --help` for the flags. Output: progress on stderr, a
 * table and the path of the HDF5 file on stdout, the file itself (format in
 * results_h5.h). Exit status 0 on success, 1 when the run or a configuration
 * failed (finished rows stay in the file), 2 for a bad command line.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sketchmm.h"
#include "data/dataset.h"
#include "metrics.h"
#include "results_h5.h"

#ifndef SKETCHMM_SOURCE_DIR
#define SKETCHMM_SOURCE_DIR "."
#endif

#define SWEEP_MAX_BITS_LIST 64
#define SWEEP_DEFAULT_OUT "results/sweep.h5"
#define SWEEP_METHOD_NAME "simhash"

enum { EXIT_RUN_FAILED = 1, EXIT_USAGE = 2 };

typedef enum { DATA_FASHION_MNIST, DATA_GAUSSIAN, DATA_LOWRANK, DATA_CLUSTERED } data_kind;

static const char *const data_names[] = { "fashion-mnist", "gaussian", "lowrank", "clustered" };

typedef struct {
    data_kind data;
    int64_t m, n, k;
    int32_t bits[SWEEP_MAX_BITS_LIST];
    int nbits;
    int reps, warmup, threads; /* threads 0: library default */
    uint64_t seed;
    double alignment;          /* clustered */
    int64_t clusters;          /* clustered */
    int64_t rank;              /* lowrank */
    double noise;              /* lowrank */
    const char *out;
    const char *data_dir;      /* fashion-mnist; NULL: env or default */
} sweep_config;

static void print_help(FILE *f, const char *prog)
{
    fprintf(f,
        "Usage: %s [options]\n"
        "\n"
        "Times exact_sgemm and approx_sgemm (SimHash, one run per sketch length)\n"
        "on the same product C = A * B and records speed and error in an HDF5 table.\n"
        "A is m x k (the first m vectors of the data set as rows), B is k x n (the\n"
        "next n vectors as columns), both row-major. exact_sgemm runs first (--warmup\n"
        "untimed runs, --reps timed ones) to give the reference Y. Then, per sketch\n"
        "length, after --warmup untimed approx_sgemm runs, --reps rounds each time\n"
        "one exact_sgemm and one approx_sgemm; the row records the two medians, so\n"
        "its speedup compares runs made under the same machine conditions. Both\n"
        "products use the same thread count.\n"
        "\n"
        "Data\n"
        "  --dataset NAME    fashion-mnist | gaussian | lowrank | clustered\n"
        "                    (default fashion-mnist: m + n Fashion-MNIST training\n"
        "                    images, pixels in [0, 1], k = 784; A*B is a Gram\n"
        "                    product of different images, a highly aligned case)\n"
        "  --m M             rows of A (default 2048)\n"
        "  --n N             columns of B (default 2048)\n"
        "  --k K             inner dimension, synthetic data only (default 784;\n"
        "                    Fashion-MNIST always has k = 784)\n"
        "  --data-dir DIR    Fashion-MNIST directory holding train-images-idx3-ubyte.gz\n"
        "                    (default $%s, else %s)\n"
        "  --alignment A     clustered: expected cosine between two vectors of the\n"
        "                    same cluster, in [0, 1] (default 0.9)\n"
        "  --clusters C      clustered: number of clusters (default 10); vector i is\n"
        "                    in cluster i mod C\n"
        "  --rank R          lowrank: rank of the noise-free part (default 16)\n"
        "  --noise S         lowrank: standard deviation of the added Gaussian noise,\n"
        "                    relative to unit-variance low-rank entries (default 0.1)\n"
        "\n"
        "Sweep\n"
        "  --bits LIST       comma-separated sketch lengths, each 1..%d\n"
        "                    (default 64,128,256,512,1024)\n"
        "  --reps R          timed runs of each product per configuration, >= 1\n"
        "                    (default 5)\n"
        "  --warmup W        untimed runs before the timed ones, >= 0 (default 1)\n"
        "  --threads T       threads for both products, 1..%d (default: the library\n"
        "                    default, i.e. SKETCHMM_NUM_THREADS or OpenMP's maximum)\n"
        "  --seed S          seed of the SimHash hyperplanes and of the synthetic\n"
        "                    data (default 42; decimal or 0x-prefixed hex)\n"
        "\n"
        "Output\n"
        "  --out FILE.h5     results file (default %s); its directory is\n"
        "                    created if needed. An existing file is overwritten\n"
        "                    (there is no resume).\n"
        "                    Table /results gets one row per sketch length, flushed\n"
        "                    as soon as it is measured, so an interrupted sweep\n"
        "                    leaves every finished row. Fields: method, dataset, m,\n"
        "                    n, k, bits, seed, threads, isa, status, exact_seconds,\n"
        "                    approx_seconds, speedup, nmse, rel_fro_error,\n"
        "                    max_abs_error, alignment; root attributes describe the\n"
        "                    run (library_version, git_commit, isa, exact_kernel,\n"
        "                    hamming_kernel, threads, cpu_model, online_cpus,\n"
        "                    load_average_at_start, environment (SKETCHMM_* and\n"
        "                    OMP_* variables), dataset, seed, created, ...).\n"
        "  -h, --help        this text\n"
        "\n"
        "Errors: nmse = mean((Y - Yhat)^2) / var(Y), rel_fro_error =\n"
        "||Y - Yhat||_F / ||Y||_F, max_abs_error = max |Y - Yhat|, alignment =\n"
        "||A B||_F / (||A||_F ||B||_F), speedup = exact_seconds / approx_seconds.\n"
        "Timings need an otherwise idle machine: with fewer free cores than threads,\n"
        "OpenMP's spinning barriers can slow a product down many times\n"
        "(OMP_WAIT_POLICY=passive limits the damage; the file records OMP_* and\n"
        "the load average).\n"
        "Options may be written --name VALUE or --name=VALUE.\n"
        "Exit status: 0 success, 1 a run or configuration failed, 2 bad command line.\n",
        prog, DATASET_FASHION_MNIST_ENV, DATASET_FASHION_MNIST_DEFAULT_DIR,
        SKETCH_MAX_BITS, SMM_MAX_THREADS, SWEEP_DEFAULT_OUT);
}

/* ------------------------------------------------------------------------ */
/* Command line                                                             */
/* ------------------------------------------------------------------------ */

/* Print "prog: <message>" and a hint on stderr; returns EXIT_USAGE. */
static int usage_error(const char *prog, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry '%s --help'.\n", prog);
    va_end(ap);
    return EXIT_USAGE;
}

static int parse_i64(const char *text, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = (int64_t)v;
    return 1;
}

static int parse_u64(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    if (text[0] == '-' || text[0] == '\0')
        return 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno != 0 || *end != '\0')
        return 0;
    *out = (uint64_t)v;
    return 1;
}

static int parse_f64(const char *text, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !(v >= lo && v <= hi))
        return 0;
    *out = v;
    return 1;
}

static int parse_bits(const char *text, sweep_config *cfg)
{
    char buf[1024];
    if (strlen(text) >= sizeof buf)
        return 0;
    strcpy(buf, text);
    cfg->nbits = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        int64_t b;
        if (cfg->nbits == SWEEP_MAX_BITS_LIST || !parse_i64(tok, 1, SKETCH_MAX_BITS, &b))
            return 0;
        cfg->bits[cfg->nbits++] = (int32_t)b;
    }
    return cfg->nbits > 0;
}

/* Flags seen on the command line, for the checks that need them. */
enum {
    SEEN_K = 1 << 0, SEEN_ALIGNMENT = 1 << 1, SEEN_CLUSTERS = 1 << 2,
    SEEN_RANK = 1 << 3, SEEN_NOISE = 1 << 4, SEEN_DATA_DIR = 1 << 5
};

/* Returns -1 to continue, else the exit status. */
static int parse_args(int argc, char **argv, sweep_config *cfg)
{
    const char *prog = argv[0];
    static const int32_t default_bits[] = { 64, 128, 256, 512, 1024 };
    memset(cfg, 0, sizeof *cfg);
    cfg->data = DATA_FASHION_MNIST;
    cfg->m = 2048;
    cfg->n = 2048;
    cfg->k = DATASET_FASHION_MNIST_DIM;
    cfg->nbits = (int)(sizeof default_bits / sizeof default_bits[0]);
    memcpy(cfg->bits, default_bits, sizeof default_bits);
    cfg->reps = 5;
    cfg->warmup = 1;
    cfg->threads = 0;
    cfg->seed = 42;
    cfg->alignment = 0.9;
    cfg->clusters = 10;
    cfg->rank = 16;
    cfg->noise = 0.1;
    cfg->out = SWEEP_DEFAULT_OUT;
    cfg->data_dir = NULL;

    unsigned seen = 0;
    static char name_buf[64];
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            print_help(stdout, prog);
            return EXIT_SUCCESS;
        }
        if (strncmp(arg, "--", 2) != 0)
            return usage_error(prog, "unexpected argument '%s'", arg);
        const char *name = arg + 2, *value;
        const char *eq = strchr(name, '=');
        if (eq != NULL) {
            size_t len = (size_t)(eq - name);
            if (len >= sizeof name_buf)
                return usage_error(prog, "unknown option '%s'", arg);
            memcpy(name_buf, name, len);
            name_buf[len] = '\0';
            name = name_buf;
            value = eq + 1;
        } else {
            if (i + 1 >= argc)
                return usage_error(prog, "option '%s' needs a value", arg);
            value = argv[++i];
        }

        int64_t v;
        int ok = 1;
        if (strcmp(name, "dataset") == 0) {
            ok = 0;
            for (int d = 0; d < 4; d++)
                if (strcmp(value, data_names[d]) == 0) {
                    cfg->data = (data_kind)d;
                    ok = 1;
                }
        } else if (strcmp(name, "m") == 0) {
            ok = parse_i64(value, 1, INT32_MAX, &cfg->m);
        } else if (strcmp(name, "n") == 0) {
            ok = parse_i64(value, 1, INT32_MAX, &cfg->n);
        } else if (strcmp(name, "k") == 0) {
            ok = parse_i64(value, 1, INT32_MAX, &cfg->k);
            seen |= SEEN_K;
        } else if (strcmp(name, "bits") == 0) {
            ok = parse_bits(value, cfg);
        } else if (strcmp(name, "reps") == 0) {
            ok = parse_i64(value, 1, 100000, &v);
            cfg->reps = (int)v;
        } else if (strcmp(name, "warmup") == 0) {
            ok = parse_i64(value, 0, 100000, &v);
            cfg->warmup = (int)v;
        } else if (strcmp(name, "threads") == 0) {
            ok = parse_i64(value, 1, SMM_MAX_THREADS, &v);
            cfg->threads = (int)v;
        } else if (strcmp(name, "seed") == 0) {
            ok = parse_u64(value, &cfg->seed);
        } else if (strcmp(name, "alignment") == 0) {
            ok = parse_f64(value, 0.0, 1.0, &cfg->alignment);
            seen |= SEEN_ALIGNMENT;
        } else if (strcmp(name, "clusters") == 0) {
            ok = parse_i64(value, 1, INT32_MAX, &cfg->clusters);
            seen |= SEEN_CLUSTERS;
        } else if (strcmp(name, "rank") == 0) {
            ok = parse_i64(value, 1, INT32_MAX, &cfg->rank);
            seen |= SEEN_RANK;
        } else if (strcmp(name, "noise") == 0) {
            ok = parse_f64(value, 0.0, 1e30, &cfg->noise);
            seen |= SEEN_NOISE;
        } else if (strcmp(name, "out") == 0) {
            ok = value[0] != '\0';
            cfg->out = value;
        } else if (strcmp(name, "data-dir") == 0) {
            ok = value[0] != '\0';
            cfg->data_dir = value;
            seen |= SEEN_DATA_DIR;
        } else {
            return usage_error(prog, "unknown option '--%s'", name);
        }
        if (!ok)
            return usage_error(prog, "invalid value '%s' for --%s", value, name);
    }

    const char *dname = data_names[cfg->data];
    if (cfg->data == DATA_FASHION_MNIST) {
        if ((seen & SEEN_K) && cfg->k != DATASET_FASHION_MNIST_DIM)
            return usage_error(prog, "--k applies to synthetic data only (%s has k = 784)", dname);
        cfg->k = DATASET_FASHION_MNIST_DIM;
        if (cfg->m + cfg->n > 60000)
            return usage_error(prog, "%s has 60000 training images: m + n must not exceed that", dname);
    } else if (seen & SEEN_DATA_DIR) {
        return usage_error(prog, "--data-dir applies to --dataset fashion-mnist only, not %s", dname);
    }
    if (cfg->data != DATA_CLUSTERED && (seen & (SEEN_ALIGNMENT | SEEN_CLUSTERS)))
        return usage_error(prog, "--alignment and --clusters apply to --dataset clustered only, not %s", dname);
    if (cfg->data != DATA_LOWRANK && (seen & (SEEN_RANK | SEEN_NOISE)))
        return usage_error(prog, "--rank and --noise apply to --dataset lowrank only, not %s", dname);
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Run description                                                          */
/* ------------------------------------------------------------------------ */

/* `git -C <source dir> rev-parse HEAD`, or "unknown". */
static void git_commit(char *buf, size_t size)
{
    snprintf(buf, size, "unknown");
    int fd[2];
    if (pipe(fd) != 0)
        return;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return;
    }
    if (pid == 0) {
        dup2(fd[1], STDOUT_FILENO);
        close(fd[0]);
        close(fd[1]);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0)
            dup2(devnull, STDERR_FILENO);
        execlp("git", "git", "-C", SKETCHMM_SOURCE_DIR, "rev-parse", "HEAD", (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    char out[128];
    size_t len = 0;
    ssize_t got;
    while (len < sizeof out - 1 && (got = read(fd[0], out + len, sizeof out - 1 - len)) > 0)
        len += (size_t)got;
    close(fd[0]);
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
        ;
    out[len] = '\0';
    while (len > 0 && (out[len - 1] == '\n' || out[len - 1] == '\r'))
        out[--len] = '\0';
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 && len >= 7 &&
        strspn(out, "0123456789abcdef") == len)
        snprintf(buf, size, "%s", out);
}

/* The "model name" line of /proc/cpuinfo, or "unknown". */
static void cpu_model(char *buf, size_t size)
{
    snprintf(buf, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL)
        return;
    char line[512];
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        char *colon = strchr(line, ':');
        if (colon == NULL)
            continue;
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        size_t len = strlen(v);
        while (len > 0 && (v[len - 1] == '\n' || v[len - 1] == ' '))
            v[--len] = '\0';
        if (len > 0)
            snprintf(buf, size, "%s", v);
        break;
    }
    fclose(f);
}

/* The first line of /proc/loadavg (1, 5, 15 minute load ...), or "unknown". */
static void load_average(char *buf, size_t size)
{
    snprintf(buf, size, "unknown");
    FILE *f = fopen("/proc/loadavg", "r");
    if (f == NULL)
        return;
    if (fgets(buf, (int)size, f) != NULL) {
        size_t len = strlen(buf);
        while (len > 0 && buf[len - 1] == '\n')
            buf[--len] = '\0';
    } else {
        snprintf(buf, size, "unknown");
    }
    fclose(f);
}

/*
 * The environment variables that change how the library runs, as
 * "NAME=value NAME=value" (empty when none is set).
 */
static void runtime_env(char *buf, size_t size)
{
    static const char *const names[] = { "SKETCHMM_ISA", "SKETCHMM_NUM_THREADS", "OMP_NUM_THREADS",
                                         "OMP_WAIT_POLICY", "OMP_PROC_BIND", "OMP_PLACES",
                                         "GOMP_SPINCOUNT", "OMP_DYNAMIC" };
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0] && used < size; i++) {
        const char *v = getenv(names[i]);
        if (v != NULL)
            used += (size_t)snprintf(buf + used, size - used, "%s%s=%s", used ? " " : "", names[i], v);
    }
}

static void iso_time_now(char *buf, size_t size)
{
    time_t t = time(NULL);
    struct tm tm;
    if (gmtime_r(&t, &tm) == NULL || strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(buf, size, "unknown");
}

/* mkdir -p for the directory part of path. Returns 0 or an errno value. */
static int make_parent_dirs(const char *path)
{
    char *dir = strdup(path);
    if (dir == NULL)
        return ENOMEM;
    char *slash = strrchr(dir, '/');
    if (slash == NULL || slash == dir) {
        free(dir);
        return 0;
    }
    *slash = '\0';
    int err = 0;
    for (char *p = dir + 1; err == 0; p++) {
        if (*p == '/' || *p == '\0') {
            char saved = *p;
            *p = '\0';
            if (mkdir(dir, 0777) != 0 && errno != EEXIST)
                err = errno;
            *p = saved;
            if (saved == '\0')
                break;
        }
    }
    free(dir);
    return err;
}

/* ------------------------------------------------------------------------ */
/* The sweep                                                                */
/* ------------------------------------------------------------------------ */

/* m + n vectors of dimension k, one per row. */
static smm_status load_vectors(const sweep_config *cfg, dataset_matrix *X, char *msg, size_t msg_size)
{
    int64_t rows = cfg->m + cfg->n;
    smm_status s;
    msg[0] = '\0';
    switch (cfg->data) {
    case DATA_FASHION_MNIST:
        s = dataset_load_fashion_mnist(cfg->data_dir, "train", rows, X, msg, msg_size);
        if (s == SMM_OK && X->rows < rows) {
            snprintf(msg, msg_size, "Fashion-MNIST has only %lld training images, m + n = %lld",
                     (long long)X->rows, (long long)rows);
            dataset_matrix_free(X);
            s = SMM_ERR_BAD_ARGUMENT;
        }
        return s;
    case DATA_GAUSSIAN:
        return dataset_gaussian(rows, cfg->k, cfg->seed, X);
    case DATA_LOWRANK:
        return dataset_lowrank(rows, cfg->k, cfg->rank, cfg->noise, cfg->seed, X);
    case DATA_CLUSTERED:
        return dataset_clustered(rows, cfg->k, cfg->clusters, cfg->alignment, cfg->seed, X, NULL);
    }
    return SMM_ERR_BAD_ARGUMENT;
}

static void data_params(const sweep_config *cfg, char *buf, size_t size)
{
    switch (cfg->data) {
    case DATA_FASHION_MNIST:
        snprintf(buf, size, "train images 0..%lld of %s", (long long)(cfg->m + cfg->n - 1),
                 dataset_fashion_mnist_dir(cfg->data_dir));
        break;
    case DATA_GAUSSIAN:
        snprintf(buf, size, "iid N(0,1)");
        break;
    case DATA_LOWRANK:
        snprintf(buf, size, "rank=%lld noise=%g", (long long)cfg->rank, cfg->noise);
        break;
    case DATA_CLUSTERED:
        snprintf(buf, size, "clusters=%lld alignment=%g", (long long)cfg->clusters, cfg->alignment);
        break;
    }
}

static void join_bits(const sweep_config *cfg, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int b = 0; b < cfg->nbits && used < size; b++)
        used += (size_t)snprintf(buf + used, size - used, "%s%d", b ? "," : "", (int)cfg->bits[b]);
}

static void join_argv(int argc, char **argv, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < argc && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? " " : "", argv[i]);
}

/* a when it is an error, else b. */
static smm_status first_error(smm_status a, smm_status b)
{
    return a != SMM_OK ? a : b;
}

/* Write the run's attributes; returns the first failing status. */
static smm_status write_attributes(results_file *rf, const sweep_config *cfg, int threads,
                                   const char *isa, int argc, char **argv)
{
    char commit[128], cpu[256], load[128], created[64], params[1024], bits[512], cmd[4096];
    git_commit(commit, sizeof commit);
    cpu_model(cpu, sizeof cpu);
    load_average(load, sizeof load);
    char env[1024];
    runtime_env(env, sizeof env);
    iso_time_now(created, sizeof created);
    data_params(cfg, params, sizeof params);
    join_bits(cfg, bits, sizeof bits);
    join_argv(argc, argv, cmd, sizeof cmd);

    smm_status s = SMM_OK;
    s = first_error(s, results_set_attr_string(rf, "library_version", smm_version()));
    s = first_error(s, results_set_attr_string(rf, "git_commit", commit));
    s = first_error(s, results_set_attr_string(rf, "isa", isa));
    s = first_error(s, results_set_attr_string(rf, "exact_kernel", exact_sgemm_impl()));
    s = first_error(s, results_set_attr_string(rf, "hamming_kernel", sketch_hamming_impl()));
    s = first_error(s, results_set_attr_int64(rf, "threads", threads));
    s = first_error(s, results_set_attr_string(rf, "cpu_model", cpu));
    s = first_error(s, results_set_attr_int64(rf, "online_cpus", sysconf(_SC_NPROCESSORS_ONLN)));
    /* Other load on the machine skews timings, multithreaded ones most. */
    s = first_error(s, results_set_attr_string(rf, "load_average_at_start", load));
    s = first_error(s, results_set_attr_string(rf, "environment", env));
    s = first_error(s, results_set_attr_string(rf, "dataset", data_names[cfg->data]));
    s = first_error(s, results_set_attr_string(rf, "data_params", params));
    s = first_error(s, results_set_attr_uint64(rf, "seed", cfg->seed));
    s = first_error(s, results_set_attr_string(rf, "created", created));
    s = first_error(s, results_set_attr_string(rf, "method", SWEEP_METHOD_NAME));
    s = first_error(s, results_set_attr_int64(rf, "m", cfg->m));
    s = first_error(s, results_set_attr_int64(rf, "n", cfg->n));
    s = first_error(s, results_set_attr_int64(rf, "k", cfg->k));
    s = first_error(s, results_set_attr_string(rf, "bits", bits));
    s = first_error(s, results_set_attr_int64(rf, "reps", cfg->reps));
    s = first_error(s, results_set_attr_int64(rf, "warmup", cfg->warmup));
    s = first_error(s, results_set_attr_string(rf, "command_line", cmd));
    return s;
}

static smm_status time_exact(const sweep_config *cfg, const float *A, const float *B, float *Y,
                             double *seconds)
{
    double t0 = metrics_now();
    smm_status s = exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, cfg->m, cfg->n, cfg->k,
                               1.0f, A, cfg->k, B, cfg->n, 0.0f, Y, cfg->n);
    *seconds = metrics_now() - t0;
    return s;
}

static smm_status time_approx(const sweep_config *cfg, const approx_options *opts, const float *A,
                              const float *B, float *Yhat, double *seconds)
{
    double t0 = metrics_now();
    smm_status s = approx_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, cfg->m, cfg->n, cfg->k,
                                1.0f, A, cfg->k, B, cfg->n, 0.0f, Yhat, cfg->n, opts);
    *seconds = metrics_now() - t0;
    return s;
}

/* The reference product: cfg->warmup untimed runs, then cfg->reps timed ones. */
static smm_status run_exact(const sweep_config *cfg, const float *A, const float *B, float *Y,
                            double *times)
{
    double unused;
    for (int r = 0; r < cfg->warmup + cfg->reps; r++) {
        smm_status s = time_exact(cfg, A, B, Y, r < cfg->warmup ? &unused : &times[r - cfg->warmup]);
        if (s != SMM_OK)
            return s;
    }
    return SMM_OK;
}

/*
 * One configuration: cfg->warmup untimed approximate runs, then cfg->reps
 * rounds of one exact and one approximate run, so the two medians come from
 * runs made under the same machine conditions. Y is rewritten with the same
 * values (exact_sgemm is deterministic for a fixed thread count and path).
 * *failed_exact tells which product returned the error status.
 */
static smm_status run_config(const sweep_config *cfg, const approx_options *opts, const float *A,
                             const float *B, float *Y, float *Yhat, double *exact_times,
                             double *approx_times, int *failed_exact)
{
    double unused;
    *failed_exact = 0;
    for (int r = 0; r < cfg->warmup; r++) {
        smm_status s = time_approx(cfg, opts, A, B, Yhat, &unused);
        if (s != SMM_OK)
            return s;
    }
    for (int r = 0; r < cfg->reps; r++) {
        smm_status s = time_exact(cfg, A, B, Y, &exact_times[r]);
        if (s != SMM_OK) {
            *failed_exact = 1;
            return s;
        }
        s = time_approx(cfg, opts, A, B, Yhat, &approx_times[r]);
        if (s != SMM_OK)
            return s;
    }
    return SMM_OK;
}

static void print_table(FILE *f, const sweep_config *cfg, const results_row *rows, int nrows,
                        const char *isa, int threads, double exact_s, double alignment)
{
    fprintf(f, "\n%s  m=%lld n=%lld k=%lld  threads=%d  isa=%s  seed=%llu  reps=%d\n",
            data_names[cfg->data], (long long)cfg->m, (long long)cfg->n, (long long)cfg->k,
            threads, isa, (unsigned long long)cfg->seed, cfg->reps);
    fprintf(f, "exact_sgemm (%s): %.6f s alone   alignment ||AB||_F/(||A||_F ||B||_F) = %.4f\n\n",
            exact_sgemm_impl(), exact_s, alignment);
    fprintf(f, "%8s %6s %10s %10s %9s %11s %11s %11s\n",
            "method", "bits", "exact_s", "approx_s", "speedup", "nmse", "rel_fro", "max_abs");
    for (int i = 0; i < nrows; i++) {
        const results_row *r = &rows[i];
        if (r->status != SMM_OK) {
            fprintf(f, "%8s %6d  failed: %s\n", r->method, (int)r->bits,
                    smm_status_str((smm_status)r->status));
            continue;
        }
        fprintf(f, "%8s %6d %10.6f %10.6f %9.3g %11.4e %11.4e %11.4e\n", r->method, (int)r->bits,
                r->exact_seconds, r->approx_seconds, r->speedup, r->nmse, r->rel_fro_error,
                r->max_abs_error);
    }
}

/* Allocate count floats, count = a * b; NULL on overflow or failure. */
static float *alloc_floats(int64_t a, int64_t b)
{
    if (a <= 0 || b <= 0 || a > INT64_MAX / b || (uint64_t)(a * b) > SIZE_MAX / sizeof(float))
        return NULL;
    return malloc((size_t)(a * b) * sizeof(float));
}

int main(int argc, char **argv)
{
    sweep_config cfg;
    int rc = parse_args(argc, argv, &cfg);
    if (rc >= 0)
        return rc;
    const char *prog = argv[0];

    /* Threads and ISA path, fixed for the whole sweep. */
    smm_status s = smm_set_num_threads(cfg.threads);
    if (s != SMM_OK) {
        fprintf(stderr, "%s: cannot set %d threads: %s\n", prog, cfg.threads, smm_status_str(s));
        return EXIT_RUN_FAILED;
    }
    int threads = smm_get_num_threads();
    smm_isa isa_id;
    s = smm_get_isa(&isa_id);
    if (s != SMM_OK) {
        fprintf(stderr, "%s: ISA selection failed: %s\n", prog, smm_status_str(s));
        return EXIT_RUN_FAILED;
    }
    const char *isa = smm_isa_name(isa_id);

    /* Data: A = first m vectors (rows), B = next n vectors as columns. */
    char msg[1024];
    dataset_matrix X;
    fprintf(stderr, "loading %s (%lld x %lld) ...\n", data_names[cfg.data],
            (long long)(cfg.m + cfg.n), (long long)cfg.k);
    s = load_vectors(&cfg, &X, msg, sizeof msg);
    if (s != SMM_OK) {
        fprintf(stderr, "%s: cannot load %s: %s%s%s\n", prog, data_names[cfg.data],
                smm_status_str(s), msg[0] ? ": " : "", msg);
        return EXIT_RUN_FAILED;
    }
    const float *A = X.data;
    float *B = alloc_floats(cfg.k, cfg.n);
    float *Y = alloc_floats(cfg.m, cfg.n);
    float *Yhat = alloc_floats(cfg.m, cfg.n);
    double *times = malloc((size_t)cfg.reps * sizeof *times);
    double *approx_times = malloc((size_t)cfg.reps * sizeof *approx_times);
    results_row *rows = calloc((size_t)cfg.nbits, sizeof *rows);
    results_file *rf = NULL;
    int exit_code = EXIT_SUCCESS;
    if (B == NULL || Y == NULL || Yhat == NULL || times == NULL || approx_times == NULL || rows == NULL) {
        fprintf(stderr, "%s: %s for %lld x %lld results\n", prog, smm_status_str(SMM_ERR_NO_MEMORY),
                (long long)cfg.m, (long long)cfg.n);
        exit_code = EXIT_RUN_FAILED;
        goto done;
    }
    for (int64_t t = 0; t < cfg.k; t++)
        for (int64_t j = 0; j < cfg.n; j++)
            B[t * cfg.n + j] = X.data[(cfg.m + j) * cfg.k + t];

    /* The results file, with the description of the run. */
    int err = make_parent_dirs(cfg.out);
    if (err != 0) {
        fprintf(stderr, "%s: cannot create the directory of %s: %s\n", prog, cfg.out, strerror(err));
        exit_code = EXIT_RUN_FAILED;
        goto done;
    }
    s = results_create(cfg.out, &rf, msg, sizeof msg);
    if (s == SMM_OK)
        s = write_attributes(rf, &cfg, threads, isa, argc, argv);
    if (s != SMM_OK) {
        fprintf(stderr, "%s: %s: %s\n", prog, smm_status_str(s), rf == NULL ? msg : cfg.out);
        exit_code = EXIT_RUN_FAILED;
        goto done;
    }

    /* The exact product: reference values and baseline time. */
    int total = cfg.nbits + 1;
    fprintf(stderr, "[0/%d] exact_sgemm m=%lld n=%lld k=%lld threads=%d (%s) ...\n", total - 1,
            (long long)cfg.m, (long long)cfg.n, (long long)cfg.k, threads, exact_sgemm_impl());
    s = run_exact(&cfg, A, B, Y, times);
    if (s != SMM_OK) {
        fprintf(stderr, "%s: exact_sgemm failed: %s\n", prog, smm_status_str(s));
        exit_code = EXIT_RUN_FAILED;
        goto done;
    }
    double exact_s = metrics_median(times, cfg.reps);
    double alignment = metrics_fro_norm(Y, cfg.m * cfg.n) /
                       (metrics_fro_norm(A, cfg.m * cfg.k) * metrics_fro_norm(B, cfg.k * cfg.n));
    fprintf(stderr, "[0/%d] exact_sgemm %.6f s, alignment %.4f\n", total - 1, exact_s, alignment);

    /* One approximate configuration per sketch length. */
    for (int b = 0; b < cfg.nbits; b++) {
        results_row *row = &rows[b];
        results_set_string(row->method, sizeof row->method, SWEEP_METHOD_NAME);
        results_set_string(row->dataset, sizeof row->dataset, data_names[cfg.data]);
        results_set_string(row->isa, sizeof row->isa, isa);
        row->m = cfg.m;
        row->n = cfg.n;
        row->k = cfg.k;
        row->bits = cfg.bits[b];
        row->seed = cfg.seed;
        row->threads = threads;
        row->alignment = alignment;

        approx_options opts;
        approx_options_init(&opts);
        opts.method = APPROX_SIMHASH;
        opts.bits = cfg.bits[b];
        opts.seed = cfg.seed;
        opts.num_threads = threads;
        fprintf(stderr, "[%d/%d] bits=%d ...", b + 1, total - 1, (int)cfg.bits[b]);
        int failed_exact;
        s = run_config(&cfg, &opts, A, B, Y, Yhat, times, approx_times, &failed_exact);
        row->status = (int32_t)s;
        if (s == SMM_OK) {
            metrics_errors e;
            metrics_compare(Y, Yhat, cfg.m * cfg.n, &e);
            row->exact_seconds = metrics_median(times, cfg.reps);
            row->approx_seconds = metrics_median(approx_times, cfg.reps);
            row->speedup = row->exact_seconds / row->approx_seconds;
            row->nmse = e.nmse;
            row->rel_fro_error = e.rel_fro_error;
            row->max_abs_error = e.max_abs_error;
            fprintf(stderr, " exact %.6f s, approx %.6f s, speedup %.3g, nmse %.4e\n",
                    row->exact_seconds, row->approx_seconds, row->speedup, row->nmse);
        } else {
            row->exact_seconds = row->approx_seconds = row->speedup = row->nmse = NAN;
            row->rel_fro_error = row->max_abs_error = NAN;
            fprintf(stderr, " %s failed: %s\n", failed_exact ? "exact_sgemm" : "approx_sgemm",
                    smm_status_str(s));
            exit_code = EXIT_RUN_FAILED;
        }
        smm_status ws = results_append(rf, row);
        if (ws != SMM_OK) {
            fprintf(stderr, "%s: cannot append to %s: %s\n", prog, cfg.out, smm_status_str(ws));
            exit_code = EXIT_RUN_FAILED;
            goto done;
        }
    }

    print_table(stdout, &cfg, rows, cfg.nbits, isa, threads, exact_s, alignment);
    printf("\nresults: %s (%lld rows)\n", cfg.out, (long long)results_rows(rf));

done:
    if (rf != NULL && results_close(rf) != SMM_OK) {
        fprintf(stderr, "%s: closing %s failed\n", prog, cfg.out);
        exit_code = EXIT_RUN_FAILED;
    }
    free(rows);
    free(approx_times);
    free(times);
    free(Yhat);
    free(Y);
    free(B);
    dataset_matrix_free(&X);
    return exit_code;
}
