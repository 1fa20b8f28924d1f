/*
 * kernel_probe.c - the micro-kernel ceiling (kernel_probe.h), through the
 * probes' timing harness (throughput_probe.h). Reaches the library's
 * internal kernel table (exact/tuning.h) as mode pqscan reaches its scan
 * kernels: sketchmm_bench links the static library.
 */
#include <stdlib.h>

#include "kernel_probe.h"
#include "throughput_probe.h"
#include "common/smm_runtime.h"
#include "exact/tuning.h"

static sgemm_target target;
static float *panel_a, *panel_b, *tile;

/* `iterations` kernel calls on the same panels, C overwritten (beta 0) then accumulated (beta 1). */
static double kernel_loop(int64_t iterations)
{
    for (int64_t it = 0; it < iterations; it++)
        target.kernel(target.kc, 1.0f, panel_a, panel_b, it == 0 ? 0.0f : 1.0f, tile, target.nr, target.a_ahead);
    return (double)tile[0];
}

double kernel_probe_gflops(void)
{
    smm_isa isa;
    if (smm_get_isa(&isa) != SMM_OK)
        return 0.0;
    sgemm_target_for(isa, 1, &target);
    const size_t a = (size_t)(target.mr * target.kc), b = (size_t)(target.nr * target.kc);
    panel_a = smm_aligned_alloc(a * sizeof(float));
    panel_b = smm_aligned_alloc(b * sizeof(float));
    tile = smm_aligned_alloc((size_t)(target.mr * target.nr) * sizeof(float));
    double gflops = 0.0;
    if (panel_a != NULL && panel_b != NULL && tile != NULL) {
        for (size_t i = 0; i < a; i++)
            panel_a[i] = 1e-3f * (float)(i % 13);
        for (size_t i = 0; i < b; i++)
            panel_b[i] = 1e-3f * (float)(i % 11);
        int64_t iterations = 0;
        const double flops_per_call = 2.0 * target.mr * target.nr * (double)target.kc;
        gflops = 1e-9 * throughput_probe_rate(kernel_loop, flops_per_call, 1, &iterations);
    }
    smm_aligned_free(panel_a);
    smm_aligned_free(panel_b);
    smm_aligned_free(tile);
    return gflops;
}

const char *kernel_probe_name(void)
{
    return target.name != NULL ? target.name : "none";
}

long long kernel_probe_kc(void)
{
    return (long long)target.kc;
}
