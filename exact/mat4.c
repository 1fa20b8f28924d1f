/*
 * mat4.c - 4x4 matrix product, inverse and copy (sketchmm/mat4.h): the
 * portable reference kernels, the argument checks and the dispatch to the
 * ISA kernels of mat4_avx2.c, mat4_avx512.c and mat4_neon.c.
 *
 * Kernel contract (every ISA): a batch kernel computes matrices
 * 0 .. count - 1 (16 contiguous row-major values each, count >= 1), inputs
 * and output do not overlap. Batch inverse kernels are only called on
 * batches whose determinants all passed mat4_det_ok_*; single-matrix
 * inverse kernels (inv1) apply that criterion themselves and write nothing
 * for a singular matrix. Both compute the determinant with
 * mat4_det_f32/_f64 of mat4_kernels.h, so the singular decision never
 * depends on the path.
 */
#include <math.h>
#include <string.h>

#include "common/smm_runtime.h"
#include "exact/mat4_kernels.h"
#include "sketchmm/mat4.h"

/* ---- portable reference, one body stamped out for float and double ---- */

/*
 * mat4_mul_<t>_scalar, mat4_inv_<t>_scalar, mat4_inv1_<t>_scalar (contracts
 * above), and mat4_adj_<t>: the adjugate of m (minors s, c from
 * mat4_det_<t>) times r = 1/det into inv.
 */
#define MAT4_DEFINE_SCALAR(T, S)                                                                   \
    static void mat4_mul_##S##_scalar(int64_t count, const T *restrict a, const T *restrict b,     \
                                      T *restrict c)                                               \
    {                                                                                              \
        for (int64_t t = 0; t < count; t++, a += 16, b += 16, c += 16)                             \
            for (int i = 0; i < 4; i++)                                                            \
                for (int j = 0; j < 4; j++)                                                        \
                    c[4 * i + j] = a[4 * i] * b[j] + a[4 * i + 1] * b[4 + j] + a[4 * i + 2] * b[8 + j] + \
                                   a[4 * i + 3] * b[12 + j];                                       \
    }                                                                                              \
    static inline void mat4_adj_##S(const T *restrict m, const T s[6], const T c[6], T r,          \
                                    T *restrict inv)                                               \
    {                                                                                              \
        inv[0] = (m[5] * c[5] - m[6] * c[4] + m[7] * c[3]) * r;                                    \
        inv[1] = (-m[1] * c[5] + m[2] * c[4] - m[3] * c[3]) * r;                                   \
        inv[2] = (m[13] * s[5] - m[14] * s[4] + m[15] * s[3]) * r;                                 \
        inv[3] = (-m[9] * s[5] + m[10] * s[4] - m[11] * s[3]) * r;                                 \
        inv[4] = (-m[4] * c[5] + m[6] * c[2] - m[7] * c[1]) * r;                                   \
        inv[5] = (m[0] * c[5] - m[2] * c[2] + m[3] * c[1]) * r;                                    \
        inv[6] = (-m[12] * s[5] + m[14] * s[2] - m[15] * s[1]) * r;                                \
        inv[7] = (m[8] * s[5] - m[10] * s[2] + m[11] * s[1]) * r;                                  \
        inv[8] = (m[4] * c[4] - m[5] * c[2] + m[7] * c[0]) * r;                                    \
        inv[9] = (-m[0] * c[4] + m[1] * c[2] - m[3] * c[0]) * r;                                   \
        inv[10] = (m[12] * s[4] - m[13] * s[2] + m[15] * s[0]) * r;                                \
        inv[11] = (-m[8] * s[4] + m[9] * s[2] - m[11] * s[0]) * r;                                 \
        inv[12] = (-m[4] * c[3] + m[5] * c[1] - m[6] * c[0]) * r;                                  \
        inv[13] = (m[0] * c[3] - m[1] * c[1] + m[2] * c[0]) * r;                                   \
        inv[14] = (-m[12] * s[3] + m[13] * s[1] - m[14] * s[0]) * r;                               \
        inv[15] = (m[8] * s[3] - m[9] * s[1] + m[10] * s[0]) * r;                                  \
    }                                                                                              \
    static void mat4_inv_##S##_scalar(int64_t count, const T *restrict a, T *restrict inv)         \
    {                                                                                              \
        for (int64_t t = 0; t < count; t++, a += 16, inv += 16) {                                  \
            T s[6], c[6];                                                                          \
            const T det = mat4_det_##S(a, s, c);                                                   \
            mat4_adj_##S(a, s, c, (T)1 / det, inv);                                                \
        }                                                                                          \
    }                                                                                              \
    static int mat4_inv1_##S##_scalar(const T *restrict a, T *restrict inv)                        \
    {                                                                                              \
        T s[6], c[6];                                                                              \
        const T det = mat4_det_##S(a, s, c);                                                       \
        if (!mat4_det_ok_##S(det))                                                                 \
            return 0;                                                                              \
        mat4_adj_##S(a, s, c, (T)1 / det, inv);                                                    \
        return 1;                                                                                  \
    }
MAT4_DEFINE_SCALAR(float, f32)
MAT4_DEFINE_SCALAR(double, f64)

/* ---- dispatch ---- */

typedef struct {
    const char *name;
    mat4_mul_f32_fn mul_f32;
    mat4_mul_f64_fn mul_f64;
    mat4_inv_f32_fn inv_f32;
    mat4_inv_f64_fn inv_f64;
    mat4_inv1_f32_fn inv1_f32;
    mat4_inv1_f64_fn inv1_f64;
    mat4_regular_f32_fn regular_f32;
    mat4_regular_f64_fn regular_f64;
} mat4_kernels;

static const mat4_kernels kernels_scalar = { "scalar", mat4_mul_f32_scalar, mat4_mul_f64_scalar,
                                             mat4_inv_f32_scalar, mat4_inv_f64_scalar,
                                             mat4_inv1_f32_scalar, mat4_inv1_f64_scalar,
                                             mat4_regular_f32_portable, mat4_regular_f64_portable };
#if defined(__x86_64__)
static const mat4_kernels kernels_avx2 = { "avx2", mat4_mul_f32_avx2, mat4_mul_f64_avx2,
                                           mat4_inv_f32_avx2, mat4_inv_f64_avx2,
                                           mat4_inv1_f32_avx2, mat4_inv1_f64_avx2,
                                           mat4_regular_f32_portable, mat4_regular_f64_portable };
/* single matrices: the AVX2 inverse (see mat4_avx512.c) */
static const mat4_kernels kernels_avx512 = { "avx512", mat4_mul_f32_avx512, mat4_mul_f64_avx512,
                                             mat4_inv_f32_avx512, mat4_inv_f64_avx512,
                                             mat4_inv1_f32_avx2, mat4_inv1_f64_avx2,
                                             mat4_regular_f32_avx512, mat4_regular_f64_avx512 };
#endif
#if defined(__aarch64__)
/* NEON has no inverse of its own: the portable one */
static const mat4_kernels kernels_neon = { "neon", mat4_mul_f32_neon, mat4_mul_f64_neon,
                                           mat4_inv_f32_scalar, mat4_inv_f64_scalar,
                                           mat4_inv1_f32_scalar, mat4_inv1_f64_scalar,
                                           mat4_regular_f32_portable, mat4_regular_f64_portable };
#endif

static const mat4_kernels *kernels_for(smm_isa isa)
{
#if defined(__x86_64__)
    if (isa == SMM_ISA_AVX512)
        return &kernels_avx512;
    if (isa == SMM_ISA_AVX2)
        return &kernels_avx2;
#endif
#if defined(__aarch64__)
    if (isa == SMM_ISA_NEON)
        return &kernels_neon;
#endif
    (void)isa;
    return &kernels_scalar;
}

/* The kernels of the selected path, or NULL with the selection error in *status (one inline load). */
static inline const mat4_kernels *current_kernels(smm_status *status)
{
    const int sel = smm_isa_now();
    *status = sel > 0 ? SMM_OK : (smm_status)(-sel);
    return sel > 0 ? kernels_for((smm_isa)sel) : NULL;
}

const char *mat4_kernel_name(void)
{
    smm_status s;
    const mat4_kernels *k = current_kernels(&s);
    return k != NULL ? k->name : "unavailable";
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

/* Check a batch call's arguments, then run op (its kernels filled in) over the batch. */
static smm_status batch(int64_t count, const void *a, const void *b, void *c, size_t elem, batch_op op)
{
    smm_context ctx;
    smm_status s = check_batch(count, a, b, c, elem, &ctx);
    if (s != SMM_OK || count == 0)
        return s;
    op.k = kernels_for(ctx.isa);
    op.a = a;
    op.b = b;
    op.c = c;
    return run_batch(&ctx, count, &op);
}

/* ---- the public functions, one body stamped out for float and double ---- */

#define MAT4_DEFINE_API(T, S)                                                                      \
    smm_status mat4_mul_##S(const T *a, const T *b, T *c)                                          \
    {                                                                                              \
        if (a == NULL || b == NULL || c == NULL)                                                   \
            return SMM_ERR_NULL_POINTER;                                                           \
        if (output_overlaps(c, a, b, 16 * sizeof(T)))                                              \
            return SMM_ERR_BAD_ARGUMENT;                                                           \
        smm_status s;                                                                              \
        const mat4_kernels *k = current_kernels(&s);                                               \
        if (k != NULL)                                                                             \
            k->mul_##S(1, a, b, c);                                                                \
        return s;                                                                                  \
    }                                                                                              \
    smm_status mat4_inv_##S(const T *a, T *inv)                                                    \
    {                                                                                              \
        if (a == NULL || inv == NULL)                                                              \
            return SMM_ERR_NULL_POINTER;                                                           \
        if (output_overlaps(inv, a, a, 16 * sizeof(T)))                                            \
            return SMM_ERR_BAD_ARGUMENT;                                                           \
        smm_status s;                                                                              \
        const mat4_kernels *k = current_kernels(&s);                                               \
        if (k == NULL)                                                                             \
            return s;                                                                              \
        return k->inv1_##S(a, inv) ? SMM_OK : SMM_ERR_BAD_ARGUMENT;                                \
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
                     (batch_op){ .run = run_inv_##S, .check = all_regular_##S });                  \
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
