/*
 * test_brgemm.c - Check suite of the batch-reduce GEMM (sketchmm/brgemm.h),
 * on every ISA path this CPU runs (a plan binds the path in use when it is
 * created, so each path is tested by smm_set_isa(path) then creating the plan).
 *
 * Default suite (ctest test_brgemm):
 * - a sampled version of the seed-003 verification grid: M, N over a set with
 *   1, odd sizes, multiples and non-multiples of 4/8/16 around 16, 32, 48, 64
 *   and above 64 (several register blocks of C in each direction), K in
 *   {1,2,3,7,16,32,64,128}, batch in {1,2,3,16}, both layouts, tight and
 *   padded leading dimensions, strided and pointer batches (pointers in
 *   shuffled memory order), all alpha/beta in {0,1,2,-0.5,0.25}. Small
 *   integer data make every product and partial sum exact in float, so every
 *   path must match the reference exactly (==). Padding of the operands and
 *   the gaps between batch matrices hold NaN (reading them shows), the padding
 *   of C holds a NaN sentinel that must survive bit for bit, and every operand
 *   ends right before a PROT_NONE page, so reading past its last element
 *   faults;
 * - real-valued data against a double reference within
 *   (batch k + 2) eps (|alpha| sum |a||b| + |beta c|), up to m=200 n=150 k=300;
 * - the documented summation order (alpha = 1, beta in {0, 1}): every path
 *   gives the bits of a sequential float sum (fmaf on the SIMD paths, separate
 *   multiply and add on the portable one);
 * - bit identity of the strided and pointer kinds, a plan keeps its path after
 *   smm_set_isa changes, one plan executed from two threads at once;
 * - every tile instance and rank-1 kernel of every path against the scalar
 *   twin (the portable tiles of brgemm_kernel_scalar.c) bit for bit on
 *   integer data, edge blocks and every update mode included;
 * - generated kernels (code generation is on by default, so the cases above
 *   run them on every path that has a generator) against the precompiled
 *   kernels of their path, bit for bit on real-valued data;
 * - semantics of beta == 0 (NaN/Inf in C), alpha == 0, k == 0, batch == 0
 *   (NULL operands), m == 0 / n == 0 (no-op, NULL C), stride 0, overlapping
 *   batch matrices;
 * - every documented status of create and execute, with *plan and C untouched;
 * - plan names.
 *
 * Full grid (seed 003): `test_brgemm --full-grid LO HI [ISA]` (registered in
 * native, non-sanitizer builds for every M, and in the aarch64 cross build
 * for the NEON path on M in 1..6 and 17..19; see tests/CMakeLists.txt)
 * checks LO <= M <= HI, 1 <= N <= 64, K in {1,16,32,64,128}, batch 1..16,
 * column-major strided, tight and padded leading dimensions, alpha = beta = 1,
 * exactly, on every path (or path ISA). SKETCHMM_BRGEMM_FULL_GRID=1 runs it
 * for M in 1..64.
 */
#define _DEFAULT_SOURCE 1 /* MAP_ANONYMOUS next to _POSIX_C_SOURCE */

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "test_util.h"

#include "exact/brgemm_kernels.h"
#include "sketchmm/brgemm.h"

#define SENTINEL_BITS 0x7FC0BEEFu /* a quiet NaN with a payload no result has: C padding */

static float sentinel(void)
{
    const uint32_t bits = SENTINEL_BITS;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* ------------------------------------------------------------------------- */
/* Guarded buffers: the returned floats end right before a PROT_NONE page.    */
/* ------------------------------------------------------------------------- */

typedef struct {
    unsigned char *base;
    size_t len; /* mapped bytes, guard page included */
    size_t cap; /* usable bytes before the guard page */
} arena;

static void arena_free(arena *a)
{
    if (a->base != NULL)
        munmap(a->base, a->len);
    a->base = NULL;
    a->len = a->cap = 0;
}

/* The last `count` floats before the guard page (count 0: a non-NULL pointer to nothing). */
static float *arena_tail(arena *a, int64_t count)
{
    const size_t need = (size_t)count * sizeof(float);
    if (a->base == NULL || need > a->cap) {
        arena_free(a);
        const size_t page = (size_t)sysconf(_SC_PAGESIZE);
        size_t cap = (need + need / 2 + page - 1) / page * page;
        if (cap < page)
            cap = page;
        void *p = mmap(NULL, cap + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        ck_assert_msg(p != MAP_FAILED, "mmap of %zu bytes failed", cap + page);
        ck_assert_int_eq(mprotect((unsigned char *)p + cap, page, PROT_NONE), 0);
        a->base = p;
        a->len = cap + page;
        a->cap = cap;
    }
    return (float *)(void *)(a->base + a->cap - need);
}

/*
 * What is executing, for a crash report: a read or write past an operand hits
 * a guard page, and the handler names the case before the signal kills the
 * test (Check then reports the signal).
 */
static char current_case[512];
static volatile sig_atomic_t current_case_len;

static void on_fault(int sig)
{
    static const char head[] = "\ntest_brgemm: fault while executing: ";
    ssize_t ignored = write(2, head, sizeof head - 1);
    ignored = write(2, current_case, (size_t)current_case_len);
    ignored = write(2, "\n", 1);
    (void)ignored;
    signal(sig, SIG_DFL);
    raise(sig);
}

static void set_current_case(const char *text)
{
    static int installed;
    if (!installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fault;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGSEGV, &sa, NULL);
        sigaction(SIGBUS, &sa, NULL);
        installed = 1;
    }
    current_case_len = 0;
    size_t n = strlen(text);
    if (n >= sizeof current_case)
        n = sizeof current_case - 1;
    memcpy(current_case, text, n);
    current_case_len = (sig_atomic_t)n;
}

/* ------------------------------------------------------------------------- */
/* Storage helpers (the rules of brgemm.h).                                   */
/* ------------------------------------------------------------------------- */

static int64_t at(smm_layout layout, int64_t ld, int64_t r, int64_t c)
{
    return layout == SMM_ROW_MAJOR ? r * ld + c : c * ld + r;
}

/* Elements a rows x cols matrix spans: from its first element to its last, inclusive. */
static int64_t span_of(smm_layout layout, int64_t rows, int64_t cols, int64_t ld)
{
    if (rows == 0 || cols == 0)
        return 0;
    return layout == SMM_ROW_MAJOR ? (rows - 1) * ld + cols : (cols - 1) * ld + rows;
}

/* The smallest leading dimension allowed for a rows x cols matrix. */
static int64_t min_ld(smm_layout layout, int64_t rows, int64_t cols)
{
    const int64_t inner = layout == SMM_ROW_MAJOR ? cols : rows;
    return inner > 1 ? inner : 1;
}

/* outer * ld: the matrix with the padding of its last row/column. */
static int64_t full_size(smm_layout layout, int64_t rows, int64_t cols, int64_t ld)
{
    return (layout == SMM_ROW_MAJOR ? rows : cols) * ld;
}

static const char *layout_name(smm_layout layout)
{
    return layout == SMM_ROW_MAJOR ? "row" : "col";
}

/* ------------------------------------------------------------------------- */
/* One case against a reference, on every path.                               */
/* ------------------------------------------------------------------------- */

typedef struct {
    smm_layout layout;
    int64_t m, n, k, batch;
    int64_t lda, ldb, ldc;
    int64_t sa, sb; /* strides of the strided kind */
    float alpha, beta;
} bcase;

enum { MODE_EXACT = 0, MODE_REAL = 1 };

static float gen_value(int mode, uint64_t *rng)
{
    if (mode == MODE_EXACT)
        return (float)((int)(test_rng_next(rng) % 7) - 3); /* uniform in [-3, 3] */
    return test_rng_uniform(rng);
}

/* A description, field by field in the order of brgemm_desc. */
static brgemm_desc make_desc(smm_layout layout, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
                             int64_t ldc, int64_t stride_a, int64_t stride_b, float alpha, float beta)
{
    const brgemm_desc d = { layout, m, n, k, lda, ldb, ldc, stride_a, stride_b, alpha, beta };
    return d;
}

static brgemm_desc desc_of(const bcase *cs)
{
    return make_desc(cs->layout, cs->m, cs->n, cs->k, cs->lda, cs->ldb, cs->ldc, cs->sa, cs->sb, cs->alpha,
                     cs->beta);
}

static void describe(char *buf, size_t len, const bcase *cs)
{
    snprintf(buf, len,
             "%s m=%lld n=%lld k=%lld batch=%lld lda=%lld ldb=%lld ldc=%lld stride_a=%lld stride_b=%lld "
             "alpha=%g beta=%g",
             layout_name(cs->layout), (long long)cs->m, (long long)cs->n, (long long)cs->k, (long long)cs->batch,
             (long long)cs->lda, (long long)cs->ldb, (long long)cs->ldc, (long long)cs->sa, (long long)cs->sb,
             (double)cs->alpha, (double)cs->beta);
}

static arena ar_a_str, ar_b_str, ar_a_ptr, ar_b_ptr, ar_c_str, ar_c_ptr;

static void free_arenas(void)
{
    arena_free(&ar_a_str);
    arena_free(&ar_b_str);
    arena_free(&ar_a_ptr);
    arena_free(&ar_b_ptr);
    arena_free(&ar_c_str);
    arena_free(&ar_c_ptr);
}

/*
 * The strided buffer of `batch` rows x cols matrices at stride s: NaN
 * everywhere, then the elements of each matrix in turn (overlapping ones
 * overwrite), then read back into logical[(i * rows + r) * cols + c].
 */
static float *place_strided(arena *ar, smm_layout layout, int64_t rows, int64_t cols, int64_t ld, int64_t s,
                            int64_t batch, int mode, uint64_t *rng, float *logical)
{
    const int64_t sp = span_of(layout, rows, cols, ld);
    const int64_t total = batch > 0 && sp > 0 ? (batch - 1) * s + sp : 0;
    float *buf = arena_tail(ar, total);
    for (int64_t i = 0; i < total; i++)
        buf[i] = NAN;
    for (int64_t i = 0; i < batch; i++)
        for (int64_t r = 0; r < rows; r++)
            for (int64_t c = 0; c < cols; c++)
                buf[i * s + at(layout, ld, r, c)] = gen_value(mode, rng);
    for (int64_t i = 0; i < batch; i++)
        for (int64_t r = 0; r < rows; r++)
            for (int64_t c = 0; c < cols; c++)
                logical[(i * rows + r) * cols + c] = buf[i * s + at(layout, ld, r, c)];
    return buf;
}

/* The pointer kind: a copy of each logical matrix in its own slot, slots in shuffled order, NaN between. */
static void place_pointers(arena *ar, smm_layout layout, int64_t rows, int64_t cols, int64_t ld, int64_t batch,
                           const float *logical, uint64_t *rng, const float **ptrs)
{
    const int64_t sp = span_of(layout, rows, cols, ld);
    const int64_t slot = sp + 1 + (int64_t)(test_rng_next(rng) % 5);
    const int64_t total = batch > 0 ? (batch - 1) * slot + sp : 0;
    float *buf = arena_tail(ar, total);
    for (int64_t i = 0; i < total; i++)
        buf[i] = NAN;
    int64_t *perm = malloc((size_t)(batch > 0 ? batch : 1) * sizeof *perm);
    ck_assert_ptr_nonnull(perm);
    for (int64_t i = 0; i < batch; i++)
        perm[i] = i;
    for (int64_t i = batch - 1; i > 0; i--) {
        const int64_t j = (int64_t)(test_rng_next(rng) % (uint64_t)(i + 1));
        const int64_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int64_t i = 0; i < batch; i++) {
        float *x = buf + perm[i] * slot;
        for (int64_t r = 0; r < rows; r++)
            for (int64_t c = 0; c < cols; c++)
                x[at(layout, ld, r, c)] = logical[(i * rows + r) * cols + c];
        ptrs[i] = x;
    }
    free(perm);
}

/* Compare C with want (exactly, or within tol), and its padding with the sentinel, bit for bit. */
static void check_c(const bcase *cs, const float *C, const double *want, const double *tol, const char *isa,
                    const char *kind)
{
    char what[320];
    for (int64_t r = 0; r < cs->m; r++)
        for (int64_t j = 0; j < cs->n; j++) {
            const float got = C[at(cs->layout, cs->ldc, r, j)];
            const double w = want[r * cs->n + j];
            const int ok = tol == NULL ? got == (float)w : fabs((double)got - w) <= tol[r * cs->n + j];
            if (!ok) {
                describe(what, sizeof what, cs);
                ck_abort_msg("%s %s: %s: C(%lld, %lld) = %.9g, want %.9g%s", isa, kind, what, (long long)r,
                             (long long)j, (double)got, w, tol == NULL ? " exactly" : " within tolerance");
            }
        }
    const int64_t sp = span_of(cs->layout, cs->m, cs->n, cs->ldc);
    const int64_t inner = cs->layout == SMM_ROW_MAJOR ? cs->n : cs->m;
    for (int64_t idx = 0; idx < sp; idx++)
        if (idx % cs->ldc >= inner && bits_of(C[idx]) != SENTINEL_BITS) {
            describe(what, sizeof what, cs);
            ck_abort_msg("%s %s: %s: padding of C at offset %lld was written (%a)", isa, kind, what, (long long)idx,
                         (double)C[idx]);
        }
}

/*
 * Run one case on the given paths: strided and pointer kinds against the
 * reference (exactly in MODE_EXACT, within the error bound in MODE_REAL), and
 * against each other bit for bit. beta == 0 puts NaN and Inf in C.
 */
static void run_case(const bcase *cs, int mode, uint64_t seed, const smm_isa *isas, int nisa)
{
    const smm_layout L = cs->layout;
    const int64_t m = cs->m, n = cs->n, k = cs->k, batch = cs->batch;
    uint64_t rng = seed;
    float *av = malloc((size_t)(batch * m * k + 1) * sizeof(float));
    float *bv = malloc((size_t)(batch * k * n + 1) * sizeof(float));
    double *acc = calloc((size_t)(m * n + 1), sizeof(double));
    double *mag = calloc((size_t)(m * n + 1), sizeof(double));
    double *want = malloc((size_t)(m * n + 1) * sizeof(double));
    double *tol = malloc((size_t)(m * n + 1) * sizeof(double));
    const float **ap = malloc((size_t)(batch + 1) * sizeof *ap);
    const float **bp = malloc((size_t)(batch + 1) * sizeof *bp);
    const int64_t spc = span_of(L, m, n, cs->ldc);
    float *c0 = malloc((size_t)(spc + 1) * sizeof(float));
    ck_assert(av && bv && acc && mag && want && tol && ap && bp && c0);

    const float *A = place_strided(&ar_a_str, L, m, k, cs->lda, cs->sa, batch, mode, &rng, av);
    const float *B = place_strided(&ar_b_str, L, k, n, cs->ldb, cs->sb, batch, mode, &rng, bv);
    place_pointers(&ar_a_ptr, L, m, k, cs->lda, batch, av, &rng, ap);
    place_pointers(&ar_b_ptr, L, k, n, cs->ldb, batch, bv, &rng, bp);

    /* C: sentinel in the padding; NaN / +-Inf as the elements when beta == 0 (write-only) */
    const float s = sentinel();
    static const float junk[] = { NAN, INFINITY, -INFINITY, -NAN };
    for (int64_t i = 0; i < spc; i++)
        c0[i] = s;
    for (int64_t r = 0; r < m; r++)
        for (int64_t j = 0; j < n; j++)
            c0[at(L, cs->ldc, r, j)] = cs->beta == 0.0f ? junk[(r + 3 * j) % 4] : gen_value(mode, &rng);

    /*
     * The reference. MODE_EXACT: in float, which is exact here (integer products and partial sums below
     * 2^24) and twice as fast as double under an emulator; MODE_REAL: in double, with sum |a||b|.
     */
    if (mode == MODE_EXACT) {
        float *accf = calloc((size_t)(m * n + 1), sizeof(float));
        ck_assert_ptr_nonnull(accf);
        for (int64_t i = 0; i < batch; i++)
            for (int64_t r = 0; r < m; r++)
                for (int64_t p = 0; p < k; p++) {
                    const float a = av[(i * m + r) * k + p];
                    const float *brow = bv + (i * k + p) * n;
                    float *accr = accf + r * n;
                    if (a != 0.0f)
                        for (int64_t j = 0; j < n; j++)
                            accr[j] += a * brow[j];
                }
        for (int64_t x = 0; x < m * n; x++)
            acc[x] = accf[x];
        free(accf);
    } else {
        for (int64_t i = 0; i < batch; i++)
            for (int64_t r = 0; r < m; r++)
                for (int64_t p = 0; p < k; p++) {
                    const double a = av[(i * m + r) * k + p];
                    const float *brow = bv + (i * k + p) * n;
                    double *accr = acc + r * n, *magr = mag + r * n;
                    for (int64_t j = 0; j < n; j++)
                        accr[j] += a * brow[j];
                    for (int64_t j = 0; j < n; j++)
                        magr[j] += fabs(a) * fabs((double)brow[j]);
                }
    }
    for (int64_t r = 0; r < m; r++)
        for (int64_t j = 0; j < n; j++) {
            const double bc = cs->beta == 0.0f ? 0.0 : (double)cs->beta * c0[at(L, cs->ldc, r, j)];
            want[r * n + j] = (double)cs->alpha * acc[r * n + j] + bc;
            tol[r * n + j] = (double)(batch * k + 2) * FLT_EPSILON *
                             (fabs((double)cs->alpha) * mag[r * n + j] + fabs(bc));
        }

    const brgemm_desc d = desc_of(cs);
    char what[320];
    describe(what, sizeof what, cs);
    for (int ii = 0; ii < nisa; ii++) {
        const char *isa = smm_isa_name(isas[ii]);
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        brgemm_plan *plan = NULL;
        smm_status st = brgemm_plan_create(&d, &plan);
        if (st != SMM_OK) {
            ck_abort_msg("%s: %s: brgemm_plan_create: %s", isa, what, smm_status_str(st));
        }
        float *Cs = arena_tail(&ar_c_str, spc), *Cp = arena_tail(&ar_c_ptr, spc);
        memcpy(Cs, c0, (size_t)spc * sizeof(float));
        memcpy(Cp, c0, (size_t)spc * sizeof(float));
        char running[400];
        snprintf(running, sizeof running, "%s strided: %s", isa, what);
        set_current_case(running);
        st = brgemm_execute_strided(plan, A, B, Cs, batch);
        if (st != SMM_OK) {
            ck_abort_msg("%s strided: %s: %s", isa, what, smm_status_str(st));
        }
        check_c(cs, Cs, want, mode == MODE_EXACT ? NULL : tol, isa, "strided");
        snprintf(running, sizeof running, "%s pointers: %s", isa, what);
        set_current_case(running);
        st = brgemm_execute_pointers(plan, ap, bp, Cp, batch);
        if (st != SMM_OK) {
            ck_abort_msg("%s pointers: %s: %s", isa, what, smm_status_str(st));
        }
        check_c(cs, Cp, want, mode == MODE_EXACT ? NULL : tol, isa, "pointers");
        if (memcmp(Cs, Cp, (size_t)spc * sizeof(float)) != 0) {
            ck_abort_msg("%s: %s: strided and pointer kinds give different bits", isa, what);
        }
        brgemm_plan_free(plan);
    }
    free(av);
    free(bv);
    free(acc);
    free(mag);
    free(want);
    free(tol);
    free(ap);
    free(bp);
    free(c0);
}

/* ------------------------------------------------------------------------- */
/* The sampled verification grid (exact data).                                */
/* ------------------------------------------------------------------------- */

/* 1, odd, multiples and non-multiples of 4/8/16, 16/32/48/64 +-1, and > 64 (several blocks of C each way) */
static const int64_t grid_mn[] = { 1,  2,  3,  5,  7,  8,  9,  13, 15, 16, 17, 23, 24,
                                   25, 31, 32, 33, 47, 48, 49, 63, 64, 65, 97, 130 };
#define NGRID_MN ((int)(sizeof grid_mn / sizeof grid_mn[0]))
static const int64_t grid_k[] = { 1, 2, 3, 7, 16, 32, 64, 128 };
#define NGRID_K ((int)(sizeof grid_k / sizeof grid_k[0]))
static const int64_t grid_batch[] = { 1, 2, 3, 16 };
#define NGRID_BATCH ((int)(sizeof grid_batch / sizeof grid_batch[0]))
static const float grid_alpha[] = { 1.0f, 2.0f, -0.5f, 0.25f, 0.0f };
static const float grid_beta[] = { 1.0f, 0.0f, 2.0f, -0.5f, 0.25f };

/*
 * A case of the grid: padded = 0: lda, ldb, ldc the minimum and the batch
 * matrices back to back (stride = outer * ld); padded = 1: ld + 3, + 5, + 7 and
 * strides outer * ld + 5, + 9. ab in [0, 25): the alpha, beta pair.
 */
static bcase grid_case(smm_layout layout, int64_t m, int64_t n, int64_t k, int64_t batch, int padded, int ab)
{
    bcase cs;
    cs.layout = layout;
    cs.m = m;
    cs.n = n;
    cs.k = k;
    cs.batch = batch;
    cs.lda = min_ld(layout, m, k) + (padded ? 3 : 0);
    cs.ldb = min_ld(layout, k, n) + (padded ? 5 : 0);
    cs.ldc = min_ld(layout, m, n) + (padded ? 7 : 0);
    cs.sa = full_size(layout, m, k, cs.lda) + (padded ? 5 : 0);
    cs.sb = full_size(layout, k, n, cs.ldb) + (padded ? 9 : 0);
    cs.alpha = grid_alpha[ab % 5];
    cs.beta = grid_beta[(ab / 5) % 5];
    return cs;
}

enum { GRID_CORNERS_COL, GRID_CORNERS_ROW, GRID_K_BATCH, GRID_RANDOM_1, GRID_RANDOM_2, GRID_BIG, GRID_PARTS };

/* _i: the part of the grid */
START_TEST(test_sampled_grid)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    uint64_t rng = UINT64_C(0xB26E33) + (uint64_t)_i * 7919;
    int cases = 0;
    if (_i == GRID_CORNERS_COL || _i == GRID_CORNERS_ROW) {
        /* every (M, N) pair of the set, with small K and batch */
        static const int64_t ks[] = { 1, 2, 3, 7, 16 };
        const smm_layout layout = _i == GRID_CORNERS_COL ? SMM_COL_MAJOR : SMM_ROW_MAJOR;
        for (int mi = 0; mi < NGRID_MN; mi++)
            for (int ni = 0; ni < NGRID_MN; ni++) {
                const int64_t k = ks[test_rng_next(&rng) % 5];
                const int64_t batch = grid_batch[test_rng_next(&rng) % 3];
                const int padded = (int)(test_rng_next(&rng) & 1);
                const bcase cs = grid_case(layout, grid_mn[mi], grid_mn[ni], k, batch, padded,
                                           (int)(test_rng_next(&rng) % 25));
                run_case(&cs, MODE_EXACT, test_rng_next(&rng), isas, nisa);
                cases++;
            }
    } else if (_i == GRID_K_BATCH) {
        /* every K x batch x layout x padding, with (M, N) drawn from the set */
        for (int ki = 0; ki < NGRID_K; ki++)
            for (int bi = 0; bi < NGRID_BATCH; bi++)
                for (int l = 0; l < 2; l++)
                    for (int padded = 0; padded < 2; padded++) {
                        const int64_t m = grid_mn[test_rng_next(&rng) % NGRID_MN];
                        const int64_t n = grid_mn[test_rng_next(&rng) % NGRID_MN];
                        const bcase cs = grid_case(l ? SMM_ROW_MAJOR : SMM_COL_MAJOR, m, n, grid_k[ki],
                                                   grid_batch[bi], padded, (int)(test_rng_next(&rng) % 25));
                        run_case(&cs, MODE_EXACT, test_rng_next(&rng), isas, nisa);
                        cases++;
                    }
    } else if (_i == GRID_RANDOM_1 || _i == GRID_RANDOM_2) {
        /* a deterministic pseudo-random sample of the whole product */
        for (int t = 0; t < 150; t++) {
            const smm_layout layout = test_rng_next(&rng) & 1 ? SMM_ROW_MAJOR : SMM_COL_MAJOR;
            const int64_t m = grid_mn[test_rng_next(&rng) % NGRID_MN];
            const int64_t n = grid_mn[test_rng_next(&rng) % NGRID_MN];
            const int64_t k = grid_k[test_rng_next(&rng) % NGRID_K];
            const int64_t batch = grid_batch[test_rng_next(&rng) % NGRID_BATCH];
            const int padded = (int)(test_rng_next(&rng) & 1);
            const bcase cs = grid_case(layout, m, n, k, batch, padded, (int)(test_rng_next(&rng) % 25));
            run_case(&cs, MODE_EXACT, test_rng_next(&rng), isas, nisa);
            cases++;
        }
    } else {
        /* the corners: the largest of everything, and thin shapes with the largest K and batch */
        static const struct {
            int64_t m, n, k, batch;
            int row, padded, ab;
        } big[] = {
            { 130, 130, 128, 16, 0, 1, 0 }, { 97, 130, 128, 4, 1, 1, 7 }, { 1, 130, 128, 16, 0, 0, 3 },
            { 130, 1, 128, 16, 1, 0, 11 },  { 1, 1, 128, 16, 0, 1, 2 },    { 1, 1, 1, 1, 1, 0, 0 },
            { 65, 65, 64, 16, 0, 0, 24 },   { 97, 33, 1, 16, 1, 1, 13 },   { 64, 64, 128, 3, 0, 0, 5 },
            /* k = 1, batch 1: the rank-1 update, over several bands of rows, in every update mode */
            { 130, 7, 1, 1, 0, 1, 13 },     { 77, 130, 1, 1, 1, 1, 18 },   { 143, 9, 1, 1, 0, 0, 5 },
            { 64, 3, 1, 1, 0, 1, 0 },       { 15, 5, 1, 1, 1, 0, 5 },
        };
        for (size_t t = 0; t < sizeof big / sizeof big[0]; t++) {
            const bcase cs = grid_case(big[t].row ? SMM_ROW_MAJOR : SMM_COL_MAJOR, big[t].m, big[t].n, big[t].k,
                                       big[t].batch, big[t].padded, big[t].ab);
            run_case(&cs, MODE_EXACT, 1000 + t, isas, nisa);
            cases++;
        }
    }
    ck_assert_int_gt(cases, 0);
    free_arenas();
    test_restore_defaults();
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Real-valued data within the error bound.                                   */
/* ------------------------------------------------------------------------- */

START_TEST(test_real_data)
{
    static const struct {
        int64_t m, n, k, batch;
        float alpha, beta;
    } shapes[] = {
        { 200, 150, 300, 3, 0.75f, -1.25f }, { 37, 29, 45, 5, 1.0f, 1.0f }, { 1, 200, 17, 2, -2.5f, 0.0f },
        { 130, 1, 64, 7, 1.0f, 0.5f },       { 64, 64, 64, 4, 0.3f, 0.0f }, { 65, 7, 3, 16, 1.0f, 3.0f },
    };
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++)
        for (int l = 0; l < 2; l++) {
            const smm_layout layout = l ? SMM_ROW_MAJOR : SMM_COL_MAJOR;
            bcase cs = grid_case(layout, shapes[t].m, shapes[t].n, shapes[t].k, shapes[t].batch, (int)((t + l) & 1),
                                 0);
            cs.alpha = shapes[t].alpha;
            cs.beta = shapes[t].beta;
            run_case(&cs, MODE_REAL, 77 + 10 * t + l, isas, nisa);
        }
    free_arenas();
    test_restore_defaults();
}
END_TEST

/* ------------------------------------------------------------------------- */
/* The documented summation order, bit for bit.                               */
/* ------------------------------------------------------------------------- */

/*
 * alpha = 1, beta in {0, 1}: c = acc (+ c), acc summed from 0 over i, then p,
 * in increasing order, with fmaf on the SIMD paths and a separate multiply and
 * add on the portable path (this file is built with -ffp-contract=off).
 */
static void order_case(smm_layout layout, int64_t m, int64_t n, int64_t k, int64_t batch, float beta, uint64_t seed,
                       const smm_isa *isas, int nisa)
{
    const int64_t lda = min_ld(layout, m, k) + 1, ldb = min_ld(layout, k, n) + 2, ldc = min_ld(layout, m, n) + 1;
    const int64_t sa = full_size(layout, m, k, lda), sb = full_size(layout, k, n, ldb);
    const int64_t spc = full_size(layout, m, n, ldc);
    float *A = malloc((size_t)(batch * sa) * sizeof(float)), *B = malloc((size_t)(batch * sb) * sizeof(float));
    float *C0 = malloc((size_t)spc * sizeof(float)), *C = malloc((size_t)spc * sizeof(float));
    float *want_fused = malloc((size_t)(m * n) * sizeof(float)), *want_plain = malloc((size_t)(m * n) * sizeof(float));
    const float **ap = malloc((size_t)batch * sizeof *ap), **bp = malloc((size_t)batch * sizeof *bp);
    ck_assert(A && B && C0 && C && want_fused && want_plain && ap && bp);
    uint64_t rng = seed;
    test_fill_uniform(A, batch * sa, &rng);
    test_fill_uniform(B, batch * sb, &rng);
    test_fill_uniform(C0, spc, &rng);
    for (int64_t i = 0; i < batch; i++) {
        ap[i] = A + i * sa;
        bp[i] = B + i * sb;
    }
    for (int64_t r = 0; r < m; r++)
        for (int64_t j = 0; j < n; j++) {
            float fused = 0.0f, plain = 0.0f;
            for (int64_t i = 0; i < batch; i++)
                for (int64_t p = 0; p < k; p++) {
                    const float a = A[i * sa + at(layout, lda, r, p)], b = B[i * sb + at(layout, ldb, p, j)];
                    fused = fmaf(a, b, fused);
                    const float prod = a * b;
                    plain = plain + prod;
                }
            const float c = C0[at(layout, ldc, r, j)];
            want_fused[r * n + j] = beta == 0.0f ? fused : fused + c;
            want_plain[r * n + j] = beta == 0.0f ? plain : plain + c;
        }
    brgemm_desc d = make_desc(layout, m, n, k, lda, ldb, ldc, sa, sb, 1.0f, beta);
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        const float *want = isas[ii] == SMM_ISA_SCALAR ? want_plain : want_fused;
        brgemm_plan *plan = NULL;
        ck_assert_int_eq(brgemm_plan_create(&d, &plan), SMM_OK);
        for (int kind = 0; kind < 2; kind++) {
            memcpy(C, C0, (size_t)spc * sizeof(float));
            const smm_status st = kind == 0 ? brgemm_execute_strided(plan, A, B, C, batch)
                                            : brgemm_execute_pointers(plan, ap, bp, C, batch);
            ck_assert_int_eq(st, SMM_OK);
            for (int64_t r = 0; r < m; r++)
                for (int64_t j = 0; j < n; j++) {
                    const float got = C[at(layout, ldc, r, j)], w = want[r * n + j];
                    ck_assert_msg(got == w,
                                  "%s %s: %s m=%lld n=%lld k=%lld batch=%lld alpha=1 beta=%g: C(%lld, %lld) = %a, "
                                  "the documented order gives %a (%s)",
                                  smm_isa_name(isas[ii]), kind == 0 ? "strided" : "pointers", layout_name(layout),
                                  (long long)m, (long long)n, (long long)k, (long long)batch, (double)beta,
                                  (long long)r, (long long)j, (double)got, (double)w,
                                  isas[ii] == SMM_ISA_SCALAR ? "multiply then add" : "fmaf");
                }
        }
        brgemm_plan_free(plan);
    }
    free(A);
    free(B);
    free(C0);
    free(C);
    free(want_fused);
    free(want_plain);
    free(ap);
    free(bp);
}

START_TEST(test_summation_order)
{
    static const int64_t shapes[][4] = { { 37, 29, 70, 4 }, { 130, 65, 33, 3 }, { 16, 6, 128, 16 },
                                         { 1, 1, 300, 5 },  { 70, 13, 1, 7 },   { 9, 100, 40, 2 },
                                         { 130, 17, 1, 1 }, { 13, 40, 1, 1 } };
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++)
        for (int l = 0; l < 2; l++)
            for (int b = 0; b < 2; b++)
                order_case(l ? SMM_ROW_MAJOR : SMM_COL_MAJOR, shapes[t][0], shapes[t][1], shapes[t][2], shapes[t][3],
                           (float)b, 500 + 4 * t + 2 * (uint64_t)l + (uint64_t)b, isas, nisa);
    test_restore_defaults();
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Plans keep their path; threads.                                            */
/* ------------------------------------------------------------------------- */

typedef struct {
    smm_layout layout;
    int64_t m, n, k, batch, lda, ldb, ldc, sa, sb, spc;
    float *A, *B, *C0;
    const float **ap, **bp;
} real_problem;

static void problem_init(real_problem *pr, smm_layout layout, int64_t m, int64_t n, int64_t k, int64_t batch,
                         uint64_t seed)
{
    pr->layout = layout;
    pr->m = m;
    pr->n = n;
    pr->k = k;
    pr->batch = batch;
    pr->lda = min_ld(layout, m, k) + 3;
    pr->ldb = min_ld(layout, k, n) + 1;
    pr->ldc = min_ld(layout, m, n) + 2;
    pr->sa = full_size(layout, m, k, pr->lda) + 7;
    pr->sb = full_size(layout, k, n, pr->ldb);
    pr->spc = full_size(layout, m, n, pr->ldc);
    pr->A = malloc((size_t)(batch * pr->sa) * sizeof(float));
    pr->B = malloc((size_t)(batch * pr->sb) * sizeof(float));
    pr->C0 = malloc((size_t)pr->spc * sizeof(float));
    pr->ap = malloc((size_t)batch * sizeof *pr->ap);
    pr->bp = malloc((size_t)batch * sizeof *pr->bp);
    ck_assert(pr->A && pr->B && pr->C0 && pr->ap && pr->bp);
    uint64_t rng = seed;
    test_fill_uniform(pr->A, batch * pr->sa, &rng);
    test_fill_uniform(pr->B, batch * pr->sb, &rng);
    test_fill_uniform(pr->C0, pr->spc, &rng);
    for (int64_t i = 0; i < batch; i++) {
        pr->ap[i] = pr->A + i * pr->sa;
        pr->bp[i] = pr->B + i * pr->sb;
    }
}

static void problem_free(real_problem *pr)
{
    free(pr->A);
    free(pr->B);
    free(pr->C0);
    free(pr->ap);
    free(pr->bp);
}

static brgemm_plan *problem_plan(const real_problem *pr, float alpha, float beta)
{
    brgemm_desc d = make_desc(pr->layout, pr->m, pr->n, pr->k, pr->lda, pr->ldb, pr->ldc, pr->sa, pr->sb, alpha,
                              beta);
    brgemm_plan *plan = NULL;
    ck_assert_int_eq(brgemm_plan_create(&d, &plan), SMM_OK);
    ck_assert_ptr_nonnull(plan);
    return plan;
}

/* C := C0, then execute (kind 0 strided, 1 pointers) */
static smm_status problem_run(const real_problem *pr, const brgemm_plan *plan, int kind, float *C)
{
    memcpy(C, pr->C0, (size_t)pr->spc * sizeof(float));
    return kind == 0 ? brgemm_execute_strided(plan, pr->A, pr->B, C, pr->batch)
                     : brgemm_execute_pointers(plan, pr->ap, pr->bp, C, pr->batch);
}

/* ------------------------------------------------------------------------- */
/* Generated kernels against the precompiled ones (exact/brgemm_jit.h).       */
/* ------------------------------------------------------------------------- */

/*
 * A generated kernel performs the operations of the precompiled tiles of its
 * path in the same order, so on any data the two give the same bits. Here:
 * real-valued operands, every update mode (C holds NaN and +-Inf when
 * beta == 0), padded leading dimensions and strides, both layouts and both
 * kinds, on every path with a generator: a plan made with code generation on
 * (its name says "generated") against one made with it off ("precompiled"),
 * C's padding included.
 */
START_TEST(test_generated_matches_precompiled)
{
    static const int64_t ms[] = { 1,  2,  3,  4,  5,  7,  8,  9,  12, 13, 15, 16, 17,  20,  24,
                                  31, 32, 33, 40, 47, 48, 63, 64, 65, 80, 97, 100, 129, 200 };
    static const int64_t ns[] = { 1, 2, 3, 4, 6, 7, 8, 13, 15, 16, 29, 30, 31, 32, 45, 64, 65, 100 };
    static const int64_t ks[] = { 1, 2, 3, 4, 7, 8, 9, 16, 17, 31, 33, 64, 100 };
    static const int64_t batches[] = { 1, 2, 3, 7 };
    static const float ab[][2] = { { 1.0f, 1.0f },   { 1.0f, 0.0f },  { 2.5f, 0.0f }, { 1.0f, -0.75f },
                                   { 0.5f, 1.0f },   { -1.5f, 2.0f }, { 1.0f, 2.0f } };
    const int nm = (int)(sizeof ms / sizeof ms[0]), nn = (int)(sizeof ns / sizeof ns[0]);
    const int nk = (int)(sizeof ks / sizeof ks[0]);
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    uint64_t rng = 2929;
    int compared = 0;
    for (int t = 0; t < 3 * nm; t++) {
        const smm_layout layout = test_rng_next(&rng) & 1 ? SMM_ROW_MAJOR : SMM_COL_MAJOR;
        const int64_t m = ms[t % nm], n = ns[test_rng_next(&rng) % (uint64_t)nn];
        const int64_t k = ks[test_rng_next(&rng) % (uint64_t)nk], batch = batches[test_rng_next(&rng) % 4];
        const int pair = (int)(test_rng_next(&rng) % 7);
        const float alpha = ab[pair][0], beta = ab[pair][1];
        real_problem pr;
        problem_init(&pr, layout, m, n, k, batch, 3000 + (uint64_t)t);
        if (beta == 0.0f) {
            static const float junk[] = { NAN, INFINITY, -INFINITY };
            for (int64_t x = 0; x < pr.spc; x++)
                pr.C0[x] = junk[x % 3];
        }
        float *got = malloc((size_t)pr.spc * sizeof(float)), *want = malloc((size_t)pr.spc * sizeof(float));
        ck_assert(got && want);
        for (int ii = 0; ii < nisa; ii++) {
            if (isas[ii] == SMM_ISA_SCALAR)
                continue; /* no generator on the portable path */
            ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
            ck_assert_int_eq(smm_set_jit(1), SMM_OK);
            brgemm_plan *generated = problem_plan(&pr, alpha, beta);
            ck_assert_int_eq(smm_set_jit(0), SMM_OK);
            brgemm_plan *precompiled = problem_plan(&pr, alpha, beta);
            ck_assert_msg(strstr(brgemm_plan_name(generated), " generated") != NULL, "%s",
                          brgemm_plan_name(generated));
            ck_assert_msg(strstr(brgemm_plan_name(precompiled), " precompiled") != NULL, "%s",
                          brgemm_plan_name(precompiled));
            for (int kind = 0; kind < 2; kind++) {
                ck_assert_int_eq(problem_run(&pr, generated, kind, got), SMM_OK);
                ck_assert_int_eq(problem_run(&pr, precompiled, kind, want), SMM_OK);
                for (int64_t x = 0; x < pr.spc; x++)
                    if (bits_of(got[x]) != bits_of(want[x]))
                        ck_abort_msg("%s %s: %s m=%lld n=%lld k=%lld batch=%lld alpha=%g beta=%g: C[%lld] = %a "
                                     "generated, %a precompiled",
                                     smm_isa_name(isas[ii]), kind ? "pointers" : "strided", layout_name(layout),
                                     (long long)m, (long long)n, (long long)k, (long long)batch, (double)alpha,
                                     (double)beta, (long long)x, (double)got[x], (double)want[x]);
                compared++;
            }
            brgemm_plan_free(generated);
            brgemm_plan_free(precompiled);
        }
        free(got);
        free(want);
        problem_free(&pr);
    }
    ck_assert_int_eq(compared, 2 * 3 * nm * (nisa - 1));
    test_restore_defaults();
}
END_TEST

/* A plan runs the path it was created on, whatever smm_set_isa says later. */
START_TEST(test_plan_keeps_its_path)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int l = 0; l < 2; l++) {
        real_problem pr;
        problem_init(&pr, l ? SMM_ROW_MAJOR : SMM_COL_MAJOR, 45, 37, 150, 4, 99 + (uint64_t)l);
        brgemm_plan *plans[4];
        float *res[4];
        for (int ii = 0; ii < nisa; ii++) {
            ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
            plans[ii] = problem_plan(&pr, 1.0f, 0.0f);
            res[ii] = malloc((size_t)pr.spc * sizeof(float));
            ck_assert_ptr_nonnull(res[ii]);
            ck_assert_int_eq(problem_run(&pr, plans[ii], 0, res[ii]), SMM_OK);
        }
        float *C = malloc((size_t)pr.spc * sizeof(float));
        ck_assert_ptr_nonnull(C);
        for (int now = 0; now < nisa; now++) {
            ck_assert_int_eq(smm_set_isa(isas[now]), SMM_OK);
            for (int ii = 0; ii < nisa; ii++) {
                ck_assert_msg(strstr(brgemm_plan_name(plans[ii]), smm_isa_name(isas[ii])) != NULL,
                              "plan made on %s, path now %s: name \"%s\"", smm_isa_name(isas[ii]),
                              smm_isa_name(isas[now]), brgemm_plan_name(plans[ii]));
                for (int kind = 0; kind < 2; kind++) {
                    ck_assert_int_eq(problem_run(&pr, plans[ii], kind, C), SMM_OK);
                    ck_assert_msg(memcmp(C, res[ii], (size_t)pr.spc * sizeof(float)) == 0,
                                  "plan made on %s gives other bits once the path is %s (%s)", smm_isa_name(isas[ii]),
                                  smm_isa_name(isas[now]), kind == 0 ? "strided" : "pointers");
                }
            }
        }
        /* the portable path does not fuse, the SIMD paths do: on this data they differ (so the above means something) */
        for (int ii = 1; ii < nisa; ii++)
            ck_assert_msg(memcmp(res[0], res[ii], (size_t)pr.spc * sizeof(float)) != 0,
                          "%s gives the scalar bits on random data: not its own kernels?", smm_isa_name(isas[ii]));
        free(C);
        for (int ii = 0; ii < nisa; ii++) {
            brgemm_plan_free(plans[ii]);
            free(res[ii]);
        }
        problem_free(&pr);
    }
    test_restore_defaults();
}
END_TEST

typedef struct {
    const real_problem *pr;
    const brgemm_plan *plan;
    const float *want; /* the sequential result */
    float *C;          /* this thread's own */
    int iters;
    pthread_barrier_t *start;
    int bad_status, bad_bits;
} thread_job;

static void *thread_main(void *arg)
{
    thread_job *job = arg;
    pthread_barrier_wait(job->start);
    for (int it = 0; it < job->iters; it++) {
        const int kind = it & 1;
        if (problem_run(job->pr, job->plan, kind, job->C) != SMM_OK)
            job->bad_status++;
        else if (memcmp(job->C, job->want, (size_t)job->pr->spc * sizeof(float)) != 0)
            job->bad_bits++;
    }
    return NULL;
}

/* One plan, two threads at once on their own C: the sequential bits, every time. */
START_TEST(test_concurrent_execution)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        for (int l = 0; l < 2; l++) {
            real_problem pr;
            problem_init(&pr, l ? SMM_ROW_MAJOR : SMM_COL_MAJOR, 70, 41, 64, 5, 300 + (uint64_t)(10 * ii + l));
            brgemm_plan *plan = problem_plan(&pr, 0.5f, -1.5f);
            float *want = malloc((size_t)pr.spc * sizeof(float));
            ck_assert_ptr_nonnull(want);
            ck_assert_int_eq(problem_run(&pr, plan, 0, want), SMM_OK);
            pthread_barrier_t start;
            ck_assert_int_eq(pthread_barrier_init(&start, NULL, 2), 0);
            thread_job jobs[2];
            pthread_t th[2];
            for (int t = 0; t < 2; t++) {
                jobs[t] = (thread_job){ &pr, plan, want, malloc((size_t)pr.spc * sizeof(float)), 40, &start, 0, 0 };
                ck_assert_ptr_nonnull(jobs[t].C);
                ck_assert_int_eq(pthread_create(&th[t], NULL, thread_main, &jobs[t]), 0);
            }
            for (int t = 0; t < 2; t++)
                ck_assert_int_eq(pthread_join(th[t], NULL), 0);
            pthread_barrier_destroy(&start);
            for (int t = 0; t < 2; t++) {
                ck_assert_msg(jobs[t].bad_status == 0, "%s %s: thread %d: %d executions failed", smm_isa_name(isas[ii]),
                              layout_name(pr.layout), t, jobs[t].bad_status);
                ck_assert_msg(jobs[t].bad_bits == 0,
                              "%s %s: thread %d: %d of %d concurrent executions differ from the sequential bits",
                              smm_isa_name(isas[ii]), layout_name(pr.layout), t, jobs[t].bad_bits, jobs[t].iters);
                free(jobs[t].C);
            }
            free(want);
            brgemm_plan_free(plan);
            problem_free(&pr);
        }
    }
    test_restore_defaults();
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Semantics of the special cases.                                            */
/* ------------------------------------------------------------------------- */

/* beta == 0 with NaN and Inf in C; stride 0; overlapping batch matrices (exact data, every path) */
START_TEST(test_beta_zero_strides_overlap)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int l = 0; l < 2; l++) {
        const smm_layout layout = l ? SMM_ROW_MAJOR : SMM_COL_MAJOR;
        /* beta == 0 (run_case puts NaN, Inf, -Inf in C then): alpha 1, 2, -0.5 */
        for (int a = 0; a < 3; a++) {
            bcase cs = grid_case(layout, 33, 19, 21, 3, a & 1, a + 5);
            ck_assert(cs.beta == 0.0f);
            run_case(&cs, MODE_EXACT, 40 + (uint64_t)a, isas, nisa);
            cs = grid_case(layout, 17, 70, 5, 2, 1, a + 5);
            run_case(&cs, MODE_REAL, 50 + (uint64_t)a, isas, nisa);
        }
        /* stride 0: one A (or B, or both) for every i */
        for (int which = 0; which < 3; which++) {
            bcase cs = grid_case(layout, 23, 13, 9, 5, 1, 0);
            if (which != 1)
                cs.sa = 0;
            if (which != 0)
                cs.sb = 0;
            run_case(&cs, MODE_EXACT, 60 + (uint64_t)which, isas, nisa);
        }
        /* overlapping A_i and B_i: strides of 1 element, one leading dimension, a few elements */
        static const int64_t overlaps[][2] = { { 1, 1 }, { -1, 2 }, { 3, -1 } }; /* -1: one leading dimension */
        for (int t = 0; t < 3; t++) {
            bcase cs = grid_case(layout, 19, 11, 8, 4, t & 1, 2 * t);
            cs.sa = overlaps[t][0] < 0 ? cs.lda : overlaps[t][0];
            cs.sb = overlaps[t][1] < 0 ? cs.ldb : overlaps[t][1];
            run_case(&cs, MODE_EXACT, 70 + (uint64_t)t, isas, nisa);
        }
    }
    free_arenas();
    test_restore_defaults();
}
END_TEST

/*
 * k == 0, batch == 0 and alpha == 0: C := beta * C; A and B are not read, so
 * NULL operands, NULL pointer entries and NaN-filled operands are all fine.
 */
START_TEST(test_empty_products)
{
    static const float betas[] = { 0.0f, 1.0f, 2.0f, -0.5f };
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    const int64_t m = 5, n = 7;
    float Anan[4096], Bnan[4096];
    for (int i = 0; i < 4096; i++)
        Anan[i] = Bnan[i] = NAN;
    const float *apn[3] = { Anan, NULL, Anan + 100 }, *bpn[3] = { NULL, Bnan, Bnan };
    const float *apnan[3] = { Anan, Anan + 50, Anan + 100 }, *bpnan[3] = { Bnan, Bnan + 50, Bnan + 100 };
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        const char *isa = smm_isa_name(isas[ii]);
        for (int l = 0; l < 2; l++) {
            const smm_layout layout = l ? SMM_ROW_MAJOR : SMM_COL_MAJOR;
            for (int bi = 0; bi < 4; bi++)
                for (int which = 0; which < 3; which++) { /* 0: k == 0; 1: batch == 0; 2: alpha == 0 */
                    const float beta = betas[bi];
                    const int64_t k = which == 0 ? 0 : 4, batch = which == 1 ? 0 : 3;
                    brgemm_desc d = make_desc(layout, m, n, k, min_ld(layout, m, k), min_ld(layout, k, n),
                                              min_ld(layout, m, n) + 2, 20, 28, which == 2 ? 0.0f : 1.5f, beta);
                    brgemm_plan *plan = NULL;
                    ck_assert_int_eq(brgemm_plan_create(&d, &plan), SMM_OK);
                    const int64_t spc = span_of(layout, m, n, d.ldc);
                    float C0[128], C[128], want[128];
                    uint64_t rng = 11 + (uint64_t)(bi + 4 * which);
                    for (int64_t i = 0; i < spc; i++)
                        C0[i] = want[i] = sentinel();
                    for (int64_t r = 0; r < m; r++)
                        for (int64_t j = 0; j < n; j++) {
                            const int64_t x = at(layout, d.ldc, r, j);
                            const float v = gen_value(MODE_EXACT, &rng);
                            C0[x] = beta == 0.0f ? ((r + j) % 3 == 0 ? NAN : (r + j) % 3 == 1 ? INFINITY : -INFINITY)
                                                 : v;
                            want[x] = beta == 0.0f ? 0.0f : beta * v;
                        }
                    for (int variant = 0; variant < 5; variant++) {
                        /* 0, 1: strided / pointers with NULL operands; 2, 3: with NaN operands (and, for
                           pointers, NULL entries when alpha == 0); 4: pointers with NULL entries */
                        if (variant == 4 && which != 2)
                            continue;
                        memcpy(C, C0, sizeof C);
                        smm_status st;
                        if (variant == 0)
                            st = brgemm_execute_strided(plan, NULL, NULL, C, batch);
                        else if (variant == 1)
                            st = brgemm_execute_pointers(plan, NULL, NULL, C, batch);
                        else if (variant == 2)
                            st = brgemm_execute_strided(plan, Anan, Bnan, C, batch);
                        else if (variant == 3)
                            st = brgemm_execute_pointers(plan, apnan, bpnan, C, batch);
                        else
                            st = brgemm_execute_pointers(plan, apn, bpn, C, batch);
                        ck_assert_msg(st == SMM_OK, "%s %s %s beta=%g variant %d: %s", isa, layout_name(layout),
                                      which == 0 ? "k=0" : which == 1 ? "batch=0" : "alpha=0", (double)beta, variant,
                                      smm_status_str(st));
                        for (int64_t i = 0; i < spc; i++) {
                            const int is_pad = bits_of(want[i]) == SENTINEL_BITS;
                            ck_assert_msg(is_pad ? bits_of(C[i]) == SENTINEL_BITS : C[i] == want[i],
                                          "%s %s %s beta=%g variant %d: C[%lld] = %g, want %g (C := beta C)", isa,
                                          layout_name(layout),
                                          which == 0 ? "k=0" : which == 1 ? "batch=0" : "alpha=0", (double)beta,
                                          variant, (long long)i, (double)C[i], (double)want[i]);
                        }
                    }
                    brgemm_plan_free(plan);
                }
        }
    }
    test_restore_defaults();
}
END_TEST

/* m == 0 or n == 0: nothing is done, C (and A, B) may be NULL */
START_TEST(test_empty_c)
{
    static const int64_t dims[][3] = { { 0, 4, 3 }, { 4, 0, 3 }, { 0, 0, 3 }, { 0, 0, 0 }, { 0, 5, 0 } };
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    float C[16], A[64], B[64];
    const float *ap[2] = { A, A }, *bp[2] = { B, B };
    for (int i = 0; i < 64; i++)
        A[i] = B[i] = 1.0f;
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        for (int l = 0; l < 2; l++)
            for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++)
                for (int ab = 0; ab < 2; ab++) {
                    const smm_layout layout = l ? SMM_ROW_MAJOR : SMM_COL_MAJOR;
                    const int64_t m = dims[t][0], n = dims[t][1], k = dims[t][2];
                    brgemm_desc d = make_desc(layout, m, n, k, min_ld(layout, m, k), min_ld(layout, k, n),
                                              min_ld(layout, m, n), 12, 12, ab ? 0.0f : 1.0f, ab ? 0.0f : 2.0f);
                    brgemm_plan *plan = NULL;
                    ck_assert_int_eq(brgemm_plan_create(&d, &plan), SMM_OK);
                    ck_assert_int_eq(brgemm_execute_strided(plan, NULL, NULL, NULL, 2), SMM_OK);
                    ck_assert_int_eq(brgemm_execute_pointers(plan, NULL, NULL, NULL, 2), SMM_OK);
                    ck_assert_int_eq(brgemm_execute_strided(plan, NULL, NULL, NULL, 0), SMM_OK);
                    ck_assert_int_eq(brgemm_execute_pointers(plan, NULL, NULL, NULL, 0), SMM_OK);
                    for (int i = 0; i < 16; i++)
                        C[i] = sentinel();
                    ck_assert_int_eq(brgemm_execute_strided(plan, A, B, C, 2), SMM_OK);
                    ck_assert_int_eq(brgemm_execute_pointers(plan, ap, bp, C, 2), SMM_OK);
                    for (int i = 0; i < 16; i++)
                        ck_assert_msg(bits_of(C[i]) == SENTINEL_BITS, "%s %s m=%lld n=%lld: C written",
                                      smm_isa_name(isas[ii]), layout_name(layout), (long long)d.m, (long long)d.n);
                    ck_assert_ptr_nonnull(brgemm_plan_name(plan));
                    brgemm_plan_free(plan);
                }
    }
    test_restore_defaults();
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Errors.                                                                    */
/* ------------------------------------------------------------------------- */

static char marker_storage;
#define PLAN_MARKER ((brgemm_plan *)(void *)&marker_storage)

static void expect_create(const brgemm_desc *d, smm_status want, const char *what)
{
    brgemm_plan *p = PLAN_MARKER;
    const smm_status st = brgemm_plan_create(d, &p);
    ck_assert_msg(st == want, "create %s: got %s (%d), want %s (%d)", what, smm_status_str(st), (int)st,
                  smm_status_str(want), (int)want);
    if (want != SMM_OK) {
        ck_assert_msg(p == NULL, "create %s: *plan not set to NULL on failure", what);
    } else {
        ck_assert_msg(p != NULL && p != PLAN_MARKER, "create %s: no plan", what);
        brgemm_plan_free(p);
    }
}

/* m x n x k in `layout` with the smallest leading dimensions, batch matrices back to back */
static brgemm_desc small_desc(smm_layout layout, int64_t m, int64_t n, int64_t k)
{
    const int64_t lda = min_ld(layout, m, k), ldb = min_ld(layout, k, n);
    return make_desc(layout, m, n, k, lda, ldb, min_ld(layout, m, n), full_size(layout, m, k, lda),
                     full_size(layout, k, n, ldb), 1.0f, 1.0f);
}

START_TEST(test_create_errors)
{
    static const int64_t shapes[][3] = { { 5, 7, 3 }, { 0, 7, 3 }, { 5, 0, 3 }, { 5, 7, 0 }, { 0, 0, 0 }, { 1, 1, 1 } };
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    char what[200];
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        brgemm_desc d = small_desc(SMM_COL_MAJOR, 5, 7, 3);
        brgemm_plan *p = PLAN_MARKER;
        ck_assert_int_eq(brgemm_plan_create(NULL, &p), SMM_ERR_NULL_POINTER);
        ck_assert_ptr_null(p);
        ck_assert_int_eq(brgemm_plan_create(&d, NULL), SMM_ERR_NULL_POINTER);
        ck_assert_int_eq(brgemm_plan_create(NULL, NULL), SMM_ERR_NULL_POINTER);

        static const int bad_layouts[] = { 0, 100, 103, 111, -1 };
        for (int t = 0; t < 5; t++) {
            d.layout = (smm_layout)bad_layouts[t];
            snprintf(what, sizeof what, "layout %d", bad_layouts[t]);
            expect_create(&d, SMM_ERR_BAD_LAYOUT, what);
        }

        for (int l = 0; l < 2; l++) {
            const smm_layout layout = l ? SMM_ROW_MAJOR : SMM_COL_MAJOR;
            /* negative sizes */
            for (int dim = 0; dim < 3; dim++)
                for (int v = 0; v < 2; v++) {
                    d = small_desc(layout, 5, 7, 3);
                    int64_t *x = dim == 0 ? &d.m : dim == 1 ? &d.n : &d.k;
                    *x = v ? INT64_MIN : -1;
                    snprintf(what, sizeof what, "%s %c = %lld", layout_name(layout), "mnk"[dim], (long long)*x);
                    expect_create(&d, SMM_ERR_BAD_SIZE, what);
                }
            /* each leading dimension: the minimum max(1, inner) accepted, one less (and negative) rejected */
            for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++)
                for (int which = 0; which < 3; which++) {
                    d = small_desc(layout, shapes[t][0], shapes[t][1], shapes[t][2]);
                    int64_t *ld = which == 0 ? &d.lda : which == 1 ? &d.ldb : &d.ldc;
                    const int64_t minimum = *ld;
                    snprintf(what, sizeof what, "%s m=%lld n=%lld k=%lld ld%c=%lld (the minimum)", layout_name(layout),
                             (long long)d.m, (long long)d.n, (long long)d.k, "abc"[which], (long long)minimum);
                    expect_create(&d, SMM_OK, what);
                    *ld = minimum - 1;
                    snprintf(what, sizeof what, "%s m=%lld n=%lld k=%lld ld%c=%lld", layout_name(layout),
                             (long long)d.m, (long long)d.n, (long long)d.k, "abc"[which], (long long)*ld);
                    expect_create(&d, SMM_ERR_BAD_LEADING_DIM, what);
                    *ld = -5;
                    expect_create(&d, SMM_ERR_BAD_LEADING_DIM, "negative leading dimension");
                    *ld = INT64_MIN;
                    expect_create(&d, SMM_ERR_BAD_LEADING_DIM, "INT64_MIN leading dimension");
                }
            /* the layout decides which dimension each leading dimension is checked against */
            d = small_desc(layout, 5, 7, 3);
            d.lda = 4; /* >= k = 3, < m = 5 */
            expect_create(&d, layout == SMM_ROW_MAJOR ? SMM_OK : SMM_ERR_BAD_LEADING_DIM, "lda between k and m");
            d = small_desc(layout, 5, 7, 3);
            d.ldb = 5; /* >= k = 3, < n = 7 */
            expect_create(&d, layout == SMM_ROW_MAJOR ? SMM_ERR_BAD_LEADING_DIM : SMM_OK, "ldb between k and n");
            d = small_desc(layout, 5, 7, 3);
            d.ldc = 6; /* >= m = 5, < n = 7 */
            expect_create(&d, layout == SMM_ROW_MAJOR ? SMM_ERR_BAD_LEADING_DIM : SMM_OK, "ldc between m and n");
            /* negative strides; zero strides are fine */
            d = small_desc(layout, 5, 7, 3);
            d.stride_a = -1;
            expect_create(&d, SMM_ERR_BAD_ARGUMENT, "stride_a = -1");
            d.stride_a = 0;
            expect_create(&d, SMM_OK, "stride_a = 0");
            d.stride_b = INT64_MIN;
            expect_create(&d, SMM_ERR_BAD_ARGUMENT, "stride_b = INT64_MIN");
            d.stride_b = 0;
            expect_create(&d, SMM_OK, "both strides 0");
            /* non-finite alpha and beta are used as given: not an error */
            d.alpha = NAN;
            d.beta = INFINITY;
            expect_create(&d, SMM_OK, "NaN alpha, Inf beta");
        }

        /* overflow: a matrix's extent does not fit (in 64-bit elements, or in bytes of the address space) */
        const int64_t big = INT64_C(1) << 62;
        d = small_desc(SMM_COL_MAJOR, 1, 1, 3);
        d.lda = INT64_MAX; /* A: 2 * INT64_MAX + 1 elements */
        expect_create(&d, SMM_ERR_OVERFLOW, "col lda = INT64_MAX, k = 3");
        d = small_desc(SMM_ROW_MAJOR, 3, 1, 1);
        d.lda = INT64_MAX;
        expect_create(&d, SMM_ERR_OVERFLOW, "row lda = INT64_MAX, m = 3");
        d = small_desc(SMM_COL_MAJOR, big, 1, 1);
        d.lda = d.ldc = big; /* A and C: 2^62 floats = 2^64 bytes */
        expect_create(&d, SMM_ERR_OVERFLOW, "col m = 2^62");
        d = small_desc(SMM_COL_MAJOR, 1, 3, 1);
        d.ldb = INT64_MAX / 2; /* B: about INT64_MAX elements */
        expect_create(&d, SMM_ERR_OVERFLOW, "col ldb = INT64_MAX / 2, n = 3");
        d = small_desc(SMM_ROW_MAJOR, 1, 1, 5);
        d.ldb = big / 2; /* B: 4 * 2^61 + 1 elements, > 2^64 bytes */
        expect_create(&d, SMM_ERR_OVERFLOW, "row ldb = 2^61, k = 5");
        d = small_desc(SMM_COL_MAJOR, 2, 3, 2);
        d.ldc = INT64_MAX / 2;
        expect_create(&d, SMM_ERR_OVERFLOW, "col ldc = INT64_MAX / 2, n = 3");
        d = small_desc(SMM_ROW_MAJOR, INT64_MAX, INT64_MAX, 1);
        d.ldc = INT64_MAX;
        expect_create(&d, SMM_ERR_OVERFLOW, "row m = n = INT64_MAX");
        d = small_desc(SMM_ROW_MAJOR, 3, 2, 2);
        d.ldc = big; /* C: 2 * 2^62 + 2 elements */
        expect_create(&d, SMM_ERR_OVERFLOW, "row ldc = 2^62, m = 3");
        /* a huge leading dimension is fine when there is one column/row only */
        d = small_desc(SMM_COL_MAJOR, 3, 1, 1);
        d.lda = d.ldc = INT64_MAX;
        d.ldb = INT64_MAX;
        expect_create(&d, SMM_OK, "col one column, ld = INT64_MAX");
    }

    /* a path this CPU lacks: the selection error, *plan set to NULL */
    static const smm_isa all[] = { SMM_ISA_AVX2, SMM_ISA_AVX512, SMM_ISA_NEON };
    for (int i = 0; i < 3; i++)
        if (!smm_isa_supported(all[i])) {
            ck_assert_int_eq(smm_set_isa(all[i]), SMM_ERR_ISA_UNAVAILABLE);
            const brgemm_desc d = small_desc(SMM_COL_MAJOR, 5, 7, 3);
            expect_create(&d, SMM_ERR_ISA_UNAVAILABLE, "unavailable path");
            break;
        }
    {
        /* SKETCHMM_ISA that cannot be parsed: SMM_ERR_BAD_ENV from the selection, and from create */
        const brgemm_desc d = small_desc(SMM_COL_MAJOR, 5, 7, 3);
        const char *old_env = getenv("SKETCHMM_ISA");
        char *saved = old_env != NULL ? strdup(old_env) : NULL;
        ck_assert_int_eq(setenv("SKETCHMM_ISA", "no-such-path", 1), 0);
        ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_ERR_BAD_ENV);
        expect_create(&d, SMM_ERR_BAD_ENV, "SKETCHMM_ISA unparseable");
        if (saved != NULL) {
            setenv("SKETCHMM_ISA", saved, 1);
            free(saved);
        } else {
            unsetenv("SKETCHMM_ISA");
        }
        /* an unknown smm_isa value is rejected and changes nothing (common.h runtime) */
        ck_assert_int_eq(smm_set_isa(SMM_ISA_SCALAR), SMM_OK);
        ck_assert_int_eq(smm_set_isa((smm_isa)77), SMM_ERR_BAD_ISA);
        expect_create(&d, SMM_OK, "after a rejected unknown path");
    }
    test_restore_defaults();
}
END_TEST

/* every execute status, C untouched after each */
START_TEST(test_execute_errors)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    float A[256], B[256], C[64];
    for (int i = 0; i < 256; i++)
        A[i] = B[i] = (float)(i % 5) - 2.0f;
    const float *ap[3] = { A, A + 20, A + 40 }, *bp[3] = { B, B + 30, B + 60 };
    const float *ap_last_null[3] = { A, A + 20, NULL }, *bp_first_null[3] = { NULL, B + 30, B + 60 };
    char what[200];
#define EXPECT_EXEC(call, want)                                                                                        \
    do {                                                                                                               \
        for (int i_ = 0; i_ < 64; i_++)                                                                                \
            C[i_] = sentinel();                                                                                        \
        const smm_status st_ = (call);                                                                                 \
        ck_assert_msg(st_ == (want), "%s: %s: got %s, want %s", what, #call, smm_status_str(st_),                     \
                      smm_status_str(want));                                                                           \
        for (int i_ = 0; i_ < 64; i_++)                                                                                \
            ck_assert_msg(bits_of(C[i_]) == SENTINEL_BITS, "%s: %s: C[%d] written after an error", what, #call, i_);  \
    } while (0)
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        for (int l = 0; l < 2; l++) {
            const smm_layout layout = l ? SMM_ROW_MAJOR : SMM_COL_MAJOR;
            snprintf(what, sizeof what, "%s %s", smm_isa_name(isas[ii]), layout_name(layout));
            brgemm_desc d = small_desc(layout, 4, 5, 4); /* A 16 floats, B 20, C 20 */
            brgemm_plan *plan = NULL;
            ck_assert_int_eq(brgemm_plan_create(&d, &plan), SMM_OK);
            /* NULL plan */
            EXPECT_EXEC(brgemm_execute_strided(NULL, A, B, C, 1), SMM_ERR_NULL_POINTER);
            EXPECT_EXEC(brgemm_execute_pointers(NULL, ap, bp, C, 1), SMM_ERR_NULL_POINTER);
            /* NULL C while m * n > 0, whatever the batch */
            ck_assert_int_eq(brgemm_execute_strided(plan, A, B, NULL, 1), SMM_ERR_NULL_POINTER);
            ck_assert_int_eq(brgemm_execute_pointers(plan, ap, bp, NULL, 1), SMM_ERR_NULL_POINTER);
            ck_assert_int_eq(brgemm_execute_strided(plan, A, B, NULL, 0), SMM_ERR_NULL_POINTER);
            ck_assert_int_eq(brgemm_execute_pointers(plan, NULL, NULL, NULL, 0), SMM_ERR_NULL_POINTER);
            /* NULL operands that are read */
            EXPECT_EXEC(brgemm_execute_strided(plan, NULL, B, C, 2), SMM_ERR_NULL_POINTER);
            EXPECT_EXEC(brgemm_execute_strided(plan, A, NULL, C, 2), SMM_ERR_NULL_POINTER);
            EXPECT_EXEC(brgemm_execute_pointers(plan, NULL, bp, C, 2), SMM_ERR_NULL_POINTER);
            EXPECT_EXEC(brgemm_execute_pointers(plan, ap, NULL, C, 2), SMM_ERR_NULL_POINTER);
            EXPECT_EXEC(brgemm_execute_pointers(plan, ap_last_null, bp, C, 3), SMM_ERR_NULL_POINTER);
            EXPECT_EXEC(brgemm_execute_pointers(plan, ap, bp_first_null, C, 3), SMM_ERR_NULL_POINTER);
            /* ... the same arrays are fine when the NULL entry is beyond the batch */
            for (int i = 0; i < 64; i++)
                C[i] = 0.0f;
            ck_assert_int_eq(brgemm_execute_pointers(plan, ap_last_null, bp, C, 2), SMM_OK);
            /* negative batch */
            EXPECT_EXEC(brgemm_execute_strided(plan, A, B, C, -1), SMM_ERR_BAD_SIZE);
            EXPECT_EXEC(brgemm_execute_strided(plan, A, B, C, INT64_MIN), SMM_ERR_BAD_SIZE);
            EXPECT_EXEC(brgemm_execute_pointers(plan, ap, bp, C, -1), SMM_ERR_BAD_SIZE);
            EXPECT_EXEC(brgemm_execute_pointers(plan, ap, bp, C, INT64_MIN), SMM_ERR_BAD_SIZE);
            brgemm_plan_free(plan);

            /* the span of the batch does not fit: (batch - 1) * stride + extent elements */
            d = small_desc(layout, 4, 5, 4);
            d.stride_a = INT64_MAX / 2;
            ck_assert_int_eq(brgemm_plan_create(&d, &plan), SMM_OK);
            EXPECT_EXEC(brgemm_execute_strided(plan, A, B, C, 3), SMM_ERR_OVERFLOW);
            brgemm_plan_free(plan);
            d = small_desc(layout, 4, 5, 4);
            d.stride_b = INT64_C(1) << 61; /* 2 * 2^61 + 20 floats: more than 2^64 bytes */
            ck_assert_int_eq(brgemm_plan_create(&d, &plan), SMM_OK);
            EXPECT_EXEC(brgemm_execute_strided(plan, A, B, C, 3), SMM_ERR_OVERFLOW);
            brgemm_plan_free(plan);
            d = small_desc(layout, 4, 5, 4);
            d.stride_a = 1;
            ck_assert_int_eq(brgemm_plan_create(&d, &plan), SMM_OK);
            EXPECT_EXEC(brgemm_execute_strided(plan, A, B, C, INT64_MAX), SMM_ERR_OVERFLOW);
            brgemm_plan_free(plan);
        }
    }
#undef EXPECT_EXEC
    test_restore_defaults();
}
END_TEST

START_TEST(test_names)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    ck_assert_str_eq(brgemm_plan_name(NULL), "null plan");
    brgemm_plan_free(NULL);
    static const int64_t shapes[][3] = { { 64, 64, 64 }, { 5, 7, 3 }, { 0, 7, 3 }, { 200, 1, 1 } };
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        for (int l = 0; l < 2; l++)
            for (int t = 0; t < 4; t++) {
                const brgemm_desc d =
                    small_desc(l ? SMM_ROW_MAJOR : SMM_COL_MAJOR, shapes[t][0], shapes[t][1], shapes[t][2]);
                brgemm_plan *plan = NULL;
                ck_assert_int_eq(brgemm_plan_create(&d, &plan), SMM_OK);
                const char *name = brgemm_plan_name(plan);
                ck_assert_ptr_nonnull(name);
                ck_assert_msg(strstr(name, smm_isa_name(isas[ii])) != NULL, "plan made on %s named \"%s\"",
                              smm_isa_name(isas[ii]), name);
                ck_assert_str_ne(name, "null plan");
                brgemm_plan_free(plan);
            }
    }
    /* AUTO: the name says which path it resolved to */
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
    smm_isa now = SMM_ISA_AUTO;
    ck_assert_int_eq(smm_get_isa(&now), SMM_OK);
    const brgemm_desc d = small_desc(SMM_COL_MAJOR, 8, 8, 8);
    brgemm_plan *plan = NULL;
    ck_assert_int_eq(brgemm_plan_create(&d, &plan), SMM_OK);
    ck_assert_ptr_nonnull(strstr(brgemm_plan_name(plan), smm_isa_name(now)));
    brgemm_plan_free(plan);
    test_restore_defaults();
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Every kernel against the scalar twin (brgemm_kernels.h).                   */
/* ------------------------------------------------------------------------- */

/*
 * The twin on a block of any size: the portable tiles of the scalar row on
 * sub-blocks of at most its band of rows and its widest block of columns.
 * Every element of C depends only on its own row of the A_i and column of
 * the B_i, so the cut changes no bit.
 */
static void twin_block(int kind, const brgemm_args *g, int64_t rows, int64_t cols, const brgemm_batch *bt, float *C)
{
    const brgemm_kernels *twin = brgemm_kernels_for(SMM_ISA_SCALAR);
    const int64_t band = (int64_t)twin->vl * twin->mv_max;
    for (int64_t r0 = 0; r0 < rows; r0 += band) {
        const int64_t nr = rows - r0 < band ? rows - r0 : band;
        const int mv = (int)((nr + twin->vl - 1) / twin->vl);
        const int64_t width = twin->nb_max[mv - 1];
        for (int64_t j0 = 0; j0 < cols; j0 += width) {
            const int nb = (int)(cols - j0 < width ? cols - j0 : width);
            brgemm_batch sub = *bt;
            if (kind == BRGEMM_KIND_STRIDED) {
                sub.a = bt->a + r0;
                sub.b = bt->b + j0 * g->ldb;
            } else {
                sub.a_off = bt->a_off + r0;
                sub.b_off = bt->b_off + j0 * g->ldb;
            }
            twin->tile(kind, mv, nb)(g, (int)nr, &sub, C + r0 + j0 * g->ldc);
        }
    }
}

#define TWIN_FLOATS 8192

/*
 * One block of rows x nb (column-major, the kernels' view) summed over
 * `batch` entries of depth k: integer data (exact, so every path must give
 * the twin's bits), NaN between the elements a kernel may read and in C
 * when beta == 0, the sentinel in C's padding. rank1 != NULL: that rank-1
 * kernel instead of the tile (k == 1, batch 1, strided). All of C, padding
 * included, must hold the twin's bits.
 */
static void twin_tile_case(const char *isa, int kind, int mv, int nb, int rows, int64_t k, int64_t batch,
                           float alpha, float beta, brgemm_tile_fn tile, brgemm_rank1_fn rank1, uint64_t seed)
{
    static float A[TWIN_FLOATS], B[TWIN_FLOATS], got[TWIN_FLOATS], want[TWIN_FLOATS];
    const brgemm_args g = { k, rows + 3, k + 2, rows + 4, (rows + 3) * k + 5, (k + 2) * nb + 1, alpha, beta };
    ck_assert(batch * g.stride_a <= TWIN_FLOATS && batch * g.stride_b <= TWIN_FLOATS && g.ldc * nb <= TWIN_FLOATS);
    uint64_t rng = seed;
    for (int64_t x = 0; x < TWIN_FLOATS; x++)
        A[x] = B[x] = NAN;
    for (int64_t i = 0; i < batch; i++)
        for (int64_t p = 0; p < k; p++) {
            for (int64_t r = 0; r < rows; r++)
                A[i * g.stride_a + r + p * g.lda] = gen_value(MODE_EXACT, &rng);
            for (int64_t j = 0; j < nb; j++)
                B[i * g.stride_b + p + j * g.ldb] = gen_value(MODE_EXACT, &rng);
        }
    const float s = sentinel();
    for (int64_t x = 0; x < g.ldc * nb; x++)
        got[x] = x % g.ldc >= rows ? s : beta == 0.0f ? NAN : gen_value(MODE_EXACT, &rng);
    memcpy(want, got, (size_t)(g.ldc * nb) * sizeof(float));
    const float *ap[16], *bp[16];
    ck_assert_int_le(batch, 16);
    for (int64_t i = 0; i < batch; i++) {
        ap[i] = A + i * g.stride_a;
        bp[i] = B + i * g.stride_b;
    }
    const brgemm_batch bt = { A, B, ap, bp, 0, 0, batch };
    if (rank1 != NULL)
        rank1(&g, rows, nb, A, B, got);
    else
        tile(&g, rows, &bt, got);
    twin_block(kind, &g, rows, nb, &bt, want);
    for (int64_t x = 0; x < g.ldc * nb; x++)
        if (bits_of(got[x]) != bits_of(want[x]))
            ck_abort_msg("%s %s %s mv=%d nb=%d rows=%d k=%lld batch=%lld alpha=%g beta=%g: C[%lld] = %a, the twin "
                         "gives %a",
                         isa, rank1 != NULL ? "rank-1" : "tile", kind == BRGEMM_KIND_STRIDED ? "strided" : "pointers",
                         mv, nb, rows, (long long)k, (long long)batch, (double)alpha, (double)beta, (long long)x,
                         (double)got[x], (double)want[x]);
}

/*
 * On every path: every tile instance (both kinds, every vector count and
 * column count, a block filling its last vector and one holding a single
 * row of it) at k = 1, 2, 5 and batch 1, 3, and the rank-1 kernel on every
 * row count up to two bands and a half, in each update mode (beta 0,
 * alpha = beta = 1, general), against the portable tiles.
 */
START_TEST(test_kernels_match_scalar_twin)
{
    static const float ab[][2] = { { 1.0f, 0.0f }, { 1.0f, 1.0f }, { -0.5f, 2.0f }, { 2.0f, 0.25f } };
    static const int64_t ks[] = { 1, 2, 5 }, batches[] = { 1, 3 };
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    uint64_t seed = 7000;
    for (int ii = 0; ii < nisa; ii++) {
        const brgemm_kernels *kr = brgemm_kernels_for(isas[ii]);
        const char *isa = kr->head.name;
        for (int kind = 0; kind < 2; kind++)
            for (int mv = 1; mv <= kr->mv_max; mv++)
                for (int nb = 1; nb <= kr->nb_max[mv - 1]; nb++)
                    for (int full = 0; full < 2; full++)
                        for (int ki = 0; ki < 3; ki++)
                            for (int bi = 0; bi < 2; bi++)
                                for (int a = 0; a < 4; a++)
                                    twin_tile_case(isa, kind, mv, nb, full ? mv * kr->vl : (mv - 1) * kr->vl + 1,
                                                   ks[ki], batches[bi], ab[a][0], ab[a][1], kr->tile(kind, mv, nb),
                                                   NULL, seed++);
        if (kr->rank1 == NULL)
            continue;
        const int band = BRGEMM_RANK1_VECTORS * kr->vl;
        for (int m = 1; m <= 2 * band + band / 2; m++)
            for (int n = 1; n <= 3; n += 2)
                for (int a = 0; a < 4; a++)
                    twin_tile_case(isa, BRGEMM_KIND_STRIDED, 0, n, m, 1, 1, ab[a][0], ab[a][1], NULL, kr->rank1,
                                   seed++);
    }
}
END_TEST

/* ------------------------------------------------------------------------- */
/* The full grid (seed 003).                                                  */
/* ------------------------------------------------------------------------- */

static int grid_lo = 1, grid_hi = 64;
static smm_isa grid_isa = SMM_ISA_AUTO; /* AUTO: every path this machine runs */

enum { FG_MN = 64, FG_K = 128, FG_BATCH = 16 };

START_TEST(test_full_grid)
{
    static const int64_t ks[] = { 1, 16, 32, 64, 128 };
    /* Every path, the portable one included, gets the whole grid: natively (Release, 2 cores) the two
       ctest entries take well under a minute each. --full-grid LO HI ISA checks that path only (the
       emulated NEON runs of the cross build). */
    smm_isa isas[4];
    int nisa = test_supported_isas(isas);
    if (grid_isa != SMM_ISA_AUTO) {
        isas[0] = grid_isa;
        nisa = 1;
    }
    long long count[4] = { 0, 0, 0, 0 };

    /* a fixed pool of small integers; A_i(r, p), B_i(p, j), C(r, j) are read from it for every shape */
    int8_t *pool_a = malloc((size_t)FG_BATCH * FG_K * FG_MN), *pool_b = malloc((size_t)FG_BATCH * FG_MN * FG_K);
    int8_t *pool_c = malloc((size_t)FG_MN * FG_MN);
    int32_t *ref = malloc((size_t)FG_BATCH * FG_MN * FG_MN * sizeof(int32_t));
    ck_assert(pool_a && pool_b && pool_c && ref);
    uint64_t rng = 3003;
    for (int i = 0; i < FG_BATCH * FG_K * FG_MN; i++) {
        pool_a[i] = (int8_t)((int)(test_rng_next(&rng) % 7) - 3);
        pool_b[i] = (int8_t)((int)(test_rng_next(&rng) % 7) - 3);
    }
    for (int i = 0; i < FG_MN * FG_MN; i++)
        pool_c[i] = (int8_t)((int)(test_rng_next(&rng) % 7) - 3);
#define POOL_A(i, r, p) pool_a[((i) * FG_K + (p)) * FG_MN + (r)]
#define POOL_B(i, p, j) pool_b[((i) * FG_MN + (j)) * FG_K + (p)]
    arena ar_a[2] = { { 0 } }, ar_b[2] = { { 0 } }, ar_c = { 0 }, ar_c0 = { 0 };
    float *As[2];
    const float s = sentinel();

    for (int64_t M = grid_lo; M <= grid_hi; M++)
        for (int ki = 0; ki < 5; ki++) {
            const int64_t K = ks[ki];
            /* A for both variants: v = 0 tight (lda = M, stride M K), v = 1 padded (lda = M + 3, stride + 11) */
            for (int v = 0; v < 2; v++) {
                const int64_t lda = M + (v ? 3 : 0), sa = lda * K + (v ? 11 : 0);
                const int64_t total = (FG_BATCH - 1) * sa + (K - 1) * lda + M;
                float *a = arena_tail(&ar_a[v], total);
                for (int64_t x = 0; x < total; x++)
                    a[x] = NAN;
                for (int64_t i = 0; i < FG_BATCH; i++)
                    for (int64_t p = 0; p < K; p++)
                        for (int64_t r = 0; r < M; r++)
                            a[i * sa + p * lda + r] = (float)POOL_A(i, r, p);
                As[v] = a;
            }
            /* ref[b - 1] = sum_{i < b} A_i B_i for all FG_MN columns, extended one batch entry at a time:
               column j does not depend on N, so every N reads the first N columns */
            for (int64_t b = 0; b < FG_BATCH; b++) {
                int32_t *rb = ref + b * M * FG_MN;
                if (b == 0)
                    memset(rb, 0, (size_t)(M * FG_MN) * sizeof(int32_t));
                else
                    memcpy(rb, rb - M * FG_MN, (size_t)(M * FG_MN) * sizeof(int32_t));
                for (int64_t j = 0; j < FG_MN; j++)
                    for (int64_t p = 0; p < K; p++) {
                        const int32_t bv = POOL_B(b, p, j);
                        const int8_t *acol = &POOL_A(b, 0, p);
                        int32_t *rcol = rb + j * M;
                        for (int64_t r = 0; r < M; r++)
                            rcol[r] += (int32_t)acol[r] * bv;
                    }
            }
            for (int64_t N = 1; N <= FG_MN; N++) {
                for (int v = 0; v < 2; v++) {
                    const int64_t lda = M + (v ? 3 : 0), ldb = K + (v ? 5 : 0), ldc = M + (v ? 7 : 0);
                    const int64_t sa = lda * K + (v ? 11 : 0), sb = ldb * N + (v ? 13 : 0);
                    const int64_t totb = (FG_BATCH - 1) * sb + (N - 1) * ldb + K;
                    const int64_t spc = (N - 1) * ldc + M;
                    float *bbuf = arena_tail(&ar_b[v], totb);
                    for (int64_t x = 0; x < totb; x++)
                        bbuf[x] = NAN;
                    for (int64_t i = 0; i < FG_BATCH; i++)
                        for (int64_t j = 0; j < N; j++)
                            for (int64_t p = 0; p < K; p++)
                                bbuf[i * sb + j * ldb + p] = (float)POOL_B(i, p, j);
                    float *c0 = arena_tail(&ar_c0, spc), *C = arena_tail(&ar_c, spc);
                    for (int64_t x = 0; x < spc; x++)
                        c0[x] = s;
                    for (int64_t j = 0; j < N; j++)
                        for (int64_t r = 0; r < M; r++)
                            c0[j * ldc + r] = (float)pool_c[j * FG_MN + r];
                    brgemm_desc d = make_desc(SMM_COL_MAJOR, M, N, K, lda, ldb, ldc, sa, sb, 1.0f, 1.0f);
                    for (int ii = 0; ii < nisa; ii++) {
                        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
                        brgemm_plan *plan = NULL;
                        ck_assert_int_eq(brgemm_plan_create(&d, &plan), SMM_OK);
                        /* one plan for every batch count */
                        for (int64_t b = 1; b <= FG_BATCH; b++) {
                            memcpy(C, c0, (size_t)spc * sizeof(float));
                            const smm_status st = brgemm_execute_strided(plan, As[v], bbuf, C, b);
                            ck_assert_msg(st == SMM_OK, "%s M=%lld N=%lld K=%lld batch=%lld %s: %s",
                                          smm_isa_name(isas[ii]), (long long)M, (long long)N, (long long)K,
                                          (long long)b, v ? "padded" : "tight", smm_status_str(st));
                            const int32_t *rb = ref + (b - 1) * M * FG_MN;
                            for (int64_t j = 0; j < N; j++) {
                                const float *ccol = C + j * ldc;
                                for (int64_t r = 0; r < M; r++) {
                                    const float w = (float)(pool_c[j * FG_MN + r] + rb[j * M + r]);
                                    if (ccol[r] != w)
                                        ck_abort_msg("%s col M=%lld N=%lld K=%lld batch=%lld lda=%lld ldb=%lld "
                                                     "ldc=%lld stride_a=%lld stride_b=%lld alpha=1 beta=1: "
                                                     "C(%lld, %lld) = %.9g, want %.9g",
                                                     smm_isa_name(isas[ii]), (long long)M, (long long)N, (long long)K,
                                                     (long long)b, (long long)lda, (long long)ldb, (long long)ldc,
                                                     (long long)sa, (long long)sb, (long long)r, (long long)j,
                                                     (double)ccol[r], (double)w);
                                }
                                if (j + 1 < N)
                                    for (int64_t r = M; r < ldc; r++)
                                        if (bits_of(ccol[r]) != SENTINEL_BITS)
                                            ck_abort_msg("%s M=%lld N=%lld K=%lld batch=%lld ldc=%lld: padding "
                                                         "C[%lld] written",
                                                         smm_isa_name(isas[ii]), (long long)M, (long long)N,
                                                         (long long)K, (long long)b, (long long)ldc,
                                                         (long long)(j * ldc + r));
                            }
                            count[ii]++;
                        }
                        brgemm_plan_free(plan);
                    }
                }
            }
        }
#undef POOL_A
#undef POOL_B
    for (int ii = 0; ii < nisa; ii++)
        printf("brgemm full grid M %d..%d: %s: %lld configurations checked (N 1..64, 5 K, batch 1..16, 2 ld "
               "variants)\n",
               grid_lo, grid_hi, smm_isa_name(isas[ii]), count[ii]);
    fflush(stdout);
    for (int v = 0; v < 2; v++) {
        arena_free(&ar_a[v]);
        arena_free(&ar_b[v]);
    }
    arena_free(&ar_c);
    arena_free(&ar_c0);
    free(pool_a);
    free(pool_b);
    free(pool_c);
    free(ref);
    test_restore_defaults();
}
END_TEST

static Suite *brgemm_suite(void)
{
    Suite *s = suite_create("brgemm");
    TCase *tc = tcase_create("grid");
    tcase_add_loop_test(tc, test_sampled_grid, 0, GRID_PARTS);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);
    tc = tcase_create("numerics");
    tcase_add_test(tc, test_real_data);
    tcase_add_test(tc, test_summation_order);
    tcase_add_test(tc, test_plan_keeps_its_path);
    tcase_add_test(tc, test_concurrent_execution);
    tcase_add_test(tc, test_kernels_match_scalar_twin);
    tcase_add_test(tc, test_generated_matches_precompiled);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);
    tc = tcase_create("semantics");
    tcase_add_test(tc, test_beta_zero_strides_overlap);
    tcase_add_test(tc, test_empty_products);
    tcase_add_test(tc, test_empty_c);
    tcase_set_timeout(tc, 300);
    suite_add_tcase(s, tc);
    tc = tcase_create("arguments");
    tcase_add_test(tc, test_create_errors);
    tcase_add_test(tc, test_execute_errors);
    tcase_add_test(tc, test_names);
    tcase_set_timeout(tc, 300);
    suite_add_tcase(s, tc);
    return s;
}

static Suite *full_grid_suite(void)
{
    Suite *s = suite_create("brgemm full grid");
    TCase *tc = tcase_create("full grid");
    tcase_add_test(tc, test_full_grid);
    tcase_set_timeout(tc, 1200);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    /* test_brgemm --full-grid LO HI [ISA]: the seed-003 grid for LO <= M <= HI (on path ISA only) */
    if ((argc == 4 || argc == 5) && strcmp(argv[1], "--full-grid") == 0) {
        grid_lo = atoi(argv[2]);
        grid_hi = atoi(argv[3]);
        if (grid_lo < 1 || grid_hi > FG_MN || grid_lo > grid_hi) {
            fprintf(stderr, "test_brgemm: --full-grid LO HI needs 1 <= LO <= HI <= %d\n", FG_MN);
            return 2;
        }
        static const smm_isa paths[] = { SMM_ISA_SCALAR, SMM_ISA_AVX2, SMM_ISA_AVX512, SMM_ISA_NEON };
        for (int i = 0; argc == 5 && i < 4; i++)
            if (strcmp(argv[4], smm_isa_name(paths[i])) == 0)
                grid_isa = paths[i];
        if (argc == 5 && (grid_isa == SMM_ISA_AUTO || !smm_isa_supported(grid_isa))) {
            fprintf(stderr, "test_brgemm: --full-grid: '%s' is not a path this machine runs\n", argv[4]);
            return 2;
        }
        return test_run_suite(full_grid_suite());
    }
    if (argc != 1) {
        fprintf(stderr, "usage: test_brgemm [--full-grid LO HI [ISA]]\n");
        return 2;
    }
    const char *full = getenv("SKETCHMM_BRGEMM_FULL_GRID");
    if (full != NULL && strcmp(full, "1") == 0)
        return test_run_suite(full_grid_suite());
    return test_run_suite(brgemm_suite());
}
