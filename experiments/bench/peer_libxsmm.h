/*
 * peer_libxsmm.h - libxsmm (1.17, Debian libxsmm-dev) as the optional peer
 * of sketchmm's batch-reduce GEMM (sketchmm/brgemm.h) in mode `brgemm`.
 *
 * libxsmm ships static libraries only; experiments/CMakeLists.txt links
 * libxsmm.a and libxsmmnoblas.a into sketchmm_bench when it finds them and
 * compiles this file with SKETCHMM_HAVE_LIBXSMM. Without it every function
 * below still exists: peer_libxsmm_open() then reports "not built in" and
 * nothing dispatches. Only this file includes libxsmm.h.
 *
 * The linked libxsmmnoblas.a defines stub sgemm_/dgemm_ entry points in the
 * executable. They are not exported (the executable has no -rdynamic), and
 * the dlopen'ed OpenBLAS and BLIS (peer_blas.h) bind their own symbols first
 * (RTLD_DEEPBIND), so the BLAS peers are not disturbed.
 *
 * All matrices are column-major. Kernels are generated (JIT) by
 * peer_libxsmm_dispatch, outside any timed loop; the peer_libxsmm_repeat_*
 * functions then call the generated code directly in a tight loop, so a timed
 * loop pays no wrapper call per product.
 */
#ifndef SKETCHMM_BENCH_PEER_LIBXSMM_H
#define SKETCHMM_BENCH_PEER_LIBXSMM_H

#include <stdint.h>

/* Which libxsmm entry point a kernel comes from. */
typedef enum {
    PEER_XSMM_GEMM = 0,    /* libxsmm_smmdispatch: one product, batch must be 1 */
    PEER_XSMM_STRIDED = 1, /* libxsmm_smmdispatch_reducebatch_strd: A_i = A + i * stride_a */
    PEER_XSMM_ADDRESS = 2  /* libxsmm_smmdispatch_reducebatch_addr: A_i = A[i] */
} peer_xsmm_form;

/* A generated kernel; fill with peer_libxsmm_dispatch. */
typedef struct {
    peer_xsmm_form form;
    void (*code)(void); /* the generated function, cast to its own type when called (NULL: dispatch failed) */
} peer_xsmm_kernel;

/*
 * libxsmm_init() and the target architecture it detected. Returns 1 when
 * libxsmm is built in, else 0 (and peer_libxsmm_status says so). Call once
 * before any other function below.
 */
int peer_libxsmm_open(void);

/* libxsmm_finalize() (nothing when not built in or not open). */
void peer_libxsmm_close(void);

/* 1 when built in and open. */
int peer_libxsmm_ready(void);

/*
 * One line: "libxsmm 1.17.0 (static, no-BLAS stubs): target arch clx (JIT)"
 * or "libxsmm: not built in (install libxsmm-dev)".
 */
const char *peer_libxsmm_status(void);

/* libxsmm_get_target_arch() ("-" when not ready). */
const char *peer_libxsmm_arch(void);

/*
 * Generate C := beta * C + alpha * sum_i A_i B_i for m x n x k, column-major,
 * in the given form. stride_a and stride_b are in ELEMENTS here (libxsmm wants
 * bytes; converted inside) and used by PEER_XSMM_STRIDED only. Returns 1 on
 * success; 0 when libxsmm is not ready, a size does not fit its integers, or
 * it generated nothing (e.g. alpha != 1 or beta not in {0, 1}, which 1.17
 * does not support), with *why (may be NULL) saying which.
 */
int peer_libxsmm_dispatch(peer_xsmm_kernel *kernel, peer_xsmm_form form, int64_t m, int64_t n, int64_t k,
                          int64_t lda, int64_t ldb, int64_t ldc, int64_t stride_a, int64_t stride_b, float alpha,
                          float beta, const char **why);

/* calls times: the kernel on A, B, C with batch products (GEMM form: batch ignored, one product). */
void peer_libxsmm_repeat_strided(const peer_xsmm_kernel *kernel, const float *A, const float *B, float *C,
                                 int64_t batch, int64_t calls);

/*
 * calls times: the PEER_XSMM_ADDRESS kernel on the pointer arrays A[0..batch),
 * B[0..batch). libxsmm 1.17's kernels advance the pointers inside the arrays
 * they are given and leave the B pointers moved on (by n * ldb elements) after
 * a call, so each call works on fresh copies (2 * batch pointers copied per
 * call, counted in its time); A and B themselves are never written.
 */
void peer_libxsmm_repeat_pointers(const peer_xsmm_kernel *kernel, const float *const *A, const float *const *B,
                                  float *C, int64_t batch, int64_t calls);

#endif /* SKETCHMM_BENCH_PEER_LIBXSMM_H */
