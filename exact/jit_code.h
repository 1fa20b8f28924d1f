/*
 * jit_code.h - executable memory for generated kernels (library-internal),
 * under W^X: a page is writable or executable, never both at once.
 *
 * jit_code_make copies a finished jit_buf into fresh pages and returns them
 * read+execute:
 * 1. an anonymous private mapping, read+write; the code is copied in; then
 *    mprotect makes it read+execute;
 * 2. where the system refuses that (SELinux's execmem, PaX MPROTECT, a
 *    seccomp filter: mprotect fails with EACCES or EPERM), a memfd: mapped
 *    read+write and shared, the code copied in, that view unmapped, then the
 *    same file mapped read+execute (MFD_EXEC asked for where the kernel
 *    knows it);
 * 3. if both are refused, SMM_ERR_NO_EXEC_MEMORY, remembered for the process
 *    (the callers then run their precompiled kernels).
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

typedef struct {
    const unsigned char *exec; /* the first byte of the code, read+execute */
    size_t mapped;             /* bytes mapped (whole pages) */
} jit_code;

/*
 * Copy the len bytes of b into new executable memory. Returns SMM_OK,
 * SMM_ERR_NO_MEMORY (b failed, or no address space), or
 * SMM_ERR_NO_EXEC_MEMORY (the system refuses executable memory).
 */
smm_status jit_code_make(const jit_buf *b, jit_code *out);

/* Unmap code made by jit_code_make (exec NULL: nothing). */
void jit_code_free(jit_code *c);

/*
 * Whether this process can run generated code: SMM_OK, or
 * SMM_ERR_NO_EXEC_MEMORY once the system has refused it (probed with a
 * one-instruction kernel on the first call when nothing was made yet).
 */
smm_status jit_code_status(void);

#endif /* EXACT_JIT_CODE_H */
