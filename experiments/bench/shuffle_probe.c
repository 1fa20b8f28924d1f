/*
 * shuffle_probe.c - run the VPSHUFB + add loops through the shared probe
 * harness (throughput_probe.h); see shuffle_probe.h.
 */
#include "shuffle_probe.h"

#include <stddef.h>

#include "throughput_probe.h"

/* volatile: the compiler cannot treat the table as known */
static volatile uint64_t probe_seed = UINT64_C(0x0F1E2D3C4B5A6978);

const char *shuffle_probe_width_name(shuffle_probe_width width)
{
    static const char *const names[SHUFFLE_PROBE_WIDTHS] = { "512-bit vpshufb", "256-bit vpshufb",
                                                              "512-bit vpshufb+u16", "512-bit vpermb+vpdpbusd" };
    return names[width];
}

int shuffle_probe_available(shuffle_probe_width width, const char **why)
{
    const char *missing = NULL;
#ifndef SKETCHMM_BENCH_X86_KERNELS
    (void)width;
    missing = "no byte-shuffle probe for this architecture (x86_64 only)";
#else
    __builtin_cpu_init();
    if (width != SHUFFLE_PROBE_256 && !(__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")))
        missing = "this CPU lacks AVX512BW";
    else if (width == SHUFFLE_PROBE_256 && !__builtin_cpu_supports("avx2"))
        missing = "this CPU lacks AVX2";
    else if (width == SHUFFLE_PROBE_512_VPERMB &&
             !(__builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512vnni")))
        missing = "this CPU lacks AVX512_VBMI or AVX512_VNNI";
#endif
    if (why != NULL)
        *why = missing;
    return missing == NULL;
}

#ifdef SKETCHMM_BENCH_X86_KERNELS
static double loop_512(int64_t iterations)
{
    return shuffle_probe_loop_avx512(iterations, probe_seed);
}

static double loop_256(int64_t iterations)
{
    return shuffle_probe_loop_avx2(iterations, probe_seed);
}

static double loop_512_u16(int64_t iterations)
{
    return shuffle_probe_loop_u16_avx512(iterations, probe_seed);
}

static double loop_512_vpermb(int64_t iterations)
{
    return shuffle_probe_loop_vpermb_avx512(iterations, probe_seed);
}
#endif

double shuffle_probe_glookups(shuffle_probe_width width, int threads)
{
    if (!shuffle_probe_available(width, NULL))
        return 0.0;
#ifdef SKETCHMM_BENCH_X86_KERNELS
    static int64_t calibrated[SHUFFLE_PROBE_WIDTHS];
    static const throughput_probe_loop loops[SHUFFLE_PROBE_WIDTHS] = { loop_512, loop_256, loop_512_u16,
                                                                        loop_512_vpermb };
    static const double lookups[SHUFFLE_PROBE_WIDTHS] = {
        64.0 * SHUFFLE_PROBE_CHAINS, 32.0 * SHUFFLE_PROBE_CHAINS_AVX2, 64.0 * SHUFFLE_PROBE_CHAINS_U16,
        64.0 * SHUFFLE_PROBE_CHAINS_VPERMB
    };
    return 1e-9 * throughput_probe_rate(loops[width], lookups[width], threads, &calibrated[width]);
#else
    (void)threads;
    return 0.0;
#endif
}
