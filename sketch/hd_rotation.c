/*
 * hd_rotation.c - sign masks, the scaled copy and the HD-rotation of a
 * vector (see hd_rotation.h), and the table of its kernels, one row per ISA
 * path (common/smm_dispatch.h).
 */
#include <math.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "sketch/hd_rotation.h"

static const hd_kernels table[SMM_ISA_COUNT] = {
    [SMM_ISA_SCALAR] = { { "scalar", 0 }, fwht_flip_scalar, sign_pack_scalar, scale_pad_scalar },
#if defined(__x86_64__)
    [SMM_ISA_AVX2] = { { "avx2", 0 }, fwht_flip_avx2, sign_pack_avx2, scale_pad_avx2 },
    [SMM_ISA_AVX512] = { { "avx512", 0 }, fwht_flip_avx512, sign_pack_avx512, scale_pad_avx512 },
#endif
#if defined(__aarch64__)
    [SMM_ISA_NEON] = { { "neon", 0 }, fwht_flip_neon, sign_pack_neon, scale_pad_scalar },
#endif
};

const hd_kernels *hd_kernels_for(smm_isa isa)
{
    return SMM_KERNELS_FOR(table, isa);
}

int64_t hd_rotation_dim(int64_t d)
{
    if (d > HD_MAX_DIM)
        return 0;
    int64_t D = 2;
    while (D < d)
        D *= 2;
    return D;
}

void hd_rotation_signs(uint64_t seed, uint64_t block, int64_t D, uint32_t *flip)
{
    for (int r = 0; r < HD_ROUNDS; r++) {
        for (int64_t w = 0; w * 64 < D; w++) {
            unsigned char key[24];
            const uint64_t parts[3] = { block, (uint64_t)r, (uint64_t)w };
            for (int p = 0; p < 3; p++)
                for (int i = 0; i < 8; i++)
                    key[8 * p + i] = (unsigned char)(parts[p] >> (8 * i));
            const uint64_t bitsw = XXH3_64bits_withSeed(key, sizeof key, seed);
            const int64_t n = D - w * 64 < 64 ? D - w * 64 : 64;
            for (int64_t i = 0; i < n; i++)
                flip[r * D + w * 64 + i] = ((bitsw >> i) & 1u) ? UINT32_C(0x80000000) : 0u;
        }
    }
}

void hd_scale_pad(const float *x, int64_t incx, int64_t d, int64_t D, float big,
                  scale_pad_fn scale_pad, float *xs)
{
    int e = 0;
    if (big > 0.0f)
        (void)frexpf(big, &e); /* big = f * 2^e, f in [0.5, 1): big * 2^(1-e) in [1, 2) */
    if (incx == 1 && 1 - e >= -126 && 1 - e <= 127) {
        /* 2^(1-e) is a normal float: x * 2^(1-e) is exact in double, so the
         * float product is the same single rounding as the double path */
        scale_pad(x, d, ldexpf(1.0f, 1 - e), xs, D);
        return;
    }
    /* in double: 2^(1-e) may be outside float's range when x is tiny or huge */
    const double scale = ldexp(1.0, 1 - e);
    for (int64_t t = 0; t < d; t++)
        xs[t] = (float)((double)x[t * incx] * scale);
    for (int64_t t = d; t < D; t++)
        xs[t] = 0.0f;
}

void hd_rotate_scaled(const uint32_t *flip, fwht_flip_fn fwht, const float *xs, int64_t D, float *y)
{
    if (y != xs)
        memcpy(y, xs, (size_t)D * sizeof(float));
    for (int r = 0; r < HD_ROUNDS; r++)
        fwht(y, flip + r * D, D);
}

void hd_rotate(const uint32_t *flip, const float *x, int64_t incx, int64_t d, int64_t D,
               fwht_flip_fn fwht, float *y)
{
    float big = 0.0f;
    for (int64_t t = 0; t < d; t++) {
        const float a = fabsf(x[t * incx]);
        big = a > big ? a : big;
    }
    hd_scale_pad(x, incx, d, D, big, scale_pad_scalar, y);
    hd_rotate_scaled(flip, fwht, y, D, y);
}
