/*
 * jit_code.h - executable memory for generated kernels (library-internal),
 * under W^X: no page is ever mapped writable and executable at once.
 *
 * jit_code_make copies a finished jit_buf into executable memory, the first
 * of these ways the system grants:
 * 1. the pool (jit_code.c): arenas of memfd pages mapped twice, once
 *    read+write (where the code is copied in) and once read+execute (where
 *    it runs); a kernel takes a run of 64-byte granules, so making one costs
 *    a copy and no system call;
 * 2. where the double mapping is refused, a mapping per kernel: anonymous
 *    pages mapped read+write, the code copied in, then mprotect to
 *    read+execute;
 * 3. where that is refused too (SELinux's execmem, PaX MPROTECT, a seccomp
 *    filter: EACCES or EPERM), SMM_ERR_NO_EXEC_MEMORY, remembered for the
 *    process (the callers then run their precompiled kernels).
 * Every kernel takes this one path, which ends with __builtin___clear_cache
 * over the executable range: on AArch64 that cleans the data cache and
 * invalidates the instruction cache for the new code (a no-op on x86-64,
 * whose instruction fetch sees stores; qemu-user does not check either).
 */
#ifndef EXACT_JIT_CODE_H
#define EXACT_JIT_CODE_H

#include <stddef.h>

#include "exact/jit_buf.h"
#include "sketchmm/common.h"

typedef struct jit_arena jit_arena;

typedef struct {
    const unsigned char *exec; /* the first byte of the code, read+execute */
    size_t mapped;             /* bytes it occupies (granules of the pool, or whole pages) */
    jit_arena *arena;          /* the pool's arena holding it, or NULL: a mapping of its own */
} jit_code;

/*
 * Copy the len bytes of b into new executable memory. Returns SMM_OK,
 * SMM_ERR_NO_MEMORY (b failed, or no address space), or
 * SMM_ERR_NO_EXEC_MEMORY (the system refuses executable memory).
 */
smm_status jit_code_make(const jit_buf *b, jit_code *out);

/* Give back code made by jit_code_make (exec NULL: nothing). */
void jit_code_free(jit_code *c);

/*
 * Whether this process can run generated code: SMM_OK, or
 * SMM_ERR_NO_EXEC_MEMORY once the system has refused it (probed with a
 * one-instruction kernel on the first call when nothing was made yet).
 */
smm_status jit_code_status(void);

#endif /* EXACT_JIT_CODE_H */
