/*
 * approx_lowrank_passes.h - the passes of SKETCH_LOWRANK's range finder over
 * op(B) (approx_lowrank.c), each reading the database once, in blocks a
 * thread's cache holds:
 *
 *   lowrank_sign_sketch   Y = op(B) Omega for a sparse sign test matrix
 *                         Omega (one +-1 per row): every column of op(B)
 *                         added to, or subtracted from, one column of Y;
 *   lowrank_pass          Z = op(B)^T Q and, on the same block while it is
 *                         in the cache, Y = op(B) Z (the power iteration's
 *                         two products in one read of op(B)).
 *
 * Both give bits that depend on neither the thread count nor the layout of
 * the vectors: they work on fixed chunks of columns (2048 for the sign
 * sketch, 1024 for the passes), each chunk's partial sum in float in
 * increasing column, the partials added in chunk order (in double, rounded
 * once). The sign sketch's additions are the kernels of lowrank_sign.h
 * (one per ISA path, all giving the same bits): row-major vectors are read
 * whole, one after the other; column-major ones a panel of coordinates at a
 * time, transposed in registers, so neither layout is copied. Its tasks
 * (a chunk, or a panel of a chunk) share the threads dynamically; the hash
 * of each column is computed once.
 */
#ifndef APPROX_LOWRANK_PASSES_H
#define APPROX_LOWRANK_PASSES_H

#include <stdint.h>

#include "approx/approx_vectors.h"

/*
 * Yt (l x k, row-major) := (op(B) Omega)^T, op(B)'s n columns the vectors of
 * cols (dimension k), Omega n x l with row j zero but for sign_j at column
 * bucket_j (both from classical_hash(seed, j)). SMM_OK, or SMM_ERR_OVERFLOW /
 * SMM_ERR_NO_MEMORY (workspace) with Yt untouched.
 */
smm_status lowrank_sign_sketch(const smm_context *ctx, const approx_vectors *cols, int64_t k, int64_t l,
                               uint64_t seed, float *Yt);

/*
 * Z (n x l, row-major) := op(B)^T Q for Q k x l row-major, and, when Yt is
 * not NULL, Yt (l x k, row-major) := (op(B) Z)^T. The products are
 * exact_sgemm's on one thread per block. SMM_OK, or SMM_ERR_OVERFLOW /
 * SMM_ERR_NO_MEMORY with Z and Yt unspecified.
 */
smm_status lowrank_pass(const smm_context *ctx, const approx_vectors *cols, int64_t k, int64_t l, const float *Q,
                        float *Z, float *Yt);

#endif /* APPROX_LOWRANK_PASSES_H */
