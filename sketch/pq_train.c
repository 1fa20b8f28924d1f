/*
 * pq_train.c - product-quantization codebooks: seeded sampling, k-means
 * with 16 centroids per subspace, codebook allocation (see pq.h for the
 * contract and every rule of the algorithm).
 *
 * Plain C for the baseline CPU: the subspaces are independent and each is
 * trained by one thread from start to end in a fixed order (assignment in
 * increasing sample order, centroid sums in double in increasing sample
 * order), so the codebook does not depend on the thread count or the ISA
 * path. The distances vectorise across the 16 centroids (transposed
 * centroids, one lane per centroid), which keeps each centroid's sum in
 * dimension order: vectorised or not, the same float operations run.
 */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "sketch/pq.h"

/* ------------------------------------------------------------------------
 * Codebooks
 * ------------------------------------------------------------------------ */

static smm_status check_shape(int64_t k, int32_t M)
{
    if (k < 1)
        return SMM_ERR_BAD_SIZE;
    if (M < 1 || M > PQ_MAX_SUBSPACES || (int64_t)M > k)
        return SMM_ERR_BAD_ARGUMENT;
    if (k > INT64_MAX / (int64_t)(PQ_CENTROIDS * sizeof(float)) ||
        (uint64_t)k * PQ_CENTROIDS * sizeof(float) > (uint64_t)PTRDIFF_MAX / 2)
        return SMM_ERR_OVERFLOW;
    return SMM_OK;
}

/* A codebook with its offsets set and centroids uninitialised; NULL when memory is short. */
static pq_codebook *codebook_alloc(int64_t k, int32_t M)
{
    pq_codebook *cb = calloc(1, sizeof *cb);
    if (cb == NULL)
        return NULL;
    cb->k = k;
    cb->M = M;
    cb->start = malloc(((size_t)M + 1) * sizeof(int64_t));
    cb->centroids = smm_aligned_alloc((size_t)k * PQ_CENTROIDS * sizeof(float));
    cb->centroids_t = smm_aligned_alloc((size_t)k * PQ_CENTROIDS * sizeof(float));
    if (cb->start == NULL || cb->centroids == NULL || cb->centroids_t == NULL) {
        pq_codebook_free(cb);
        return NULL;
    }
    for (int32_t m = 0; m < M; m++) {
        int64_t lo, hi;
        pq_subspace_range(k, M, m, &lo, &hi);
        cb->start[m] = lo;
    }
    cb->start[M] = k;
    return cb;
}

/* centroids_t from centroids. */
static void codebook_transpose(pq_codebook *cb)
{
    for (int32_t m = 0; m < cb->M; m++) {
        const int64_t lo = cb->start[m], d = cb->start[m + 1] - lo;
        const float *c = cb->centroids + PQ_CENTROIDS * lo;
        float *t = cb->centroids_t + PQ_CENTROIDS * lo;
        for (int cc = 0; cc < PQ_CENTROIDS; cc++)
            for (int64_t u = 0; u < d; u++)
                t[u * PQ_CENTROIDS + cc] = c[cc * d + u];
    }
}

void pq_codebook_free(pq_codebook *cb)
{
    if (cb == NULL)
        return;
    free(cb->start);
    smm_aligned_free(cb->centroids);
    smm_aligned_free(cb->centroids_t);
    free(cb);
}

smm_status pq_codebook_create(int64_t k, int32_t M, const float *centroids, pq_codebook **cb)
{
    if (cb == NULL)
        return SMM_ERR_NULL_POINTER;
    *cb = NULL;
    smm_status st = check_shape(k, M);
    if (st != SMM_OK)
        return st;
    if (centroids != NULL)
        for (int64_t i = 0; i < k * PQ_CENTROIDS; i++)
            if (!isfinite(centroids[i]))
                return SMM_ERR_NON_FINITE;
    pq_codebook *c = codebook_alloc(k, M);
    if (c == NULL)
        return SMM_ERR_NO_MEMORY;
    if (centroids != NULL)
        memcpy(c->centroids, centroids, (size_t)k * PQ_CENTROIDS * sizeof(float));
    else
        memset(c->centroids, 0, (size_t)k * PQ_CENTROIDS * sizeof(float));
    codebook_transpose(c);
    *cb = c;
    return SMM_OK;
}

/* ------------------------------------------------------------------------
 * Seeded sampling
 * ------------------------------------------------------------------------ */

static uint64_t domain_seed(const char *domain, uint64_t seed)
{
    return XXH3_64bits_withSeed(domain, strlen(domain), seed);
}

/* XXH3 of the 8 little-endian bytes of index, seeded (the generator of pq.h). */
static uint64_t index_hash(uint64_t seed, uint64_t index)
{
    unsigned char key[8];
    for (int i = 0; i < 8; i++)
        key[i] = (unsigned char)(index >> (8 * i));
    return XXH3_64bits_withSeed(key, sizeof key, seed);
}

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Smallest power of two >= 2 n (n >= 1). */
static int64_t set_slots(int64_t n)
{
    int64_t s = 2;
    while (s < 2 * n)
        s *= 2;
    return s;
}

/*
 * n distinct integers of [0, N) (1 <= n < N) by Floyd's algorithm (draw j =
 * N - n .. N - 1: t = h(j) mod (j + 1); take t unless already taken, else
 * j), sorted increasing, into out. A hash set of `slots` (a power of two >=
 * 2n) int64_t in set remembers the taken.
 */
static void floyd_sample(uint64_t seed, int64_t N, int64_t n, int64_t *out, int64_t *set, int64_t slots)
{
    for (int64_t s = 0; s < slots; s++)
        set[s] = -1;
    const uint64_t mask = (uint64_t)slots - 1;
    int64_t got = 0;
    for (int64_t j = N - n; j < N; j++) {
        int64_t v = (int64_t)(index_hash(seed, (uint64_t)j) % (uint64_t)(j + 1));
        for (int pass = 0; pass < 2; pass++) {
            uint64_t h = ((uint64_t)v * UINT64_C(0x9E3779B97F4A7C15)) >> 17;
            int found = 0;
            for (;;) {
                const uint64_t slot = h & mask;
                if (set[slot] == v) {
                    found = 1;
                    break;
                }
                if (set[slot] < 0) {
                    set[slot] = v;
                    break;
                }
                h++;
            }
            if (!found)
                break;
            v = j; /* t was taken: j is not (every earlier draw is < j) */
        }
        out[got++] = v;
    }
    qsort(out, (size_t)n, sizeof *out, cmp_i64);
}

smm_status pq_sample_indices(const char *domain, uint64_t seed, int64_t N, int64_t n, int64_t *out)
{
    if (n == N) {
        for (int64_t i = 0; i < n; i++)
            out[i] = i;
        return SMM_OK;
    }
    const int64_t slots = set_slots(n);
    int64_t *set = malloc((size_t)slots * sizeof(int64_t));
    if (set == NULL)
        return SMM_ERR_NO_MEMORY;
    floyd_sample(domain_seed(domain, seed), N, n, out, set, slots);
    free(set);
    return SMM_OK;
}

/* ------------------------------------------------------------------------
 * k-means of one subspace
 * ------------------------------------------------------------------------ */

typedef struct {
    float *xs;      /* n x d sample parts, row-major */
    float *ct;      /* d x 16 centroids, transposed */
    double *sums;   /* 16 x d */
    float *dist;    /* n distances to the assigned centroid */
    uint8_t *assign, *prev; /* n each */
} kmeans_ws;

static void kmeans_subspace(const float *X, int64_t ld, const int64_t *sample, int64_t n, const int64_t *init,
                            int64_t lo, int64_t d, int32_t iters, const kmeans_ws *w, float *out_c, float *out_ct)
{
    float *xs = w->xs, *ct = w->ct, *dist = w->dist;
    double *sums = w->sums;
    uint8_t *assign = w->assign, *prev = w->prev;
    for (int64_t i = 0; i < n; i++)
        memcpy(xs + i * d, X + sample[i] * ld + lo, (size_t)d * sizeof(float));
    for (int c = 0; c < PQ_CENTROIDS; c++)
        for (int64_t t = 0; t < d; t++)
            ct[t * PQ_CENTROIDS + c] = xs[init[c] * d + t];

    memset(prev, 0, (size_t)n);
    int have_prev = 0, prev_empty = 0;
    for (int32_t it = 0; it < iters; it++) {
        int changed = 0;
        for (int64_t i = 0; i < n; i++) {
            const int a = pq_nearest_centroid(xs + i * d, ct, d, dist + i);
            assign[i] = (uint8_t)a;
            changed |= a != prev[i];
        }
        if (have_prev && !changed && !prev_empty)
            break; /* a fixed point: the update would give the same centroids */
        memcpy(prev, assign, (size_t)n);
        have_prev = 1;

        int64_t cnt[PQ_CENTROIDS] = { 0 };
        memset(sums, 0, (size_t)PQ_CENTROIDS * (size_t)d * sizeof(double));
        for (int64_t i = 0; i < n; i++) {
            const int a = assign[i];
            cnt[a]++;
            double *s = sums + a * d;
            const float *x = xs + i * d;
            for (int64_t t = 0; t < d; t++)
                s[t] += (double)x[t];
        }
        prev_empty = 0;
        for (int c = 0; c < PQ_CENTROIDS; c++)
            if (cnt[c] > 0)
                for (int64_t t = 0; t < d; t++)
                    ct[t * PQ_CENTROIDS + c] = (float)(sums[c * d + t] / (double)cnt[c]);
        for (int c = 0; c < PQ_CENTROIDS; c++) {
            if (cnt[c] > 0)
                continue;
            prev_empty = 1;
            int64_t best = -1;
            float bestd = 0.0f;
            for (int64_t i = 0; i < n; i++)
                if (dist[i] > bestd) {
                    bestd = dist[i];
                    best = i;
                }
            if (best < 0)
                continue; /* every vector sits on its centroid: keep this one */
            for (int64_t t = 0; t < d; t++)
                ct[t * PQ_CENTROIDS + c] = xs[best * d + t];
            dist[best] = -1.0f; /* used */
        }
    }
    for (int c = 0; c < PQ_CENTROIDS; c++)
        for (int64_t t = 0; t < d; t++)
            out_c[c * d + t] = ct[t * PQ_CENTROIDS + c];
    memcpy(out_ct, ct, (size_t)PQ_CENTROIDS * (size_t)d * sizeof(float));
}

/* ------------------------------------------------------------------------
 * pq_train
 * ------------------------------------------------------------------------ */

smm_status pq_train(const smm_context *ctx, const float *X, int64_t count, int64_t ld, int64_t k, int32_t M,
                    uint64_t seed, int32_t iters, int64_t max_train, pq_codebook **cb)
{
    if (cb == NULL)
        return SMM_ERR_NULL_POINTER;
    *cb = NULL;
    if (ctx == NULL || X == NULL)
        return SMM_ERR_NULL_POINTER;
    smm_status st = check_shape(k, M);
    if (st != SMM_OK)
        return st;
    if (count < PQ_CENTROIDS)
        return SMM_ERR_BAD_SIZE;
    st = smm_check_matrix(SMM_ROW_MAJOR, count, k, X, ld, sizeof(float));
    if (st != SMM_OK)
        return st;
    if (iters < 0 || max_train < 0 || (max_train > 0 && max_train < PQ_CENTROIDS))
        return SMM_ERR_BAD_ARGUMENT;
    if (iters == 0)
        iters = PQ_DEFAULT_ITERS;
    if (max_train == 0)
        max_train = PQ_DEFAULT_MAX_TRAIN;
    if (!pq_all_finite(ctx, X, count, k, ld))
        return SMM_ERR_NON_FINITE;

    const int64_t n = count < max_train ? count : max_train;
    const int64_t dmax = (k + M - 1) / M;
    int threads = ctx->threads < 1 ? 1 : ctx->threads;
    if (threads > M)
        threads = M;

    /* per-thread workspace: xs, ct, sums, dist, assign, prev */
    const size_t xs_b = (size_t)n * (size_t)dmax * sizeof(float);
    const size_t ct_b = (size_t)PQ_CENTROIDS * (size_t)dmax * sizeof(float);
    const size_t sums_b = (size_t)PQ_CENTROIDS * (size_t)dmax * sizeof(double);
    const size_t dist_b = (size_t)n * sizeof(float);
    const size_t per = smm_piece(xs_b) + smm_piece(ct_b) + smm_piece(sums_b) + smm_piece(dist_b) +
                       2 * smm_piece((size_t)n);
    /* n * dmax <= count * k floats, which smm_check_matrix found to fit */
    if (per > (size_t)PTRDIFF_MAX / (size_t)threads)
        return SMM_ERR_OVERFLOW;

    int64_t *sample = malloc((size_t)n * sizeof(int64_t));
    int64_t init[PQ_CENTROIDS];
    char *work = smm_aligned_alloc(per * (size_t)threads);
    pq_codebook *c = codebook_alloc(k, M);
    if (sample == NULL || work == NULL || c == NULL || pq_sample_indices("pq_train_sample", seed, count, n, sample) != SMM_OK ||
        pq_sample_indices("pq_train_init", seed, n, PQ_CENTROIDS, init) != SMM_OK) {
        free(sample);
        smm_aligned_free(work);
        pq_codebook_free(c);
        return SMM_ERR_NO_MEMORY;
    }

    #pragma omp parallel num_threads(threads) if (threads > 1)
    {
        char *mine = work + per * (size_t)omp_get_thread_num();
        kmeans_ws w;
        w.xs = smm_carve(&mine, xs_b);
        w.ct = smm_carve(&mine, ct_b);
        w.sums = smm_carve(&mine, sums_b);
        w.dist = smm_carve(&mine, dist_b);
        w.assign = smm_carve(&mine, (size_t)n);
        w.prev = smm_carve(&mine, (size_t)n);
        #pragma omp for schedule(dynamic, 1)
        for (int32_t m = 0; m < M; m++) {
            const int64_t lo = c->start[m], d = c->start[m + 1] - lo;
            kmeans_subspace(X, ld, sample, n, init, lo, d, iters, &w, c->centroids + PQ_CENTROIDS * lo,
                            c->centroids_t + PQ_CENTROIDS * lo);
        }
    }
    free(sample);
    smm_aligned_free(work);
    *cb = c;
    return SMM_OK;
}
