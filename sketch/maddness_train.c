/*
 * maddness_train.c - MADDNESS models of directions: the hash trees (greedy
 * level by level, optimal splits by sorting and running sums), the
 * bucket-mean prototypes and their ridge-regression refinement (Cholesky in
 * double) with lambda given or chosen on a held-out part of the training
 * vectors, model allocation (see maddness.h for every rule).
 *
 * Plain C for the baseline CPU. Each codebook's tree is built by one thread
 * from start to end; the ridge system's counts are integers, its sums run in
 * increasing sample order, and every entry of the Cholesky factor and of the
 * triangular solves is computed by one thread in a fixed order (threads
 * split rows or columns, never a sum), the held-out part comes from the seed
 * and its errors are summed in order, so the model does not depend on the
 * thread count or the ISA path.
 */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "sketch/maddness.h"

/* Training vectors x dimensions below which the parallel loops stay on one thread. */
#define MD_PARALLEL_MIN_WORK 65536

/* ------------------------------------------------------------------------
 * Models
 * ------------------------------------------------------------------------ */

void maddness_model_free(maddness_model *md)
{
    if (md == NULL)
        return;
    free(md->start);
    free(md->dims);
    free(md->thresholds);
    smm_aligned_free(md->prototypes);
    free(md);
}

/* A model with its offsets set, prototypes zero, trees uninitialised; NULL when memory is short. */
static maddness_model *model_alloc(int64_t k, int32_t C)
{
    maddness_model *md = calloc(1, sizeof *md);
    if (md == NULL)
        return NULL;
    md->k = k;
    md->C = C;
    md->start = malloc(((size_t)C + 1) * sizeof(int64_t));
    md->dims = malloc((size_t)C * MADDNESS_LEVELS * sizeof(int32_t));
    md->thresholds = malloc((size_t)C * MADDNESS_NODES * sizeof(float));
    md->prototypes = smm_aligned_alloc((size_t)C * MADDNESS_LEAVES * (size_t)k * sizeof(float));
    if (md->start == NULL || md->dims == NULL || md->thresholds == NULL || md->prototypes == NULL) {
        maddness_model_free(md);
        return NULL;
    }
    memset(md->prototypes, 0, (size_t)C * MADDNESS_LEAVES * (size_t)k * sizeof(float));
    for (int32_t c = 0; c < C; c++) {
        int64_t lo, hi;
        pq_subspace_range(k, C, c, &lo, &hi);
        md->start[c] = lo;
    }
    md->start[C] = k;
    return md;
}

/* ------------------------------------------------------------------------
 * Trees
 * ------------------------------------------------------------------------ */

/* One value of a bucket's vector along the candidate dimension, with its sample position (the tie rule). */
typedef struct {
    float v;
    int32_t pos;
} keyed;

/* An unsigned key in the order of the floats (-0 as +0, so equal values have equal keys). */
static inline uint32_t float_key(float v)
{
    if (v == 0.0f)
        v = 0.0f;
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return (u & UINT32_C(0x80000000)) ? ~u : (u | UINT32_C(0x80000000));
}

/*
 * Sort a[0 .. n-1] by value, stably (a stable LSD radix sort, 4 passes of 8
 * bits, a pass skipped when every key has the same byte there), tmp: n more.
 * The caller fills a in increasing position, so ties stay in that order: the
 * result is sorted by (value, position).
 */
static void sort_keyed(keyed *a, keyed *tmp, int64_t n)
{
    for (int shift = 0; shift < 32; shift += 8) {
        int64_t cnt[257] = { 0 };
        for (int64_t i = 0; i < n; i++)
            cnt[((float_key(a[i].v) >> shift) & 255) + 1]++;
        int same = 0;
        for (int b = 1; b <= 256; b++)
            same |= cnt[b] == n;
        if (same)
            continue;
        for (int b = 0; b < 256; b++)
            cnt[b + 1] += cnt[b];
        for (int64_t i = 0; i < n; i++)
            tmp[cnt[(float_key(a[i].v) >> shift) & 255]++] = a[i];
        memcpy(a, tmp, (size_t)n * sizeof *a);
    }
}

/* One thread's workspace for the trees of its codebooks (dmax: the longest subspace). */
typedef struct {
    float *xs;        /* n x d subspace parts of the sample, row-major */
    uint8_t *node;    /* n: current node (bucket) of each vector */
    int32_t *members; /* n: sample positions grouped by bucket, increasing within a bucket */
    keyed *sorted;    /* n */
    keyed *tmp;       /* n: the sort's other buffer */
    double *s1, *s2;  /* 8 x dmax: per-bucket sums of x and x^2 (then 16 x dmax for the leaf means) */
    double *var;      /* dmax: V_u */
    double *l1, *l2;  /* dmax: running sums of the left part */
} tree_ws;

/*
 * The optimal split of one bucket (members m[0 .. cnt-1], sums s1, s2 over the
 * d dimensions) along dimension u: *thr and the loss; thr = +Inf and the
 * bucket's own SSE when no cut separates two different values.
 */
static double best_split(const tree_ws *w, const int32_t *m, int64_t cnt, int64_t d, int64_t u, const double *s1,
                         const double *s2, float *thr)
{
    double whole = 0.0;
    for (int64_t t = 0; t < d; t++)
        whole += cnt > 0 ? s2[t] - s1[t] * s1[t] / (double)cnt : 0.0;
    *thr = INFINITY;
    if (cnt < 2)
        return whole;
    keyed *sorted = w->sorted;
    for (int64_t i = 0; i < cnt; i++) {
        sorted[i].v = w->xs[(int64_t)m[i] * d + u];
        sorted[i].pos = m[i];
    }
    sort_keyed(sorted, w->tmp, cnt); /* members come in increasing position: ties stay in that order */
    double *l1 = w->l1, *l2 = w->l2;
    for (int64_t t = 0; t < d; t++)
        l1[t] = l2[t] = 0.0;
    double best = 0.0;
    int64_t best_p = 0;
    for (int64_t p = 1; p < cnt; p++) {
        const float *x = w->xs + (int64_t)sorted[p - 1].pos * d;
        for (int64_t t = 0; t < d; t++) {
            const double v = (double)x[t];
            l1[t] += v;
            l2[t] += v * v;
        }
        if (!(sorted[p - 1].v < sorted[p].v))
            continue; /* equal values cannot be told apart by a threshold */
        const double nl = (double)p, nr = (double)(cnt - p);
        double loss = 0.0;
        for (int64_t t = 0; t < d; t++) {
            const double r1 = s1[t] - l1[t], r2 = s2[t] - l2[t];
            loss += (l2[t] - l1[t] * l1[t] / nl) + (r2 - r1 * r1 / nr);
        }
        if (best_p == 0 || loss < best) {
            best = loss;
            best_p = p;
        }
    }
    if (best_p == 0)
        return whole;
    const float a = sorted[best_p - 1].v, b = sorted[best_p].v;
    float mid = (float)(((double)a + (double)b) * 0.5);
    *thr = mid > a ? mid : b; /* a < thr <= b: exactly the first best_p go left */
    return best;
}

/*
 * The tree of codebook c (dimensions lo .. lo + d - 1) on the directions of
 * the n sample vectors (sample[i] rows of X, inv[i] their inv(x)), into md's
 * dims and thresholds; leaves[i * C + c] = the leaf of sample vector i; the
 * leaf means into md's prototypes.
 */
static void train_tree(const float *X, int64_t ld, const int64_t *sample, const double *inv, int64_t n,
                       const tree_ws *w, maddness_model *md, int32_t c, uint8_t *leaves)
{
    const int64_t lo = md->start[c], d = md->start[c + 1] - lo;
    const int32_t C = md->C;
    float *xs = w->xs;
    uint8_t *node = w->node;
    int32_t *members = w->members;
    double *s1 = w->s1, *s2 = w->s2, *var = w->var;
    for (int64_t i = 0; i < n; i++) {
        const float *x = X + sample[i] * ld + lo;
        for (int64_t u = 0; u < d; u++)
            xs[i * d + u] = maddness_direction(x[u], inv[i]);
        node[i] = 0;
    }
    for (int t = 0; t < MADDNESS_LEVELS; t++) {
        const int nb = 1 << t;
        /* members grouped by bucket (a counting sort: increasing sample order within each) */
        int64_t cnt[MADDNESS_LEAVES] = { 0 }, off[MADDNESS_LEAVES + 1] = { 0 };
        for (int64_t i = 0; i < n; i++)
            cnt[node[i]]++;
        for (int b = 0; b < nb; b++)
            off[b + 1] = off[b] + cnt[b];
        {
            int64_t fill[MADDNESS_LEAVES];
            memcpy(fill, off, sizeof fill);
            for (int64_t i = 0; i < n; i++)
                members[fill[node[i]]++] = (int32_t)i;
        }
        /* per-bucket sums and V_u (buckets in order) */
        for (int64_t u = 0; u < d; u++)
            var[u] = 0.0;
        for (int b = 0; b < nb; b++) {
            double *b1 = s1 + (int64_t)b * d, *b2 = s2 + (int64_t)b * d;
            for (int64_t u = 0; u < d; u++)
                b1[u] = b2[u] = 0.0;
            for (int64_t q = off[b]; q < off[b + 1]; q++) {
                const float *x = xs + (int64_t)members[q] * d;
                for (int64_t u = 0; u < d; u++) {
                    const double v = (double)x[u];
                    b1[u] += v;
                    b2[u] += v * v;
                }
            }
            if (cnt[b] > 0)
                for (int64_t u = 0; u < d; u++)
                    var[u] += b2[u] - b1[u] * b1[u] / (double)cnt[b];
        }
        /* the candidates: largest V_u first, ties to the smaller u */
        int64_t cand[MADDNESS_SPLIT_CANDIDATES];
        const int ncand = d < MADDNESS_SPLIT_CANDIDATES ? (int)d : MADDNESS_SPLIT_CANDIDATES;
        for (int q = 0; q < ncand; q++) {
            int64_t best = -1;
            for (int64_t u = 0; u < d; u++) {
                int taken = 0;
                for (int r = 0; r < q; r++)
                    taken |= cand[r] == u;
                if (!taken && (best < 0 || var[u] > var[best]))
                    best = u;
            }
            cand[q] = best;
        }
        /* the candidate whose optimal splits lose least */
        float thr[MADDNESS_SPLIT_CANDIDATES][8];
        int chosen = 0;
        double chosen_loss = 0.0;
        for (int q = 0; q < ncand; q++) {
            double total = 0.0;
            for (int b = 0; b < nb; b++)
                total += best_split(w, members + off[b], cnt[b], d, cand[q], s1 + (int64_t)b * d, s2 + (int64_t)b * d,
                                    &thr[q][b]);
            if (q == 0 || total < chosen_loss) {
                chosen = q;
                chosen_loss = total;
            }
        }
        const int64_t u = cand[chosen];
        md->dims[(int64_t)MADDNESS_LEVELS * c + t] = (int32_t)(lo + u);
        float *level = md->thresholds + (int64_t)MADDNESS_NODES * c + (nb - 1);
        for (int b = 0; b < nb; b++)
            level[b] = thr[chosen][b];
        for (int64_t i = 0; i < n; i++)
            node[i] = (uint8_t)(2 * node[i] + (xs[i * d + u] >= level[node[i]]));
    }
    /* leaves and their means (in the subspace; an empty leaf keeps 0) */
    int64_t cnt[MADDNESS_LEAVES] = { 0 };
    for (int64_t u = 0; u < MADDNESS_LEAVES * d; u++)
        s1[u] = 0.0;
    for (int64_t i = 0; i < n; i++) {
        const int l = node[i];
        leaves[i * C + c] = (uint8_t)l;
        cnt[l]++;
        const float *x = xs + i * d;
        for (int64_t u = 0; u < d; u++)
            s1[l * d + u] += (double)x[u];
    }
    for (int l = 0; l < MADDNESS_LEAVES; l++)
        if (cnt[l] > 0)
            for (int64_t u = 0; u < d; u++)
                md->prototypes[((int64_t)MADDNESS_LEAVES * c + l) * md->k + lo + u] =
                    (float)(s1[l * d + u] / (double)cnt[l]);
}

/* ------------------------------------------------------------------------
 * Ridge regression: (G^T G + lambda I) P = G^T X
 * ------------------------------------------------------------------------ */

/* Pivots per panel of the blocked factorisation and forward solve; columns per chunk of the solves. */
#define MD_PANEL 16
#define MD_SOLVE_COLS 64

/* Entries kept in registers per block of subtract_panel. */
#define MD_BLOCK 16

/*
 * y[t] -= a[0] u[t] + ... (as y[t] - a[0] u[t] - a[1] u[ld + t] - ... -
 * a[m-1] u[(m-1) ld + t], subtracted in that order) for t = t0 .. t1 - 1:
 * the rows of u in increasing order for each entry, MD_BLOCK entries at a
 * time held in registers (the same operations as one row of u at a time).
 */
#if defined(__GNUC__) && !defined(__clang__)
/* GCC would vectorise the loop over rows (strided loads); the block's entries vectorise instead (SLP). */
__attribute__((optimize("no-tree-loop-vectorize")))
#endif
static void subtract_panel(double *restrict y, const double *restrict u, int64_t ld, const double *a, int64_t m,
                           int64_t t0, int64_t t1)
{
    int64_t t = t0;
    for (; t + MD_BLOCK <= t1; t += MD_BLOCK) {
        double v[MD_BLOCK];
        for (int j = 0; j < MD_BLOCK; j++)
            v[j] = y[t + j];
        for (int64_t r = 0; r < m; r++) {
            const double ar = a[r], *ur = u + r * ld + t;
            for (int j = 0; j < MD_BLOCK; j++)
                v[j] -= ar * ur[j];
        }
        for (int j = 0; j < MD_BLOCK; j++)
            y[t + j] = v[j];
    }
    for (; t < t1; t++) {
        double v = y[t];
        for (int64_t r = 0; r < m; r++)
            v -= a[r] * u[r * ld + t];
        y[t] = v;
    }
}

/*
 * Cholesky A = U^T U of the D x D symmetric positive definite A (row-major,
 * upper triangle read and overwritten by U; the lower triangle is left as it
 * is). Entry (q, p), q <= p, is
 *     A[q][p] - U[0][q] U[0][p] - U[1][q] U[1][p] - ... - U[q-1][q] U[q-1][p]
 * subtracted in that order (increasing i), then the square root (diagonal)
 * or the division by U[q][q]: the same operations as the textbook
 * row-by-row algorithm, here applied right-looking in panels of MD_PANEL
 * pivots (the panel's rows first, then the rows below, in parallel over
 * rows: each row by one thread), so the result does not depend on the
 * threads. SMM_ERR_NON_FINITE when a pivot is not positive.
 */
static smm_status cholesky_upper(double *A, int64_t D, int threads)
{
    for (int64_t i0 = 0; i0 < D; i0 += MD_PANEL) {
        const int64_t i1 = D - i0 < MD_PANEL ? D : i0 + MD_PANEL;
        for (int64_t i = i0; i < i1; i++) {
            double *Ai = A + i * D, a[MD_PANEL];
            for (int64_t r = i0; r < i; r++)
                a[r - i0] = A[r * D + i];
            subtract_panel(Ai, A + i0 * D, D, a, i - i0, i, D);
            if (!(Ai[i] > 0.0) || !isfinite(Ai[i]))
                return SMM_ERR_NON_FINITE;
            const double piv = sqrt(Ai[i]);
            Ai[i] = piv;
            for (int64_t p = i + 1; p < D; p++)
                Ai[p] /= piv;
        }
        const int64_t rows = D - i1;
#pragma omp parallel for num_threads(threads) schedule(static) if (rows * (D - i1) >= MD_PARALLEL_MIN_WORK)
        for (int64_t q = i1; q < D; q++) {
            double a[MD_PANEL];
            for (int64_t r = i0; r < i1; r++)
                a[r - i0] = A[r * D + q];
            subtract_panel(A + q * D, A + i0 * D, D, a, i1 - i0, q, D);
        }
    }
    return SMM_OK;
}

/*
 * Columns c0 .. c1 - 1 of U^T Y = R, then U P = Y (U: the factor in A's
 * upper triangle), in place in R (D x k, row-major). Entry (q, t) of Y is
 * (R[q][t] - U[0][q] Y[0][t] - ... - U[q-1][q] Y[q-1][t]) / U[q][q] in that
 * order (right-looking in panels: the same operations); entry (i, t) of P
 * is (Y[i][t] - U[i][i+1] P[i+1][t] - ... - U[i][D-1] P[D-1][t]) / U[i][i].
 */
static void solve_chunk(const double *A, int64_t D, double *R, int64_t k, int64_t c0, int64_t c1)
{
    for (int64_t i0 = 0; i0 < D; i0 += MD_PANEL) {
        const int64_t i1 = D - i0 < MD_PANEL ? D : i0 + MD_PANEL;
        for (int64_t i = i0; i < i1; i++) {
            double *yi = R + i * k, a[MD_PANEL];
            for (int64_t r = i0; r < i; r++)
                a[r - i0] = A[r * D + i];
            subtract_panel(yi, R + i0 * k, k, a, i - i0, c0, c1);
            const double piv = A[i * D + i];
            for (int64_t t = c0; t < c1; t++)
                yi[t] /= piv;
        }
        for (int64_t q = i1; q < D; q++) {
            double a[MD_PANEL];
            for (int64_t r = i0; r < i1; r++)
                a[r - i0] = A[r * D + q];
            subtract_panel(R + q * k, R + i0 * k, k, a, i1 - i0, c0, c1);
        }
    }
    for (int64_t i = D - 1; i >= 0; i--) {
        double *pi = R + i * k;
        const double *Ui = A + i * D;
        subtract_panel(pi, R + (i + 1) * k, k, Ui + i + 1, D - 1 - i, c0, c1);
        const double piv = Ui[i];
        for (int64_t t = c0; t < c1; t++)
            pi[t] /= piv;
    }
}

/*
 * The lower triangle (diagonal included) of G^T G over the training vectors
 * rows[0 .. nrows-1] (positions in the sample; rows NULL: 0 .. nrows-1),
 * into A (D x D, D = 16 C; integer counts), and the D x ncols matrix G^T X
 * over the dimensions cols[0 .. ncols-1] (cols NULL: 0 .. ncols-1) of their
 * directions, into R. The rows of codebook c by one thread, vectors in the
 * order of rows.
 */
static void ridge_sums(const float *X, int64_t ld, const int64_t *sample, const double *inv, const int32_t *rows,
                       int64_t nrows, const uint8_t *leaves, int32_t C, const int64_t *cols, int64_t ncols, double *A,
                       double *R, int threads)
{
    const int64_t D = (int64_t)MADDNESS_LEAVES * C;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if ((double)nrows * (double)ncols >= MD_PARALLEL_MIN_WORK)
    for (int32_t c = 0; c < C; c++) {
        double *arows = A + (int64_t)MADDNESS_LEAVES * c * D;
        double *rhs = R + (int64_t)MADDNESS_LEAVES * c * ncols;
        memset(arows, 0, (size_t)(MADDNESS_LEAVES * D) * sizeof(double));
        memset(rhs, 0, (size_t)(MADDNESS_LEAVES * ncols) * sizeof(double));
        for (int64_t q = 0; q < nrows; q++) {
            const int64_t i = rows != NULL ? rows[q] : q;
            const uint8_t *lv = leaves + i * C;
            double *row = arows + (int64_t)lv[c] * D;
            for (int32_t c2 = 0; c2 <= c; c2++)
                row[(int64_t)MADDNESS_LEAVES * c2 + lv[c2]] += 1.0;
            double *r = rhs + (int64_t)lv[c] * ncols;
            const float *x = X + sample[i] * ld;
            for (int64_t j = 0; j < ncols; j++)
                r[j] += (double)maddness_direction(x[cols != NULL ? cols[j] : j], inv[i]);
        }
    }
}

/*
 * (G^T G + lambda I) P = R for the D x ncols right-hand side R, P in place
 * in R. A: G^T G in its lower triangle (left as it is), its diagonal also in
 * diag (the factorisation overwrites A's diagonal and upper triangle, so the
 * same A serves the next lambda). SMM_ERR_NON_FINITE when a pivot is not
 * positive (R is then left as it was).
 */
static smm_status ridge_solve(double *A, const double *diag, int64_t D, double lambda, double *R, int64_t ncols,
                              int threads)
{
    for (int64_t i = 0; i < D; i++) {
        for (int64_t j = 0; j < i; j++)
            A[j * D + i] = A[i * D + j];
        A[i * D + i] = diag[i] + lambda;
    }
    if (cholesky_upper(A, D, threads) != SMM_OK)
        return SMM_ERR_NON_FINITE;
    /* U^T Y = R, then U P = Y, in place in R; columns in chunks (each entry: a fixed order) */
    const int64_t chunks = (ncols + MD_SOLVE_COLS - 1) / MD_SOLVE_COLS;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if ((double)D * (double)ncols >= MD_PARALLEL_MIN_WORK)
    for (int64_t ch = 0; ch < chunks; ch++) {
        const int64_t c0 = ch * MD_SOLVE_COLS, c1 = ncols - c0 < MD_SOLVE_COLS ? ncols : c0 + MD_SOLVE_COLS;
        solve_chunk(A, D, R, ncols, c0, c1);
    }
    return SMM_OK;
}

/* ------------------------------------------------------------------------
 * lambda from the data: held-out error over a grid
 * ------------------------------------------------------------------------ */

/* One training vector in MD_HOLDOUT_DIV held out; training directions the held-out error is measured against (at most). */
#define MD_HOLDOUT_DIV 5
#define MD_PROBES 64
/* The grid: lambda = s 4^j for j = MD_GRID_LOW .. MD_GRID_LOW + MD_GRID - 1, s the mean leaf size. */
#define MD_GRID 5
#define MD_GRID_LOW (-4)
/* The walk along the grid starts at this point and the next. */
#define MD_GRID_START 2
/* At most this much memory in extra copies of G^T G for the candidates run side by side. */
#define MD_SELECT_COPY_BYTES ((size_t)64 << 20)

/*
 * Sum over the held-out vectors held[0 .. nh-1] of the squared errors of
 * their inner products with the probes: Y (nh x np) the exact ones, P
 * (D x np) the prototypes' (vectors and probes in order, in double).
 */
static double heldout_error(const double *P, int64_t np, const double *Y, const int32_t *held, int64_t nh,
                            const uint8_t *leaves, int32_t C, double *q)
{
    double err = 0.0;
    for (int64_t h = 0; h < nh; h++) {
        const uint8_t *lv = leaves + (int64_t)held[h] * C;
        for (int64_t j = 0; j < np; j++)
            q[j] = 0.0;
        for (int32_t c = 0; c < C; c++) {
            const double *p = P + ((int64_t)MADDNESS_LEAVES * c + lv[c]) * np;
            for (int64_t j = 0; j < np; j++)
                q[j] += p[j];
        }
        for (int64_t j = 0; j < np; j++) {
            const double e = Y[h * np + j] - q[j];
            err += e * e;
        }
    }
    return err;
}

/*
 * The lambda of the ridge regression chosen on the sample (maddness.h,
 * "lambda from the data"), as a multiple of the mean leaf size (0: the leaf
 * means win), into *mult. A: D x D workspace.
 */
static smm_status choose_lambda(const float *X, int64_t ld, int64_t k, const int64_t *sample, const double *inv,
                                int64_t n, const uint8_t *leaves, const maddness_model *md, uint64_t seed, double *A,
                                int threads, double *mult)
{
    const int32_t C = md->C;
    const int64_t D = (int64_t)MADDNESS_LEAVES * C;
    const int64_t nh = n / MD_HOLDOUT_DIV, nf = n - nh;
    const int64_t np = nf < MD_PROBES ? nf : MD_PROBES;
    int64_t *held64 = malloc((size_t)nh * sizeof(int64_t));
    int32_t *fit = malloc((size_t)nf * sizeof(int32_t)), *held = malloc((size_t)nh * sizeof(int32_t));
    double *Zt = malloc((size_t)(k * np) * sizeof(double));
    double *F = malloc((size_t)(n * np) * sizeof(double));
    double *diag = malloc((size_t)D * sizeof(double));
    double *Rz = malloc((size_t)(D * np) * sizeof(double)), *P = malloc((size_t)(D * np) * sizeof(double));
    double *M = malloc((size_t)(MADDNESS_LEAVES * k) * sizeof(double));
    double *Y = malloc((size_t)(nh * np) * sizeof(double)), *q = malloc((size_t)np * sizeof(double));
    smm_status st = SMM_ERR_NO_MEMORY;
    if (held64 == NULL || fit == NULL || held == NULL || Zt == NULL || F == NULL || diag == NULL || Rz == NULL ||
        P == NULL || M == NULL || Y == NULL || q == NULL ||
        pq_sample_indices("maddness_ridge_holdout", seed, n, nh, held64) != SMM_OK)
        goto done;
    st = SMM_OK;
    /* the split (positions increasing in both parts); the probes (Zt: k x np): directions of fitting vectors,
       evenly spread */
    for (int64_t i = 0, h = 0, f = 0; i < n; i++) {
        if (h < nh && held64[h] == i)
            held[h++] = (int32_t)i;
        else
            fit[f++] = (int32_t)i;
    }
    for (int64_t j = 0; j < np; j++) {
        const int64_t i = fit[j * nf / np];
        const float *x = X + sample[i] * ld;
        for (int64_t t = 0; t < k; t++)
            Zt[t * np + j] = (double)maddness_direction(x[t], inv[i]);
    }
    /* F (n x np): every training direction's inner products with the probes, inv(x) sum_t x_t z_t (t increasing;
       as 0 - (-x_0) z_0 - (-x_1) z_1 - ..., the same bits: a - (-b) is a + b) */
    double *negx = malloc((size_t)threads * (size_t)k * sizeof(double));
    if (negx == NULL) {
        st = SMM_ERR_NO_MEMORY;
        goto done;
    }
#pragma omp parallel for num_threads(threads) schedule(static) if ((double)n * (double)np * (double)k >= MD_PARALLEL_MIN_WORK)
    for (int64_t i = 0; i < n; i++) {
        const float *x = X + sample[i] * ld;
        double *a = negx + (int64_t)omp_get_thread_num() * k, *f = F + i * np;
        for (int64_t t = 0; t < k; t++)
            a[t] = -(double)x[t];
        for (int64_t j = 0; j < np; j++)
            f[j] = 0.0;
        subtract_panel(f, Zt, np, a, k, 0, np);
        for (int64_t j = 0; j < np; j++)
            f[j] *= inv[i];
    }
    free(negx);
    for (int64_t h = 0; h < nh; h++)
        memcpy(Y + h * np, F + (int64_t)held[h] * np, (size_t)np * sizeof(double));
    /* G^T G of the fitting part; per leaf, the sum of its vectors' inner products with the probes (Rz) and of
       its vectors in the codebook's subspace (M: 16 x d_c at 16 start[c]) */
    ridge_sums(X, ld, sample, inv, fit, nf, leaves, C, NULL, 0, A, Rz, threads);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if ((double)nf * (double)(np + k / C) >= MD_PARALLEL_MIN_WORK)
    for (int32_t c = 0; c < C; c++) {
        const int64_t lo = md->start[c], d = md->start[c + 1] - lo;
        double *rz = Rz + (int64_t)MADDNESS_LEAVES * c * np, *mc = M + MADDNESS_LEAVES * lo;
        memset(rz, 0, (size_t)(MADDNESS_LEAVES * np) * sizeof(double));
        memset(mc, 0, (size_t)(MADDNESS_LEAVES * d) * sizeof(double));
        for (int64_t f = 0; f < nf; f++) {
            const int64_t i = fit[f], l = leaves[i * C + c];
            const float *x = X + sample[i] * ld + lo;
            for (int64_t j = 0; j < np; j++)
                rz[l * np + j] += F[i * np + j];
            for (int64_t u = 0; u < d; u++)
                mc[l * d + u] += (double)maddness_direction(x[u], inv[i]);
        }
    }
    double trace = 0.0;
    for (int64_t r = 0; r < D; r++)
        trace += diag[r] = A[r * D + r];
    const double s = trace / (double)D; /* nf C / 16 C: the mean leaf size */
    /* the leaf means' inner products with the probes (an empty leaf: 0) */
    for (int32_t c = 0; c < C; c++) {
        const int64_t lo = md->start[c], d = md->start[c + 1] - lo;
        for (int l = 0; l < MADDNESS_LEAVES; l++) {
            const int64_t r = (int64_t)MADDNESS_LEAVES * c + l;
            const double *mean = M + MADDNESS_LEAVES * lo + l * d;
            for (int64_t j = 0; j < np; j++) {
                double dot = 0.0;
                for (int64_t u = 0; u < d; u++)
                    dot += mean[u] * Zt[(lo + u) * np + j];
                P[r * np + j] = diag[r] > 0.0 ? dot / diag[r] : 0.0;
            }
        }
    }
    double best = heldout_error(P, np, Y, held, nh, leaves, C, q);
    *mult = 0.0;
    /* the candidates side by side, one thread each with its own copy of G^T G (while the copies stay within
       MD_SELECT_COPY_BYTES; one at a time otherwise, each factorisation in parallel): the same operations
       either way */
    const size_t abytes = (size_t)(D * D) * sizeof(double);
    int team = threads < MD_GRID ? threads : MD_GRID;
    if ((size_t)(team - 1) * abytes > MD_SELECT_COPY_BYTES)
        team = 1 + (int)(MD_SELECT_COPY_BYTES / abytes);
    double *copies[MD_GRID] = { A };
    for (int w = 1; w < team; w++) {
        copies[w] = smm_aligned_alloc(abytes);
        if (copies[w] == NULL) {
            team = w;
            break;
        }
        memcpy(copies[w], A, abytes);
    }
    double *Pg = malloc((size_t)(MD_GRID * D * np) * sizeof(double));
    double *qg = malloc((size_t)(MD_GRID * np) * sizeof(double));
    double err[MD_GRID];
    if (Pg == NULL || qg == NULL)
        st = SMM_ERR_NO_MEMORY;
    else {
        /* the walk along the grid (maddness.h): the two middle points, then one way while the error falls;
           each round evaluates up to team points side by side (a point past the stop is computed, not used) */
        int g = MD_GRID_START, dir = 0, walking = 1;
        while (walking) {
            int gs[MD_GRID], m = 0;
            if (dir == 0) {
                gs[m++] = MD_GRID_START;
                gs[m++] = MD_GRID_START + 1;
            } else
                for (int h = g + dir; h >= 0 && h < MD_GRID && m < team; h += dir)
                    gs[m++] = h;
            const int side = team > 1 && m > 1; /* else one point at a time, each in parallel: the same operations */
#pragma omp parallel for num_threads(team) schedule(dynamic, 1) if (side)
            for (int e = 0; e < m; e++) {
                double *Ag = copies[omp_get_thread_num()], *Pc = Pg + (int64_t)gs[e] * D * np;
                memcpy(Pc, Rz, (size_t)(D * np) * sizeof(double));
                const double lam = ldexp(s, 2 * (MD_GRID_LOW + gs[e]));
                err[gs[e]] = ridge_solve(Ag, diag, D, lam, Pc, np, side ? 1 : threads) == SMM_OK
                                 ? heldout_error(Pc, np, Y, held, nh, leaves, C, qg + (int64_t)gs[e] * np)
                                 : INFINITY; /* not positive definite in floating point: not a candidate */
            }
            if (dir == 0) {
                dir = err[MD_GRID_START + 1] < err[MD_GRID_START] ? 1 : -1;
                g = dir > 0 ? MD_GRID_START + 1 : MD_GRID_START;
            } else
                for (int e = 0; e < m && walking; e++) {
                    if (err[gs[e]] < err[g])
                        g = gs[e];
                    else
                        walking = 0;
                }
            walking = walking && g + dir >= 0 && g + dir < MD_GRID;
        }
        if (err[g] < best) {
            best = err[g];
            *mult = ldexp(1.0, 2 * (MD_GRID_LOW + g));
        }
    }
    for (int w = 1; w < team; w++)
        smm_aligned_free(copies[w]);
    free(Pg), free(qg);
done:
    free(held64), free(fit), free(held), free(Zt), free(F), free(diag), free(Rz), free(P), free(M), free(Y), free(q);
    return st;
}

/*
 * The prototypes of md from the sample's leaves (n x C) and directions
 * (inv: their inv(x)): the ridge regression with lambda > 0 over all k
 * dimensions, or lambda chosen from the data when lambda == 0 (the leaf
 * means kept when they win). md->lambda: the lambda used, 0 for the means.
 */
static smm_status prototypes(const smm_context *ctx, const float *X, int64_t ld, const int64_t *sample,
                             const double *inv, int64_t n, const uint8_t *leaves, double lambda, uint64_t seed,
                             maddness_model *md)
{
    const int32_t C = md->C;
    const int64_t D = (int64_t)MADDNESS_LEAVES * C, k = md->k;
    const int threads = ctx->threads < 1 ? 1 : ctx->threads;
    double *A = smm_aligned_alloc((size_t)(D * D) * sizeof(double));
    double *R = NULL, *diag = NULL;
    smm_status st = A == NULL ? SMM_ERR_NO_MEMORY : SMM_OK;
    if (st == SMM_OK && lambda == 0.0) {
        double mult = 0.0;
        st = choose_lambda(X, ld, k, sample, inv, n, leaves, md, seed, A, threads, &mult);
        lambda = mult * (double)n / (double)MADDNESS_LEAVES; /* the same multiple of the mean leaf size */
    }
    if (st == SMM_OK && lambda > 0.0) {
        R = smm_aligned_alloc((size_t)(D * k) * sizeof(double));
        diag = malloc((size_t)D * sizeof(double));
        if (R == NULL || diag == NULL)
            st = SMM_ERR_NO_MEMORY;
        if (st == SMM_OK) {
            ridge_sums(X, ld, sample, inv, NULL, n, leaves, C, NULL, k, A, R, threads);
            for (int64_t r = 0; r < D; r++)
                diag[r] = A[r * D + r];
            st = ridge_solve(A, diag, D, lambda, R, k, threads);
        }
        if (st == SMM_OK) {
            for (int64_t e = 0; e < D * k; e++)
                md->prototypes[e] = (float)R[e];
            md->lambda = lambda;
        }
    }
    smm_aligned_free(A);
    smm_aligned_free(R);
    free(diag);
    return st;
}

/* ------------------------------------------------------------------------
 * maddness_train
 * ------------------------------------------------------------------------ */

smm_status maddness_train(const smm_context *ctx, const float *X, int64_t count, int64_t ld, int64_t k, int32_t C,
                          uint64_t seed, int64_t max_train, double lambda, maddness_model **md)
{
    if (md == NULL)
        return SMM_ERR_NULL_POINTER;
    *md = NULL;
    if (ctx == NULL || X == NULL)
        return SMM_ERR_NULL_POINTER;
    if (k < 1)
        return SMM_ERR_BAD_SIZE;
    if (C < 1 || C > MADDNESS_MAX_CODEBOOKS || (int64_t)C > k)
        return SMM_ERR_BAD_ARGUMENT;
    if (count < MADDNESS_LEAVES)
        return SMM_ERR_BAD_SIZE;
    smm_status st = smm_check_matrix(SMM_ROW_MAJOR, count, k, X, ld, sizeof(float));
    if (st != SMM_OK)
        return st;
    if (max_train < 0 || (max_train > 0 && max_train < MADDNESS_LEAVES) || !isfinite(lambda))
        return SMM_ERR_BAD_ARGUMENT;
    if (max_train == 0)
        max_train = MADDNESS_DEFAULT_MAX_TRAIN;
    /* the prototypes (16 C k floats) and the ridge system (16 C k + (16 C)^2 doubles) must fit */
    const int64_t D = (int64_t)MADDNESS_LEAVES * C;
    if (k > (int64_t)(PTRDIFF_MAX / 16) / D / (int64_t)sizeof(double) - D)
        return SMM_ERR_OVERFLOW;
    const int64_t n = count < max_train ? count : max_train;
    if (n > INT32_MAX)
        return SMM_ERR_OVERFLOW; /* sample positions are int32_t */
    if (!pq_all_finite(ctx, X, count, k, ld))
        return SMM_ERR_NON_FINITE;
    const int64_t dmax = (k + C - 1) / C;
    int threads = ctx->threads < 1 ? 1 : ctx->threads;
    if (threads > C)
        threads = C;
    /* per-thread tree workspace: xs, node, members, sorted, s1, s2 (16 x dmax each), var, l1, l2 */
    const size_t xs_b = (size_t)n * (size_t)dmax * sizeof(float);
    const size_t node_b = (size_t)n;
    const size_t mem_b = (size_t)n * sizeof(int32_t);
    const size_t sort_b = (size_t)n * sizeof(keyed);
    const size_t sums_b = (size_t)MADDNESS_LEAVES * (size_t)dmax * sizeof(double);
    const size_t vec_b = (size_t)dmax * sizeof(double);
    const size_t per = smm_piece(xs_b) + smm_piece(node_b) + smm_piece(mem_b) + 2 * smm_piece(sort_b) +
                       2 * smm_piece(sums_b) + 3 * smm_piece(vec_b);
    if (per > (size_t)PTRDIFF_MAX / (size_t)threads)
        return SMM_ERR_OVERFLOW;

    int64_t *sample = malloc((size_t)n * sizeof(int64_t));
    double *inv = malloc((size_t)n * sizeof(double));
    uint8_t *leaves = malloc((size_t)n * (size_t)C);
    char *work = smm_aligned_alloc(per * (size_t)threads);
    maddness_model *m = model_alloc(k, C);
    if (sample == NULL || inv == NULL || leaves == NULL || work == NULL || m == NULL ||
        pq_sample_indices("maddness_train_sample", seed, count, n, sample) != SMM_OK) {
        free(sample);
        free(inv);
        free(leaves);
        smm_aligned_free(work);
        maddness_model_free(m);
        return SMM_ERR_NO_MEMORY;
    }
    /* the sample's directions: inv(x) of each (one thread per vector, a fixed order within it) */
    const int all = ctx->threads < 1 ? 1 : ctx->threads;
#pragma omp parallel for num_threads(all) schedule(static) if ((double)n * (double)k >= MD_PARALLEL_MIN_WORK)
    for (int64_t i = 0; i < n; i++)
        inv[i] = maddness_inv_norm(X + sample[i] * ld, k, 1, NULL);

#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        char *mine = work + per * (size_t)omp_get_thread_num();
        tree_ws w;
        w.xs = smm_carve(&mine, xs_b);
        w.node = smm_carve(&mine, node_b);
        w.members = smm_carve(&mine, mem_b);
        w.sorted = smm_carve(&mine, sort_b);
        w.tmp = smm_carve(&mine, sort_b);
        w.s1 = smm_carve(&mine, sums_b);
        w.s2 = smm_carve(&mine, sums_b);
        w.var = smm_carve(&mine, vec_b);
        w.l1 = smm_carve(&mine, vec_b);
        w.l2 = smm_carve(&mine, vec_b);
#pragma omp for schedule(dynamic, 1)
        for (int32_t c = 0; c < C; c++)
            train_tree(X, ld, sample, inv, n, &w, m, c, leaves);
    }
    smm_aligned_free(work);

    st = lambda >= 0.0 ? prototypes(ctx, X, ld, sample, inv, n, leaves, lambda, seed, m) : SMM_OK;
    free(sample);
    free(inv);
    free(leaves);
    if (st != SMM_OK) {
        maddness_model_free(m);
        return st;
    }
    *md = m;
    return SMM_OK;
}
