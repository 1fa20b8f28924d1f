/*
 * peer_blas.h - OpenBLAS and BLIS as peers of exact_sgemm, opened at run
 * time with dlopen (both export cblas_sgemm, so they cannot both be linked).
 *
 * Their paths are found when the project is configured (find_library in
 * experiments/CMakeLists.txt) and compiled in as SKETCHMM_OPENBLAS_PATH and
 * SKETCHMM_BLIS_PATH. A peer that was not found, does not load, lacks a
 * symbol or uses 64-bit BLAS integers is reported and left out; setting
 * SKETCHMM_BENCH_NO_PEERS=1 leaves both out.
 *
 * Sanitizer builds: AddressSanitizer refuses RTLD_DEEPBIND, so there the
 * peers are opened without it; and once a peer has started worker threads,
 * LeakSanitizer crashes at exit. Set SKETCHMM_BENCH_NO_PEERS=1 (the ctest
 * smoke tests do) or ASAN_OPTIONS=detect_leaks=0 there.
 */
#ifndef SKETCHMM_BENCH_PEER_BLAS_H
#define SKETCHMM_BENCH_PEER_BLAS_H

/* cblas_sgemm with 32-bit integers; layout and transpose values are CBLAS's (= sketchmm's). */
typedef void (*peer_sgemm_fn)(int layout, int transa, int transb, int m, int n, int k,
                              float alpha, const float *A, int lda, const float *B, int ldb,
                              float beta, float *C, int ldc);

typedef struct peer_blas peer_blas;

typedef enum { PEER_OPENBLAS = 0, PEER_BLIS = 1 } peer_kind;
#define PEER_COUNT 2

/*
 * Open the peer. Never NULL: a peer that could not be loaded is returned with
 * peer_blas_ready() == 0 and peer_blas_status() saying why.
 */
peer_blas *peer_blas_open(peer_kind kind);

/* Free p (NULL is allowed). The library stays loaded until exit: its thread pool may still be running. */
void peer_blas_free(peer_blas *p);

/* "OpenBLAS" or "BLIS". */
const char *peer_blas_name(const peer_blas *p);

/* 1 when cblas_sgemm can be called. */
int peer_blas_ready(const peer_blas *p);

/*
 * One line about the peer: the path and the kernel it chose (OpenBLAS core
 * name, BLIS architecture) when ready, else why it is not available.
 */
const char *peer_blas_status(const peer_blas *p);

/* The kernel it chose: OpenBLAS core name or BLIS architecture ("-" when not ready). */
const char *peer_blas_kernel(const peer_blas *p);

/* Set the peer's thread count for later calls (no effect when not ready). */
void peer_blas_set_threads(peer_blas *p, int threads);

/* The peer's cblas_sgemm (NULL when not ready). */
peer_sgemm_fn peer_blas_sgemm(const peer_blas *p);

#endif /* SKETCHMM_BENCH_PEER_BLAS_H */
