/*
 * mat4.c - 4x4 matrix product, inverse and copy (sketchmm/mat4.h): the
 * argument checks, the kernel table and the batch driver. The kernels and
 * their contract are in mat4_kernels.h: the plain-C twins in mat4_scalar.c,
 * the ISA kernels in mat4_avx2.c, mat4_avx512.c and mat4_neon.c.
 */
#include <math.h>
#include <string.h>

#include "common/smm_runtime.h"
#include "exact/mat4_kernels.h"
#include "exact/tuning.h"
#include "sketchmm/mat4.h"

/* ---- the kernel table (common/smm_dispatch.h) ---- */

static const mat4_kernels table[SMM_ISA_COUNT] = {
    [SMM_ISA_SCALAR] = { { "scalar", 0 }, mat4_mul_f32_scalar, mat4_mul_f64_scalar, mat4_inv_f32_scalar,
                         mat4_inv_f64_scalar, mat4_inv1_f32_scalar, mat4_inv1_f64_scalar, mat4_regular_f32_portable,
                         mat4_regular_f64_portable },
#if defined(__x86_64__)
    [SMM_ISA_AVX2] = { { "avx2", 0 }, mat4_mul_f32_avx2, mat4_mul_f64_avx2, mat4_inv_f32_avx2, mat4_inv_f64_avx2,
                       mat4_inv1_f32_avx2, mat4_inv1_f64_avx2, mat4_regular_f32_portable, mat4_regular_f64_portable },
    /* single matrices: the AVX2 inverse (see mat4_avx512.c) */
    [SMM_ISA_AVX512] = { { "avx512", 0 }, mat4_mul_f32_avx512, mat4_mul_f64_avx512, mat4_inv_f32_avx512,
                         mat4_inv_f64_avx512, mat4_inv1_f32_avx2, mat4_inv1_f64_avx2, mat4_regular_f32_avx512,
                         mat4_regular_f64_avx512 },
#endif
#if defined(__aarch64__)
    /* NEON has no inverse of its own: the portable one */
    [SMM_ISA_NEON] = { { "neon", 0 }, mat4_mul_f32_neon, mat4_mul_f64_neon, mat4_inv_f32_scalar, mat4_inv_f64_scalar,
                       mat4_inv1_f32_scalar, mat4_inv1_f64_scalar, mat4_regular_f32_portable,
                       mat4_regular_f64_portable },
#endif
};

const mat4_kernels *mat4_kernels_for(smm_isa isa)
{
    return SMM_KERNELS_FOR(table, isa);
}

/* The row of the selected path, or NULL with the selection error in *status. */
static const mat4_kernels *current_kernels(smm_status *status)
{
    const int sel = smm_isa_now();
    *status = sel > 0 ? SMM_OK : (smm_status)(-sel);
    return sel > 0 ? mat4_kernels_for((smm_isa)sel) : NULL;
}

/*
 * The fast path of the single-matrix calls (a few ns each, so every
 * instruction shows): the path's own row when the selection is resolved and
 * that row needs no CPU feature beyond its path, which is what
 * SMM_KERNELS_FOR returns then, from one load of the selection and two of
 * the row. NULL otherwise (an unresolved or failed selection reads the
 * AUTO row, which is empty): the call then goes to its out-of-line twin
 * (mul_slow_<t>, inv_slow_<t>), which resolves the selection and the row in
 * full (current_kernels). With no call to make before its kernel's, the
 * fast path saves no registers: 40 instructions per mat4_mul_f32 against
 * 45 with the former if-chain (callgrind, AVX2).
 */
static inline const mat4_kernels *own_row_now(void)
{
    const int sel = atomic_load_explicit(&smm_isa_selection, memory_order_relaxed);
    const mat4_kernels *own = &table[sel > 0 ? sel : SMM_ISA_AUTO];
    return own->head.name != NULL && own->head.needs == 0 ? own : NULL;
}

const char *mat4_kernel_name(void)
{
    smm_status s;
    const mat4_kernels *k = current_kernels(&s);
    return k != NULL ? k->head.name : "unavailable";
}

/* ---- batches ---- */

/* Matrices per thread below which a batch runs on one thread. */
#define MAT4_MIN_PER_THREAD 4096

/*
 * 1 when the output (`bytes` bytes at out) overlaps one of the inputs in0,
 * in1 of the same size (pass a repeated one for a single input): the memory
 * spans of smm_runtime.h, one comparison per input.
 */
static inline int output_overlaps(const void *out, const void *in0, const void *in1, size_t bytes)
{
    return smm_equal_spans_overlap(out, in0, bytes) || smm_equal_spans_overlap(out, in1, bytes);
}

/*
 * count, the pointers (inputs p0 and p1, a repeated one for a single input;
 * output p2) and the output's overlap with the inputs, then the context.
 */
static smm_status check_batch(int64_t count, const void *p0, const void *p1, const void *p2, size_t elem,
                              smm_context *ctx)
{
    if (count < 0)
        return SMM_ERR_BAD_SIZE;
    if ((uint64_t)count > SIZE_MAX / (16 * elem) || count > INT64_MAX / 16)
        return SMM_ERR_OVERFLOW;
    if (count > 0 && (p0 == NULL || p1 == NULL || p2 == NULL))
        return SMM_ERR_NULL_POINTER;
    if (count > 0) { /* the general test (2 * bytes of smm_equal_spans_overlap may not fit): count x 16 matrices */
        const smm_span out = smm_matrix_span(SMM_ROW_MAJOR, count, 16, p2, 16, elem);
        if (smm_spans_overlap(out, smm_matrix_span(SMM_ROW_MAJOR, count, 16, p0, 16, elem)) ||
            smm_spans_overlap(out, smm_matrix_span(SMM_ROW_MAJOR, count, 16, p1, 16, elem)))
            return SMM_ERR_BAD_ARGUMENT;
    }
    return smm_context_current(ctx);
}

/* Threads for a batch of count matrices (at least 1). */
static int batch_threads(const smm_context *ctx, int64_t count)
{
    int64_t t = count / MAT4_MIN_PER_THREAD;
    if (t > ctx->threads)
        t = ctx->threads;
    return t < 1 ? 1 : (int)t;
}

/* [begin, end) of part p of n of count matrices. */
static inline void part_range(int64_t count, int p, int n, int64_t *begin, int64_t *end)
{
    *begin = count * p / n;
    *end = count * (p + 1) / n;
}

/*
 * One batch operation on matrices lo .. hi - 1, type-erased so that one
 * driver splits every batch among threads: run does the work, check (NULL:
 * none) returns 1 when every matrix of the range may be processed; all
 * checks happen before any work, so a failed check writes nothing.
 */
typedef struct batch_op {
    const mat4_kernels *k;
    const void *a, *b;
    void *c;
    void (*run)(const struct batch_op *op, int64_t lo, int64_t hi);
    int (*check)(const struct batch_op *op, int64_t lo, int64_t hi);
    int inverse; /* 1: an inverse, 0: a multiply (which path the configuration gives it) */
} batch_op;

static smm_status run_batch(const smm_context *ctx, int64_t count, const batch_op *op)
{
    const int nt = batch_threads(ctx, count);
    if (nt == 1) { /* no parallel region: its overhead is that of hundreds of matrices */
        if (op->check != NULL && !op->check(op, 0, count))
            return SMM_ERR_BAD_ARGUMENT;
        op->run(op, 0, count);
        return SMM_OK;
    }
    int ok = 1;
    if (op->check != NULL) {
#pragma omp parallel for num_threads(nt) schedule(static) reduction(&& : ok)
        for (int p = 0; p < nt; p++) {
            int64_t lo, hi;
            part_range(count, p, nt, &lo, &hi);
            ok = ok && op->check(op, lo, hi);
        }
    }
    if (!ok)
        return SMM_ERR_BAD_ARGUMENT;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int p = 0; p < nt; p++) {
        int64_t lo, hi;
        part_range(count, p, nt, &lo, &hi);
        if (hi > lo)
            op->run(op, lo, hi);
    }
    return SMM_OK;
}

/*
 * Check a batch call's arguments, then run op (its kernels filled in) over
 * the batch: the kernels of the path the active configuration gives the
 * operation on the call's path (exact/tuning.h: the path itself, or a
 * narrower SIMD path measured faster on this CPU; same bits).
 */
static smm_status batch(int64_t count, const void *a, const void *b, void *c, size_t elem, batch_op op)
{
    smm_context ctx;
    smm_status s = check_batch(count, a, b, c, elem, &ctx);
    if (s != SMM_OK || count == 0)
        return s;
    const mat4_op which = (mat4_op)((op.inverse ? MAT4_OP_INV_F32 : MAT4_OP_MUL_F32) + (elem == sizeof(double)));
    op.k = mat4_kernels_for(tuning_active()->params[ctx.isa].mat4[which]);
    op.a = a;
    op.b = b;
    op.c = c;
    return run_batch(&ctx, count, &op);
}

/* ---- the public functions, one body stamped out for float and double ---- */

#define MAT4_DEFINE_API(T, S)                                                                      \
    /* one matrix on row k */                                                                      \
    static inline smm_status mul_one_##S(const mat4_kernels *k, const T *a, const T *b, T *c)      \
    {                                                                                              \
        k->mul_##S(1, a, b, c);                                                                    \
        return SMM_OK;                                                                             \
    }                                                                                              \
    static inline smm_status inv_one_##S(const mat4_kernels *k, const T *a, T *inv)                \
    {                                                                                              \
        return k->inv1_##S(a, inv) ? SMM_OK : SMM_ERR_BAD_ARGUMENT;                                \
    }                                                                                              \
    /* the out-of-line twins of the single-matrix calls (own_row_now) */                           \
    static __attribute__((noinline, cold)) smm_status mul_slow_##S(const T *a, const T *b, T *c)   \
    {                                                                                              \
        smm_status s;                                                                              \
        const mat4_kernels *k = current_kernels(&s);                                               \
        return k != NULL ? mul_one_##S(k, a, b, c) : s;                                            \
    }                                                                                              \
    static __attribute__((noinline, cold)) smm_status inv_slow_##S(const T *a, T *inv)             \
    {                                                                                              \
        smm_status s;                                                                              \
        const mat4_kernels *k = current_kernels(&s);                                               \
        return k != NULL ? inv_one_##S(k, a, inv) : s;                                             \
    }                                                                                              \
    smm_status mat4_mul_##S(const T *a, const T *b, T *c)                                          \
    {                                                                                              \
        if (a == NULL || b == NULL || c == NULL)                                                   \
            return SMM_ERR_NULL_POINTER;                                                           \
        if (output_overlaps(c, a, b, 16 * sizeof(T)))                                              \
            return SMM_ERR_BAD_ARGUMENT;                                                           \
        const mat4_kernels *k = own_row_now();                                                     \
        return k != NULL ? mul_one_##S(k, a, b, c) : mul_slow_##S(a, b, c);                        \
    }                                                                                              \
    smm_status mat4_inv_##S(const T *a, T *inv)                                                    \
    {                                                                                              \
        if (a == NULL || inv == NULL)                                                              \
            return SMM_ERR_NULL_POINTER;                                                           \
        if (output_overlaps(inv, a, a, 16 * sizeof(T)))                                            \
            return SMM_ERR_BAD_ARGUMENT;                                                           \
        const mat4_kernels *k = own_row_now();                                                     \
        return k != NULL ? inv_one_##S(k, a, inv) : inv_slow_##S(a, inv);                          \
    }                                                                                              \
    smm_status mat4_copy_##S(const T *src, T *dst)                                                 \
    {                                                                                              \
        if (src == NULL || dst == NULL)                                                            \
            return SMM_ERR_NULL_POINTER;                                                           \
        if (output_overlaps(dst, src, src, 16 * sizeof(T)))                                        \
            return SMM_ERR_BAD_ARGUMENT;                                                           \
        memcpy(dst, src, 16 * sizeof(T));                                                          \
        return SMM_OK;                                                                             \
    }                                                                                              \
    static void run_mul_##S(const batch_op *op, int64_t lo, int64_t hi)                            \
    {                                                                                              \
        op->k->mul_##S(hi - lo, (const T *)op->a + 16 * lo, (const T *)op->b + 16 * lo,            \
                       (T *)op->c + 16 * lo);                                                      \
    }                                                                                              \
    static void run_inv_##S(const batch_op *op, int64_t lo, int64_t hi)                            \
    {                                                                                              \
        op->k->inv_##S(hi - lo, (const T *)op->a + 16 * lo, (T *)op->c + 16 * lo);                 \
    }                                                                                              \
    /* 1 when every determinant of a[lo .. hi) passes the criterion. */                            \
    static int all_regular_##S(const batch_op *op, int64_t lo, int64_t hi)                         \
    {                                                                                              \
        return op->k->regular_##S(hi - lo, (const T *)op->a + 16 * lo);                            \
    }                                                                                              \
    smm_status mat4_mul_batch_##S(int64_t count, const T *a, const T *b, T *c)                     \
    {                                                                                              \
        return batch(count, a, b, c, sizeof(T), (batch_op){ .run = run_mul_##S });                 \
    }                                                                                              \
    smm_status mat4_inv_batch_##S(int64_t count, const T *a, T *inv)                               \
    {                                                                                              \
        return batch(count, a, a, inv, sizeof(T),                                                  \
                     (batch_op){ .run = run_inv_##S, .check = all_regular_##S, .inverse = 1 });    \
    }                                                                                              \
    smm_status mat4_copy_batch_##S(int64_t count, const T *src, T *dst)                            \
    {                                                                                              \
        smm_context ctx;                                                                           \
        smm_status s = check_batch(count, src, src, dst, sizeof(T), &ctx);                         \
        if (s != SMM_OK || count == 0)                                                             \
            return s;                                                                              \
        memcpy(dst, src, (size_t)count * 16 * sizeof(T));                                          \
        return SMM_OK;                                                                             \
    }
MAT4_DEFINE_API(float, f32)
MAT4_DEFINE_API(double, f64)
