/*
 * brgemm.c - batch-reduce GEMM (sketchmm/brgemm.h): description checks,
 * plans, and the portable driver that walks the tiles of C.
 *
 * Everything runs on a column-major view. A row-major product
 * C = sum A_i B_i is the column-major C^T = sum B_i^T A_i^T: the plan swaps
 * m and n, lda and ldb, the two strides, and execution swaps the A and B
 * pointers; the kernels never know.
 *
 * Tiling (fixed at plan time): the m rows of C are cut into bands of
 * mv_max * vl rows (64 on AVX-512) and a last band of the remaining rows
 * (its own, smaller vector count). Each band cuts the n columns into equal
 * blocks of at most nb_max[mv - 1] columns and, when they do not come out
 * even, a last narrower block. Each (band, block) is one call of a tile
 * kernel, which sums the whole batch for that block in registers and writes
 * C once.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exact/brgemm_jit.h"
#include "exact/brgemm_kernels.h"
#include "common/smm_runtime.h"
#include "sketchmm/brgemm.h"

/* One band of rows of C and how its columns are cut. */
typedef struct {
    int64_t rows;              /* rows of C in the band */
    int64_t nb, even;          /* `even` blocks of nb columns ... */
    int64_t nb_last;           /* ... then one of nb_last < nb columns, or none (0) */
    brgemm_tile_fn fn[2];      /* per kind: the blocks of nb columns */
    brgemm_tile_fn fn_last[2]; /* per kind: the narrower block */
} brgemm_band;

/* One tile call, laid out at plan time: its kernel per kind, rows, and offsets in the view's A, B and C. */
typedef struct {
    brgemm_tile_fn fn[2];
    int rows;
    int64_t a_off, b_off, c_off;
} brgemm_tile_call;

/* Plans with at most this many tiles keep the list of their tile calls (the small products, where walking costs). */
#define LISTED_TILES 16

struct brgemm_plan {
    int swap;         /* row-major: A and B trade places */
    int64_t m, n;     /* the column-major view */
    brgemm_args args; /* k, leading dimensions, strides of the view; alpha, beta */
    int64_t max_batch; /* the largest batch whose A_i and B_i spans fit in the address space */
    int reads;         /* m, n, k > 0 and alpha != 0: a batch >= 1 reads A and B and runs the kernels */
    size_t a_bytes, b_bytes, c_bytes; /* the span (smm_runtime.h) of one A_i, one B_i and C in the view, in bytes */
    int64_t band_rows;          /* rows of every band but the last */
    int64_t bands;
    brgemm_band full, last;     /* the bands before the last one, and the last */
    brgemm_rank1_fn rank1;      /* k == 1 and the ISA path has one: batch 1 runs it instead of the tiles */
    int listed;                 /* calls below, or 0: walk the bands */
    brgemm_tile_call calls[LISTED_TILES];
    const jit_kernel *jit;      /* the generated kernel (brgemm_jit.h), or NULL: the tiles run */
    brgemm_jit_fn generated[2]; /* its entry points per kind */
    char name[320];
};

/* The kernel table (common/smm_dispatch.h): one row per path with tiles of its own. */
static const brgemm_kernels table[SMM_ISA_COUNT] = {
    [SMM_ISA_SCALAR] = { { "scalar", 0 }, BRGEMM_SCALAR_VL, 2, { BRGEMM_SCALAR_NB_MAX_1, BRGEMM_SCALAR_NB_MAX_2 },
                         brgemm_tile_scalar, NULL, NULL },
#if defined(__x86_64__)
    [SMM_ISA_AVX2] = { { "avx2", 0 }, BRGEMM_AVX2_VL, 2, { BRGEMM_AVX2_NB_MAX_1, BRGEMM_AVX2_NB_MAX_2 },
                       brgemm_tile_avx2, brgemm_rank1_avx2, brgemm_jit_write_x86 },
    [SMM_ISA_AVX512] = { { "avx512", 0 }, BRGEMM_AVX512_VL, 4,
                         { BRGEMM_AVX512_NB_MAX_1, BRGEMM_AVX512_NB_MAX_2, BRGEMM_AVX512_NB_MAX_3,
                           BRGEMM_AVX512_NB_MAX_4 },
                         brgemm_tile_avx512, brgemm_rank1_avx512, brgemm_jit_write_x86 },
#endif
#if defined(__aarch64__)
    [SMM_ISA_NEON] = { { "neon", 0 }, BRGEMM_NEON_VL, 4,
                       { BRGEMM_NEON_NB_MAX_1, BRGEMM_NEON_NB_MAX_2, BRGEMM_NEON_NB_MAX_3, BRGEMM_NEON_NB_MAX_4 },
                       brgemm_tile_neon, NULL, brgemm_jit_write_a64 },
#endif
};

const brgemm_kernels *brgemm_kernels_for(smm_isa isa)
{
    return SMM_KERNELS_FOR(table, isa);
}

/* Cut n columns into blocks of at most nb_max, as even as the count allows. */
static void band_init(brgemm_band *band, const brgemm_kernels *ks, int64_t rows, int64_t n)
{
    const int mv = (int)((rows + ks->vl - 1) / ks->vl);
    const int64_t nb_max = ks->nb_max[mv - 1];
    const int64_t blocks = (n + nb_max - 1) / nb_max;
    band->rows = rows;
    band->nb = (n + blocks - 1) / blocks;
    band->even = n / band->nb;
    band->nb_last = n - band->even * band->nb;
    for (int kind = 0; kind < 2; kind++) {
        band->fn[kind] = ks->tile(kind, mv, (int)band->nb);
        band->fn_last[kind] = band->nb_last > 0 ? ks->tile(kind, mv, (int)band->nb_last) : NULL;
    }
}

/* The band that band index `band` of p uses. */
static const brgemm_band *band_at(const brgemm_plan *p, int64_t band)
{
    return band + 1 < p->bands ? &p->full : &p->last;
}

/* Tile calls in band bd: the equal blocks, then the narrower one if any. */
static int64_t calls_in(const brgemm_band *bd)
{
    return bd->even + (bd->nb_last > 0);
}

/* Tile call blk of band `band`. */
static brgemm_tile_call tile_call(const brgemm_plan *p, int64_t band, int64_t blk)
{
    const brgemm_band *bd = band_at(p, band);
    const int64_t r0 = band * p->band_rows, j0 = blk * bd->nb;
    brgemm_tile_call tc;
    for (int kind = 0; kind < 2; kind++)
        tc.fn[kind] = blk < bd->even ? bd->fn[kind] : bd->fn_last[kind];
    tc.rows = (int)bd->rows;
    tc.a_off = r0;
    tc.b_off = p->args.k > 0 ? j0 * p->args.ldb : 0; /* k == 0: B has no elements, ldb is any value */
    tc.c_off = r0 + j0 * p->args.ldc;
    return tc;
}

/* Lay out the tile calls of a plan with at most LISTED_TILES of them (p->listed stays 0 otherwise). */
static void list_tiles(brgemm_plan *p)
{
    if ((p->bands - 1) * calls_in(&p->full) + calls_in(&p->last) > LISTED_TILES)
        return;
    int t = 0;
    for (int64_t band = 0; band < p->bands; band++)
        for (int64_t blk = 0; blk < calls_in(band_at(p, band)); blk++)
            p->calls[t++] = tile_call(p, band, blk);
    p->listed = t;
}

/* Elements a rows x cols column-major matrix with leading dimension ld spans. */
static int64_t span_of(int64_t rows, int64_t cols, int64_t ld)
{
    return rows == 0 || cols == 0 ? 0 : (cols - 1) * ld + rows;
}

/*
 * The largest batch for which (batch - 1) * stride + extent elements fit in
 * the address space (extent already fits: the descriptor was checked).
 */
static int64_t max_batch(int64_t stride, int64_t extent)
{
    const int64_t limit = (int64_t)(PTRDIFF_MAX / (ptrdiff_t)sizeof(float));
    return stride == 0 ? INT64_MAX : (limit - extent) / stride + 1;
}

/*
 * The generated kernel of plan p (its view filled in) on path isa, whose
 * row is ks. Returns NULL when p got one or runs no kernel at all, else why
 * the precompiled tiles run (for the plan's name).
 */
static const char *generate(brgemm_plan *p, const brgemm_kernels *ks, smm_isa isa)
{
    if (!p->reads)
        return NULL;
    if (ks->jit == NULL)
        return NULL; /* no generator on this path: nothing to say */
    if (!smm_jit_now())
        return "code generation off";
    brgemm_jit_desc d;
    memset(&d, 0, sizeof d); /* the key: padding included */
    d.isa = (int32_t)isa;
    d.m = p->m;
    d.n = p->n;
    d.k = p->args.k;
    d.lda = p->args.lda;
    d.ldc = p->args.ldc;
    d.b_step = 1;
    d.b_col = p->args.ldb;
    d.stride_a = p->args.stride_a;
    d.stride_b = p->args.stride_b;
    memcpy(&d.alpha_bits, &p->args.alpha, sizeof d.alpha_bits);
    memcpy(&d.beta_bits, &p->args.beta, sizeof d.beta_bits);
    const smm_status s = jit_kernel_get(ks->jit, &d, sizeof d, JIT_FOR_PLAN, &p->jit);
    if (s != SMM_OK)
        return s == SMM_ERR_NO_EXEC_MEMORY ? "executable memory refused" : "no kernel generated for this shape";
    p->generated[BRGEMM_KIND_STRIDED] = (brgemm_jit_fn)(uintptr_t)jit_kernel_entry(p->jit, BRGEMM_JIT_STRIDED);
    p->generated[BRGEMM_KIND_POINTERS] = (brgemm_jit_fn)(uintptr_t)jit_kernel_entry(p->jit, BRGEMM_JIT_POINTERS);
    return NULL;
}

smm_status brgemm_plan_create(const brgemm_desc *desc, brgemm_plan **plan)
{
    if (plan == NULL)
        return SMM_ERR_NULL_POINTER;
    *plan = NULL;
    if (desc == NULL)
        return SMM_ERR_NULL_POINTER;
    const brgemm_desc d = *desc;
    smm_status s;
    if ((s = smm_check_layout(d.layout)) != SMM_OK)
        return s;
    /* the stored shapes, checked with a stand-in address (no memory is read) */
    const void *any = desc;
    if ((s = smm_check_matrix(d.layout, d.m, d.k, any, d.lda, sizeof(float))) != SMM_OK ||
        (s = smm_check_matrix(d.layout, d.k, d.n, any, d.ldb, sizeof(float))) != SMM_OK ||
        (s = smm_check_matrix(d.layout, d.m, d.n, any, d.ldc, sizeof(float))) != SMM_OK)
        return s;
    if (d.stride_a < 0 || d.stride_b < 0)
        return SMM_ERR_BAD_ARGUMENT;
    smm_context ctx;
    if ((s = smm_context_current(&ctx)) != SMM_OK)
        return s;

    brgemm_plan *p = calloc(1, sizeof *p);
    if (p == NULL)
        return SMM_ERR_NO_MEMORY;
    p->swap = d.layout == SMM_ROW_MAJOR;
    p->m = p->swap ? d.n : d.m;
    p->n = p->swap ? d.m : d.n;
    p->args.k = d.k;
    p->args.lda = p->swap ? d.ldb : d.lda;
    p->args.ldb = p->swap ? d.lda : d.ldb;
    p->args.ldc = d.ldc;
    p->args.stride_a = p->swap ? d.stride_b : d.stride_a;
    p->args.stride_b = p->swap ? d.stride_a : d.stride_b;
    p->args.alpha = d.alpha;
    p->args.beta = d.beta;
    const int64_t max_a = max_batch(p->args.stride_a, span_of(p->m, d.k, p->args.lda));
    const int64_t max_b = max_batch(p->args.stride_b, span_of(d.k, p->n, p->args.ldb));
    p->max_batch = max_a < max_b ? max_a : max_b;
    p->reads = p->m > 0 && p->n > 0 && d.k > 0 && d.alpha != 0.0f;
    p->a_bytes = (size_t)span_of(p->m, d.k, p->args.lda) * sizeof(float);
    p->b_bytes = (size_t)span_of(d.k, p->n, p->args.ldb) * sizeof(float);
    p->c_bytes = (size_t)span_of(p->m, p->n, p->args.ldc) * sizeof(float);

    const brgemm_kernels *ks = brgemm_kernels_for(ctx.isa); /* the plan's row, resolved once */
    p->rank1 = d.k == 1 ? ks->rank1 : NULL;
    p->band_rows = (int64_t)ks->vl * ks->mv_max;
    const char *why_not = generate(p, ks, ctx.isa);
    int len = snprintf(p->name, sizeof p->name,
                       "brgemm %s m=%lld n=%lld k=%lld lda=%lld ldb=%lld ldc=%lld sa=%lld sb=%lld "
                       "alpha=%g beta=%g %s %s",
                       d.layout == SMM_ROW_MAJOR ? "row" : "col", (long long)d.m, (long long)d.n,
                       (long long)d.k, (long long)d.lda, (long long)d.ldb, (long long)d.ldc,
                       (long long)d.stride_a, (long long)d.stride_b, (double)d.alpha, (double)d.beta,
                       ks->head.name, p->jit != NULL ? "generated" : "precompiled");
    if (why_not != NULL)
        len += snprintf(p->name + len, sizeof p->name - (size_t)len, " (%s)", why_not);
    if (p->m > 0 && p->n > 0 && p->jit == NULL) {
        p->bands = (p->m + p->band_rows - 1) / p->band_rows;
        if (p->bands > 1)
            band_init(&p->full, ks, p->band_rows, p->n);
        band_init(&p->last, ks, p->m - (p->bands - 1) * p->band_rows, p->n);
        list_tiles(p);
        const brgemm_band *show = p->bands > 1 ? &p->full : &p->last;
        snprintf(p->name + len, sizeof p->name - (size_t)len, " tiles %lldx%lld .. %lldx%lld (column-major view)%s",
                 (long long)show->rows, (long long)show->nb, (long long)p->last.rows,
                 (long long)(p->last.nb_last > 0 ? p->last.nb_last : p->last.nb),
                 p->rank1 != NULL ? ", rank-1 update at batch 1" : "");
    }
    *plan = p;
    return SMM_OK;
}

void brgemm_plan_free(brgemm_plan *plan)
{
    if (plan != NULL)
        jit_kernel_release(plan->jit);
    free(plan);
}

const char *brgemm_plan_name(const brgemm_plan *plan)
{
    return plan == NULL ? "null plan" : plan->name;
}

/* C := beta * C on the column-major view (the product is empty or alpha == 0). */
static void scale_c(const brgemm_plan *p, float *C)
{
    const float beta = p->args.beta;
    if (beta == 1.0f)
        return;
    for (int64_t j = 0; j < p->n; j++) {
        float *c = C + j * p->args.ldc;
        if (beta == 0.0f)
            memset(c, 0, (size_t)p->m * sizeof(float));
        else
            for (int64_t i = 0; i < p->m; i++)
                c[i] *= beta;
    }
}

/* One tile call: the batch of its block (strided: from a and b; pointers: ap, bp), then its kernel. */
static void run_call(const brgemm_tile_call *tc, int kind, const brgemm_args *g, const float *a, const float *b,
                     const float *const *ap, const float *const *bp, float *C, int64_t batch)
{
    const int strided = kind == BRGEMM_KIND_STRIDED;
    const brgemm_batch bt = { strided ? a + tc->a_off : NULL, strided ? b + tc->b_off : NULL,
                              ap, bp, tc->a_off, tc->b_off, batch };
    tc->fn[kind](g, tc->rows, &bt, C + tc->c_off);
}

/*
 * Run the product on the precompiled kernels: the rank-1 kernel, the listed
 * tile calls, or a walk over the bands. Strided (kind 0): a and b are the
 * view's A_0 and B_0; pointers (kind 1): the view's arrays. Returns SMM_OK.
 * Out of line: a plan with a generated kernel calls that straight from its
 * entry point, without the registers this walk needs.
 */
static __attribute__((noinline)) smm_status run_tiles(const brgemm_plan *p, int kind, const void *a, const void *b,
                                                      float *C, int64_t batch)
{
    const brgemm_args *g = &p->args;
    const int strided = kind == BRGEMM_KIND_STRIDED;
    const float *as = strided ? a : NULL, *bs = strided ? b : NULL;
    const float *const *ap = strided ? NULL : a, *const *bp = strided ? NULL : b;
    if (batch == 1 && p->rank1 != NULL) {
        p->rank1(g, p->m, p->n, strided ? as : ap[0], strided ? bs : bp[0], C);
    } else if (p->listed > 0) {
        for (int t = 0; t < p->listed; t++)
            run_call(&p->calls[t], kind, g, as, bs, ap, bp, C, batch);
    } else {
        for (int64_t band = 0; band < p->bands; band++)
            for (int64_t blk = 0; blk < calls_in(band_at(p, band)); blk++) {
                const brgemm_tile_call tc = tile_call(p, band, blk);
                run_call(&tc, kind, g, as, bs, ap, bp, C, batch);
            }
    }
    return SMM_OK;
}

/* Run the product (the checks passed): the generated kernel (which returns SMM_OK) or the precompiled walk. */
static inline smm_status run(const brgemm_plan *p, int kind, const void *a, const void *b, float *C, int64_t batch)
{
    if (p->jit != NULL)
        return (smm_status)p->generated[kind](a, b, C, batch);
    return run_tiles(p, kind, a, b, C, batch);
}

/*
 * The checks both entry points share, in the header's order, and the
 * executions that read no operand (empty product, C := beta * C), for a call
 * that is_common() did not accept: out of line, so that the common call
 * pays for none of it.
 */
static __attribute__((noinline)) smm_status execution_rare(const brgemm_plan *p, float *C, int64_t batch)
{
    if (p == NULL)
        return SMM_ERR_NULL_POINTER;
    if (batch < 0)
        return SMM_ERR_BAD_SIZE;
    if (p->m == 0 || p->n == 0)
        return SMM_OK;
    if (C == NULL)
        return SMM_ERR_NULL_POINTER;
    if (!p->reads || batch == 0) {
        scale_c(p, C);
        return SMM_OK;
    }
    return SMM_ERR_NULL_POINTER; /* A or B is NULL */
}

/* A call that reads its operands, with every pointer there: the checks of execution_rare all pass. */
static inline int is_common(const brgemm_plan *p, const void *A, const void *B, const float *C, int64_t batch)
{
    return __builtin_expect(p != NULL && batch > 0 && p->reads && C != NULL && A != NULL && B != NULL, 1);
}

/* The span of a matrix of `bytes` bytes at p (smm_runtime.h). */
static inline smm_span span_at(const void *p, size_t bytes)
{
    const smm_span s = { (uintptr_t)p, (uintptr_t)p + bytes };
    return s;
}

/* 1 when c overlaps the span of one of X_i = X + i * stride, i < batch (each of `bytes` bytes), one by one. */
static __attribute__((noinline)) int batch_overlaps_each(smm_span c, const float *X, int64_t stride, int64_t batch,
                                                         size_t bytes)
{
    for (int64_t i = 0; i < batch; i++)
        if (smm_spans_overlap(c, span_at(X + i * stride, bytes)))
            return 1;
    return 0;
}

/* The range of the whole strided batch X_i = X + i * stride, i < batch >= 1, each of `bytes` bytes. */
static inline smm_span batch_range(const float *X, int64_t stride, int64_t batch, size_t bytes)
{
    const smm_span all = { (uintptr_t)X, (uintptr_t)(X + (batch - 1) * stride) + bytes };
    return all;
}

/* smm_spans_overlap for two spans known not to be empty (a plan that reads has no empty operand). */
static inline int spans_meet(smm_span a, smm_span b)
{
    return a.lo < b.hi && b.lo < a.hi;
}

/*
 * A strided call whose C lies within the range of the A_i or of the B_i (in
 * a gap between strided matrices, or over one): C compared with each matrix,
 * then the product. Out of line; the common call only tests the two ranges.
 */
static __attribute__((noinline)) smm_status strided_near(const brgemm_plan *p, const float *a, const float *b,
                                                         float *C, int64_t batch)
{
    const smm_span c = span_at(C, p->c_bytes);
    if ((smm_spans_overlap(c, batch_range(a, p->args.stride_a, batch, p->a_bytes)) &&
         batch_overlaps_each(c, a, p->args.stride_a, batch, p->a_bytes)) ||
        (smm_spans_overlap(c, batch_range(b, p->args.stride_b, batch, p->b_bytes)) &&
         batch_overlaps_each(c, b, p->args.stride_b, batch, p->b_bytes)))
        return SMM_ERR_BAD_ARGUMENT;
    return run(p, BRGEMM_KIND_STRIDED, a, b, C, batch);
}

smm_status brgemm_execute_strided(const brgemm_plan *plan, const float *A, const float *B, float *C,
                                  int64_t batch)
{
    if (!is_common(plan, A, B, C, batch))
        return execution_rare(plan, C, batch);
    if (batch > plan->max_batch)
        return SMM_ERR_OVERFLOW;
    const float *a = plan->swap ? B : A, *b = plan->swap ? A : B;
    const smm_span c = span_at(C, plan->c_bytes);
    if (spans_meet(c, batch_range(a, plan->args.stride_a, batch, plan->a_bytes)) ||
        spans_meet(c, batch_range(b, plan->args.stride_b, batch, plan->b_bytes)))
        return strided_near(plan, a, b, C, batch);
    return run(plan, BRGEMM_KIND_STRIDED, a, b, C, batch);
}

smm_status brgemm_execute_pointers(const brgemm_plan *plan, const float *const *A, const float *const *B,
                                   float *C, int64_t batch)
{
    if (!is_common(plan, A, B, C, batch))
        return execution_rare(plan, C, batch);
    const float *const *ap = plan->swap ? B : A, *const *bp = plan->swap ? A : B;
    const smm_span c = span_at(C, plan->c_bytes);
    const size_t a_bytes = plan->a_bytes, b_bytes = plan->b_bytes;
    int overlap = 0; /* reported after every pointer was checked */
    for (int64_t i = 0; i < batch; i++) {
        const float *a = ap[i], *b = bp[i];
        if (a == NULL || b == NULL)
            return SMM_ERR_NULL_POINTER;
        if (smm_spans_overlap(c, span_at(a, a_bytes)) || smm_spans_overlap(c, span_at(b, b_bytes)))
            overlap = 1;
    }
    if (overlap)
        return SMM_ERR_BAD_ARGUMENT;
    return run(plan, BRGEMM_KIND_POINTERS, ap, bp, C, batch);
}
