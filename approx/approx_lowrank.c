/*
 * approx_lowrank.c - SKETCH_LOWRANK's sketch: S = V, an orthonormal k x s
 * basis of the dominant column space of op(B) (the span of its top s left
 * singular vectors), found by a randomized range finder (Halko, Martinsson
 * and Tropp 2011, algorithms 4.3/4.4 with a final small eigenproblem):
 *
 *   1. l = min(s + LOWRANK_OVERSAMPLE, k) columns: Y = op(B) Omega (k x l),
 *      Omega (n x l) a sparse sign matrix (row j: +-1 in one column, both
 *      from XXH3 of j under classical_seed("lowrank_signs", seed)), so Y is
 *      one pass of additions over op(B) (lowrank_sign_sketch): each column
 *      of Y a random signed sum of about n / l columns of op(B), which the
 *      power iteration below turns towards the dominant directions as a
 *      Gaussian Omega's would be (Y = op(B) Omega with a dense Gaussian
 *      Omega cost 2 n k l flops and n l normal draws, for the same
 *      captured energy to 1e-3 on Fashion-MNIST and the tests' spectra);
 *   2. LOWRANK_POWER_ITERATIONS times: Q = orth(Y), Y = op(B) (op(B)^T Q),
 *      so Y's range leans towards the dominant directions by the square of
 *      the singular values per step (one step: on Fashion-MNIST top-k a
 *      second one raised recall@10 by 0.002-0.006 for 40% more plan time);
 *      both products in one read of op(B) (lowrank_pass);
 *   3. Q = orth(Y); Z = op(B)^T Q (n x l); the l x l Gram matrix Z^T Z =
 *      Q^T op(B) op(B)^T Q in double and its eigenvectors W by cyclic
 *      Jacobi rotations (eigenvalues lambda_1 >= .. >= lambda_l: the squared
 *      singular values of Q^T op(B));
 *   4. V = Q W[:, 0..s) (the top s of them), in double, rounded to float;
 *      the plan's own sketch of op(B), V^T op(B) = W^T Z^T, is made from Z
 *      (an n x l x s product) instead of another pass over op(B).
 *
 * The products with op(B) are exact_sgemm's on one thread per fixed block
 * (approx_lowrank_passes.h: bit-identical for every thread count, equal
 * across ISA paths up to its rounding); orthonormalising
 * (classical Gram-Schmidt, twice, in double), the Gram matrix (fixed blocks
 * summed in order) and Jacobi are plain C in a fixed order, so V does not
 * depend on the thread count. A column that vanishes when orthonormalised
 * (op(B) of rank below l) is replaced by the first coordinate vector
 * e_0, e_1, .. that is not in the span so far, so V is always orthonormal.
 *
 * With approx_options.energy e > 0, s is the least s' <= s with
 * lambda_1 + .. + lambda_s' >= e ||op(B)||_F^2 (s itself when no s' does).
 * When s >= k (and e == 0) V is the identity: the product is exact_sgemm's.
 *
 * Cost: (2 + 4 q) n k l flops of SGEMM in 1 + q + 1 reads of op(B)
 * (q = LOWRANK_POWER_ITERATIONS), n k additions and n hashes for Omega,
 * O(k l^2 + n l^2 / 2) in double for orthonormalising and the Gram matrix,
 * O(l^3) per Jacobi sweep, 2 n l s flops for the plan's sketch of op(B),
 * and the k x s matrix V kept.
 */
#include <math.h>
#include <string.h>

#include "approx/approx_classical.h"
#include "approx/approx_lowrank_passes.h"

/* Extra columns of the range finder, and its power iterations. */
#define LOWRANK_OVERSAMPLE 8
#define LOWRANK_POWER_ITERATIONS 1
/* Rows of Z per block of the Gram matrix (the blocks are summed in order). */
#define LOWRANK_GRAM_BLOCK 2048
/* Jacobi sweeps at most (each sweep rotates every pair once). */
#define LOWRANK_JACOBI_SWEEPS 60

typedef struct {
    int64_t k, s;
    float *V;             /* k x s, row-major, orthonormal columns */
    double captured;      /* lambda_1 + .. + lambda_s */
    double total;         /* ||op(B)||_F^2 */
    int64_t l, n;
    float *Z, *W;         /* until lowrank_sketch_data: Z = op(B)^T Q (n x l), W[:, 0..s) (l x s), row-major */
} lowrank_sketch;

static void lowrank_free(void *sketch)
{
    lowrank_sketch *lr = sketch;
    if (lr == NULL)
        return;
    smm_aligned_free(lr->V);
    smm_aligned_free(lr->Z);
    smm_aligned_free(lr->W);
    smm_aligned_free(lr);
}

/* sum a[t] b[t] in double: 8 running sums (t mod 8), then added in a fixed tree, so the compiler keeps them in
 * vector registers (one sum would be a chain of dependent additions, 4 cycles each); the order is fixed. */
static double dot(const double *a, const double *b, int64_t k)
{
    double acc[8] = { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 };
    int64_t t = 0;
    for (; t + 8 <= k; t += 8)
        for (int i = 0; i < 8; i++)
            acc[i] += a[t + i] * b[t + i];
    for (int i = 0; t < k; t++, i++)
        acc[i] += a[t] * b[t];
    return ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]));
}

/*
 * Orthonormalise the l columns of Q (k x l, column c at Q + c * k, double)
 * in place: classical Gram-Schmidt twice per column; a column left with
 * less than 1e-10 of its norm (or none) is replaced by the next coordinate
 * vector that is not in the span of the columns before it.
 */
static void orthonormalise(double *Q, int64_t k, int64_t l, double *coef)
{
    int64_t next_unit = 0;
    for (int64_t c = 0; c < l; c++) {
        double *v = Q + c * k;
        double before = sqrt(dot(v, v, k));
        for (;;) {
            for (int pass = 0; pass < 2; pass++) {
                for (int64_t p = 0; p < c; p++)
                    coef[p] = dot(Q + p * k, v, k);
                for (int64_t p = 0; p < c; p++) {
                    const double *q = Q + p * k;
                    for (int64_t t = 0; t < k; t++)
                        v[t] -= coef[p] * q[t];
                }
            }
            const double norm = sqrt(dot(v, v, k));
            if (norm > 1e-10 * before && norm > 0.0) {
                for (int64_t t = 0; t < k; t++)
                    v[t] /= norm;
                break;
            }
            /* dependent: try the next coordinate vector (c < l <= k, so one of them is independent) */
            memset(v, 0, (size_t)k * sizeof *v);
            v[next_unit++] = 1.0;
            before = 1.0;
        }
    }
}

/*
 * Eigen-decomposition of the symmetric l x l matrix G (row-major, double;
 * destroyed) by cyclic Jacobi rotations: W (l x l, row-major) gets the
 * eigenvectors as columns, lambda the eigenvalues, both sorted by
 * decreasing eigenvalue (ties: the smaller original index first).
 */
static void jacobi_eigen(double *G, int64_t l, double *W, double *lambda, double *scratch)
{
    for (int64_t i = 0; i < l; i++)
        for (int64_t j = 0; j < l; j++)
            W[i * l + j] = i == j ? 1.0 : 0.0;
    double diag = 0.0;
    for (int64_t i = 0; i < l; i++)
        diag += G[i * l + i] * G[i * l + i];
    for (int sweep = 0; sweep < LOWRANK_JACOBI_SWEEPS; sweep++) {
        double off = 0.0;
        for (int64_t p = 0; p < l; p++)
            for (int64_t q = p + 1; q < l; q++)
                off += G[p * l + q] * G[p * l + q];
        if (off <= 1e-30 * diag || off == 0.0)
            break;
        for (int64_t p = 0; p < l; p++)
            for (int64_t q = p + 1; q < l; q++) {
                const double gpq = G[p * l + q];
                if (gpq == 0.0)
                    continue;
                const double theta = (G[q * l + q] - G[p * l + p]) / (2.0 * gpq);
                const double t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                const double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int64_t r = 0; r < l; r++) { /* G := G J (columns p, q) */
                    const double gp = G[r * l + p], gq = G[r * l + q];
                    G[r * l + p] = c * gp - s * gq;
                    G[r * l + q] = s * gp + c * gq;
                }
                for (int64_t r = 0; r < l; r++) { /* G := J^T G (rows p, q) */
                    const double gp = G[p * l + r], gq = G[q * l + r];
                    G[p * l + r] = c * gp - s * gq;
                    G[q * l + r] = s * gp + c * gq;
                }
                for (int64_t r = 0; r < l; r++) { /* W := W J */
                    const double wp = W[r * l + p], wq = W[r * l + q];
                    W[r * l + p] = c * wp - s * wq;
                    W[r * l + q] = s * wp + c * wq;
                }
            }
    }
    /* order by decreasing eigenvalue: a stable insertion sort of the indices */
    int64_t *order = (int64_t *)scratch; /* l entries */
    for (int64_t i = 0; i < l; i++)
        order[i] = i;
    for (int64_t i = 1; i < l; i++) {
        const int64_t o = order[i];
        int64_t j = i;
        while (j > 0 && G[order[j - 1] * l + order[j - 1]] < G[o * l + o]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = o;
    }
    double *Wsorted = G; /* G's off-diagonal is no longer needed: its diagonal is read first */
    for (int64_t i = 0; i < l; i++)
        lambda[i] = G[order[i] * l + order[i]];
    for (int64_t r = 0; r < l; r++)
        for (int64_t i = 0; i < l; i++)
            Wsorted[r * l + i] = W[r * l + order[i]];
    memcpy(W, Wsorted, (size_t)(l * l) * sizeof *W);
}

/* G := Z^T Z (l x l, double) for Z n x l row-major float: blocks of LOWRANK_GRAM_BLOCK rows, summed in order. */
static smm_status gram_of(const smm_context *ctx, const float *Z, int64_t n, int64_t l, double *G)
{
    const int64_t blocks = (n + LOWRANK_GRAM_BLOCK - 1) / LOWRANK_GRAM_BLOCK;
    const int64_t group = 32; /* blocks computed at once, then added in order */
    smm_status status = SMM_OK;
    double *part = classical_alloc(group, l * l, sizeof(double), &status);
    if (part == NULL)
        return status;
    memset(G, 0, (size_t)(l * l) * sizeof *G);
    for (int64_t b0 = 0; b0 < blocks; b0 += group) {
        const int64_t nb = blocks - b0 < group ? blocks - b0 : group;
#pragma omp parallel for num_threads(ctx->threads) schedule(dynamic, 1)
        for (int64_t b = 0; b < nb; b++) {
            double *P = part + b * l * l;
            memset(P, 0, (size_t)(l * l) * sizeof *P);
            const int64_t j0 = (b0 + b) * LOWRANK_GRAM_BLOCK;
            const int64_t j1 = j0 + LOWRANK_GRAM_BLOCK < n ? j0 + LOWRANK_GRAM_BLOCK : n;
            for (int64_t j = j0; j < j1; j++) {
                const float *z = Z + j * l;
                for (int64_t a = 0; a < l; a++) {
                    const double za = z[a];
                    for (int64_t c = a; c < l; c++)
                        P[a * l + c] += za * (double)z[c];
                }
            }
        }
        for (int64_t b = 0; b < nb; b++)
            for (int64_t e = 0; e < l * l; e++)
                G[e] += part[b * l * l + e];
    }
    for (int64_t a = 0; a < l; a++)
        for (int64_t c = 0; c < a; c++)
            G[a * l + c] = G[c * l + a];
    smm_aligned_free(part);
    return SMM_OK;
}

/* ||op(B)||_F^2 in double: one sum per vector (in coordinate order), added in vector order. */
static double frobenius_squared(const smm_context *ctx, const approx_vectors *cols, int64_t k, double *per_vector)
{
    const int64_t n = cols->count;
#pragma omp parallel for num_threads(ctx->threads) schedule(static)
    for (int64_t j = 0; j < n; j++) {
        double acc = 0.0;
        for (int64_t t = 0; t < k; t++) {
            const double x = approx_vectors_at(cols, j, t);
            acc += x * x;
        }
        per_vector[j] = acc;
    }
    double total = 0.0;
    for (int64_t j = 0; j < n; j++)
        total += per_vector[j];
    return total;
}

/* 1 when every one of count floats is finite. */
static int all_finite(const float *p, int64_t count)
{
    int ok = 1;
    for (int64_t i = 0; i < count; i++)
        ok &= isfinite(p[i]) != 0;
    return ok;
}

/* V := the k x k identity (s >= k: the basis of everything). */
static void identity_basis(float *V, int64_t k)
{
    memset(V, 0, (size_t)(k * k) * sizeof *V);
    for (int64_t t = 0; t < k; t++)
        V[t * k + t] = 1.0f;
}

/* The randomized range finder of the top comment, into lr (lr->k, lr->s set; lr->V allocated k x s). */
static smm_status range_finder(const smm_context *ctx, const classical_data *data, int64_t l, uint64_t seed,
                               lowrank_sketch *lr)
{
    const approx_vectors *cols = data->cols;
    const int64_t k = lr->k, n = cols->count;
    smm_status status = SMM_OK;
    float *Yt = classical_alloc(l, k, sizeof(float), &status); /* Y^T: l x k row-major */
    float *Z = classical_alloc(n, l, sizeof(float), &status);  /* n x l row-major */
    float *Qf = classical_alloc(k, l, sizeof(float), &status); /* k x l row-major */
    double *Qd = classical_alloc(l, k, sizeof(double), &status); /* column c at Qd + c k */
    double *G = classical_alloc(l, l, sizeof(double), &status);
    double *W = classical_alloc(l, l, sizeof(double), &status);
    double *lambda = classical_alloc(l, 3, sizeof(double), &status); /* lambda, coef, order */
    double *per_vector = data->energy > 0.0 ? classical_alloc(n, 1, sizeof(double), &status) : NULL;
    if (status == SMM_OK)
        status = lowrank_sign_sketch(ctx, cols, k, l, classical_seed("lowrank_signs", seed), Yt);
    for (int it = 0; status == SMM_OK; it++) {
        if (!all_finite(Yt, k * l)) {
            status = SMM_ERR_NON_FINITE;
            break;
        }
        for (int64_t e = 0; e < l * k; e++) /* column c of Y is row c of Yt */
            Qd[e] = Yt[e];
        orthonormalise(Qd, k, l, lambda + l);
        for (int64_t t = 0; t < k; t++)
            for (int64_t c = 0; c < l; c++)
                Qf[t * l + c] = (float)Qd[c * k + t];
        /* Z = op(B)^T Q, and Y = op(B) Z while a power iteration is left */
        status = lowrank_pass(ctx, cols, k, l, Qf, Z, it < LOWRANK_POWER_ITERATIONS ? Yt : NULL);
        if (it == LOWRANK_POWER_ITERATIONS)
            break;
    }
    if (status == SMM_OK && !all_finite(Z, n * l))
        status = SMM_ERR_NON_FINITE;
    if (status == SMM_OK)
        status = gram_of(ctx, Z, n, l, G);
    if (status == SMM_OK) {
        jacobi_eigen(G, l, W, lambda, lambda + 2 * l);
        int64_t s = lr->s;
        double captured = 0.0;
        for (int64_t i = 0; i < s; i++)
            captured += lambda[i] > 0.0 ? lambda[i] : 0.0;
        if (per_vector != NULL) {
            lr->total = frobenius_squared(ctx, cols, k, per_vector);
            double run = 0.0;
            for (int64_t i = 0; i < lr->s; i++) {
                run += lambda[i] > 0.0 ? lambda[i] : 0.0;
                if (run >= data->energy * lr->total) {
                    s = i + 1;
                    captured = run;
                    break;
                }
            }
        }
        lr->s = s;
        lr->captured = captured;
        for (int64_t t = 0; t < k; t++)
            for (int64_t c = 0; c < s; c++) {
                double acc = 0.0;
                for (int64_t i = 0; i < l; i++)
                    acc += Qd[i * k + t] * W[i * l + c];
                lr->V[t * s + c] = (float)acc;
            }
        lr->W = classical_alloc(l, s, sizeof(float), &status);
    }
    if (status == SMM_OK) { /* Z and W[:, 0..s) kept for the plan's sketch of op(B) */
        for (int64_t i = 0; i < l; i++)
            for (int64_t c = 0; c < lr->s; c++)
                lr->W[i * lr->s + c] = (float)W[i * l + c];
        lr->Z = Z;
        lr->l = l;
        lr->n = n;
        Z = NULL;
    }
    smm_aligned_free(Yt);
    smm_aligned_free(Z);
    smm_aligned_free(Qf);
    smm_aligned_free(Qd);
    smm_aligned_free(G);
    smm_aligned_free(W);
    smm_aligned_free(lambda);
    smm_aligned_free(per_vector);
    return status;
}

static smm_status lowrank_create(const smm_context *ctx, const classical_data *data, int64_t k, int64_t *s_io,
                                 uint64_t seed, void **sketch)
{
    *sketch = NULL;
    smm_status status = SMM_OK;
    const int64_t s = *s_io < k ? *s_io : k;
    lowrank_sketch *lr = classical_alloc(1, 1, sizeof *lr, &status);
    float *V = classical_alloc(k, s, sizeof(float), &status);
    if (status == SMM_OK) {
        *lr = (lowrank_sketch){ .k = k, .s = s, .V = V };
        if (s == k && data->energy == 0.0) {
            identity_basis(V, k);
        } else {
            const int64_t l = s + LOWRANK_OVERSAMPLE < k ? s + LOWRANK_OVERSAMPLE : k;
            status = range_finder(ctx, data, l, seed, lr);
        }
    }
    if (status != SMM_OK) {
        smm_aligned_free(V);
        smm_aligned_free(lr);
        return status;
    }
    *s_io = lr->s;
    *sketch = lr;
    return SMM_OK;
}

static smm_status lowrank_apply(const smm_context *ctx, const void *sketch, const approx_vectors *v,
                                classical_view out)
{
    const lowrank_sketch *lr = sketch;
    return classical_matrix_apply(ctx, lr->V, lr->k, lr->s, v, out);
}

/* The plan's sketch of op(B) (v, the vectors create was made from): Z W[:, 0..s) when create kept Z, else V^T v_j. */
static smm_status lowrank_sketch_data(const smm_context *ctx, void *sketch, const approx_vectors *v,
                                      classical_view out)
{
    lowrank_sketch *lr = sketch;
    if (lr->Z == NULL || v->count != lr->n)
        return lowrank_apply(ctx, sketch, v, out);
    const approx_vectors z = { SMM_ROW_MAJOR, lr->n, lr->Z, lr->l };
    const smm_status status = classical_matrix_apply(ctx, lr->W, lr->l, lr->s, &z, out);
    smm_aligned_free(lr->Z);
    smm_aligned_free(lr->W);
    lr->Z = NULL;
    lr->W = NULL;
    return status;
}

static const classical_sketch_ops lowrank_sketch_ops = { lowrank_create, lowrank_apply, lowrank_sketch_data,
                                                         lowrank_free };

const approx_method approx_method_lowrank = {
    SKETCH_LOWRANK, 64, APPROX_MAX_SKETCH_DIM, APPROX_SCALE_EACH, 0, classical_encoded_bytes, topk_shape_of_size,
    NULL, &classical_linear_ops, &lowrank_sketch_ops,
};
