/*
 * fuzz_api - libFuzzer target of the public API's argument validation and
 * its contract (sketchmm.h): one call per input, its arguments decoded from
 * the fuzz bytes.
 *
 * Input: byte 0 picks the call (OP_*), byte 1 the ISA path (auto, scalar,
 * avx2, avx512; one the CPU lacks falls back to scalar), then the call's
 * arguments, one byte each unless said otherwise (see the rd_* decoders):
 *   sizes           0..17 mostly; negative or huge (>= 2^61, so no matrix
 *                   with such a size fits in the address space) sometimes
 *   leading dims    the smallest valid one plus 0..3 mostly; one less, 0,
 *                   negative or huge sometimes
 *   layout / trans  valid mostly, an invalid enum value sometimes
 *   alpha / beta    small exact values (0, +-1, 2, 0.5, ...), NaN or Inf sometimes
 *   approx options  method (valid or not), bits, sketch_dim, seed,
 *                   num_threads (0 or 1, or invalid), candidates
 * and rare flags: a NULL pointer for one argument, a NaN or Inf in an input.
 * The bytes left over are the matrix values: x = (int8_t)byte / 16, so every
 * product below is exact in float (sums of at most 4 x 17 products of
 * multiples of 1/16 bounded by 8 need fewer than 24 bits), which makes exact
 * results predictable bit for bit.
 *
 * Buffers are allocated exactly as large as the arguments say the call may
 * touch (AddressSanitizer catches any access outside), padding between
 * leading dimension and row length holds sentinels, and a buffer the call
 * must reject before touching is allocated with 0 bytes. Threads: 1
 * (smm_set_num_threads(1)).
 *
 * The contract checked (FUZZ_CHECK traps on a violation):
 *   - the status is SMM_OK exactly when the arguments are valid by the
 *     header's rules (a model of them per call; where a header leaves the
 *     order of checks open, e.g. invalid options of a product that needs no
 *     sketch, either answer is accepted);
 *   - a non-OK status leaves every output untouched (bytes compared), but
 *     for *plan of the *_create calls, set to NULL (common.h);
 *   - inputs are never written; padding of outputs is never written;
 *   - SMM_OK writes finite values when the inputs are finite, and exactly
 *     the documented values where the header fixes them: exact_sgemm and
 *     brgemm against a reference, top-k selections (exact_topk, and
 *     approx_plan_topk with all columns as candidates) including the order
 *     of ties, the exact values of approximate top-k, unary_apply bit for
 *     bit, Hamming distances and cross-polytope matches, norms of
 *     sketch_encode, unused code bits 0, zero vectors giving zero codes;
 *   - the documented invariances: sketch codes and Hamming results the same
 *     on the scalar path, sketch codes the same in the other layout,
 *     approx_sgemm equal to approx_plan_create + approx_plan_multiply, and
 *     for the sketch families equal on the scalar path.
 */
#include "fuzz_common.h"

#include <float.h>
#include <math.h>

#include "sketchmm.h"

/* Largest buffer (elements) a valid small call can need; anything larger means a harness bug. */
#define FUZZ_MAX_EXTENT (1 << 21)

enum {
    OP_EXACT_SGEMM,
    OP_APPROX_SGEMM,
    OP_APPROX_PLAN,
    OP_EXACT_TOPK,
    OP_APPROX_TOPK,
    OP_SKETCH_ENCODE,
    OP_HAMMING,
    OP_HAMMING_TOPK,
    OP_CP_MATCHES,
    OP_UNARY,
    OP_BRGEMM,
    OP_MAT4,
    OP_MATRIX_ALLOC,
    OP_SKETCH_MISC,
    OP_COUNT
};

/* ------------------------------------------------------------------------ */
/* Decoding                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct {
    const uint8_t *p;
    size_t n, i;
} reader;

static uint8_t u8(reader *r)
{
    return r->i < r->n ? r->p[r->i++] : 0;
}

/* 1 with probability about 1/k (never on zero bytes, so short inputs decode to plain calls). */
static int rare(reader *r, int k)
{
    return u8(r) % k == (uint8_t)(k - 1);
}

static const int64_t NEG[8] = { -1, -2, -17, -(INT64_C(1) << 31), -(INT64_C(1) << 62), INT64_MIN, INT64_MIN + 1, -3 };
/* Each >= 2^61: a matrix with such a dimension (and another >= 1) has more than PTRDIFF_MAX bytes. */
static const int64_t HUGE_[8] = { INT64_C(1) << 61, (INT64_C(1) << 61) + 1, INT64_C(1) << 62, INT64_MAX,
                                  INT64_MAX - 1, (INT64_C(1) << 62) + 3, INT64_MAX - 15, INT64_C(3) << 61 };

static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t s;
    return __builtin_add_overflow(a, b, &s) ? (b > 0 ? INT64_MAX : INT64_MIN) : s;
}

static int64_t rd_dim(reader *r)
{
    uint8_t b = u8(r);
    if (b < 0xE0)
        return b % 18;
    return b < 0xF0 ? NEG[b & 7] : HUGE_[b & 7];
}

/* A leading dimension for lines of `inner` elements: valid, one short, or huge (>= 2^61, valid for a single line). */
static int64_t rd_ld(reader *r, int64_t inner)
{
    int64_t least = inner > 1 ? inner : 1;
    uint8_t b = u8(r);
    if (b < 0xC0)
        return sat_add(least, b & 3);
    if (b < 0xD0)
        return least - 1;
    if (b < 0xE0)
        return 0;
    return b < 0xF0 ? NEG[b & 7] : HUGE_[b & 7];
}

static smm_layout rd_layout(reader *r)
{
    static const int v[8] = { SMM_ROW_MAJOR, SMM_COL_MAJOR, SMM_ROW_MAJOR, SMM_COL_MAJOR,
                              SMM_ROW_MAJOR, SMM_COL_MAJOR, 0, SMM_COL_MAJOR + 1 };
    return (smm_layout)v[u8(r) & 7];
}

static smm_trans rd_trans(reader *r)
{
    static const int v[8] = { SMM_NO_TRANS, SMM_TRANS, SMM_NO_TRANS, SMM_TRANS,
                              SMM_NO_TRANS, SMM_TRANS, -1, SMM_TRANS + 1 };
    return (smm_trans)v[u8(r) & 7];
}

static int layout_ok(smm_layout l)
{
    return l == SMM_ROW_MAJOR || l == SMM_COL_MAJOR;
}

static int trans_ok(smm_trans t)
{
    return t == SMM_NO_TRANS || t == SMM_TRANS;
}

static float rd_scalar(reader *r)
{
    static const float v[16] = { 1.0f, 0.0f, -1.0f, 2.0f, 0.5f, -0.5f, 0.25f, 3.0f,
                                 -2.0f, 1.0f, -0.0f, 1.0f, 0.0f, 1.0f, NAN, INFINITY };
    return v[u8(r) & 15];
}

static int64_t rd_small(reader *r, int64_t n_or_less, int64_t n)
{
    /* a count relative to n: 1, 2, 3, n - 1, n, n + 1, 0, -1, ... (n may be huge or negative) */
    uint8_t b = u8(r);
    switch (b & 15) {
    case 0: return 1;
    case 1: return 2;
    case 2: return 3;
    case 3: return n_or_less;
    case 4: return n;
    case 5: return sat_add(n, 1);
    case 6: return 0;
    case 7: return -1;
    case 8: return n > 1 ? n - 1 : 1;
    case 9: return 5;
    case 10: return INT64_MAX;
    case 11: return INT64_MIN;
    default: return 1 + (b >> 4) % 17;
    }
}

static sketch_method rd_method(reader *r)
{
    uint8_t b = u8(r);
    if ((b & 15) < 12)
        return (sketch_method)(SKETCH_SIMHASH + (b & 15) % (SKETCH_MADDNESS - SKETCH_SIMHASH + 1));
    static const int bad[4] = { 0, SKETCH_MADDNESS + 1, -1, 1000 };
    return (sketch_method)bad[b & 3];
}

static int32_t rd_bits(reader *r)
{
    static const int32_t v[16] = { 1, 2, 3, 7, 63, 64, 65, 100, 128, 256, 511, 65535, 1024, 0, -1, 65536 };
    return v[u8(r) & 15];
}

/*
 * SKETCH_MAX_BITS only for vectors of dimension <= 2: 65535 bits of d = 17
 * take seconds per call under the sanitizers (the projections and, for
 * SimHash, 65535 x d hyperplane entries), and the checks run a call 3 times.
 */
static int32_t cap_bits(int32_t bits, int64_t d)
{
    return bits > 1024 && bits <= SKETCH_MAX_BITS && d > 2 ? 1024 : bits;
}

static int32_t rd_sketch_dim(reader *r)
{
    static const int32_t v[16] = { 1, 2, 3, 4, 7, 8, 16, 17, 32, 64, 100, 1000, 4096, 0, -1, APPROX_MAX_SKETCH_DIM + 1 };
    return v[u8(r) & 15];
}

static int bits_ok(int64_t bits)
{
    return bits >= 1 && bits <= SKETCH_MAX_BITS;
}

typedef struct {
    approx_options o;
    int null;       /* pass NULL (the defaults) */
    int32_t cand_code; /* candidates as decoded, resolved later against topk and n */
} opts_in;

static void rd_opts(reader *r, opts_in *in)
{
    approx_options_init(&in->o);
    in->null = rare(r, 16);
    in->o.method = rd_method(r);
    const int32_t bits = rd_bits(r), dim = rd_sketch_dim(r);
    in->o.size = sketch_method_uses_bits(in->o.method) ? bits : dim; /* 0: the method's default */
    in->o.seed = (uint64_t)u8(r) * UINT64_C(0x9E3779B97F4A7C15);
    static const int32_t threads[8] = { 0, 1, 0, 1, 0, 1, -1, SMM_MAX_THREADS + 1 };
    in->o.num_threads = threads[u8(r) & 7];
    in->cand_code = u8(r);
}

/* candidates from the decoded code, for a top-k of topk among n */
static int32_t resolve_candidates(int32_t code, int64_t topk, int64_t n)
{
    int64_t v;
    switch (code & 15) {
    case 0: case 1: case 2: case 3: v = 0; break;
    case 4: v = n; break;
    case 5: v = topk; break;
    case 6: v = sat_add(topk, -1); break;
    case 7: v = sat_add(n, 1); break;
    case 8: v = -1; break;
    case 9: v = INT32_MAX; break;
    default: v = sat_add(topk, (code >> 4) % 8); break;
    }
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

/* The options the call sees: NULL means APPROX_OPTIONS_INIT. */
static approx_options effective_opts(const opts_in *in)
{
    approx_options d = APPROX_OPTIONS_INIT;
    return in->null ? d : in->o;
}

/*
 * Whether the options are valid for an op(B) of k x n (approx_check_options; the candidates' range is a
 * top-k matter): the method's limits as approx.h states them (pq: M <= min(k, 4096), maddness: C <= min(k,
 * 256), both at least 16 columns).
 */
/* The size a method runs with: size 0 is its default (approx.h: 256 bits, s = 64). */
static int32_t resolved_size(const approx_options *o)
{
    return o->size != 0 ? o->size : sketch_method_uses_bits(o->method) ? 256 : 64;
}

static int opts_ok(const approx_options *o, int64_t k, int64_t n)
{
    if (sketch_method_name(o->method) == NULL)
        return 0;
    const int32_t size = resolved_size(o);
    if (sketch_method_uses_bits(o->method) ? !bits_ok(size) : (size < 1 || size > APPROX_MAX_SKETCH_DIM))
        return 0;
    if (o->method == SKETCH_PQ && (size > k || size > 4096 || n < 16))
        return 0;
    if (o->method == SKETCH_MADDNESS && (size > k || size > 256 || n < 16))
        return 0;
    /* candidates: a count, checked against topk and n by the top-k calls; negative is bad anywhere */
    return o->num_threads >= 0 && o->num_threads <= SMM_MAX_THREADS && o->candidates >= 0;
}

/* approx_check_sizes agrees with the call that ran on valid arguments and finite data: status s. */
static void check_sizes_agrees(const approx_options *op, int64_t k, int64_t n, smm_status s, const char *call)
{
    if (k < 1 || n < 1)
        return;
    char msg[256];
    const smm_status predicted = approx_check_sizes(op, k, n, msg, sizeof msg);
    FUZZ_CHECK(predicted == SMM_OK ? s != SMM_ERR_BAD_ARGUMENT && s != SMM_ERR_BAD_SIZE && s != SMM_ERR_BAD_METHOD &&
                                         s != SMM_ERR_BAD_BITS && s != SMM_ERR_BAD_THREADS
                                   : s == predicted && msg[0] != '\0',
               "%s returned %d, approx_check_sizes %d ('%s')", call, (int)s, (int)predicted, msg);
}

/* The matrix values: the bytes left after the arguments, x = (int8_t)byte / 16. */
typedef struct {
    const uint8_t *p;
    size_t n;
    uint64_t k;
} values;

static uint8_t next_byte(values *v)
{
    uint8_t b;
    if (v->n > 0)
        b = (uint8_t)(v->p[v->k % v->n] ^ (uint8_t)((v->k / v->n) * 0x9d));
    else
        b = (uint8_t)(v->k * 0x3b + 0x11);
    v->k++;
    return b;
}

static float next_val(values *v)
{
    return (float)(int8_t)next_byte(v) / 16.0f;
}

/* ------------------------------------------------------------------------ */
/* Matrices as the library sees them                                        */
/* ------------------------------------------------------------------------ */

static const uint32_t PAD_BITS = 0x7fedcba9u;  /* a quiet NaN in padding and unwritten outputs */
static const uint32_t CNAN_BITS = 0x7fc0f00du; /* a quiet NaN in C when beta == 0 (must not reach the result) */

typedef struct {
    int64_t rows, cols, ld;
    int row_major;
    size_t elem;
    int invalid;   /* a negative size, a leading dimension too small, or too large to address */
    int oversize;  /* more than PTRDIFF_MAX bytes */
    int empty;     /* no elements */
    size_t extent; /* elements from the first to the last one addressed (0 when invalid or empty) */
    unsigned char *buf;
    void *ptr;     /* what the call gets: buf, or NULL */
    unsigned char *copy;
} fmat;

/* The model of smm_check_matrix (exact/smm_runtime.h), whose rules every header states. */
static void mat_init(fmat *m, smm_layout layout, int64_t rows, int64_t cols, int64_t ld, size_t elem)
{
    memset(m, 0, sizeof *m);
    m->rows = rows;
    m->cols = cols;
    m->ld = ld;
    m->elem = elem;
    m->row_major = layout != SMM_COL_MAJOR;
    if (rows < 0 || cols < 0) {
        m->invalid = 1;
        return;
    }
    const int64_t inner = m->row_major ? cols : rows, outer = m->row_major ? rows : cols;
    if (ld < (inner > 1 ? inner : 1)) {
        m->invalid = 1;
        return;
    }
    if (rows == 0 || cols == 0) {
        m->empty = 1;
        return;
    }
    __int128 extent = (__int128)(outer - 1) * ld + inner;
    if (extent > (__int128)(PTRDIFF_MAX / elem)) {
        m->invalid = m->oversize = 1;
        return;
    }
    m->extent = (size_t)extent;
}

static size_t at(const fmat *m, int64_t r, int64_t c)
{
    return m->row_major ? (size_t)(r * m->ld + c) : (size_t)(r + c * m->ld);
}

static int is_elem(const fmat *m, size_t o)
{
    return (int64_t)(o % (size_t)m->ld) < (m->row_major ? m->cols : m->rows);
}

/* Allocate extent elements (0 bytes for an invalid or empty matrix); NULL passed when null. 0 on success. */
static int mat_alloc(fmat *m, int null)
{
    if (m->extent > FUZZ_MAX_EXTENT)
        return -1;
    size_t bytes = m->extent * m->elem;
    m->buf = malloc(bytes > 0 ? bytes : 1);
    if (bytes == 0) {
        free(m->buf);
        m->buf = malloc(0); /* any access is out of bounds */
        if (m->buf == NULL)
            m->buf = malloc(1);
    }
    FUZZ_CHECK(m->buf != NULL, "out of memory");
    m->ptr = null ? NULL : m->buf;
    return 0;
}

static void mat_free(fmat *m)
{
    free(m->buf);
    free(m->copy);
    m->buf = m->copy = NULL;
}

/* Whether a call may take this matrix: valid, and non-NULL unless empty. */
static int mat_ok(const fmat *m)
{
    return !m->invalid && (m->ptr != NULL || m->empty);
}

static float *F(const fmat *m)
{
    return (float *)m->buf;
}

/* Fill a float matrix: elements from v (or CNAN when nan_elems), padding PAD. */
static void fill_f32(fmat *m, values *v, int nan_elems)
{
    for (size_t o = 0; o < m->extent; o++) {
        uint32_t bits = PAD_BITS;
        if (is_elem(m, o)) {
            if (nan_elems) {
                bits = CNAN_BITS;
            } else {
                float x = next_val(v);
                memcpy(&bits, &x, 4);
            }
        }
        memcpy(m->buf + o * 4, &bits, 4);
    }
}

static void snapshot(fmat *m)
{
    size_t bytes = m->extent * m->elem;
    m->copy = malloc(bytes > 0 ? bytes : 1);
    FUZZ_CHECK(m->copy != NULL, "out of memory");
    if (bytes > 0)
        memcpy(m->copy, m->buf, bytes);
}

static int unchanged(const fmat *m)
{
    return m->extent == 0 || memcmp(m->buf, m->copy, m->extent * m->elem) == 0;
}

/* Padding (and only padding) compared with the snapshot. */
static int padding_unchanged(const fmat *m)
{
    for (size_t o = 0; o < m->extent; o++)
        if (!is_elem(m, o) && memcmp(m->buf + o * m->elem, m->copy + o * m->elem, m->elem) != 0)
            return 0;
    return 1;
}

/* A NaN or Inf at element `which` of a non-empty valid matrix; 1 when placed. */
static int inject(fmat *m, uint8_t which, uint8_t kind)
{
    if (m->invalid || m->empty)
        return 0;
    int64_t elems = m->rows * m->cols, e = which % elems;
    static const float bad[4] = { NAN, INFINITY, -INFINITY, NAN };
    F(m)[at(m, e / m->cols, e % m->cols)] = bad[kind & 3];
    return 1;
}

/* Element (i, t) of op(X) for X stored in m. */
static float op_el(const fmat *m, smm_trans t, int64_t i, int64_t j)
{
    return t == SMM_TRANS ? F(m)[at(m, j, i)] : F(m)[at(m, i, j)];
}

/* Select the ISA path of this input (always succeeds: a path the CPU lacks falls back to scalar). */
static smm_isa the_isa;

static void set_isa(smm_isa isa)
{
    smm_status s = smm_set_isa(isa);
    FUZZ_CHECK(s == SMM_OK, "smm_set_isa(%d) = %d", (int)isa, (int)s);
}

static void select_isa(uint8_t b)
{
    static const smm_isa v[4] = { SMM_ISA_AUTO, SMM_ISA_SCALAR, SMM_ISA_AVX2, SMM_ISA_AVX512 };
    the_isa = v[b & 3];
    if (!smm_isa_supported(the_isa))
        the_isa = SMM_ISA_SCALAR;
    set_isa(the_isa);
}

/* The expected outcome: must succeed, must fail, or either (the header leaves it open). */
enum { EXPECT_OK, EXPECT_FAIL, EXPECT_EITHER };

static void check_status(smm_status s, int expect, const char *call)
{
    FUZZ_CHECK(smm_status_str(s) != NULL, "no text for status %d", (int)s);
    if (expect == EXPECT_OK)
        FUZZ_CHECK(s == SMM_OK, "%s: valid arguments, status %d (%s)", call, (int)s, smm_status_str(s));
    else if (expect == EXPECT_FAIL)
        FUZZ_CHECK(s != SMM_OK, "%s: invalid arguments accepted", call);
}

/* ------------------------------------------------------------------------ */
/* exact_sgemm, approx_sgemm, plans                                         */
/* ------------------------------------------------------------------------ */

typedef struct {
    smm_layout layout;
    smm_trans ta, tb;
    int64_t m, n, k;
    float alpha, beta;
    fmat A, B, C;
    int nonfinite; /* a NaN or Inf was put into A or B */
} gemm_args;

/* Decode and allocate; 0 on success, -1 to skip the input. */
static int gemm_setup(reader *r, values *v, gemm_args *g)
{
    g->layout = rd_layout(r);
    g->ta = rd_trans(r);
    g->tb = rd_trans(r);
    g->m = rd_dim(r);
    g->n = rd_dim(r);
    g->k = rd_dim(r);
    const int rm = g->layout != SMM_COL_MAJOR;
    const int64_t ar = g->ta == SMM_TRANS ? g->k : g->m, ac = g->ta == SMM_TRANS ? g->m : g->k;
    const int64_t br = g->tb == SMM_TRANS ? g->n : g->k, bc = g->tb == SMM_TRANS ? g->k : g->n;
    int64_t lda = rd_ld(r, rm ? ac : ar), ldb = rd_ld(r, rm ? bc : br), ldc = rd_ld(r, rm ? g->n : g->m);
    g->alpha = rd_scalar(r);
    g->beta = rd_scalar(r);
    int null = rare(r, 8) ? 1 + u8(r) % 3 : 0;
    uint8_t inj = rare(r, 12) ? 1 + u8(r) % 2 : 0, where = u8(r), kind = u8(r);
    mat_init(&g->A, g->layout, ar, ac, lda, 4);
    mat_init(&g->B, g->layout, br, bc, ldb, 4);
    mat_init(&g->C, g->layout, g->m, g->n, ldc, 4);
    if (mat_alloc(&g->A, null == 1) || mat_alloc(&g->B, null == 2) || mat_alloc(&g->C, null == 3))
        return -1;
    fill_f32(&g->A, v, 0);
    fill_f32(&g->B, v, 0);
    fill_f32(&g->C, v, g->beta == 0.0f);
    g->nonfinite = inj == 1 ? inject(&g->A, where, kind) : inj == 2 ? inject(&g->B, where, kind) : 0;
    snapshot(&g->A);
    snapshot(&g->B);
    snapshot(&g->C);
    return 0;
}

static void gemm_free(gemm_args *g)
{
    mat_free(&g->A);
    mat_free(&g->B);
    mat_free(&g->C);
}

/* layout, both transposes, A and B valid (top-k takes no C) */
static int ab_ok(const gemm_args *g)
{
    return layout_ok(g->layout) && trans_ok(g->ta) && trans_ok(g->tb) && mat_ok(&g->A) && mat_ok(&g->B);
}

static int gemm_args_ok(const gemm_args *g)
{
    return ab_ok(g) && mat_ok(&g->C);
}

/* C0 (the snapshot) at (i, j) as a float. */
static float c0(const fmat *C, int64_t i, int64_t j)
{
    float x;
    memcpy(&x, C->copy + at(C, i, j) * 4, 4);
    return x;
}

/* The checks after the call that the output is as the contract says (not the values of approx). */
static void gemm_common_checks(const gemm_args *g, smm_status s, const char *call)
{
    FUZZ_CHECK(unchanged(&g->A) && unchanged(&g->B), "%s wrote to an input", call);
    if (s != SMM_OK) {
        FUZZ_CHECK(unchanged(&g->C), "%s failed (%d) but changed C", call, (int)s);
        return;
    }
    FUZZ_CHECK(padding_unchanged(&g->C), "%s wrote into the padding of C (ldc)", call);
}

/* Exact reference of alpha op(A) op(B) + beta C0 at (i, j) (exact for the values used, see the top). */
static double gemm_ref(const gemm_args *g, int64_t i, int64_t j)
{
    double acc = 0.0;
    for (int64_t t = 0; t < g->k; t++)
        acc += (double)op_el(&g->A, g->ta, i, t) * (double)op_el(&g->B, g->tb, t, j);
    double cc = g->beta == 0.0f ? 0.0 : (double)g->beta * (double)c0(&g->C, i, j);
    return (g->k == 0 || g->alpha == 0.0f ? 0.0 : (double)g->alpha * acc) + cc;
}

static void op_exact_sgemm(reader *r, values *v)
{
    gemm_args g;
    if (gemm_setup(r, v, &g) == 0) {
        smm_status s = exact_sgemm(g.layout, g.ta, g.tb, g.m, g.n, g.k, g.alpha, g.A.ptr, g.A.ld, g.B.ptr, g.B.ld,
                                   g.beta, g.C.ptr, g.C.ld);
        check_status(s, gemm_args_ok(&g) ? EXPECT_OK : EXPECT_FAIL, "exact_sgemm");
        gemm_common_checks(&g, s, "exact_sgemm");
        if (s == SMM_OK && !g.nonfinite && isfinite(g.alpha) && isfinite(g.beta) && g.m > 0 && g.n > 0) {
            for (int64_t i = 0; i < g.m; i++)
                for (int64_t j = 0; j < g.n; j++) {
                    float got = F(&g.C)[at(&g.C, i, j)];
                    float want = (float)gemm_ref(&g, i, j);
                    FUZZ_CHECK(got == want, "exact_sgemm C(%lld, %lld) = %.9g, expected %.9g", (long long)i,
                               (long long)j, (double)got, (double)want);
                }
        }
    }
    gemm_free(&g);
}

/* Every element of C finite; and C = beta C0 exactly when the product is skipped (k == 0, alpha == 0). */
static void approx_value_checks(const gemm_args *g, const char *call)
{
    if (g->nonfinite || !isfinite(g->alpha) || !isfinite(g->beta) || g->m == 0 || g->n == 0)
        return; /* (m or n may be huge when the other is 0) */
    for (int64_t i = 0; i < g->m; i++)
        for (int64_t j = 0; j < g->n; j++) {
            float got = F(&g->C)[at(&g->C, i, j)];
            FUZZ_CHECK(isfinite(got), "%s: C(%lld, %lld) = %g from finite inputs", call, (long long)i,
                       (long long)j, (double)got);
            if (g->k == 0 || g->alpha == 0.0f) {
                float want = (float)gemm_ref(g, i, j);
                FUZZ_CHECK(got == want, "%s: C(%lld, %lld) = %.9g, beta C = %.9g", call, (long long)i, (long long)j,
                           (double)got, (double)want);
            }
        }
}

/* A copy of C's snapshot, to run the same product again. */
static float *fresh_c(const gemm_args *g)
{
    float *c = malloc(g->C.extent > 0 ? g->C.extent * 4 : 1);
    FUZZ_CHECK(c != NULL, "out of memory");
    if (g->C.extent > 0)
        memcpy(c, g->C.copy, g->C.extent * 4);
    return c;
}

static void op_approx_sgemm(reader *r, values *v)
{
    gemm_args g;
    opts_in oi;
    rd_opts(r, &oi);
    if (gemm_setup(r, v, &g) == 0) {
        if (sketch_method_uses_bits(oi.o.method))
            oi.o.size = cap_bits(oi.o.size, g.k);
        approx_options o = effective_opts(&oi);
        if (!oi.null)
            o.candidates = resolve_candidates(oi.cand_code, 1, g.n);
        const approx_options *op = oi.null ? NULL : &o;
        approx_phase_times t = { -1.0, -1.0, -1.0, -1.0 };
        approx_call call = APPROX_CALL_INIT;
        call.times = &t;
        smm_status s = approx_sgemm(g.layout, g.ta, g.tb, g.m, g.n, g.k, g.alpha, g.A.ptr, g.A.ld, g.B.ptr, g.B.ld,
                                    g.beta, g.C.ptr, g.C.ld, op, &call);
        const int trivial = g.m == 0 || g.n == 0 || g.k == 0 || g.alpha == 0.0f;
        int expect = EXPECT_OK;
        if (!gemm_args_ok(&g))
            expect = EXPECT_FAIL;
        else if (!opts_ok(&o, g.k, g.n) || g.nonfinite)
            expect = trivial ? EXPECT_EITHER : EXPECT_FAIL;
        check_status(s, expect, "approx_sgemm");
        if (gemm_args_ok(&g) && !trivial && !g.nonfinite)
            check_sizes_agrees(op, g.k, g.n, s, "approx_sgemm");
        gemm_common_checks(&g, s, "approx_sgemm");
        if (s == SMM_OK) {
            approx_value_checks(&g, "approx_sgemm");
            FUZZ_CHECK(t.encode_a >= 0 && t.encode_b >= 0 && t.estimate >= 0 && t.refine >= 0,
                       "approx_sgemm reported no phase times");
        }
        if (s == SMM_OK && !trivial) {
            /* the same product through a plan: exactly the same C */
            float *c2 = fresh_c(&g);
            approx_plan *plan = NULL;
            smm_status s2 = approx_plan_create(g.layout, g.tb, g.k, g.n, g.B.ptr, g.B.ld, op, NULL, &plan);
            FUZZ_CHECK(s2 == SMM_OK, "approx_plan_create refused what approx_sgemm accepted: %d", (int)s2);
            s2 = approx_plan_multiply(plan, g.layout, g.ta, g.m, g.alpha, g.A.ptr, g.A.ld, g.beta, c2, g.C.ld, NULL);
            FUZZ_CHECK(s2 == SMM_OK, "approx_plan_multiply refused what approx_sgemm accepted: %d", (int)s2);
            FUZZ_CHECK(memcmp(c2, g.C.buf, g.C.extent * 4) == 0,
                       "approx_plan_create + approx_plan_multiply differ from approx_sgemm (method %d)", (int)o.method);
            approx_plan_free(plan);
            /* the sketch families: the same bits on the scalar path */
            if (sketch_method_uses_bits(o.method) && the_isa != SMM_ISA_SCALAR) {
                memcpy(c2, g.C.copy, g.C.extent * 4);
                set_isa(SMM_ISA_SCALAR);
                s2 = approx_sgemm(g.layout, g.ta, g.tb, g.m, g.n, g.k, g.alpha, g.A.ptr, g.A.ld, g.B.ptr, g.B.ld,
                                  g.beta, c2, g.C.ld, op, NULL);
                set_isa(the_isa);
                FUZZ_CHECK(s2 == SMM_OK && memcmp(c2, g.C.buf, g.C.extent * 4) == 0,
                           "approx_sgemm (method %d) differs between ISA paths %d and scalar", (int)o.method,
                           (int)the_isa);
            }
            free(c2);
        }
    }
    gemm_free(&g);
}

/* ------------------------------------------------------------------------ */
/* Top-k                                                                    */
/* ------------------------------------------------------------------------ */

typedef struct {
    int64_t topk, ldk;
    fmat idx, val; /* m x topk, row-major, leading dimension ldk */
} topk_out;

static int topk_setup(reader *r, topk_out *t, int64_t m, int64_t n)
{
    t->topk = rd_small(r, n < 3 ? n : 3, n);
    t->ldk = rd_ld(r, t->topk);
    int null = rare(r, 8) ? 1 + u8(r) % 2 : 0;
    mat_init(&t->idx, SMM_ROW_MAJOR, m, t->topk, t->ldk, 8);
    mat_init(&t->val, SMM_ROW_MAJOR, m, t->topk, t->ldk, 4);
    if (mat_alloc(&t->idx, null == 1) || mat_alloc(&t->val, null == 2))
        return -1;
    memset(t->idx.buf, 0xa5, t->idx.extent * 8);
    for (size_t o = 0; o < t->val.extent; o++)
        memcpy(t->val.buf + o * 4, &PAD_BITS, 4);
    snapshot(&t->idx);
    snapshot(&t->val);
    return 0;
}

static void topk_free(topk_out *t)
{
    mat_free(&t->idx);
    mat_free(&t->val);
}

/* Whether topk, ldk and the output pointers are valid for m rows of a product with n columns. */
static int topk_args_ok(const topk_out *t, int64_t m, int64_t n)
{
    (void)m;
    return t->topk >= 1 && t->topk <= n && mat_ok(&t->idx) && mat_ok(&t->val);
}

/* The exact value of <op(A) row i, op(B) column j> (exact for the values used). */
static double dot_ref(const fmat *A, smm_trans ta, const fmat *B, smm_trans tb, int64_t k, int64_t i, int64_t j)
{
    double acc = 0.0;
    for (int64_t t = 0; t < k; t++)
        acc += (double)op_el(A, ta, i, t) * (double)op_el(B, tb, t, j);
    return acc;
}

/*
 * The checks of a successful top-k of m rows against n columns: each row lists
 * distinct columns, each value is the exact inner product, in decreasing value
 * with ties by smaller index; with `exact` the list is the true top-k.
 */
static void topk_checks(const topk_out *t, const fmat *A, smm_trans ta, const fmat *B, smm_trans tb, int64_t m,
                        int64_t n, int64_t k, int exact, const char *call)
{
    FUZZ_CHECK(padding_unchanged(&t->idx) && padding_unchanged(&t->val), "%s wrote beyond topk (ldk)", call);
    double *row = malloc((size_t)n * sizeof *row);
    int64_t *order = malloc((size_t)n * sizeof *order);
    FUZZ_CHECK(row != NULL && order != NULL, "out of memory");
    for (int64_t i = 0; i < m; i++) {
        for (int64_t j = 0; j < n; j++)
            row[j] = dot_ref(A, ta, B, tb, k, i, j);
        /* the true order: value descending, index ascending (insertion sort, n <= 17) */
        for (int64_t j = 0; j < n; j++) {
            int64_t x = j, p = j;
            while (p > 0 && (row[order[p - 1]] < row[x])) {
                order[p] = order[p - 1];
                p--;
            }
            order[p] = x;
        }
        const int64_t *idx = (const int64_t *)t->idx.buf + i * t->ldk;
        const float *val = (const float *)t->val.buf + i * t->ldk;
        for (int64_t q = 0; q < t->topk; q++) {
            FUZZ_CHECK(idx[q] >= 0 && idx[q] < n, "%s: row %lld entry %lld: column %lld of %lld", call,
                       (long long)i, (long long)q, (long long)idx[q], (long long)n);
            FUZZ_CHECK(val[q] == (float)row[idx[q]], "%s: row %lld column %lld: value %.9g, exact %.9g", call,
                       (long long)i, (long long)idx[q], (double)val[q], row[idx[q]]);
            for (int64_t p = 0; p < q; p++)
                FUZZ_CHECK(idx[p] != idx[q], "%s: row %lld lists column %lld twice", call, (long long)i,
                           (long long)idx[q]);
            if (q > 0)
                FUZZ_CHECK(val[q - 1] > val[q] || (val[q - 1] == val[q] && idx[q - 1] < idx[q]),
                           "%s: row %lld not in (value desc, index asc) order at %lld", call, (long long)i,
                           (long long)q);
            if (exact)
                FUZZ_CHECK(idx[q] == order[q], "%s: row %lld entry %lld is column %lld, the exact top-k has %lld",
                           call, (long long)i, (long long)q, (long long)idx[q], (long long)order[q]);
        }
    }
    free(row);
    free(order);
}

static void op_topk(reader *r, values *v, int approx)
{
    gemm_args g;
    opts_in oi;
    topk_out t;
    memset(&t, 0, sizeof t);
    rd_opts(r, &oi);
    if (gemm_setup(r, v, &g) == 0 && topk_setup(r, &t, g.m, g.n) == 0) {
        if (sketch_method_uses_bits(oi.o.method))
            oi.o.size = cap_bits(oi.o.size, g.k);
        approx_options o = effective_opts(&oi);
        if (!oi.null)
            o.candidates = resolve_candidates(oi.cand_code, t.topk, g.n);
        smm_status s;
        int expect = EXPECT_OK;
        if (!ab_ok(&g) || !topk_args_ok(&t, g.m, g.n))
            expect = EXPECT_FAIL;
        if (approx) {
            s = approx_topk(g.layout, g.ta, g.tb, g.m, g.n, g.k, g.A.ptr, g.A.ld, g.B.ptr, g.B.ld, t.topk, t.idx.ptr,
                            t.val.ptr, t.ldk, oi.null ? NULL : &o, NULL);
            int cand_ok = o.candidates == 0 || (o.candidates >= t.topk && o.candidates <= g.n);
            if (g.k < 1 || !opts_ok(&o, g.k, g.n) || !cand_ok)
                expect = EXPECT_FAIL; /* approx_plan_create needs k >= 1 */
            else if (g.nonfinite && expect == EXPECT_OK)
                expect = g.m == 0 ? EXPECT_EITHER : EXPECT_FAIL; /* no query: B is not sketched (approx_topk.c) */
        } else {
            s = exact_topk(g.layout, g.ta, g.tb, g.m, g.n, g.k, g.A.ptr, g.A.ld, g.B.ptr, g.B.ld, t.topk, t.idx.ptr,
                           t.val.ptr, t.ldk);
            if (expect == EXPECT_OK && (g.k == 0 || g.nonfinite))
                expect = EXPECT_EITHER;
        }
        const char *call = approx ? "approx_topk" : "exact_topk";
        check_status(s, expect, call);
        FUZZ_CHECK(unchanged(&g.A) && unchanged(&g.B) && unchanged(&g.C), "%s wrote to an input", call);
        if (s != SMM_OK)
            FUZZ_CHECK(unchanged(&t.idx) && unchanged(&t.val), "%s failed (%d) but wrote its outputs", call, (int)s);
        else if (!g.nonfinite) {
            int64_t cand = o.candidates != 0 ? o.candidates : (10 * t.topk < g.n ? 10 * t.topk : g.n);
            topk_checks(&t, &g.A, g.ta, &g.B, g.tb, g.m, g.n, g.k, !approx || cand >= g.n, call);
        }
    }
    topk_free(&t);
    gemm_free(&g);
}

/* A NaN or Inf among the elements (not the padding) of a valid matrix. */
static int has_nonfinite(const fmat *m)
{
    for (size_t o = 0; o < m->extent; o++)
        if (is_elem(m, o) && !isfinite(F(m)[o]))
            return 1;
    return 0;
}

/* approx_plan_create, approx_plan_info, approx_plan_multiply, approx_plan_topk, approx_plan_free. */
static void op_plan(reader *r, values *v)
{
    opts_in oi;
    gemm_args g; /* B and the plan from (layout, tb, k, n); A and C for the products from (m, ta) */
    topk_out t;
    memset(&t, 0, sizeof t);
    rd_opts(r, &oi);
    int plan_null = rare(r, 16);
    if (gemm_setup(r, v, &g) != 0 || topk_setup(r, &t, g.m, g.n) != 0) {
        topk_free(&t);
        gemm_free(&g);
        return;
    }
    if (sketch_method_uses_bits(oi.o.method))
        oi.o.size = cap_bits(oi.o.size, g.k);
    approx_options o = effective_opts(&oi);
    if (!oi.null)
        o.candidates = resolve_candidates(oi.cand_code, t.topk, g.n);
    const int nan_in_a = has_nonfinite(&g.A), nan_in_b = has_nonfinite(&g.B);

    approx_plan *plan = (approx_plan *)(uintptr_t)0x10; /* garbage the call must overwrite */
    smm_status s = approx_plan_create(g.layout, g.tb, g.k, g.n, g.B.ptr, g.B.ld, oi.null ? NULL : &o, NULL,
                                      plan_null ? NULL : &plan);
    int create_ok = layout_ok(g.layout) && trans_ok(g.tb) && g.k >= 1 && g.n >= 1 && mat_ok(&g.B) && opts_ok(&o, g.k, g.n) &&
                    !plan_null && !nan_in_b;
    check_status(s, create_ok ? EXPECT_OK : EXPECT_FAIL, "approx_plan_create");
    FUZZ_CHECK(unchanged(&g.B), "approx_plan_create wrote to B");
    if (s != SMM_OK) {
        FUZZ_CHECK(plan_null || plan == NULL, "approx_plan_create failed but did not set *plan to NULL");
        topk_free(&t);
        gemm_free(&g);
        return;
    }
    int64_t k2 = -1, n2 = -1;
    approx_options o2;
    approx_options_init(&o2);
    FUZZ_CHECK(approx_plan_info(plan, &k2, &n2, &o2) == SMM_OK && k2 == g.k && n2 == g.n && o2.method == o.method &&
                   o2.size == resolved_size(&o) && o2.seed == o.seed &&
                   o2.candidates == o.candidates,
               "approx_plan_info does not give back the plan's k, n and options");
    FUZZ_CHECK(approx_plan_info(NULL, NULL, NULL, NULL) == SMM_ERR_NULL_POINTER, "approx_plan_info(NULL)");

    /* the product: op(A) m x k in the plan's layout, C m x n */
    s = approx_plan_multiply(plan, g.layout, g.ta, g.m, g.alpha, g.A.ptr, g.A.ld, g.beta, g.C.ptr, g.C.ld, NULL);
    int expect = EXPECT_OK;
    if (!trans_ok(g.ta) || !mat_ok(&g.A) || !mat_ok(&g.C))
        expect = EXPECT_FAIL;
    else if (nan_in_a)
        expect = g.m == 0 || g.alpha == 0.0f ? EXPECT_EITHER : EXPECT_FAIL;
    check_status(s, expect, "approx_plan_multiply");
    gemm_common_checks(&g, s, "approx_plan_multiply");
    if (s == SMM_OK)
        approx_value_checks(&g, "approx_plan_multiply");

    /* top-k of the rows of op(A) */
    s = approx_plan_topk(plan, g.layout, g.ta, g.m, g.A.ptr, g.A.ld, t.topk, t.idx.ptr, t.val.ptr, t.ldk, NULL);
    int cand_ok = o.candidates == 0 || (o.candidates >= t.topk && o.candidates <= g.n);
    expect = EXPECT_OK;
    if (!trans_ok(g.ta) || !mat_ok(&g.A) || !topk_args_ok(&t, g.m, g.n) || !cand_ok)
        expect = EXPECT_FAIL;
    else if (nan_in_a)
        expect = g.m == 0 ? EXPECT_EITHER : EXPECT_FAIL;
    check_status(s, expect, "approx_plan_topk");
    FUZZ_CHECK(unchanged(&g.A), "approx_plan_topk wrote to A");
    if (s != SMM_OK) {
        FUZZ_CHECK(unchanged(&t.idx) && unchanged(&t.val), "approx_plan_topk failed (%d) but wrote its outputs", (int)s);
    } else {
        int64_t cand = o.candidates != 0 ? o.candidates : (10 * t.topk < g.n ? 10 * t.topk : g.n);
        topk_checks(&t, &g.A, g.ta, &g.B, g.tb, g.m, g.n, g.k, cand >= g.n, "approx_plan_topk");
    }
    approx_plan_free(plan);
    approx_plan_free(NULL);
    topk_free(&t);
    gemm_free(&g);
}

/* ------------------------------------------------------------------------ */
/* Sketches                                                                 */
/* ------------------------------------------------------------------------ */

/* A code method (a sketch family), an unknown value, or a linear sketch (no codes: SKETCH_GAUSSIAN_PROJECTION). */
static sketch_method rd_family(reader *r)
{
    static const int v[8] = { SKETCH_SIMHASH, SKETCH_SIMHASH_ORTHOGONAL, SKETCH_SIMHASH_STRUCTURED,
                              SKETCH_CROSSPOLYTOPE, SKETCH_SIMHASH, SKETCH_SIMHASH_STRUCTURED, -1,
                              SKETCH_CROSSPOLYTOPE + 1 };
    return (sketch_method)v[u8(r) & 7];
}

static int family_ok(sketch_method f)
{
    return f >= SKETCH_SIMHASH && f <= SKETCH_CROSSPOLYTOPE;
}

/* Largest d of the structured families (sketch.h: d <= 2^24). */
#define FUZZ_MAX_ROTATION_DIM (INT64_C(1) << 24)

/*
 * mask[w]: the bits of code word w that may be set: for the SimHash families
 * the first `bits` bits, for cross-polytope the hash fields of the layout.
 */
static uint64_t *code_mask(sketch_method fam, int64_t d, int32_t bits, int64_t words)
{
    uint64_t *mask = calloc((size_t)words, sizeof *mask);
    FUZZ_CHECK(mask != NULL, "out of memory");
    if (fam != SKETCH_CROSSPOLYTOPE) {
        for (int32_t b = 0; b < bits; b++)
            mask[b / 64] |= UINT64_C(1) << (b % 64);
        return mask;
    }
    sketch_cp_layout L;
    FUZZ_CHECK(sketch_crosspolytope_layout(d, bits, &L) == SMM_OK && L.words == words, "cross-polytope layout");
    for (int32_t h = 0; h < L.hashes; h++) {
        int32_t width = (h == L.full_hashes) ? L.last_width : L.width;
        int64_t w = h / L.fields_per_word, off = (int64_t)(h % L.fields_per_word) * L.width;
        for (int32_t b = 0; b < width; b++)
            mask[w] |= UINT64_C(1) << (off + b);
    }
    return mask;
}

static void op_encode(reader *r, values *v)
{
    sketch_method fam = rd_family(r);
    smm_layout layout = rd_layout(r);
    int64_t n = rd_dim(r), d = rd_dim(r);
    const int rm = layout != SMM_COL_MAJOR;
    int64_t ldx = rd_ld(r, rm ? d : n);
    int32_t bits = cap_bits(rd_bits(r), d);
    uint64_t seed = (uint64_t)u8(r) * UINT64_C(0xD1B54A32D192ED03);
    int64_t words = 0;
    smm_status ws = family_ok(fam) ? sketch_code_words(fam, d, bits, &words) : SMM_ERR_BAD_METHOD;
    int64_t wmodel = ws == SMM_OK ? words : 1;
    int64_t ldcodes = rd_ld(r, wmodel);
    int null = rare(r, 8) ? 1 + u8(r) % 3 : 0;
    uint8_t zero_row = u8(r), inj = rare(r, 12), where = u8(r), kind = u8(r);

    fmat X, codes, norms;
    mat_init(&X, layout, n, d, ldx, 4);
    mat_init(&codes, SMM_ROW_MAJOR, n, wmodel, ldcodes, 8);
    mat_init(&norms, SMM_ROW_MAJOR, n, 1, 1, 4);
    if (mat_alloc(&X, null == 1) || mat_alloc(&codes, null == 2) || mat_alloc(&norms, null == 3))
        goto done;
    fill_f32(&X, v, 0);
    if ((zero_row & 1) && n > 0 && d > 0 && !X.invalid)
        for (int64_t t = 0; t < d; t++)
            F(&X)[at(&X, (zero_row >> 1) % n, t)] = 0.0f;
    int nonfinite = inj ? inject(&X, where, kind) : 0;
    memset(codes.buf, 0xa5, codes.extent * 8);
    fill_f32(&norms, v, 1);
    snapshot(&X);
    snapshot(&codes);
    snapshot(&norms);

    smm_status s = sketch_encode(fam, layout, n, d, X.ptr, ldx, bits, seed, codes.ptr, ldcodes, norms.ptr);
    int expect = EXPECT_OK;
    if (!family_ok(fam) || !layout_ok(layout) || !mat_ok(&X) || !bits_ok(bits) || !mat_ok(&codes) ||
        (ws != SMM_OK && d <= FUZZ_MAX_ROTATION_DIM))
        expect = EXPECT_FAIL;
    else if (d > FUZZ_MAX_ROTATION_DIM || ws != SMM_OK)
        expect = EXPECT_EITHER; /* no vector to encode, but a dimension no family may support */
    else if (nonfinite)
        expect = EXPECT_FAIL;
    check_status(s, expect, "sketch_encode");
    FUZZ_CHECK(unchanged(&X), "sketch_encode wrote to X");
    if (s != SMM_OK) {
        FUZZ_CHECK(unchanged(&codes) && unchanged(&norms), "sketch_encode failed (%d) but wrote its outputs", (int)s);
        goto done;
    }
    FUZZ_CHECK(padding_unchanged(&codes), "sketch_encode wrote words beyond the code (ldcodes)");
    if (n == 0 || ws != SMM_OK)
        goto done;
    uint64_t *mask = code_mask(fam, d, bits, words);
    for (int64_t i = 0; i < n; i++) {
        const uint64_t *code = (const uint64_t *)codes.buf + i * ldcodes;
        int zero = 1;
        double ss = 0.0;
        for (int64_t t = 0; t < d; t++) {
            double x = F(&X)[at(&X, i, t)];
            zero &= x == 0.0;
            ss += x * x;
        }
        for (int64_t w = 0; w < words; w++) {
            FUZZ_CHECK((code[w] & ~mask[w]) == 0, "sketch_encode (family %d, d %lld, %d bits): code %lld word %lld "
                       "has bits outside the code set (%016llx)", (int)fam, (long long)d, (int)bits, (long long)i,
                       (long long)w, (unsigned long long)(code[w] & ~mask[w]));
            FUZZ_CHECK(!zero || code[w] == 0, "sketch_encode: zero vector %lld has a non-zero code", (long long)i);
        }
        if (norms.ptr != NULL) {
            float want = (float)sqrt(ss), got = F(&norms)[i];
            FUZZ_CHECK(got == want, "sketch_encode: norm %lld = %.9g, expected %.9g", (long long)i, (double)got,
                       (double)want);
        }
    }
    free(mask);

    /* the same codes on the scalar path, and with X in the other layout */
    uint64_t *codes2 = malloc(codes.extent * 8);
    float *norms2 = malloc((size_t)n * 4);
    float *X2 = malloc((size_t)(n * d > 0 ? n * d : 1) * 4);
    FUZZ_CHECK(codes2 != NULL && norms2 != NULL && X2 != NULL, "out of memory");
    if (the_isa != SMM_ISA_SCALAR) {
        memcpy(codes2, codes.copy, codes.extent * 8);
        set_isa(SMM_ISA_SCALAR);
        s = sketch_encode(fam, layout, n, d, X.ptr, ldx, bits, seed, codes2, ldcodes, norms2);
        set_isa(the_isa);
        FUZZ_CHECK(s == SMM_OK && memcmp(codes2, codes.buf, codes.extent * 8) == 0,
                   "sketch_encode (family %d, %d bits, d %lld): codes differ on the scalar path", (int)fam, (int)bits,
                   (long long)d);
        FUZZ_CHECK(norms.ptr == NULL || memcmp(norms2, norms.buf, (size_t)n * 4) == 0,
                   "sketch_encode: norms differ on the scalar path");
    }
    smm_layout other = rm ? SMM_COL_MAJOR : SMM_ROW_MAJOR;
    int64_t ld2 = rm ? (n > 1 ? n : 1) : (d > 1 ? d : 1);
    for (int64_t i = 0; i < n; i++)
        for (int64_t t = 0; t < d; t++)
            X2[rm ? i + t * ld2 : i * ld2 + t] = F(&X)[at(&X, i, t)];
    memcpy(codes2, codes.copy, codes.extent * 8);
    s = sketch_encode(fam, other, n, d, X2, ld2, bits, seed, codes2, ldcodes, NULL);
    FUZZ_CHECK(s == SMM_OK && memcmp(codes2, codes.buf, codes.extent * 8) == 0,
               "sketch_encode (family %d, %d bits, d %lld): codes differ between the layouts", (int)fam, (int)bits,
               (long long)d);
    free(codes2);
    free(norms2);
    free(X2);
done:
    mat_free(&X);
    mat_free(&codes);
    mat_free(&norms);
}

static int64_t rd_words(reader *r)
{
    uint8_t b = u8(r);
    if (b < 0xE0)
        return 1 + b % 17;
    static const int64_t v[16] = { 0, -1, 1023, 1024, 1025, 64, 100, 3, INT64_MIN, 1, 2, 4,
                                   INT64_C(1) << 61, INT64_MAX, 1023, 1024 };
    return v[b & 15];
}

/* Fill codes: random words (sparse ones when sparse: few bits, so distances tie), padding 0xa5.. */
static void fill_codes(fmat *c, values *v, int sparse, const uint64_t *mask, int64_t words)
{
    for (size_t o = 0; o < c->extent; o++) {
        uint64_t w = UINT64_C(0xa5a5a5a5a5a5a5a5);
        if (is_elem(c, o)) {
            w = 0;
            for (int b = 0; b < 8; b++)
                w = (w << 8) | next_byte(v);
            if (sparse)
                w &= w >> 17 & w >> 33;
            if (mask != NULL)
                w &= mask[(int64_t)(o % (size_t)c->ld) % words];
        }
        memcpy(c->buf + o * 8, &w, 8);
    }
}

static uint32_t ham(const fmat *a, int64_t i, const fmat *b, int64_t j, int64_t words)
{
    uint32_t d = 0;
    for (int64_t w = 0; w < words; w++)
        d += (uint32_t)__builtin_popcountll(((const uint64_t *)a->buf)[i * a->ld + w] ^
                                            ((const uint64_t *)b->buf)[j * b->ld + w]);
    return d;
}

static void op_hamming(reader *r, values *v)
{
    int u16 = u8(r) & 1;
    int64_t na = rd_dim(r), nb = rd_dim(r), words = rd_words(r);
    int64_t lda = rd_ld(r, words), ldb = rd_ld(r, words), ldd = rd_ld(r, nb);
    int null = rare(r, 8) ? 1 + u8(r) % 3 : 0, sparse = u8(r) & 1;
    fmat a, b, dist;
    mat_init(&a, SMM_ROW_MAJOR, na, words, lda, 8);
    mat_init(&b, SMM_ROW_MAJOR, nb, words, ldb, 8);
    mat_init(&dist, SMM_ROW_MAJOR, na, nb, ldd, u16 ? 2 : 4);
    if (mat_alloc(&a, null == 1) || mat_alloc(&b, null == 2) || mat_alloc(&dist, null == 3))
        goto done;
    fill_codes(&a, v, sparse, NULL, words);
    fill_codes(&b, v, sparse, NULL, words);
    memset(dist.buf, 0x5a, dist.extent * dist.elem);
    snapshot(&a);
    snapshot(&b);
    snapshot(&dist);
    smm_status s = u16 ? sketch_hamming_u16(na, a.ptr, lda, nb, b.ptr, ldb, words, dist.ptr, ldd)
                       : sketch_hamming_u32(na, a.ptr, lda, nb, b.ptr, ldb, words, dist.ptr, ldd);
    const char *call = u16 ? "sketch_hamming_u16" : "sketch_hamming_u32";
    int ok = na >= 0 && nb >= 0 && words >= 1 && (!u16 || words <= 1023) && mat_ok(&a) && mat_ok(&b) && mat_ok(&dist);
    check_status(s, ok ? EXPECT_OK : EXPECT_FAIL, call);
    FUZZ_CHECK(unchanged(&a) && unchanged(&b), "%s wrote to its codes", call);
    if (s != SMM_OK) {
        FUZZ_CHECK(unchanged(&dist), "%s failed (%d) but wrote dist", call, (int)s);
        goto done;
    }
    FUZZ_CHECK(padding_unchanged(&dist), "%s wrote beyond nb (ldd)", call);
    for (int64_t i = 0; nb > 0 && i < na; i++)
        for (int64_t j = 0; j < nb; j++) {
            uint32_t want = ham(&a, i, &b, j, words), got;
            if (u16)
                got = ((const uint16_t *)dist.buf)[i * ldd + j];
            else
                got = ((const uint32_t *)dist.buf)[i * ldd + j];
            FUZZ_CHECK(got == want, "%s(%lld, %lld) = %u, expected %u (%lld words)", call, (long long)i, (long long)j,
                       got, want, (long long)words);
        }
    if (the_isa != SMM_ISA_SCALAR && dist.extent > 0) {
        void *d2 = malloc(dist.extent * dist.elem);
        FUZZ_CHECK(d2 != NULL, "out of memory");
        memcpy(d2, dist.copy, dist.extent * dist.elem);
        set_isa(SMM_ISA_SCALAR);
        s = u16 ? sketch_hamming_u16(na, a.ptr, lda, nb, b.ptr, ldb, words, d2, ldd)
                : sketch_hamming_u32(na, a.ptr, lda, nb, b.ptr, ldb, words, d2, ldd);
        set_isa(the_isa);
        FUZZ_CHECK(s == SMM_OK && memcmp(d2, dist.buf, dist.extent * dist.elem) == 0, "%s differs on the scalar path",
                   call);
        free(d2);
    }
done:
    mat_free(&a);
    mat_free(&b);
    mat_free(&dist);
}

static void op_hamming_topk(reader *r, values *v)
{
    int64_t na = rd_dim(r), nb = rd_dim(r), words = rd_words(r);
    int64_t k = rd_small(r, nb < 3 ? nb : 3, nb);
    int64_t lda = rd_ld(r, words), ldb = rd_ld(r, words), ldk = rd_ld(r, k);
    int null = rare(r, 8) ? 1 + u8(r) % 4 : 0, sparse = !(u8(r) & 3);
    fmat a, b, idx, dist;
    mat_init(&a, SMM_ROW_MAJOR, na, words, lda, 8);
    mat_init(&b, SMM_ROW_MAJOR, nb, words, ldb, 8);
    mat_init(&idx, SMM_ROW_MAJOR, na, k, ldk, 8);
    mat_init(&dist, SMM_ROW_MAJOR, na, k, ldk, 4);
    if (mat_alloc(&a, null == 1) || mat_alloc(&b, null == 2) || mat_alloc(&idx, null == 3) ||
        mat_alloc(&dist, null == 4))
        goto done;
    fill_codes(&a, v, sparse, NULL, words);
    fill_codes(&b, v, sparse, NULL, words);
    memset(idx.buf, 0x5a, idx.extent * 8);
    memset(dist.buf, 0x5a, dist.extent * 4);
    snapshot(&a);
    snapshot(&b);
    snapshot(&idx);
    snapshot(&dist);
    smm_status s = sketch_hamming_topk(na, a.ptr, lda, nb, b.ptr, ldb, words, k, idx.ptr, dist.ptr, ldk);
    int ok = na >= 0 && nb >= 0 && words >= 1 && words <= 1024 && k >= 1 && k <= nb && mat_ok(&a) && mat_ok(&b) &&
             mat_ok(&idx) && mat_ok(&dist);
    check_status(s, ok ? EXPECT_OK : EXPECT_FAIL, "sketch_hamming_topk");
    FUZZ_CHECK(unchanged(&a) && unchanged(&b), "sketch_hamming_topk wrote to its codes");
    if (s != SMM_OK) {
        FUZZ_CHECK(unchanged(&idx) && unchanged(&dist), "sketch_hamming_topk failed (%d) but wrote its outputs", (int)s);
        goto done;
    }
    FUZZ_CHECK(padding_unchanged(&idx) && padding_unchanged(&dist), "sketch_hamming_topk wrote beyond k (ldk)");
    int64_t *order = malloc((size_t)nb * sizeof *order);
    uint32_t *dd = malloc((size_t)nb * sizeof *dd);
    FUZZ_CHECK(order != NULL && dd != NULL, "out of memory");
    for (int64_t i = 0; i < na; i++) {
        for (int64_t j = 0; j < nb; j++) {
            dd[j] = ham(&a, i, &b, j, words);
            int64_t p = j;
            while (p > 0 && dd[order[p - 1]] > dd[j]) {
                order[p] = order[p - 1];
                p--;
            }
            order[p] = j;
        }
        for (int64_t q = 0; q < k; q++) {
            int64_t gi = ((const int64_t *)idx.buf)[i * ldk + q];
            uint32_t gd = ((const uint32_t *)dist.buf)[i * ldk + q];
            FUZZ_CHECK(gi == order[q] && gd == dd[order[q]],
                       "sketch_hamming_topk row %lld entry %lld: (%lld, %u), expected (%lld, %u)", (long long)i,
                       (long long)q, (long long)gi, gd, (long long)order[q], dd[order[q]]);
        }
    }
    free(order);
    free(dd);
    if (the_isa != SMM_ISA_SCALAR && na > 0) {
        int64_t *i2 = malloc(idx.extent * 8);
        uint32_t *d2 = malloc(dist.extent * 4);
        FUZZ_CHECK(i2 != NULL && d2 != NULL, "out of memory");
        set_isa(SMM_ISA_SCALAR);
        s = sketch_hamming_topk(na, a.ptr, lda, nb, b.ptr, ldb, words, k, i2, d2, ldk);
        set_isa(the_isa);
        for (int64_t i = 0; s == SMM_OK && i < na; i++)
            FUZZ_CHECK(memcmp(i2 + i * ldk, (const int64_t *)idx.buf + i * ldk, (size_t)k * 8) == 0 &&
                           memcmp(d2 + i * ldk, (const uint32_t *)dist.buf + i * ldk, (size_t)k * 4) == 0,
                       "sketch_hamming_topk differs on the scalar path");
        FUZZ_CHECK(s == SMM_OK, "sketch_hamming_topk failed on the scalar path");
        free(i2);
        free(d2);
    }
done:
    mat_free(&a);
    mat_free(&b);
    mat_free(&idx);
    mat_free(&dist);
}

static void op_cp_matches(reader *r, values *v)
{
    int64_t d = rd_dim(r);
    int32_t bits = rd_bits(r);
    int64_t na = rd_dim(r), nb = rd_dim(r);
    sketch_cp_layout L;
    smm_status ls = sketch_crosspolytope_layout(d, bits, &L);
    int64_t words = ls == SMM_OK ? L.words : 1;
    int64_t lda = rd_ld(r, words), ldb = rd_ld(r, words), ldm = rd_ld(r, nb);
    int null = rare(r, 8) ? 1 + u8(r) % 3 : 0, sparse = u8(r) & 1;
    fmat a, b, mt;
    mat_init(&a, SMM_ROW_MAJOR, na, words, lda, 8);
    mat_init(&b, SMM_ROW_MAJOR, nb, words, ldb, 8);
    mat_init(&mt, SMM_ROW_MAJOR, na, nb, ldm, 2);
    uint64_t *mask = NULL;
    if (mat_alloc(&a, null == 1) || mat_alloc(&b, null == 2) || mat_alloc(&mt, null == 3))
        goto done;
    if (ls == SMM_OK)
        mask = code_mask(SKETCH_CROSSPOLYTOPE, d, bits, words);
    fill_codes(&a, v, sparse, mask, words);
    fill_codes(&b, v, sparse, mask, words);
    memset(mt.buf, 0x5a, mt.extent * 2);
    snapshot(&a);
    snapshot(&b);
    snapshot(&mt);
    smm_status s = sketch_crosspolytope_matches(d, bits, na, a.ptr, lda, nb, b.ptr, ldb, mt.ptr, ldm);
    int ok = ls == SMM_OK && na >= 0 && nb >= 0 && mat_ok(&a) && mat_ok(&b) && mat_ok(&mt);
    check_status(s, ok ? EXPECT_OK : EXPECT_FAIL, "sketch_crosspolytope_matches");
    FUZZ_CHECK(unchanged(&a) && unchanged(&b), "sketch_crosspolytope_matches wrote to its codes");
    if (s != SMM_OK) {
        FUZZ_CHECK(unchanged(&mt), "sketch_crosspolytope_matches failed (%d) but wrote matches", (int)s);
        goto done;
    }
    FUZZ_CHECK(padding_unchanged(&mt), "sketch_crosspolytope_matches wrote beyond nb (ldm)");
    for (int64_t i = 0; nb > 0 && i < na; i++)
        for (int64_t j = 0; j < nb; j++) {
            const uint64_t *ca = (const uint64_t *)a.buf + i * lda, *cb = (const uint64_t *)b.buf + j * ldb;
            int want = 0;
            for (int32_t h = 0; h < L.hashes; h++) {
                int32_t width = h == L.full_hashes ? L.last_width : L.width;
                int64_t w = h / L.fields_per_word, off = (int64_t)(h % L.fields_per_word) * L.width;
                uint64_t fm = (width == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << width) - 1)) << off;
                want += (ca[w] & fm) == (cb[w] & fm);
            }
            uint16_t got = ((const uint16_t *)mt.buf)[i * ldm + j];
            FUZZ_CHECK(got == want, "sketch_crosspolytope_matches(%lld, %lld) = %u, expected %d (d %lld, %d bits)",
                       (long long)i, (long long)j, got, want, (long long)d, (int)bits);
        }
    if (the_isa != SMM_ISA_SCALAR && mt.extent > 0) {
        uint16_t *m2 = malloc(mt.extent * 2);
        FUZZ_CHECK(m2 != NULL, "out of memory");
        memcpy(m2, mt.copy, mt.extent * 2);
        set_isa(SMM_ISA_SCALAR);
        s = sketch_crosspolytope_matches(d, bits, na, a.ptr, lda, nb, b.ptr, ldb, m2, ldm);
        set_isa(the_isa);
        FUZZ_CHECK(s == SMM_OK && memcmp(m2, mt.buf, mt.extent * 2) == 0,
                   "sketch_crosspolytope_matches differs on the scalar path");
        free(m2);
    }
done:
    free(mask);
    mat_free(&a);
    mat_free(&b);
    mat_free(&mt);
}

/* ------------------------------------------------------------------------ */
/* unary_apply                                                              */
/* ------------------------------------------------------------------------ */

/* A size up to a few hundred sometimes (the SIMD tiles and cache blocks of unary and brgemm). */
static int64_t rd_dim_wide(reader *r)
{
    uint8_t b = u8(r);
    static const int64_t wide[16] = { 31, 32, 33, 47, 63, 64, 65, 100, 127, 128, 129, 200, 255, 256, 257, 300 };
    if (b < 0xD0)
        return b % 18;
    if (b < 0xE0)
        return wide[b & 15];
    return b < 0xF0 ? NEG[b & 7] : HUGE_[b & 7];
}

static uint32_t f2u(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}

static void op_unary(reader *r, values *v)
{
    static const int ops[8] = { UNARY_ZERO, UNARY_IDENTITY, UNARY_RELU, UNARY_IDENTITY, UNARY_RELU, UNARY_RELU, 3, -1 };
    unary_op op = (unary_op)ops[u8(r) & 7];
    smm_layout layout = rd_layout(r);
    smm_trans trans = rd_trans(r);
    int64_t m = rd_dim_wide(r), n = rd_dim_wide(r);
    const int rm = layout != SMM_COL_MAJOR, tr = trans == SMM_TRANS;
    const int64_t ar = tr ? n : m, ac = tr ? m : n;
    int64_t lda = rd_ld(r, rm ? ac : ar), ldb = rd_ld(r, rm ? n : m);
    int null = rare(r, 8) ? 1 + u8(r) % 2 : 0, raw = u8(r) & 1;
    int alias = rare(r, 6);
    int64_t boff = u8(r) & 3;
    if (rare(r, 4))
        ldb = lda; /* in place needs equal leading dimensions */
    fmat A, B;
    mat_init(&A, layout, ar, ac, lda, 4);
    mat_init(&B, layout, m, n, ldb, 4);
    unsigned char *shared = NULL, *shared_copy = NULL;
    size_t shared_ext = 0;
    if (alias && !A.invalid && !B.invalid && !A.empty && !B.empty && null == 0) {
        /* B inside A's buffer, boff elements in: one allocation holding both spans */
        size_t ext = A.extent > (size_t)boff + B.extent ? A.extent : (size_t)boff + B.extent;
        if (ext > FUZZ_MAX_EXTENT)
            return;
        shared = malloc(ext * 4);
        FUZZ_CHECK(shared != NULL, "out of memory");
        shared_ext = ext;
        A.buf = shared;
        B.buf = shared + boff * 4;
        A.ptr = A.buf;
        B.ptr = B.buf;
        for (size_t o = 0; o < ext; o++)
            memcpy(shared + o * 4, &PAD_BITS, 4);
    } else {
        alias = 0;
        if (mat_alloc(&A, null == 1) || mat_alloc(&B, null == 2))
            goto done;
        fill_f32(&B, v, 1);
    }
    for (size_t o = 0; o < A.extent; o++) {
        if (!is_elem(&A, o))
            continue;
        float x = next_val(v);
        if (raw) {
            uint32_t u = 0;
            for (int b = 0; b < 4; b++)
                u = (u << 8) | next_byte(v);
            memcpy(&x, &u, 4);
        }
        F(&A)[o] = x;
    }
    snapshot(&A);
    if (alias) {
        shared_copy = malloc(shared_ext * 4);
        FUZZ_CHECK(shared_copy != NULL, "out of memory");
        memcpy(shared_copy, shared, shared_ext * 4);
    } else {
        snapshot(&B);
    }

    smm_status s = unary_apply(op, layout, trans, m, n, A.ptr, lda, B.ptr, ldb);
    int expect = EXPECT_OK;
    if ((op != UNARY_ZERO && op != UNARY_IDENTITY && op != UNARY_RELU) || !layout_ok(layout) || !trans_ok(trans) ||
        m < 0 || n < 0 || !mat_ok(&B) || (op != UNARY_ZERO && !mat_ok(&A)))
        expect = EXPECT_FAIL;
    int in_place = 0;
    if (alias && op != UNARY_ZERO && expect == EXPECT_OK) {
        /* the spans [0, A.extent) and [boff, boff + B.extent) overlap (both are non-empty) */
        in_place = !tr && boff == 0 && lda == ldb;
        int overlap = (size_t)boff < A.extent;
        if (overlap && !in_place)
            expect = EXPECT_FAIL;
    }
    check_status(s, expect, "unary_apply");
    if (alias) {
        if (s != SMM_OK) {
            FUZZ_CHECK(memcmp(shared, shared_copy, shared_ext * 4) == 0, "unary_apply failed (%d) but wrote B", (int)s);
            goto done;
        }
    } else {
        FUZZ_CHECK(op == UNARY_ZERO || unchanged(&A), "unary_apply wrote to A");
        if (s != SMM_OK) {
            FUZZ_CHECK(unchanged(&B), "unary_apply failed (%d) but wrote B", (int)s);
            goto done;
        }
        FUZZ_CHECK(padding_unchanged(&B), "unary_apply wrote into the padding of B (ldb)");
    }
    for (int64_t i = 0; n > 0 && i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            float x = 0.0f;
            if (op != UNARY_ZERO) /* (A is not an argument of UNARY_ZERO) */
                memcpy(&x, A.copy + (tr ? at(&A, j, i) : at(&A, i, j)) * 4, 4);
            uint32_t want = op == UNARY_ZERO ? 0u : (op == UNARY_RELU && x < 0.0f) ? 0u : f2u(x);
            uint32_t got = f2u(F(&B)[at(&B, i, j)]);
            FUZZ_CHECK(got == want, "unary_apply(%s%s) B(%lld, %lld) = %08x, expected %08x", unary_op_name(op),
                       tr ? ", trans" : "", (long long)i, (long long)j, got, want);
        }
    if (!alias && the_isa != SMM_ISA_SCALAR && B.extent > 0) {
        float *b2 = malloc(B.extent * 4);
        FUZZ_CHECK(b2 != NULL, "out of memory");
        memcpy(b2, B.copy, B.extent * 4);
        set_isa(SMM_ISA_SCALAR);
        s = unary_apply(op, layout, trans, m, n, A.ptr, lda, b2, ldb);
        set_isa(the_isa);
        FUZZ_CHECK(s == SMM_OK && memcmp(b2, B.buf, B.extent * 4) == 0, "unary_apply differs on the scalar path");
        free(b2);
    }
done:
    if (alias) {
        free(shared);
        free(shared_copy);
        free(A.copy);
    } else {
        mat_free(&A);
        mat_free(&B);
    }
}

/* ------------------------------------------------------------------------ */
/* brgemm                                                                   */
/* ------------------------------------------------------------------------ */

static int64_t rd_stride(reader *r, int64_t extent)
{
    uint8_t b = u8(r);
    switch (b & 15) {
    case 0: case 1: case 2: case 3: return extent;
    case 4: case 5: return extent + (b >> 4) % 4;
    case 6: return 0;
    case 7: return extent > 1 ? extent - 1 : 0; /* overlapping operands: fine, they are only read */
    case 8: return 1;
    case 9: return -1;
    case 10: return NEG[(b >> 4) & 7];
    case 11: return HUGE_[(b >> 4) & 7];
    default: return extent + 1;
    }
}

static void op_brgemm(reader *r, values *v)
{
    brgemm_desc d;
    memset(&d, 0, sizeof d);
    d.layout = rd_layout(r);
    d.m = rd_dim_wide(r);
    d.n = rd_dim_wide(r);
    d.k = rd_dim(r);
    const int rm = d.layout != SMM_COL_MAJOR;
    d.lda = rd_ld(r, rm ? d.k : d.m);
    d.ldb = rd_ld(r, rm ? d.n : d.k);
    d.ldc = rd_ld(r, rm ? d.n : d.m);
    fmat A1, B1, C;
    mat_init(&A1, d.layout, d.m, d.k, d.lda, 4);
    mat_init(&B1, d.layout, d.k, d.n, d.ldb, 4);
    mat_init(&C, d.layout, d.m, d.n, d.ldc, 4);
    d.stride_a = rd_stride(r, (int64_t)A1.extent);
    d.stride_b = rd_stride(r, (int64_t)B1.extent);
    d.alpha = rd_scalar(r);
    d.beta = rd_scalar(r);
    static const int64_t batches[16] = { 1, 2, 3, 4, 0, 1, 2, 3, 1, 2, 4, 0, -1, INT64_MIN, INT64_C(1) << 61, INT64_MAX };
    int64_t batch = batches[u8(r) & 15];
    int kind = u8(r) % 3; /* 0 strided, 1 pointer arrays, 2 both (pointers into the strided operands) */
    int null = rare(r, 10) ? 1 + u8(r) % 6 : 0; /* 1 desc, 2 plan, 3 A, 4 B, 5 C, 6 an entry of the arrays */
    const int reads = d.k > 0 && d.alpha != 0.0f && d.m > 0 && d.n > 0;
    if (batch > 4 && (kind != 0 || (d.stride_a <= 0 && d.stride_b <= 0) || A1.empty || B1.empty))
        batch = 2; /* huge batches only where the span must overflow (no loop over them) */

    brgemm_plan *plan = (brgemm_plan *)(uintptr_t)0x20;
    smm_status s = brgemm_plan_create(null == 1 ? NULL : &d, null == 2 ? NULL : &plan);
    int ok = null != 1 && null != 2 && layout_ok(d.layout) && !A1.invalid && !B1.invalid && !C.invalid &&
             d.stride_a >= 0 && d.stride_b >= 0;
    check_status(s, ok ? EXPECT_OK : EXPECT_FAIL, "brgemm_plan_create");
    FUZZ_CHECK(strcmp(brgemm_plan_name(NULL), "null plan") == 0, "brgemm_plan_name(NULL)");
    if (s != SMM_OK) {
        FUZZ_CHECK(null == 2 || plan == NULL, "brgemm_plan_create failed but did not set *plan to NULL");
        return;
    }
    FUZZ_CHECK(brgemm_plan_name(plan) != NULL && brgemm_plan_name(plan)[0] != '\0', "brgemm_plan_name");

    /* the operands: strided spans (batch >= 1), or one buffer per matrix */
    const int64_t nb = batch >= 1 && batch <= 4 ? batch : (batch > 4 ? 1 : 0);
    fmat As, Bs;
    memset(&As, 0, sizeof As);
    memset(&Bs, 0, sizeof Bs);
    int span_over = 0;
    {
        /* A span of batch matrices, stride apart: rows x 1 "matrix" of extent elements */
        __int128 ea = A1.empty ? 0 : (__int128)(batch > 0 ? batch - 1 : 0) * d.stride_a + (__int128)A1.extent;
        __int128 eb = B1.empty ? 0 : (__int128)(batch > 0 ? batch - 1 : 0) * d.stride_b + (__int128)B1.extent;
        span_over = ea > (__int128)(PTRDIFF_MAX / 4) || eb > (__int128)(PTRDIFF_MAX / 4);
        __int128 ea_alloc = A1.empty ? 0 : (__int128)(nb > 0 ? nb - 1 : 0) * d.stride_a + (__int128)A1.extent;
        __int128 eb_alloc = B1.empty ? 0 : (__int128)(nb > 0 ? nb - 1 : 0) * d.stride_b + (__int128)B1.extent;
        if (ea_alloc > FUZZ_MAX_EXTENT || eb_alloc > FUZZ_MAX_EXTENT)
            goto free_plan;
        As.extent = (size_t)ea_alloc;
        Bs.extent = (size_t)eb_alloc;
        As.elem = Bs.elem = 4;
        As.ld = Bs.ld = 1;
        As.rows = Bs.rows = 1; /* every element counts (no padding in a span) */
        As.cols = Bs.cols = 1;
        As.row_major = Bs.row_major = 0;
        As.empty = As.extent == 0;
        Bs.empty = Bs.extent == 0;
        if (mat_alloc(&As, null == 3) || mat_alloc(&Bs, null == 4) || mat_alloc(&C, null == 5))
            goto free_plan;
        for (size_t o = 0; o < As.extent; o++)
            F(&As)[o] = next_val(v);
        for (size_t o = 0; o < Bs.extent; o++)
            F(&Bs)[o] = next_val(v);
        fill_f32(&C, v, d.beta == 0.0f);
        snapshot(&As);
        snapshot(&Bs);
        snapshot(&C);
    }
    const float **ap = NULL, **bp = NULL;
    float **own = NULL; /* kind 1: each matrix in its own buffer */
    if (kind != 0 && nb > 0) {
        ap = calloc((size_t)nb, sizeof *ap);
        bp = calloc((size_t)nb, sizeof *bp);
        own = calloc((size_t)(2 * nb), sizeof *own);
        FUZZ_CHECK(ap != NULL && bp != NULL && own != NULL, "out of memory");
        for (int64_t i = 0; i < nb; i++) {
            const float *a_i = F(&As) + (A1.empty ? 0 : i * d.stride_a), *b_i = F(&Bs) + (B1.empty ? 0 : i * d.stride_b);
            if (kind == 1) {
                own[2 * i] = malloc(A1.extent * 4 + 1);
                own[2 * i + 1] = malloc(B1.extent * 4 + 1);
                FUZZ_CHECK(own[2 * i] != NULL && own[2 * i + 1] != NULL, "out of memory");
                if (A1.extent > 0)
                    memcpy(own[2 * i], a_i, A1.extent * 4);
                if (B1.extent > 0)
                    memcpy(own[2 * i + 1], b_i, B1.extent * 4);
                /* exactly the matrix: a reallocation of the exact size so ASan sees its end */
                own[2 * i] = realloc(own[2 * i], A1.extent * 4 > 0 ? A1.extent * 4 : 1);
                own[2 * i + 1] = realloc(own[2 * i + 1], B1.extent * 4 > 0 ? B1.extent * 4 : 1);
                a_i = own[2 * i];
                b_i = own[2 * i + 1];
            }
            ap[i] = a_i;
            bp[i] = b_i;
        }
        if (null == 6)
            ap[nb - 1] = NULL;
    }

    float *c_strided = NULL;
    if (kind != 1) {
        s = brgemm_execute_strided(plan, As.ptr, Bs.ptr, C.ptr, batch);
        int expect = EXPECT_OK;
        if (batch < 0 || (d.m > 0 && d.n > 0 && C.ptr == NULL))
            expect = EXPECT_FAIL;
        else if (d.m == 0 || d.n == 0 || !reads || batch == 0)
            expect = EXPECT_OK;
        else if (As.ptr == NULL || Bs.ptr == NULL || span_over)
            expect = EXPECT_FAIL;
        check_status(s, expect, "brgemm_execute_strided");
        FUZZ_CHECK(unchanged(&As) && unchanged(&Bs), "brgemm_execute_strided wrote to A or B");
        if (s != SMM_OK)
            FUZZ_CHECK(unchanged(&C), "brgemm_execute_strided failed (%d) but changed C", (int)s);
        if (s == SMM_OK && kind == 2) {
            c_strided = malloc(C.extent * 4 + 1);
            FUZZ_CHECK(c_strided != NULL, "out of memory");
            memcpy(c_strided, C.buf, C.extent * 4);
            memcpy(C.buf, C.copy, C.extent * 4);
        }
    }
    if (kind != 0) {
        s = brgemm_execute_pointers(plan, null == 3 ? NULL : ap, null == 4 ? NULL : bp, C.ptr, batch);
        int expect = EXPECT_OK;
        if (batch < 0 || (d.m > 0 && d.n > 0 && C.ptr == NULL))
            expect = EXPECT_FAIL;
        else if (d.m == 0 || d.n == 0 || !reads || batch == 0)
            expect = EXPECT_OK;
        else if (null == 3 || null == 4 || null == 6)
            expect = EXPECT_FAIL;
        check_status(s, expect, "brgemm_execute_pointers");
        if (s != SMM_OK)
            FUZZ_CHECK(unchanged(&C), "brgemm_execute_pointers failed (%d) but changed C", (int)s);
        if (s == SMM_OK && c_strided != NULL)
            FUZZ_CHECK(memcmp(c_strided, C.buf, C.extent * 4) == 0,
                       "brgemm: strided and pointer batches give different bits");
    }
    if (s == SMM_OK) {
        FUZZ_CHECK(padding_unchanged(&C), "brgemm wrote into the padding of C (ldc)");
        int exact = isfinite(d.alpha) && isfinite(d.beta) && batch >= 0 && batch <= 4 && d.m > 0 && d.n > 0;
        for (int64_t i = 0; exact && i < d.m; i++)
            for (int64_t j = 0; j < d.n; j++) {
                double acc = 0.0;
                for (int64_t q = 0; reads && q < batch; q++)
                    for (int64_t t = 0; t < d.k; t++)
                        acc += (double)F(&As)[q * d.stride_a + (int64_t)at(&A1, i, t)] *
                               (double)F(&Bs)[q * d.stride_b + (int64_t)at(&B1, t, j)];
                double want = (reads ? (double)d.alpha * acc : 0.0) +
                              (d.beta == 0.0f ? 0.0 : (double)d.beta * (double)c0(&C, i, j));
                float got = F(&C)[at(&C, i, j)];
                FUZZ_CHECK(got == (float)want, "brgemm C(%lld, %lld) = %.9g, expected %.9g (batch %lld)", (long long)i,
                           (long long)j, (double)got, want, (long long)batch);
            }
    }
    free(c_strided);
    if (own != NULL)
        for (int64_t i = 0; i < 2 * nb; i++)
            free(own[i]);
    free(own);
    free(ap);
    free(bp);
free_plan:
    mat_free(&As);
    mat_free(&Bs);
    mat_free(&C);
    brgemm_plan_free(plan);
    brgemm_plan_free(NULL);
}

/* ------------------------------------------------------------------------ */
/* mat4                                                                     */
/* ------------------------------------------------------------------------ */

/* The determinant of a 4x4 double matrix by cofactors (exact for the values used). */
static double det4(const double *a)
{
    double s0 = a[0] * a[5] - a[4] * a[1], s1 = a[0] * a[6] - a[4] * a[2], s2 = a[0] * a[7] - a[4] * a[3];
    double s3 = a[1] * a[6] - a[5] * a[2], s4 = a[1] * a[7] - a[5] * a[3], s5 = a[2] * a[7] - a[6] * a[3];
    double c5 = a[10] * a[15] - a[14] * a[11], c4 = a[9] * a[15] - a[13] * a[11], c3 = a[9] * a[14] - a[13] * a[10];
    double c2 = a[8] * a[15] - a[12] * a[11], c1 = a[8] * a[14] - a[12] * a[10], c0_ = a[8] * a[13] - a[12] * a[9];
    return s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0_;
}

static void op_mat4(reader *r, values *v)
{
    uint8_t sub = u8(r);
    int fn = sub % 3, f64 = (sub / 3) & 1, batched = (sub / 6) & 1; /* fn: 0 mul, 1 inv, 2 copy */
    static const int64_t counts[16] = { 1, 2, 3, 5, 0, 1, 2, 4, -1, INT64_MIN, INT64_C(1) << 60, INT64_C(1) << 62,
                                        INT64_MAX, 1, 3, 0 };
    int64_t count = batched ? counts[u8(r) & 15] : 1;
    int null = rare(r, 10) ? 1 + u8(r) % 3 : 0;
    int singular = u8(r) % 4 == 3, raw = u8(r) & 1;
    const size_t es = f64 ? 8 : 4;
    const int valid_count = count >= 0 && count < (INT64_C(1) << 59);
    const size_t elems = valid_count ? (size_t)(16 * count) : 0;
    /* exactly 16 count elements each (1 byte when there are none: any access is out of bounds) */
    unsigned char *a = malloc(elems * es > 0 ? elems * es : 1), *b = malloc(elems * es > 0 ? elems * es : 1);
    unsigned char *c = malloc(elems * es > 0 ? elems * es : 1), *c_copy = malloc(elems * es + 1);
    FUZZ_CHECK(a != NULL && b != NULL && c != NULL && c_copy != NULL, "out of memory");
    for (size_t i = 0; i < elems; i++) {
        double x = next_val(v), y = next_val(v);
        if (f64) {
            memcpy(a + i * 8, &x, 8);
            memcpy(b + i * 8, &y, 8);
        } else {
            float fx = (float)x, fy = (float)y;
            if (raw && fn == 2) {
                uint32_t u = 0;
                for (int q = 0; q < 3; q++)
                    u = (u << 8) | next_byte(v);
                u <<= 8;
                memcpy(&fx, &u, 4);
            }
            memcpy(a + i * 4, &fx, 4);
            memcpy(b + i * 4, &fy, 4);
        }
        memset(c + i * es, 0x7f, es);
    }
    int any_singular = 0;
    for (size_t t = 0; t < elems / 16; t++) {
        if (singular && (t == 0 || (raw && t % 2))) /* row 1 := row 0: det 0 */
            memcpy(a + (t * 16 + 4) * es, a + t * 16 * es, 4 * es);
        double m[16];
        for (int i = 0; i < 16; i++) {
            if (f64) {
                memcpy(&m[i], a + (t * 16 + (size_t)i) * 8, 8);
            } else {
                float x;
                memcpy(&x, a + (t * 16 + (size_t)i) * 4, 4);
                m[i] = x;
            }
        }
        any_singular |= det4(m) == 0.0;
    }
    memcpy(c_copy, c, elems * es);
    const void *pa = null == 1 ? NULL : a, *pb = null == 2 ? NULL : b;
    void *pc = null == 3 ? NULL : c;
    smm_status s;
    if (!batched) {
        if (fn == 0)
            s = f64 ? mat4_mul_f64(pa, pb, pc) : mat4_mul_f32(pa, pb, pc);
        else if (fn == 1)
            s = f64 ? mat4_inv_f64(pa, pc) : mat4_inv_f32(pa, pc);
        else
            s = f64 ? mat4_copy_f64(pa, pc) : mat4_copy_f32(pa, pc);
    } else {
        if (fn == 0)
            s = f64 ? mat4_mul_batch_f64(count, pa, pb, pc) : mat4_mul_batch_f32(count, pa, pb, pc);
        else if (fn == 1)
            s = f64 ? mat4_inv_batch_f64(count, pa, pc) : mat4_inv_batch_f32(count, pa, pc);
        else
            s = f64 ? mat4_copy_batch_f64(count, pa, pc) : mat4_copy_batch_f32(count, pa, pc);
    }
    int uses_b = fn == 0;
    int expect = EXPECT_OK;
    if (count < 0 || !valid_count)
        expect = EXPECT_FAIL;
    else if (count > 0 && (null == 1 || null == 3 || (null == 2 && uses_b)))
        expect = EXPECT_FAIL;
    else if (fn == 1 && count > 0 && any_singular)
        expect = f64 ? EXPECT_FAIL : EXPECT_EITHER;
    else if (fn == 1 && !f64)
        expect = EXPECT_EITHER; /* float determinants round: a regular matrix may be found singular */
    char call[48];
    snprintf(call, sizeof call, "mat4_%s%s_f%d", fn == 0 ? "mul" : fn == 1 ? "inv" : "copy", batched ? "_batch" : "",
             f64 ? 64 : 32);
    check_status(s, expect, call);
    if (s != SMM_OK) {
        FUZZ_CHECK(memcmp(c, c_copy, elems * es) == 0, "%s failed (%d) but wrote its output", call, (int)s);
    } else {
        for (size_t t = 0; t < elems / 16; t++)
            for (int i = 0; i < 16; i++) {
                size_t o = t * 16 + (size_t)i;
                double got, want = 0.0;
                if (f64) {
                    memcpy(&got, c + o * 8, 8);
                } else {
                    float g;
                    memcpy(&g, c + o * 4, 4);
                    got = g;
                }
                if (fn == 2) {
                    FUZZ_CHECK(memcmp(c + o * es, a + o * es, es) == 0 || (isnan(got)),
                               "%s: element %zu differs from the source", call, o);
                    continue;
                }
                if (fn == 1) {
                    FUZZ_CHECK(isfinite(got), "%s: element %zu = %g", call, o, got);
                    continue;
                }
                for (int q = 0; q < 4; q++) {
                    size_t ia = t * 16 + (size_t)(i / 4 * 4 + q), ib = t * 16 + (size_t)(q * 4 + i % 4);
                    double x, y;
                    if (f64) {
                        memcpy(&x, a + ia * 8, 8);
                        memcpy(&y, b + ib * 8, 8);
                    } else {
                        float fx, fy;
                        memcpy(&fx, a + ia * 4, 4);
                        memcpy(&fy, b + ib * 4, 4);
                        x = fx;
                        y = fy;
                    }
                    want += x * y;
                }
                FUZZ_CHECK(got == want, "%s: element %zu = %.17g, expected %.17g", call, o, got, want);
            }
    }
    free(a);
    free(b);
    free(c);
    free(c_copy);
}

/* ------------------------------------------------------------------------ */
/* exact_matrix_alloc, exact_padded_ld                                      */
/* ------------------------------------------------------------------------ */

static void check_padded_ld(int64_t inner)
{
    int64_t ld = exact_padded_ld(inner);
    if (inner < 0) {
        FUZZ_CHECK(ld == -1, "exact_padded_ld(%lld) = %lld", (long long)inner, (long long)ld);
        return;
    }
    if (ld == -1) {
        FUZZ_CHECK(inner > INT64_MAX - 4096, "exact_padded_ld(%lld) = -1", (long long)inner);
        return;
    }
    int64_t least = inner > 1 ? inner : 1;
    FUZZ_CHECK(ld >= least && ld % 16 == 0 && ((uint64_t)ld * 4) % 4096 != 0, "exact_padded_ld(%lld) = %lld", (long long)inner,
               (long long)ld);
    FUZZ_CHECK(ld - 16 < least || ((uint64_t)(ld - 16) * 4) % 4096 == 0, "exact_padded_ld(%lld) = %lld is not the smallest",
               (long long)inner, (long long)ld);
}

static void op_matrix_alloc(reader *r)
{
    smm_layout layout = rd_layout(r);
    int64_t rows = rd_dim_wide(r), cols = rd_dim_wide(r);
    int null = rare(r, 8) ? 1 + u8(r) % 2 : 0;
    check_padded_ld(rows);
    check_padded_ld(cols);
    float *mtx = (float *)(uintptr_t)0x40;
    int64_t ld = -77;
    smm_status s = exact_matrix_alloc(layout, rows, cols, null == 1 ? NULL : &mtx, null == 2 ? NULL : &ld);
    int expect = EXPECT_OK;
    int huge = rows > 100000 || cols > 100000;
    if (null || !layout_ok(layout) || rows < 0 || cols < 0)
        expect = EXPECT_FAIL;
    else if (huge)
        expect = rows == 0 || cols == 0 ? EXPECT_EITHER : EXPECT_FAIL;
    check_status(s, expect, "exact_matrix_alloc");
    if (s != SMM_OK) {
        FUZZ_CHECK(mtx == (float *)(uintptr_t)0x40 && ld == -77, "exact_matrix_alloc failed (%d) but set its outputs",
                   (int)s);
        return;
    }
    const int64_t inner = layout == SMM_ROW_MAJOR ? cols : rows, outer = layout == SMM_ROW_MAJOR ? rows : cols;
    FUZZ_CHECK(ld == exact_padded_ld(inner), "exact_matrix_alloc ld %lld, exact_padded_ld %lld", (long long)ld,
               (long long)exact_padded_ld(inner));
    if (rows == 0 || cols == 0) {
        FUZZ_CHECK(mtx == NULL, "exact_matrix_alloc of an empty %lld x %lld matrix returned memory",
                      (long long)rows, (long long)cols);
        exact_matrix_free(mtx);
        return;
    }
    FUZZ_CHECK(mtx != NULL && ((uintptr_t)mtx & 63) == 0, "exact_matrix_alloc: %p not 64-byte aligned", (void *)mtx);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            FUZZ_CHECK(mtx[o * ld + i] == 0.0f, "exact_matrix_alloc: not zero-filled");
            mtx[o * ld + i] = 1.0f;
        }
    exact_matrix_free(mtx);
    exact_matrix_free(NULL);
}

/* ------------------------------------------------------------------------ */
/* Hyperplanes, code sizes, layouts, estimators                             */
/* ------------------------------------------------------------------------ */

static void op_sketch_misc(reader *r, values *v)
{
    (void)v;
    uint8_t sub = u8(r) % 4;
    int32_t bits = rd_bits(r);
    int64_t d = rd_dim(r);
    if (sub == 0) { /* sketch_simhash_hyperplanes */
        uint64_t seed_hi = u8(r), seed_lo = u8(r), seed = seed_hi << 40 | seed_lo;
        int64_t ldg = rd_ld(r, d);
        int null = rare(r, 8);
        bits = cap_bits(bits, d);
        fmat G;
        mat_init(&G, SMM_ROW_MAJOR, bits_ok(bits) ? bits : 1, d, ldg, 4);
        if (mat_alloc(&G, null))
            return;
        for (size_t o = 0; o < G.extent; o++)
            memcpy(G.buf + o * 4, &PAD_BITS, 4);
        snapshot(&G);
        smm_status s = sketch_simhash_hyperplanes(bits, d, seed, G.ptr, ldg);
        int ok = bits_ok(bits) && d >= 0 && !G.invalid && (G.ptr != NULL || d == 0);
        check_status(s, ok ? EXPECT_OK : EXPECT_FAIL, "sketch_simhash_hyperplanes");
        if (s != SMM_OK) {
            FUZZ_CHECK(unchanged(&G), "sketch_simhash_hyperplanes failed (%d) but wrote G", (int)s);
        } else {
            FUZZ_CHECK(padding_unchanged(&G), "sketch_simhash_hyperplanes wrote into the padding (ldg)");
            for (int64_t b = 0; b < bits && d > 0; b++)
                for (int64_t t = 0; t < d; t++) {
                    float x = F(&G)[b * ldg + t];
                    FUZZ_CHECK(isfinite(x) && x != 0.0f && fabsf(x) < 8.3f, "hyperplane (%lld, %lld) = %g",
                               (long long)b, (long long)t, (double)x);
                }
            if (d > 0 && d < 17) { /* entry (b, t) does not depend on d */
                float *G2 = malloc((size_t)bits * (size_t)(d + 1) * 4);
                FUZZ_CHECK(G2 != NULL, "out of memory");
                s = sketch_simhash_hyperplanes(bits, d + 1, seed, G2, d + 1);
                FUZZ_CHECK(s == SMM_OK, "sketch_simhash_hyperplanes with d + 1");
                for (int64_t b = 0; b < bits; b++)
                    FUZZ_CHECK(memcmp(G2 + b * (d + 1), F(&G) + b * ldg, (size_t)d * 4) == 0,
                               "hyperplane row %lld depends on d", (long long)b);
                free(G2);
            }
        }
        mat_free(&G);
        return;
    }
    if (sub == 1) { /* sketch_code_words and the cross-polytope layout */
        sketch_method fam = rd_family(r);
        int null = rare(r, 8);
        int64_t words = -5;
        smm_status s = sketch_code_words(fam, d, bits, null ? NULL : &words);
        int expect = EXPECT_OK;
        if (!family_ok(fam) || d < 0 || !bits_ok(bits) || null)
            expect = EXPECT_FAIL;
        else if (d > FUZZ_MAX_ROTATION_DIM)
            expect = fam == SKETCH_SIMHASH_STRUCTURED || fam == SKETCH_CROSSPOLYTOPE ? EXPECT_FAIL : EXPECT_EITHER;
        check_status(s, expect, "sketch_code_words");
        if (s != SMM_OK)
            FUZZ_CHECK(words == -5, "sketch_code_words failed but wrote *words");
        sketch_cp_layout L, L0;
        memset(&L, 0x5a, sizeof L);
        L0 = L;
        smm_status ls = sketch_crosspolytope_layout(d, bits, null ? NULL : &L);
        int lok = d >= 0 && d <= FUZZ_MAX_ROTATION_DIM && bits_ok(bits) && !null;
        check_status(ls, lok ? EXPECT_OK : EXPECT_FAIL, "sketch_crosspolytope_layout");
        if (ls != SMM_OK) {
            FUZZ_CHECK(memcmp(&L, &L0, sizeof L) == 0, "sketch_crosspolytope_layout failed but wrote *layout");
        } else {
            int64_t D = 2;
            int32_t w = 2;
            while (D < d) {
                D *= 2;
                w++;
            }
            int32_t full = bits / w, rest = bits % w, hashes = full + (rest > 0), fpw = 64 / w;
            FUZZ_CHECK(L.dim == D && L.width == w && L.full_hashes == full && L.last_width == rest &&
                           L.last_dim == (rest > 0 ? INT64_C(1) << (rest - 1) : 0) && L.hashes == hashes &&
                           L.fields_per_word == fpw && L.words == (hashes + fpw - 1) / fpw,
                       "sketch_crosspolytope_layout(%lld, %d) differs from sketch.h's formulas", (long long)d, (int)bits);
            if (s == SMM_OK && fam == SKETCH_CROSSPOLYTOPE)
                FUZZ_CHECK(words == L.words, "sketch_code_words and the layout disagree");
        }
        if (s == SMM_OK && fam != SKETCH_CROSSPOLYTOPE)
            FUZZ_CHECK(words == (bits + 63) / 64, "sketch_code_words(%d bits) = %lld",
                       (int)bits, (long long)words);
        return;
    }
    /* estimators: NaN exactly for invalid arguments, values in range otherwise */
    int64_t h = rd_small(r, bits, bits);
    if (sub == 2) {
        double a = sketch_angle_estimate(h, bits), c = sketch_cosine_estimate(h, bits);
        double e = sketch_dot_estimate(h, bits, 2.0, 0.5);
        int valid = bits_ok(bits) && h >= 0 && h <= bits;
        FUZZ_CHECK(valid ? (fabs(a - M_PI * (double)h / bits) <= 1e-12 && fabs(c - cos(a)) <= 1e-12 &&
                            fabs(e - c) <= 1e-12)
                         : (isnan(a) && isnan(c) && isnan(e)),
                   "SimHash estimates of h %lld, %d bits: %g %g %g", (long long)h, (int)bits, a, c, e);
        double theta = (double)(u8(r) % 40) / 12.0;
        double va = sketch_simhash_angle_variance(theta, bits), vc = sketch_simhash_cosine_variance(theta, bits);
        int vvalid = bits_ok(bits) && theta <= M_PI;
        FUZZ_CHECK(vvalid ? (va >= 0 && vc >= 0 && isfinite(va) && isfinite(vc)) : (isnan(va) && isnan(vc)),
                   "SimHash variances at theta %g, %d bits: %g %g", theta, (int)bits, va, vc);
        return;
    }
    sketch_cp_layout L;
    int lok = sketch_crosspolytope_layout(d, bits, &L) == SMM_OK;
    double rho = (double)((int)(u8(r) % 27) - 13) / 12.0; /* -1.08 .. 1.08 */
    double est = sketch_crosspolytope_cosine_estimate(d, bits, h);
    int valid = lok && h >= 0 && h <= L.hashes;
    FUZZ_CHECK(valid ? (est >= -1.0 && est <= 1.0 && (h != 0 || est == -1.0) && (h != L.hashes || est == 1.0))
                     : isnan(est),
               "sketch_crosspolytope_cosine_estimate(%lld, %d, %lld) = %g", (long long)d, (int)bits, (long long)h, est);
    double em = sketch_crosspolytope_expected_matches(d, bits, rho);
    double vm = sketch_crosspolytope_matches_variance(d, bits, rho);
    double vc = sketch_crosspolytope_cosine_variance(d, bits, rho);
    int rvalid = lok && rho >= -1.0 && rho <= 1.0;
    FUZZ_CHECK(rvalid ? (em >= 0.0 && em <= L.hashes + 1e-9 && vm >= 0.0 && vc >= 0.0 && isfinite(vm) && !isnan(vc))
                      : (isnan(em) && isnan(vm) && isnan(vc)),
               "cross-polytope statistics (%lld, %d, rho %g): %g %g %g", (long long)d, (int)bits, rho, em, vm, vc);
    if (lok) {
        double p = sketch_crosspolytope_collision_probability(d, L.dim, rho);
        FUZZ_CHECK(rho < -1.0 || rho > 1.0 ? isnan(p) : (p >= 0.0 && p <= 1.0),
                   "collision probability (%lld, %lld, %g) = %g", (long long)d, (long long)L.dim, rho, p);
        double q = sketch_crosspolytope_collision_probability(d, L.dim * 2, rho);
        FUZZ_CHECK(isnan(q), "collision probability of a hash larger than D: %g", q);
    }
}

/* ------------------------------------------------------------------------ */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    smm_status s = smm_set_num_threads(1);
    if (s != SMM_OK) {
        fprintf(stderr, "fuzz_api: smm_set_num_threads(1): %s\n", smm_status_str(s));
        abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = { data, size, 0 };
    uint8_t op = u8(&r);
    select_isa(u8(&r));
    /* the arguments take at most the first 64 bytes; the values are the rest */
    size_t args = size < 64 ? size : 64;
    reader ar = { data + 2, args > 2 ? args - 2 : 0, 0 };
    values v = { data + args, size - args, 0 };
    switch (op % OP_COUNT) {
    case OP_EXACT_SGEMM: op_exact_sgemm(&ar, &v); break;
    case OP_APPROX_SGEMM: op_approx_sgemm(&ar, &v); break;
    case OP_APPROX_PLAN: op_plan(&ar, &v); break;
    case OP_EXACT_TOPK: op_topk(&ar, &v, 0); break;
    case OP_APPROX_TOPK: op_topk(&ar, &v, 1); break;
    case OP_SKETCH_ENCODE: op_encode(&ar, &v); break;
    case OP_HAMMING: op_hamming(&ar, &v); break;
    case OP_HAMMING_TOPK: op_hamming_topk(&ar, &v); break;
    case OP_CP_MATCHES: op_cp_matches(&ar, &v); break;
    case OP_UNARY: op_unary(&ar, &v); break;
    case OP_BRGEMM: op_brgemm(&ar, &v); break;
    case OP_MAT4: op_mat4(&ar, &v); break;
    case OP_MATRIX_ALLOC: op_matrix_alloc(&ar); break;
    default: op_sketch_misc(&ar, &v); break;
    }
    return 0;
}
