/*
 * texture.c - texture-like images from a seed: random fields with a power-law
 * spectrum (natural images have about 1 / f^2), the data on which learned
 * encoders that look at a few coordinates per subspace fail. See
 * dataset_texture() in data/dataset.h.
 *
 * Row i is the inverse orthonormal 2-D DCT-II of coefficients a_uv g_uv,
 * g_uv the Gaussian numbers i h w + u w + v of the texture stream, so each
 * row depends on (seed, i, cols, beta) only. The transform is separable:
 * first over v for every u (h w^2 multiply-adds), then over u (h^2 w), in
 * double.
 */
#include "data/dataset.h"
#include "data/data_internal.h"

#include <math.h>
#include <stdlib.h>

/* Orthonormal DCT-II basis of length n: basis[f * n + p] = s_f cos(pi f (2 p + 1) / (2 n)). */
static void dct_basis(int64_t n, double *basis)
{
    const double pi = 3.14159265358979323846264338327950288;
    for (int64_t f = 0; f < n; f++) {
        const double s = f == 0 ? sqrt(1.0 / (double)n) : sqrt(2.0 / (double)n);
        for (int64_t p = 0; p < n; p++)
            basis[f * n + p] = s * cos(pi * (double)f * (double)(2 * p + 1) / (double)(2 * n));
    }
}

smm_status dataset_texture(int64_t rows, int64_t cols, double beta, uint64_t seed, dataset_matrix *out)
{
    dataset_matrix_clear(out);
    if (out == NULL)
        return SMM_ERR_NULL_POINTER;
    if (rows < 0 || cols < 0)
        return SMM_ERR_BAD_SIZE;
    if (!(beta >= 0.0 && beta <= DATASET_TEXTURE_MAX_BETA))
        return SMM_ERR_BAD_ARGUMENT;
    if (cols > (int64_t)1 << 40)
        return SMM_ERR_OVERFLOW; /* the grid's side and its tables */
    smm_status s = dataset_matrix_alloc(rows, cols, out);
    if (s != SMM_OK)
        return s;
    if (out->data == NULL)
        return SMM_OK;

    int64_t w = (int64_t)ceil(sqrt((double)cols));
    while (w * w < cols)
        w++;
    while (w > 1 && (w - 1) * (w - 1) >= cols)
        w--;
    const int64_t h = (cols + w - 1) / w;
    /* the two bases, the amplitudes, one row's coefficients (float), partial sums and pixels (h x w each) */
    double *bh = malloc((size_t)(h * h) * sizeof(double)), *bw = malloc((size_t)(w * w) * sizeof(double));
    double *amp = malloc((size_t)(h * w) * sizeof(double)), *part = malloc((size_t)(h * w) * sizeof(double));
    double *pix = malloc((size_t)(h * w) * sizeof(double));
    float *g = malloc((size_t)(h * w) * sizeof(float));
    if (bh == NULL || bw == NULL || amp == NULL || part == NULL || pix == NULL || g == NULL) {
        free(bh), free(bw), free(amp), free(part), free(pix), free(g);
        dataset_matrix_free(out);
        return SMM_ERR_NO_MEMORY;
    }
    dct_basis(h, bh);
    dct_basis(w, bw);
    for (int64_t u = 0; u < h; u++)
        for (int64_t v = 0; v < w; v++) {
            const double f2 = (double)(u * u + v * v);
            amp[u * w + v] = f2 > 0.0 ? pow(f2, -beta / 4.0) : 0.0; /* power f^-beta: amplitude f^(-beta/2) */
        }
    for (int64_t i = 0; i < rows; i++) {
        dataset_rng_gaussians(g, (uint64_t)(h * w), seed, DATASET_STREAM_TEXTURE, (uint64_t)i * (uint64_t)(h * w));
        /* part[u][c] = sum_v amp g_uv bw[v][c] */
        for (int64_t u = 0; u < h; u++)
            for (int64_t c = 0; c < w; c++) {
                double acc = 0.0;
                for (int64_t v = 0; v < w; v++)
                    acc += amp[u * w + v] * (double)g[u * w + v] * bw[v * w + c];
                part[u * w + c] = acc;
            }
        /* pixel t = (r, c) = (t / w, t % w): sum_u bh[u][r] part[u][c]; then unit RMS over the row */
        double ss = 0.0;
        for (int64_t t = 0; t < cols; t++) {
            const int64_t r = t / w, c = t % w;
            double acc = 0.0;
            for (int64_t u = 0; u < h; u++)
                acc += bh[u * h + r] * part[u * w + c];
            pix[t] = acc;
            ss += acc * acc;
        }
        const double f = ss > 0.0 ? sqrt((double)cols / ss) : 0.0;
        float *x = out->data + i * cols;
        for (int64_t t = 0; t < cols; t++)
            x[t] = (float)(pix[t] * f);
    }
    free(bh), free(bw), free(amp), free(part), free(pix), free(g);
    return SMM_OK;
}
