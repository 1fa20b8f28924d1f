/*
 * test_pq.c - Check suite of the product-quantization building blocks
 * (sketch/pq.h): the scan kernels of every ISA path this CPU runs against
 * the definition and the scalar twin, bit for bit, on edge shapes (block
 * tails, subspace counts around the vector widths and the uint16 flush,
 * 1..5 rows and more, column offsets, the drivers' row groups and column
 * tiles, sums up to 255 * 4096); the packed layout;
 * training and encoding bit-identical for 1 and 2 threads and every ISA
 * path (and against golden hashes, so the aarch64 build under qemu computes
 * the same bytes as x86-64); uneven subspaces (k % M != 0); the nearest-
 * centroid rule and its ties; empty clusters; the lookup-table quantization
 * bound; distortion falling as M grows; and the argument checks (statuses,
 * outputs untouched).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#include "common/smm_runtime.h"
#include "sketch/pq.h"
#include "sketch/pq_scan_kernels.h"

static const uint32_t SENTINEL32 = 0xDEADBEEFu;

/* ----------------------------------------------------------------------
 * Helpers
 * ---------------------------------------------------------------------- */

static uint8_t *random_bytes(int64_t n, uint64_t *rng)
{
    uint8_t *p = malloc((size_t)(n > 0 ? n : 1));
    ck_assert_ptr_nonnull(p);
    for (int64_t i = 0; i < n; i++)
        p[i] = (uint8_t)(test_rng_next(rng) >> 56);
    return p;
}

/* Code of vector j in subspace m, written out from the layout of pq.h (independent of pq_code_at). */
static int layout_code(const uint8_t *codes, int32_t M, int64_t j, int32_t m)
{
    const int64_t block = j / 32, t = j % 32;
    const uint8_t byte = codes[block * 16 * (int64_t)M + 16 * (int64_t)m + (t < 16 ? t : t - 16)];
    return t < 16 ? (byte & 0x0F) : (byte >> 4);
}

static smm_context context(smm_isa isa, int threads)
{
    ck_assert_int_eq(smm_set_isa(isa), SMM_OK);
    ck_assert_int_eq(smm_set_num_threads(threads), SMM_OK);
    smm_context ctx;
    ck_assert_int_eq(smm_context_current(&ctx), SMM_OK);
    ck_assert_int_eq(ctx.threads, threads);
    return ctx;
}

static float *random_matrix(int64_t rows, int64_t cols, int64_t ld, uint64_t *rng)
{
    float *x = malloc((size_t)(rows * ld + 1) * sizeof(float));
    ck_assert_ptr_nonnull(x);
    test_fill_uniform(x, rows * ld, rng);
    (void)cols;
    return x;
}

/* ======================================================================
 * Scan kernels
 * ====================================================================== */

static const int64_t scan_ns[] = { 1, 31, 32, 33, 100 };
static const int32_t scan_Ms[] = { 1, 3, 16, 255, 256, 257, 300 };

/* One shape on every path: pq_scan (and pq_scan_float) against the definition and the scalar twin. */
static void check_scan_shape(int64_t n, int32_t M, int64_t rows, int max_lut, uint64_t *rng)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    const int64_t bytes = pq_codes_bytes(M, n);
    ck_assert_int_eq(bytes, ((n + 31) / 32) * 16 * (int64_t)M);
    uint8_t *codes = random_bytes(bytes, rng);
    uint8_t *lut = random_bytes(rows * M * 16, rng);
    if (max_lut)
        memset(lut, 255, (size_t)(rows * M * 16));
    float *scale = malloc((size_t)rows * sizeof(float)), *bias = malloc((size_t)rows * sizeof(float));
    ck_assert(scale && bias);
    for (int64_t r = 0; r < rows; r++) {
        scale[r] = 0.001f * (float)(r + 1) + 1e-5f;
        bias[r] = -3.25f + (float)r;
    }
    /* whole range (j0 = 0), and from the second block on when there is one */
    for (int part = 0; part < 2; part++) {
        const int64_t j0 = part == 0 ? 0 : 32;
        if (j0 >= n)
            continue;
        for (int64_t cols_cut = 0; cols_cut < 2; cols_cut++) {
            const int64_t cols = n - j0 - (cols_cut && n - j0 > 1 ? 1 : 0);
            const int64_t ldo = j0 + cols + 3;
            const size_t out_n = (size_t)(rows * ldo);
            uint32_t *want = malloc(out_n * sizeof(uint32_t)), *got = malloc(out_n * sizeof(uint32_t));
            uint32_t *twin = malloc(out_n * sizeof(uint32_t));
            float *fwant = malloc(out_n * sizeof(float)), *fgot = malloc(out_n * sizeof(float));
            ck_assert(want && got && twin && fwant && fgot);
            for (size_t t = 0; t < out_n; t++)
                want[t] = twin[t] = SENTINEL32;
            for (int64_t r = 0; r < rows; r++)
                for (int64_t j = j0; j < j0 + cols; j++) {
                    uint32_t s = 0;
                    for (int32_t m = 0; m < M; m++)
                        s += lut[r * M * 16 + m * 16 + layout_code(codes, M, j, m)];
                    want[r * ldo + j] = s;
                }
            /* the twin through its own entry point, on the block of j0 */
            pq_scan_scalar(lut, rows, M, codes + (j0 / 32) * pq_block_bytes(M), cols, twin + j0, ldo);
            ck_assert_msg(memcmp(twin, want, out_n * sizeof(uint32_t)) == 0, "scalar twin n %lld M %d rows %lld",
                          (long long)n, M, (long long)rows);
            for (int k = 0; k < nisa; k++) {
                for (size_t t = 0; t < out_n; t++) {
                    got[t] = SENTINEL32;
                    memcpy(&fgot[t], &SENTINEL32, sizeof(float));
                }
                pq_scan(isas[k], lut, rows, M, codes, j0, cols, got, ldo);
                ck_assert_msg(memcmp(got, want, out_n * sizeof(uint32_t)) == 0,
                              "%s: n %lld M %d rows %lld j0 %lld cols %lld max_lut %d", pq_scan_kernel_name(isas[k]),
                              (long long)n, M, (long long)rows, (long long)j0, (long long)cols, max_lut);
                pq_scan_float(isas[k], lut, scale, bias, rows, M, codes, j0, cols, fgot, ldo);
                if (k == 0)
                    memcpy(fwant, fgot, out_n * sizeof(float));
                ck_assert_msg(memcmp(fgot, fwant, out_n * sizeof(float)) == 0, "float %s: n %lld M %d rows %lld",
                              pq_scan_kernel_name(isas[k]), (long long)n, M, (long long)rows);
                for (size_t t = 0; t < out_n; t++) {
                    if (want[t] == SENTINEL32) {
                        uint32_t bits;
                        memcpy(&bits, &fgot[t], sizeof bits);
                        ck_assert_uint_eq(bits, SENTINEL32);
                    } else {
                        const int64_t r = (int64_t)t / ldo;
                        const float expect = scale[r] * (float)want[t] + bias[r];
                        ck_assert(fgot[t] == expect);
                    }
                }
            }
            free(want);
            free(got);
            free(twin);
            free(fwant);
            free(fgot);
        }
    }
    free(codes);
    free(lut);
    free(scale);
    free(bias);
}

START_TEST(test_scan_matches_scalar)
{
    uint64_t rng = 101 + (uint64_t)_i;
    const int32_t M = scan_Ms[_i];
    for (size_t ni = 0; ni < sizeof scan_ns / sizeof scan_ns[0]; ni++)
        for (int64_t rows = 1; rows <= 9; rows++) { /* every tail of the kernels' groups of 2, 4 and 8 rows */
            check_scan_shape(scan_ns[ni], M, rows, 0, &rng);
            if (M >= 255)
                check_scan_shape(scan_ns[ni], M, rows, 1, &rng); /* sums past 65535: the uint16 flush */
        }
}
END_TEST

START_TEST(test_scan_extremes)
{
    uint64_t rng = 7;
    /* the largest M with every table entry 255: sums of 1,044,480; and odd shapes of more rows */
    check_scan_shape(33, PQ_MAX_SUBSPACES, 5, 1, &rng);
    check_scan_shape(70, 513, 9, 1, &rng);
    check_scan_shape(97, 98, 13, 0, &rng);
    check_scan_shape(64, 4, 8, 0, &rng);
    /* several column tiles of pq_scan (256 KiB of codes: 128 columns at M = 4096) and row groups */
    check_scan_shape(300, PQ_MAX_SUBSPACES, 6, 0, &rng);
    /* several tiles of pq_scan_float (8 rows x 512 columns) */
    check_scan_shape(600, 5, 10, 0, &rng);
    /* rows or cols 0: nothing written */
    uint32_t out[4] = { SENTINEL32, SENTINEL32, SENTINEL32, SENTINEL32 };
    uint8_t lut[16] = { 0 }, codes[16] = { 0 };
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int k = 0; k < nisa; k++) {
        pq_scan(isas[k], lut, 0, 1, codes, 0, 1, out, 1);
        pq_scan(isas[k], lut, 1, 1, codes, 0, 0, out, 1);
    }
    ck_assert_uint_eq(out[0], SENTINEL32);
}
END_TEST

START_TEST(test_scan_more_row_passes)
{
    /* more than one pass of 8 rows over a block (the avx512 kernel reuses the first pass's index vectors
       for 32 <= M <= 256): the bounds of that range and either side, masked last steps, full and partial
       blocks, 9 to 24 rows (one to two later passes and every row tail) */
    uint64_t rng = 313;
    static const int32_t Ms[] = { 28, 29, 31, 32, 33, 49, 253, 256, 257 };
    static const int64_t rows[] = { 9, 15, 16, 17, 23, 24 };
    for (size_t mi = 0; mi < sizeof Ms / sizeof Ms[0]; mi++)
        for (size_t ri = 0; ri < sizeof rows / sizeof rows[0]; ri++) {
            check_scan_shape(75, Ms[mi], rows[ri], 0, &rng);
            if (Ms[mi] > 250)
                check_scan_shape(64, Ms[mi], rows[ri], 1, &rng);
        }
}
END_TEST

START_TEST(test_scan_kernel_names)
{
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    ck_assert_str_eq(pq_scan_kernel_name(SMM_ISA_SCALAR), "scalar");
    ck_assert_str_eq(pq_scan_kernel_name(SMM_ISA_AUTO), "scalar");
    for (int k = 0; k < nisa; k++) {
        const char *name = pq_scan_kernel_name(isas[k]);
        const char *isa = smm_isa_name(isas[k]);
        ck_assert_msg(strncmp(name, isa, strlen(isa)) == 0, "%s on path %s", name, isa);
    }
#if defined(__x86_64__)
    if (smm_isa_supported(SMM_ISA_AVX2)) {
        ck_assert_str_eq(pq_scan_kernel_name(SMM_ISA_AVX2), "avx2_pshufb");
        ck_assert(pq_scan_kernels_for(SMM_ISA_AVX2)->scan == pq_scan_avx2);
    }
    if (smm_isa_supported(SMM_ISA_AVX512)) {
        /* the AVX-512 row needs VBMI and VNNI; without them the path runs the AVX2 row */
        const unsigned needs = SMM_CPU_VBMI | SMM_CPU_VNNI;
        const int has = (smm_cpu()->flags & needs) == needs;
        ck_assert_str_eq(pq_scan_kernel_name(SMM_ISA_AVX512), has ? "avx512_vpermb" : "avx2_pshufb");
        ck_assert(pq_scan_kernels_for(SMM_ISA_AVX512)->scan == (has ? pq_scan_avx512 : pq_scan_avx2));
    }
#endif
#if defined(__aarch64__)
    /* the suite runs under qemu-aarch64: the NEON kernel must be the one tested there */
    ck_assert(smm_isa_supported(SMM_ISA_NEON));
    ck_assert_str_eq(pq_scan_kernel_name(SMM_ISA_NEON), "neon_tbl");
    ck_assert(pq_scan_kernels_for(SMM_ISA_NEON)->scan == pq_scan_neon);
#endif
}
END_TEST

/* ======================================================================
 * Layout, encoding, training
 * ====================================================================== */

START_TEST(test_codes_bytes_and_layout)
{
    ck_assert_int_eq(pq_codes_bytes(5, 0), 0);
    ck_assert_int_eq(pq_codes_bytes(5, 1), 80);
    ck_assert_int_eq(pq_codes_bytes(5, 32), 80);
    ck_assert_int_eq(pq_codes_bytes(5, 33), 160);
    ck_assert_int_eq(pq_codes_bytes(5, -1), -1);
    ck_assert_int_eq(pq_codes_bytes(0, 3), -1);
    ck_assert_int_eq(pq_codes_bytes(4096, INT64_MAX), -1);
    ck_assert_int_eq(pq_block_bytes(7), 112);
    uint64_t rng = 3;
    uint8_t *codes = random_bytes(3 * 16 * 7, &rng);
    for (int64_t j = 0; j < 96; j++)
        for (int32_t m = 0; m < 7; m++)
            ck_assert_int_eq(pq_code_at(codes, 7, j, m), layout_code(codes, 7, j, m));
    free(codes);
    /* subspace ranges: the first k % M have one more dimension */
    for (int64_t k = 1; k <= 40; k++)
        for (int32_t M = 1; M <= k; M++) {
            int64_t prev = 0;
            for (int32_t m = 0; m < M; m++) {
                int64_t lo, hi;
                pq_subspace_range(k, M, m, &lo, &hi);
                ck_assert_int_eq(lo, prev);
                ck_assert_int_eq(hi - lo, k / M + (m < k % M ? 1 : 0));
                prev = hi;
            }
            ck_assert_int_eq(prev, k);
        }
}
END_TEST

/* Brute force: the nearest centroid with the formula of pq.h, written out. */
static int brute_nearest(const pq_codebook *cb, const float *x, int32_t m)
{
    const int64_t lo = cb->start[m], d = cb->start[m + 1] - lo;
    int best = 0;
    float bd = 0.0f;
    for (int c = 0; c < 16; c++) {
        float s = 0.0f;
        for (int64_t t = 0; t < d; t++) {
            const float e = x[lo + t] - cb->centroids[16 * lo + c * d + t];
            s += e * e;
        }
        if (c == 0 || s < bd) {
            bd = s;
            best = c;
        }
    }
    return best;
}

/* Train and encode on every path with 1 and 2 threads: identical bytes; codes the brute-force nearest. */
START_TEST(test_train_encode_deterministic)
{
    const int64_t count = 1500, k = 50, ld = 53, n = 77;
    const int32_t M = 7; /* 50 = 7 * 7 + 1: subspace 0 has 8 dims, the others 7 */
    uint64_t rng = 2024;
    float *X = random_matrix(count, k, ld, &rng);
    float *Y = random_matrix(n, k, ld, &rng);
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    pq_codebook *ref = NULL;
    uint8_t *ref_codes = NULL;
    const int64_t bytes = pq_codes_bytes(M, n);
    for (int q = 0; q < nisa; q++)
        for (int threads = 1; threads <= 2; threads++) {
            const smm_context ctx = context(isas[q], threads);
            pq_codebook *cb = NULL;
            ck_assert_int_eq(pq_train(&ctx, X, count, ld, k, M, 99, 0, 1000, &cb), SMM_OK);
            ck_assert_ptr_nonnull(cb);
            uint8_t *codes = malloc((size_t)bytes);
            ck_assert_ptr_nonnull(codes);
            ck_assert_int_eq(pq_encode(&ctx, cb, Y, n, ld, codes), SMM_OK);
            if (ref == NULL) {
                ref = cb;
                ref_codes = codes;
                continue;
            }
            ck_assert_int_eq(cb->k, k);
            ck_assert_int_eq(cb->M, M);
            ck_assert(memcmp(cb->start, ref->start, (size_t)(M + 1) * sizeof(int64_t)) == 0);
            ck_assert_msg(memcmp(cb->centroids, ref->centroids, (size_t)(16 * k) * sizeof(float)) == 0,
                          "centroids differ on %s threads %d", smm_isa_name(isas[q]), threads);
            ck_assert(memcmp(cb->centroids_t, ref->centroids_t, (size_t)(16 * k) * sizeof(float)) == 0);
            ck_assert_msg(memcmp(codes, ref_codes, (size_t)bytes) == 0, "codes differ on %s threads %d",
                          smm_isa_name(isas[q]), threads);
            pq_codebook_free(cb);
            free(codes);
        }
    test_restore_defaults();
    /* uneven subspaces */
    ck_assert_int_eq(ref->start[0], 0);
    ck_assert_int_eq(ref->start[1], 8);
    for (int32_t m = 1; m <= M; m++)
        ck_assert_int_eq(ref->start[m] - ref->start[m - 1], m == 1 ? 8 : 7);
    /* transposed copy consistent */
    for (int32_t m = 0; m < M; m++) {
        const int64_t lo = ref->start[m], d = ref->start[m + 1] - lo;
        for (int c = 0; c < 16; c++)
            for (int64_t t = 0; t < d; t++)
                ck_assert(ref->centroids[16 * lo + c * d + t] == ref->centroids_t[16 * lo + t * 16 + c]);
    }
    /* codes: brute-force nearest, padding 0 */
    for (int64_t j = 0; j < 96; j++)
        for (int32_t m = 0; m < M; m++)
            ck_assert_int_eq(pq_code_at(ref_codes, M, j, m), j < n ? brute_nearest(ref, Y + j * ld, m) : 0);
    /* the seed matters */
    {
        const smm_context ctx = context(SMM_ISA_SCALAR, 1);
        pq_codebook *other = NULL;
        ck_assert_int_eq(pq_train(&ctx, X, count, ld, k, M, 100, 0, 1000, &other), SMM_OK);
        ck_assert(memcmp(other->centroids, ref->centroids, (size_t)(16 * k) * sizeof(float)) != 0);
        pq_codebook_free(other);
        test_restore_defaults();
    }
    pq_codebook_free(ref);
    free(ref_codes);
    free(X);
    free(Y);
}
END_TEST

/*
 * Golden hashes: the same codebook and codes on every platform (x86-64 and
 * aarch64 under qemu), thread count and path. Changing the training or
 * encoding rules changes these on purpose.
 */
START_TEST(test_golden_hashes)
{
    const int64_t count = 600, k = 21, n = 40;
    const int32_t M = 5; /* 21 = 4 * 5 + 1 */
    uint64_t rng = 77;
    float *X = random_matrix(count, k, k, &rng);
    const smm_context ctx = context(SMM_ISA_SCALAR, 2);
    pq_codebook *cb = NULL;
    /* default max_train (4096 > count: all vectors) and a sample of 200 */
    ck_assert_int_eq(pq_train(&ctx, X, count, k, k, M, 5, 12, 0, &cb), SMM_OK);
    uint8_t codes[2 * 16 * 5];
    ck_assert_int_eq(pq_encode(&ctx, cb, X, n, k, codes), SMM_OK);
    const uint64_t h_all = test_fnv1a(
        codes, sizeof codes, test_fnv1a(cb->centroids, (size_t)(16 * k) * sizeof(float), UINT64_C(0xcbf29ce484222325)));
    pq_codebook_free(cb);
    ck_assert_int_eq(pq_train(&ctx, X, count, k, k, M, 5, 12, 200, &cb), SMM_OK);
    ck_assert_int_eq(pq_encode(&ctx, cb, X, n, k, codes), SMM_OK);
    const uint64_t h_sample = test_fnv1a(
        codes, sizeof codes, test_fnv1a(cb->centroids, (size_t)(16 * k) * sizeof(float), UINT64_C(0xcbf29ce484222325)));
    pq_codebook_free(cb);
    test_restore_defaults();
    free(X);
    ck_assert_msg(h_all == UINT64_C(0xedd658cbcd44fbb4), "all: %016llx", (unsigned long long)h_all);
    ck_assert_msg(h_sample == UINT64_C(0x59806799fa558993), "sample: %016llx", (unsigned long long)h_sample);
}
END_TEST

START_TEST(test_nearest_ties_and_create)
{
    /* k = 6, M = 2: subspaces of 3 dims; centroids 3 and 9 equal in subspace 0, everything else distinct */
    const int64_t k = 6;
    float C[16 * 6];
    for (int m = 0; m < 2; m++)
        for (int c = 0; c < 16; c++)
            for (int t = 0; t < 3; t++)
                C[16 * 3 * m + c * 3 + t] = (float)(c * 10 + t + 100 * m);
    for (int t = 0; t < 3; t++)
        C[9 * 3 + t] = C[3 * 3 + t];
    pq_codebook *cb = NULL;
    ck_assert_int_eq(pq_codebook_create(k, 2, C, &cb), SMM_OK);
    /* x sits on centroid 9 (== 3) of subspace 0 and on 12 of subspace 1; y halfway between 4 and 5 */
    float x[2 * 6];
    for (int t = 0; t < 3; t++) {
        x[t] = C[9 * 3 + t];
        x[3 + t] = C[48 + 12 * 3 + t];
        x[6 + t] = 0.5f * (C[4 * 3 + t] + C[5 * 3 + t]);
        x[9 + t] = C[48 + 15 * 3 + t] + 1000.0f;
    }
    const smm_context ctx = context(SMM_ISA_SCALAR, 1);
    uint8_t codes[32];
    memset(codes, 0xAB, sizeof codes);
    ck_assert_int_eq(pq_encode(&ctx, cb, x, 2, 6, codes), SMM_OK);
    ck_assert_int_eq(pq_code_at(codes, 2, 0, 0), 3);
    ck_assert_int_eq(pq_code_at(codes, 2, 0, 1), 12);
    ck_assert_int_eq(pq_code_at(codes, 2, 1, 0), 4); /* equal distances: the smaller index */
    ck_assert_int_eq(pq_code_at(codes, 2, 1, 1), 15);
    for (int64_t j = 2; j < 32; j++)
        ck_assert(pq_code_at(codes, 2, j, 0) == 0 && pq_code_at(codes, 2, j, 1) == 0);
    float back[6];
    pq_decode(cb, codes, 0, back);
    ck_assert(memcmp(back, x, sizeof back) == 0);
    /* pq_nearest_centroid directly, with its distance */
    float dist = -1.0f;
    ck_assert_int_eq(pq_nearest_centroid(x, cb->centroids_t, 3, &dist), 3);
    ck_assert(dist == 0.0f);
    pq_codebook_free(cb);
    /* create: NULL centroids are zeros; bad shapes */
    ck_assert_int_eq(pq_codebook_create(4, 2, NULL, &cb), SMM_OK);
    for (int i = 0; i < 64; i++)
        ck_assert(cb->centroids[i] == 0.0f && cb->centroids_t[i] == 0.0f);
    pq_codebook_free(cb);
    pq_codebook *bad = (pq_codebook *)&ctx;
    ck_assert_int_eq(pq_codebook_create(4, 5, NULL, &bad), SMM_ERR_BAD_ARGUMENT);
    ck_assert_ptr_null(bad);
    C[7] = NAN;
    bad = (pq_codebook *)&ctx;
    ck_assert_int_eq(pq_codebook_create(6, 2, C, &bad), SMM_ERR_NON_FINITE);
    ck_assert_ptr_null(bad);
    ck_assert_int_eq(pq_codebook_create(0, 1, NULL, &bad), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(pq_codebook_create(4, 1, NULL, NULL), SMM_ERR_NULL_POINTER);
    pq_codebook_free(NULL);
    test_restore_defaults();
}
END_TEST

/* Degenerate data: 3 distinct vectors, 16 centroids: empty clusters every iteration, exact reconstruction. */
START_TEST(test_empty_clusters)
{
    const int64_t count = 40, k = 4;
    float X[40 * 4];
    for (int64_t i = 0; i < count; i++)
        for (int64_t t = 0; t < k; t++)
            X[i * k + t] = (float)((i % 3) * 2 + t) - 3.0f;
    const smm_context ctx = context(SMM_ISA_SCALAR, 2);
    for (int32_t M = 1; M <= 4; M++) {
        pq_codebook *cb = NULL;
        ck_assert_int_eq(pq_train(&ctx, X, count, k, k, M, 1, 0, 0, &cb), SMM_OK);
        uint8_t codes[2 * 16 * 4];
        ck_assert_int_eq(pq_encode(&ctx, cb, X, count, k, codes), SMM_OK);
        for (int64_t i = 0; i < count; i++) {
            float back[4];
            pq_decode(cb, codes, i, back);
            ck_assert(memcmp(back, X + i * k, sizeof back) == 0);
        }
        for (int64_t i = 0; i < 16 * k; i++)
            ck_assert(isfinite(cb->centroids[i]));
        pq_codebook_free(cb);
    }
    /* exactly 16 distinct vectors: each its own centroid, distortion 0 */
    float Z[16 * 3];
    uint64_t rng = 5;
    test_fill_uniform(Z, 48, &rng);
    pq_codebook *cb = NULL;
    ck_assert_int_eq(pq_train(&ctx, Z, 16, 3, 3, 1, 42, 3, 0, &cb), SMM_OK);
    uint8_t codes[16];
    ck_assert_int_eq(pq_encode(&ctx, cb, Z, 16, 3, codes), SMM_OK);
    for (int64_t i = 0; i < 16; i++) {
        float back[3];
        pq_decode(cb, codes, i, back);
        ck_assert(memcmp(back, Z + i * 3, sizeof back) == 0);
        ck_assert_int_eq(pq_code_at(codes, 1, i, 0), (int)i); /* init takes all 16, in order */
    }
    pq_codebook_free(cb);
    test_restore_defaults();
}
END_TEST

/* Mean squared reconstruction error of the n vectors. */
static double distortion(const pq_codebook *cb, const uint8_t *codes, const float *X, int64_t n, int64_t k)
{
    double s = 0.0;
    float *back = malloc((size_t)k * sizeof(float));
    for (int64_t i = 0; i < n; i++) {
        pq_decode(cb, codes, i, back);
        for (int64_t t = 0; t < k; t++) {
            const double e = (double)back[t] - (double)X[i * k + t];
            s += e * e;
        }
    }
    free(back);
    return s / (double)n;
}

START_TEST(test_distortion_falls_with_M)
{
    const int64_t n = 1200, k = 32;
    uint64_t rng = 31337;
    float *X = random_matrix(n, k, k, &rng);
    const smm_context ctx = context(SMM_ISA_SCALAR, 2);
    /* measured: 9.11, 7.93, 5.82, 2.68, 0.672, 0.0506 */
    static const int32_t Ms[] = { 1, 2, 4, 8, 16, 32 };
    double prev = 0.0;
    for (size_t i = 0; i < sizeof Ms / sizeof Ms[0]; i++) {
        pq_codebook *cb = NULL;
        ck_assert_int_eq(pq_train(&ctx, X, n, k, k, Ms[i], 8, 0, 0, &cb), SMM_OK);
        uint8_t *codes = malloc((size_t)pq_codes_bytes(Ms[i], n));
        ck_assert_int_eq(pq_encode(&ctx, cb, X, n, k, codes), SMM_OK);
        const double d = distortion(cb, codes, X, n, k);
        /* uniform data in [-1, 1): variance 1/3 per dimension, k/3 per vector */
        ck_assert_msg(d < (double)k / 3.0, "M %d: distortion %g", Ms[i], d);
        if (i > 0)
            ck_assert_msg(d < 0.95 * prev, "M %d: distortion %g not below 0.95 x %g", Ms[i], d, prev);
        prev = d;
        pq_codebook_free(cb);
        free(codes);
    }
    /* 16 levels per dimension of a uniform variable: about (2/16)^2 / 12 per dimension */
    ck_assert_msg(prev < 0.01 * (double)k, "M = k: distortion %g", prev);
    test_restore_defaults();
    free(X);
}
END_TEST

/* ======================================================================
 * Lookup tables
 * ====================================================================== */

static void check_lut_bound(int64_t k, int32_t M, int64_t n, int64_t rows, uint64_t seed)
{
    uint64_t rng = seed;
    const int64_t ldq = k + 2;
    float *X = random_matrix(n, k, k, &rng);
    float *Q = random_matrix(rows, k, ldq, &rng);
    for (int64_t t = 0; t < k; t++)
        Q[t] = 0.0f; /* query 0 all zero: every table 0, delta 1 */
    const smm_context ctx = context(SMM_ISA_SCALAR, 2);
    pq_codebook *cb = NULL;
    ck_assert_int_eq(pq_train(&ctx, X, n, k, k, M, 3, 5, 0, &cb), SMM_OK);
    uint8_t *codes = malloc((size_t)pq_codes_bytes(M, n));
    ck_assert_int_eq(pq_encode(&ctx, cb, X, n, k, codes), SMM_OK);
    uint8_t *lut = malloc((size_t)(rows * M * 16));
    float *scale = malloc((size_t)rows * sizeof(float)), *bias = malloc((size_t)rows * sizeof(float));
    double *T = malloc((size_t)(M * 16) * sizeof(double));
    float *est = malloc((size_t)(rows * n) * sizeof(float));
    ck_assert(codes && lut && scale && bias && T && est);
    pq_lut(cb, Q, rows, ldq, lut, scale, bias);
    smm_isa isas[4];
    const int nisa = test_supported_isas(isas);
    for (int q = 0; q < nisa; q++) {
        pq_scan_float(isas[q], lut, scale, bias, rows, M, codes, 0, n, est, n);
        for (int64_t r = 0; r < rows; r++) {
            const float *qr = Q + r * ldq;
            const uint8_t *L = lut + r * M * 16;
            double widest = 0.0, sum_min = 0.0;
            int saw255 = 0;
            for (int32_t m = 0; m < M; m++) {
                const int64_t lo = cb->start[m], d = cb->start[m + 1] - lo;
                double mn = 0.0, mx = 0.0;
                int zero = 0;
                for (int c = 0; c < 16; c++) {
                    double s = 0.0;
                    for (int64_t t = 0; t < d; t++)
                        s += (double)qr[lo + t] * (double)cb->centroids[16 * lo + c * d + t];
                    T[m * 16 + c] = s;
                    mn = c == 0 || s < mn ? s : mn;
                    mx = c == 0 || s > mx ? s : mx;
                    zero |= L[m * 16 + c] == 0;
                    saw255 |= L[m * 16 + c] == 255;
                }
                ck_assert(zero); /* every table holds its minimum as 0 */
                widest = mx - mn > widest ? mx - mn : widest;
                sum_min += mn;
            }
            const double delta = scale[r];
            if (widest == 0.0) {
                ck_assert(scale[r] == 1.0f && bias[r] == 0.0f);
            } else {
                ck_assert(saw255);
                ck_assert(delta * 255.0 >= widest && delta < widest / 255.0 * (1.0 + 1e-6));
            }
            ck_assert(fabs((double)bias[r] - sum_min) <= 1e-6 * (1.0 + fabs(sum_min)));
            /* every estimate within M delta / 2 of the float-LUT sum, plus float rounding */
            for (int64_t j = 0; j < n; j++) {
                double exact = 0.0;
                uint32_t isum = 0;
                for (int32_t m = 0; m < M; m++) {
                    const int c = pq_code_at(codes, M, j, m);
                    exact += T[m * 16 + c];
                    isum += L[m * 16 + c];
                }
                const double e = est[r * n + j];
                const double slack = 4.0 * 0x1p-24 * (fabs(sum_min) + delta * (double)isum + fabs(e));
                ck_assert_msg(fabs(e - exact) <= (double)M * delta / 2.0 + slack,
                              "M %d row %lld j %lld: estimate %.9g exact %.9g delta %g", M, (long long)r,
                              (long long)j, e, exact, delta);
            }
        }
    }
    pq_codebook_free(cb);
    free(X);
    free(Q);
    free(codes);
    free(lut);
    free(scale);
    free(bias);
    free(T);
    free(est);
    test_restore_defaults();
}

START_TEST(test_lut_quantization_bound)
{
    check_lut_bound(40, 8, 200, 5, 1);
    check_lut_bound(41, 13, 150, 3, 2);   /* k % M != 0 */
    check_lut_bound(600, 300, 40, 3, 3);  /* M > 256: tables computed twice */
    check_lut_bound(5, 5, 64, 2, 4);      /* one dimension per subspace */
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
    pq_codebook *const junk = (pq_codebook *)X;
    pq_codebook *cb = junk;
    ck_assert_int_eq(pq_train(&ctx, X, count, k, k, 0, 1, 0, 0, &cb), SMM_ERR_BAD_ARGUMENT);
    ck_assert_ptr_null(cb);
    cb = junk;
    ck_assert_int_eq(pq_train(&ctx, X, count, k, k, 9, 1, 0, 0, &cb), SMM_ERR_BAD_ARGUMENT); /* M > k */
    ck_assert_ptr_null(cb);
    cb = junk;
    ck_assert_int_eq(pq_train(&ctx, X, 15, k, k, 2, 1, 0, 0, &cb), SMM_ERR_BAD_SIZE); /* count < 16 */
    ck_assert_ptr_null(cb);
    cb = junk;
    ck_assert_int_eq(pq_train(&ctx, X, -1, k, k, 2, 1, 0, 0, &cb), SMM_ERR_BAD_SIZE);
    ck_assert_ptr_null(cb);
    cb = junk;
    ck_assert_int_eq(pq_train(&ctx, X, count, k, 0, 1, 1, 0, 0, &cb), SMM_ERR_BAD_SIZE); /* k < 1 */
    ck_assert_ptr_null(cb);
    cb = junk;
    ck_assert_int_eq(pq_train(&ctx, X, count, k - 1, k, 2, 1, 0, 0, &cb), SMM_ERR_BAD_LEADING_DIM);
    ck_assert_ptr_null(cb);
    cb = junk;
    ck_assert_int_eq(pq_train(&ctx, X, count, k, k, 2, 1, -1, 0, &cb), SMM_ERR_BAD_ARGUMENT);
    ck_assert_ptr_null(cb);
    cb = junk;
    ck_assert_int_eq(pq_train(&ctx, X, count, k, k, 2, 1, 0, 15, &cb), SMM_ERR_BAD_ARGUMENT);
    ck_assert_ptr_null(cb);
    cb = junk;
    ck_assert_int_eq(pq_train(&ctx, X, count, k, k, 2, 1, 0, -3, &cb), SMM_ERR_BAD_ARGUMENT);
    ck_assert_ptr_null(cb);
    cb = junk;
    ck_assert_int_eq(pq_train(&ctx, NULL, count, k, k, 2, 1, 0, 0, &cb), SMM_ERR_NULL_POINTER);
    ck_assert_ptr_null(cb);
    ck_assert_int_eq(pq_train(&ctx, X, count, k, k, 2, 1, 0, 0, NULL), SMM_ERR_NULL_POINTER);
    {
        /* M above PQ_MAX_SUBSPACES (with k large enough): the data is never read */
        cb = junk;
        ck_assert_int_eq(pq_train(&ctx, X, 16, 5000, 5000, PQ_MAX_SUBSPACES + 1, 1, 0, 0, &cb), SMM_ERR_BAD_ARGUMENT);
        ck_assert_ptr_null(cb);
    }
    /* non-finite values anywhere in X, sampled or not */
    const float bad_values[] = { NAN, INFINITY, -INFINITY };
    for (int b = 0; b < 3; b++) {
        float Y[40 * 8];
        memcpy(Y, X, sizeof Y);
        Y[39 * 8 + 7] = bad_values[b];
        cb = junk;
        ck_assert_int_eq(pq_train(&ctx, Y, count, k, k, 2, 1, 0, 16, &cb), SMM_ERR_NON_FINITE);
        ck_assert_ptr_null(cb);
    }

    /* pq_encode: statuses, codes untouched */
    ck_assert_int_eq(pq_train(&ctx, X, count, k, k, 3, 1, 0, 0, &cb), SMM_OK);
    uint8_t codes[2 * 16 * 3], before[sizeof codes];
    memset(codes, 0x5A, sizeof codes);
    memcpy(before, codes, sizeof codes);
    float Y[40 * 8];
    memcpy(Y, X, sizeof Y);
    Y[35 * 8 + 2] = NAN;
    ck_assert_int_eq(pq_encode(&ctx, cb, Y, count, k, codes), SMM_ERR_NON_FINITE);
    ck_assert(memcmp(codes, before, sizeof codes) == 0);
    ck_assert_int_eq(pq_encode(&ctx, cb, X, -1, k, codes), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(pq_encode(&ctx, cb, X, count, k - 1, codes), SMM_ERR_BAD_LEADING_DIM);
    ck_assert_int_eq(pq_encode(&ctx, cb, NULL, count, k, codes), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(pq_encode(&ctx, cb, X, count, k, NULL), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(pq_encode(&ctx, NULL, X, count, k, codes), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(pq_encode(NULL, cb, X, count, k, codes), SMM_ERR_NULL_POINTER);
    ck_assert(memcmp(codes, before, sizeof codes) == 0);
    ck_assert_int_eq(pq_encode(&ctx, cb, NULL, 0, k, NULL), SMM_OK); /* n = 0: nothing */
    ck_assert_int_eq(pq_encode(&ctx, cb, X, count, k, codes), SMM_OK);
    pq_codebook_free(cb);
    test_restore_defaults();
}
END_TEST

static Suite *pq_suite(void)
{
    Suite *s = suite_create("pq");
    TCase *tc = tcase_create("scan");
    tcase_add_loop_test(tc, test_scan_matches_scalar, 0, (int)(sizeof scan_Ms / sizeof scan_Ms[0]));
    tcase_add_test(tc, test_scan_extremes);
    tcase_add_test(tc, test_scan_more_row_passes);
    tcase_add_test(tc, test_scan_kernel_names);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);

    tc = tcase_create("codebook");
    tcase_add_test(tc, test_codes_bytes_and_layout);
    tcase_add_test(tc, test_train_encode_deterministic);
    tcase_add_test(tc, test_golden_hashes);
    tcase_add_test(tc, test_nearest_ties_and_create);
    tcase_add_test(tc, test_empty_clusters);
    tcase_add_test(tc, test_distortion_falls_with_M);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);

    tc = tcase_create("lut");
    tcase_add_test(tc, test_lut_quantization_bound);
    tcase_add_test(tc, test_bad_arguments);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(pq_suite());
}
