/*
 * sgemm_driver.h - the portable blocked SGEMM driver (BLIS-style five loops)
 * around a target's micro-kernel.
 */
#ifndef SGEMM_DRIVER_H
#define SGEMM_DRIVER_H

#include <stdint.h>

#include "sketchmm/common.h"
#include "sgemm_pack.h"
#include "sgemm_target.h"

/*
 * C := beta * C + alpha * A * B for an m x k view A, a k x n view B and C
 * with element (i, j) at C[i * ldc + j] (unit column stride; callers turn
 * any layout and transpose into this form).
 *
 * Preconditions (checked by the caller, not here): m, n, k >= 1, ldc >= n,
 * every element of A, B, C addressable, C not overlapping A or B,
 * threads >= 1.
 *
 * Loops, outermost first: jc over n in steps of nc; pc over k in steps of
 * kc (B block packed once, shared by the threads); ic over m in steps of mc
 * (A block packed per thread); jr over nr; ir over mr (the kernel). Beta is
 * applied with the first k block only. Edge tiles go through a local
 * buffer. Threads split the ic blocks (and, when there are too few, the jr
 * panels) or the jr panels alone, as target->split says; k is never split
 * and kc never depends on the thread count, so the result is bit-identical
 * for every value of threads, and for every split, mc and nc.
 *
 * Returns SMM_OK, or SMM_ERR_NO_MEMORY (workspace) with C untouched.
 */
/*
 * Threads a product runs on, the same rule for the blocked and small-product
 * paths: at most one per MR x NR tile of C, and one below 64^3 multiply-adds.
 */
int64_t sgemm_team_size(const sgemm_target *t, int threads, int64_t m, int64_t n, int64_t k);

smm_status sgemm_driver_run(const sgemm_target *target, int threads,
                            int64_t m, int64_t n, int64_t k, float alpha,
                            sgemm_view A, sgemm_view B, float beta, float *C, int64_t ldc);

#endif /* SGEMM_DRIVER_H */
