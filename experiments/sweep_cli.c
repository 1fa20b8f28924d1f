/*
 * sweep_cli.c - the command line of sketchmm_sweep: --help, parsing and the
 * checks across options. The options themselves are the table of
 * sweep_options.c. See sweep_cli.h.
 */
#include "sweep_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "sweep_data.h"
#include "sweep_options.h"
#include "sweep_spec.h"

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
        "",
        prog, prog, prog);
    sweep_options_help(f);
    fprintf(f, "\n");    sweep_spec_help(f);
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
        "approx_seconds; bytes_per_vector = approx_encoded_bytes() of the method:\n"
        "a sketch family's code words and float norm, 4 s for the projections, M / 2\n"
        "for pq's 4-bit codes, C / 2 for maddness's (its plan also keeps 16 C + 8\n"
        "bytes of tables per column).\n"
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
    if (sweep_has_dataset(cfg, SWEEP_DATA_ANN))
        inputs[1] = cfg->data_file;
    const char *path;
    if (sweep_has_dataset(cfg, SWEEP_DATA_H5) &&
        dataset_h5_split_spec(cfg->data_file, file, sizeof file, &path) == SMM_OK)
        inputs[1] = file;
    if (sweep_has_dataset(cfg, SWEEP_DATA_FASHION_MNIST)) {
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
static int check_config(const char *prog, sweep_config *cfg, const sweep_parse_state *st)
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
    sweep_resolve_sizes(cfg, st);

    int synthetic = sweep_has_dataset(cfg, SWEEP_DATA_GAUSSIAN) || sweep_has_dataset(cfg, SWEEP_DATA_LOWRANK) ||
                    sweep_has_dataset(cfg, SWEEP_DATA_CLUSTERED) || sweep_has_dataset(cfg, SWEEP_DATA_TEXTURE);
    if (!synthetic && (seen & SEEN_K) && cfg->k != DATASET_FASHION_MNIST_DIM)
        return usage_error(prog, "--k applies to synthetic data only (%s has k = 784; file data sets take k "
                                 "from the file)", fm);
    if (!sweep_has_dataset(cfg, SWEEP_DATA_FASHION_MNIST) && (seen & SEEN_DATA_DIR))
        return usage_error(prog, "--data-dir applies to --datasets fashion-mnist only");
    rc = check_data_sizes(prog, cfg);
    if (rc >= 0)
        return rc;
    if (!sweep_has_dataset(cfg, SWEEP_DATA_CLUSTERED) && (seen & (SEEN_ALIGNMENT | SEEN_CLUSTERS)))
        return usage_error(prog, "--alignment and --clusters apply to --datasets clustered only");
    if (!sweep_has_dataset(cfg, SWEEP_DATA_LOWRANK) && (seen & (SEEN_RANK | SEEN_NOISE)))
        return usage_error(prog, "--rank and --noise apply to --datasets lowrank only");
    if (!sweep_has_dataset(cfg, SWEEP_DATA_TEXTURE) && (seen & SEEN_BETA))
        return usage_error(prog, "--beta applies to --datasets texture only");

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

int sweep_parse_args(int argc, char **argv, sweep_config *cfg)
{
    const char *prog = argv[0];
    sweep_defaults(cfg);
    sweep_parse_state st = { 0, 0, 0, 0, 0, cfg };

    /* First pass: --help, --spec (the spec's keys come first, the flags override them). */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            print_help(stdout, prog);
            return EXIT_SUCCESS;
        }
        cli_option opt;
        if (cli_option_split(argv[i], &opt) && opt.name_length == 4 && strncmp(opt.name, "spec", 4) == 0) {
            if (!cli_option_take_value(argc, argv, &i, &opt))
                return usage_error(prog, "option '%s' needs a value", argv[i]);
            if (opt.value[0] == '\0')
                return usage_error(prog, "invalid value '' for --spec");
            cfg->spec_path = opt.value;
        }
    }
    if (cfg->spec_path != NULL) {
        char msg[1024];
        st.from_spec = 1;
        if (!sweep_spec_load(cfg->spec_path, &st, msg, sizeof msg)) {
            fprintf(stderr, "%s: %s\n", prog, msg);
            return SWEEP_EXIT_USAGE;
        }
        st.from_spec = 0;
    }

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        cli_option opt;
        char name[64];
        if (!cli_option_split(arg, &opt))
            return usage_error(prog, "unexpected argument '%s'", arg);
        if (!cli_option_name(&opt, name, sizeof name))
            return usage_error(prog, "unknown option '%s'", arg);
        const sweep_option *o = sweep_option_named(name);
        if (o == NULL)
            return usage_error(prog, "unknown option '--%s'", name);
        if (o->arg == NULL && opt.value != NULL)
            return usage_error(prog, "option '--%s' takes no value", name);
        if (o->arg != NULL && !cli_option_take_value(argc, argv, &i, &opt))
            return usage_error(prog, "option '%s' needs a value", arg);
        char why[160];
        if (!sweep_option_apply(o, opt.value, &st, why, sizeof why))
            return usage_error(prog, "invalid value '%s' for --%s%s%s", opt.value, name, why[0] ? ": " : "", why);
    }
    return check_config(prog, cfg, &st);
}
