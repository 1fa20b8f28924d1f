/*
 * tune_mat4.c - the tuner's 4x4 stage (tune.h): for each batched operation
 * (multiply and inverse, float and double), the kernels of the tuned path
 * raced against those of the narrower SIMD paths this CPU runs (the same
 * bits: sketchmm/mat4.h). A pass times one thread on a batch of 64
 * matrices (in L1, as sketchmm_bench mat4 does by default) and on one of
 * 4096 (in L2 and beyond), each repeated to BATCH_SECONDS, the two
 * normalised by the tuned path's first times.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exact/mat4_kernels.h"
#include "tune/tune.h"

#define SMALL_BATCH 64
#define LARGE_BATCH 4096
#define BATCH_SECONDS 0.002

typedef struct {
    mat4_op op;
    smm_isa paths[SMM_ISA_COUNT];
    int count;
    double *a, *b, *c; /* LARGE_BATCH matrices each */
    float *af, *bf, *cf;
    double reference[2];
} mat4_race;

static const char *const op_names[MAT4_OPS] = { "mul_f32", "mul_f64", "inv_f32", "inv_f64" };

/* count matrices of op on path's kernels, as the batched call runs them (inverses: the check, then the inverse). */
static void run_op(const mat4_race *r, smm_isa path, int64_t count)
{
    const mat4_kernels *k = mat4_kernels_for(path);
    switch (r->op) {
    case MAT4_OP_MUL_F32: k->mul_f32(count, r->af, r->bf, r->cf); break;
    case MAT4_OP_MUL_F64: k->mul_f64(count, r->a, r->b, r->c); break;
    case MAT4_OP_INV_F32:
        if (k->regular_f32(count, r->af))
            k->inv_f32(count, r->af, r->cf);
        break;
    default:
        if (k->regular_f64(count, r->a))
            k->inv_f64(count, r->a, r->c);
        break;
    }
}

static double mat4_time(void *arg, int cand)
{
    mat4_race *r = arg;
    static const int64_t batches[2] = { SMALL_BATCH, LARGE_BATCH };
    double total = 0.0;
    for (int b = 0; b < 2; b++) {
        int64_t calls = 0;
        const double start = tune_now();
        double elapsed;
        do {
            run_op(r, r->paths[cand], batches[b]);
            calls++;
            elapsed = tune_now() - start;
        } while (elapsed < BATCH_SECONDS);
        const double t = elapsed / (double)calls;
        if (r->reference[b] <= 0.0)
            r->reference[b] = t;
        total += t / r->reference[b];
    }
    return total;
}

static void mat4_name(void *arg, int cand, char *buf, size_t size)
{
    const mat4_race *r = arg;
    snprintf(buf, size, "%s on %s", op_names[r->op], smm_isa_name(r->paths[cand]));
}

void tune_stage_mat4(tune_session *s, tuning_params *p, char *measured, size_t size)
{
    mat4_race r;
    memset(&r, 0, sizeof r);
    /* the candidates: the path itself, then the narrower SIMD paths this CPU runs */
    smm_isa paths[SMM_ISA_COUNT];
    int npaths = 0;
    for (smm_isa path = s->isa; path != SMM_ISA_SCALAR; path = smm_isa_fallback(path))
        if (smm_isa_supported(path))
            paths[npaths++] = path;
    size_t used = (size_t)snprintf(measured, size, "mat4");
    if (npaths < 2) {
        snprintf(measured + used, size - used, " on %s only", smm_isa_name(s->isa));
        return;
    }
    r.a = smm_aligned_alloc(16 * LARGE_BATCH * sizeof(double));
    r.b = smm_aligned_alloc(16 * LARGE_BATCH * sizeof(double));
    r.c = smm_aligned_alloc(16 * LARGE_BATCH * sizeof(double));
    r.af = smm_aligned_alloc(16 * LARGE_BATCH * sizeof(float));
    r.bf = smm_aligned_alloc(16 * LARGE_BATCH * sizeof(float));
    r.cf = smm_aligned_alloc(16 * LARGE_BATCH * sizeof(float));
    if (r.a && r.b && r.c && r.af && r.bf && r.cf) {
        /* diagonally dominant matrices (regular, so the inverses run), as doubles and as floats */
        for (int64_t i = 0; i < 16 * LARGE_BATCH; i++) {
            const double v = (double)((i * 7919) % 23) / 23.0 + ((i % 16) % 5 == 0 ? 4.0 : 0.0);
            r.a[i] = v;
            r.b[i] = 1.0 - v;
            r.af[i] = (float)v;
            r.bf[i] = (float)(1.0 - v);
        }
        s->stage = "[7/8] 4x4 paths";
        for (int op = 0; op < MAT4_OPS; op++) {
            r.op = (mat4_op)op;
            r.count = npaths;
            memcpy(r.paths, paths, sizeof paths);
            memset(r.reference, 0, sizeof r.reference);
            mat4_time(&r, 0);
            tune_race_result res;
            const double stage_end = s->stage_end;
            s->stage_end = tune_now() + (stage_end - tune_now()) / (MAT4_OPS - op);
            tune_race(s, r.count, mat4_time, mat4_name, &r, &res);
            s->stage_end = stage_end;
            p->mat4[op] = paths[res.winner];
            const int n = snprintf(measured + used, size - used, " %s:%s %.2fx", op_names[op],
                                   smm_isa_name(paths[res.winner]), res.score[res.winner]);
            used += n > 0 && (size_t)n < size - used ? (size_t)n : 0;
        }
    }
    smm_aligned_free(r.a);
    smm_aligned_free(r.b);
    smm_aligned_free(r.c);
    smm_aligned_free(r.af);
    smm_aligned_free(r.bf);
    smm_aligned_free(r.cf);
}
