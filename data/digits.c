/*
 * digits.c - small 8 x 8 digit-like images from a seed, for tests that need
 * image-like data without the Fashion-MNIST package. See dataset_digits() in
 * data/dataset.h.
 *
 * Row i draws its random numbers from the digits stream at indices
 * i * DIGITS_DRAWS_PER_ROW + t, so each row depends on (seed, i) only.
 */
#include "data/dataset.h"
#include "data/data_internal.h"

#include <math.h>

enum {
    DIGITS_SIDE = 8,
    /* t = 0, 1: the shifts; 2 + p: brightness of pixel p; 2 + 64 + p: its noise */
    DIGITS_DRAW_SHIFT_X = 0,
    DIGITS_DRAW_SHIFT_Y = 1,
    DIGITS_DRAW_BRIGHTNESS = 2,
    DIGITS_DRAW_NOISE = 2 + DATASET_DIGITS_DIM,
    DIGITS_DRAWS_PER_ROW = 2 + 2 * DATASET_DIGITS_DIM
};

/* Background noise: a pixel gets noise u when u < DIGITS_NOISE_LEVEL. */
static const double DIGITS_NOISE_LEVEL = 0.25;

/* The glyphs: one byte per image row, bit 7 the leftmost pixel. */
static const unsigned char DIGITS_GLYPHS[10][DIGITS_SIDE] = {
    { 0x3C, 0x66, 0x66, 0x66, 0x66, 0x66, 0x3C, 0x00 }, /* 0 */
    { 0x18, 0x38, 0x18, 0x18, 0x18, 0x18, 0x7E, 0x00 }, /* 1 */
    { 0x3C, 0x66, 0x06, 0x0C, 0x18, 0x30, 0x7E, 0x00 }, /* 2 */
    { 0x3C, 0x66, 0x06, 0x1C, 0x06, 0x66, 0x3C, 0x00 }, /* 3 */
    { 0x0C, 0x1C, 0x2C, 0x4C, 0x7E, 0x0C, 0x0C, 0x00 }, /* 4 */
    { 0x7E, 0x60, 0x7C, 0x06, 0x06, 0x66, 0x3C, 0x00 }, /* 5 */
    { 0x1C, 0x30, 0x60, 0x7C, 0x66, 0x66, 0x3C, 0x00 }, /* 6 */
    { 0x7E, 0x06, 0x0C, 0x18, 0x30, 0x30, 0x30, 0x00 }, /* 7 */
    { 0x3C, 0x66, 0x66, 0x3C, 0x66, 0x66, 0x3C, 0x00 }, /* 8 */
    { 0x3C, 0x66, 0x66, 0x3E, 0x06, 0x0C, 0x38, 0x00 }, /* 9 */
};

/* Whether pixel (r, c) of a glyph is set; outside the 8 x 8 square it is not. */
static int glyph_pixel(int digit, int r, int c)
{
    if (r < 0 || r >= DIGITS_SIDE || c < 0 || c >= DIGITS_SIDE)
        return 0;
    return (DIGITS_GLYPHS[digit][r] >> (DIGITS_SIDE - 1 - c)) & 1;
}

/* The nearest multiple of 1/16 to v in [0, 1]. */
static float quantize16(double v)
{
    double q = floor(v * 16.0 + 0.5) / 16.0;
    return (float)(q > 1.0 ? 1.0 : q);
}

/* Image i (digit i mod 10) into x[0..64). */
static void draw_digit(float *x, uint64_t seed, int64_t i)
{
    const uint64_t base = (uint64_t)i * DIGITS_DRAWS_PER_ROW;
    const int digit = (int)(i % 10);
    const int dx = (int)(dataset_rng_u64(seed, DATASET_STREAM_DIGITS, base + DIGITS_DRAW_SHIFT_X) % 3) - 1;
    const int dy = (int)(dataset_rng_u64(seed, DATASET_STREAM_DIGITS, base + DIGITS_DRAW_SHIFT_Y) % 3) - 1;
    for (int p = 0; p < DATASET_DIGITS_DIM; p++) {
        const int r = p / DIGITS_SIDE, c = p % DIGITS_SIDE;
        double v;
        if (glyph_pixel(digit, r - dy, c - dx)) {
            v = 0.5 + 0.5 * dataset_rng_uniform(seed, DATASET_STREAM_DIGITS,
                                                base + DIGITS_DRAW_BRIGHTNESS + (uint64_t)p);
        } else {
            double u = dataset_rng_uniform(seed, DATASET_STREAM_DIGITS, base + DIGITS_DRAW_NOISE + (uint64_t)p);
            v = u < DIGITS_NOISE_LEVEL ? u : 0.0;
        }
        x[p] = quantize16(v);
    }
}

smm_status dataset_digits(int64_t rows, uint64_t seed, dataset_matrix *out, int32_t *labels)
{
    dataset_matrix_clear(out);
    if (out == NULL)
        return SMM_ERR_NULL_POINTER;
    if (rows > INT64_MAX / DIGITS_DRAWS_PER_ROW)
        return SMM_ERR_OVERFLOW;
    smm_status s = dataset_matrix_alloc(rows, DATASET_DIGITS_DIM, out);
    if (s != SMM_OK)
        return s;
    for (int64_t i = 0; i < rows; i++) {
        draw_digit(out->data + i * DATASET_DIGITS_DIM, seed, i);
        if (labels != NULL)
            labels[i] = (int32_t)(i % 10);
    }
    return SMM_OK;
}
