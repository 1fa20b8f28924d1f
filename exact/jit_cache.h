/*
 * jit_cache.h - the process-wide cache of generated kernels
 * (library-internal; the public side is sketchmm/jit.h).
 *
 * A kernel is identified by its writer (the generator function) and a key,
 * a byte string that describes everything the code depends on (the writer's
 * descriptor struct, zero-initialised so padding compares equal). A request
 * returns the cached kernel or calls the writer, makes the code executable
 * (jit_code.h) and caches it. Two lifetimes:
 * - JIT_FOR_PLAN: the caller holds a reference until jit_kernel_release;
 *   unreferenced kernels stay cached until the least recently used is
 *   dropped to keep SMM_JIT_CACHE_KERNELS (a kernel over the bound that no
 *   entry can make room for is handed out uncached, freed at its release);
 * - JIT_RESIDENT: kept for the life of the process (callers without a plan
 *   call it straight away, on any thread), at most SMM_JIT_RESIDENT_KERNELS.
 * Thread-safe: one mutex guards the table; writers run outside it (two
 * threads asking for a new key at once may both write it; one copy is kept).
 */
#ifndef EXACT_JIT_CACHE_H
#define EXACT_JIT_CACHE_H

#include <stddef.h>

#include "exact/jit_buf.h"
#include "sketchmm/common.h"
#include "sketchmm/jit.h"

#define JIT_MAX_ENTRIES 4

/* Where a kernel's functions start: byte offsets into its code. */
typedef struct {
    size_t at[JIT_MAX_ENTRIES];
    int count;
} jit_entries;

/* Write the kernel described by key into b and record its entry points; 0 when it has none for this key. */
typedef int (*jit_writer)(const void *key, jit_buf *b, jit_entries *entries);

typedef enum { JIT_FOR_PLAN, JIT_RESIDENT } jit_lifetime;

typedef struct jit_kernel jit_kernel;

/*
 * The kernel of (write, key[0 .. key_len)). Returns SMM_OK with *out set, or
 * why there is none (the caller runs its precompiled kernels):
 * SMM_ERR_NO_EXEC_MEMORY, SMM_ERR_NO_MEMORY, SMM_ERR_BAD_ARGUMENT (the writer
 * has no kernel for this key or it exceeds JIT_BUF_MAX), SMM_ERR_OVERFLOW
 * (SMM_JIT_RESIDENT_KERNELS reached).
 */
smm_status jit_kernel_get(jit_writer write, const void *key, size_t key_len, jit_lifetime life,
                          const jit_kernel **out);

/* Count one cache hit served by a caller's own memory of a resident kernel (the statistics' hits). */
void jit_count_hit(void);

/* Entry point i (< the writer's count) of k, as an address to cast to the kernel's function type. */
const void *jit_kernel_entry(const jit_kernel *k, int i);

/* Give back a JIT_FOR_PLAN reference (NULL: nothing). */
void jit_kernel_release(const jit_kernel *k);

#endif /* EXACT_JIT_CACHE_H */
