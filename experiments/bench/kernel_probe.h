/*
 * kernel_probe.h - the ceiling of exact_sgemm on this CPU: the micro-kernel
 * of the active configuration (sketchmm/tuning.h) alone, called over and
 * over on one packed A micro-panel and one packed B micro-panel of the
 * configuration's depth kc (both stay in cache: no packing, no C traffic
 * beyond one tile, no loop overhead of the driver), best of several short
 * runs on one thread, as the FMA probe (fma_probe.h) is measured. The whole
 * product cannot go faster than this; set against the FMA probe it says how
 * much of the peak the kernel's instruction mix itself leaves (loads,
 * broadcasts, the C update).
 */
#ifndef SKETCHMM_BENCH_KERNEL_PROBE_H
#define SKETCHMM_BENCH_KERNEL_PROBE_H

/* GFLOPS of the active micro-kernel on the current ISA path, one thread; 0 when it cannot run. */
double kernel_probe_gflops(void);

/* The kernel measured ("avx512_12x32") and its kc, for the report. */
const char *kernel_probe_name(void);
long long kernel_probe_kc(void);

#endif /* SKETCHMM_BENCH_KERNEL_PROBE_H */
