/*
 * sgemm_sup.h - the small-product path: products too small for packing to
 * pay run a target's sgemm_sup_fn tile by tile on the unpacked operands.
 */
#ifndef SGEMM_SUP_H
#define SGEMM_SUP_H

#include <stdint.h>

#include "sketchmm/common.h"
#include "sgemm_pack.h"
#include "sgemm_target.h"

/* Whether an m x n x k product runs on the small-product path of target t. */
int sgemm_sup_applies(const sgemm_target *t, int64_t m, int64_t n, int64_t k);

/*
 * C := beta * C + alpha * A * B as sgemm_driver_run (same preconditions and
 * C layout), through t->sup. B is copied into a contiguous k x n buffer
 * first when its columns are not unit-stride. Tiles are independent and
 * each is computed whole by one thread, so the result does not depend on
 * the thread count. Returns SMM_OK, or SMM_ERR_NO_MEMORY with C untouched.
 */
smm_status sgemm_sup_run(const sgemm_target *t, int threads, int64_t m, int64_t n, int64_t k,
                         float alpha, sgemm_view A, sgemm_view B, float beta, float *C,
                         int64_t ldc);

/*
 * The same product on a generated kernel (sgemm_sup_jit.c), B given as b
 * with unit column stride and row stride rsb: returns 1 when it ran (the
 * same bits as t->sup), 0 when the precompiled kernel is to run instead
 * (generation off, no generator for t's path, a product for several
 * threads, or no kernel to be had).
 */
int sgemm_sup_generated(const sgemm_target *t, int threads, int64_t m, int64_t n, int64_t k, float alpha,
                        sgemm_view A, const float *b, int64_t rsb, float beta, float *C, int64_t ldc);

#endif /* SGEMM_SUP_H */
