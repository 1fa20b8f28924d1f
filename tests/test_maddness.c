/*
 * test_maddness.c - Check suite of the MADDNESS building blocks
 * (sketch/maddness.h): trees and prototypes bit-identical for 1 and 2
 * threads and every ISA path (and against a golden hash, so the aarch64
 * build under qemu computes the same bytes as x86-64); the encoder against
 * a plain reference descent on each vector's direction, in both layouts,
 * with block padding, and its norms; the model and codes independent of the
 * data's scale, and rows of small norm among large ones spread over the
 * leaves; the first
 * level's split against a brute-force search of every dimension and cut;
 * data that 4-level trees separate perfectly (16 clusters per codebook)
 * gives one leaf per cluster and near-exact prototypes; the bucket means
 * (lambda < 0) and the ridge solution's normal equations; lambda chosen
 * from the data no worse than the leaf means where a fixed lambda overfits
 * (few training vectors), nor than lambda = 1 where the ridge helps, and
 * bit-identical for 1 and 2 threads; the byte tables'
 * estimate within C delta_j / 2 of the unquantized prototype products on
 * every path; and the argument checks (statuses, nothing written).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#include "common/smm_runtime.h"
#include "sketch/maddness.h"

static smm_context context(smm_isa isa, int threads)
{
    ck_assert_int_eq(smm_set_isa(isa), SMM_OK);
    ck_assert_int_eq(smm_set_num_threads(threads), SMM_OK);
    smm_context ctx;
    ck_assert_int_eq(smm_context_current(&ctx), SMM_OK);
    ck_assert_int_eq(ctx.threads, threads);
    return ctx;
}

static float *random_matrix(int64_t rows, int64_t ld, uint64_t *rng)
{
    float *x = malloc((size_t)(rows * ld + 1) * sizeof(float));
    ck_assert_ptr_nonnull(x);
    test_fill_uniform(x, rows * ld, rng);
    return x;
}

static uint64_t model_hash(const maddness_model *md)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    h = test_fnv1a(md->dims, (size_t)md->C * MADDNESS_LEVELS * sizeof(int32_t), h);
    h = test_fnv1a(md->thresholds, (size_t)md->C * MADDNESS_NODES * sizeof(float), h);
    return test_fnv1a(md->prototypes, (size_t)md->C * MADDNESS_LEAVES * (size_t)md->k * sizeof(float), h);
}

static void assert_same_model(const maddness_model *a, const maddness_model *b, const char *what)
{
    ck_assert_int_eq(a->k, b->k);
    ck_assert_int_eq(a->C, b->C);
    ck_assert(memcmp(a->start, b->start, (size_t)(a->C + 1) * sizeof(int64_t)) == 0);
    ck_assert_msg(memcmp(a->dims, b->dims, (size_t)a->C * MADDNESS_LEVELS * sizeof(int32_t)) == 0, "dims: %s", what);
    ck_assert_msg(memcmp(a->thresholds, b->thresholds, (size_t)a->C * MADDNESS_NODES * sizeof(float)) == 0,
                  "thresholds: %s", what);
    ck_assert_msg(memcmp(a->prototypes, b->prototypes,
                         (size_t)a->C * MADDNESS_LEAVES * (size_t)a->k * sizeof(float)) == 0,
                  "prototypes: %s", what);
}

/* Code of vector j in codebook c, read from the packed layout of pq.h. */
static int packed_code(const uint8_t *codes, int32_t C, int64_t j, int32_t c)
{
    const int64_t t = j % 32;
    const uint8_t byte = codes[(j / 32) * 16 * (int64_t)C + 16 * (int64_t)c + (t < 16 ? t : t - 16)];
    return t < 16 ? (byte & 0x0F) : (byte >> 4);
}

/* inv(x) of maddness.h, written out: 1 / sqrt(sum of squares in double), 0 for the zero vector. */
static double reference_inv(const float *x, int64_t k, int64_t stride)
{
    double ss = 0.0;
    for (int64_t t = 0; t < k; t++)
        ss += (double)x[t * stride] * (double)x[t * stride];
    return ss > 0.0 ? 1.0 / sqrt(ss) : 0.0;
}

/* The directions of the rows x k row-major X (what the model describes): x_t inv(x) rounded to float. */
static float *directions_of(const float *X, int64_t rows, int64_t k)
{
    float *U = malloc((size_t)(rows * k) * sizeof(float));
    ck_assert_ptr_nonnull(U);
    for (int64_t i = 0; i < rows; i++) {
        const double inv = reference_inv(X + i * k, k, 1);
        for (int64_t t = 0; t < k; t++)
            U[i * k + t] = (float)((double)X[i * k + t] * inv);
    }
    return U;
}

/* The reference descent, written out on the direction: level by level, node index within the level. */
static int reference_leaf(const maddness_model *md, const float *x, int32_t c)
{
    const double inv = reference_inv(x, md->k, 1);
    int node = 0, level_start = 0;
    for (int t = 0; t < 4; t++) {
        const int32_t dim = md->dims[4 * c + t];
        const float thr = md->thresholds[15 * c + level_start + node];
        ck_assert(dim >= md->start[c] && dim < md->start[c + 1]);
        node = (float)((double)x[dim] * inv) >= thr ? 2 * node + 1 : 2 * node;
        level_start = 2 * level_start + 1;
    }
    return node;
}

/* The leaf of row-major vector x through the library's descent. */
static int leaf_of(const maddness_model *md, const float *x, int32_t c)
{
    return maddness_leaf(md, x, 1, maddness_inv_norm(x, md->k, 1, NULL), c);
}

/* ======================================================================
 * Determinism and encoding
 * ====================================================================== */

/* Train on every path with 1 and 2 threads: identical models and codes; tables identical across threads. */
START_TEST(test_train_encode_deterministic)
{
    const int64_t count = 1500, k = 50, ld = 53, n = 77;
    const int32_t C = 7; /* 50 = 7 * 7 + 1: codebook 0 has 8 dims, the others 7 */
    uint64_t rng = 2024;
    float *X = random_matrix(count, ld, &rng);
    float *Y = random_matrix(n, ld, &rng);
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    maddness_model *ref = NULL;
    const int64_t bytes = pq_codes_bytes(C, n);
    uint8_t *ref_codes = malloc((size_t)bytes), *codes = malloc((size_t)bytes);
    float ref_norms[77], norms[77];
    uint8_t *lut[2];
    float *scale[2], *bias[2];
    for (int t = 0; t < 2; t++) {
        lut[t] = malloc((size_t)(count * 16 * C));
        scale[t] = malloc((size_t)count * sizeof(float));
        bias[t] = malloc((size_t)count * sizeof(float));
    }
    for (int q = 0; q < nisa; q++)
        for (int threads = 1; threads <= 2; threads++) {
            const smm_context ctx = context(isas[q], threads);
            maddness_model *md = NULL;
            ck_assert_int_eq(maddness_train(&ctx, X, count, ld, k, C, 99, 1000, 0.0, &md), SMM_OK);
            ck_assert_ptr_nonnull(md);
            maddness_encode(&ctx, md, Y, n, ld, 1, ref == NULL ? ref_codes : codes,
                            ref == NULL ? ref_norms : norms);
            /* tables of the training vectors: bit-identical for 1 and 2 threads on this path */
            ck_assert_int_eq(maddness_tables(&ctx, md, X, count, ld, lut[threads - 1], scale[threads - 1],
                                             bias[threads - 1]),
                             SMM_OK);
            if (threads == 2) {
                ck_assert(memcmp(lut[0], lut[1], (size_t)(count * 16 * C)) == 0);
                ck_assert(memcmp(scale[0], scale[1], (size_t)count * sizeof(float)) == 0);
                ck_assert(memcmp(bias[0], bias[1], (size_t)count * sizeof(float)) == 0);
            }
            if (ref == NULL) {
                ref = md;
                continue;
            }
            char what[64];
            snprintf(what, sizeof what, "%s, %d threads", smm_isa_name(isas[q]), threads);
            assert_same_model(md, ref, what);
            ck_assert_msg(memcmp(codes, ref_codes, (size_t)bytes) == 0, "codes: %s", what);
            ck_assert_msg(memcmp(norms, ref_norms, sizeof norms) == 0, "norms: %s", what);
            maddness_model_free(md);
        }
    test_restore_defaults();
    /* uneven subspaces, the split dimensions inside them */
    for (int32_t c = 0; c <= C; c++)
        ck_assert_int_eq(ref->start[c], c == 0 ? 0 : 8 + 7 * (c - 1));
    /* the seed matters */
    {
        const smm_context ctx = context(SMM_ISA_SCALAR, 1);
        maddness_model *other = NULL;
        ck_assert_int_eq(maddness_train(&ctx, X, count, ld, k, C, 100, 1000, 0.0, &other), SMM_OK);
        ck_assert(model_hash(other) != model_hash(ref));
        maddness_model_free(other);
        test_restore_defaults();
    }
    maddness_model_free(ref);
    for (int t = 0; t < 2; t++)
        free(lut[t]), free(scale[t]), free(bias[t]);
    free(ref_codes), free(codes), free(X), free(Y);
}
END_TEST

/*
 * Golden hash: the same trees and prototypes on every platform (x86-64 and
 * aarch64 under qemu). Changing the training rules changes it on purpose.
 */
START_TEST(test_golden_hash)
{
    const int64_t count = 600, k = 21;
    const int32_t C = 5; /* 21 = 4 * 5 + 1 */
    uint64_t rng = 77;
    float *X = random_matrix(count, k, &rng);
    const smm_context ctx = context(SMM_ISA_SCALAR, 2);
    maddness_model *md = NULL;
    ck_assert_int_eq(maddness_train(&ctx, X, count, k, k, C, 5, 0, 0.0, &md), SMM_OK); /* lambda from the data */
    const uint64_t h_all = model_hash(md);
    maddness_model_free(md);
    ck_assert_int_eq(maddness_train(&ctx, X, count, k, k, C, 5, 0, 1.0, &md), SMM_OK); /* lambda given */
    const uint64_t h_one = model_hash(md);
    maddness_model_free(md);
    ck_assert_int_eq(maddness_train(&ctx, X, count, k, k, C, 5, 200, -1.0, &md), SMM_OK); /* sample, means */
    const uint64_t h_sample = model_hash(md);
    maddness_model_free(md);
    test_restore_defaults();
    free(X);
    ck_assert_msg(h_all == UINT64_C(0x3d9b5282f09e8754), "all: %016llx", (unsigned long long)h_all);
    /* a given lambda keeps the model of the fixed rule lambda = 1 (the default before lambda came from the data) */
    ck_assert_msg(h_one == UINT64_C(0x009384f78f00c03f), "lambda 1: %016llx", (unsigned long long)h_one);
    ck_assert_msg(h_sample == UINT64_C(0x49be08330ab8045a), "sample: %016llx", (unsigned long long)h_sample);
}
END_TEST

START_TEST(test_encode_matches_reference)
{
    const int64_t count = 400, k = 30, n = 70;
    const int32_t C = 4;
    uint64_t rng = 5;
    float *X = random_matrix(count, k, &rng);
    float *Y = random_matrix(n, k, &rng);
    float *Ycm = malloc((size_t)(n * k) * sizeof(float)); /* column-major copy, ld = n */
    for (int64_t i = 0; i < n; i++)
        for (int64_t t = 0; t < k; t++)
            Ycm[t * n + i] = Y[i * k + t];
    const smm_context ctx = context(SMM_ISA_SCALAR, 2);
    maddness_model *md = NULL;
    ck_assert_int_eq(maddness_train(&ctx, X, count, k, k, C, 1, 0, 0.0, &md), SMM_OK);
    const int64_t bytes = pq_codes_bytes(C, n);
    ck_assert_int_eq(bytes, 3 * 16 * C);
    uint8_t *codes = malloc((size_t)bytes), *codes_cm = malloc((size_t)bytes);
    float norms[70], norms_cm[70];
    memset(codes, 0xAB, (size_t)bytes);
    memset(codes_cm, 0xCD, (size_t)bytes);
    maddness_encode(&ctx, md, Y, n, k, 1, codes, norms);
    maddness_encode(&ctx, md, Ycm, n, 1, n, codes_cm, norms_cm);
    ck_assert(memcmp(codes, codes_cm, (size_t)bytes) == 0);
    ck_assert(memcmp(norms, norms_cm, sizeof norms) == 0);
    for (int64_t j = 0; j < n; j++) { /* |y|: the square root in double, rounded once */
        double ss = 0.0;
        for (int64_t t = 0; t < k; t++)
            ss += (double)Y[j * k + t] * (double)Y[j * k + t];
        ck_assert(norms[j] == (float)sqrt(ss));
    }
    int used[16] = { 0 };
    for (int64_t j = 0; j < 96; j++)
        for (int32_t c = 0; c < C; c++) {
            const int want = j < n ? reference_leaf(md, Y + j * k, c) : 0; /* padding: code 0 */
            ck_assert_int_eq(packed_code(codes, C, j, c), want);
            ck_assert_int_eq(pq_code_at(codes, C, j, c), want);
            if (j < n) {
                used[want] = 1;
                ck_assert_int_eq(leaf_of(md, Y + j * k, c), want);
                ck_assert_int_eq(maddness_leaf(md, Ycm + j, n, maddness_inv_norm(Ycm + j, k, n, NULL), c), want);
            }
        }
    int leaves_used = 0;
    for (int l = 0; l < 16; l++)
        leaves_used += used[l];
    ck_assert_int_ge(leaves_used, 12); /* balanced trees on uniform data spread the vectors */
    /* a threshold hit exactly goes right (a direction given as itself: inv = 1); NaN goes left */
    float x[30];
    memcpy(x, Y, sizeof x);
    const int32_t d0 = md->dims[0];
    x[d0] = md->thresholds[0];
    ck_assert_int_ge(maddness_leaf(md, x, 1, 1.0, 0), 8);
    x[d0] = nextafterf(md->thresholds[0], -INFINITY);
    ck_assert_int_lt(maddness_leaf(md, x, 1, 1.0, 0), 8);
    for (int t = 0; t < 30; t++)
        x[t] = NAN;
    ck_assert(maddness_inv_norm(x, 30, 1, NULL) == 0.0);
    ck_assert_int_eq(leaf_of(md, x, 0), 0);
    /* n = 0 writes nothing */
    memset(codes, 0x11, (size_t)bytes);
    maddness_encode(&ctx, md, NULL, 0, k, 1, codes, NULL);
    ck_assert_int_eq(codes[0], 0x11);
    maddness_model_free(md);
    test_restore_defaults();
    free(X), free(Y), free(Ycm), free(codes), free(codes_cm);
}
END_TEST

/*
 * The model describes directions: training on 2^-7 X gives X's model bit
 * for bit; encoding 2^5 Y gives Y's codes and 32 times its norms; and on
 * rows of very different norms (every other row times 1000) the rows of
 * small norm still spread over the leaves (fitting raw vectors, the large
 * rows took every split and the small ones shared one leaf per codebook).
 */
START_TEST(test_directions_scale_free)
{
    const int64_t count = 1000, k = 40, n = 64;
    const int32_t C = 5;
    uint64_t rng = 808;
    float *X = random_matrix(count, k, &rng), *Xs = malloc((size_t)(count * k) * sizeof(float));
    float *Y = random_matrix(n, k, &rng), *Ys = malloc((size_t)(n * k) * sizeof(float));
    for (int64_t e = 0; e < count * k; e++)
        Xs[e] = X[e] * 0x1p-7f;
    for (int64_t e = 0; e < n * k; e++)
        Ys[e] = Y[e] * 0x1p+5f;
    const smm_context ctx = context(SMM_ISA_SCALAR, 2);
    maddness_model *md = NULL, *ms = NULL;
    ck_assert_int_eq(maddness_train(&ctx, X, count, k, k, C, 7, 0, 0.0, &md), SMM_OK);
    ck_assert_int_eq(maddness_train(&ctx, Xs, count, k, k, C, 7, 0, 0.0, &ms), SMM_OK);
    assert_same_model(ms, md, "data times 2^-7");
    const int64_t bytes = pq_codes_bytes(C, n);
    uint8_t *codes = malloc((size_t)bytes), *codes_s = malloc((size_t)bytes);
    float norms[64], norms_s[64];
    maddness_encode(&ctx, md, Y, n, k, 1, codes, norms);
    maddness_encode(&ctx, md, Ys, n, k, 1, codes_s, norms_s);
    ck_assert(memcmp(codes, codes_s, (size_t)bytes) == 0);
    for (int64_t j = 0; j < n; j++)
        ck_assert(norms_s[j] == 32.0f * norms[j]);
    maddness_model_free(ms);
    /* two scales in one data set */
    for (int64_t i = 0; i < count; i += 2)
        for (int64_t t = 0; t < k; t++)
            X[i * k + t] *= 1000.0f;
    maddness_model_free(md);
    ck_assert_int_eq(maddness_train(&ctx, X, count, k, k, C, 7, 0, 0.0, &md), SMM_OK);
    for (int32_t c = 0; c < C; c++) {
        int used[16] = { 0 }, leaves = 0;
        for (int64_t i = 1; i < count; i += 2)
            used[leaf_of(md, X + i * k, c)] = 1;
        for (int l = 0; l < 16; l++)
            leaves += used[l];
        ck_assert_msg(leaves >= 12, "codebook %d: the small rows use %d leaves", c, leaves);
    }
    maddness_model_free(md);
    test_restore_defaults();
    free(X), free(Xs), free(Y), free(Ys), free(codes), free(codes_s);
}
END_TEST

/* ======================================================================
 * Trees
 * ====================================================================== */

/* SSE over dims lo..lo+d-1 of the rows of X in positions idx[0..cnt-1], in double. */
static double sse_of(const float *X, int64_t k, const int64_t *idx, int64_t cnt, int64_t lo, int64_t d)
{
    double total = 0.0;
    for (int64_t u = 0; u < d; u++) {
        double s = 0.0, s2 = 0.0;
        for (int64_t i = 0; i < cnt; i++) {
            const double v = X[idx[i] * k + lo + u];
            s += v;
            s2 += v * v;
        }
        if (cnt > 0)
            total += s2 - s * s / (double)cnt;
    }
    return total;
}

/*
 * With at most 4 dimensions per codebook every dimension is a candidate, so
 * level 0 must split at the least SSE over every dimension and cut: checked
 * by brute force, and its threshold must send exactly the values below the
 * cut left.
 */
START_TEST(test_first_split_is_optimal)
{
    const int64_t count = 300, k = 12;
    const int32_t C = 3; /* 4 dims each */
    uint64_t rng = 42;
    float *X = random_matrix(count, k, &rng);
    for (int64_t i = 0; i < count; i++) /* dim 1 bimodal: the obvious split of codebook 0 */
        X[i * k + 1] += (i % 3 == 0) ? 3.0f : 0.0f;
    const smm_context ctx = context(SMM_ISA_SCALAR, 1);
    maddness_model *md = NULL;
    ck_assert_int_eq(maddness_train(&ctx, X, count, k, k, C, 3, 0, -1.0, &md), SMM_OK);
    float *U = directions_of(X, count, k); /* what the trees split */
    int64_t *left = malloc((size_t)count * sizeof(int64_t)), *right = malloc((size_t)count * sizeof(int64_t));
    for (int32_t c = 0; c < C; c++) {
        const int64_t lo = md->start[c], d = md->start[c + 1] - lo;
        double best = INFINITY;
        for (int64_t u = 0; u < d; u++)
            for (int64_t cut = 0; cut < count; cut++) { /* threshold = value of row cut: x >= it goes right */
                const float thr = U[cut * k + lo + u];
                int64_t nl = 0, nr = 0;
                for (int64_t i = 0; i < count; i++) {
                    if (U[i * k + lo + u] >= thr)
                        right[nr++] = i;
                    else
                        left[nl++] = i;
                }
                if (nl == 0)
                    continue;
                const double loss = sse_of(U, k, left, nl, lo, d) + sse_of(U, k, right, nr, lo, d);
                best = loss < best ? loss : best;
            }
        const int32_t dim = md->dims[4 * c];
        const float thr = md->thresholds[15 * c];
        int64_t nl = 0, nr = 0;
        for (int64_t i = 0; i < count; i++) {
            if (U[i * k + dim] >= thr)
                right[nr++] = i;
            else
                left[nl++] = i;
        }
        const double got = sse_of(U, k, left, nl, lo, d) + sse_of(U, k, right, nr, lo, d);
        ck_assert_msg(got <= best * (1.0 + 1e-9), "codebook %d: split loss %.12g, brute force %.12g", c, got, best);
        if (c == 0)
            ck_assert_int_eq(dim, 1);
    }
    free(left), free(right), free(U);
    maddness_model_free(md);
    test_restore_defaults();
    free(X);
}
END_TEST

/*
 * Separable data: codebook c's part of vector i is cluster q = q(i, c) in
 * 0..15, dimension u (u < 4) = +-s_u by bit u of q (s = 8, 4, 2, 1) plus
 * 0.01 noise, a fifth dimension small noise. The trees must split the bits
 * in order and give each cluster its own leaf.
 */
static void fill_separable(float *X, int64_t rows, int32_t C, uint8_t *clusters, uint64_t *rng)
{
    static const float s[4] = { 8.0f, 4.0f, 2.0f, 1.0f };
    const int64_t k = 5 * (int64_t)C;
    for (int64_t i = 0; i < rows; i++)
        for (int32_t c = 0; c < C; c++) {
            const int q = (int)(test_rng_next(rng) >> 60);
            if (clusters != NULL)
                clusters[i * C + c] = (uint8_t)q;
            float *x = X + i * k + 5 * c;
            for (int u = 0; u < 4; u++)
                x[u] = ((q >> u) & 1 ? s[u] : -s[u]) + 0.01f * test_rng_uniform(rng);
            x[4] = 0.05f * test_rng_uniform(rng);
        }
}

START_TEST(test_separable_clusters)
{
    const int32_t C = 6;
    const int64_t count = 2000, k = 5 * C;
    uint64_t rng = 9;
    float *X = malloc((size_t)(count * k) * sizeof(float));
    uint8_t *cl = malloc((size_t)(count * C));
    fill_separable(X, count, C, cl, &rng);
    const smm_context ctx = context(SMM_ISA_SCALAR, 2);
    for (int pass = 0; pass < 2; pass++) {
        maddness_model *md = NULL;
        ck_assert_int_eq(maddness_train(&ctx, X, count, k, k, C, 4, 0, pass == 0 ? -1.0 : 0.0, &md), SMM_OK);
        for (int32_t c = 0; c < C; c++) {
            for (int t = 0; t < 4; t++)
                ck_assert_int_eq(md->dims[4 * c + t], 5 * c + t); /* the largest spread first */
            int leaf_of_cluster[16];
            for (int q = 0; q < 16; q++)
                leaf_of_cluster[q] = -1;
            for (int64_t i = 0; i < count; i++) {
                const int q = cl[i * C + c], l = leaf_of(md, X + i * k, c);
                if (leaf_of_cluster[q] < 0)
                    leaf_of_cluster[q] = l;
                ck_assert_int_eq(leaf_of_cluster[q], l);
            }
            for (int q = 0; q < 16; q++) /* distinct leaves: bit u of the cluster is bit 3 - u of the leaf */
                ck_assert_int_eq(leaf_of_cluster[q], ((q & 1) << 3) | ((q & 2) << 1) | ((q & 4) >> 1) | ((q & 8) >> 3));
        }
        /* reconstruction: |x| sum_c P_{c, leaf} within 0.2 of each vector (noise 0.01, shrinkage ~ 1/125) */
        double worst = 0.0;
        for (int64_t i = 0; i < count; i += 7)
            for (int64_t t = 0; t < k; t++) {
                double r = 0.0;
                for (int32_t c = 0; c < C; c++)
                    r += md->prototypes[(16 * c + leaf_of(md, X + i * k, c)) * k + t];
                const double e = fabs(r / reference_inv(X + i * k, k, 1) - X[i * k + t]);
                worst = e > worst ? e : worst;
            }
        ck_assert_msg(worst < 0.2, "lambda pass %d: worst reconstruction error %g", pass, worst);
        maddness_model_free(md);
    }
    test_restore_defaults();
    free(X), free(cl);
}
END_TEST

/* ======================================================================
 * Prototypes
 * ====================================================================== */

/* lambda < 0: the leaf means in the subspace, zeros elsewhere; lambda > 0: the normal equations hold. */
START_TEST(test_means_and_ridge)
{
    const int64_t count = 500, k = 13;
    const int32_t C = 3; /* 5, 4, 4 */
    uint64_t rng = 314;
    float *X = random_matrix(count, k, &rng);
    const smm_context ctx = context(SMM_ISA_SCALAR, 2);
    maddness_model *means = NULL, *ridge = NULL;
    ck_assert_int_eq(maddness_train(&ctx, X, count, k, k, C, 6, 0, -1.0, &means), SMM_OK);
    const double lambda = 2.5;
    ck_assert_int_eq(maddness_train(&ctx, X, count, k, k, C, 6, 0, lambda, &ridge), SMM_OK);
    /* the same trees either way */
    ck_assert(memcmp(means->dims, ridge->dims, (size_t)C * 4 * sizeof(int32_t)) == 0);
    ck_assert(memcmp(means->thresholds, ridge->thresholds, (size_t)C * 15 * sizeof(float)) == 0);
    const int64_t D = 16 * C;
    uint8_t *leaf = malloc((size_t)(count * C));
    for (int64_t i = 0; i < count; i++)
        for (int32_t c = 0; c < C; c++)
            leaf[i * C + c] = (uint8_t)leaf_of(means, X + i * k, c);
    float *U = directions_of(X, count, k); /* what the prototypes fit */
    for (int32_t c = 0; c < C; c++)
        for (int l = 0; l < 16; l++) {
            int64_t cnt = 0;
            double sum[13] = { 0 };
            for (int64_t i = 0; i < count; i++)
                if (leaf[i * C + c] == l) {
                    cnt++;
                    for (int64_t t = 0; t < k; t++)
                        sum[t] += U[i * k + t];
                }
            for (int64_t t = 0; t < k; t++) {
                const float got = means->prototypes[(16 * c + l) * k + t];
                const int inside = t >= means->start[c] && t < means->start[c + 1];
                if (!inside || cnt == 0)
                    ck_assert(got == 0.0f);
                else
                    ck_assert_msg(fabs(got - sum[t] / (double)cnt) <= 1e-6, "mean c %d l %d t %lld", c, l,
                                  (long long)t);
            }
        }
    /* (G^T G + lambda I) P = G^T X, residual relative to |G^T X| */
    double worst = 0.0;
    for (int64_t r = 0; r < D; r++)
        for (int64_t t = 0; t < k; t++) {
            double lhs = lambda * ridge->prototypes[r * k + t], rhs = 0.0, scale = 1.0;
            const int32_t cr = (int32_t)(r / 16);
            for (int64_t i = 0; i < count; i++) {
                if (leaf[i * C + cr] != r % 16)
                    continue;
                rhs += U[i * k + t];
                scale += fabs(U[i * k + t]);
                for (int32_t c2 = 0; c2 < C; c2++)
                    lhs += ridge->prototypes[(16 * c2 + leaf[i * C + c2]) * k + t];
            }
            const double e = fabs(lhs - rhs) / scale;
            worst = e > worst ? e : worst;
        }
    ck_assert_msg(worst < 1e-5, "normal equations: relative residual %g", worst);
    free(leaf), free(U);
    maddness_model_free(means);
    maddness_model_free(ridge);
    test_restore_defaults();
    free(X);
}
END_TEST

/*
 * The relative squared error of the model's inner products <q(a), b> for the
 * queries A (m x k) against the vectors B (n x k): sum (est - exact)^2 /
 * sum exact^2, q(a) = |a| sum_c P_{c, leaf}.
 */
static double product_error(const maddness_model *md, const float *A, int64_t m, const float *B, int64_t n)
{
    const int64_t k = md->k;
    double *q = malloc((size_t)k * sizeof(double));
    ck_assert_ptr_nonnull(q);
    double num = 0.0, den = 0.0;
    for (int64_t i = 0; i < m; i++) {
        const float *a = A + i * k;
        const double norm = 1.0 / reference_inv(a, k, 1);
        for (int64_t t = 0; t < k; t++)
            q[t] = 0.0;
        for (int32_t c = 0; c < md->C; c++) {
            const float *p = md->prototypes + (16 * c + leaf_of(md, a, c)) * k;
            for (int64_t t = 0; t < k; t++)
                q[t] += p[t];
        }
        for (int64_t j = 0; j < n; j++) {
            double est = 0.0, exact = 0.0;
            for (int64_t t = 0; t < k; t++) {
                est += norm * q[t] * B[j * k + t];
                exact += (double)a[t] * B[j * k + t];
            }
            num += (est - exact) * (est - exact);
            den += exact * exact;
        }
    }
    free(q);
    return num / den;
}

/*
 * lambda == 0: chosen from the data. Two cases with few training vectors
 * (n = 600 for 16 C = 512 prototypes), the queries other vectors of the same
 * distribution, the error that of a product against the training vectors
 * (op(B)'s columns, what a plan trains on):
 * - i.i.d. entries: nothing for the ridge to find, and lambda = 1 overfits
 *   (checked: its error is above the leaf means' by more than 10%); the
 *   chosen lambda must stay within 5% of the leaf means;
 * - low-rank data plus noise: the ridge helps (checked: lambda = 1 below the
 *   leaf means by more than 10%); the chosen lambda must stay within 5% of
 *   lambda = 1.
 * The model records the lambda used (explicit: that one; lambda < 0: 0), and
 * the chosen model is bit-identical for 1 and 2 threads.
 */
START_TEST(test_lambda_from_data)
{
    const int64_t n = 600, m = 200, k = 256;
    float *X = malloc((size_t)((n + m) * k) * sizeof(float));
    ck_assert_ptr_nonnull(X);
    /* lowrank 0: i.i.d.; 1: rank 8 plus noise 0.1; 2: rank 8 plus noise 0.001, with 8 codebooks, where a small lambda
       wins (the walk along the grid goes down from its middle: two points side by side on 2 threads, the second
       computed before the first decides whether it is used) */
    for (int lowrank = 0; lowrank < 3; lowrank++) {
        uint64_t rng = 2024 + (uint64_t)lowrank;
        if (!lowrank)
            test_fill_uniform(X, (n + m) * k, &rng);
        else {
            const int r = 8;
            float *U = random_matrix(n + m, r, &rng), *V = random_matrix(r, k, &rng);
            for (int64_t i = 0; i < n + m; i++)
                for (int64_t t = 0; t < k; t++) {
                    double v = (lowrank == 1 ? 0.1 : 0.001) * test_rng_uniform(&rng);
                    for (int p = 0; p < r; p++)
                        v += (double)U[i * r + p] * V[p * k + t];
                    X[i * k + t] = (float)v;
                }
            free(U), free(V);
        }
        const float *B = X, *A = X + n * k;
        const int32_t C = lowrank == 2 ? 8 : 32;
        maddness_model *means = NULL, *one = NULL, *chosen = NULL, *chosen1 = NULL;
        smm_context ctx = context(SMM_ISA_SCALAR, 2);
        ck_assert_int_eq(maddness_train(&ctx, B, n, k, k, C, 11, 0, -1.0, &means), SMM_OK);
        ck_assert_int_eq(maddness_train(&ctx, B, n, k, k, C, 11, 0, 1.0, &one), SMM_OK);
        ck_assert_int_eq(maddness_train(&ctx, B, n, k, k, C, 11, 0, 0.0, &chosen), SMM_OK);
        ctx = context(SMM_ISA_SCALAR, 1);
        ck_assert_int_eq(maddness_train(&ctx, B, n, k, k, C, 11, 0, 0.0, &chosen1), SMM_OK);
        assert_same_model(chosen, chosen1, "lambda from the data, 1 and 2 threads");
        ck_assert(means->lambda == 0.0);
        ck_assert(one->lambda == 1.0);
        ck_assert(chosen->lambda >= 0.0 && isfinite(chosen->lambda));
        const double e_means = product_error(means, A, m, B, n), e_one = product_error(one, A, m, B, n),
                     e_chosen = product_error(chosen, A, m, B, n);
        if (!lowrank) {
            ck_assert_msg(e_one > 1.1 * e_means, "i.i.d.: lambda = 1 should overfit: %g against means %g", e_one,
                          e_means);
            ck_assert_msg(e_chosen <= 1.05 * e_means, "i.i.d.: chosen lambda %g gives %g, leaf means %g",
                          chosen->lambda, e_chosen, e_means);
        } else if (lowrank == 2) {
            const double middle = ldexp((double)n / MADDNESS_LEAVES, -4); /* the grid's middle point */
            ck_assert_msg(chosen->lambda > 0.0 && chosen->lambda <= middle,
                          "low rank, little noise: chosen lambda %g, expected at most %g", chosen->lambda, middle);
            ck_assert_msg(e_chosen <= 1.05 * e_one, "low rank: chosen lambda %g gives %g, lambda = 1 %g",
                          chosen->lambda, e_chosen, e_one);
        } else {
            ck_assert_msg(e_one < 0.9 * e_means, "low rank: lambda = 1 should help: %g against means %g", e_one,
                          e_means);
            ck_assert_msg(e_chosen <= 1.05 * e_one, "low rank: chosen lambda %g gives %g, lambda = 1 %g",
                          chosen->lambda, e_chosen, e_one);
        }
        printf("lambda from the data (%s): chosen %g, error %.4f; leaf means %.4f; lambda = 1 %.4f\n",
               lowrank == 2 ? "low rank, little noise" : lowrank ? "low rank" : "i.i.d.", chosen->lambda, e_chosen, e_means, e_one);
        maddness_model_free(means), maddness_model_free(one), maddness_model_free(chosen),
            maddness_model_free(chosen1);
    }
    test_restore_defaults();
    free(X);
}
END_TEST

/* ======================================================================
 * Tables
 * ====================================================================== */

/* est_ij within C delta_j / 2 (plus the SGEMM's and float evaluation's rounding) of sum_c <P_{c,code}, b_j>. */
static void check_table_bound(int64_t k, int32_t C, int64_t n, int64_t m, uint64_t seed)
{
    uint64_t rng = seed;
    float *B = random_matrix(n, k, &rng); /* columns of op(B) as rows */
    float *A = random_matrix(m, k, &rng);
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    const int64_t D = 16 * (int64_t)C;
    uint8_t *lut = malloc((size_t)(n * D)), *codes = malloc((size_t)pq_codes_bytes(C, m));
    float *scale = malloc((size_t)n * sizeof(float)), *bias = malloc((size_t)n * sizeof(float));
    float *est = malloc((size_t)(n * m) * sizeof(float)), *norms = malloc((size_t)m * sizeof(float));
    double *T = malloc((size_t)D * sizeof(double));
    for (int q = 0; q < nisa; q++) {
        const smm_context ctx = context(isas[q], 2);
        maddness_model *md = NULL;
        ck_assert_int_eq(maddness_train(&ctx, B, n, k, k, C, seed, 0, 0.0, &md), SMM_OK);
        ck_assert_int_eq(maddness_tables(&ctx, md, B, n, k, lut, scale, bias), SMM_OK);
        maddness_encode(&ctx, md, A, m, k, 1, codes, norms);
        /* the scan with the roles swapped: tables of columns x codes of rows = est^T */
        pq_scan_float(isas[q], lut, scale, bias, n, C, codes, 0, m, est, m);
        for (int64_t j = 0; j < n; j++) {
            const uint8_t *L = lut + j * D;
            double widest = 0.0, absum = 0.0;
            for (int32_t c = 0; c < C; c++) {
                double mn = 0.0, mx = 0.0;
                int zero = 0;
                for (int l = 0; l < 16; l++) {
                    double s = 0.0, a = 0.0;
                    for (int64_t t = 0; t < k; t++) {
                        s += (double)md->prototypes[(16 * c + l) * k + t] * (double)B[j * k + t];
                        a += fabs((double)md->prototypes[(16 * c + l) * k + t] * (double)B[j * k + t]);
                    }
                    T[16 * c + l] = s;
                    absum = a > absum ? a : absum;
                    mn = l == 0 || s < mn ? s : mn;
                    mx = l == 0 || s > mx ? s : mx;
                    zero |= L[16 * c + l] == 0;
                }
                ck_assert(zero);
                widest = mx - mn > widest ? mx - mn : widest;
            }
            const double delta = scale[j];
            /* the step from the SGEMM's tables: within float rounding of the double ones */
            ck_assert(fabs(delta * 255.0 - widest) <= 1e-5 * (widest + absum) + 1e-30);
            for (int64_t i = 0; i < m; i++) {
                double exact = 0.0;
                for (int32_t c = 0; c < C; c++)
                    exact += T[16 * c + pq_code_at(codes, C, i, c)];
                const double e = est[j * m + i];
                const double slack = 4.0 * 0x1p-24 * (fabs((double)bias[j]) + fabs(e)) + 2e-5 * C * absum;
                ck_assert_msg(fabs(e - exact) <= (double)C * delta / 2.0 + slack,
                              "%s C %d column %lld row %lld: estimate %.9g prototypes %.9g delta %g",
                              smm_isa_name(isas[q]), C, (long long)j, (long long)i, e, exact, delta);
            }
        }
        maddness_model_free(md);
    }
    test_restore_defaults();
    free(B), free(A), free(lut), free(codes), free(scale), free(bias), free(est), free(T), free(norms);
}

START_TEST(test_table_bound)
{
    check_table_bound(40, 8, 300, 45, 1);
    check_table_bound(41, 13, 600, 33, 2); /* k % C != 0; several table chunks */
    check_table_bound(5, 5, 64, 2, 3);     /* one dimension per codebook */
}
END_TEST

/* ======================================================================
 * Arguments
 * ====================================================================== */

START_TEST(test_bad_arguments)
{
    const int64_t count = 40, k = 8;
    uint64_t rng = 9;
    float X[40 * 8];
    test_fill_uniform(X, count * k, &rng);
    const smm_context ctx = context(SMM_ISA_SCALAR, 1);
    maddness_model *const junk = (maddness_model *)X;
    maddness_model *md = junk;
    ck_assert_int_eq(maddness_train(&ctx, X, count, k, k, 0, 1, 0, 0.0, &md), SMM_ERR_BAD_ARGUMENT);
    ck_assert_ptr_null(md);
    md = junk;
    ck_assert_int_eq(maddness_train(&ctx, X, count, k, k, 9, 1, 0, 0.0, &md), SMM_ERR_BAD_ARGUMENT); /* C > k */
    ck_assert_ptr_null(md);
    md = junk;
    ck_assert_int_eq(maddness_train(&ctx, X, 15, k, k, 2, 1, 0, 0.0, &md), SMM_ERR_BAD_SIZE); /* count < 16 */
    ck_assert_ptr_null(md);
    md = junk;
    ck_assert_int_eq(maddness_train(&ctx, X, count, k, 0, 1, 1, 0, 0.0, &md), SMM_ERR_BAD_SIZE); /* k < 1 */
    ck_assert_ptr_null(md);
    md = junk;
    ck_assert_int_eq(maddness_train(&ctx, X, count, k - 1, k, 2, 1, 0, 0.0, &md), SMM_ERR_BAD_LEADING_DIM);
    ck_assert_ptr_null(md);
    md = junk;
    ck_assert_int_eq(maddness_train(&ctx, X, count, k, k, 2, 1, 15, 0.0, &md), SMM_ERR_BAD_ARGUMENT);
    ck_assert_ptr_null(md);
    md = junk;
    ck_assert_int_eq(maddness_train(&ctx, X, count, k, k, 2, 1, -3, 0.0, &md), SMM_ERR_BAD_ARGUMENT);
    ck_assert_ptr_null(md);
    md = junk;
    ck_assert_int_eq(maddness_train(&ctx, X, count, k, k, 2, 1, 0, NAN, &md), SMM_ERR_BAD_ARGUMENT);
    ck_assert_ptr_null(md);
    md = junk;
    ck_assert_int_eq(maddness_train(&ctx, X, count, k, k, 2, 1, 0, INFINITY, &md), SMM_ERR_BAD_ARGUMENT);
    ck_assert_ptr_null(md);
    md = junk;
    ck_assert_int_eq(maddness_train(&ctx, X, count, k, k, 2, 1, 0, -INFINITY, &md), SMM_ERR_BAD_ARGUMENT);
    ck_assert_ptr_null(md);
    md = junk;
    ck_assert_int_eq(maddness_train(&ctx, NULL, count, k, k, 2, 1, 0, 0.0, &md), SMM_ERR_NULL_POINTER);
    ck_assert_ptr_null(md);
    ck_assert_int_eq(maddness_train(&ctx, X, count, k, k, 2, 1, 0, 0.0, NULL), SMM_ERR_NULL_POINTER);
    md = junk;
    ck_assert_int_eq(maddness_train(NULL, X, count, k, k, 2, 1, 0, 0.0, &md), SMM_ERR_NULL_POINTER);
    ck_assert_ptr_null(md);
    /* C above MADDNESS_MAX_CODEBOOKS (with k large enough): the data is never read */
    md = junk;
    ck_assert_int_eq(maddness_train(&ctx, X, 16, 5000, 5000, MADDNESS_MAX_CODEBOOKS + 1, 1, 0, 0.0, &md),
                     SMM_ERR_BAD_ARGUMENT);
    ck_assert_ptr_null(md);
    /* non-finite values anywhere in X, sampled or not */
    const float bad_values[] = { NAN, INFINITY, -INFINITY };
    for (int b = 0; b < 3; b++) {
        float Y[40 * 8];
        memcpy(Y, X, sizeof Y);
        Y[39 * 8 + 7] = bad_values[b];
        md = junk;
        ck_assert_int_eq(maddness_train(&ctx, Y, count, k, k, 2, 1, 16, 0.0, &md), SMM_ERR_NON_FINITE);
        ck_assert_ptr_null(md);
    }
    /* constant data: every threshold +Inf, one leaf, finite prototypes */
    float Z[32 * 3];
    for (int i = 0; i < 96; i++)
        Z[i] = 1.5f;
    ck_assert_int_eq(maddness_train(&ctx, Z, 32, 3, 3, 3, 1, 0, 0.0, &md), SMM_OK);
    for (int i = 0; i < 3 * 15; i++)
        ck_assert(isinf(md->thresholds[i]));
    for (int i = 0; i < 3 * 16 * 3; i++)
        ck_assert(isfinite(md->prototypes[i]));
    for (int32_t c = 0; c < 3; c++)
        ck_assert_int_eq(leaf_of(md, Z, c), 0);
    maddness_model_free(md);
    maddness_model_free(NULL);
    test_restore_defaults();
}
END_TEST

static Suite *maddness_suite(void)
{
    Suite *s = suite_create("maddness");
    TCase *tc = tcase_create("model");
    tcase_add_test(tc, test_train_encode_deterministic);
    tcase_add_test(tc, test_golden_hash);
    tcase_add_test(tc, test_encode_matches_reference);
    tcase_add_test(tc, test_directions_scale_free);
    tcase_add_test(tc, test_first_split_is_optimal);
    tcase_add_test(tc, test_separable_clusters);
    tcase_add_test(tc, test_means_and_ridge);
    tcase_add_test(tc, test_lambda_from_data);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);

    tc = tcase_create("tables");
    tcase_add_test(tc, test_table_bound);
    tcase_add_test(tc, test_bad_arguments);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(maddness_suite());
}
