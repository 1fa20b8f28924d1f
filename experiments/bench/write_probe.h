/*
 * write_probe.h - memory write bandwidth of this machine, measured: each
 * thread writes its own contiguous part of a buffer much larger than the
 * caches (WRITE_PROBE_BYTES in all), with non-temporal (streaming) vector
 * stores that skip the caches and the read-for-ownership of each line, or
 * with regular vector stores (each line read before it is written); best
 * of WRITE_PROBE_RUNS runs. The streaming rate is the ceiling of any kernel
 * whose time is writing a large result (the small-k product of the
 * sketched-factor methods: bytes of C over this rate).
 *
 * Every loop writes non-zero values: on the Zen 4 virtual machine this was
 * measured on, writing all-zero 64-byte lines ran about 3x faster than
 * writing any other data (2 threads, a 64 MiB buffer: 0.72-0.92 ms against
 * 2.35-2.58 ms), so a probe writing zeros (as this one did in one of its
 * runs, and kept as its best) measures a rate no real result gets.
 *
 * The streaming loops live in write_probe_avx2.c and write_probe_avx512.c
 * (x86_64 builds only); the regular-store loop is plain C.
 */
#ifndef SKETCHMM_BENCH_WRITE_PROBE_H
#define SKETCHMM_BENCH_WRITE_PROBE_H

#include <stdint.h>

#define WRITE_PROBE_BYTES (512.0 * 1024 * 1024)
#define WRITE_PROBE_RUNS 8

typedef enum { WRITE_PROBE_STREAM = 0, WRITE_PROBE_STORE = 1 } write_probe_kind;

/* "streaming stores" or "regular stores". */
const char *write_probe_kind_name(write_probe_kind kind);

/* 1 when this build and CPU have the loop of `kind`; else 0 and *why (when not NULL) says what is missing. */
int write_probe_available(write_probe_kind kind, const char **why);

/*
 * GB/s (1e9 bytes) of `threads` threads writing their parts of the buffer at
 * once: the bytes over the slowest thread's time, best of WRITE_PROBE_RUNS.
 * 0 when the loop is not available or the buffer cannot be allocated.
 */
double write_probe_gbytes(write_probe_kind kind, int threads);

/*
 * Seconds of `threads` threads writing x[0 .. count) (x 64-byte aligned, a
 * buffer of the caller's, e.g. a product's C) with the loop of `kind` (the
 * value 1), each thread a contiguous part of whole 64-byte lines (the last
 * part takes the rest; one thread below 64^3 floats), timed around the
 * parallel region as a caller times a kernel: the stores-only time of
 * writing that buffer. 0 when the loop is not available.
 */
double write_probe_seconds_on(write_probe_kind kind, float *x, int64_t count, int threads);

/*
 * The streaming loops: x[0 .. count) := value with non-temporal stores, then
 * an sfence; x 64-byte aligned, count a multiple of 16. The caller checked
 * the CPU.
 */
void write_probe_stream_avx2(float *x, int64_t count, float value);
void write_probe_stream_avx512(float *x, int64_t count, float value);

#endif /* SKETCHMM_BENCH_WRITE_PROBE_H */
