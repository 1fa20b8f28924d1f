/*
 * peer_libxsmm.c - libxsmm's small-matrix and batch-reduce kernels as the
 * peer of sketchmm's brgemm (see peer_libxsmm.h). Compiled with
 * SKETCHMM_HAVE_LIBXSMM when experiments/CMakeLists.txt found libxsmm-dev.
 */
#include "peer_libxsmm.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SKETCHMM_HAVE_LIBXSMM
#include <libxsmm.h>
#endif

static int opened;
static char status_line[256] = "libxsmm: not opened";
static char arch_name[64] = "-";

#ifdef SKETCHMM_HAVE_LIBXSMM

/*
 * The pointer arrays a reducebatch_addr kernel works on. libxsmm 1.17's
 * kernels advance the pointers in the arrays while they run and do not put
 * them all back (after a call each B[i] has moved on by n * ldb elements,
 * measured here), so every call gets a fresh copy of the caller's arrays.
 * Grown as needed, kept for the next call: no allocation in a timed loop.
 */
static const float **scratch_a, **scratch_b;
static int64_t scratch_size;

int peer_libxsmm_open(void)
{
    if (opened)
        return 1;
    libxsmm_init();
    const char *arch = libxsmm_get_target_arch();
    snprintf(arch_name, sizeof arch_name, "%s", arch != NULL ? arch : "?");
    /* "generic" (or older): no JIT, so dispatch returns NULL and libxsmm is left out per configuration */
    snprintf(status_line, sizeof status_line, "libxsmm %s (%s, static, no-BLAS stubs): target arch %s%s",
             LIBXSMM_CONFIG_VERSION, LIBXSMM_CONFIG_BRANCH, arch_name,
             libxsmm_get_target_archid() >= LIBXSMM_X86_AVX ? " (JIT)"
                                                            : " (no JIT on this target: nothing to measure)");
    opened = 1;
    return 1;
}

void peer_libxsmm_close(void)
{
    free(scratch_a);
    free(scratch_b);
    scratch_a = scratch_b = NULL;
    scratch_size = 0;
    if (!opened)
        return;
    libxsmm_finalize();
    opened = 0;
}

static int fits(int64_t v)
{
    return v >= 0 && v <= INT_MAX;
}

int peer_libxsmm_dispatch(peer_xsmm_kernel *kernel, peer_xsmm_form form, int64_t m, int64_t n, int64_t k,
                          int64_t lda, int64_t ldb, int64_t ldc, int64_t stride_a, int64_t stride_b, float alpha,
                          float beta, const char **why)
{
    kernel->form = form;
    kernel->code = NULL;
    const char *reason = NULL;
    if (!opened) {
        reason = "libxsmm not open";
    } else if (!fits(m) || !fits(n) || !fits(k) || !fits(lda) || !fits(ldb) || !fits(ldc) ||
               !fits(stride_a) || !fits(stride_b) || stride_a > INT_MAX / (int64_t)sizeof(float) ||
               stride_b > INT_MAX / (int64_t)sizeof(float)) {
        reason = "a size or stride does not fit libxsmm_blasint";
    } else {
        const libxsmm_blasint lm = (libxsmm_blasint)m, ln = (libxsmm_blasint)n, lk = (libxsmm_blasint)k;
        const libxsmm_blasint la = (libxsmm_blasint)lda, lb = (libxsmm_blasint)ldb, lc = (libxsmm_blasint)ldc;
        /* libxsmm's batch strides are in bytes */
        const libxsmm_blasint sa = (libxsmm_blasint)(stride_a * (int64_t)sizeof(float));
        const libxsmm_blasint sb = (libxsmm_blasint)(stride_b * (int64_t)sizeof(float));
        /*
         * Default flags (no transposes); prefetch spelled out as none: NULL would mean "auto", which is none
         * unless LIBXSMM_GEMM_PREFETCH is set, and a prefetching kernel wants three more arguments per call.
         */
        const int none = LIBXSMM_GEMM_PREFETCH_NONE;
        const int *prefetch = &none;
        switch (form) {
        case PEER_XSMM_GEMM:
            kernel->code =
                (void (*)(void))libxsmm_smmdispatch(lm, ln, lk, &la, &lb, &lc, &alpha, &beta, NULL, prefetch);
            break;
        case PEER_XSMM_STRIDED:
            kernel->code = (void (*)(void))libxsmm_smmdispatch_reducebatch_strd(lm, ln, lk, sa, sb, &la, &lb, &lc,
                                                                               &alpha, &beta, NULL, prefetch);
            break;
        default:
            kernel->code = (void (*)(void))libxsmm_smmdispatch_reducebatch_addr(lm, ln, lk, &la, &lb, &lc, &alpha,
                                                                               &beta, NULL, prefetch);
            break;
        }
        if (kernel->code == NULL)
            reason = "libxsmm generated no kernel (1.17 supports alpha = 1 and beta = 0 or 1 only)";
    }
    if (why != NULL)
        *why = reason;
    return kernel->code != NULL;
}

void peer_libxsmm_repeat_strided(const peer_xsmm_kernel *kernel, const float *A, const float *B, float *C,
                                 int64_t batch, int64_t calls)
{
    if (kernel->form == PEER_XSMM_GEMM) {
        const libxsmm_smmfunction f = (libxsmm_smmfunction)kernel->code;
        for (int64_t c = 0; c < calls; c++)
            f(A, B, C);
        return;
    }
    const libxsmm_smmfunction_reducebatch_strd f = (libxsmm_smmfunction_reducebatch_strd)kernel->code;
    const unsigned long long count = (unsigned long long)batch;
    for (int64_t c = 0; c < calls; c++)
        f(A, B, C, &count);
}

static void grow_scratch(int64_t batch)
{
    if (batch <= scratch_size)
        return;
    const float **a = realloc(scratch_a, (size_t)batch * sizeof *a);
    if (a != NULL)
        scratch_a = a;
    const float **b = realloc(scratch_b, (size_t)batch * sizeof *b);
    if (b != NULL)
        scratch_b = b;
    if (a == NULL || b == NULL) {
        fprintf(stderr, "peer_libxsmm: out of memory\n");
        exit(1);
    }
    scratch_size = batch;
}

void peer_libxsmm_repeat_pointers(const peer_xsmm_kernel *kernel, const float *const *A, const float *const *B,
                                  float *C, int64_t batch, int64_t calls)
{
    const libxsmm_smmfunction_reducebatch_addr f = (libxsmm_smmfunction_reducebatch_addr)kernel->code;
    const unsigned long long count = (unsigned long long)batch;
    grow_scratch(batch > 0 ? batch : 1);
    const size_t bytes = (size_t)batch * sizeof *scratch_a;
    for (int64_t c = 0; c < calls; c++) {
        memcpy(scratch_a, A, bytes);
        memcpy(scratch_b, B, bytes);
        f(scratch_a, scratch_b, C, &count);
    }
}

#else /* !SKETCHMM_HAVE_LIBXSMM */

int peer_libxsmm_open(void)
{
    snprintf(status_line, sizeof status_line, "libxsmm: not built in (install libxsmm-dev)");
    return 0;
}

void peer_libxsmm_close(void)
{
}

int peer_libxsmm_dispatch(peer_xsmm_kernel *kernel, peer_xsmm_form form, int64_t m, int64_t n, int64_t k,
                          int64_t lda, int64_t ldb, int64_t ldc, int64_t stride_a, int64_t stride_b, float alpha,
                          float beta, const char **why)
{
    (void)m, (void)n, (void)k, (void)lda, (void)ldb, (void)ldc, (void)stride_a, (void)stride_b, (void)alpha,
        (void)beta;
    kernel->form = form;
    kernel->code = NULL;
    if (why != NULL)
        *why = "libxsmm not built in";
    return 0;
}

void peer_libxsmm_repeat_strided(const peer_xsmm_kernel *kernel, const float *A, const float *B, float *C,
                                 int64_t batch, int64_t calls)
{
    (void)kernel, (void)A, (void)B, (void)C, (void)batch, (void)calls;
}

void peer_libxsmm_repeat_pointers(const peer_xsmm_kernel *kernel, const float *const *A, const float *const *B,
                                  float *C, int64_t batch, int64_t calls)
{
    (void)kernel, (void)A, (void)B, (void)C, (void)batch, (void)calls;
}

#endif /* SKETCHMM_HAVE_LIBXSMM */

int peer_libxsmm_ready(void)
{
    return opened;
}

const char *peer_libxsmm_status(void)
{
    return status_line;
}

const char *peer_libxsmm_arch(void)
{
    return arch_name;
}
