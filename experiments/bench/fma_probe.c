/*
 * fma_probe.c - run the FMA throughput loops through the shared probe
 * harness (throughput_probe.h) and turn their rates into GFLOPS (see
 * fma_probe.h). The iteration count is calibrated once per width.
 */
#include "fma_probe.h"

#include <stddef.h>

#include "sketchmm.h"
#include "throughput_probe.h"

/* volatile: the compiler cannot treat the loop's constants as known */
static volatile float probe_multiplier = 0.999999f;
static volatile float probe_addend = 1e-6f;

const char *fma_probe_width_name(fma_probe_width width)
{
    return width == FMA_PROBE_512 ? "512-bit FMA" : "256-bit FMA";
}

int fma_probe_available(fma_probe_width width, const char **why)
{
    const char *missing = NULL;
#ifndef SKETCHMM_BENCH_X86_KERNELS
    (void)width;
    missing = "no FMA probe for this architecture (x86_64 only)";
#else
    if (width == FMA_PROBE_512 && !smm_isa_supported(SMM_ISA_AVX512))
        missing = "this CPU lacks AVX-512";
    else if (width == FMA_PROBE_256 && !smm_isa_supported(SMM_ISA_AVX2))
        missing = "this CPU lacks AVX2 + FMA";
#endif
    if (why != NULL)
        *why = missing;
    return missing == NULL;
}

static int chains_of(fma_probe_width width)
{
#ifdef SKETCHMM_BENCH_X86_KERNELS
    return width == FMA_PROBE_512 ? FMA_PROBE_AVX512_CHAINS : FMA_PROBE_AVX2_CHAINS;
#else
    (void)width;
    return 0;
#endif
}

#ifdef SKETCHMM_BENCH_X86_KERNELS
static int lanes_of(fma_probe_width width)
{
    return width == FMA_PROBE_512 ? 16 : 8;
}

static double loop_512(int64_t iterations)
{
    return fma_probe_loop_avx512(iterations, probe_multiplier, probe_addend);
}

static double loop_256(int64_t iterations)
{
    return fma_probe_loop_avx2(iterations, probe_multiplier, probe_addend);
}
#endif

double fma_probe_gflops(fma_probe_width width, int threads)
{
    if (!fma_probe_available(width, NULL))
        return 0.0;
#ifdef SKETCHMM_BENCH_X86_KERNELS
    static int64_t calibrated[2];
    const double flops_per_iteration = 2.0 * (double)lanes_of(width) * chains_of(width);
    return 1e-9 * throughput_probe_rate(width == FMA_PROBE_512 ? loop_512 : loop_256, flops_per_iteration, threads,
                                        &calibrated[width]);
#else
    (void)threads;
    return 0.0;
#endif
}
