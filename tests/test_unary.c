/*
 * test_unary.c - Check suite of the unary primitives (sketchmm/unary.h):
 * every op x trans x layout against the scalar twins of unary_scalar.c
 * (themselves checked against a plain definition) on odd shapes with
 * padded leading dimensions (the padding and the memory after B must stay
 * untouched), on every ISA path this CPU runs and with 1 and 2 threads
 * (shapes large enough for the threaded driver included), every kernel
 * called directly against the twins on edge blocks, the generated kernels
 * (run by every call above from UNARY_JIT_MIN elements up, code generation
 * being on) written for every small shape and edge and run directly against
 * the twins, bit-exact NaN, signed-zero and infinity handling of ReLU,
 * in-place copies, and the argument checks (documented statuses, B
 * untouched).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#include "exact/jit_cache.h"
#include "exact/unary_jit.h"
#include "exact/unary_kernels.h"
#include "sketchmm/unary.h"

#define SENTINEL_BITS 0x7FC0BEEFu /* a quiet NaN with a payload no input has */

static float sentinel(void)
{
    const uint32_t bits = SENTINEL_BITS;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Element (r, c) of a matrix in `layout` with leading dimension ld. */
static int64_t at(smm_layout layout, int64_t ld, int64_t r, int64_t c)
{
    return layout == SMM_ROW_MAJOR ? r * ld + c : c * ld + r;
}

static float ref_op(unary_op op, float x)
{
    if (op == UNARY_ZERO)
        return 0.0f;
    if (op == UNARY_RELU)
        return x < 0.0f ? 0.0f : x; /* NaN and -0 pass through */
    return x;
}

static const unary_op ops[] = { UNARY_ZERO, UNARY_IDENTITY, UNARY_RELU };
static const smm_trans transes[] = { SMM_NO_TRANS, SMM_TRANS };
static const smm_layout layouts[] = { SMM_ROW_MAJOR, SMM_COL_MAJOR };

typedef struct {
    int64_t m, n;
} shape;

static const shape shapes[] = { { 1, 1 },   { 1, 37 },   { 29, 1 },    { 7, 13 },   { 16, 16 },
                                { 17, 15 }, { 65, 33 },  { 130, 257 }, { 64, 64 },  { 50, 50 },
                                { 257, 300 } /* above UNARY_PARALLEL_MIN: the threaded driver */ };
#define NSHAPES ((int)(sizeof shapes / sizeof shapes[0]))

/* Random values with negatives, zeros of both signs, infinities and NaNs sprinkled in. */
static void fill_special(float *x, int64_t count, uint64_t *rng)
{
    for (int64_t i = 0; i < count; i++) {
        const uint64_t pick = test_rng_next(rng) % 64;
        if (pick == 0)
            x[i] = NAN;
        else if (pick == 1)
            x[i] = -NAN;
        else if (pick == 2)
            x[i] = -0.0f;
        else if (pick == 3)
            x[i] = 0.0f;
        else if (pick == 4)
            x[i] = -INFINITY;
        else if (pick == 5)
            x[i] = INFINITY;
        else
            x[i] = test_rng_uniform(rng);
    }
}

/*
 * One case on the current ISA path and thread count: B must equal the expected buffer exactly.
 * aligned: B 64-byte aligned with ldb a multiple of 16 (the non-temporal store path of large transposes).
 */
static void check_case(unary_op op, smm_trans trans, smm_layout layout, int64_t m, int64_t n, uint64_t seed,
                       const char *where, int aligned)
{
    /* A: m x n or n x m, padded by 3; B: m x n padded by 5, plus a guard zone after it */
    const int64_t ar = trans == SMM_TRANS ? n : m, ac = trans == SMM_TRANS ? m : n;
    const int64_t lda = (layout == SMM_ROW_MAJOR ? ac : ar) + 3;
    const int64_t ldb = aligned ? ((layout == SMM_ROW_MAJOR ? n : m) + 15) / 16 * 16 + 16
                                : (layout == SMM_ROW_MAJOR ? n : m) + 5;
    const int64_t asize = (layout == SMM_ROW_MAJOR ? ar : ac) * lda;
    const int64_t bsize = ((layout == SMM_ROW_MAJOR ? m : n) * ldb + 40 + 15) / 16 * 16;
    float *A = malloc((size_t)asize * sizeof(float));
    float *B = aligned ? aligned_alloc(64, (size_t)bsize * sizeof(float)) : malloc((size_t)bsize * sizeof(float));
    float *E = malloc((size_t)bsize * sizeof(float));
    ck_assert_ptr_nonnull(A);
    ck_assert_ptr_nonnull(B);
    ck_assert_ptr_nonnull(E);
    uint64_t rng = seed;
    fill_special(A, asize, &rng);
    const float s = sentinel();
    for (int64_t i = 0; i < bsize; i++)
        B[i] = E[i] = s;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            const float x = trans == SMM_TRANS ? A[at(layout, lda, j, i)] : A[at(layout, lda, i, j)];
            E[at(layout, ldb, i, j)] = ref_op(op, x);
        }
    /* the scalar twins on the row-major view of unary.c give the definition; every path gives their bits */
    float *T = malloc((size_t)bsize * sizeof(float));
    ck_assert_ptr_nonnull(T);
    for (int64_t i = 0; i < bsize; i++)
        T[i] = s;
    const int64_t rows = layout == SMM_ROW_MAJOR ? m : n, cols = layout == SMM_ROW_MAJOR ? n : m;
    if (trans == SMM_TRANS && op != UNARY_ZERO)
        unary_transpose_scalar(op, rows, cols, A, lda, T, ldb, 0);
    else
        unary_copy_scalar(op, rows, cols, A, lda, T, ldb);
    ck_assert_msg(memcmp(T, E, (size_t)bsize * sizeof(float)) == 0, "%s: the scalar twin is not the definition",
                  where);
    memcpy(E, T, (size_t)bsize * sizeof(float));
    free(T);
    const smm_status st = unary_apply(op, layout, trans, m, n, A, lda, B, ldb);
    ck_assert_msg(st == SMM_OK, "%s: %s", where, smm_status_str(st));
    if (memcmp(B, E, (size_t)bsize * sizeof(float)) != 0) {
        int64_t first = 0;
        while (memcmp(B + first, E + first, sizeof(float)) == 0)
            first++;
        ck_abort_msg("%s: %s %s %s %lldx%lld: element %lld differs (got %a, want %a)", where, unary_op_name(op),
                     trans == SMM_TRANS ? "trans" : "notrans", layout == SMM_ROW_MAJOR ? "row" : "col", (long long)m,
                     (long long)n, (long long)first, (double)B[first], (double)E[first]);
    }
    free(A);
    free(B);
    free(E);
}

START_TEST(test_matches_reference)
{
    /* _i: the shape */
    const shape sh = shapes[_i];
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    static const int thread_counts[] = { 1, 2 };
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        for (int ti = 0; ti < 2; ti++) {
            ck_assert_int_eq(smm_set_num_threads(thread_counts[ti]), SMM_OK);
            for (int o = 0; o < 3; o++)
                for (int t = 0; t < 2; t++)
                    for (int l = 0; l < 2; l++)
                        check_case(ops[o], transes[t], layouts[l], sh.m, sh.n,
                                   (uint64_t)(1000 * _i + 100 * o + 10 * t + l), smm_isa_name(isas[ii]), 0);
        }
    }
    test_restore_defaults();
}
END_TEST

/*
 * The kernels a case runs: the precompiled ones of a kernel table row (k),
 * or the kernel a writer generates for the case (writer, for path isa; see
 * unary_jit.h: a copy, or one transposed block taken whole, cols <= 16).
 */
typedef struct {
    const unary_kernels *k;
    smm_isa isa;
    jit_writer writer;
} under_test;

/* Run u's kernel of the case; returns what to call it in a message. */
static const char *run_under_test(const under_test *u, unary_op op, int transpose, int64_t rows, int64_t cols,
                                  int stream, const float *A, int64_t lda, float *B, int64_t ldb)
{
    if (u->writer == NULL) {
        if (transpose)
            u->k->transpose(op, rows, cols, A, lda, B, ldb, stream);
        else
            u->k->copy(op, rows, cols, A, lda, B, ldb);
        return u->k->head.name;
    }
    unary_jit_desc d;
    memset(&d, 0, sizeof d);
    d.isa = (int32_t)u->isa;
    d.op = (int32_t)op;
    d.transpose = transpose;
    d.stream = stream;
    d.lda = op == UNARY_ZERO ? 0 : lda;
    d.ldb = ldb;
    d.cols = transpose ? 0 : cols;
    d.rows_full = d.rows_last = transpose ? rows : 0;
    d.cols_full = d.cols_last = transpose ? cols : 0;
    const jit_kernel *k = NULL;
    /* held like a plan's kernel and released: the tests write more kernels than stay resident */
    ck_assert_int_eq(jit_kernel_get(u->writer, &d, sizeof d, JIT_FOR_PLAN, &k), SMM_OK);
    if (transpose)
        ((unary_jit_block_fn)(uintptr_t)jit_kernel_entry(k, 0))(A, B);
    else
        ((unary_jit_copy_fn)(uintptr_t)jit_kernel_entry(k, 0))(A, B, rows);
    jit_kernel_release(k);
    return u->isa == SMM_ISA_AVX512 ? "avx512 generated" : u->isa == SMM_ISA_AVX2 ? "avx2 generated" : "neon generated";
}

/*
 * One kernel call on the row-major view of unary.c against the scalar twin:
 * rows x cols of B (ldb padded, or 64-byte aligned with ldb a multiple of
 * 16 when stream), A the same lines (copy) or rows x cols transposed, every
 * element of B's buffer (padding and a tail after it included) compared
 * bit for bit.
 */
static void kernel_case(const under_test *u, unary_op op, int transpose, int64_t rows, int64_t cols, int stream,
                        uint64_t seed)
{
    const int64_t lda = (transpose ? rows : cols) + 3, alines = transpose ? cols : rows;
    const int64_t ldb = stream ? (cols + 15) / 16 * 16 + 16 : cols + 5;
    const int64_t bsize = (rows * ldb + 16 + 15) / 16 * 16;
    float *A = malloc((size_t)(alines * lda) * sizeof(float));
    float *B = aligned_alloc(64, (size_t)bsize * sizeof(float)), *E = malloc((size_t)bsize * sizeof(float));
    ck_assert(A != NULL && B != NULL && E != NULL);
    uint64_t rng = seed;
    fill_special(A, alines * lda, &rng);
    const float s = sentinel();
    for (int64_t i = 0; i < bsize; i++)
        B[i] = E[i] = s;
    const float *a = op == UNARY_ZERO ? NULL : A;
    const char *name = run_under_test(u, op, transpose, rows, cols, stream, a, lda, B, ldb);
    if (transpose)
        unary_transpose_scalar(op, rows, cols, A, lda, E, ldb, stream);
    else
        unary_copy_scalar(op, rows, cols, a, lda, E, ldb);
    for (int64_t i = 0; i < bsize; i++)
        if (memcmp(&B[i], &E[i], sizeof(float)) != 0)
            ck_abort_msg("%s %s %s %lldx%lld%s: B[%lld] = %a, the twin gives %a", name,
                         transpose ? "transpose" : "copy", unary_op_name(op), (long long)rows, (long long)cols,
                         stream ? " stream" : "", (long long)i, (double)B[i], (double)E[i]);
    free(A);
    free(B);
    free(E);
}

/*
 * Every path's kernels called directly against the scalar twins: copies of
 * 1..4 rows by every width up to 70 (the 64-, 32-, 16- and 8-float steps and
 * their tails), transposes of every shape up to 33 x 33 (the 8 x 8 and
 * 16 x 16 register tiles, pairs of them and the edges), with and without
 * non-temporal stores.
 */
START_TEST(test_kernels_match_twins)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    uint64_t seed = 900;
    for (int ii = 0; ii < nisa; ii++) {
        const under_test u = { unary_kernels_for(isas[ii]), isas[ii], NULL };
        for (int o = 0; o < 3; o++)
            for (int64_t rows = 1; rows <= 4; rows++)
                for (int64_t cols = 1; cols <= 70; cols++)
                    kernel_case(&u, ops[o], 0, rows, cols, 0, seed++);
        for (int o = 1; o < 3; o++)
            for (int64_t rows = 1; rows <= 33; rows++)
                for (int64_t cols = 1; cols <= 33; cols++)
                    for (int stream = 0; stream < 2; stream++)
                        kernel_case(&u, ops[o], 1, rows, cols, stream, seed++);
    }
}
END_TEST

/*
 * Generated kernels of every path with a generator against the twins:
 * copies of 1, 2, 3 and 5 rows by every width up to 70 and some long rows
 * (the unrolled vectors, the loop of four, the masked tails), transposed
 * blocks of every shape up to 40 x 16 (full and edge tiles of 16, 8 and 4,
 * the edges done element by element), with and without non-temporal stores
 * (x86-64).
 */
START_TEST(test_generated_match_twins)
{
    static const struct {
        smm_isa isa;
        jit_writer writer;
    } paths[] = {
#if defined(__x86_64__)
        { SMM_ISA_AVX2, unary_jit_write_x86 },
        { SMM_ISA_AVX512, unary_jit_write_x86 },
#endif
#if defined(__aarch64__)
        { SMM_ISA_NEON, unary_jit_write_a64 },
#endif
    };
    static const int64_t long_rows[] = { 513, 1000, 2048 + 7 };
    uint64_t seed = 4400;
    int cases = 0;
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        if (!smm_isa_supported(paths[p].isa))
            continue;
        const int streams = paths[p].isa == SMM_ISA_NEON ? 1 : 2;
        const under_test u = { NULL, paths[p].isa, paths[p].writer };
        for (int o = 0; o < 3; o++) {
            for (int64_t rows = 1; rows <= 5; rows += rows == 3 ? 2 : 1)
                for (int64_t cols = 1; cols <= 70; cols++)
                    for (int stream = 0; stream < streams; stream++, cases++)
                        kernel_case(&u, ops[o], 0, rows, cols, stream, seed++);
            for (int i = 0; i < 3; i++, cases++)
                kernel_case(&u, ops[o], 0, 3, long_rows[i], streams - 1, seed++);
        }
        for (int o = 1; o < 3; o++)
            for (int64_t rows = 1; rows <= 40; rows++)
                for (int64_t cols = 1; cols <= 16; cols++)
                    for (int stream = 0; stream < streams; stream++, cases++)
                        kernel_case(&u, ops[o], 1, rows, cols, stream, seed++);
    }
    printf("unary: %d generated kernels checked against the scalar twins\n", cases);
}
END_TEST

START_TEST(test_large_transposes)
{
    /* B of >= 2^18 elements, aligned: the non-temporal store path; plus the same shapes unaligned */
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        for (int threads = 1; threads <= 2; threads++) {
            ck_assert_int_eq(smm_set_num_threads(threads), SMM_OK);
            for (int o = 1; o < 3; o++)
                for (int l = 0; l < 2; l++)
                    for (int aligned = 0; aligned < 2; aligned++)
                        check_case(ops[o], SMM_TRANS, layouts[l], 523, 1037, (uint64_t)(77 + 10 * o + l),
                                   smm_isa_name(isas[ii]), aligned);
            check_case(UNARY_RELU, SMM_TRANS, SMM_ROW_MAJOR, 1024, 512, 5, smm_isa_name(isas[ii]), 1);
        }
    }
    test_restore_defaults();
}
END_TEST

START_TEST(test_relu_special_values)
{
    /* every special value in every position of a 16 x 16 tile, both directions */
    const float in[] = { NAN, -NAN, -0.0f, 0.0f, INFINITY, -INFINITY, -1e-40f /* subnormal */, 1e-40f, -3.5f, 2.25f };
    const int nin = (int)(sizeof in / sizeof in[0]);
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        for (int t = 0; t < 2; t++) {
            float A[24 * 24], B[24 * 24];
            for (int i = 0; i < 24 * 24; i++)
                A[i] = in[i % nin];
            ck_assert_int_eq(unary_apply(UNARY_RELU, SMM_ROW_MAJOR, transes[t], 24, 24, A, 24, B, 24), SMM_OK);
            for (int i = 0; i < 24; i++)
                for (int j = 0; j < 24; j++) {
                    const float x = transes[t] == SMM_TRANS ? A[j * 24 + i] : A[i * 24 + j];
                    const float y = B[i * 24 + j];
                    if (isnan(x)) {
                        uint32_t bx, by;
                        memcpy(&bx, &x, 4);
                        memcpy(&by, &y, 4);
                        ck_assert_msg(bx == by, "%s: NaN not propagated bit for bit", smm_isa_name(isas[ii]));
                    } else if (x < 0.0f) {
                        ck_assert_msg(y == 0.0f && !signbit(y), "%s: relu(%a) = %a", smm_isa_name(isas[ii]),
                                      (double)x, (double)y);
                    } else {
                        ck_assert_msg(memcmp(&x, &y, 4) == 0, "%s: relu(%a) = %a", smm_isa_name(isas[ii]), (double)x,
                                      (double)y);
                    }
                }
        }
    }
    test_restore_defaults();
}
END_TEST

START_TEST(test_in_place_copy)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int ii = 0; ii < nisa; ii++) {
        ck_assert_int_eq(smm_set_isa(isas[ii]), SMM_OK);
        float X[9 * 11], Y[9 * 11];
        uint64_t rng = 7;
        fill_special(X, 9 * 11, &rng);
        memcpy(Y, X, sizeof X);
        ck_assert_int_eq(unary_apply(UNARY_RELU, SMM_COL_MAJOR, SMM_NO_TRANS, 7, 11, X, 9, X, 9), SMM_OK);
        for (int c = 0; c < 11; c++)
            for (int r = 0; r < 9; r++) {
                const float want = r < 7 ? ref_op(UNARY_RELU, Y[c * 9 + r]) : Y[c * 9 + r];
                ck_assert(memcmp(&want, &X[c * 9 + r], 4) == 0);
            }
        ck_assert_int_eq(unary_apply(UNARY_IDENTITY, SMM_ROW_MAJOR, SMM_NO_TRANS, 9, 11, X, 11, X, 11), SMM_OK);
    }
    test_restore_defaults();
}
END_TEST

START_TEST(test_errors_leave_b_untouched)
{
    float A[64], B[64], keep[64];
    for (int i = 0; i < 64; i++)
        A[i] = (float)i - 30.0f, B[i] = keep[i] = -7.0f;
#define EXPECT(call, want)                                                                                             \
    do {                                                                                                               \
        ck_assert_int_eq((call), (want));                                                                              \
        ck_assert(memcmp(B, keep, sizeof B) == 0);                                                                     \
    } while (0)
    EXPECT(unary_apply((unary_op)3, SMM_ROW_MAJOR, SMM_NO_TRANS, 2, 2, A, 2, B, 2), SMM_ERR_BAD_ARGUMENT);
    EXPECT(unary_apply((unary_op)-1, SMM_ROW_MAJOR, SMM_NO_TRANS, 2, 2, A, 2, B, 2), SMM_ERR_BAD_ARGUMENT);
    EXPECT(unary_apply(UNARY_IDENTITY, (smm_layout)0, SMM_NO_TRANS, 2, 2, A, 2, B, 2), SMM_ERR_BAD_LAYOUT);
    EXPECT(unary_apply(UNARY_IDENTITY, SMM_ROW_MAJOR, (smm_trans)0, 2, 2, A, 2, B, 2), SMM_ERR_BAD_TRANS);
    EXPECT(unary_apply(UNARY_ZERO, SMM_ROW_MAJOR, (smm_trans)0, 2, 2, NULL, 0, B, 2), SMM_ERR_BAD_TRANS);
    EXPECT(unary_apply(UNARY_IDENTITY, SMM_ROW_MAJOR, SMM_NO_TRANS, -1, 2, A, 2, B, 2), SMM_ERR_BAD_SIZE);
    EXPECT(unary_apply(UNARY_ZERO, SMM_COL_MAJOR, SMM_NO_TRANS, 2, -1, A, 2, B, 2), SMM_ERR_BAD_SIZE);
    /* leading dimensions: B m x n; A n x m when transposed */
    EXPECT(unary_apply(UNARY_IDENTITY, SMM_ROW_MAJOR, SMM_NO_TRANS, 2, 3, A, 3, B, 2), SMM_ERR_BAD_LEADING_DIM);
    EXPECT(unary_apply(UNARY_ZERO, SMM_COL_MAJOR, SMM_NO_TRANS, 3, 2, NULL, 0, B, 2), SMM_ERR_BAD_LEADING_DIM);
    EXPECT(unary_apply(UNARY_IDENTITY, SMM_ROW_MAJOR, SMM_NO_TRANS, 2, 3, A, 2, B, 3), SMM_ERR_BAD_LEADING_DIM);
    EXPECT(unary_apply(UNARY_RELU, SMM_ROW_MAJOR, SMM_TRANS, 2, 3, A, 1, B, 3), SMM_ERR_BAD_LEADING_DIM);
    EXPECT(unary_apply(UNARY_RELU, SMM_COL_MAJOR, SMM_TRANS, 2, 3, A, 2, B, 2), SMM_ERR_BAD_LEADING_DIM);
    EXPECT(unary_apply(UNARY_IDENTITY, SMM_ROW_MAJOR, SMM_NO_TRANS, 0, 0, A, 0, B, 1), SMM_ERR_BAD_LEADING_DIM);
    /* NULL pointers */
    EXPECT(unary_apply(UNARY_IDENTITY, SMM_ROW_MAJOR, SMM_NO_TRANS, 2, 2, NULL, 2, B, 2), SMM_ERR_NULL_POINTER);
    EXPECT(unary_apply(UNARY_RELU, SMM_ROW_MAJOR, SMM_TRANS, 2, 2, NULL, 2, B, 2), SMM_ERR_NULL_POINTER);
    EXPECT(unary_apply(UNARY_ZERO, SMM_ROW_MAJOR, SMM_NO_TRANS, 2, 2, A, 2, NULL, 2), SMM_ERR_NULL_POINTER);
    /* overlap: transposes never in place; copies only exactly in place */
    EXPECT(unary_apply(UNARY_IDENTITY, SMM_ROW_MAJOR, SMM_TRANS, 4, 4, B, 4, B, 4), SMM_ERR_BAD_ARGUMENT);
    EXPECT(unary_apply(UNARY_RELU, SMM_COL_MAJOR, SMM_TRANS, 4, 4, B + 8, 4, B, 4), SMM_ERR_BAD_ARGUMENT);
    EXPECT(unary_apply(UNARY_RELU, SMM_ROW_MAJOR, SMM_TRANS, 1, 1, B, 1, B, 1), SMM_ERR_BAD_ARGUMENT);
    EXPECT(unary_apply(UNARY_IDENTITY, SMM_ROW_MAJOR, SMM_NO_TRANS, 4, 4, B + 1, 4, B, 4), SMM_ERR_BAD_ARGUMENT);
    EXPECT(unary_apply(UNARY_IDENTITY, SMM_ROW_MAJOR, SMM_NO_TRANS, 4, 4, B, 5, B, 4), SMM_ERR_BAD_ARGUMENT);
    /* empty matrices: nothing to do, NULL allowed */
    EXPECT(unary_apply(UNARY_RELU, SMM_ROW_MAJOR, SMM_TRANS, 0, 5, NULL, 1, NULL, 5), SMM_OK);
    EXPECT(unary_apply(UNARY_IDENTITY, SMM_COL_MAJOR, SMM_NO_TRANS, 5, 0, NULL, 5, NULL, 5), SMM_OK);
    /* zero never reads A: NULL or garbage lda are fine */
    ck_assert_int_eq(unary_apply(UNARY_ZERO, SMM_ROW_MAJOR, SMM_TRANS, 4, 4, NULL, -3, B, 4), SMM_OK);
    for (int i = 0; i < 16; i++)
        ck_assert(B[i] == 0.0f && !signbit(B[i]));
    ck_assert(B[16] == -7.0f);
    /* an ISA path this CPU lacks: the selection error, B untouched */
    memcpy(B, keep, sizeof B);
    static const smm_isa all[] = { SMM_ISA_AVX2, SMM_ISA_AVX512, SMM_ISA_NEON };
    for (int i = 0; i < 3; i++)
        if (!smm_isa_supported(all[i])) {
            ck_assert_int_eq(smm_set_isa(all[i]), SMM_ERR_ISA_UNAVAILABLE);
            EXPECT(unary_apply(UNARY_IDENTITY, SMM_ROW_MAJOR, SMM_NO_TRANS, 2, 2, A, 2, B, 2),
                   SMM_ERR_ISA_UNAVAILABLE);
            ck_assert_str_eq(unary_kernel_name(), "unavailable");
            break;
        }
#undef EXPECT
    test_restore_defaults();
}
END_TEST

START_TEST(test_names)
{
    ck_assert_str_eq(unary_op_name(UNARY_ZERO), "zero");
    ck_assert_str_eq(unary_op_name(UNARY_IDENTITY), "identity");
    ck_assert_str_eq(unary_op_name(UNARY_RELU), "relu");
    ck_assert_ptr_null(unary_op_name((unary_op)9));
    ck_assert_int_eq(smm_set_isa(SMM_ISA_SCALAR), SMM_OK);
    ck_assert_str_eq(unary_kernel_name(), "scalar");
    /* with code generation on, the paths that have a generator name their generated kernels */
    static const struct {
        smm_isa isa;
        const char *generated, *precompiled;
    } paths[] = { { SMM_ISA_AVX2, "avx2_generated", "avx2" },
                  { SMM_ISA_AVX512, "avx512_generated", "avx512" },
                  { SMM_ISA_NEON, "neon_generated", "scalar" } };
    for (int i = 0; i < 3; i++) {
        if (!smm_isa_supported(paths[i].isa))
            continue;
        ck_assert_int_eq(smm_set_isa(paths[i].isa), SMM_OK);
        ck_assert_int_eq(smm_set_jit(1), SMM_OK);
        ck_assert_str_eq(unary_kernel_name(), paths[i].generated);
        ck_assert_int_eq(smm_set_jit(0), SMM_OK);
        ck_assert_str_eq(unary_kernel_name(), paths[i].precompiled);
    }
    test_restore_defaults();
}
END_TEST

static Suite *unary_suite(void)
{
    Suite *s = suite_create("unary");
    TCase *tc = tcase_create("reference");
    tcase_add_loop_test(tc, test_matches_reference, 0, NSHAPES);
    tcase_add_test(tc, test_kernels_match_twins);
    tcase_add_test(tc, test_generated_match_twins);
    tcase_add_test(tc, test_large_transposes);
    tcase_add_test(tc, test_relu_special_values);
    tcase_add_test(tc, test_in_place_copy);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);
    tc = tcase_create("arguments");
    tcase_add_test(tc, test_errors_leave_b_untouched);
    tcase_add_test(tc, test_names);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(unary_suite());
}
