/*
 * sweep_options.c - every option of sketchmm_sweep in one table (see
 * sweep_options.h): the flags, the spec keys and their types, the parsers,
 * the --help text with the defaults filled in, the defaults themselves and
 * the canonical spec.
 */
#include "sweep_options.h"

#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "sweep_data.h"

/*
 * Why the last list value was refused, when it was its length or a value
 * twice (split_list): added to the error message of the flag or spec key.
 * Parsing runs on one thread.
 */
static char list_error[128];

/* ------------------------------------------------------------------------ */
/* Defaults                                                                 */
/* ------------------------------------------------------------------------ */

static const int32_t default_bits[] = { 32, 64, 128, 256, 512 };
static const int32_t default_sketch_dims[] = { 8, 16, 32, 64, 128, 256 };
static const int32_t default_topk_bits[] = { 256, 512 };
static const int32_t default_topk_sketch_dims[] = { 64, 128 };
static const int32_t default_candidates[] = { 20, 100, 500 };

/*
 * The methods with default sizes of their own, per mode (count 0: the mode's
 * list for the method's kind). Cross-polytope's top-k sizes are small because
 * its encoding is the slowest (at 512 bits, encoding the 70000 vectors of the
 * default top-k costs about as much as exact_topk); the data-aware methods'
 * because the rank a data-aware basis needs is far below the random
 * projections' s. They apply while no list of the method's kind is given
 * (own_by_bits: --bits, --topk-bits or --sizes for cross-polytope;
 * otherwise --sketch-dims, --topk-sketch-dims or --sizes).
 */
static const struct {
    sketch_method method;
    int32_t dense[8], topk[8];
    int ndense, ntopk;
} method_size_defaults[] = {
    { SKETCH_CROSSPOLYTOPE, { 0 }, { 128, 256 }, 0, 2 },
    { SKETCH_LOWRANK, { 2, 4, 8, 16, 32 }, { 16, 32 }, 5, 2 },
    { SKETCH_PQ, { 49, 98, 196 }, { 98, 196 }, 3, 2 },
    { SKETCH_MADDNESS, { 16, 32, 64 }, { 32, 64 }, 3, 2 },
};
#define METHOD_SIZE_DEFAULTS ((int)(sizeof method_size_defaults / sizeof method_size_defaults[0]))

static void set_list(sweep_list *list, const int32_t *values, int count)
{
    list->count = count;
    memcpy(list->v, values, (size_t)count * sizeof *values);
}

#define SET_DEFAULT_LIST(list, values) set_list(list, values, (int)(sizeof values / sizeof values[0]))

void sweep_defaults(sweep_config *cfg)
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
    cfg->beta = 2.0;
    cfg->warmup = 1;
    cfg->reps = 5;
    cfg->topk_reps = 3;
    cfg->out = SWEEP_DEFAULT_OUT;
    cfg->shard_index = 0;
    cfg->shard_count = 1;
}

void sweep_resolve_sizes(sweep_config *cfg, const sweep_parse_state *st)
{
    const unsigned bit_flags = SEEN_BITS | SEEN_TOPK_BITS | SEEN_SIZES;
    const unsigned dim_flags = SEEN_SKETCH_DIMS | SEEN_TOPK_SKETCH_DIMS | SEEN_SIZES;
    for (int i = 0; i < SWEEP_NUM_METHODS; i++) {
        const sketch_method m = (sketch_method)(SKETCH_SIMHASH + i);
        const int bits = sketch_method_uses_bits(m);
        int own = -1;
        for (int d = 0; d < METHOD_SIZE_DEFAULTS; d++)
            if (method_size_defaults[d].method == m && !(st->seen & (bits ? bit_flags : dim_flags)))
                own = d;
        if (!(st->dense_override & (1u << i))) {
            if (own >= 0 && method_size_defaults[own].ndense > 0)
                set_list(&cfg->dense_sizes[i], method_size_defaults[own].dense, method_size_defaults[own].ndense);
            else
                cfg->dense_sizes[i] = bits ? cfg->bits : cfg->sketch_dims;
        }
        if (st->topk_override & (1u << i))
            continue;
        if (st->dense_override & (1u << i))
            cfg->topk_sizes[i] = cfg->dense_sizes[i];
        else if (own >= 0 && method_size_defaults[own].ntopk > 0)
            set_list(&cfg->topk_sizes[i], method_size_defaults[own].topk, method_size_defaults[own].ntopk);
        else
            cfg->topk_sizes[i] = bits ? cfg->topk_bits : cfg->topk_sketch_dims;
    }
}

/* "method=a,b,..; ..." of the methods with own defaults in one mode (the --sizes / --topk-sizes help). */
static void method_defaults_text(int topk, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int d = 0; d < METHOD_SIZE_DEFAULTS && used < size; d++) {
        const int n = topk ? method_size_defaults[d].ntopk : method_size_defaults[d].ndense;
        const int32_t *v = topk ? method_size_defaults[d].topk : method_size_defaults[d].dense;
        if (n == 0)
            continue;
        used += (size_t)snprintf(buf + used, size - used, "%s%s=", used ? ", " : "",
                                 sketch_method_name(method_size_defaults[d].method));
        for (int j = 0; j < n && used < size; j++)
            used += (size_t)snprintf(buf + used, size - used, "%s%d", j ? "," : "", (int)v[j]);
    }
}

/* ------------------------------------------------------------------------ */
/* Queries of a configuration                                               */
/* ------------------------------------------------------------------------ */

int sweep_has_dataset(const sweep_config *cfg, sweep_data_kind d)
{
    for (int i = 0; i < cfg->ndatasets; i++)
        if (cfg->datasets[i] == d)
            return 1;
    return 0;
}

static int has_synthetic(const sweep_config *cfg)
{
    return sweep_has_dataset(cfg, SWEEP_DATA_GAUSSIAN) || sweep_has_dataset(cfg, SWEEP_DATA_LOWRANK) ||
           sweep_has_dataset(cfg, SWEEP_DATA_CLUSTERED) || sweep_has_dataset(cfg, SWEEP_DATA_TEXTURE);
}

const sweep_list *sweep_sizes(const sweep_config *cfg, unsigned mode, sketch_method method)
{
    int i = (int)(method - SKETCH_SIMHASH);
    return mode == SWEEP_MODE_DENSE ? &cfg->dense_sizes[i] : &cfg->topk_sizes[i];
}

void sweep_list_format(const sweep_list *list, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < list->count && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%d", i ? "," : "", (int)list->v[i]);
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

/* ------------------------------------------------------------------------ */
/* Parsers                                                                  */
/* ------------------------------------------------------------------------ */

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

/* One parser per option (the table's parse): value into st->cfg. */
static int parse_spec(const char *v, sweep_parse_state *st)
{
    (void)st;
    return v[0] != '\0'; /* read before the other flags (sweep_cli.c) */
}

static int parse_dry_run(const char *v, sweep_parse_state *st)
{
    (void)v;
    st->cfg->dry_run = 1;
    return 1;
}

static int parse_shard(const char *v, sweep_parse_state *st)
{
    char buf[64];
    const char *slash = strchr(v, '/');
    if (slash == NULL || (size_t)(slash - v) >= sizeof buf)
        return 0;
    memcpy(buf, v, (size_t)(slash - v));
    buf[slash - v] = '\0';
    int64_t i, n;
    if (!cli_parse_i64(buf, 0, INT32_MAX, &i) || !cli_parse_i64(slash + 1, 1, INT32_MAX, &n) || i >= n)
        return 0;
    st->cfg->shard_index = (int)i;
    st->cfg->shard_count = (int)n;
    return 1;
}

static int parse_out(const char *v, sweep_parse_state *st)
{
    st->cfg->out = v;
    return v[0] != '\0';
}

static int parse_overwrite(const char *v, sweep_parse_state *st)
{
    (void)v;
    st->cfg->overwrite = 1;
    return 1;
}

static int parse_mode(const char *v, sweep_parse_state *st)
{
    static const char *const names[] = { "dense", "topk", "both" };
    for (unsigned m = 0; m < 3; m++)
        if (strcmp(v, names[m]) == 0) {
            st->cfg->modes = m + 1; /* SWEEP_MODE_DENSE, SWEEP_MODE_TOPK, both bits */
            return 1;
        }
    return 0;
}

static int parse_methods(const char *v, sweep_parse_state *st)
{
    st->cfg->nmethods = 0;
    return split_list(v, SWEEP_NUM_METHODS, method_item, st->cfg) > 0;
}

static int parse_bits(const char *v, sweep_parse_state *st)
{
    return parse_list(v, SKETCH_MAX_BITS, &st->cfg->bits);
}

static int parse_sketch_dims(const char *v, sweep_parse_state *st)
{
    return parse_list(v, APPROX_MAX_SKETCH_DIM, &st->cfg->sketch_dims);
}

static int parse_topk_bits(const char *v, sweep_parse_state *st)
{
    return parse_list(v, SKETCH_MAX_BITS, &st->cfg->topk_bits);
}

static int parse_topk_sketch_dims(const char *v, sweep_parse_state *st)
{
    return parse_list(v, APPROX_MAX_SKETCH_DIM, &st->cfg->topk_sketch_dims);
}

static int parse_sizes(const char *v, sweep_parse_state *st)
{
    return parse_method_sizes(v, st->cfg->dense_sizes, &st->dense_override);
}

static int parse_topk_sizes(const char *v, sweep_parse_state *st)
{
    return parse_method_sizes(v, st->cfg->topk_sizes, &st->topk_override);
}

static int parse_datasets(const char *v, sweep_parse_state *st)
{
    st->cfg->ndatasets = 0;
    st->cfg->data_file = NULL;
    return split_list(v, SWEEP_NUM_DATA, dataset_item, st->cfg) > 0;
}

static int parse_k(const char *v, sweep_parse_state *st)
{
    return cli_parse_i64(v, 1, INT32_MAX, &st->cfg->k);
}

static int parse_data_dir(const char *v, sweep_parse_state *st)
{
    st->cfg->data_dir = v;
    return v[0] != '\0';
}

static int parse_alignment(const char *v, sweep_parse_state *st)
{
    return cli_parse_f64(v, 0.0, 1.0, &st->cfg->alignment);
}

static int parse_clusters(const char *v, sweep_parse_state *st)
{
    return cli_parse_i64(v, 1, INT32_MAX, &st->cfg->clusters);
}

static int parse_rank(const char *v, sweep_parse_state *st)
{
    return cli_parse_i64(v, 1, INT32_MAX, &st->cfg->rank);
}

static int parse_noise(const char *v, sweep_parse_state *st)
{
    return cli_parse_f64(v, 0.0, 1e30, &st->cfg->noise);
}

static int parse_beta(const char *v, sweep_parse_state *st)
{
    return cli_parse_f64(v, 0.0, DATASET_TEXTURE_MAX_BETA, &st->cfg->beta);
}

static int parse_dense_shapes(const char *v, sweep_parse_state *st)
{
    return parse_shapes(v, st->cfg->shapes, &st->cfg->nshapes);
}

static int parse_m(const char *v, sweep_parse_state *st)
{
    return set_shape_dim(v, st->cfg->shapes, st->cfg->nshapes, 0);
}

static int parse_n(const char *v, sweep_parse_state *st)
{
    return set_shape_dim(v, st->cfg->shapes, st->cfg->nshapes, 1);
}

static int parse_reps(const char *v, sweep_parse_state *st)
{
    return cli_parse_int(v, 1, 100000, &st->cfg->reps);
}

static int parse_topk_shapes(const char *v, sweep_parse_state *st)
{
    return parse_shapes(v, st->cfg->topk_shapes, &st->cfg->ntopk_shapes);
}

static int parse_queries(const char *v, sweep_parse_state *st)
{
    return set_shape_dim(v, st->cfg->topk_shapes, st->cfg->ntopk_shapes, 0);
}

static int parse_database(const char *v, sweep_parse_state *st)
{
    return set_shape_dim(v, st->cfg->topk_shapes, st->cfg->ntopk_shapes, 1);
}

static int parse_topk(const char *v, sweep_parse_state *st)
{
    return cli_parse_i64(v, 1, INT32_MAX, &st->cfg->topk);
}

static int parse_candidates(const char *v, sweep_parse_state *st)
{
    return parse_list(v, INT32_MAX, &st->cfg->candidates);
}

static int parse_topk_reps(const char *v, sweep_parse_state *st)
{
    return cli_parse_int(v, 1, 100000, &st->cfg->topk_reps);
}

static int parse_warmup(const char *v, sweep_parse_state *st)
{
    return cli_parse_int(v, 0, 100000, &st->cfg->warmup);
}

static int parse_threads(const char *v, sweep_parse_state *st)
{
    return parse_list_from(v, 0, SMM_MAX_THREADS, &st->cfg->threads);
}

static int parse_seeds(const char *v, sweep_parse_state *st)
{
    st->cfg->nseeds = 0;
    return split_list(v, SWEEP_MAX_LIST, seed_item, st->cfg) > 0;
}

/* ------------------------------------------------------------------------ */
/* Canonical spec values (NULL: the key does not apply to the configuration) */
/* ------------------------------------------------------------------------ */

static struct json_object *int_list(const sweep_list *list)
{
    struct json_object *a = json_object_new_array();
    for (int i = 0; a != NULL && i < list->count; i++)
        json_object_array_add(a, json_object_new_int64(list->v[i]));
    return a;
}

static struct json_object *shape_list(const sweep_shape *shapes, int count)
{
    struct json_object *a = json_object_new_array();
    for (int i = 0; a != NULL && i < count; i++) {
        char s[64];
        snprintf(s, sizeof s, "%lldx%lld", (long long)shapes[i].rows, (long long)shapes[i].cols);
        json_object_array_add(a, json_object_new_string(s));
    }
    return a;
}

/* A number as the shortest "%.Ng" text that reads back as the same double. */
static struct json_object *number(double v)
{
    char s[64];
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(s, sizeof s, "%.*g", prec, v);
        if (strtod(s, NULL) == v)
            break;
    }
    return json_object_new_double_s(v, s);
}

static struct json_object *sizes_object(const sweep_config *cfg, unsigned mode)
{
    struct json_object *o = json_object_new_object();
    for (int i = 0; o != NULL && i < cfg->nmethods; i++)
        json_object_object_add(o, sketch_method_name(cfg->methods[i]),
                               int_list(sweep_sizes(cfg, mode, cfg->methods[i])));
    return o;
}

static struct json_object *canonical_mode(const sweep_config *c)
{
    static const char *const names[] = { "", "dense", "topk", "both" };
    return json_object_new_string(names[c->modes & 3]);
}

static struct json_object *canonical_methods(const sweep_config *c)
{
    struct json_object *a = json_object_new_array();
    for (int i = 0; a != NULL && i < c->nmethods; i++)
        json_object_array_add(a, json_object_new_string(sketch_method_name(c->methods[i])));
    return a;
}

static struct json_object *canonical_datasets(const sweep_config *c)
{
    struct json_object *a = json_object_new_array();
    for (int i = 0; a != NULL && i < c->ndatasets; i++) {
        /* file data sets as given ("ann:FILE", "FILE:/PATH"): the file is part of the spec */
        char label[1100];
        json_object_array_add(a, json_object_new_string(sweep_data_label(c, c->datasets[i], label, sizeof label)));
    }
    return a;
}

static struct json_object *canonical_k(const sweep_config *c)
{
    return has_synthetic(c) ? json_object_new_int64(c->k) : NULL;
}

static struct json_object *canonical_alignment(const sweep_config *c)
{
    return sweep_has_dataset(c, SWEEP_DATA_CLUSTERED) ? number(c->alignment) : NULL;
}

static struct json_object *canonical_clusters(const sweep_config *c)
{
    return sweep_has_dataset(c, SWEEP_DATA_CLUSTERED) ? json_object_new_int64(c->clusters) : NULL;
}

static struct json_object *canonical_rank(const sweep_config *c)
{
    return sweep_has_dataset(c, SWEEP_DATA_LOWRANK) ? json_object_new_int64(c->rank) : NULL;
}

static struct json_object *canonical_noise(const sweep_config *c)
{
    return sweep_has_dataset(c, SWEEP_DATA_LOWRANK) ? number(c->noise) : NULL;
}

static struct json_object *canonical_beta(const sweep_config *c)
{
    return sweep_has_dataset(c, SWEEP_DATA_TEXTURE) ? number(c->beta) : NULL;
}

static struct json_object *canonical_seeds(const sweep_config *c)
{
    struct json_object *a = json_object_new_array();
    for (int i = 0; a != NULL && i < c->nseeds; i++)
        json_object_array_add(a, json_object_new_uint64(c->seeds[i]));
    return a;
}

static struct json_object *canonical_threads(const sweep_config *c)
{
    return int_list(&c->threads);
}

static struct json_object *canonical_warmup(const sweep_config *c)
{
    return json_object_new_int64(c->warmup);
}

static struct json_object *canonical_shapes(const sweep_config *c)
{
    return c->modes & SWEEP_MODE_DENSE ? shape_list(c->shapes, c->nshapes) : NULL;
}

static struct json_object *canonical_reps(const sweep_config *c)
{
    return c->modes & SWEEP_MODE_DENSE ? json_object_new_int64(c->reps) : NULL;
}

static struct json_object *canonical_sizes(const sweep_config *c)
{
    return c->modes & SWEEP_MODE_DENSE ? sizes_object(c, SWEEP_MODE_DENSE) : NULL;
}

static struct json_object *canonical_topk_shapes(const sweep_config *c)
{
    return c->modes & SWEEP_MODE_TOPK ? shape_list(c->topk_shapes, c->ntopk_shapes) : NULL;
}

static struct json_object *canonical_topk(const sweep_config *c)
{
    return c->modes & SWEEP_MODE_TOPK ? json_object_new_int64(c->topk) : NULL;
}

static struct json_object *canonical_candidates(const sweep_config *c)
{
    return c->modes & SWEEP_MODE_TOPK ? int_list(&c->candidates) : NULL;
}

static struct json_object *canonical_topk_reps(const sweep_config *c)
{
    return c->modes & SWEEP_MODE_TOPK ? json_object_new_int64(c->topk_reps) : NULL;
}

static struct json_object *canonical_topk_sizes(const sweep_config *c)
{
    return c->modes & SWEEP_MODE_TOPK ? sizes_object(c, SWEEP_MODE_TOPK) : NULL;
}

/* ------------------------------------------------------------------------ */
/* Values as flag text (the help's defaults)                                */
/* ------------------------------------------------------------------------ */

static void text_out(const sweep_config *c, char *buf, size_t size)
{
    snprintf(buf, size, "%s", c->out);
}

static void text_mode(const sweep_config *c, char *buf, size_t size)
{
    static const char *const names[] = { "", "dense", "topk", "both" };
    snprintf(buf, size, "%s", names[c->modes & 3]);
}

static void text_methods(const sweep_config *c, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->nmethods && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", sketch_method_name(c->methods[i]));
}

static void text_bits(const sweep_config *c, char *buf, size_t size)
{
    sweep_list_format(&c->bits, buf, size);
}

static void text_sketch_dims(const sweep_config *c, char *buf, size_t size)
{
    sweep_list_format(&c->sketch_dims, buf, size);
}

static void text_topk_bits(const sweep_config *c, char *buf, size_t size)
{
    sweep_list_format(&c->topk_bits, buf, size);
}

static void text_topk_sketch_dims(const sweep_config *c, char *buf, size_t size)
{
    sweep_list_format(&c->topk_sketch_dims, buf, size);
}

static void text_sizes(const sweep_config *c, char *buf, size_t size)
{
    (void)c;
    method_defaults_text(0, buf, size);
}

static void text_topk_sizes(const sweep_config *c, char *buf, size_t size)
{
    (void)c;
    method_defaults_text(1, buf, size);
}

static void text_datasets(const sweep_config *c, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->ndatasets && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? "," : "", sweep_data_names[c->datasets[i]]);
}

static void text_k(const sweep_config *c, char *buf, size_t size)
{
    snprintf(buf, size, "%lld", (long long)c->k);
}

static void text_alignment(const sweep_config *c, char *buf, size_t size)
{
    snprintf(buf, size, "%g", c->alignment);
}

static void text_clusters(const sweep_config *c, char *buf, size_t size)
{
    snprintf(buf, size, "%lld", (long long)c->clusters);
}

static void text_rank(const sweep_config *c, char *buf, size_t size)
{
    snprintf(buf, size, "%lld", (long long)c->rank);
}

static void text_noise(const sweep_config *c, char *buf, size_t size)
{
    snprintf(buf, size, "%g", c->noise);
}

static void text_beta(const sweep_config *c, char *buf, size_t size)
{
    snprintf(buf, size, "%g", c->beta);
}

static void shapes_text(const sweep_shape *shapes, int count, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < count && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%lldx%lld", i ? "," : "", (long long)shapes[i].rows,
                                 (long long)shapes[i].cols);
}

static void text_shapes(const sweep_config *c, char *buf, size_t size)
{
    shapes_text(c->shapes, c->nshapes, buf, size);
}

static void text_reps(const sweep_config *c, char *buf, size_t size)
{
    snprintf(buf, size, "%d", c->reps);
}

static void text_topk_shapes(const sweep_config *c, char *buf, size_t size)
{
    shapes_text(c->topk_shapes, c->ntopk_shapes, buf, size);
}

static void text_topk(const sweep_config *c, char *buf, size_t size)
{
    snprintf(buf, size, "%lld", (long long)c->topk);
}

static void text_candidates(const sweep_config *c, char *buf, size_t size)
{
    sweep_list_format(&c->candidates, buf, size);
}

static void text_topk_reps(const sweep_config *c, char *buf, size_t size)
{
    snprintf(buf, size, "%d", c->topk_reps);
}

static void text_warmup(const sweep_config *c, char *buf, size_t size)
{
    snprintf(buf, size, "%d", c->warmup);
}

static void text_threads(const sweep_config *c, char *buf, size_t size)
{
    sweep_list_format(&c->threads, buf, size);
}

static void text_seeds(const sweep_config *c, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->nseeds && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%llu", i ? "," : "", (unsigned long long)c->seeds[i]);
}

/* ------------------------------------------------------------------------ */
/* The table                                                                */
/* ------------------------------------------------------------------------ */

static const char RUN[] = "Spec and run", METHODS[] = "Modes and methods", DATA[] = "Data",
                  DENSE[] = "Dense mode", TOPK[] = "Top-k mode", BOTH[] = "Both modes";

/* name, alias, arg, section, key, canonical_order, seen, parse, canonical, text, help */
static const sweep_option table[] = {
    { "spec", NULL, "FILE.json", RUN, SWEEP_KEY_NONE, 0, 0, parse_spec, NULL, NULL,
      "read the grid from a spec file (format below); flags\n"
      "given too override its keys" },
    { "dry-run", NULL, NULL, RUN, SWEEP_KEY_NONE, 0, 0, parse_dry_run, NULL, NULL,
      "print the configurations (of the shard) one per line,\n"
      "their number and the effective spec; run nothing" },
    { "shard", NULL, "I/N", RUN, SWEEP_KEY_NONE, 0, 0, parse_shard, NULL, NULL,
      "run shard I of N (0 <= I < N): the contiguous block of\n"
      "configurations floor(I T / N) .. floor((I+1) T / N) - 1\n"
      "of the T of the grid (blocks, not round-robin, keep a\n"
      "context's data and timing groups together). Combine the\n"
      "shard files with `sketchmm_sweep merge`. On a cluster,\n"
      "experiments/slurm/sweep.sbatch runs one shard per SLURM\n"
      "array task" },
    { "out", NULL, "FILE.h5", RUN, SWEEP_KEY_NONE, 0, 0, parse_out, NULL, text_out,
      "results file (default {default}); its directory is\n"
      "created if needed. If it exists and holds the same spec,\n"
      "the sweep resumes: configurations already in it (by\n"
      "config_hash) are skipped and new rows appended. A file\n"
      "of another spec is refused (exit status 2), and so is\n"
      "a file the sweep reads (its spec, a data set file)" },
    { "overwrite", NULL, NULL, RUN, SWEEP_KEY_NONE, 0, 0, parse_overwrite, NULL, NULL,
      "replace an existing --out file instead of resuming" },

    { "mode", NULL, "MODE", METHODS, SWEEP_KEY_STRING, 1, 0, parse_mode, canonical_mode, text_mode,
      "dense | topk | both (default {default}: dense, then top-k)" },
    { "methods", NULL, "LIST", METHODS, SWEEP_KEY_STRING_LIST, 2, 0, parse_methods, canonical_methods, text_methods,
      "comma-separated sketch_method_name()s: the sketch\n"
      "families simhash, simhash_orthogonal, simhash_structured,\n"
      "crosspolytope are sized in bits, the others by the sketch\n"
      "dimension s (pq: its subspaces M, maddness: its codebooks\n"
      "C). Default: {default}" },
    { "bits", NULL, "LIST", METHODS, SWEEP_KEY_INT_LIST, 0, SEEN_BITS, parse_bits, NULL, text_bits,
      "sketch lengths of the four sketch families, each\n"
      "1..65535, for both modes (default {default}; top-k\n"
      "default: --topk-bits)" },
    { "sketch-dims", NULL, "LIST", METHODS, SWEEP_KEY_INT_LIST, 0, SEEN_SKETCH_DIMS, parse_sketch_dims, NULL,
      text_sketch_dims,
      "sketch dimensions s of the other methods, each\n"
      "1..1048576, for both modes (default {default}; top-k\n"
      "default: --topk-sketch-dims)" },
    { "topk-bits", NULL, "LIST", METHODS, SWEEP_KEY_INT_LIST, 0, SEEN_TOPK_BITS | SEEN_TOPK_ONLY, parse_topk_bits,
      NULL, text_topk_bits, "--bits for top-k mode only (default {default})" },
    { "topk-sketch-dims", NULL, "LIST", METHODS, SWEEP_KEY_INT_LIST, 0, SEEN_TOPK_SKETCH_DIMS | SEEN_TOPK_ONLY,
      parse_topk_sketch_dims, NULL, text_topk_sketch_dims, "--sketch-dims for top-k mode only (default {default})" },
    { "sizes", NULL, "METHOD=LIST", METHODS, SWEEP_KEY_SIZES, 14, SEEN_SIZES, parse_sizes, canonical_sizes,
      text_sizes,
      "the sizes of one method in both modes (bits or s by\n"
      "the method), overriding the lists above; repeatable.\n"
      "Methods with dense sizes of their own while no list of\n"
      "their kind is given: {default}" },
    { "topk-sizes", NULL, "METHOD=LIST", METHODS, SWEEP_KEY_SIZES, 19, SEEN_TOPK_ONLY, parse_topk_sizes,
      canonical_topk_sizes, text_topk_sizes,
      "the same for top-k mode only. Methods with top-k sizes\n"
      "of their own while no list of their kind is given:\n"
      "{default} (cross-polytope's encoding is the\n"
      "slowest; the rank a data-aware method needs is far below\n"
      "the random projections' s)" },

    { "datasets", "dataset", "LIST", DATA, SWEEP_KEY_STRING_LIST, 3, 0, parse_datasets, canonical_datasets,
      text_datasets,
      "fashion-mnist, gaussian, lowrank, clustered, texture,\n"
      "FILE.h5:/PATH, ann:FILE.h5 (default {default}; pixels in\n"
      "[0, 1], k = 784. Dense: A = training images 0..m-1, B =\n"
      "the next n training images, a Gram product of different\n"
      "images, highly aligned. Top-k: queries = the first M test\n"
      "images (t10k), database = the first N training images.\n"
      "Synthetic data: m + n (M + N) generated vectors from the\n"
      "configuration's seed, split the same way)\n\n"
      "FILE.h5:/PATH: any 2-D numeric dataset of an HDF5 file,\n"
      "one vector per row, k = its columns; dense: A = rows\n"
      "0..m-1, B = the next n rows; top-k: queries = rows\n"
      "0..M-1, database = the next N rows.\n\n"
      "ann:FILE.h5: an ann-benchmarks file (/train, /test, e.g.\n"
      "from sketchmm_make_ann), k = its dimension; dense: A and\n"
      "B from /train as for fashion-mnist; top-k: queries = the\n"
      "first M rows of /test, database = the first N rows of\n"
      "/train. At most one file data set per sweep" },
    { "k", NULL, "K", DATA, SWEEP_KEY_INT, 4, SEEN_K, parse_k, canonical_k, text_k,
      "dimension, synthetic data only (default {default};\n"
      "Fashion-MNIST always has k = 784, file data sets the k of\n"
      "the file)" },
    { "data-dir", NULL, "DIR", DATA, SWEEP_KEY_NONE, 0, SEEN_DATA_DIR, parse_data_dir, NULL, NULL,
      "Fashion-MNIST directory holding train-images-idx3-ubyte.gz\n"
      "and t10k-images-idx3-ubyte.gz (default\n"
      "$SKETCHMM_FASHION_MNIST_DIR, else\n"
      "/usr/share/datasets/fashion-mnist)" },
    { "alignment", NULL, "A", DATA, SWEEP_KEY_NUMBER, 5, SEEN_ALIGNMENT, parse_alignment, canonical_alignment,
      text_alignment,
      "clustered: expected cosine between two vectors of the\n"
      "same cluster, in [0, 1] (default {default})" },
    { "clusters", NULL, "C", DATA, SWEEP_KEY_INT, 6, SEEN_CLUSTERS, parse_clusters, canonical_clusters, text_clusters,
      "clustered: number of clusters (default {default}); vector i\n"
      "is in cluster i mod C" },
    { "rank", NULL, "R", DATA, SWEEP_KEY_INT, 7, SEEN_RANK, parse_rank, canonical_rank, text_rank,
      "lowrank: rank of the noise-free part (default {default})" },
    { "noise", NULL, "S", DATA, SWEEP_KEY_NUMBER, 8, SEEN_NOISE, parse_noise, canonical_noise, text_noise,
      "lowrank: standard deviation of the added Gaussian noise,\n"
      "relative to unit-variance low-rank entries (default {default})" },
    { "beta", NULL, "B", DATA, SWEEP_KEY_NUMBER, 20, SEEN_BETA, parse_beta, canonical_beta, text_beta,
      "texture: spectral exponent of the images, power 1 / f^B,\n"
      "in [0, 8] (default {default}: a natural image's; 0 white\n"
      "noise, larger smoother)" },

    { "shapes", NULL, "LIST", DENSE, SWEEP_KEY_STRING_LIST, 12, SEEN_DENSE_ONLY, parse_dense_shapes,
      canonical_shapes, text_shapes, "shapes MxN: A m x k times B k x n (default {default})" },
    { "m", NULL, "M", DENSE, SWEEP_KEY_NONE, 0, SEEN_DENSE_ONLY, parse_m, NULL, NULL, NULL },
    { "n", NULL, "N", DENSE, SWEEP_KEY_NONE, 0, SEEN_DENSE_ONLY, parse_n, NULL, NULL, "set m (n) of every dense shape" },
    { "reps", NULL, "R", DENSE, SWEEP_KEY_INT, 13, SEEN_DENSE_ONLY, parse_reps, canonical_reps, text_reps,
      "rounds per (method, size), >= 1 (default {default})" },

    { "topk-shapes", NULL, "LIST", TOPK, SWEEP_KEY_STRING_LIST, 15, SEEN_TOPK_ONLY, parse_topk_shapes,
      canonical_topk_shapes, text_topk_shapes,
      "shapes QUERIESxDATABASE (default {default}; at most\n"
      "10000 test and 60000 training images for fashion-mnist)" },
    { "queries", NULL, "M", TOPK, SWEEP_KEY_NONE, 0, SEEN_TOPK_ONLY, parse_queries, NULL, NULL, NULL },
    { "database", NULL, "N", TOPK, SWEEP_KEY_NONE, 0, SEEN_TOPK_ONLY, parse_database, NULL, NULL,
      "set the queries (database size) of every top-k shape" },
    { "topk", NULL, "K", TOPK, SWEEP_KEY_INT, 16, SEEN_TOPK_ONLY, parse_topk, canonical_topk, text_topk,
      "entries kept per query, 1..N (default {default}); recall\n"
      "is reported at K and at each of 1, 10, 100 up to K" },
    { "candidates", NULL, "LIST", TOPK, SWEEP_KEY_INT_LIST, 17, SEEN_TOPK_ONLY, parse_candidates,
      canonical_candidates, text_candidates,
      "candidates per query that approx_plan_topk refines\n"
      "exactly (default {default}); values below K or above\n"
      "the largest N are dropped, values above a shape's N\n"
      "skipped for that shape; N itself makes the result exact" },
    { "topk-reps", NULL, "R", TOPK, SWEEP_KEY_INT, 18, SEEN_TOPK_ONLY, parse_topk_reps, canonical_topk_reps,
      text_topk_reps, "rounds per method, >= 1 (default {default})" },

    { "warmup", NULL, "W", BOTH, SWEEP_KEY_INT, 11, 0, parse_warmup, canonical_warmup, text_warmup,
      "untimed approximate runs before each group's rounds,\n"
      "and untimed exact runs before the reference run, >= 0\n"
      "(default {default})" },
    { "threads", NULL, "LIST", BOTH, SWEEP_KEY_INT_LIST, 10, 0, parse_threads, canonical_threads, text_threads,
      "thread counts, each 0..4096; 0 (the default {default}) is\n"
      "the library default, i.e. SKETCHMM_NUM_THREADS or\n"
      "OpenMP's maximum" },
    { "seeds", "seed", "LIST", BOTH, SWEEP_KEY_INT_LIST, 9, 0, parse_seeds, canonical_seeds, text_seeds,
      "seeds of the methods and of the synthetic data (default\n"
      "{default}; decimal or 0x-prefixed hex)" },
};
#define NOPTIONS ((int)(sizeof table / sizeof table[0]))

const sweep_option *sweep_option_named(const char *name)
{
    for (int i = 0; i < NOPTIONS; i++)
        if (strcmp(name, table[i].name) == 0 || (table[i].alias != NULL && strcmp(name, table[i].alias) == 0))
            return &table[i];
    return NULL;
}

const sweep_option *sweep_option_of_key(const char *key)
{
    char flag[64];
    if (strlen(key) >= sizeof flag)
        return NULL;
    for (size_t c = 0; c <= strlen(key); c++)
        flag[c] = key[c] == '_' ? '-' : key[c];
    const sweep_option *o = sweep_option_named(flag);
    /* only names are keys (not aliases), and only options that have a key */
    return o != NULL && o->key != SWEEP_KEY_NONE && strcmp(o->name, flag) == 0 ? o : NULL;
}

int sweep_option_apply(const sweep_option *o, const char *value, sweep_parse_state *st, char *why,
                       size_t why_size)
{
    list_error[0] = '\0';
    const int ok = o->parse(value, st);
    if (why != NULL && why_size > 0)
        snprintf(why, why_size, "%s", ok ? "" : list_error);
    if (ok) {
        st->seen |= o->seen;
        if (!st->from_spec)
            st->cli_seen |= o->seen & (SEEN_DENSE_ONLY | SEEN_TOPK_ONLY);
    }
    return ok;
}

/* Help text is printed from column 20 and wrapped at column 78. */
#define HELP_WIDTH 58

/* One line of help (len bytes at line), wrapped at spaces to HELP_WIDTH; *first: nothing printed yet. */
static void print_wrapped(FILE *f, const char *line, size_t len, int *first)
{
    while (len > 0) {
        size_t take = len;
        if (take > HELP_WIDTH) {
            take = HELP_WIDTH;
            while (take > 0 && line[take] != ' ')
                take--;
            if (take == 0) /* one word longer than the width: print it whole */
                for (take = HELP_WIDTH; take < len && line[take] != ' '; take++)
                    ;
        }
        fprintf(f, "%*s%.*s\n", *first ? 0 : 20, "", (int)take, line);
        *first = 0;
        while (take < len && line[take] == ' ')
            take++;
        line += take;
        len -= take;
    }
}

/*
 * Print help text, "{default}" replaced by def: its line breaks are spaces (the text is wrapped here)
 * except a blank line, which starts a new paragraph; lines after the first indented to column 20.
 */
static void print_text(FILE *f, const char *help, const char *def)
{
    char text[2048];
    size_t used = 0;
    for (const char *p = help; *p != '\0' && used + 1 < sizeof text; p++) {
        if (strncmp(p, "{default}", 9) == 0) {
            used += (size_t)snprintf(text + used, sizeof text - used, "%s", def);
            p += 8;
        } else {
            text[used++] = *p;
        }
    }
    text[used < sizeof text ? used : sizeof text - 1] = '\0';
    int first = 1;
    for (char *para = text; para != NULL;) {
        char *next = strstr(para, "\n\n");
        if (next != NULL) {
            *next = '\0';
            next += 2;
        }
        for (char *c = para; *c != '\0'; c++)
            if (*c == '\n')
                *c = ' ';
        print_wrapped(f, para, strlen(para), &first);
        para = next;
    }
}

void sweep_options_help(FILE *f)
{
    sweep_config defaults;
    sweep_defaults(&defaults);
    const char *section = NULL;
    char label[256] = "";
    for (int i = 0; i < NOPTIONS; i++) {
        const sweep_option *o = &table[i];
        if (section == NULL || strcmp(section, o->section) != 0) {
            fprintf(f, "%s%s\n", section != NULL ? "\n" : "", o->section);
            section = o->section;
        }
        char one[96];
        snprintf(one, sizeof one, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        size_t used = strlen(label);
        snprintf(label + used, sizeof label - used, "%s%s", used ? ", " : "", one);
        if (o->alias != NULL) {
            used = strlen(label);
            snprintf(label + used, sizeof label - used, " (or --%s)", o->alias);
        }
        if (o->help == NULL) /* described with the next option */
            continue;
        char def[512] = "";
        if (o->text != NULL)
            o->text(&defaults, def, sizeof def);
        if (strlen(label) <= 16)
            fprintf(f, "  %-16s  ", label);
        else
            fprintf(f, "  %s\n%20s", label, "");
        print_text(f, o->help, def);
        label[0] = '\0';
    }
    fprintf(f, "  -h, --help        this text\n");
}

void sweep_spec_keys_help(FILE *f)
{
    static const char *const type_names[] = { "", "integer", "number", "string", "list of integers",
                                              "list of strings", "object {\"method\": [sizes]}" };
    int column = 2;
    fprintf(f, " ");
    for (int i = 0; i < NOPTIONS; i++) {
        if (table[i].key == SWEEP_KEY_NONE)
            continue;
        char key[64], item[128];
        size_t c = 0;
        for (; table[i].name[c] != '\0' && c < sizeof key - 1; c++)
            key[c] = table[i].name[c] == '-' ? '_' : table[i].name[c];
        key[c] = '\0';
        const int n = snprintf(item, sizeof item, " %s (%s)%s", key, type_names[table[i].key],
                               i + 1 < NOPTIONS ? "," : "");
        if (column + n > 78) {
            fprintf(f, "\n ");
            column = 2;
        }
        fprintf(f, "%s", item);
        column += n;
    }
    fprintf(f, "\n");
}

struct json_object *sweep_options_canonical(const sweep_config *cfg)
{
    struct json_object *o = json_object_new_object();
    for (int order = 1; o != NULL && order <= NOPTIONS; order++)
        for (int i = 0; i < NOPTIONS; i++) {
            if (table[i].canonical_order != order || table[i].canonical == NULL)
                continue;
            struct json_object *v = table[i].canonical(cfg);
            if (v == NULL)
                continue;
            char key[64];
            size_t c = 0;
            for (; table[i].name[c] != '\0' && c < sizeof key - 1; c++)
                key[c] = table[i].name[c] == '-' ? '_' : table[i].name[c];
            key[c] = '\0';
            json_object_object_add(o, key, v);
        }
    return o;
}
