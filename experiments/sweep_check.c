/*
 * sweep_check.c - the integrity of a results file's rows: every row is
 * checked against the spec it was measured for before a sweep resumes into
 * the file or merges it. See sweep.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "sweep_check.h"
#include "sweep_spec.h"

/* A fixed-length field of a row as a C string (it may lack its NUL when damaged). */
static void field_text(const char *field, size_t size, char *buf)
{
    memcpy(buf, field, size);
    buf[size] = '\0';
}

/*
 * The configuration a row claims, as a sweep_point (threads as in the row);
 * NULL why when its names and sizes are those of a configuration, else why
 * they are not.
 */
static const char *row_point(const results_row *row, sweep_point *p)
{
    char mode[RESULTS_MODE_LEN + 1], method[RESULTS_METHOD_LEN + 1], data[RESULTS_DATASET_LEN + 1];
    field_text(row->mode, sizeof row->mode, mode);
    field_text(row->method, sizeof row->method, method);
    field_text(row->dataset, sizeof row->dataset, data);
    memset(p, 0, sizeof *p);
    if (strcmp(mode, "dense") == 0)
        p->mode = SWEEP_MODE_DENSE;
    else if (strcmp(mode, "topk") == 0)
        p->mode = SWEEP_MODE_TOPK;
    else
        return "its mode is neither dense nor topk";
    int d = 0;
    while (d < SWEEP_NUM_DATA && strcmp(data, sweep_data_names[d]) != 0)
        d++;
    if (d == SWEEP_NUM_DATA)
        return "its dataset is not one the sweep knows";
    p->data = (sweep_data_kind)d;
    p->method = sketch_method_from_name(method);
    if (p->method == 0 || (int)p->method > SWEEP_LAST_METHOD)
        return "its method is not one the sweep knows";
    int bits = sketch_method_uses_bits(p->method);
    p->size = bits ? row->bits : row->sketch_dim;
    if (p->size <= 0 || (bits ? row->sketch_dim : row->bits) != 0)
        return "its size fields do not fit its method";
    p->index = row->config_index;
    p->m = row->m;
    p->n = row->n;
    p->k = row->k;
    p->topk = row->topk;
    p->candidates = row->candidates;
    p->seed = row->seed;
    return NULL;
}

/*
 * 1 when row's config_hash is the hash of the key of its own configuration
 * under cfg, for one of the spec's thread counts that the row's resolved
 * count can stand for (equal, or 0: the library default).
 */
static int hash_matches(const sweep_config *cfg, const results_row *row, sweep_point *p)
{
    for (int i = 0; i < cfg->threads.count; i++) {
        int32_t t = cfg->threads.v[i];
        if (t != 0 && t != row->threads)
            continue;
        p->threads = t;
        char key[SWEEP_KEY_MAX];
        sweep_point_key(cfg, p, key, sizeof key);
        if (XXH3_64bits(key, strlen(key)) == row->config_hash)
            return 1;
    }
    return 0;
}

/* A row's value (a hash or an index) and its position, sorted to find values seen twice. */
typedef struct {
    uint64_t value;
    int64_t row;
} keyed_row;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed_row *x = a, *y = b;
    if (x->value != y->value)
        return (x->value > y->value) - (x->value < y->value);
    return (x->row > y->row) - (x->row < y->row);
}

/* Mark in why[] every row whose value an earlier good row already has. */
static void mark_repeats(keyed_row *keys, int64_t n, const char **why, const char *what)
{
    qsort(keys, (size_t)n, sizeof *keys, cmp_keyed);
    for (int64_t i = 1; i < n; i++)
        if (keys[i].value == keys[i - 1].value && why[keys[i].row] == NULL)
            why[keys[i].row] = what;
}

int64_t sweep_check_rows(const sweep_config *cfg, int64_t grid_size, const sweep_grid *grid,
                         const results_row *rows, int64_t count, const unsigned char *unreadable,
                         const char **reasons, char *msg, size_t msg_size)
{
    const char **why = calloc((size_t)(count > 0 ? count : 1), sizeof *why);
    keyed_row *hashes = malloc((size_t)(count > 0 ? count : 1) * sizeof *hashes);
    keyed_row *indices = malloc((size_t)(count > 0 ? count : 1) * sizeof *indices);
    if (why == NULL || hashes == NULL || indices == NULL) {
        snprintf(msg, msg_size, "out of memory checking %lld rows", (long long)count);
        for (int64_t i = 0; reasons != NULL && i < count; i++)
            reasons[i] = "not checked (out of memory)";
        free(why);
        free(hashes);
        free(indices);
        return count > 0 ? count : 1;
    }
    int64_t n = 0;
    for (int64_t i = 0; i < count; i++) {
        const results_row *r = &rows[i];
        sweep_point p;
        if (unreadable != NULL && unreadable[i])
            why[i] = "its chunk fails its checksum";
        else if ((why[i] = row_point(r, &p)) != NULL)
            ;
        else if (r->config_index < 0 || r->config_index >= grid_size)
            why[i] = "config_index is outside the grid";
        else if (!hash_matches(cfg, r, &p))
            why[i] = "config_hash does not match the row's configuration";
        else if (grid != NULL && grid->points[r->config_index].hash != r->config_hash)
            why[i] = "config_index names another configuration of the grid";
        if (why[i] == NULL) {
            hashes[n] = (keyed_row){ r->config_hash, i };
            indices[n++] = (keyed_row){ (uint64_t)r->config_index, i };
        }
    }
    mark_repeats(hashes, n, why, "an earlier row holds the same configuration");
    mark_repeats(indices, n, why, "an earlier row holds the same config_index");

    int64_t nbad = 0;
    size_t used = 0;
    msg[0] = '\0';
    for (int64_t i = 0; i < count; i++) {
        if (reasons != NULL)
            reasons[i] = why[i];
        if (why[i] == NULL)
            continue;
        if (nbad < 3 && used < msg_size && unreadable != NULL && unreadable[i])
            used += (size_t)snprintf(msg + used, msg_size - used, "%srow %lld: %s", nbad ? "; " : "", (long long)i,
                                     why[i]);
        else if (nbad < 3 && used < msg_size)
            used += (size_t)snprintf(msg + used, msg_size - used, "%srow %lld (config_index %lld): %s",
                                     nbad ? "; " : "", (long long)i, (long long)rows[i].config_index, why[i]);
        nbad++;
    }
    if (nbad > 3 && used < msg_size)
        snprintf(msg + used, msg_size - used, "; and %lld more", (long long)(nbad - 3));
    free(why);
    free(hashes);
    free(indices);
    return nbad;
}

smm_status sweep_check_file(const char *path, results_file **file, char **spec, results_row **rows,
                            int64_t *count, const char ***why, int64_t *nbad, char *msg, size_t msg_size)
{
    *file = NULL;
    *spec = NULL;
    *rows = NULL;
    *count = 0;
    *why = NULL;
    *nbad = 0;
    char text[1024];
    smm_status s = results_open(path, 0, file, text, sizeof text);
    if (s != SMM_OK) {
        snprintf(msg, msg_size, "%s", text);
        return s;
    }
    int64_t grid_size = 0;
    unsigned char *unreadable = NULL;
    sweep_config *cfg = malloc(sizeof *cfg);
    if (cfg == NULL) {
        s = SMM_ERR_NO_MEMORY;
        snprintf(msg, msg_size, "%s: %s", path, dataset_status_str(s));
    } else if (results_get_attr_string(*file, "spec", spec) != SMM_OK) {
        s = DATASET_ERR_BAD_FORMAT;
        snprintf(msg, msg_size, "%s has no spec attribute", path);
    } else if (results_get_attr_int64(*file, "grid_size", &grid_size) != SMM_OK) {
        s = DATASET_ERR_BAD_FORMAT;
        snprintf(msg, msg_size, "%s has no grid_size attribute", path);
    } else if (!sweep_config_from_spec(*spec, cfg, text, sizeof text)) {
        s = DATASET_ERR_BAD_FORMAT;
        snprintf(msg, msg_size, "%s: its spec attribute cannot be read: %s", path, text);
    } else if ((s = results_read_rows(*file, rows, count, &unreadable)) != SMM_OK) {
        snprintf(msg, msg_size, "cannot read the rows of %s: %s", path, dataset_status_str(s));
    } else if ((*why = calloc((size_t)(*count > 0 ? *count : 1), sizeof **why)) == NULL) {
        s = SMM_ERR_NO_MEMORY;
        snprintf(msg, msg_size, "%s: %s", path, dataset_status_str(s));
    } else {
        *nbad = sweep_check_rows(cfg, grid_size, NULL, *rows, *count, unreadable, *why, msg, msg_size);
    }
    free(cfg);
    free(unreadable);
    if (s != SMM_OK) {
        results_close(*file);
        *file = NULL;
        free(*spec);
        *spec = NULL;
        free(*rows);
        *rows = NULL;
        *count = 0;
        free((void *)*why);
        *why = NULL;
    }
    return s;
}
