/*
 * tuning_params.c - one path's configuration (tuning.h): its fixed-table
 * values, the checks every configuration passes before the driver sees it,
 * and the target a call runs with.
 */
#include <math.h>
#include <string.h>

#include "exact/tuning.h"

smm_isa tuning_row_path(smm_isa isa)
{
    return sgemm_kernels_path(sgemm_kernels_for(isa));
}

int tuning_params_equal(const tuning_params *a, const tuning_params *b)
{
    int same = a->shape == b->shape && a->kc == b->kc && a->sup_max_macs == b->sup_max_macs &&
               a->topk_rows == b->topk_rows && a->topk_cols == b->topk_cols;
    for (int t = 0; t < TUNING_TEAMS; t++)
        same = same && a->team[t].mc == b->team[t].mc && a->team[t].nc == b->team[t].nc &&
               a->team[t].split == b->team[t].split && a->team[t].prefetch == b->team[t].prefetch;
    for (int op = 0; op < MAT4_OPS; op++)
        same = same && a->mat4[op] == b->mat4[op];
    return same;
}

void tuning_table_params(smm_isa isa, tuning_params *p)
{
    const sgemm_kernels *row = sgemm_kernels_for(isa);
    memset(p, 0, sizeof *p); /* padding too, so that whole copies compare equal byte for byte */
    const smm_isa path = sgemm_kernels_path(row);
    p->shape = 0;
    p->kc = row->kc;
    for (int team = 0; team < TUNING_TEAMS; team++) {
        p->team[team].mc = row->mc;
        p->team[team].nc = row->nc;
        p->team[team].split = SGEMM_SPLIT_AUTO;
        p->team[team].prefetch = row->prefetch;
    }
    p->sup_max_macs = row->sup != NULL ? row->sup_max_macs : 0.0;
    p->topk_rows = TUNING_TOPK_ROWS_DEFAULT;
    p->topk_cols = TUNING_TOPK_COLS_DEFAULT;
    for (int op = 0; op < MAT4_OPS; op++)
        p->mat4[op] = path;
}

/*
 * 1 when `narrower` is path or a SIMD path it falls back to (smm_dispatch.h),
 * and this CPU and build run it. Never the scalar path from a SIMD one: the
 * SIMD 4x4 multiplies give the same bits on every path, the scalar one not
 * (sketchmm/mat4.h), and a batch must give the single-matrix call's bits.
 */
static int path_within(smm_isa path, smm_isa narrower)
{
    if (narrower == SMM_ISA_SCALAR && path != SMM_ISA_SCALAR)
        return 0;
    for (smm_isa p = path;; p = smm_isa_fallback(p)) {
        if (p == narrower)
            return smm_isa_supported(narrower);
        if (p == SMM_ISA_SCALAR)
            return 0;
    }
}

const char *tuning_check(smm_isa isa, const tuning_params *p)
{
    const sgemm_kernels *row = sgemm_kernels_for(isa);
    if (p->shape < 0 || p->shape >= row->nshapes)
        return "kernel not of this path";
    const sgemm_shape *s = &row->shapes[p->shape];
    if (p->kc < TUNING_KC_MIN || p->kc > TUNING_KC_MAX)
        return "kc out of range";
    for (int team = 0; team < TUNING_TEAMS; team++) {
        const tuning_team *t = &p->team[team];
        if (t->mc < s->mr || t->mc > TUNING_MC_MAX || t->mc % s->mr != 0)
            return "mc out of range or not a multiple of mr";
        if (t->nc < s->nr || t->nc > TUNING_NC_MAX || t->nc % s->nr != 0)
            return "nc out of range or not a multiple of nr";
        if (4 * t->mc * p->kc > TUNING_WORKSPACE_MAX || 4 * t->nc * p->kc > TUNING_WORKSPACE_MAX)
            return "packed blocks too large";
        if (t->split != SGEMM_SPLIT_AUTO && t->split != SGEMM_SPLIT_ROWS && t->split != SGEMM_SPLIT_COLUMNS)
            return "unknown split";
        if (t->prefetch < 0 || t->prefetch > TUNING_PREFETCH_MAX)
            return "prefetch out of range";
    }
    if (!(p->sup_max_macs >= 0.0 && p->sup_max_macs <= TUNING_SUP_MAX))
        return "sup_max_macs out of range";
    if (p->topk_rows < TUNING_TOPK_ROWS_MIN || p->topk_rows > TUNING_TOPK_ROWS_MAX)
        return "top-k rows out of range";
    if (p->topk_cols < TUNING_TOPK_COLS_MIN || p->topk_cols > TUNING_TOPK_COLS_MAX)
        return "top-k columns out of range";
    const smm_isa path = sgemm_kernels_path(row);
    for (int op = 0; op < MAT4_OPS; op++)
        if (!path_within(path, p->mat4[op]))
            return "4x4 path not available to this path";
    return NULL;
}

void sgemm_target_from(smm_isa isa, const tuning_params *p, int threads, sgemm_target *t)
{
    const sgemm_kernels *row = sgemm_kernels_for(isa);
    const sgemm_shape *s = &row->shapes[p->shape];
    const tuning_team *team = &p->team[threads > 1 ? TUNING_MANY : TUNING_ONE];
    t->name = s->name;
    t->mr = s->mr;
    t->nr = s->nr;
    t->kernel = s->kernel;
    t->fused = row->fused;
    t->pack_lines = row->pack_lines;
    t->pack_rows = row->pack_rows;
    t->mc = team->mc;
    t->kc = p->kc;
    t->nc = team->nc;
    t->split = team->split;
    t->a_ahead = team->prefetch * s->mr;
    t->sup = row->sup;
    t->sup_mr = row->sup_mr;
    t->sup_nr = row->sup_nr;
    t->sup_max_macs = p->sup_max_macs;
}
