/*
 * bench_matrix.c - aligned allocation, deterministic fill and comparison of
 * benchmark matrices (see bench_matrix.h).
 */
#include "bench_matrix.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define BENCH_ALIGNMENT 64

float *bench_alloc_floats(int64_t count)
{
    if (count < 1)
        count = 1;
    if ((uint64_t)count > (SIZE_MAX - BENCH_ALIGNMENT) / sizeof(float)) {
        fprintf(stderr, "sketchmm_bench: %lld floats do not fit in memory\n", (long long)count);
        exit(1);
    }
    size_t bytes = (size_t)count * sizeof(float);
    bytes = (bytes + BENCH_ALIGNMENT - 1) / BENCH_ALIGNMENT * BENCH_ALIGNMENT; /* aligned_alloc wants a multiple */
    float *p = aligned_alloc(BENCH_ALIGNMENT, bytes);
    if (p == NULL) {
        fprintf(stderr, "sketchmm_bench: out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

void bench_free_floats(float *p)
{
    free(p);
}

/* SplitMix64 finaliser: a well-mixed 64-bit function of its input. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

float bench_value_at(uint64_t seed, int64_t line, int64_t index)
{
    uint64_t h = mix64(seed * 0x9e3779b97f4a7c15ULL + mix64((uint64_t)line * 0x100000001b3ULL + (uint64_t)index));
    /* top 24 bits: an integer in [0, 2^24), exact in float; mapped to [-1, 1] */
    double unit = (double)(h >> 40) / (double)((1u << 24) - 1);
    return (float)(2.0 * unit - 1.0);
}

void bench_fill(float *x, int64_t lines, int64_t length, int64_t ld, uint64_t seed)
{
    for (int64_t l = 0; l < lines; l++)
        for (int64_t i = 0; i < length; i++)
            x[l * ld + i] = bench_value_at(seed, l, i);
}

void bench_zero(float *x, int64_t lines, int64_t length, int64_t ld)
{
    for (int64_t l = 0; l < lines; l++)
        for (int64_t i = 0; i < length; i++)
            x[l * ld + i] = 0.0f;
}

double bench_max_abs(const float *x, int64_t lines, int64_t length, int64_t ld)
{
    double largest = 0.0;
    for (int64_t l = 0; l < lines; l++)
        for (int64_t i = 0; i < length; i++)
            largest = fmax(largest, fabs((double)x[l * ld + i]));
    return largest;
}

double bench_max_abs_diff(const float *x, int64_t ldx, const float *y, int64_t ldy, int64_t lines, int64_t length)
{
    double largest = 0.0;
    for (int64_t l = 0; l < lines; l++)
        for (int64_t i = 0; i < length; i++) {
            double d = fabs((double)x[l * ldx + i] - (double)y[l * ldy + i]);
            if (isnan(d))
                return INFINITY;
            if (d > largest)
                largest = d;
        }
    return largest;
}
