/*
 * fuzz_spec - libFuzzer target of the sweep driver's spec file: the fuzz
 * bytes are written to a per-process temporary file and parsed as the tool
 * does for `sketchmm_sweep --spec FILE --dry-run` (sweep_parse_args of
 * sketchmm_sweep_core: the JSON reader of sweep_spec.c, every value check of
 * sweep_cli.c, the data sets' shapes), then, on success, the canonical spec
 * and the grid are built (sweep_spec_canonical, sweep_grid_expand).
 *
 * Checked besides the sanitizers, for every accepted spec:
 *   - the configuration keeps the documented bounds (list lengths, sizes per
 *     method, shapes, topk <= every database, candidates in topk..database);
 *   - the canonical spec reads back: sweep_config_from_spec accepts it, and
 *     given to --spec in a file it is accepted again and gives the same
 *     canonical text and the same grid ("given back to --spec it gives the
 *     same grid", sweep.h);
 *   - the grid has the size its lists imply, indices 0..count-1, each hash
 *     the XXH3 of the configuration's key, and no configuration twice (the
 *     key is what resume and merge tell configurations apart by).
 * Grids of more than FUZZ_SPEC_MAX_GRID configurations (a spec of a few
 * hundred bytes can describe billions) are parsed and checked but not
 * expanded: expansion is linear in the grid, so large grids would only slow
 * the fuzzer down.
 *
 * The file data sets: LLVMFuzzerInitialize writes a small ann-benchmarks
 * file (dataset_write_ann: 40 train and 8 test vectors of dimension 64) to
 * FUZZ_SPEC_FIXTURE, so seeds can name "ann:/tmp/sketchmm_fuzz_spec.h5" and
 * "/tmp/sketchmm_fuzz_spec.h5:/train" and reach the checks of shapes against
 * a real file.
 *
 * The driver prints a usage error on stderr for every rejected spec; the
 * target adds -close_fd_mask=2 to libFuzzer's flags (before they are parsed)
 * so libFuzzer keeps its own output and the sanitizers' reports and the
 * driver's lines go nowhere. SKETCHMM_FUZZ_SPEC_STDERR=1 keeps them.
 */
#include "fuzz_common.h"

#include <xxhash.h>

#include "sweep_cli.h"
#include "sweep_grid.h"
#include "sweep_options.h"
#include "sweep_spec.h"

#define FUZZ_SPEC_MAX_GRID 20000
#define FUZZ_SPEC_FIXTURE "/tmp/sketchmm_fuzz_spec.h5"

/* rows [first, first + count) of m as a new matrix; 0 or -1 when out of memory. */
static int copy_rows(const dataset_matrix *m, int64_t first, int64_t count, dataset_matrix *out)
{
    out->rows = count;
    out->cols = m->cols;
    out->data = malloc((size_t)(count * m->cols) * sizeof(float));
    if (out->data == NULL)
        return -1;
    memcpy(out->data, m->data + first * m->cols, (size_t)(count * m->cols) * sizeof(float));
    return 0;
}

/* A small ann-benchmarks file at FUZZ_SPEC_FIXTURE (written to a temporary name, then renamed). */
static void write_fixture(void)
{
    dataset_ann a;
    memset(&a, 0, sizeof a);
    dataset_matrix all;
    char msg[512] = "";
    smm_status s = dataset_digits(48, 7, &all, NULL);
    if (s == SMM_OK && copy_rows(&all, 0, 40, &a.train) == 0 &&
        copy_rows(&all, 40, 8, &a.test) == 0) {
        a.topk = 5;
        s = dataset_ann_ground_truth(&a.train, &a.test, a.topk, &a.neighbors, &a.distances);
    }
    char tmp[] = FUZZ_SPEC_FIXTURE ".XXXXXX";
    int fd = s == SMM_OK ? mkstemp(tmp) : -1;
    if (fd >= 0) {
        close(fd);
        s = dataset_write_ann(tmp, &a, msg, sizeof msg);
        if (s == SMM_OK && rename(tmp, FUZZ_SPEC_FIXTURE) != 0)
            s = DATASET_ERR_IO;
        unlink(tmp);
    }
    if (s != SMM_OK || fd < 0)
        fprintf(stderr, "fuzz_spec: cannot write the fixture %s (%s %s); file data sets will not load\n",
                FUZZ_SPEC_FIXTURE, smm_status_str(s), msg);
    dataset_matrix_free(&all);
    dataset_ann_free(&a);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fuzz_init_report();
    smm_set_num_threads(1);
    write_fixture();
    const char *keep = getenv("SKETCHMM_FUZZ_SPEC_STDERR");
    if (keep != NULL && keep[0] != '\0' && strcmp(keep, "0") != 0)
        return 0;
    /* libFuzzer parses its flags after this call: add -close_fd_mask=2 first, so a later one wins */
    static char flag[] = "-close_fd_mask=2";
    char **args = malloc(((size_t)*argc + 2) * sizeof *args);
    if (args == NULL)
        return 0;
    args[0] = (*argv)[0];
    args[1] = flag;
    for (int i = 1; i < *argc; i++)
        args[i + 1] = (*argv)[i];
    args[*argc + 1] = NULL;
    *argc += 1;
    *argv = args;
    return 0;
}

/* The number of configurations sweep_grid_expand makes of cfg (saturated at INT64_MAX). */
static int64_t grid_size(const sweep_config *cfg)
{
    __int128 total = 0;
    for (unsigned mode = SWEEP_MODE_DENSE; mode <= SWEEP_MODE_TOPK; mode <<= 1) {
        if (!(cfg->modes & mode))
            continue;
        const sweep_shape *shapes = mode == SWEEP_MODE_DENSE ? cfg->shapes : cfg->topk_shapes;
        int nshapes = mode == SWEEP_MODE_DENSE ? cfg->nshapes : cfg->ntopk_shapes;
        __int128 sizes = 0;
        for (int mi = 0; mi < cfg->nmethods; mi++)
            sizes += sweep_sizes(cfg, mode, cfg->methods[mi])->count;
        for (int hi = 0; hi < nshapes; hi++) {
            __int128 cands = 1;
            if (mode == SWEEP_MODE_TOPK) {
                cands = 0;
                for (int ci = 0; ci < cfg->candidates.count; ci++)
                    cands += cfg->candidates.v[ci] <= shapes[hi].cols;
            }
            total += (__int128)cfg->ndatasets * cfg->nseeds * cfg->threads.count * sizes * cands;
        }
    }
    return total > INT64_MAX ? INT64_MAX : (int64_t)total;
}

static int list_in(const sweep_list *l, int64_t lo, int64_t hi)
{
    if (l->count < 1 || l->count > SWEEP_MAX_LIST)
        return 0;
    for (int i = 0; i < l->count; i++)
        if (l->v[i] < lo || l->v[i] > hi)
            return 0;
    return 1;
}

/* The bounds every accepted configuration keeps. */
static void check_config(const sweep_config *c)
{
    FUZZ_CHECK(c->modes >= 1 && c->modes <= 3, "modes %u", c->modes);
    FUZZ_CHECK(c->ndatasets >= 1 && c->ndatasets <= SWEEP_NUM_DATA, "%d datasets", c->ndatasets);
    int files = 0;
    for (int i = 0; i < c->ndatasets; i++) {
        FUZZ_CHECK((unsigned)c->datasets[i] < SWEEP_NUM_DATA, "dataset %d", (int)c->datasets[i]);
        files += c->datasets[i] == SWEEP_DATA_H5 || c->datasets[i] == SWEEP_DATA_ANN;
        for (int j = 0; j < i; j++)
            FUZZ_CHECK(c->datasets[i] != c->datasets[j], "dataset %d listed twice", (int)c->datasets[i]);
    }
    FUZZ_CHECK(files <= 1 && (files == 1) == (c->data_file != NULL), "%d file data sets, data_file %s", files,
               c->data_file != NULL ? c->data_file : "NULL");
    FUZZ_CHECK(c->nmethods >= 1 && c->nmethods <= SWEEP_NUM_METHODS, "%d methods", c->nmethods);
    for (int i = 0; i < c->nmethods; i++) {
        sketch_method m = c->methods[i];
        FUZZ_CHECK(sketch_method_name(m) != NULL, "method %d", (int)m);
        int64_t hi = sketch_method_uses_bits(m) ? SKETCH_MAX_BITS : APPROX_MAX_SKETCH_DIM;
        if (c->modes & SWEEP_MODE_DENSE)
            FUZZ_CHECK(list_in(sweep_sizes(c, SWEEP_MODE_DENSE, m), 1, hi), "dense sizes of %s",
                       sketch_method_name(m));
        if (c->modes & SWEEP_MODE_TOPK)
            FUZZ_CHECK(list_in(sweep_sizes(c, SWEEP_MODE_TOPK, m), 1, hi), "top-k sizes of %s",
                       sketch_method_name(m));
    }
    FUZZ_CHECK(c->nseeds >= 1 && c->nseeds <= SWEEP_MAX_LIST, "%d seeds", c->nseeds);
    FUZZ_CHECK(list_in(&c->threads, 0, SMM_MAX_THREADS), "threads");
    FUZZ_CHECK(c->warmup >= 0 && c->reps >= 1 && c->topk_reps >= 1, "warmup %d reps %d topk_reps %d", c->warmup,
               c->reps, c->topk_reps);
    if (c->modes & SWEEP_MODE_DENSE) {
        FUZZ_CHECK(c->nshapes >= 1 && c->nshapes <= SWEEP_MAX_SHAPES, "%d shapes", c->nshapes);
        for (int i = 0; i < c->nshapes; i++)
            FUZZ_CHECK(c->shapes[i].rows >= 1 && c->shapes[i].cols >= 1, "shape %d", i);
    }
    if (c->modes & SWEEP_MODE_TOPK) {
        FUZZ_CHECK(c->ntopk_shapes >= 1 && c->ntopk_shapes <= SWEEP_MAX_SHAPES, "%d top-k shapes", c->ntopk_shapes);
        int64_t most = 0;
        for (int i = 0; i < c->ntopk_shapes; i++) {
            FUZZ_CHECK(c->topk_shapes[i].rows >= 1 && c->topk >= 1 && c->topk <= c->topk_shapes[i].cols,
                       "topk %lld against top-k shape %d (%lld x %lld)", (long long)c->topk, i,
                       (long long)c->topk_shapes[i].rows, (long long)c->topk_shapes[i].cols);
            most = c->topk_shapes[i].cols > most ? c->topk_shapes[i].cols : most;
        }
        FUZZ_CHECK(list_in(&c->candidates, c->topk, most), "candidates outside topk..database = %lld..%lld",
                   (long long)c->topk, (long long)most);
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Expand and check the grid of cfg; returns it (empty when too large to expand). */
static sweep_grid check_grid(const sweep_config *cfg)
{
    sweep_grid grid = { NULL, 0 };
    int64_t expected = grid_size(cfg);
    if (expected > FUZZ_SPEC_MAX_GRID)
        return grid;
    FUZZ_CHECK(sweep_grid_expand(cfg, &grid) == SMM_OK, "sweep_grid_expand failed on %lld configurations",
               (long long)expected);
    FUZZ_CHECK(grid.count == expected, "grid of %lld configurations, the lists make %lld", (long long)grid.count,
               (long long)expected);
    uint64_t *hashes = malloc((size_t)(grid.count > 0 ? grid.count : 1) * sizeof *hashes);
    FUZZ_CHECK(hashes != NULL, "out of memory");
    for (int64_t i = 0; i < grid.count; i++) {
        const sweep_point *p = &grid.points[i];
        char key[SWEEP_KEY_MAX], what[512];
        sweep_point_key(cfg, p, key, sizeof key);
        sweep_point_describe(p, what, sizeof what);
        FUZZ_CHECK(p->index == i, "point %lld has index %lld", (long long)i, (long long)p->index);
        FUZZ_CHECK(p->hash == XXH3_64bits(key, strlen(key)), "point %lld: hash is not that of its key %s",
                   (long long)i, key);
        FUZZ_CHECK(strlen(key) < sizeof key - 1, "point %lld: key truncated", (long long)i);
        hashes[i] = p->hash;
    }
    qsort(hashes, (size_t)grid.count, sizeof *hashes, cmp_u64);
    for (int64_t i = 1; i < grid.count; i++) {
        if (hashes[i] != hashes[i - 1])
            continue;
        int64_t a = -1, b = -1;
        for (int64_t j = 0; j < grid.count; j++) {
            if (grid.points[j].hash != hashes[i])
                continue;
            if (a < 0)
                a = j;
            else if (b < 0)
                b = j;
        }
        char what_a[512], what_b[512];
        sweep_point_describe(&grid.points[a], what_a, sizeof what_a);
        sweep_point_describe(&grid.points[b], what_b, sizeof what_b);
        FUZZ_CHECK(0, "configurations %lld and %lld are the same configuration (%s | %s): "
                      "a resumed or merged results file cannot tell them apart", (long long)a, (long long)b, what_a,
                      what_b);
    }
    free(hashes);
    return grid;
}

/* sweep_parse_args on {prog, --spec, path, --dry-run}. */
static int parse_spec_file(const char *path, sweep_config *cfg)
{
    char *argv[] = { "sketchmm_sweep", "--spec", (char *)path, "--dry-run", NULL };
    return sweep_parse_args(4, argv, cfg);
}

static char again_path[1100];

static void remove_again(void)
{
    unlink(again_path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_tmp_file("fuzz_spec", ".json");
    if (again_path[0] == '\0') {
        snprintf(again_path, sizeof again_path, "%s.canonical.json", path);
        atexit(remove_again);
    }
    fuzz_write_file(path, data, size);

    static sweep_config cfg, back, again; /* large; static keeps them off the stack */
    int rc = parse_spec_file(path, &cfg);
    FUZZ_CHECK(rc == -1 || rc == SWEEP_EXIT_USAGE, "sweep_parse_args returned %d", rc);
    if (rc != -1)
        return 0;
    FUZZ_CHECK(cfg.dry_run == 1 && cfg.spec_path == path, "the flags were not kept");
    check_config(&cfg);

    char *canonical = sweep_spec_canonical(&cfg);
    FUZZ_CHECK(canonical != NULL, "sweep_spec_canonical returned NULL");

    /* the canonical text as a stored spec (results file attribute) */
    char msg[1024] = "";
    FUZZ_CHECK(sweep_config_from_spec(canonical, &back, msg, sizeof msg) == 1,
               "sweep_config_from_spec refused the canonical spec: %s\n  canonical: %s", msg, canonical);
    char *canonical_back = sweep_spec_canonical(&back);
    FUZZ_CHECK(canonical_back != NULL && strcmp(canonical_back, canonical) == 0,
               "the stored spec reads back differently:\n  canonical: %s\n  read back: %s", canonical,
               canonical_back != NULL ? canonical_back : "NULL");

    /* the canonical text given back to --spec */
    fuzz_write_file(again_path, (const uint8_t *)canonical, strlen(canonical));
    rc = parse_spec_file(again_path, &again);
    FUZZ_CHECK(rc == -1, "--spec refused the canonical spec (exit status %d):\n  canonical: %s", rc, canonical);
    check_config(&again);
    char *canonical_again = sweep_spec_canonical(&again);
    FUZZ_CHECK(canonical_again != NULL && strcmp(canonical_again, canonical) == 0,
               "the canonical spec given back to --spec gives another spec:\n  first:  %s\n  second: %s",
               canonical, canonical_again != NULL ? canonical_again : "NULL");

    sweep_grid grid = check_grid(&cfg), grid_again = check_grid(&again);
    FUZZ_CHECK(grid.count == grid_again.count, "grids of %lld and %lld configurations", (long long)grid.count,
               (long long)grid_again.count);
    for (int64_t i = 0; i < grid.count; i++)
        FUZZ_CHECK(grid.points[i].hash == grid_again.points[i].hash,
                   "configuration %lld differs between the spec and its canonical form", (long long)i);
    int64_t begin, end;
    sweep_shard_range(grid.count, 0, 1, &begin, &end);
    FUZZ_CHECK(begin == 0 && end == grid.count, "shard 0/1 is %lld..%lld", (long long)begin, (long long)end);

    sweep_grid_free(&grid_again);
    sweep_grid_free(&grid);
    free(canonical_again);
    free(canonical_back);
    free(canonical);
    return 0;
}
