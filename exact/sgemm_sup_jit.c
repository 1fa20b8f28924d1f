/*
 * sgemm_sup_jit.c - small products of exact_sgemm on generated kernels: the
 * BRGEMM writer of the path (brgemm_jit.h) given the product as one batch
 * entry, in place of the path's precompiled small-product kernel.
 *
 * sgemm_sup_run works on a row-major C (element (i, j) at C[i * ldc + j]),
 * A element (i, p) at A[i * rsa + p * csa] and B element (p, j) at
 * b[p * rsb + j]. The column-major view of a BRGEMM kernel is C^T = B^T A^T:
 * its rows are the n columns of C (contiguous, as a kernel's rows must be),
 * its "A" is B^T (lda = rsb), its "B" is A^T, read element by element at
 * p * csa + i * rsa (b_step = csa, b_col = rsa). As on the precompiled path,
 * k is taken in the target's blocks of kc, one kernel call per block (beta
 * for the first, 1 after). In a block every element is summed from 0 over p
 * in increasing order with fused multiply-adds and updated as c := alpha ab
 * (beta == 0) or fma(beta, c, alpha ab) (c + ab when alpha == beta == 1, the
 * same value): the arithmetic of the precompiled small-product kernels, so
 * the two give the same bits.
 */
#include <string.h>

#include "common/smm_runtime.h"
#include "exact/brgemm_jit.h"
#include "exact/brgemm_kernels.h"
#include "sgemm_driver.h"
#include "sgemm_sup.h"

/* The path whose precompiled small-product kernel sup is (the one a generated kernel stands in for). */
static smm_isa path_of(sgemm_sup_fn sup)
{
#if defined(__x86_64__)
    if (sup == sgemm_sup_avx512_12x32)
        return SMM_ISA_AVX512;
    if (sup == sgemm_sup_avx2_6x16)
        return SMM_ISA_AVX2;
#endif
#if defined(__aarch64__)
    if (sup == sgemm_sup_neon_8x12)
        return SMM_ISA_NEON;
#endif
    return SMM_ISA_AUTO;
}

/*
 * The generated kernel of one block of depth k of the column-major view (rows = n columns of C, columns =
 * m rows of C), updating C with beta; NULL when there is none.
 */
static brgemm_jit_fn block_kernel(jit_writer writer, smm_isa isa, int64_t rows, int64_t cols, int64_t k,
                                  int64_t rsb, int64_t ldc, sgemm_view A, float alpha, float beta)
{
    brgemm_jit_desc d;
    memset(&d, 0, sizeof d); /* the key: padding included */
    d.isa = (int32_t)isa;
    d.m = rows;
    d.n = cols;
    d.k = k;
    d.lda = rsb;
    d.ldc = ldc;
    d.b_step = A.cs;
    d.b_col = A.rs;
    memcpy(&d.alpha_bits, &alpha, sizeof d.alpha_bits);
    memcpy(&d.beta_bits, &beta, sizeof d.beta_bits);
    const jit_kernel *kernel = NULL;
    if (jit_kernel_get(writer, &d, sizeof d, JIT_RESIDENT, &kernel) != SMM_OK)
        return NULL;
    return (brgemm_jit_fn)(uintptr_t)jit_kernel_entry(kernel, BRGEMM_JIT_STRIDED);
}

/*
 * The kernels of one small product: the shape, strides, update and depth block they were written for,
 * and the three block kernels. Each thread keeps the last one it used, so a repeated product (the common
 * case of a loop of small calls) finds its kernels in a few compares, without building the descriptions.
 * Safe because resident kernels are never freed.
 */
typedef struct {
    sgemm_sup_fn sup; /* the path's precompiled kernel: names the path */
    int64_t kc, m, n, k, rsb, ldc, rs, cs;
    uint32_t alpha_bits, beta_bits;
    brgemm_jit_fn first, middle, last;
} sup_kernels;

static _Thread_local sup_kernels last_used;

static int same_product(const sup_kernels *a, const sup_kernels *b)
{
    return a->sup == b->sup && a->kc == b->kc && a->m == b->m && a->n == b->n && a->k == b->k && a->rsb == b->rsb &&
           a->ldc == b->ldc && a->rs == b->rs && a->cs == b->cs && a->alpha_bits == b->alpha_bits &&
           a->beta_bits == b->beta_bits;
}

/* The three block kernels of want's product into want (first block, full blocks, last block); 0 when a
 * kernel is missing. */
static int find_kernels(sup_kernels *want, smm_isa isa, sgemm_view A, float alpha, float beta)
{
    if (last_used.first != NULL && same_product(&last_used, want)) {
        *want = last_used;
        jit_count_hit();
        return 1;
    }
    const jit_writer writer = brgemm_kernels_for(isa)->jit;
    if (writer == NULL)
        return 0;
    const int64_t kc = want->kc, k = want->k, blocks = (k + kc - 1) / kc;
    const int64_t first_k = k < kc ? k : kc, last_k = k - (blocks - 1) * kc;
    const int64_t rows = want->n, cols = want->m;
    want->first = block_kernel(writer, isa, rows, cols, first_k, want->rsb, want->ldc, A, alpha, beta);
    want->middle =
        blocks > 2 ? block_kernel(writer, isa, rows, cols, kc, want->rsb, want->ldc, A, alpha, 1.0f) : want->first;
    want->last =
        blocks > 1 ? block_kernel(writer, isa, rows, cols, last_k, want->rsb, want->ldc, A, alpha, 1.0f) : want->first;
    if (want->first == NULL || want->middle == NULL || want->last == NULL)
        return 0;
    last_used = *want;
    return 1;
}

int sgemm_sup_generated(const sgemm_target *t, int threads, int64_t m, int64_t n, int64_t k, float alpha,
                        sgemm_view A, const float *b, int64_t rsb, float beta, float *C, int64_t ldc)
{
    const smm_isa isa = path_of(t->sup);
    if (isa == SMM_ISA_AUTO || !smm_jit_now() || sgemm_team_size(t, threads, m, n, k) > 1)
        return 0;
    /* k in the packed path's blocks of t->kc, as sgemm_sup_run: a first block (beta), full blocks and a last
     * one (1). At most three kernels, all in hand before C is written (no partial update on a refusal). */
    sup_kernels want = { .sup = t->sup, .kc = t->kc, .m = m, .n = n, .k = k, .rsb = rsb, .ldc = ldc, .rs = A.rs,
                         .cs = A.cs };
    memcpy(&want.alpha_bits, &alpha, sizeof want.alpha_bits);
    memcpy(&want.beta_bits, &beta, sizeof want.beta_bits);
    if (!find_kernels(&want, isa, A, alpha, beta))
        return 0;
    const int64_t kc = t->kc, blocks = (k + kc - 1) / kc;
    for (int64_t block = 0; block < blocks; block++) {
        const brgemm_jit_fn run = block == 0 ? want.first : block == blocks - 1 ? want.last : want.middle;
        run(b + block * kc * rsb, A.p + block * kc * A.cs, C, 1);
    }
    return 1;
}
