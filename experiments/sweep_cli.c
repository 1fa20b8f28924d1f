/*
 * sweep_cli.c - the command line of sketchmm_sweep: --help, parsing, checks
 * and defaults. See sweep.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "sweep.h"

#define SWEEP_DEFAULT_OUT "results/sweep.h5"

/* Fashion-MNIST: 60000 training and 10000 test images. */
#define SWEEP_FMNIST_TRAIN 60000
#define SWEEP_FMNIST_TEST 10000

const char *const sweep_data_names[SWEEP_NUM_DATA] = { "fashion-mnist", "gaussian", "lowrank", "clustered",
                                                       "h5",            "ann" };

/*
 * Why the last list value was refused, when it was its length (split_list):
 * added to the error message of the flag or spec key. Parsing runs on one
 * thread.
 */
static char list_error[128];

/* Defaults; the help text repeats them. */
static const int32_t default_bits[] = { 32, 64, 128, 256, 512 };
static const int32_t default_sketch_dims[] = { 8, 16, 32, 64, 128, 256 };
static const int32_t default_topk_bits[] = { 256, 512 };
static const int32_t default_topk_sketch_dims[] = { 64, 128 };
static const int32_t default_topk_crosspolytope[] = { 128, 256 };
static const int32_t default_lowrank[] = { 2, 4, 8, 16, 32 };
static const int32_t default_topk_lowrank[] = { 16, 32 };
static const int32_t default_pq[] = { 49, 98, 196 };
static const int32_t default_topk_pq[] = { 98, 196 };
static const int32_t default_maddness[] = { 16, 32, 64 };
static const int32_t default_topk_maddness[] = { 32, 64 };
static const int32_t default_candidates[] = { 20, 100, 500 };

static void print_help(FILE *f, const char *prog)
{
    fprintf(f,
        "Usage: %s [options]\n"
        "       %s merge [--overwrite] [--salvage] OUT.h5 IN.h5 [IN.h5 ...]\n"
        "       %s check [--list] FILE.h5 [FILE.h5 ...]\n"
        "\n"
        "Measures accuracy against speed of every approximate method of sketchmm\n"
        "(approx.h) and records one row per configuration in an HDF5 table.\n"
        "Without options it runs the project's default sweep (scripts/run_sweep.sh,\n"
        "experiments/specs/default.json): both modes on Fashion-MNIST, every\n"
        "method, 121 configurations, about 14 minutes on 2 cores.\n"
        "\n"
        "The grid: every combination of mode x dataset x shape x seed x thread\n"
        "count x method x size (x candidates in top-k mode) is one configuration,\n"
        "numbered in that order (--dry-run lists them). Flags and a spec file\n"
        "(--spec) describe it; flags override the spec.\n"
        "\n"
        "Dense mode: C = A * B, A m x k (m vectors of the data set as rows), B k x n\n"
        "(the next n vectors as columns), both row-major. exact_sgemm gives the\n"
        "reference Y; each (method, size) is approx_plan_create on B (timed as\n"
        "encode_b_seconds) then approx_plan_multiply with A (rest_seconds: sketching\n"
        "A and the estimates), the work of one approx_sgemm call, compared with Y.\n"
        "Top-k mode: for each of M query vectors, the K database vectors (out of N)\n"
        "with the largest inner products: op(A) = queries (M x k), op(B) = the\n"
        "database transposed (the N x k database matrix with transb = SMM_TRANS).\n"
        "exact_topk gives the reference; each (method, size, candidates) is\n"
        "approx_plan_create on the database (encode_b_seconds) then approx_plan_topk\n"
        "(rest_seconds: sketching the queries, estimates, selection of the\n"
        "candidates and their exact refinement), the work of one approx_topk call.\n"
        "Within rest_seconds, the call's phase times split encode_a_seconds,\n"
        "estimate_seconds (top-k: choosing the candidates) and refine_seconds.\n"
        "\n"
        "Timing: per group of configurations, --warmup untimed approximate runs,\n"
        "then rounds each of which times the exact call once and every\n"
        "configuration of the group once; a row records the median of each side,\n"
        "so its speedup compares runs made under the same machine conditions.\n"
        "A dense group is one (method, size), with --reps rounds; a top-k group is\n"
        "one method with all its sizes and candidate counts, with --topk-reps\n"
        "rounds (exact_topk costs seconds). Exact and approximate calls use the\n"
        "same thread count. A configuration whose call fails records its status\n"
        "and the sweep goes on.\n"
        "\n"
        "Spec and run\n"
        "  --spec FILE.json  read the grid from a spec file (format below); flags\n"
        "                    given too override its keys\n"
        "  --dry-run         print the configurations (of the shard) one per line,\n"
        "                    their number and the effective spec; run nothing\n"
        "  --shard I/N       run shard I of N (0 <= I < N): the contiguous block of\n"
        "                    configurations floor(I T / N) .. floor((I+1) T / N) - 1\n"
        "                    of the T of the grid (blocks, not round-robin, keep a\n"
        "                    context's data and timing groups together). Combine the\n"
        "                    shard files with `%s merge`. On a cluster, one shard\n"
        "                    per SLURM array task: --shard\n"
        "                    $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT\n"
        "  --out FILE.h5     results file (default %s); its directory is\n"
        "                    created if needed. If it exists and holds the same spec,\n"
        "                    the sweep resumes: configurations already in it (by\n"
        "                    config_hash) are skipped and new rows appended. A file\n"
        "                    of another spec is refused (exit status 2)\n"
        "  --overwrite       replace an existing --out file instead of resuming\n"
        "\n"
        "Modes and methods\n"
        "  --mode MODE       dense | topk | both (default both: dense, then top-k)\n"
        "  --methods LIST    comma-separated sketch_method_name()s (default all):\n"
        "                    simhash, simhash_orthogonal,\n"
        "                    simhash_structured, crosspolytope (sized in bits),\n"
        "                    gaussian_projection, srht, countsketch, cr_sampling,\n"
        "                    lowrank (sized by the sketch dimension s), pq (sized by\n"
        "                    its subspaces M), maddness (sized by its codebooks C;\n"
        "                    opt-in, not in the default sweep)\n"
        "  --bits LIST       sketch lengths of the four sketch families, each\n"
        "                    1..%d, for both modes (dense default 32,64,128,256,512;\n"
        "                    top-k default 256,512)\n"
        "  --sketch-dims LIST  sketch dimensions s of the four classical methods,\n"
        "                    each 1..%d, for both modes (dense default\n"
        "                    8,16,32,64,128,256; top-k default 64,128)\n"
        "  --topk-bits LIST, --topk-sketch-dims LIST\n"
        "                    the same for top-k mode only (override --bits and\n"
        "                    --sketch-dims there)\n"
        "  --sizes METHOD=LIST  the sizes of one method in both modes (bits or s by\n"
        "                    the method), overriding the lists above; repeatable\n"
        "  --topk-sizes METHOD=LIST  the same for top-k mode only. Default:\n"
        "                    crosspolytope=128,256 unless --bits, --topk-bits or\n"
        "                    --sizes is given (cross-polytope encoding is the\n"
        "                    slowest: at 512 bits, encoding the 70000 vectors of\n"
        "                    the default top-k costs about as much as exact_topk);\n"
        "                    lowrank=2,4,8,16,32, pq=49,98,196 and\n"
        "                    maddness=16,32,64 (dense), lowrank=16,32, pq=98,196\n"
        "                    and maddness=32,64 (top-k) unless\n"
        "                    --sketch-dims, --topk-sketch-dims or --sizes is given\n"
        "                    (the rank a data-aware basis needs is far below the\n"
        "                    random projections' s)\n"
        "\n"
        "Data\n"
        "  --datasets LIST   (or --dataset) fashion-mnist, gaussian, lowrank,\n"
        "                    clustered, FILE.h5:/PATH, ann:FILE.h5 (default\n"
        "                    fashion-mnist, pixels in [0, 1], k = 784. Dense: A =\n"
        "                    training images 0..m-1, B = the next n training\n"
        "                    images, a Gram product of different images, highly\n"
        "                    aligned. Top-k: queries = the first M test images\n"
        "                    (t10k), database = the first N training images.\n"
        "                    Synthetic data: m + n (M + N) generated vectors from\n"
        "                    the configuration's seed, split the same way)\n"
        "                    FILE.h5:/PATH: any 2-D numeric dataset of an HDF5\n"
        "                    file, one vector per row, k = its columns; dense: A =\n"
        "                    rows 0..m-1, B = the next n rows; top-k: queries =\n"
        "                    rows 0..M-1, database = the next N rows.\n"
        "                    ann:FILE.h5: an ann-benchmarks file (/train, /test,\n"
        "                    e.g. from sketchmm_make_ann), k = its dimension;\n"
        "                    dense: A and B from /train as for fashion-mnist;\n"
        "                    top-k: queries = the first M rows of /test, database\n"
        "                    = the first N rows of /train. At most one file data\n"
        "                    set per sweep\n"
        "  --k K             dimension, synthetic data only (default 784;\n"
        "                    Fashion-MNIST always has k = 784, file data sets\n"
        "                    the k of the file)\n"
        "  --data-dir DIR    Fashion-MNIST directory holding train-images-idx3-ubyte.gz\n"
        "                    and t10k-images-idx3-ubyte.gz (default\n"
        "                    $%s, else\n"
        "                    %s)\n"
        "  --alignment A     clustered: expected cosine between two vectors of the\n"
        "                    same cluster, in [0, 1] (default 0.9)\n"
        "  --clusters C      clustered: number of clusters (default 10); vector i is\n"
        "                    in cluster i mod C\n"
        "  --rank R          lowrank: rank of the noise-free part (default 16)\n"
        "  --noise S         lowrank: standard deviation of the added Gaussian noise,\n"
        "                    relative to unit-variance low-rank entries (default 0.1)\n"
        "\n"
        "Dense mode\n"
        "  --shapes LIST     shapes MxN: A m x k times B k x n (default 4096x4096)\n"
        "  --m M, --n N      set m (n) of every dense shape\n"
        "  --reps R          rounds per (method, size), >= 1 (default 5)\n"
        "\n"
        "Top-k mode\n"
        "  --topk-shapes LIST  shapes QUERIESxDATABASE (default 10000x60000; at\n"
        "                    most 10000 test and 60000 training images for\n"
        "                    fashion-mnist)\n"
        "  --queries M, --database N  set the queries (database size) of every\n"
        "                    top-k shape\n"
        "  --topk K          entries kept per query, 1..N (default 10); recall is\n"
        "                    reported at K and at each of 1, 10, 100 up to K\n"
        "  --candidates LIST candidates per query that approx_plan_topk refines\n"
        "                    exactly (default 20,100,500); values below K or above\n"
        "                    the largest N are dropped, values above a shape's N\n"
        "                    skipped for that shape; N itself makes the result exact\n"
        "  --topk-reps R     rounds per method, >= 1 (default 3)\n"
        "\n"
        "Both modes\n"
        "  --warmup W        untimed approximate runs before each group's rounds,\n"
        "                    and untimed exact runs before the reference run, >= 0\n"
        "                    (default 1)\n"
        "  --threads LIST    thread counts, each 0..%d; 0 (the default) is the\n"
        "                    library default, i.e. SKETCHMM_NUM_THREADS or OpenMP's\n"
        "                    maximum\n"
        "  --seeds LIST      (or --seed) seeds of the methods and of the synthetic\n"
        "                    data (default 42; decimal or 0x-prefixed hex)\n"
        "  -h, --help        this text\n"
        "\n",
        prog, prog, prog, prog, SWEEP_DEFAULT_OUT, SKETCH_MAX_BITS, APPROX_MAX_SKETCH_DIM,
        DATASET_FASHION_MNIST_ENV, DATASET_FASHION_MNIST_DEFAULT_DIR, SMM_MAX_THREADS);
    sweep_spec_help(f);
    fprintf(f,
        "\n"
        "Results: table /results gets one row per configuration, appended and\n"
        "flushed as soon as its group is measured, so an interrupted (even killed)\n"
        "sweep leaves every finished row; run the same command again to resume.\n"
        "Fields: config_hash (XXH3-64 of the configuration's canonical string),\n"
        "config_index, mode (dense, topk), method, dataset, m, n, k, bits (sketch\n"
        "families, else 0), sketch_dim (classical methods, else 0),\n"
        "bytes_per_vector, topk, candidates (0 in dense rows), seed, threads, isa,\n"
        "status, exact_seconds, approx_seconds, encode_b_seconds, rest_seconds,\n"
        "encode_a_seconds, estimate_seconds, refine_seconds,\n"
        "speedup; dense: nmse, rel_fro_error, max_abs_error; top-k: recall,\n"
        "recall_index, max_value_error, recall_at_1, recall_at_10, recall_at_100\n"
        "(fields a mode does not measure are NaN); alignment. Root attributes\n"
        "describe the run: spec (canonical JSON), spec_hash, grid_size, shard,\n"
        "library_version, git_commit, isa, exact_kernel, hamming_kernel, threads,\n"
        "cpu_model, online_cpus, load_average_at_start, environment (SKETCHMM_*\n"
        "and OMP_* variables), dataset, data_params, seed, start_time, end_time\n"
        "(\"unfinished\" while running), modes, methods, size lists, command_line.\n"
        "\n"
        "Merge: `%s merge OUT.h5 IN.h5...` writes the rows of every IN file\n"
        "(shards of one spec) into a new OUT, ordered by config_index; it refuses\n"
        "files of different specs and configurations present twice (exit status\n"
        "2), and an existing OUT unless --overwrite.\n"
        "Integrity: every row is checked when a file is resumed or merged: its\n"
        "chunk's Fletcher32 checksum, its config_hash recomputed from the row's own\n"
        "configuration and the spec, config_index within the grid, no\n"
        "configuration twice. A damaged file is refused (exit status 2) with the\n"
        "rows named; `%s merge --salvage GOOD.h5 DAMAGED.h5` copies the rows\n"
        "that pass (and the attributes) into GOOD.h5, and resuming GOOD.h5 with the\n"
        "sweep's command runs the configurations of the dropped rows again.\n"
        "`%s check FILE.h5` runs these checks alone (exit status 0 sound, 1 bad\n"
        "rows, 2 not a results file); the Python loader load_results runs it.\n"
        "\n"
        "Dense errors: nmse = mean((Y - Yhat)^2) / var(Y), rel_fro_error =\n"
        "||Y - Yhat||_F / ||Y||_F, max_abs_error = max |Y - Yhat|.\n"
        "Top-k: with E_i the exact top-K of query i (exact_topk) and P_i the\n"
        "approximate one, recall = mean over i of |{j in P_i : <a_i, b_j> >=\n"
        "min over E_i of <a_i, b_j'>}| / K, dot products computed in double and\n"
        "compared rounded to float: a value-based recall@K that counts a column\n"
        "tied with the exact K-th as a hit (Fashion-MNIST has ties); recall_at_t\n"
        "the same for the first t entries of P_i and E_i;\n"
        "recall_index = mean |P_i and E_i in common| / K, by index only;\n"
        "max_value_error = max |returned value - <a_i, b_j>| over all returned\n"
        "entries (the values are exact, so this is float rounding).\n"
        "alignment = ||A B||_F / (||A||_F ||B||_F); speedup = exact_seconds /\n"
        "approx_seconds; bytes_per_vector = ceil(bits / 64) * 8 + 4 (code and\n"
        "norm) or 4 s.\n"
        "Progress on stderr: configurations done / total, elapsed, ETA (redrawn in\n"
        "place on a terminal). Test hook: SKETCHMM_SWEEP_TEST_STOP_AFTER=N makes\n"
        "the driver kill itself (SIGKILL) after appending N rows.\n"
        "Timings need an otherwise idle machine: with fewer free cores than threads,\n"
        "OpenMP's spinning barriers can slow a product down many times\n"
        "(OMP_WAIT_POLICY=passive limits the damage; the file records OMP_* and\n"
        "the load average).\n"
        "Options may be written --name VALUE or --name=VALUE. A LIST is comma-separated\n"
        "and holds at most %d items (--datasets %d, --methods %d, shapes %d).\n"
        "Exit status: 0 success, 1 a run or configuration failed, 2 bad command\n"
        "line, bad spec, or a results file of another spec or a damaged one.\n",
        prog, prog, prog, SWEEP_MAX_LIST, SWEEP_NUM_DATA, SWEEP_NUM_METHODS, SWEEP_MAX_SHAPES);
}

/* Print "prog: <message>" and a hint on stderr; returns SWEEP_EXIT_USAGE. */
#define usage_error(prog, ...) cli_usage_error(SWEEP_EXIT_USAGE, (prog), __VA_ARGS__)

/*
 * Split a comma-separated list (cli_split_list): the number of items, 0 on
 * any error (more than max_items items: list_error says so).
 */
static int split_list(const char *text, int max_items, cli_list_item_fn item, void *ctx)
{
    return cli_split_list(text, max_items, item, ctx, list_error, sizeof list_error);
}

typedef struct {
    sweep_list *list;
    int64_t lo, hi;
} list_ctx;

/* A value given twice would run its configurations twice: refused, list_error says which. */
static int repeated(const char *text, int twice)
{
    if (twice)
        snprintf(list_error, sizeof list_error, "%.60s appears twice", text);
    return twice;
}

static int list_item(const char *text, int index, void *ctx)
{
    (void)index;
    list_ctx *c = ctx;
    int64_t v;
    if (!cli_parse_i64(text, c->lo, c->hi, &v))
        return 0;
    for (int i = 0; i < c->list->count; i++)
        if (repeated(text, c->list->v[i] == v))
            return 0;
    c->list->v[c->list->count++] = (int32_t)v;
    return 1;
}

static int parse_list_from(const char *text, int64_t lo, int64_t hi, sweep_list *list)
{
    list_ctx c = { list, lo, hi };
    list->count = 0;
    return split_list(text, SWEEP_MAX_LIST, list_item, &c) > 0;
}

static int parse_list(const char *text, int64_t hi, sweep_list *list)
{
    return parse_list_from(text, 1, hi, list);
}

static int seed_item(const char *text, int index, void *ctx)
{
    (void)index;
    sweep_config *cfg = ctx;
    uint64_t v;
    if (!cli_parse_u64(text, &v))
        return 0;
    for (int i = 0; i < cfg->nseeds; i++)
        if (repeated(text, cfg->seeds[i] == v))
            return 0;
    cfg->seeds[cfg->nseeds++] = v;
    return 1;
}

static int parse_seeds(const char *text, sweep_config *cfg)
{
    cfg->nseeds = 0;
    return split_list(text, SWEEP_MAX_LIST, seed_item, cfg) > 0;
}

/* A file data set: "ann:FILE" or "FILE:/PATH"; one per sweep. */
static int file_dataset_item(const char *text, sweep_config *cfg)
{
    sweep_data_kind d = strncmp(text, "ann:", 4) == 0 ? SWEEP_DATA_ANN : SWEEP_DATA_H5;
    const char *file = d == SWEEP_DATA_ANN ? text + 4 : text;
    if (file[0] == '\0' || strlen(file) >= sizeof cfg->data_file_store)
        return 0;
    if (d == SWEEP_DATA_H5) {
        const char *colon = strstr(file, ":/");
        if (colon == file || colon[2] == '\0') /* no FILE, or no dataset name after ":/" */
            return 0;
    }
    for (int i = 0; i < cfg->ndatasets; i++)
        if (cfg->datasets[i] == SWEEP_DATA_H5 || cfg->datasets[i] == SWEEP_DATA_ANN)
            return 0; /* one file data set per sweep */
    strcpy(cfg->data_file_store, file);
    cfg->data_file = cfg->data_file_store;
    cfg->datasets[cfg->ndatasets++] = d;
    return 1;
}

static int dataset_item(const char *text, int index, void *ctx)
{
    (void)index;
    sweep_config *cfg = ctx;
    if (strncmp(text, "ann:", 4) == 0 || strstr(text, ":/") != NULL)
        return file_dataset_item(text, cfg);
    for (int d = 0; d < SWEEP_NUM_DATA; d++) {
        if (d == SWEEP_DATA_H5 || d == SWEEP_DATA_ANN || strcmp(text, sweep_data_names[d]) != 0)
            continue;
        for (int i = 0; i < cfg->ndatasets; i++)
            if (repeated(text, cfg->datasets[i] == (sweep_data_kind)d))
                return 0;
        cfg->datasets[cfg->ndatasets++] = (sweep_data_kind)d;
        return 1;
    }
    return 0;
}

static int parse_datasets(const char *text, sweep_config *cfg)
{
    cfg->ndatasets = 0;
    cfg->data_file = NULL;
    return split_list(text, SWEEP_NUM_DATA, dataset_item, cfg) > 0;
}

typedef struct {
    sweep_shape *shapes;
    int *count;
} shapes_ctx;

/* "ROWSxCOLS", both 1..INT32_MAX. */
static int shape_item(const char *text, int index, void *ctx)
{
    (void)index;
    shapes_ctx *c = ctx;
    char rows[32];
    const char *x = strchr(text, 'x');
    if (x == NULL || (size_t)(x - text) >= sizeof rows)
        return 0;
    memcpy(rows, text, (size_t)(x - text));
    rows[x - text] = '\0';
    sweep_shape sh;
    if (!cli_parse_i64(rows, 1, INT32_MAX, &sh.rows) || !cli_parse_i64(x + 1, 1, INT32_MAX, &sh.cols))
        return 0;
    for (int i = 0; i < *c->count; i++)
        if (repeated(text, c->shapes[i].rows == sh.rows && c->shapes[i].cols == sh.cols))
            return 0;
    c->shapes[(*c->count)++] = sh;
    return 1;
}

static int parse_shapes(const char *text, sweep_shape *shapes, int *count)
{
    shapes_ctx c = { shapes, count };
    *count = 0;
    return split_list(text, SWEEP_MAX_SHAPES, shape_item, &c) > 0;
}

/* Set the rows (cols 0) or the columns (cols 1) of every shape. */
static int set_shape_dim(const char *text, sweep_shape *shapes, int count, int cols)
{
    int64_t v;
    if (!cli_parse_i64(text, 1, INT32_MAX, &v))
        return 0;
    for (int i = 0; i < count; i++) {
        if (cols)
            shapes[i].cols = v;
        else
            shapes[i].rows = v;
    }
    return 1;
}

/* The method called name[0 .. len) (sketch_method_from_name), or 0; the sweep knows methods up to SWEEP_LAST_METHOD. */
static sketch_method method_by_name(const char *name, size_t len)
{
    char buf[64];
    if (len >= sizeof buf)
        return (sketch_method)0;
    memcpy(buf, name, len);
    buf[len] = '\0';
    const sketch_method m = sketch_method_from_name(buf);
    return (int)m <= SWEEP_LAST_METHOD ? m : (sketch_method)0;
}

static int method_item(const char *text, int index, void *ctx)
{
    (void)index;
    sweep_config *cfg = ctx;
    sketch_method m = method_by_name(text, strlen(text));
    if (m == 0)
        return 0;
    for (int i = 0; i < cfg->nmethods; i++)
        if (repeated(text, cfg->methods[i] == m))
            return 0;
    cfg->methods[cfg->nmethods++] = m;
    return 1;
}

static int parse_methods(const char *text, sweep_config *cfg)
{
    cfg->nmethods = 0;
    return split_list(text, SWEEP_NUM_METHODS, method_item, cfg) > 0;
}

/*
 * METHOD=LIST: the sizes of one method (bits or sketch dimensions by the
 * method), into lists[method - SKETCH_SIMHASH], marked in *override.
 */
static int parse_method_sizes(const char *text, sweep_list *lists, unsigned *override)
{
    const char *eq = strchr(text, '=');
    if (eq == NULL)
        return 0;
    sketch_method m = method_by_name(text, (size_t)(eq - text));
    if (m == 0)
        return 0;
    int i = (int)(m - SKETCH_SIMHASH);
    int64_t hi = sketch_method_uses_bits(m) ? SKETCH_MAX_BITS : APPROX_MAX_SKETCH_DIM;
    if (!parse_list(eq + 1, hi, &lists[i]))
        return 0;
    *override |= 1u << i;
    return 1;
}

static void set_list(sweep_list *list, const int32_t *values, int count)
{
    list->count = count;
    memcpy(list->v, values, (size_t)count * sizeof *values);
}

void sweep_list_format(const sweep_list *list, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < list->count && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%d", i ? "," : "", (int)list->v[i]);
}

#define SET_DEFAULT_LIST(list, values) set_list(list, values, (int)(sizeof values / sizeof values[0]))

static void set_defaults(sweep_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->modes = SWEEP_MODE_DENSE | SWEEP_MODE_TOPK;
    cfg->datasets[0] = SWEEP_DATA_FASHION_MNIST;
    cfg->ndatasets = 1;
    cfg->nmethods = SWEEP_DEFAULT_LAST_METHOD - SKETCH_SIMHASH + 1;
    for (int i = 0; i < cfg->nmethods; i++)
        cfg->methods[i] = (sketch_method)(SKETCH_SIMHASH + i);
    cfg->seeds[0] = 42;
    cfg->nseeds = 1;
    cfg->threads.v[0] = 0;
    cfg->threads.count = 1;
    cfg->shapes[0] = (sweep_shape){ 4096, 4096 };
    cfg->nshapes = 1;
    cfg->topk_shapes[0] = (sweep_shape){ SWEEP_FMNIST_TEST, SWEEP_FMNIST_TRAIN };
    cfg->ntopk_shapes = 1;
    cfg->topk = 10;
    SET_DEFAULT_LIST(&cfg->candidates, default_candidates);
    SET_DEFAULT_LIST(&cfg->bits, default_bits);
    SET_DEFAULT_LIST(&cfg->sketch_dims, default_sketch_dims);
    SET_DEFAULT_LIST(&cfg->topk_bits, default_topk_bits);
    SET_DEFAULT_LIST(&cfg->topk_sketch_dims, default_topk_sketch_dims);
    cfg->k = DATASET_FASHION_MNIST_DIM;
    cfg->alignment = 0.9;
    cfg->clusters = 10;
    cfg->rank = 16;
    cfg->noise = 0.1;
    cfg->warmup = 1;
    cfg->reps = 5;
    cfg->topk_reps = 3;
    cfg->out = SWEEP_DEFAULT_OUT;
    cfg->shard_index = 0;
    cfg->shard_count = 1;
}

/* Flags seen (on the command line or as spec keys), for the checks that need them. */
typedef struct {
    unsigned seen;           /* SEEN_* */
    unsigned cli_seen;       /* SEEN_DENSE_ONLY / SEEN_TOPK_ONLY given on the command line */
    int from_spec;           /* the option being parsed comes from the spec file */
    unsigned dense_override; /* bit i: --sizes gave method SKETCH_SIMHASH + i its sizes */
    unsigned topk_override;  /* bit i: --topk-sizes did */
    sweep_config *cfg;
} parse_state;

enum {
    SEEN_K = 1 << 0, SEEN_ALIGNMENT = 1 << 1, SEEN_CLUSTERS = 1 << 2, SEEN_RANK = 1 << 3,
    SEEN_NOISE = 1 << 4, SEEN_DATA_DIR = 1 << 5, SEEN_BITS = 1 << 6, SEEN_SKETCH_DIMS = 1 << 7,
    SEEN_TOPK_BITS = 1 << 8, SEEN_TOPK_SKETCH_DIMS = 1 << 9, SEEN_SIZES = 1 << 12,
    /* flags of one mode */
    SEEN_DENSE_ONLY = 1 << 10, SEEN_TOPK_ONLY = 1 << 11
};

/* "I/N" with 0 <= I < N. */
static int parse_shard(const char *text, sweep_config *cfg)
{
    char buf[64];
    const char *slash = strchr(text, '/');
    if (slash == NULL || (size_t)(slash - text) >= sizeof buf)
        return 0;
    memcpy(buf, text, (size_t)(slash - text));
    buf[slash - text] = '\0';
    int64_t i, n;
    if (!cli_parse_i64(buf, 0, INT32_MAX, &i) || !cli_parse_i64(slash + 1, 1, INT32_MAX, &n) || i >= n)
        return 0;
    cfg->shard_index = (int)i;
    cfg->shard_count = (int)n;
    return 1;
}

/*
 * The options that take a value. Returns 1 and sets *seen for a known
 * option, 0 for an unknown one; *ok says whether the value parsed.
 */
static int parse_option(const char *name, const char *value, parse_state *st, int *ok)
{
    sweep_config *cfg = st->cfg;
    unsigned seen = 0;
    *ok = 1;
    list_error[0] = '\0';
    if (strcmp(name, "mode") == 0) {
        if (strcmp(value, "dense") == 0)
            cfg->modes = SWEEP_MODE_DENSE;
        else if (strcmp(value, "topk") == 0)
            cfg->modes = SWEEP_MODE_TOPK;
        else if (strcmp(value, "both") == 0)
            cfg->modes = SWEEP_MODE_DENSE | SWEEP_MODE_TOPK;
        else
            *ok = 0;
    } else if (strcmp(name, "methods") == 0) {
        *ok = parse_methods(value, cfg);
    } else if (strcmp(name, "bits") == 0) {
        *ok = parse_list(value, SKETCH_MAX_BITS, &cfg->bits);
        seen = SEEN_BITS;
    } else if (strcmp(name, "sketch-dims") == 0) {
        *ok = parse_list(value, APPROX_MAX_SKETCH_DIM, &cfg->sketch_dims);
        seen = SEEN_SKETCH_DIMS;
    } else if (strcmp(name, "topk-bits") == 0) {
        *ok = parse_list(value, SKETCH_MAX_BITS, &cfg->topk_bits);
        seen = SEEN_TOPK_BITS | SEEN_TOPK_ONLY;
    } else if (strcmp(name, "topk-sketch-dims") == 0) {
        *ok = parse_list(value, APPROX_MAX_SKETCH_DIM, &cfg->topk_sketch_dims);
        seen = SEEN_TOPK_SKETCH_DIMS | SEEN_TOPK_ONLY;
    } else if (strcmp(name, "sizes") == 0) {
        *ok = parse_method_sizes(value, cfg->dense_sizes, &st->dense_override);
        seen = SEEN_SIZES;
    } else if (strcmp(name, "topk-sizes") == 0) {
        *ok = parse_method_sizes(value, cfg->topk_sizes, &st->topk_override);
        seen = SEEN_TOPK_ONLY;
    } else if (strcmp(name, "datasets") == 0 || strcmp(name, "dataset") == 0) {
        *ok = parse_datasets(value, cfg);
    } else if (strcmp(name, "k") == 0) {
        *ok = cli_parse_i64(value, 1, INT32_MAX, &cfg->k);
        seen = SEEN_K;
    } else if (strcmp(name, "alignment") == 0) {
        *ok = cli_parse_f64(value, 0.0, 1.0, &cfg->alignment);
        seen = SEEN_ALIGNMENT;
    } else if (strcmp(name, "clusters") == 0) {
        *ok = cli_parse_i64(value, 1, INT32_MAX, &cfg->clusters);
        seen = SEEN_CLUSTERS;
    } else if (strcmp(name, "rank") == 0) {
        *ok = cli_parse_i64(value, 1, INT32_MAX, &cfg->rank);
        seen = SEEN_RANK;
    } else if (strcmp(name, "noise") == 0) {
        *ok = cli_parse_f64(value, 0.0, 1e30, &cfg->noise);
        seen = SEEN_NOISE;
    } else if (strcmp(name, "shapes") == 0) {
        *ok = parse_shapes(value, cfg->shapes, &cfg->nshapes);
        seen = SEEN_DENSE_ONLY;
    } else if (strcmp(name, "m") == 0 || strcmp(name, "n") == 0) {
        *ok = set_shape_dim(value, cfg->shapes, cfg->nshapes, name[0] == 'n');
        seen = SEEN_DENSE_ONLY;
    } else if (strcmp(name, "reps") == 0) {
        *ok = cli_parse_int(value, 1, 100000, &cfg->reps);
        seen = SEEN_DENSE_ONLY;
    } else if (strcmp(name, "topk-shapes") == 0) {
        *ok = parse_shapes(value, cfg->topk_shapes, &cfg->ntopk_shapes);
        seen = SEEN_TOPK_ONLY;
    } else if (strcmp(name, "queries") == 0 || strcmp(name, "database") == 0) {
        *ok = set_shape_dim(value, cfg->topk_shapes, cfg->ntopk_shapes, name[0] == 'd');
        seen = SEEN_TOPK_ONLY;
    } else if (strcmp(name, "topk") == 0) {
        *ok = cli_parse_i64(value, 1, INT32_MAX, &cfg->topk);
        seen = SEEN_TOPK_ONLY;
    } else if (strcmp(name, "candidates") == 0) {
        *ok = parse_list(value, INT32_MAX, &cfg->candidates);
        seen = SEEN_TOPK_ONLY;
    } else if (strcmp(name, "topk-reps") == 0) {
        *ok = cli_parse_int(value, 1, 100000, &cfg->topk_reps);
        seen = SEEN_TOPK_ONLY;
    } else if (strcmp(name, "warmup") == 0) {
        *ok = cli_parse_int(value, 0, 100000, &cfg->warmup);
    } else if (strcmp(name, "threads") == 0) {
        *ok = parse_list_from(value, 0, SMM_MAX_THREADS, &cfg->threads);
    } else if (strcmp(name, "seeds") == 0 || strcmp(name, "seed") == 0) {
        *ok = parse_seeds(value, cfg);
    } else if (st->from_spec) {
        return 0; /* the run options below are flags only */
    } else if (strcmp(name, "data-dir") == 0) {
        *ok = value[0] != '\0';
        cfg->data_dir = value;
        seen = SEEN_DATA_DIR;
    } else if (strcmp(name, "out") == 0) {
        *ok = value[0] != '\0';
        cfg->out = value;
    } else if (strcmp(name, "spec") == 0) {
        *ok = value[0] != '\0'; /* read before the other flags */
    } else if (strcmp(name, "shard") == 0) {
        *ok = parse_shard(value, cfg);
    } else {
        return 0;
    }
    st->seen |= seen;
    if (!st->from_spec)
        st->cli_seen |= seen & (SEEN_DENSE_ONLY | SEEN_TOPK_ONLY);
    return 1;
}

/* sweep_spec_load's callback: one spec key as its flag. */
static int apply_spec_option(const char *flag, const char *value, void *ctx, char *why, size_t why_size)
{
    int ok;
    int known = parse_option(flag, value, ctx, &ok);
    snprintf(why, why_size, "%s", list_error);
    return known && ok;
}

/* The largest database of the top-k shapes. */
static int64_t max_database(const sweep_config *cfg)
{
    int64_t n = 0;
    for (int i = 0; i < cfg->ntopk_shapes; i++)
        if (cfg->topk_shapes[i].cols > n)
            n = cfg->topk_shapes[i].cols;
    return n;
}

/* Keep the candidate counts in topk..(largest database); note the others on stderr. */
static void filter_candidates(const char *prog, sweep_config *cfg)
{
    sweep_list kept = { { 0 }, 0 };
    int64_t database = max_database(cfg);
    for (int i = 0; i < cfg->candidates.count; i++) {
        int32_t c = cfg->candidates.v[i];
        if (c >= cfg->topk && c <= database)
            kept.v[kept.count++] = c;
        else
            fprintf(stderr, "%s: note: skipping --candidates %d (outside topk..database = %lld..%lld)\n",
                    prog, (int)c, (long long)cfg->topk, (long long)database);
    }
    cfg->candidates = kept;
}

/*
 * Each method's sizes per mode: its --topk-sizes (top-k), else its --sizes,
 * else the mode's list for its kind (bits or sketch dimensions). Without any
 * size flag, the default top-k sizes of cross-polytope are
 * default_topk_crosspolytope (its encoding is the slowest); without a
 * sketch-dimension flag, low-rank's, PQ's and MADDNESS's are default_lowrank /
 * default_topk_lowrank, default_pq / default_topk_pq and default_maddness /
 * default_topk_maddness.
 */
static void resolve_sizes(sweep_config *cfg, const parse_state *st)
{
    const unsigned size_flags = SEEN_BITS | SEEN_TOPK_BITS | SEEN_SIZES;
    const unsigned dim_flags = SEEN_SKETCH_DIMS | SEEN_TOPK_SKETCH_DIMS | SEEN_SIZES;
    for (int i = 0; i < SWEEP_NUM_METHODS; i++) {
        sketch_method m = (sketch_method)(SKETCH_SIMHASH + i);
        int bits = sketch_method_uses_bits(m);
        /* the data-aware methods have sizes of their own unless sketch dimensions are given */
        const int own_defaults =
            (m == SKETCH_LOWRANK || m == SKETCH_PQ || m == SKETCH_MADDNESS) && !(st->seen & dim_flags);
        if (!(st->dense_override & (1u << i))) {
            if (own_defaults && m == SKETCH_LOWRANK)
                SET_DEFAULT_LIST(&cfg->dense_sizes[i], default_lowrank);
            else if (own_defaults && m == SKETCH_MADDNESS)
                SET_DEFAULT_LIST(&cfg->dense_sizes[i], default_maddness);
            else if (own_defaults)
                SET_DEFAULT_LIST(&cfg->dense_sizes[i], default_pq);
            else
                cfg->dense_sizes[i] = bits ? cfg->bits : cfg->sketch_dims;
        }
        if (st->topk_override & (1u << i))
            continue;
        if (st->dense_override & (1u << i))
            cfg->topk_sizes[i] = cfg->dense_sizes[i];
        else if (m == SKETCH_CROSSPOLYTOPE && !(st->seen & size_flags))
            SET_DEFAULT_LIST(&cfg->topk_sizes[i], default_topk_crosspolytope);
        else if (own_defaults && m == SKETCH_LOWRANK)
            SET_DEFAULT_LIST(&cfg->topk_sizes[i], default_topk_lowrank);
        else if (own_defaults && m == SKETCH_MADDNESS)
            SET_DEFAULT_LIST(&cfg->topk_sizes[i], default_topk_maddness);
        else if (own_defaults)
            SET_DEFAULT_LIST(&cfg->topk_sizes[i], default_topk_pq);
        else
            cfg->topk_sizes[i] = bits ? cfg->topk_bits : cfg->topk_sketch_dims;
    }
}

const sweep_list *sweep_sizes(const sweep_config *cfg, unsigned mode, sketch_method method)
{
    int i = (int)(method - SKETCH_SIMHASH);
    return mode == SWEEP_MODE_DENSE ? &cfg->dense_sizes[i] : &cfg->topk_sizes[i];
}

void sweep_sizes_format(const sweep_config *cfg, unsigned mode, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < cfg->nmethods && used < size; i++) {
        char list[512];
        sweep_list_format(sweep_sizes(cfg, mode, cfg->methods[i]), list, sizeof list);
        used += (size_t)snprintf(buf + used, size - used, "%s%s=%s", i ? ";" : "",
                                 sketch_method_name(cfg->methods[i]), list);
    }
}

static int has_dataset(const sweep_config *cfg, sweep_data_kind d)
{
    for (int i = 0; i < cfg->ndatasets; i++)
        if (cfg->datasets[i] == d)
            return 1;
    return 0;
}

/*
 * Every shape of every mode fits every data set (sweep_data_get_shape): with
 * one pool m + n (queries + database) vectors of it, else m (queries) of the
 * first and n (database) of the second. Files are opened for their shapes;
 * one that cannot be read is a usage error too. Returns -1 or
 * SWEEP_EXIT_USAGE.
 */
static int check_data_sizes(const char *prog, const sweep_config *cfg)
{
    for (int di = 0; di < cfg->ndatasets; di++) {
        sweep_data_kind d = cfg->datasets[di];
        char label[1100];
        sweep_data_label(cfg, d, label, sizeof label);
        for (unsigned mode = SWEEP_MODE_DENSE; mode <= SWEEP_MODE_TOPK; mode <<= 1) {
            if (!(cfg->modes & mode))
                continue;
            sweep_data_shape ds;
            char msg[2048];
            if (sweep_data_get_shape(cfg, d, mode, &ds, msg, sizeof msg) != SMM_OK)
                return usage_error(prog, "data set %s: %s", label, msg);
            int dense = mode == SWEEP_MODE_DENSE;
            const sweep_shape *shapes = dense ? cfg->shapes : cfg->topk_shapes;
            int nshapes = dense ? cfg->nshapes : cfg->ntopk_shapes;
            const char *a = dense ? "m" : "queries", *b = dense ? "n" : "database";
            for (int i = 0; i < nshapes; i++) {
                int64_t na = shapes[i].rows, nb = shapes[i].cols;
                if (ds.shared && na > ds.pool_a - nb)
                    return usage_error(prog, "%s has %lld vectors%s: %s + %s = %lld + %lld must not exceed that",
                                       label, (long long)ds.pool_a,
                                       d == SWEEP_DATA_FASHION_MNIST ? " (training images)" : "", a, b,
                                       (long long)na, (long long)nb);
                if (!ds.shared && na > ds.pool_a)
                    return usage_error(prog, "%s has %lld %s: --%s %lld must not exceed that", label,
                                       (long long)ds.pool_a,
                                       d == SWEEP_DATA_FASHION_MNIST ? "test images" : "query vectors (/test)",
                                       a, (long long)na);
                if (!ds.shared && nb > ds.pool_b)
                    return usage_error(prog, "%s has %lld %s: --%s %lld must not exceed that", label,
                                       (long long)ds.pool_b,
                                       d == SWEEP_DATA_FASHION_MNIST ? "training images" : "database vectors (/train)",
                                       b, (long long)nb);
            }
        }
    }
    return -1;
}

/* An upper bound on the configurations of the grid (candidate counts above a shape's database included). */
static double grid_bound(const sweep_config *cfg)
{
    double total = 0;
    for (unsigned mode = SWEEP_MODE_DENSE; mode <= SWEEP_MODE_TOPK; mode <<= 1) {
        if (!(cfg->modes & mode))
            continue;
        double sizes = 0;
        for (int i = 0; i < cfg->nmethods; i++)
            sizes += sweep_sizes(cfg, mode, cfg->methods[i])->count;
        const int dense = mode == SWEEP_MODE_DENSE;
        total += (double)cfg->ndatasets * (dense ? cfg->nshapes : cfg->ntopk_shapes) * cfg->nseeds *
                 cfg->threads.count * sizes * (dense ? 1 : cfg->candidates.count);
    }
    return total;
}

/*
 * --out must not be a file the sweep reads (the spec, the data set file, the Fashion-MNIST images), not
 * even through a symbolic or hard link: the results file is truncated (--overwrite) or extended before
 * the data are read. Returns -1 or SWEEP_EXIT_USAGE.
 */
static int check_out_is_no_input(const char *prog, const sweep_config *cfg)
{
    char file[sizeof cfg->data_file_store];
    const char *inputs[4] = { cfg->spec_path, NULL, NULL, NULL };
    char train[1200], test[1200];
    if (has_dataset(cfg, SWEEP_DATA_ANN))
        inputs[1] = cfg->data_file;
    const char *path;
    if (has_dataset(cfg, SWEEP_DATA_H5) &&
        dataset_h5_split_spec(cfg->data_file, file, sizeof file, &path) == SMM_OK)
        inputs[1] = file;
    if (has_dataset(cfg, SWEEP_DATA_FASHION_MNIST)) {
        const char *dir = dataset_fashion_mnist_dir(cfg->data_dir);
        snprintf(train, sizeof train, "%s/train-images-idx3-ubyte.gz", dir);
        snprintf(test, sizeof test, "%s/t10k-images-idx3-ubyte.gz", dir);
        inputs[2] = train;
        inputs[3] = test;
    }
    for (int i = 0; i < 4; i++)
        if (inputs[i] != NULL && cli_same_file(cfg->out, inputs[i]))
            return usage_error(prog, "--out %s is %s, which the sweep reads: write the results to another file",
                               cfg->out, inputs[i]);
    return -1;
}

/* The checks that involve several flags. Returns -1 or SWEEP_EXIT_USAGE. */
static int check_config(const char *prog, sweep_config *cfg, const parse_state *st)
{
    const unsigned seen = st->seen;
    const char *fm = sweep_data_names[SWEEP_DATA_FASHION_MNIST];
    int rc = check_out_is_no_input(prog, cfg);
    if (rc >= 0)
        return rc;
    if (!(cfg->modes & SWEEP_MODE_TOPK) && (st->cli_seen & SEEN_TOPK_ONLY))
        return usage_error(prog, "--topk-shapes, --queries, --database, --topk, --candidates, --topk-reps, "
                                 "--topk-bits, --topk-sketch-dims and --topk-sizes apply to top-k mode only "
                                 "(--mode topk or both)");
    if (!(cfg->modes & SWEEP_MODE_DENSE) && (st->cli_seen & SEEN_DENSE_ONLY))
        return usage_error(prog, "--shapes, --m, --n and --reps apply to dense mode only (--mode dense or both)");
    /* --bits and --sketch-dims set both modes' lists unless a --topk-* flag says otherwise. */
    if ((seen & SEEN_BITS) && !(seen & SEEN_TOPK_BITS))
        cfg->topk_bits = cfg->bits;
    if ((seen & SEEN_SKETCH_DIMS) && !(seen & SEEN_TOPK_SKETCH_DIMS))
        cfg->topk_sketch_dims = cfg->sketch_dims;
    resolve_sizes(cfg, st);

    int synthetic = has_dataset(cfg, SWEEP_DATA_GAUSSIAN) || has_dataset(cfg, SWEEP_DATA_LOWRANK) ||
                    has_dataset(cfg, SWEEP_DATA_CLUSTERED);
    if (!synthetic && (seen & SEEN_K) && cfg->k != DATASET_FASHION_MNIST_DIM)
        return usage_error(prog, "--k applies to synthetic data only (%s has k = 784; file data sets take k "
                                 "from the file)", fm);
    if (!has_dataset(cfg, SWEEP_DATA_FASHION_MNIST) && (seen & SEEN_DATA_DIR))
        return usage_error(prog, "--data-dir applies to --datasets fashion-mnist only");
    rc = check_data_sizes(prog, cfg);
    if (rc >= 0)
        return rc;
    if (!has_dataset(cfg, SWEEP_DATA_CLUSTERED) && (seen & (SEEN_ALIGNMENT | SEEN_CLUSTERS)))
        return usage_error(prog, "--alignment and --clusters apply to --datasets clustered only");
    if (!has_dataset(cfg, SWEEP_DATA_LOWRANK) && (seen & (SEEN_RANK | SEEN_NOISE)))
        return usage_error(prog, "--rank and --noise apply to --datasets lowrank only");

    if (cfg->modes & SWEEP_MODE_TOPK) {
        for (int i = 0; i < cfg->ntopk_shapes; i++)
            if (cfg->topk > cfg->topk_shapes[i].cols)
                return usage_error(prog, "--topk %lld exceeds the database size %lld", (long long)cfg->topk,
                                   (long long)cfg->topk_shapes[i].cols);
        filter_candidates(prog, cfg);
        if (cfg->candidates.count == 0)
            return usage_error(prog, "no --candidates value lies in topk..database = %lld..%lld",
                               (long long)cfg->topk, (long long)max_database(cfg));
    }
    if (grid_bound(cfg) > SWEEP_MAX_GRID)
        return usage_error(prog, "the grid has up to %.0f configurations; a sweep runs at most %d (split it into "
                                 "several specs)", grid_bound(cfg), SWEEP_MAX_GRID);
    return -1;
}

/*
 * Split "--name=value" / "--name value" at argv[*i] (which starts with "--");
 * returns 0 (with *rc set) on error. Without '=' the name is argv[*i] + 2.
 */
static int split_option(int argc, char **argv, int *i, char *name_buf, size_t name_size, const char **name,
                        const char **value, int *rc)
{
    const char *prog = argv[0], *arg = argv[*i];
    cli_option opt;
    cli_option_split(arg, &opt);
    *name = opt.name;
    if (opt.value != NULL) {
        if (!cli_option_name(&opt, name_buf, name_size)) {
            *rc = usage_error(prog, "unknown option '%s'", arg);
            return 0;
        }
        *name = name_buf;
    } else if (!cli_option_take_value(argc, argv, i, &opt)) {
        *rc = usage_error(prog, "option '%s' needs a value", arg);
        return 0;
    }
    *value = opt.value;
    return 1;
}

int sweep_parse_args(int argc, char **argv, sweep_config *cfg)
{
    const char *prog = argv[0];
    set_defaults(cfg);
    parse_state st = { 0, 0, 0, 0, 0, cfg };
    char name_buf[64];
    const char *name, *value;
    int rc;

    /* First pass: --help, --spec. */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            print_help(stdout, prog);
            return EXIT_SUCCESS;
        }
        if (strncmp(argv[i], "--spec", 6) == 0 && (argv[i][6] == '\0' || argv[i][6] == '=')) {
            if (!split_option(argc, argv, &i, name_buf, sizeof name_buf, &name, &value, &rc))
                return rc;
            if (value[0] == '\0')
                return usage_error(prog, "invalid value '' for --spec");
            cfg->spec_path = value;
        }
    }
    if (cfg->spec_path != NULL) {
        char msg[1024];
        st.from_spec = 1;
        if (!sweep_spec_load(cfg->spec_path, apply_spec_option, &st, msg, sizeof msg)) {
            fprintf(stderr, "%s: %s\n", prog, msg);
            return SWEEP_EXIT_USAGE;
        }
        st.from_spec = 0;
    }

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strncmp(arg, "--", 2) != 0)
            return usage_error(prog, "unexpected argument '%s'", arg);
        if (strcmp(arg, "--dry-run") == 0) {
            cfg->dry_run = 1;
            continue;
        }
        if (strcmp(arg, "--overwrite") == 0) {
            cfg->overwrite = 1;
            continue;
        }
        if (!split_option(argc, argv, &i, name_buf, sizeof name_buf, &name, &value, &rc))
            return rc;
        int ok;
        if (!parse_option(name, value, &st, &ok))
            return usage_error(prog, "unknown option '--%s'", name);
        if (!ok)
            return usage_error(prog, "invalid value '%s' for --%s%s%s", value, name, list_error[0] ? ": " : "",
                               list_error);
    }
    return check_config(prog, cfg, &st);
}

int sweep_config_from_spec(const char *spec, sweep_config *cfg, char *msg, size_t msg_size)
{
    set_defaults(cfg);
    parse_state st = { 0, 0, 1, 0, 0, cfg };
    if (!sweep_spec_parse("(stored)", spec, strlen(spec), apply_spec_option, &st, msg, msg_size))
        return 0;
    resolve_sizes(cfg, &st);
    return 1;
}
