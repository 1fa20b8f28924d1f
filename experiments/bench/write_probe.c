/*
 * write_probe.c - the write bandwidth probe (write_probe.h): the buffer is
 * allocated and touched once by the threads that write it, then each run
 * times every thread writing its own contiguous part after a barrier.
 */
#include "write_probe.h"

#include <omp.h>
#include <stddef.h>

#include "bench_matrix.h"
#include "bench_timing.h"
#include "sketchmm.h"

#define MAX_THREADS 1024

const char *write_probe_kind_name(write_probe_kind kind)
{
    return kind == WRITE_PROBE_STREAM ? "streaming stores" : "regular stores";
}

int write_probe_available(write_probe_kind kind, const char **why)
{
    const char *missing = NULL;
#ifndef SKETCHMM_BENCH_X86_KERNELS
    if (kind == WRITE_PROBE_STREAM)
        missing = "no streaming-store loop for this architecture (x86_64 only)";
#else
    if (kind == WRITE_PROBE_STREAM && !smm_isa_supported(SMM_ISA_AVX2))
        missing = "this CPU lacks AVX2";
#endif
    if (why != NULL)
        *why = missing;
    return missing == NULL;
}

/* x[0 .. count) := value with regular stores (the compiler's vector stores; memset may stream large sizes). */
static void store_loop(float *x, int64_t count, float value)
{
    for (int64_t i = 0; i < count; i++)
        x[i] = value;
}

static void write_part(write_probe_kind kind, float *x, int64_t count, float value)
{
#ifdef SKETCHMM_BENCH_X86_KERNELS
    if (kind == WRITE_PROBE_STREAM) {
        if (smm_isa_supported(SMM_ISA_AVX512))
            write_probe_stream_avx512(x, count, value);
        else
            write_probe_stream_avx2(x, count, value);
        return;
    }
#endif
    (void)kind;
    store_loop(x, count, value);
}

double write_probe_seconds_on(write_probe_kind kind, float *x, int64_t count, int threads)
{
    if (!write_probe_available(kind, NULL) || threads < 1 || threads > MAX_THREADS || count < 1)
        return 0.0;
    /* below 64^3 floats one thread writes it all (the small-k product's own rule at k = 1) */
    if (count < 64 * 64 * 64)
        threads = 1;
    const int64_t lines = count / 16, per_thread = (lines + threads - 1) / threads * 16;
    const double t0 = bench_now_seconds();
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        const int64_t begin = (int64_t)omp_get_thread_num() * per_thread;
        const int64_t end = omp_get_thread_num() == omp_get_num_threads() - 1 ? count / 16 * 16
                            : begin + per_thread < count / 16 * 16   ? begin + per_thread
                                                                      : count / 16 * 16;
        if (begin < end)
            write_part(kind, x + begin, end - begin, 1.0f);
    }
    store_loop(x + count / 16 * 16, count % 16, 1.0f); /* the last partial line */
    return bench_now_seconds() - t0;
}

double write_probe_gbytes(write_probe_kind kind, int threads)
{
    if (!write_probe_available(kind, NULL) || threads < 1 || threads > MAX_THREADS)
        return 0.0;
    /* each thread's part a whole number of 64-byte lines */
    const int64_t per_thread = (int64_t)(WRITE_PROBE_BYTES / sizeof(float)) / threads / 16 * 16;
    float *buf = bench_alloc_floats(per_thread * threads);
    if (buf == NULL)
        return 0.0;
    double seconds[MAX_THREADS];
    double best = 0.0;
    int team = 1;
    for (int run = -1; run < WRITE_PROBE_RUNS; run++) { /* run -1: the first touch of the pages, untimed */
#pragma omp parallel num_threads(threads)
        {
            const int me = omp_get_thread_num();
            if (me == 0)
                team = omp_get_num_threads();
            float *mine = buf + (size_t)me * (size_t)per_thread;
#pragma omp barrier
            const double t0 = bench_now_seconds();
            write_part(kind, mine, per_thread, (float)(run + 2)); /* never 0: see write_probe.h */
            seconds[me] = bench_now_seconds() - t0;
        }
        if (run < 0)
            continue;
        double slowest = 0.0;
        for (int t = 0; t < team; t++)
            slowest = seconds[t] > slowest ? seconds[t] : slowest;
        const double rate = 1e-9 * (double)team * (double)per_thread * sizeof(float) / slowest;
        best = rate > best ? rate : best;
    }
    bench_free_floats(buf);
    return best;
}
