/*
 * sketchmm/jit.h - run-time code generation: whether this process can run
 * generated kernels, and what the generator has done.
 *
 * Where sketchmm has a generator (batch-reduce GEMM plans, the unary
 * primitives, the small products of exact_sgemm, on the AVX-512, AVX2 and
 * NEON paths), it writes machine code for the exact shape it is asked for
 * (sizes, leading dimensions, strides, alpha and beta) at the first request,
 * keeps it in a process-wide cache keyed by that description, and runs the
 * precompiled kernels wherever it cannot: generation switched off
 * (smm_set_jit(0) or SKETCHMM_JIT=0, common.h), a path without a generator
 * (scalar), a shape outside a generator's range, a cache full of kernels in
 * use, or a system that refuses executable memory. Results are those the
 * module headers describe either way (brgemm.h and unary.h say which bits
 * generated and precompiled kernels share).
 *
 * The code is written into ordinary memory, then copied into executable
 * memory through a separate writable view of the same pages (memfd arenas
 * mapped twice; where the system refuses that, pages mapped read+write, then
 * read+execute): no page is ever mapped writable and executable at once.
 * After fork() each process writes new code only into arenas of its own.
 * The cache holds at most SMM_JIT_CACHE_KERNELS kernels:
 * beyond that the least recently used kernel no plan holds is dropped
 * (a plan keeps its kernels until brgemm_plan_free). Kernels of calls
 * without a plan (unary_apply, exact_sgemm) stay for the life of the
 * process, at most SMM_JIT_RESIDENT_KERNELS of them; later shapes run the
 * precompiled kernels. All of it is thread-safe.
 */
#ifndef SKETCHMM_JIT_H
#define SKETCHMM_JIT_H

#include <stdint.h>

#include "sketchmm/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The bounds of the cache (see above). */
#define SMM_JIT_CACHE_KERNELS 2048
#define SMM_JIT_RESIDENT_KERNELS 1024

/* What the generator has done since the process started (counts) and holds now. */
typedef struct {
    int64_t generated;       /* kernels written and made executable */
    int64_t hits;            /* requests served by a kernel already in the cache */
    int64_t failed;          /* requests that got no kernel (they run the precompiled kernels) */
    int64_t evicted;         /* kernels dropped to keep the cache within SMM_JIT_CACHE_KERNELS */
    int64_t kernels;         /* kernels that exist now (cached or held by plans) */
    int64_t code_bytes;      /* bytes of executable memory they occupy now */
    double generate_seconds; /* time spent writing kernels and making them executable */
} smm_jit_stats;

/* Fill *stats (nothing when stats is NULL). */
SMM_API void smm_jit_get_stats(smm_jit_stats *stats);

/*
 * SMM_OK when this process can run generated code, or
 * SMM_ERR_NO_EXEC_MEMORY when the system refused executable memory (then
 * the precompiled kernels run everywhere; the first refusal is remembered
 * for the life of the process). Does not depend on smm_set_jit.
 */
SMM_API smm_status smm_jit_status(void);

#ifdef __cplusplus
}
#endif

#endif /* SKETCHMM_JIT_H */
