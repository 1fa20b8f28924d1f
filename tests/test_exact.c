/*
 * test_exact.c - Check suite of the exact module (exact_sgemm).
 *
 * Every ISA path the CPU supports is compared with a double-precision naive
 * reference over all layouts and transposes, shapes that straddle register
 * tiles and cache blocks, padded leading dimensions and the special values
 * of alpha and beta; then, for every micro-kernel shape of each path, with
 * the block sizes of its target (exact/sgemm_target.h, exact/tuning.h),
 * shapes at b-1, b and b+1 for every register tile and cache block b, each
 * also lifted onto the blocked driver when the path would run it as a small
 * product; then thread-count invariance (including a shape that crosses mc,
 * kc and nc at once) under the default configuration and under others
 * (other shape, kc, blocks, splits and prefetch distances), every shape of
 * a path giving the same bits, every kernel of each path (micro-kernels,
 * small-product kernel, packer) against its scalar twin on edge tiles, the
 * k == 0 / alpha == 0 and empty cases, argument errors (C untouched) and
 * the kernel names.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "test_config.h"
#include "test_util.h"

#include "exact/sgemm.h"
#include "exact/sgemm_sup.h"
#include "exact/sgemm_target.h"
#include "exact/sgemm_workspace.h"
#include "exact/tuning.h"

/* ---- matrices stored in a layout, with a possibly padded leading dimension ---- */

typedef struct {
    smm_layout layout;
    int64_t rows, cols, ld;
    int64_t size; /* floats allocated */
    float *p;
} stored_matrix;

static int64_t max_i64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* A rows x cols matrix in `layout`, ld = the minimum plus pad, filled with uniform values. */
static stored_matrix stored_new(smm_layout layout, int64_t rows, int64_t cols, int64_t pad,
                                uint64_t *rng)
{
    stored_matrix s;
    s.layout = layout;
    s.rows = rows;
    s.cols = cols;
    const int64_t inner = layout == SMM_ROW_MAJOR ? cols : rows;
    const int64_t outer = layout == SMM_ROW_MAJOR ? rows : cols;
    s.ld = max_i64(1, inner) + pad;
    s.size = max_i64(1, outer * s.ld);
    s.p = malloc((size_t)s.size * sizeof(float));
    ck_assert_ptr_nonnull(s.p);
    test_fill_uniform(s.p, s.size, rng);
    return s;
}

static int64_t stored_index(const stored_matrix *s, int64_t i, int64_t j)
{
    return s->layout == SMM_ROW_MAJOR ? i * s->ld + j : i + j * s->ld;
}

/* Element (r, c) of op(S): S(r, c) or S(c, r). */
static double op_elem(const stored_matrix *s, smm_trans t, int64_t r, int64_t c)
{
    return t == SMM_NO_TRANS ? s->p[stored_index(s, r, c)] : s->p[stored_index(s, c, r)];
}

/* ---- one multiplication checked against the reference ---- */

typedef struct {
    smm_layout layout;
    smm_trans ta, tb;
    int64_t m, n, k;
    float alpha, beta;
    int64_t pad; /* added to every leading dimension */
} sgemm_case;

static const char *layout_name(smm_layout l)
{
    return l == SMM_ROW_MAJOR ? "row" : "col";
}

static const char *trans_name(smm_trans t)
{
    return t == SMM_NO_TRANS ? "N" : "T";
}

/*
 * Run c on the current ISA path and compare with a double-precision
 * reference: |c - ref| <= 4 (k + 2) eps (|alpha| sum |a||b| + |beta||c0|) + FLT_MIN.
 * With beta == 0, C starts as NaN. The padding of C must stay untouched.
 */
static void check_case(const sgemm_case *c, uint64_t seed)
{
    uint64_t rng = seed;
    const int a_plain = c->ta == SMM_NO_TRANS, b_plain = c->tb == SMM_NO_TRANS;
    stored_matrix A = stored_new(c->layout, a_plain ? c->m : c->k, a_plain ? c->k : c->m, c->pad, &rng);
    stored_matrix B = stored_new(c->layout, b_plain ? c->k : c->n, b_plain ? c->n : c->k, c->pad, &rng);
    stored_matrix C = stored_new(c->layout, c->m, c->n, c->pad, &rng);
    if (c->beta == 0.0f)
        for (int64_t i = 0; i < c->m; i++)
            for (int64_t j = 0; j < c->n; j++)
                C.p[stored_index(&C, i, j)] = NAN;
    float *C0 = malloc((size_t)C.size * sizeof(float));
    ck_assert_ptr_nonnull(C0);
    memcpy(C0, C.p, (size_t)C.size * sizeof(float));

    smm_status s = exact_sgemm(c->layout, c->ta, c->tb, c->m, c->n, c->k, c->alpha, A.p, A.ld,
                               B.p, B.ld, c->beta, C.p, C.ld);
    ck_assert_msg(s == SMM_OK, "status %d", (int)s);

    /* op(A) by rows and op(B) by columns, in double, so the reference reads memory in order */
    double *Ar = malloc((size_t)max_i64(1, c->m * c->k) * sizeof(double));
    double *Bc = malloc((size_t)max_i64(1, c->n * c->k) * sizeof(double));
    ck_assert_ptr_nonnull(Ar);
    ck_assert_ptr_nonnull(Bc);
    for (int64_t i = 0; i < c->m; i++)
        for (int64_t p = 0; p < c->k; p++)
            Ar[i * c->k + p] = op_elem(&A, c->ta, i, p);
    for (int64_t j = 0; j < c->n; j++)
        for (int64_t p = 0; p < c->k; p++)
            Bc[j * c->k + p] = op_elem(&B, c->tb, p, j);

    int64_t bad = 0;
    char first[256] = "";
    for (int64_t i = 0; i < c->m; i++) {
        for (int64_t j = 0; j < c->n; j++) {
            double sum = 0.0, abs_sum = 0.0;
            const double *arow = Ar + i * c->k, *bcol = Bc + j * c->k;
            for (int64_t p = 0; p < c->k; p++) {
                const double prod = arow[p] * bcol[p];
                sum += prod;
                abs_sum += fabs(prod);
            }
            const int64_t idx = stored_index(&C, i, j);
            double ref = (double)c->alpha * sum, mag = fabs((double)c->alpha) * abs_sum;
            if (c->beta != 0.0f) {
                ref += (double)c->beta * C0[idx];
                mag += fabs((double)c->beta * C0[idx]);
            }
            const double tol = 4.0 * (double)(c->k + 2) * FLT_EPSILON * mag + FLT_MIN;
            const double got = C.p[idx];
            if (!(fabs(got - ref) <= tol)) {
                if (bad == 0)
                    snprintf(first, sizeof first, "C(%lld,%lld) = %.9g, reference %.9g, tolerance %.3g",
                             (long long)i, (long long)j, got, ref, tol);
                bad++;
            }
        }
    }
    /* every stored element outside the m x n matrix (the ld padding) keeps its bits */
    int64_t touched = 0;
    const int64_t inner = c->layout == SMM_ROW_MAJOR ? c->n : c->m;
    for (int64_t e = 0; e < C.size; e++)
        if (e % C.ld >= inner && memcmp(&C.p[e], &C0[e], sizeof(float)) != 0)
            touched++;

    smm_isa isa = SMM_ISA_AUTO;
    smm_get_isa(&isa);
    ck_assert_msg(bad == 0 && touched == 0,
                  "isa %s (kernel %s) %s %s%s m=%lld n=%lld k=%lld alpha=%g beta=%g pad=%lld: "
                  "%lld elements off (first: %s), %lld padding elements written",
                  smm_isa_name(isa), exact_sgemm_kernel_name(), layout_name(c->layout),
                  trans_name(c->ta), trans_name(c->tb), (long long)c->m, (long long)c->n,
                  (long long)c->k, (double)c->alpha, (double)c->beta, (long long)c->pad,
                  (long long)bad, first, (long long)touched);
    free(Ar);
    free(Bc);
    free(C0);
    free(A.p);
    free(B.p);
    free(C.p);
}

/* ---- the eight layout x transa x transb combinations ---- */

static void combo_of(int index, smm_layout *layout, smm_trans *ta, smm_trans *tb)
{
    *layout = (index & 4) ? SMM_COL_MAJOR : SMM_ROW_MAJOR;
    *ta = (index & 2) ? SMM_TRANS : SMM_NO_TRANS;
    *tb = (index & 1) ? SMM_TRANS : SMM_NO_TRANS;
}

static const int64_t sizes[] = { 1, 2, 3, 7, 17, 33, 100, 257 };
#define NSIZES 8

static const float alphas_betas[][2] = {
    { 1.0f, 0.0f }, { 1.0f, 1.0f }, { -0.75f, 1.5f }, { 1.5f, -0.75f },
    { 0.0f, 1.5f }, { 0.0f, 0.0f }, { -0.75f, 0.0f }, { 1.5f, 1.0f },
};
#define NAB 8

/*
 * Shapes beyond the sizes list: several mc / kc blocks (613 x 37 x 530 on
 * every path), a wide and a deep product (on AVX2 and AVX-512 these two take
 * the small-product path; test_sgemm_block_boundaries covers the nc and kc
 * crossings of the blocked driver there).
 */
static const int64_t big_shapes[][3] = { { 613, 37, 530 }, { 5, 4133, 9 }, { 50, 70, 600 } };
#define NBIG 3

/*
 * Loop test over the 8 combinations: on every ISA, each size appears as m,
 * n and k (two cyclic families), plus the big shapes; alpha, beta and the
 * padding rotate with the shape so every (alpha, beta) pair meets every
 * combination.
 */
START_TEST(test_sgemm_matches_reference)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    smm_layout layout;
    smm_trans ta, tb;
    combo_of(_i, &layout, &ta, &tb);
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        int shape = 0;
        for (int family = 0; family < 2; family++) {
            for (int s = 0; s < NSIZES; s++, shape++) {
                const int ab = (shape + _i) % NAB;
                sgemm_case c = { layout, ta, tb, 0, 0, 0, alphas_betas[ab][0], alphas_betas[ab][1],
                                 shape % 3 == 0 ? 0 : 3 + shape % 5 };
                if (family == 0) {
                    c.m = sizes[s];
                    c.n = sizes[(s + 3) % NSIZES];
                    c.k = sizes[(s + 6) % NSIZES];
                } else {
                    c.m = sizes[(s + 5) % NSIZES];
                    c.n = sizes[(s + 6) % NSIZES];
                    c.k = sizes[(s + 7) % NSIZES];
                }
                check_case(&c, 1000u * (uint64_t)_i + (uint64_t)shape);
            }
        }
        for (int b = 0; b < NBIG; b++, shape++) {
            const int ab = (shape + _i) % NAB;
            /* the big shapes must reach the kernel: never alpha == 0 */
            const float alpha = alphas_betas[ab][0] != 0.0f ? alphas_betas[ab][0] : -0.75f;
            sgemm_case c = { layout, ta, tb, big_shapes[b][0], big_shapes[b][1], big_shapes[b][2],
                             alpha, alphas_betas[ab][1], b };
            check_case(&c, 5000u + 1000u * (uint64_t)_i + (uint64_t)shape);
        }
    }
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
}
END_TEST

/* 257 x 257 x 257 once per ISA, each ISA on another combination. */
START_TEST(test_sgemm_cube_257)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        sgemm_case c;
        combo_of((3 * ii + 1) % 8, &c.layout, &c.ta, &c.tb);
        c.m = c.n = c.k = 257;
        c.alpha = -0.75f;
        c.beta = ii % 2 ? 0.0f : 1.5f;
        c.pad = 11;
        check_case(&c, 77u + (uint64_t)ii);
    }
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
}
END_TEST

/* ---- every block boundary of the target, from its own block sizes ---- */

#define MAX_BOUNDARY_SHAPES 24

typedef struct {
    int64_t d[3]; /* m, n, k */
    int grow;     /* bit i set: lift_to_driver may grow d[i] */
} boundary_shape;

/* Append b-1, b and b+1 to v (n values so far), skipping values < 1 and repeats. */
static int add_around(int64_t *v, int n, int64_t b)
{
    for (int64_t x = b - 1; x <= b + 1; x++) {
        int seen = x < 1;
        for (int i = 0; i < n && !seen; i++)
            seen = v[i] == x;
        if (!seen)
            v[n++] = x;
    }
    return n;
}

/*
 * The shapes that put one dimension at b-1, b, b+1 for each block size b of
 * that dimension in t (m: mr, mc; n: nr, nc; k: 1, kc), the other two small
 * and odd (so edge tiles are partial), then two combined shapes:
 * mc+1 x nr+1 x kc+1 and mc+1 x nc+1 x 2 (C offset by both ic and jc).
 * Returns how many were written.
 */
static int boundary_shapes(const sgemm_target *t, boundary_shape shapes[MAX_BOUNDARY_SHAPES])
{
    int64_t v[6];
    int ns = 0, nv;

    nv = add_around(v, add_around(v, 0, t->mr), t->mc);
    for (int j = 0; j < nv; j++, ns++)
        shapes[ns] = (boundary_shape){ { v[j], j % 2 ? 37 : 19, j % 2 ? 5 : 9 }, 2 | 4 };
    nv = add_around(v, add_around(v, 0, t->nr), t->nc);
    for (int j = 0; j < nv; j++, ns++)
        shapes[ns] = (boundary_shape){ { j % 2 ? 5 : 13, v[j], j % 2 ? 19 : 7 }, 1 | 4 };
    nv = add_around(v, add_around(v, 0, 1), t->kc);
    for (int j = 0; j < nv; j++, ns++)
        shapes[ns] = (boundary_shape){ { j % 2 ? 19 : 13, j % 2 ? 5 : 37, v[j] }, 1 | 2 };
    shapes[ns++] = (boundary_shape){ { t->mc + 1, t->nr + 1, t->kc + 1 }, 2 };
    shapes[ns++] = (boundary_shape){ { t->mc + 1, t->nc + 1, 2 }, 4 };
    return ns;
}

/*
 * Grow the dimensions of s allowed by s->grow (the smallest first, by an
 * even step of about d/4, so odd sizes stay odd and the product overshoots
 * by at most about 25%) until t runs the product on the blocked driver
 * rather than on its small-product path. Returns 0 if that never happens.
 */
static int lift_to_driver(const sgemm_target *t, boundary_shape *s)
{
    for (int step = 0; sgemm_sup_applies(t, s->d[0], s->d[1], s->d[2]); step++) {
        int g = -1;
        for (int i = 0; i < 3; i++)
            if ((s->grow >> i & 1) && (g < 0 || s->d[i] < s->d[g]))
                g = i;
        if (g < 0 || step == 400)
            return 0;
        s->d[g] += s->d[g] >= 8 ? s->d[g] / 8 * 2 : 2;
    }
    return 1;
}

/* Path isa running shape `shape` of its row with that shape's default blocks. */
static tuning_state use_shape(smm_isa isa, int shape)
{
    tuning_params p;
    tuning_default_params(isa, shape, &p);
    return use_config(isa, &p);
}

/*
 * On every ISA path and every micro-kernel shape of it, each boundary shape
 * of its target against the reference. When the target runs a shape on its
 * small-product path (sgemm_sup_applies), the shape is also run lifted to
 * the blocked driver (lift_to_driver: the boundary dimension kept, the
 * others grown), since the cache blocks mc, kc and nc exist only there. The
 * combination, (alpha, beta) and padding rotate from one case to the next,
 * so every kernel meets all 8 combinations and all (alpha, beta) pairs; the
 * combinations shift by 3 from one kernel to the next. alpha == 0 becomes
 * -0.75 so every case reaches a kernel. Prints the shapes of each target
 * (a => b: b is the lifted shape).
 */
START_TEST(test_sgemm_block_boundaries)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    int kernel_index = 0;
    for (int ii = 0; ii < nisa; ii++) {
        const sgemm_kernels *row = sgemm_kernels_for(isas[ii]);
        ck_assert_ptr_nonnull(row);
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        for (int shape = 0; shape < row->nshapes; shape++, kernel_index++) {
            const tuning_state saved = use_shape(isas[ii], shape);
            sgemm_target target;
            sgemm_target_for(isas[ii], 1, &target);
            const sgemm_target *t = &target;
            ck_assert_str_eq(exact_sgemm_kernel_name(), t->name);
            /* the target contract (sgemm_target.h) the shapes below rely on */
            ck_assert(t->mr >= 1 && t->mr <= SGEMM_MAX_MR && t->nr >= 1 && t->nr <= SGEMM_MAX_NR);
            ck_assert(t->mc >= t->mr && t->mc % t->mr == 0 && t->nc >= t->nr && t->nc % t->nr == 0);
            ck_assert_int_ge(t->kc, 1);

            boundary_shape shapes[MAX_BOUNDARY_SHAPES];
            const int ns = boundary_shapes(t, shapes);
            char list[2048];
            int len = snprintf(list, sizeof list, "block boundaries on %s (mr %d nr %d mc %lld kc %lld nc %lld):",
                               t->name, t->mr, t->nr, (long long)t->mc, (long long)t->kc, (long long)t->nc);
            int cn = 0; /* cases run so far on this kernel */
            for (int si = 0; si < ns; si++) {
                boundary_shape run[2] = { shapes[si], shapes[si] };
                int nrun = 1;
                if (sgemm_sup_applies(t, run[0].d[0], run[0].d[1], run[0].d[2])) {
                    ck_assert_msg(lift_to_driver(t, &run[1]),
                                  "%s: %lldx%lldx%lld cannot be lifted to the blocked driver", t->name,
                                  (long long)run[0].d[0], (long long)run[0].d[1], (long long)run[0].d[2]);
                    nrun = 2;
                }
                for (int r = 0; r < nrun; r++, cn++) {
                    if (len > 0 && (size_t)len < sizeof list)
                        len += snprintf(list + len, sizeof list - (size_t)len, "%s%lldx%lldx%lld",
                                        r ? "=>" : " ", (long long)run[r].d[0], (long long)run[r].d[1],
                                        (long long)run[r].d[2]);
                    const int ab = (3 * cn + kernel_index) % NAB;
                    sgemm_case c;
                    combo_of((cn + 3 * kernel_index) % 8, &c.layout, &c.ta, &c.tb);
                    c.m = run[r].d[0];
                    c.n = run[r].d[1];
                    c.k = run[r].d[2];
                    c.alpha = alphas_betas[ab][0] != 0.0f ? alphas_betas[ab][0] : -0.75f;
                    c.beta = alphas_betas[ab][1];
                    c.pad = cn % 3 == 0 ? 0 : 1 + cn % 5;
                    check_case(&c, 20000u + 100u * (uint64_t)kernel_index + (uint64_t)cn);
                }
            }
            printf("%s\n", list);
            fflush(stdout);
            restore_config(&saved);
        }
    }
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
}
END_TEST

/* ---- thread-count invariance ---- */

/*
 * A configuration of path isa other than its default, for the thread test:
 * variant 1: the row's last shape, kc 96, mc 3 mr / 5 mr, nc 5 nr / 7 nr,
 * split rows for several threads, prefetch 8 / 2, small products up to
 * 32^3; variant 2: the second shape (or the first), kc 40, split columns,
 * prefetch 0 / 24, no small-product path.
 */
static tuning_params other_config(smm_isa isa, int variant)
{
    const sgemm_kernels *row = sgemm_kernels_for(isa);
    const int shape = variant == 1 ? row->nshapes - 1 : (row->nshapes > 1 ? 1 : 0);
    tuning_params p;
    tuning_default_params(isa, shape, &p);
    const int64_t mr = row->shapes[shape].mr, nr = row->shapes[shape].nr;
    p.kc = variant == 1 ? 96 : 40;
    p.team[TUNING_ONE].mc = 3 * mr;
    p.team[TUNING_MANY].mc = 5 * mr;
    p.team[TUNING_ONE].nc = 5 * nr;
    p.team[TUNING_MANY].nc = 7 * nr;
    p.team[TUNING_ONE].split = SGEMM_SPLIT_AUTO;
    p.team[TUNING_MANY].split = variant == 1 ? SGEMM_SPLIT_ROWS : SGEMM_SPLIT_COLUMNS;
    p.team[TUNING_ONE].prefetch = variant == 1 ? 8 : 0;
    p.team[TUNING_MANY].prefetch = variant == 1 ? 2 : 24;
    if (sgemm_kernels_for(isa)->sup != NULL)
        p.sup_max_macs = variant == 1 ? 32.0 * 32.0 * 32.0 : 0.0;
    return p;
}

/*
 * The same product on 1 to 4 threads gives the same bits, under the
 * default configuration of each path and under the two of other_config
 * (another shape, kc, mc and nc for one thread and for several, the rows
 * and the columns split, prefetch distances). A target with a
 * small-product path runs the 100^3 shape there; the other fixed shapes are
 * meant for the blocked driver and are lifted to it when the target would
 * run them on that path (lift_to_driver: the dimensions in `grow` grow).
 * Besides, each configuration runs m = mc+1, n = nc+nr+1, k = kc+1 (the
 * larger of the one-thread and several-thread blocks: at one thread two ic,
 * pc and jc blocks, the last ic block one row, the last pc block one step
 * of k, the last jc block nr+1 columns) on 1 and 2 threads only: up to 0.6
 * GFLOP per run, which takes seconds under emulation (qemu-aarch64).
 */
START_TEST(test_sgemm_threads_bit_identical)
{
    typedef struct {
        int combo;
        int64_t m, n, k;
        float beta;
        int max_threads;
        int grow; /* 0: as is; else lift to the blocked driver growing these dimensions (bits m, n, k) */
    } thread_shape;
    static const thread_shape fixed[] = {
        { 0, 613, 300, 531, 0.0f, 4, 2 },  /* several ic and k blocks */
        { 6, 7, 4133, 20, 1.5f, 4, 4 },    /* one ic block: threads split the B panels; two nc blocks */
        { 3, 100, 100, 100, -0.75f, 4, 0 },
        { 5, 257, 33, 700, 1.0f, 4, 2 },
    };
    enum { NFIXED = sizeof fixed / sizeof fixed[0] };
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int ci = 0; ci < 3 * nisa; ci++) {
        const int ii = ci / 3, variant = ci % 3;
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        const tuning_params other = other_config(isas[ii], variant);
        tuning_state saved = *tuning_active();
        if (variant > 0)
            saved = use_config(isas[ii], &other);
        sgemm_target target, many;
        sgemm_target_for(isas[ii], 1, &target);
        sgemm_target_for(isas[ii], 2, &many);
        const sgemm_target *t = &target;
        thread_shape shapes[NFIXED + 1];
        memcpy(shapes, fixed, sizeof fixed);
        for (int si = 0; si < NFIXED; si++) {
            if (shapes[si].grow == 0)
                continue;
            boundary_shape b = { { shapes[si].m, shapes[si].n, shapes[si].k }, shapes[si].grow };
            ck_assert_msg(lift_to_driver(t, &b), "%s: shape %d cannot be lifted to the blocked driver",
                          t->name, si);
            shapes[si].m = b.d[0];
            shapes[si].n = b.d[1];
            shapes[si].k = b.d[2];
        }
        shapes[NFIXED] = (thread_shape){ (3 * ci + 2) % 8, max_i64(t->mc, many.mc) + 1,
                                         max_i64(t->nc, many.nc) + t->nr + 1, t->kc + 1, ci % 2 ? 0.0f : 1.5f,
                                         2, 0 };
        ck_assert(!sgemm_sup_applies(t, shapes[NFIXED].m, shapes[NFIXED].n, shapes[NFIXED].k));
        for (size_t si = 0; si < NFIXED + 1; si++) {
            uint64_t rng = 99u + si;
            smm_layout layout;
            smm_trans ta, tb;
            combo_of(shapes[si].combo, &layout, &ta, &tb);
            const int64_t m = shapes[si].m, n = shapes[si].n, k = shapes[si].k;
            const int a_plain = ta == SMM_NO_TRANS, b_plain = tb == SMM_NO_TRANS;
            stored_matrix A = stored_new(layout, a_plain ? m : k, a_plain ? k : m, 1, &rng);
            stored_matrix B = stored_new(layout, b_plain ? k : n, b_plain ? n : k, 2, &rng);
            stored_matrix C0 = stored_new(layout, m, n, 3, &rng);
            float *first = NULL;
            for (int threads = 1; threads <= shapes[si].max_threads; threads++) {
                ck_assert_int_eq(smm_set_num_threads(threads), SMM_OK);
                float *C = malloc((size_t)C0.size * sizeof(float));
                ck_assert_ptr_nonnull(C);
                memcpy(C, C0.p, (size_t)C0.size * sizeof(float));
                ck_assert_int_eq(exact_sgemm(layout, ta, tb, m, n, k, 1.25f, A.p, A.ld, B.p, B.ld,
                                             shapes[si].beta, C, C0.ld),
                                 SMM_OK);
                if (first == NULL) {
                    first = C;
                } else {
                    ck_assert_msg(memcmp(first, C, (size_t)C0.size * sizeof(float)) == 0,
                                  "kernel %s configuration %d shape %zu (%lldx%lldx%lld): %d threads differ "
                                  "from 1 thread",
                                  exact_sgemm_kernel_name(), variant, si, (long long)m, (long long)n,
                                  (long long)k, threads);
                    free(C);
                }
            }
            free(first);
            free(A.p);
            free(B.p);
            free(C0.p);
        }
        restore_config(&saved);
    }
    ck_assert_int_eq(smm_set_num_threads(0), SMM_OK);
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
}
END_TEST

/*
 * Every shape of a path gives the same bits (sgemm_kernel_fn: one
 * accumulator per element, summed in order; the edge tiles of a fused path
 * update C with one rounding, as its kernels do): with kc, mc and nc the
 * same for all (multiples of every shape's tile, the small-product path off),
 * products whose edges fall anywhere in the tiles, beta 0, 1 and 1.5, one
 * and two threads.
 */
START_TEST(test_sgemm_shapes_same_bits)
{
    static const int64_t products[][3] = { { 37, 70, 300 }, { 100, 129, 17 }, { 7, 200, 64 } };
    static const float betas[] = { 0.0f, 1.0f, 1.5f };
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int ii = 0; ii < nisa; ii++) {
        const sgemm_kernels *row = sgemm_kernels_for(isas[ii]);
        if (row->nshapes < 2)
            continue;
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        for (int pi = 0; pi < 3; pi++) {
            const int64_t m = products[pi][0], n = products[pi][1], k = products[pi][2];
            uint64_t rng = 500u + (uint64_t)pi;
            float *A = malloc(sizeof(float) * (size_t)(m * k)), *B = malloc(sizeof(float) * (size_t)(k * n));
            float *C0 = malloc(sizeof(float) * (size_t)(m * n)), *first = malloc(sizeof(float) * (size_t)(m * n));
            float *C = malloc(sizeof(float) * (size_t)(m * n));
            ck_assert(A && B && C0 && first && C);
            test_fill_uniform(A, m * k, &rng);
            test_fill_uniform(B, k * n, &rng);
            test_fill_uniform(C0, m * n, &rng);
            for (int bi = 0; bi < 3; bi++)
                for (int threads = 1; threads <= 2; threads++)
                    for (int shape = 0; shape < row->nshapes; shape++) {
                        tuning_params p;
                        tuning_default_params(isas[ii], shape, &p);
                        p.kc = 48;
                        p.sup_max_macs = 0.0;
                        for (int team = 0; team < TUNING_TEAMS; team++) {
                            p.team[team].mc = 1680; /* a multiple of every mr: 4, 6, 8, 12, 14, 16 */
                            p.team[team].nc = 1920; /* of every nr: 4, 8, 12, 16, 24, 32, 48, 64 */
                        }
                        ck_assert(1680 % row->shapes[shape].mr == 0 && 1920 % row->shapes[shape].nr == 0);
                        const tuning_state saved = use_config(isas[ii], &p);
                        ck_assert_int_eq(smm_set_num_threads(threads), SMM_OK);
                        memcpy(C, C0, sizeof(float) * (size_t)(m * n));
                        ck_assert_int_eq(exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 0.75f, A, k,
                                                     B, n, betas[bi], C, n),
                                         SMM_OK);
                        restore_config(&saved);
                        if (shape == 0 && threads == 1) {
                            memcpy(first, C, sizeof(float) * (size_t)(m * n));
                            continue;
                        }
                        ck_assert_msg(memcmp(first, C, sizeof(float) * (size_t)(m * n)) == 0,
                                      "%s on 1 thread and %s on %d differ: %lldx%lldx%lld beta %g",
                                      row->shapes[0].name, row->shapes[shape].name, threads, (long long)m,
                                      (long long)n, (long long)k, (double)betas[bi]);
                    }
            free(A), free(B), free(C0), free(first), free(C);
        }
    }
    ck_assert_int_eq(smm_set_num_threads(0), SMM_OK);
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
}
END_TEST

/* ---- k == 0 and alpha == 0: C := beta * C without reading A or B ---- */

START_TEST(test_sgemm_k_zero_and_alpha_zero)
{
    static const float betas[] = { 0.0f, 1.0f, -0.75f };
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        for (int li = 0; li < 2; li++) {
            const smm_layout layout = li ? SMM_COL_MAJOR : SMM_ROW_MAJOR;
            for (int bi = 0; bi < 3; bi++) {
                const float beta = betas[bi];
                for (int alpha_zero = 0; alpha_zero < 2; alpha_zero++) {
                    const int64_t m = 5, n = 7, k = alpha_zero ? 3 : 0;
                    uint64_t rng = 7u;
                    /* alpha == 0: A and B hold NaN, which must not be read */
                    float *A = NULL, *B = NULL;
                    float poison[64];
                    for (int e = 0; e < 64; e++)
                        poison[e] = NAN;
                    if (alpha_zero)
                        A = B = poison;
                    stored_matrix C = stored_new(layout, m, n, 2, &rng);
                    if (beta == 0.0f)
                        for (int64_t e = 0; e < C.size; e++)
                            if (e % C.ld < (layout == SMM_ROW_MAJOR ? n : m))
                                C.p[e] = NAN;
                    float *C0 = malloc((size_t)C.size * sizeof(float));
                    ck_assert_ptr_nonnull(C0);
                    memcpy(C0, C.p, (size_t)C.size * sizeof(float));
                    /* leading dimensions valid for both layouts: 8 >= every dimension */
                    smm_status s = exact_sgemm(layout, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k,
                                               alpha_zero ? 0.0f : 1.0f, A, 8, B, 8, beta, C.p, C.ld);
                    ck_assert_int_eq(s, SMM_OK);
                    const int64_t inner = layout == SMM_ROW_MAJOR ? n : m;
                    for (int64_t e = 0; e < C.size; e++) {
                        if (e % C.ld < inner) {
                            const float want = beta == 0.0f ? 0.0f : beta * C0[e];
                            ck_assert_msg(memcmp(&C.p[e], &want, sizeof(float)) == 0,
                                          "C[%lld] = %g, want %g", (long long)e, (double)C.p[e],
                                          (double)want);
                        } else {
                            ck_assert(memcmp(&C.p[e], &C0[e], sizeof(float)) == 0);
                        }
                    }
                    free(C0);
                    free(C.p);
                }
            }
        }
    }
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
}
END_TEST

/* ---- m == 0 or n == 0: nothing is done; matrices without elements may be NULL ---- */

START_TEST(test_sgemm_empty_is_noop)
{
    float B[12], A[12], C[4];
    for (int e = 0; e < 12; e++)
        A[e] = B[e] = 1.0f;
    for (int e = 0; e < 4; e++)
        C[e] = -3.0f;
    const float C0[4] = { -3.0f, -3.0f, -3.0f, -3.0f };
    for (int li = 0; li < 2; li++) {
        const smm_layout layout = li ? SMM_COL_MAJOR : SMM_ROW_MAJOR;
        /* m == 0: A (0 x 3) and C (0 x 4) are NULL, B (3 x 4) is not */
        ck_assert_int_eq(exact_sgemm(layout, SMM_NO_TRANS, SMM_NO_TRANS, 0, 4, 3, 1.0f, NULL, 4, B,
                                     4, 0.0f, NULL, 4),
                         SMM_OK);
        /* n == 0: B (3 x 0) and C (2 x 0) are NULL */
        ck_assert_int_eq(exact_sgemm(layout, SMM_NO_TRANS, SMM_NO_TRANS, 2, 0, 3, 1.0f, A, 3, NULL,
                                     3, 0.0f, NULL, 2),
                         SMM_OK);
        /* n == 0 with a C pointer: untouched */
        ck_assert_int_eq(exact_sgemm(layout, SMM_TRANS, SMM_TRANS, 2, 0, 3, 1.0f, A, 3, B, 3, 0.0f,
                                     C, 2),
                         SMM_OK);
        ck_assert(memcmp(C, C0, sizeof C) == 0);
        /* everything empty, every pointer NULL */
        ck_assert_int_eq(exact_sgemm(layout, SMM_NO_TRANS, SMM_TRANS, 0, 0, 0, 1.0f, NULL, 1, NULL,
                                     1, 0.0f, NULL, 1),
                         SMM_OK);
        ck_assert_int_eq(exact_sgemm(layout, SMM_TRANS, SMM_NO_TRANS, 3, 0, 0, 1.0f, NULL, 3, NULL,
                                     1, 1.0f, NULL, 3),
                         SMM_OK);
    }
}
END_TEST

/* ---- argument errors: the documented status, C bit-for-bit untouched ---- */

typedef struct {
    const char *what;
    smm_layout layout;
    smm_trans ta, tb;
    int64_t m, n, k;
    int a_null, b_null, c_null;
    int64_t lda, ldb, ldc;
    smm_status want;
} bad_case;

START_TEST(test_sgemm_bad_arguments)
{
    const smm_layout R = SMM_ROW_MAJOR, L = SMM_COL_MAJOR;
    const smm_trans N = SMM_NO_TRANS, T = SMM_TRANS;
    const int64_t huge = INT64_MAX / 2;
    /* valid reference: m = 4, n = 5, k = 3; row-major lda 3, ldb 5, ldc 5; column-major lda 4, ldb 3, ldc 4 */
    const bad_case cases[] = {
        { "layout 0", (smm_layout)0, N, N, 4, 5, 3, 0, 0, 0, 3, 5, 5, SMM_ERR_BAD_LAYOUT },
        { "layout 103", (smm_layout)103, N, N, 4, 5, 3, 0, 0, 0, 3, 5, 5, SMM_ERR_BAD_LAYOUT },
        { "transa 0", R, (smm_trans)0, N, 4, 5, 3, 0, 0, 0, 3, 5, 5, SMM_ERR_BAD_TRANS },
        { "transa 113", R, (smm_trans)113, N, 4, 5, 3, 0, 0, 0, 3, 5, 5, SMM_ERR_BAD_TRANS },
        { "transb 110", L, N, (smm_trans)110, 4, 5, 3, 0, 0, 0, 4, 3, 4, SMM_ERR_BAD_TRANS },
        { "bad layout before bad size", (smm_layout)7, N, N, -1, 5, 3, 0, 0, 0, 3, 5, 5, SMM_ERR_BAD_LAYOUT },
        { "m < 0", R, N, N, -1, 5, 3, 0, 0, 0, 3, 5, 5, SMM_ERR_BAD_SIZE },
        { "n < 0", R, N, N, 4, -1, 3, 0, 0, 0, 3, 5, 5, SMM_ERR_BAD_SIZE },
        { "k < 0", L, N, N, 4, 5, -1, 0, 0, 0, 4, 3, 4, SMM_ERR_BAD_SIZE },
        { "row lda < k", R, N, N, 4, 5, 3, 0, 0, 0, 2, 5, 5, SMM_ERR_BAD_LEADING_DIM },
        { "row lda < m (A^T)", R, T, N, 4, 5, 3, 0, 0, 0, 3, 5, 5, SMM_ERR_BAD_LEADING_DIM },
        { "row ldb < n", R, N, N, 4, 5, 3, 0, 0, 0, 3, 4, 5, SMM_ERR_BAD_LEADING_DIM },
        { "row ldb < k (B^T)", R, N, T, 4, 5, 3, 0, 0, 0, 3, 2, 5, SMM_ERR_BAD_LEADING_DIM },
        { "row ldc < n", R, N, N, 4, 5, 3, 0, 0, 0, 3, 5, 4, SMM_ERR_BAD_LEADING_DIM },
        { "col lda < m", L, N, N, 4, 5, 3, 0, 0, 0, 3, 3, 4, SMM_ERR_BAD_LEADING_DIM },
        { "col lda < k (A^T)", L, T, N, 4, 5, 3, 0, 0, 0, 2, 3, 4, SMM_ERR_BAD_LEADING_DIM },
        { "col ldb < k", L, N, N, 4, 5, 3, 0, 0, 0, 4, 2, 4, SMM_ERR_BAD_LEADING_DIM },
        { "col ldb < n (B^T)", L, N, T, 4, 5, 3, 0, 0, 0, 4, 4, 4, SMM_ERR_BAD_LEADING_DIM },
        { "col ldc < m", L, N, N, 4, 5, 3, 0, 0, 0, 4, 3, 3, SMM_ERR_BAD_LEADING_DIM },
        { "ldc 0 with m == 0", R, N, N, 0, 5, 3, 0, 0, 0, 3, 5, 0, SMM_ERR_BAD_LEADING_DIM },
        { "A NULL", R, N, N, 4, 5, 3, 1, 0, 0, 3, 5, 5, SMM_ERR_NULL_POINTER },
        { "B NULL", L, N, T, 4, 5, 3, 0, 1, 0, 4, 5, 4, SMM_ERR_NULL_POINTER },
        { "C NULL", R, T, T, 4, 5, 3, 0, 0, 1, 4, 3, 5, SMM_ERR_NULL_POINTER },
        { "A NULL (transposed, column-major)", L, T, N, 4, 5, 3, 1, 0, 0, 3, 3, 4, SMM_ERR_NULL_POINTER },
        { "A extent overflows (m huge)", R, N, N, huge, 1, 1, 0, 0, 0, 1, 1, 1, SMM_ERR_OVERFLOW },
        { "B extent overflows (ldb huge)", R, N, N, 1, 1, 2, 0, 0, 0, 2, huge, 1, SMM_ERR_OVERFLOW },
        { "C extent overflows (ldc huge)", L, N, N, 1, 3, 1, 0, 0, 0, 1, 1, INT64_MAX / 4,
          SMM_ERR_OVERFLOW },
        { "A^T extent overflows (m huge, col)", L, T, N, huge, 1, 1, 0, 0, 0, 1, 1, huge,
          SMM_ERR_OVERFLOW },
    };
    float A[64], B[64], C[64], C0[64];
    uint64_t rng = 3u;
    test_fill_uniform(A, 64, &rng);
    test_fill_uniform(B, 64, &rng);
    test_fill_uniform(C0, 64, &rng);
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
            const bad_case *b = &cases[ci];
            memcpy(C, C0, sizeof C);
            smm_status s = exact_sgemm(b->layout, b->ta, b->tb, b->m, b->n, b->k, 1.5f,
                                       b->a_null ? NULL : A, b->lda, b->b_null ? NULL : B, b->ldb,
                                       0.0f, b->c_null ? NULL : C, b->ldc);
            ck_assert_msg(s == b->want, "%s: status %d (%s), want %d", b->what, (int)s,
                          smm_status_str(s), (int)b->want);
            ck_assert_msg(memcmp(C, C0, sizeof C) == 0, "%s: C was written", b->what);
        }
    }
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
}
END_TEST

/* The internal entry point checks its context first. */
START_TEST(test_sgemm_with_bad_context)
{
    float A[4] = { 1, 2, 3, 4 }, B[4] = { 1, 0, 0, 1 }, C[4] = { 9, 9, 9, 9 };
    const float C0[4] = { 9, 9, 9, 9 };
    smm_context ctx = { SMM_ISA_SCALAR, 1 };
    ck_assert_int_eq(exact_sgemm_with(NULL, SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 2, 1.0f,
                                      A, 2, B, 2, 0.0f, C, 2),
                     SMM_ERR_NULL_POINTER);
    ctx.isa = SMM_ISA_AUTO;
    ck_assert_int_eq(exact_sgemm_with(&ctx, SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 2, 1.0f,
                                      A, 2, B, 2, 0.0f, C, 2),
                     SMM_ERR_BAD_ISA);
    ctx.isa = (smm_isa)42;
    ck_assert_int_eq(exact_sgemm_with(&ctx, SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 2, 1.0f,
                                      A, 2, B, 2, 0.0f, C, 2),
                     SMM_ERR_BAD_ISA);
    ctx.isa = SMM_ISA_SCALAR;
    ctx.threads = 0;
    ck_assert_int_eq(exact_sgemm_with(&ctx, SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 2, 1.0f,
                                      A, 2, B, 2, 0.0f, C, 2),
                     SMM_ERR_BAD_THREADS);
    static const smm_isa others[] = { SMM_ISA_AVX2, SMM_ISA_AVX512, SMM_ISA_NEON };
    for (int i = 0; i < 3; i++) {
        if (smm_isa_supported(others[i]))
            continue;
        ctx.isa = others[i];
        ctx.threads = 1;
        ck_assert_int_eq(exact_sgemm_with(&ctx, SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 2,
                                          1.0f, A, 2, B, 2, 0.0f, C, 2),
                         SMM_ERR_ISA_UNAVAILABLE);
    }
    ck_assert(memcmp(C, C0, sizeof C) == 0);
    /* and computes with a valid one */
    ctx.isa = SMM_ISA_SCALAR;
    ctx.threads = 3;
    ck_assert_int_eq(exact_sgemm_with(&ctx, SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 2, 1.0f,
                                      A, 2, B, 2, 0.0f, C, 2),
                     SMM_OK);
    ck_assert(memcmp(C, A, sizeof C) == 0);
}
END_TEST

/* A failed ISA selection reaches exact_sgemm and exact_sgemm_kernel_name. */
START_TEST(test_sgemm_selection_error)
{
    static const smm_isa others[] = { SMM_ISA_AVX2, SMM_ISA_AVX512, SMM_ISA_NEON };
    float A[4] = { 1, 2, 3, 4 }, B[4] = { 1, 0, 0, 1 }, C[4] = { 9, 9, 9, 9 };
    const float C0[4] = { 9, 9, 9, 9 };
    for (int i = 0; i < 3; i++) {
        if (smm_isa_supported(others[i]))
            continue;
        ck_assert_int_eq(smm_set_isa(others[i]), SMM_ERR_ISA_UNAVAILABLE);
        ck_assert_int_eq(exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 2, 1.0f, A, 2,
                                     B, 2, 0.0f, C, 2),
                         SMM_ERR_ISA_UNAVAILABLE);
        ck_assert_str_eq(exact_sgemm_kernel_name(), "unavailable");
        ck_assert(memcmp(C, C0, sizeof C) == 0);
    }
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
}
END_TEST

START_TEST(test_sgemm_kernel_names)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        const char *name = exact_sgemm_kernel_name();
        ck_assert_ptr_nonnull(name);
        ck_assert_int_gt((int)strlen(name), 0);
        ck_assert_str_ne(name, "unavailable");
        ck_assert_str_eq(name, exact_sgemm_kernel_name_for(isas[ii]));
        /* the kernel-name rule of common.h: the path, then the tile */
        ck_assert(strncmp(name, smm_isa_name(isas[ii]), strlen(smm_isa_name(isas[ii]))) == 0);
    }
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
    ck_assert_str_eq(exact_sgemm_kernel_name_for(SMM_ISA_AUTO), "unavailable");
    ck_assert_str_eq(exact_sgemm_kernel_name_for((smm_isa)42), "unavailable");
#if defined(__aarch64__)
    /* the NEON path runs its own kernels, not the portable reference */
    ck_assert_int_eq(smm_set_isa(SMM_ISA_NEON), SMM_OK);
    ck_assert(strncmp(exact_sgemm_kernel_name(), "neon_", 5) == 0);
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
#endif
}
END_TEST

/* ---- every kernel of a target against the scalar twins (sgemm_target.h) ---- */

#define TWIN_FLOATS 2048
#define SENTINEL_BITS 0x7FC0BEEFu /* a quiet NaN with a payload no result has: C padding */

/* n floats of x set to the sentinel's bits. */
static void fill_sentinel(float *x, int64_t n)
{
    const uint32_t sentinel_bits = SENTINEL_BITS;
    for (int64_t i = 0; i < n; i++)
        memcpy(&x[i], &sentinel_bits, sizeof(float));
}

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Small integers (every product and sum exact, so every kernel must give the twin's bits) or uniform values. */
static float twin_value(int exact, uint64_t *rng)
{
    return exact ? (float)((int)(test_rng_next(rng) % 17) - 8) : test_rng_uniform(rng);
}

/*
 * One tile as sgemm_sup_fn describes it: rows x cols, depth k, A element
 * (i, p) at A[i * rsa + p * csa], B (p, j) at B[p * rsb + j], C (i, j) at
 * C[i * ldc + j]. A packed micro-kernel's tile is the case rows = rsb = mr,
 * cols = nr, rsa = 1, csa = mr.
 */
typedef struct {
    int64_t rows, cols, k;
    int64_t rsa, csa, rsb, ldc;
    float alpha, beta;
    int exact; /* data of small integers */
} twin_case;

/*
 * Run the packed kernel (sup NULL) or the small-product kernel on c and
 * compare with sgemm_sup_scalar: the same bits when same_bits or c->exact,
 * else within 2 (k + 2) eps (|alpha| sum |a||b| + |beta c0|), the room
 * fused and separate roundings need. Elements between those the tile reads
 * hold NaN (reading one shows); beta == 0 puts NaN in C; the padding of C
 * must keep its bits.
 */
static void twin_check(const char *what, const twin_case *c, sgemm_kernel_fn kernel, sgemm_sup_fn sup,
                       int same_bits, uint64_t seed)
{
    static float A[TWIN_FLOATS], B[TWIN_FLOATS], absA[TWIN_FLOATS], absB[TWIN_FLOATS];
    static float C0[TWIN_FLOATS], got[TWIN_FLOATS], want[TWIN_FLOATS], mag[TWIN_FLOATS];
    const int64_t rows = c->rows, cols = c->cols, k = c->k, ldc = c->ldc;
    ck_assert((rows - 1) * c->rsa + (k - 1) * c->csa < TWIN_FLOATS && (k - 1) * c->rsb + cols <= TWIN_FLOATS &&
              rows * ldc <= TWIN_FLOATS);
    uint64_t rng = seed;
    for (int64_t x = 0; x < TWIN_FLOATS; x++)
        A[x] = B[x] = NAN;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t p = 0; p < k; p++)
            A[i * c->rsa + p * c->csa] = twin_value(c->exact, &rng);
    for (int64_t p = 0; p < k; p++)
        for (int64_t j = 0; j < cols; j++)
            B[p * c->rsb + j] = twin_value(c->exact, &rng);
    for (int64_t x = 0; x < TWIN_FLOATS; x++) {
        absA[x] = fabsf(A[x]);
        absB[x] = fabsf(B[x]);
    }
    const uint32_t sentinel_bits = SENTINEL_BITS;
    for (int64_t x = 0; x < rows * ldc; x++) {
        if (x % ldc >= cols)
            memcpy(&C0[x], &sentinel_bits, sizeof(float));
        else
            C0[x] = c->beta == 0.0f ? NAN : twin_value(c->exact, &rng);
    }
    memcpy(got, C0, (size_t)(rows * ldc) * sizeof(float));
    memcpy(want, C0, (size_t)(rows * ldc) * sizeof(float));
    if (sup == NULL)
        kernel(k, c->alpha, A, B, c->beta, got, ldc, (int64_t)(seed % 3) * 8 * rows); /* prefetch 0, 8, 16 steps */
    else
        sup(rows, cols, k, c->alpha, A, c->rsa, c->csa, B, c->rsb, c->beta, got, ldc);
    sgemm_sup_scalar(rows, cols, k, c->alpha, A, c->rsa, c->csa, B, c->rsb, c->beta, want, ldc);
    sgemm_sup_scalar(rows, cols, k, fabsf(c->alpha), absA, c->rsa, c->csa, absB, c->rsb, 0.0f, mag, ldc);
    for (int64_t x = 0; x < rows * ldc; x++) {
        const int64_t i = x / ldc, j = x % ldc;
        if (j >= cols) {
            ck_assert_msg(bits_of(got[x]) == SENTINEL_BITS, "%s %lldx%lldx%lld: padding C(%lld, %lld) written",
                          what, (long long)rows, (long long)cols, (long long)k, (long long)i, (long long)j);
            continue;
        }
        const double bc = c->beta == 0.0f ? 0.0 : fabs((double)c->beta * C0[x]);
        const double tol = 2.0 * (double)(k + 2) * FLT_EPSILON * ((double)mag[x] + bc);
        const int ok = same_bits || c->exact ? bits_of(got[x]) == bits_of(want[x])
                                             : fabs((double)got[x] - (double)want[x]) <= tol;
        ck_assert_msg(ok,
                      "%s %lldx%lldx%lld rsa=%lld csa=%lld rsb=%lld alpha=%g beta=%g %s: C(%lld, %lld) = %a, "
                      "the twin gives %a%s",
                      what, (long long)rows, (long long)cols, (long long)k, (long long)c->rsa, (long long)c->csa,
                      (long long)c->rsb, (double)c->alpha, (double)c->beta, c->exact ? "integers" : "uniform",
                      (long long)i, (long long)j, (double)got[x], (double)want[x],
                      same_bits || c->exact ? " (bits)" : " (beyond the tolerance)");
    }
}

/*
 * On every ISA path, the target's kernels against the scalar twins
 * (sgemm_sup_scalar, sgemm_pack_lines_scalar): the packed micro-kernel on
 * whole mr x nr tiles; the small-product kernel on every tile from 1 x 1 to
 * mr x nr with A read along rows and along columns; both at k = 1, 2, 17,
 * with and without beta. Integer data: the twin's bits; uniform data: the
 * twin's within the FMA tolerance, and the scalar micro-kernel's bits (the
 * twin has its arithmetic). The transposing packer: every line count from 1
 * to the panel width, the twin's bits, nothing written past the panels; the
 * copying packer: every count of lines up to three panels' worth, the same.
 */
START_TEST(test_sgemm_kernels_match_twins)
{
    static const int64_t ks[] = { 1, 2, 17 };
    static const float ab[][2] = { { 1.0f, 0.0f }, { -0.5f, 1.0f }, { 2.0f, 0.25f } };
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int ii = 0; ii < nisa; ii++) {
        const sgemm_kernels *t = sgemm_kernels_for(isas[ii]);
        char what[96];
        uint64_t seed = 40000u + 100000u * (uint64_t)ii;
        for (int exact = 0; exact < 2; exact++)
            for (int ki = 0; ki < 3; ki++)
                for (int a = 0; a < 3; a++) {
                    for (int si = 0; si < t->nshapes; si++) {
                        const sgemm_shape *sh = &t->shapes[si];
                        const twin_case packed = { sh->mr, sh->nr, ks[ki], 1, sh->mr, sh->nr, sh->nr + 3, ab[a][0],
                                                   ab[a][1], exact };
                        snprintf(what, sizeof what, "%s kernel", sh->name);
                        twin_check(what, &packed, sh->kernel, NULL, sh->kernel == sgemm_kernel_scalar_4x8, seed++);
                    }
                    if (t->sup == NULL)
                        continue;
                    snprintf(what, sizeof what, "%s sup", t->head.name);
                    for (int64_t rows = 1; rows <= t->sup_mr; rows++)
                        for (int64_t cols = 1; cols <= t->sup_nr; cols++)
                            for (int along = 0; along < 2; along++) {
                                const int64_t k = ks[ki];
                                const twin_case sc = { rows, cols, k, along ? 1 : k + 3, along ? rows + 2 : 1,
                                                       cols + 5, cols + 7, ab[a][0], ab[a][1], exact };
                                twin_check(what, &sc, NULL, t->sup, 0, seed++);
                            }
                }

        static float src[2 * TWIN_FLOATS], got[2 * TWIN_FLOATS], want[2 * TWIN_FLOATS];
        static const int64_t kcs[] = { 1, 2, 17, 33 };
        for (int si = 0; si < t->nshapes; si++) {
            const int widths[2] = { t->shapes[si].mr, t->shapes[si].nr };
            for (int wi = 0; wi < 2; wi++)
                for (int kci = 0; kci < 4; kci++)
                    for (int64_t lines = 1; lines <= widths[wi]; lines++) {
                        const int w = widths[wi];
                        const int64_t kc = kcs[kci], ls = kc + 3;
                        uint64_t rng = seed++;
                        for (int64_t x = 0; x < 2 * TWIN_FLOATS; x++)
                            src[x] = x % ls < kc ? test_rng_uniform(&rng) : NAN;
                        fill_sentinel(got, 2 * TWIN_FLOATS);
                        fill_sentinel(want, 2 * TWIN_FLOATS);
                        ck_assert(lines * ls <= 2 * TWIN_FLOATS && kc * w < 2 * TWIN_FLOATS);
                        t->pack_lines(w, lines, kc, src, ls, got);
                        sgemm_pack_lines_scalar(w, lines, kc, src, ls, want);
                        ck_assert_msg(memcmp(got, want, sizeof got) == 0,
                                      "%s pack_lines w=%d lines=%lld kc=%lld: not the twin's bits", t->head.name, w,
                                      (long long)lines, (long long)kc);
                    }
            /* the copying packer: 1 to 3 panels' worth of lines, panels a little apart */
            for (int wi = 0; wi < 2; wi++)
                for (int kci = 0; kci < 3; kci++)
                    for (int64_t count = 1; count <= 3 * widths[wi]; count++) {
                        const int w = widths[wi];
                        const int64_t kc = kcs[kci], ps = 3 * w + 5, panel = w * kc + 3;
                        uint64_t rng = seed++;
                        for (int64_t x = 0; x < 2 * TWIN_FLOATS; x++)
                            src[x] = x % ps < count ? test_rng_uniform(&rng) : NAN;
                        fill_sentinel(got, 2 * TWIN_FLOATS);
                        fill_sentinel(want, 2 * TWIN_FLOATS);
                        ck_assert(kc * ps <= 2 * TWIN_FLOATS && 3 * panel <= 2 * TWIN_FLOATS);
                        t->pack_rows(w, count, kc, src, ps, got, panel);
                        sgemm_pack_rows_scalar(w, count, kc, src, ps, want, panel);
                        ck_assert_msg(memcmp(got, want, sizeof got) == 0,
                                      "%s pack_rows w=%d count=%lld kc=%lld: not the twin's bits", t->head.name, w,
                                      (long long)count, (long long)kc);
                    }
        }
    }
}
END_TEST

/* ---- padded matrices (exact_padded_ld, exact_matrix_alloc) ---- */

START_TEST(padded_ld_rule)
{
    ck_assert_int_eq(exact_padded_ld(0), 16);
    ck_assert_int_eq(exact_padded_ld(1), 16);
    ck_assert_int_eq(exact_padded_ld(16), 16);
    ck_assert_int_eq(exact_padded_ld(17), 32);
    ck_assert_int_eq(exact_padded_ld(1000), 1008);
    ck_assert_int_eq(exact_padded_ld(1024), 1040);
    ck_assert_int_eq(exact_padded_ld(2048), 2064);
    ck_assert_int_eq(exact_padded_ld(4096), 4112);
    ck_assert_int_eq(exact_padded_ld(-1), -1);
    ck_assert_int_eq(exact_padded_ld(INT64_MAX), -1);
    for (int64_t inner = 0; inner <= 9000; inner++) {
        const int64_t ld = exact_padded_ld(inner);
        ck_assert_int_ge(ld, inner > 1 ? inner : 1);
        ck_assert_int_eq(ld % 16, 0);
        ck_assert_int_ne((ld * 4) % 4096, 0);
        /* smallest such value: one cache line less is too short or aliases */
        ck_assert(ld - 16 < (inner > 1 ? inner : 1) || ((ld - 16) * 4) % 4096 == 0);
    }
}
END_TEST

START_TEST(matrix_alloc_layout_and_use)
{
    const int64_t m = 100, n = 1024, k = 77;
    float *A, *B, *C;
    int64_t lda, ldb, ldc;
    ck_assert_int_eq(exact_matrix_alloc(SMM_ROW_MAJOR, m, k, &A, &lda), SMM_OK);
    ck_assert_int_eq(exact_matrix_alloc(SMM_COL_MAJOR, n, k, &B, &ldb), SMM_OK); /* B^T: n x k, column-major */
    ck_assert_int_eq(exact_matrix_alloc(SMM_ROW_MAJOR, m, n, &C, &ldc), SMM_OK);
    ck_assert_int_eq(lda, exact_padded_ld(k));
    ck_assert_int_eq(ldb, exact_padded_ld(n));
    ck_assert_int_eq(ldc, 1040);
    ck_assert_int_eq((int)((uintptr_t)A % 64), 0);
    ck_assert_int_eq((int)((uintptr_t)B % 64), 0);
    ck_assert_int_eq((int)((uintptr_t)C % 64), 0);
    for (int64_t i = 0; i < m * ldc; i++) /* zero-filled, padding included */
        ck_assert(C[i] == 0.0f);

    /* The same product from padded and dense storage gives the same bits. */
    uint64_t rng = 3;
    float *Ad = malloc(sizeof(float) * m * k), *Bd = malloc(sizeof(float) * k * n);
    float *Cd = malloc(sizeof(float) * m * n);
    test_fill_uniform(Ad, m * k, &rng);
    test_fill_uniform(Bd, k * n, &rng);
    for (int64_t i = 0; i < m; i++)
        for (int64_t p = 0; p < k; p++)
            A[i * lda + p] = Ad[i * k + p];
    for (int64_t p = 0; p < k; p++)
        for (int64_t j = 0; j < n; j++)
            B[p * ldb + j] = Bd[p * n + j]; /* column-major n x k = row-major k x n with ld ldb */
    ck_assert_int_eq(exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1, Ad, k, Bd, n, 0, Cd, n), SMM_OK);
    ck_assert_int_eq(exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1, A, lda, B, ldb, 0, C, ldc),
                     SMM_OK);
    for (int64_t i = 0; i < m; i++)
        ck_assert(memcmp(C + i * ldc, Cd + i * n, sizeof(float) * n) == 0);
    free(Ad), free(Bd), free(Cd);
    exact_matrix_free(A);
    exact_matrix_free(B);
    exact_matrix_free(C);
    exact_matrix_free(NULL);
}
END_TEST

START_TEST(matrix_alloc_errors)
{
    float *const sentinel = (float *)(uintptr_t)0x40;
    float *p = sentinel;
    int64_t ld = -7;
    ck_assert_int_eq(exact_matrix_alloc(SMM_ROW_MAJOR, 2, 2, NULL, &ld), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(exact_matrix_alloc(SMM_ROW_MAJOR, 2, 2, &p, NULL), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(exact_matrix_alloc((smm_layout)5, 2, 2, &p, &ld), SMM_ERR_BAD_LAYOUT);
    ck_assert_int_eq(exact_matrix_alloc(SMM_ROW_MAJOR, -1, 2, &p, &ld), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(exact_matrix_alloc(SMM_COL_MAJOR, 2, -1, &p, &ld), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(exact_matrix_alloc(SMM_ROW_MAJOR, INT64_MAX / 8, 1000, &p, &ld), SMM_ERR_OVERFLOW);
    ck_assert_int_eq(exact_matrix_alloc(SMM_ROW_MAJOR, 10, INT64_MAX, &p, &ld), SMM_ERR_OVERFLOW);
    ck_assert_ptr_eq(p, sentinel);
    ck_assert_int_eq(ld, -7);
    ck_assert_int_eq(exact_matrix_alloc(SMM_ROW_MAJOR, 0, 5, &p, &ld), SMM_OK);
    ck_assert_ptr_null(p);
    ck_assert_int_eq(ld, 16);
    /* rows but no columns is empty too: no memory (found by fuzz_api) */
    p = sentinel;
    ck_assert_int_eq(exact_matrix_alloc(SMM_ROW_MAJOR, 3, 0, &p, &ld), SMM_OK);
    ck_assert_ptr_null(p);
    p = sentinel;
    ck_assert_int_eq(exact_matrix_alloc(SMM_COL_MAJOR, 0, 3, &p, &ld), SMM_OK);
    ck_assert_ptr_null(p);
}
END_TEST

/*
 * Leading dimensions near INT64_MAX are valid for an operand with one line
 * (its extent is one line long): the kernels must not form pointers past
 * the operand with them (UBSan's pointer-overflow check in the sanitizer
 * build; found by fuzz_api). Every ISA path; the small-product kernels and
 * the packed path; brgemm's tiles and plans.
 */
START_TEST(test_huge_leading_dims_of_single_lines)
{
    const int64_t huge = INT64_MAX - 15;
    float A[3] = { 1, 2, 3 }, B[6] = { 1, 0, 0, 1, 1, 1 }, C[2] = { -1, -1 };
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        /* A 1 x 3 row-major with lda huge; C = A * B, B 3 x 2 */
        ck_assert_int_eq(exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 1, 2, 3, 1.0f, A, huge, B, 2,
                                     0.0f, C, huge), SMM_OK);
        ck_assert_float_eq(C[0], 4.0f);
        ck_assert_float_eq(C[1], 5.0f);
        /* A^T stored as one column-major line: A is 3 x 1 with lda huge, transposed */
        ck_assert_int_eq(exact_sgemm(SMM_COL_MAJOR, SMM_TRANS, SMM_NO_TRANS, 1, 1, 3, 1.0f, A, 3, A, huge,
                                     0.0f, C, 1), SMM_OK);
        ck_assert_float_eq(C[0], 14.0f);
        /* brgemm, column-major: A 1 x 3 (lda 1), B 3 x 1 with ldb huge (one column) */
        brgemm_desc d = { SMM_COL_MAJOR, 1, 1, 3, 1, huge, 1, 0, 0, 1.0f, 0.0f };
        brgemm_plan *plan = NULL;
        ck_assert_int_eq(brgemm_plan_create(&d, &plan), SMM_OK);
        ck_assert_int_eq(brgemm_execute_strided(plan, A, A, C, 1), SMM_OK);
        ck_assert_float_eq(C[0], 14.0f);
        brgemm_plan_free(plan);
        /* brgemm, row-major: A 1 x 3 with lda huge (one row) */
        brgemm_desc r = { SMM_ROW_MAJOR, 1, 1, 3, huge, 1, 1, 0, 0, 1.0f, 0.0f };
        ck_assert_int_eq(brgemm_plan_create(&r, &plan), SMM_OK);
        ck_assert_int_eq(brgemm_execute_strided(plan, A, A, C, 1), SMM_OK);
        ck_assert_float_eq(C[0], 14.0f);
        brgemm_plan_free(plan);
        /* k == 0: any ldb, B never read */
        brgemm_desc z = { SMM_COL_MAJOR, 2, 3, 0, 2, huge, 2, 0, 0, 1.0f, 0.0f };
        ck_assert_int_eq(brgemm_plan_create(&z, &plan), SMM_OK);
        brgemm_plan_free(plan);
    }
    test_restore_defaults();
}
END_TEST

/* ---- aliasing: C must not overlap the operands it is computed from ---- */

/*
 * exact_sgemm compares the memory spans (first to last element addressed)
 * of C with those of A and B when it reads them: an overlap, even by one
 * element, is SMM_ERR_BAD_ARGUMENT with nothing written; buffers that only
 * touch give the result of separate buffers. Every ISA path, both layouts.
 */
START_TEST(test_sgemm_rejects_overlapping_c)
{
    const int64_t m = 4, n = 5, k = 3;
    /*
     * one arena: A (12 floats) | C (20) | B (15) | 5 spare, each touching the next (the shapes fill their spans
     * in both layouts)
     */
    float arena[52], saved[52], As[12], Bs[15], Cs[20], C0[20];
    uint64_t rng = 12;
    test_fill_uniform(arena, 52, &rng);
    test_fill_uniform(C0, 20, &rng);
    float *A = arena, *C = arena + 12, *B = arena + 32;
    memcpy(As, A, sizeof As);
    memcpy(Bs, B, sizeof Bs);
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        for (int li = 0; li < 2; li++) {
            const smm_layout layout = li ? SMM_COL_MAJOR : SMM_ROW_MAJOR;
            const int64_t lda = li ? m : k, ldb = li ? k : n, ldc = li ? m : n;
            /* adjacent: accepted, the same bits as separate buffers */
            memcpy(Cs, C0, sizeof Cs);
            memcpy(C, C0, sizeof Cs);
            ck_assert_int_eq(exact_sgemm(layout, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1.5f, As, lda, Bs, ldb, 0.5f, Cs,
                                         ldc),
                             SMM_OK);
            ck_assert_int_eq(exact_sgemm(layout, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1.5f, A, lda, B, ldb, 0.5f, C,
                                         ldc),
                             SMM_OK);
            ck_assert_msg(memcmp(C, Cs, sizeof Cs) == 0, "isa %s layout %d: adjacent buffers give another C",
                          smm_isa_name(isas[ii]), li);
            ck_assert(memcmp(A, As, sizeof As) == 0 && memcmp(B, Bs, sizeof Bs) == 0);
            memcpy(saved, arena, sizeof arena);
            /* C one element into A (its first element is A's last), one into B, equal to A, equal to B */
            float *const bad_c[] = { C - 1, C + 1, A, B };
            for (int c = 0; c < 4; c++) {
                const smm_status s = exact_sgemm(layout, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1.0f, A, lda, B, ldb,
                                                 0.0f, bad_c[c], ldc);
                ck_assert_msg(s == SMM_ERR_BAD_ARGUMENT, "isa %s layout %d case %d: status %d (%s)",
                              smm_isa_name(isas[ii]), li, c, (int)s, smm_status_str(s));
                ck_assert_msg(memcmp(saved, arena, sizeof arena) == 0, "case %d: memory written", c);
            }
            /* transposed operands: op(A) = A^T with A stored k x m from C's last element on */
            ck_assert_int_eq(exact_sgemm(layout, SMM_TRANS, SMM_TRANS, m, n, k, 1.0f, C + 19, li ? k : m, Bs,
                                         li ? n : k, 0.0f, C, ldc),
                             SMM_ERR_BAD_ARGUMENT);
            ck_assert(memcmp(saved, arena, sizeof arena) == 0);
        }
    }
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
    /* spans, not elements: C interleaved in the padding of A (lda 8) is rejected as documented */
    float wide[40];
    test_fill_uniform(wide, 40, &rng);
    ck_assert_int_eq(exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 4, 4, 3, 1.0f, wide, 8, Bs, 4, 0.0f,
                                 wide + 3, 8),
                     SMM_ERR_BAD_ARGUMENT);
    /* operands that are not read (k == 0, alpha == 0) are not checked: C := beta * C */
    float D[4] = { 1, 2, 3, 4 };
    ck_assert_int_eq(exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 0, 1.0f, D, 1, D, 2, 2.0f, D, 2),
                     SMM_OK);
    ck_assert(D[0] == 2 && D[1] == 4 && D[2] == 6 && D[3] == 8);
    ck_assert_int_eq(exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 2, 0.0f, D, 2, D, 2, 0.5f, D, 2),
                     SMM_OK);
    ck_assert(D[0] == 1 && D[1] == 2 && D[2] == 3 && D[3] == 4);
}
END_TEST

/*
 * brgemm executions: C must not overlap any A_i or B_i. Strided batches
 * with a gap between consecutive A_i may hold C in the gap; one element of
 * overlap with any A_i or B_i (strided or pointer arrays) is
 * SMM_ERR_BAD_ARGUMENT with nothing written. Executions that read no
 * operand (batch 0, alpha 0) are not checked. Both layouts, every ISA path.
 */
START_TEST(test_brgemm_rejects_overlapping_c)
{
    /* A_i at arena + 8 i (4 floats each, gaps of 4), i < 3; B_i at arena + 32 + 4 i */
    float arena[64], saved[64], C0[4], Cref[4];
    uint64_t rng = 31;
    test_fill_uniform(arena, 64, &rng);
    test_fill_uniform(C0, 4, &rng);
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        for (int li = 0; li < 2; li++) {
            brgemm_desc d = { li ? SMM_ROW_MAJOR : SMM_COL_MAJOR, 2, 2, 2, 2, 2, 2, 8, 4, 1.0f, 1.0f };
            brgemm_plan *plan = NULL;
            ck_assert_int_eq(brgemm_plan_create(&d, &plan), SMM_OK);
            const float *A = arena, *B = arena + 32;
            const float *ap[3] = { arena, arena + 8, arena + 16 }, *bp[3] = { arena + 32, arena + 36, arena + 40 };
            /* the reference on a separate C */
            memcpy(Cref, C0, sizeof Cref);
            ck_assert_int_eq(brgemm_execute_strided(plan, A, B, Cref, 3), SMM_OK);
            /* legitimate places for C: the gaps after A_0 and A_1, right after A_2, right after B_2 */
            const int64_t good[] = { 4, 12, 20, 44 };
            for (int g = 0; g < 4; g++)
                for (int kind = 0; kind < 2; kind++) {
                    memcpy(saved, arena, sizeof arena);
                    float *C = arena + good[g];
                    memcpy(C, C0, sizeof C0);
                    const smm_status s = kind ? brgemm_execute_pointers(plan, ap, bp, C, 3)
                                              : brgemm_execute_strided(plan, A, B, C, 3);
                    ck_assert_msg(s == SMM_OK, "isa %s layout %d kind %d: C at %lld: status %d",
                                  smm_isa_name(isas[ii]), li, kind, (long long)good[g], (int)s);
                    ck_assert_msg(memcmp(C, Cref, sizeof Cref) == 0, "C at %lld: another result", (long long)good[g]);
                    memcpy(arena, saved, sizeof arena);
                }
            /* one element of overlap: the end of A_0, the start of A_1, the end of A_2, B_0, the end of B_2 */
            const int64_t bad[] = { 1, 5, 19, 29, 43 };
            memcpy(saved, arena, sizeof arena);
            for (int b = 0; b < 5; b++)
                for (int kind = 0; kind < 2; kind++) {
                    float *C = arena + bad[b];
                    const smm_status s = kind ? brgemm_execute_pointers(plan, ap, bp, C, 3)
                                              : brgemm_execute_strided(plan, A, B, C, 3);
                    ck_assert_msg(s == SMM_ERR_BAD_ARGUMENT, "isa %s layout %d kind %d: C at %lld: status %d",
                                  smm_isa_name(isas[ii]), li, kind, (long long)bad[b], (int)s);
                    ck_assert_msg(memcmp(saved, arena, sizeof arena) == 0, "C at %lld: memory written",
                                  (long long)bad[b]);
                }
            /* batch 0: C := beta * C, A and B not read, so not checked */
            ck_assert_int_eq(brgemm_execute_strided(plan, A, B, arena + 1, 0), SMM_OK);
            ck_assert_int_eq(brgemm_execute_pointers(plan, ap, bp, arena + 1, 0), SMM_OK);
            brgemm_plan_free(plan);
        }
    }
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
}
END_TEST

/*
 * mat4: outputs must not overlap inputs (mat4.h). One element of overlap is
 * SMM_ERR_BAD_ARGUMENT with nothing written; touching buffers are fine.
 */
START_TEST(test_mat4_rejects_overlapping_output)
{
    float f[64], saved[64];
    double d[64], saved_d[64];
    uint64_t rng = 41;
    test_fill_uniform(f, 64, &rng);
    for (int e = 0; e < 64; e++)
        d[e] = (double)f[e] + 2.0 * (e % 5 == 0); /* regular enough to invert */
    for (int e = 0; e < 64; e += 5)
        f[e] += 2.0f;
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        memcpy(saved, f, sizeof f);
        memcpy(saved_d, d, sizeof d);
        /* single matrices: a at f, b at f + 16; outputs over a's last element, over b's first, equal to a */
        ck_assert_int_eq(mat4_mul_f32(f, f + 16, f + 15), SMM_ERR_BAD_ARGUMENT);
        ck_assert_int_eq(mat4_mul_f32(f, f + 16, f + 1), SMM_ERR_BAD_ARGUMENT);
        ck_assert_int_eq(mat4_mul_f32(f + 16, f, f + 1), SMM_ERR_BAD_ARGUMENT);
        ck_assert_int_eq(mat4_mul_f32(f, f + 32, f + 17), SMM_ERR_BAD_ARGUMENT);
        ck_assert_int_eq(mat4_inv_f32(f, f), SMM_ERR_BAD_ARGUMENT);
        ck_assert_int_eq(mat4_copy_f32(f, f + 15), SMM_ERR_BAD_ARGUMENT);
        ck_assert_int_eq(mat4_mul_batch_f32(2, f, f + 32, f + 31), SMM_ERR_BAD_ARGUMENT);
        ck_assert_int_eq(mat4_inv_batch_f32(2, f, f + 31), SMM_ERR_BAD_ARGUMENT);
        ck_assert_int_eq(mat4_copy_batch_f32(2, f + 1, f), SMM_ERR_BAD_ARGUMENT);
        ck_assert_int_eq(mat4_mul_f64(d, d + 16, d), SMM_ERR_BAD_ARGUMENT);
        ck_assert_int_eq(mat4_inv_f64(d, d + 15), SMM_ERR_BAD_ARGUMENT);
        ck_assert_int_eq(mat4_copy_f64(d + 15, d), SMM_ERR_BAD_ARGUMENT);
        ck_assert_int_eq(mat4_mul_batch_f64(2, d, d + 32, d + 1), SMM_ERR_BAD_ARGUMENT);
        ck_assert_int_eq(mat4_inv_batch_f64(2, d + 16, d), SMM_ERR_BAD_ARGUMENT);
        ck_assert_int_eq(mat4_copy_batch_f64(2, d, d + 31), SMM_ERR_BAD_ARGUMENT);
        ck_assert_msg(memcmp(saved, f, sizeof f) == 0 && memcmp(saved_d, d, sizeof d) == 0, "isa %s: memory written",
                      smm_isa_name(isas[ii]));
        /* touching: a | b | c */
        float ref[16];
        ck_assert_int_eq(mat4_mul_f32(f, f + 16, ref), SMM_OK);
        ck_assert_int_eq(mat4_mul_f32(f, f + 16, f + 32), SMM_OK);
        ck_assert(memcmp(ref, f + 32, sizeof ref) == 0);
        ck_assert_int_eq(mat4_copy_f32(f, f + 16), SMM_OK);
        ck_assert_int_eq(mat4_mul_batch_f32(1, f, f + 16, f + 32), SMM_OK);
        ck_assert_int_eq(mat4_inv_f64(d, d + 16), SMM_OK);
        ck_assert_int_eq(mat4_copy_batch_f64(2, d, d + 32), SMM_OK);
        memcpy(f, saved, sizeof f);
        memcpy(d, saved_d, sizeof d);
    }
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
}
END_TEST

/* ---- the driver's kept workspace ---- */

/* One row-major NN product C = A B (m x n, depth k), run by a thread of its own. */
typedef struct {
    int64_t m, n, k;
    const float *A, *B;
    float *C;
    smm_status status;
} product_job;

static int run_product(void *arg)
{
    product_job *j = arg;
    j->status = exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, j->m, j->n, j->k, 1.0f, j->A, j->k, j->B, j->n,
                            0.0f, j->C, j->n);
    return 0;
}

/*
 * The calling thread keeps its packing workspace between calls: the block
 * comes back for the next request that fits, a request made while it is in
 * use or above SGEMM_WORKSPACE_KEEP_MAX gets a block of its own, and a
 * product run after the kept block was filled with NaN has the bits of the
 * same product run by a new thread (nothing stale is read: edge tiles of
 * every dimension, on the blocked driver). Threads that exit free their
 * blocks (the sanitizer build's leak checker would report them).
 */
START_TEST(test_sgemm_workspace_reuse)
{
    float *p = sgemm_workspace_take(4096);
    ck_assert_ptr_nonnull(p);
    sgemm_workspace_give(p);
    float *q = sgemm_workspace_take(1024);
    ck_assert_ptr_eq(q, p);
    float *other = sgemm_workspace_take(1024);
    ck_assert_ptr_nonnull(other);
    ck_assert_ptr_ne(other, q);
    sgemm_workspace_give(other);
    sgemm_workspace_give(q);

    enum { POISON_FLOATS = 1 << 22 }; /* 16 MiB: more than the products below pack */
    float *kept = sgemm_workspace_take(POISON_FLOATS * sizeof(float));
    ck_assert_ptr_nonnull(kept);
    for (size_t i = 0; i < POISON_FLOATS; i++)
        kept[i] = NAN;
    sgemm_workspace_give(kept);
    float *huge = sgemm_workspace_take(SGEMM_WORKSPACE_KEEP_MAX + 64);
    ck_assert_ptr_nonnull(huge);
    ck_assert_ptr_ne(huge, kept);
    sgemm_workspace_give(huge);
    float *again = sgemm_workspace_take(64);
    ck_assert_ptr_eq(again, kept);
    sgemm_workspace_give(again);

    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        sgemm_target t;
        sgemm_target_for(isas[ii], 1, &t);
        boundary_shape b = { { 2 * t.mr + 1, 3 * t.nr - 1, 37 }, 7 };
        ck_assert(lift_to_driver(&t, &b));
        const int64_t m = b.d[0], n = b.d[1], k = b.d[2];
        uint64_t rng = 5u + (uint64_t)ii;
        float *A = malloc((size_t)(m * k) * sizeof(float)), *B = malloc((size_t)(k * n) * sizeof(float));
        float *C = malloc((size_t)(m * n) * sizeof(float)), *fresh = malloc((size_t)(m * n) * sizeof(float));
        ck_assert(A && B && C && fresh);
        for (int64_t i = 0; i < m * k; i++)
            A[i] = test_rng_uniform(&rng);
        for (int64_t i = 0; i < k * n; i++)
            B[i] = test_rng_uniform(&rng);
        for (int threads = 1; threads <= 2; threads++) {
            ck_assert_int_eq(smm_set_num_threads(threads), SMM_OK);
            product_job job = { m, n, k, A, B, fresh, SMM_ERR_BAD_ARGUMENT };
            thrd_t th;
            ck_assert_int_eq(thrd_create(&th, run_product, &job), thrd_success);
            ck_assert_int_eq(thrd_join(th, NULL), thrd_success);
            ck_assert_int_eq(job.status, SMM_OK);
            kept = sgemm_workspace_take(POISON_FLOATS * sizeof(float));
            ck_assert_ptr_nonnull(kept);
            for (size_t i = 0; i < POISON_FLOATS; i++)
                kept[i] = NAN;
            sgemm_workspace_give(kept);
            job.C = C;
            run_product(&job);
            ck_assert_int_eq(job.status, SMM_OK);
            ck_assert_msg(memcmp(C, fresh, (size_t)(m * n) * sizeof(float)) == 0,
                          "%s, %d threads, %lldx%lldx%lld: the product after a NaN-filled kept workspace differs "
                          "from a new thread's", smm_isa_name(isas[ii]), threads, (long long)m, (long long)n,
                          (long long)k);
        }
        free(A);
        free(B);
        free(C);
        free(fresh);
    }
    ck_assert_int_eq(smm_set_num_threads(0), SMM_OK);
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
}
END_TEST

static Suite *exact_suite(void)
{
    Suite *s = suite_create("exact");

    TCase *tc = tcase_create("reference");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_sgemm_matches_reference, 0, 8);
    tcase_add_test(tc, test_sgemm_cube_257);
    tcase_add_test(tc, test_sgemm_block_boundaries);
    tcase_add_test(tc, test_sgemm_threads_bit_identical);
    tcase_add_test(tc, test_sgemm_shapes_same_bits);
    tcase_add_test(tc, test_sgemm_kernels_match_twins);
    tcase_add_test(tc, test_sgemm_workspace_reuse);
    suite_add_tcase(s, tc);

    tc = tcase_create("special");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_sgemm_k_zero_and_alpha_zero);
    tcase_add_test(tc, test_sgemm_empty_is_noop);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_sgemm_bad_arguments);
    tcase_add_test(tc, test_sgemm_with_bad_context);
    tcase_add_test(tc, test_sgemm_selection_error);
    tcase_add_test(tc, test_sgemm_kernel_names);
    suite_add_tcase(s, tc);

    tc = tcase_create("aliasing");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_sgemm_rejects_overlapping_c);
    tcase_add_test(tc, test_brgemm_rejects_overlapping_c);
    tcase_add_test(tc, test_mat4_rejects_overlapping_output);
    suite_add_tcase(s, tc);

    tc = tcase_create("padded matrices");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, padded_ld_rule);
    tcase_add_test(tc, matrix_alloc_layout_and_use);
    tcase_add_test(tc, matrix_alloc_errors);
    tcase_add_test(tc, test_huge_leading_dims_of_single_lines);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(exact_suite());
}
