/*
 * sgemm_model.c - the analytical cache-block model (sgemm_model.h).
 */
#include "exact/sgemm_model.h"

#define FLOAT_BYTES 4

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Bytes per way of a cache level; 0 when the level is unknown. */
static int64_t way_bytes(const smm_cache_level *c)
{
    if (c->size <= 0 || c->ways <= 0)
        return 0;
    return c->size / c->ways;
}

/* The ways a block of `bytes` occupies in a level with `way` bytes per way. */
static int64_t ways_of(int64_t bytes, int64_t way)
{
    return ceil_div(bytes, way);
}

static int64_t model_kc(int mr, int nr, const smm_cache_level *l1)
{
    const int64_t way = way_bytes(l1);
    int64_t kc = TUNING_KC_MIN;
    if (way > 0 && l1->ways >= 3) {
        for (int64_t k = TUNING_KC_MIN; k <= TUNING_KC_MAX; k += 8) {
            if (ways_of(FLOAT_BYTES * k * nr, way) + ways_of(FLOAT_BYTES * k * mr, way) > l1->ways - 1)
                break;
            kc = k;
        }
    } else if (l1->size > 0) { /* a cache of one or two ways: half of it for both panels */
        kc = l1->size / 2 / (FLOAT_BYTES * (mr + nr)) / 8 * 8;
    }
    return clamp(kc, TUNING_KC_MIN, TUNING_KC_MAX);
}

static int64_t model_mc(int mr, int nr, int64_t kc, const smm_cache_level *l2, int threads)
{
    const int64_t way = way_bytes(l2);
    int64_t a_bytes;
    if (way > 0 && l2->ways >= 3) {
        int64_t a_ways = l2->ways - 1 - ways_of(2 * FLOAT_BYTES * kc * nr, way);
        a_bytes = (a_ways < 1 ? 1 : a_ways) * way;
    } else {
        a_bytes = l2->size / 2;
    }
    const int64_t sharers = l2->shared_by < threads ? l2->shared_by : threads;
    if (sharers > 1)
        a_bytes /= sharers;
    int64_t mc = a_bytes / (FLOAT_BYTES * kc) / mr * mr;
    const int64_t mc_max = TUNING_MC_MAX / mr * mr;
    const int64_t mc_fit = TUNING_WORKSPACE_MAX / (FLOAT_BYTES * kc) / mr * mr;
    return clamp(mc, mr, mc_max < mc_fit ? mc_max : mc_fit);
}

static int64_t model_nc(int nr, int64_t kc, int64_t mc, const smm_cache_level *l3)
{
    const int64_t way = way_bytes(l3);
    int64_t nc = 4096;
    if (way > 0 && l3->ways >= 3) {
        int64_t b_ways = l3->ways - 1 - ways_of(2 * FLOAT_BYTES * kc * mc, way);
        nc = (b_ways < 1 ? 1 : b_ways) * way / (FLOAT_BYTES * kc);
    } else if (l3->size > 0) {
        nc = l3->size / 2 / (FLOAT_BYTES * kc);
    }
    if (nc > SGEMM_MODEL_NC_CAP)
        nc = SGEMM_MODEL_NC_CAP;
    const int64_t nc_fit = TUNING_WORKSPACE_MAX / (FLOAT_BYTES * kc);
    if (nc > nc_fit)
        nc = nc_fit;
    nc = nc / nr * nr;
    return nc < nr ? nr : nc;
}

sgemm_blocks sgemm_model_blocks(int mr, int nr, const smm_cache_geometry *g, int threads)
{
    sgemm_blocks b;
    b.kc = model_kc(mr, nr, &g->l1d);
    b.mc = model_mc(mr, nr, b.kc, &g->l2, threads < 1 ? 1 : threads);
    b.nc = model_nc(nr, b.kc, b.mc, &g->l3);
    return b;
}

void sgemm_model_params(smm_isa isa, int shape, const smm_cache_geometry *g, tuning_params *p)
{
    tuning_table_params(isa, p); /* threshold, top-k block and 4x4 paths: the fixed defaults */
    const sgemm_shape *s = &sgemm_kernels_for(isa)->shapes[shape];
    p->shape = shape;
    for (int team = 0; team < TUNING_TEAMS; team++) {
        /* "several threads": two sharing what they share (an L2 of SMT siblings) */
        const sgemm_blocks b = sgemm_model_blocks(s->mr, s->nr, g, team == TUNING_ONE ? 1 : 2);
        p->kc = b.kc; /* the same for both: it depends on L1 only */
        p->team[team].mc = b.mc;
        p->team[team].nc = b.nc;
    }
}
