/*
 * sweep_grid.c - the configurations of a sweep: the grid in its fixed order,
 * each configuration's canonical key and hash, and the shards. See sweep.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "sweep_grid.h"
#include "sweep_data.h"
#include "sweep_options.h"

/*
 * k of a dataset in one mode (sweep_data_get_shape): 784 for Fashion-MNIST,
 * the configured k for synthetic data, the columns of a file's matrix. 0 when
 * a file cannot be read (sweep_parse_args has read it already; loading the
 * context then fails and says why).
 */
static int64_t data_k(const sweep_config *cfg, sweep_data_kind d, unsigned mode)
{
    sweep_data_shape shape;
    char msg[1024];
    return sweep_data_get_shape(cfg, d, mode, &shape, msg, sizeof msg) == SMM_OK ? shape.k : 0;
}

/* The configurations of one mode, appended to grid (points has room when points != NULL). */
static int64_t expand_mode(const sweep_config *cfg, unsigned mode, sweep_point *points, int64_t count)
{
    const sweep_shape *shapes = mode == SWEEP_MODE_DENSE ? cfg->shapes : cfg->topk_shapes;
    int nshapes = mode == SWEEP_MODE_DENSE ? cfg->nshapes : cfg->ntopk_shapes;
    for (int di = 0; di < cfg->ndatasets; di++) {
        int64_t k = points != NULL ? data_k(cfg, cfg->datasets[di], mode) : 0;
        for (int hi = 0; hi < nshapes; hi++)
            for (int ei = 0; ei < cfg->nseeds; ei++)
                for (int ti = 0; ti < cfg->threads.count; ti++)
                    for (int mi = 0; mi < cfg->nmethods; mi++) {
                        const sweep_list *sizes = sweep_sizes(cfg, mode, cfg->methods[mi]);
                        int ncand = mode == SWEEP_MODE_DENSE ? 1 : cfg->candidates.count;
                        for (int si = 0; si < sizes->count; si++)
                            for (int ci = 0; ci < ncand; ci++) {
                                int32_t cand = mode == SWEEP_MODE_DENSE ? 0 : cfg->candidates.v[ci];
                                if (cand > shapes[hi].cols) /* more candidates than database vectors */
                                    continue;
                                if (points != NULL) {
                                    sweep_point *p = &points[count];
                                    memset(p, 0, sizeof *p);
                                    p->index = count;
                                    p->mode = mode;
                                    p->data = cfg->datasets[di];
                                    p->m = shapes[hi].rows;
                                    p->n = shapes[hi].cols;
                                    p->k = k;
                                    p->topk = mode == SWEEP_MODE_DENSE ? 0 : (int32_t)cfg->topk;
                                    p->candidates = cand;
                                    p->seed = cfg->seeds[ei];
                                    p->threads = cfg->threads.v[ti];
                                    p->method = cfg->methods[mi];
                                    p->size = sizes->v[si];
                                    char key[SWEEP_KEY_MAX];
                                    sweep_point_key(cfg, p, key, sizeof key);
                                    p->hash = XXH3_64bits(key, strlen(key));
                                }
                                count++;
                            }
                    }
    }
    return count;
}

static int64_t expand(const sweep_config *cfg, sweep_point *points)
{
    int64_t count = 0;
    if (cfg->modes & SWEEP_MODE_DENSE)
        count = expand_mode(cfg, SWEEP_MODE_DENSE, points, count);
    if (cfg->modes & SWEEP_MODE_TOPK)
        count = expand_mode(cfg, SWEEP_MODE_TOPK, points, count);
    return count;
}

smm_status sweep_grid_expand(const sweep_config *cfg, sweep_grid *grid)
{
    grid->points = NULL;
    grid->count = 0;
    int64_t count = expand(cfg, NULL);
    sweep_point *points = calloc((size_t)(count > 0 ? count : 1), sizeof *points);
    if (points == NULL)
        return SMM_ERR_NO_MEMORY;
    grid->count = expand(cfg, points);
    grid->points = points;
    return SMM_OK;
}

void sweep_grid_free(sweep_grid *grid)
{
    free(grid->points);
    grid->points = NULL;
    grid->count = 0;
}

void sweep_point_key(const sweep_config *cfg, const sweep_point *p, char *buf, size_t size)
{
    char data[SWEEP_KEY_MAX / 2] = "";
    if (p->data == SWEEP_DATA_H5 || p->data == SWEEP_DATA_ANN)
        snprintf(data, sizeof data, ";file=%s", cfg->data_file != NULL ? cfg->data_file : "");
    else if (p->data == SWEEP_DATA_CLUSTERED)
        snprintf(data, sizeof data, ";clusters=%lld;alignment=%.17g", (long long)cfg->clusters,
                 cfg->alignment);
    else if (p->data == SWEEP_DATA_LOWRANK)
        snprintf(data, sizeof data, ";rank=%lld;noise=%.17g", (long long)cfg->rank, cfg->noise);
    else if (p->data == SWEEP_DATA_TEXTURE)
        snprintf(data, sizeof data, ";beta=%.17g", cfg->beta);
    int bits = sketch_method_uses_bits(p->method);
    snprintf(buf, size,
             "mode=%s;dataset=%s%s;m=%lld;n=%lld;k=%lld;topk=%d;candidates=%d;seed=%llu;threads=%d;"
             "method=%s;bits=%d;sketch_dim=%d;warmup=%d;reps=%d",
             p->mode == SWEEP_MODE_DENSE ? "dense" : "topk", sweep_data_names[p->data], data,
             (long long)p->m, (long long)p->n, (long long)p->k, (int)p->topk, (int)p->candidates,
             (unsigned long long)p->seed, (int)p->threads, sketch_method_name(p->method),
             bits ? (int)p->size : 0, bits ? 0 : (int)p->size, cfg->warmup,
             p->mode == SWEEP_MODE_DENSE ? cfg->reps : cfg->topk_reps);
}

void sweep_point_describe(const sweep_point *p, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%s %s %lldx%lldx%lld seed=%llu threads=%d %s %s=%d",
                     p->mode == SWEEP_MODE_DENSE ? "dense" : "topk", sweep_data_names[p->data],
                     (long long)p->m, (long long)p->n, (long long)p->k, (unsigned long long)p->seed,
                     (int)p->threads, sketch_method_name(p->method), sweep_size_name(p->method),
                     (int)p->size);
    if (p->mode == SWEEP_MODE_TOPK && n > 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, " topk=%d candidates=%d", (int)p->topk, (int)p->candidates);
}

int sweep_point_same_context(const sweep_point *a, const sweep_point *b)
{
    return a->mode == b->mode && a->data == b->data && a->m == b->m && a->n == b->n &&
           a->seed == b->seed && a->threads == b->threads;
}

void sweep_shard_range(int64_t total, int index, int count, int64_t *begin, int64_t *end)
{
    *begin = total * index / count;
    *end = total * (index + 1) / count;
}

int64_t sweep_bytes_per_vector(sketch_method method, int32_t size, int64_t k)
{
    return approx_encoded_bytes(method, size, k);
}

const char *sweep_size_name(sketch_method method)
{
    return sketch_method_uses_bits(method) ? "bits" : "sketch_dim";
}
