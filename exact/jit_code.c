/*
 * jit_code.c - executable memory under W^X (see jit_code.h).
 */
#define _GNU_SOURCE /* memfd_create, MFD_CLOEXEC */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "exact/jit_code.h"

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U /* Linux 6.3: the memfd may be mapped executable (vm.memfd_noexec) */
#endif

/* 0: nothing known yet; 1: code was made; SMM_ERR_NO_EXEC_MEMORY once refused (kept for the process). */
static atomic_int exec_state;
#define EXEC_WORKS 1

static size_t page_round(size_t n)
{
    const long page = sysconf(_SC_PAGESIZE);
    const size_t p = page > 0 ? (size_t)page : 4096;
    return (n + p - 1) / p * p;
}

/* errno values that mean "not allowed" rather than "no memory". */
static int is_refusal(int err)
{
    return err == EACCES || err == EPERM;
}

/* Way 1: anonymous read+write pages, then read+execute. */
static int make_anonymous(const jit_buf *b, size_t size, void **exec, int *err)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        *err = errno;
        return 0;
    }
    memcpy(p, b->p, b->len);
    if (mprotect(p, size, PROT_READ | PROT_EXEC) != 0) {
        *err = errno;
        munmap(p, size);
        return 0;
    }
    *exec = p;
    return 1;
}

#if defined(__linux__)
/* Way 2: a memfd written through a read+write view that is unmapped before the read+execute view exists. */
static int make_memfd(const jit_buf *b, size_t size, void **exec, int *err)
{
    int fd = memfd_create("sketchmm-jit", MFD_CLOEXEC | MFD_EXEC);
    if (fd < 0 && errno == EINVAL)
        fd = memfd_create("sketchmm-jit", MFD_CLOEXEC); /* a kernel before 6.3: no MFD_EXEC flag */
    if (fd < 0) {
        *err = errno;
        return 0;
    }
    int ok = 0;
    if (ftruncate(fd, (off_t)size) == 0) {
        void *w = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (w != MAP_FAILED) {
            memcpy(w, b->p, b->len);
            munmap(w, size);
            void *x = mmap(NULL, size, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
            if (x != MAP_FAILED) {
                *exec = x;
                ok = 1;
            }
        }
    }
    if (!ok)
        *err = errno;
    close(fd);
    return ok;
}
#else
static int make_memfd(const jit_buf *b, size_t size, void **exec, int *err)
{
    (void)b, (void)size, (void)exec;
    *err = EPERM;
    return 0;
}
#endif

smm_status jit_code_make(const jit_buf *b, jit_code *out)
{
    out->exec = NULL;
    out->mapped = 0;
    if (b->failed || b->len == 0)
        return SMM_ERR_NO_MEMORY;
    if (atomic_load_explicit(&exec_state, memory_order_relaxed) == (int)SMM_ERR_NO_EXEC_MEMORY)
        return SMM_ERR_NO_EXEC_MEMORY;
    const size_t size = page_round(b->len);
    void *exec = NULL;
    int err = 0;
    if (!make_anonymous(b, size, &exec, &err)) {
        if (!is_refusal(err))
            return SMM_ERR_NO_MEMORY;
        if (!make_memfd(b, size, &exec, &err)) {
            if (!is_refusal(err))
                return SMM_ERR_NO_MEMORY;
            atomic_store(&exec_state, (int)SMM_ERR_NO_EXEC_MEMORY);
            return SMM_ERR_NO_EXEC_MEMORY;
        }
    }
    /* the one path every kernel takes: make the new instructions visible to instruction fetch */
    __builtin___clear_cache((char *)exec, (char *)exec + b->len);
    if (atomic_load_explicit(&exec_state, memory_order_relaxed) == 0)
        atomic_store(&exec_state, EXEC_WORKS);
    out->exec = exec;
    out->mapped = size;
    return SMM_OK;
}

void jit_code_free(jit_code *c)
{
    if (c->exec != NULL)
        munmap((void *)(uintptr_t)c->exec, c->mapped);
    c->exec = NULL;
    c->mapped = 0;
}

smm_status jit_code_status(void)
{
    const int known = atomic_load(&exec_state);
    if (known != 0)
        return known == EXEC_WORKS ? SMM_OK : (smm_status)known;
    /* a probe: one byte that is a return instruction on x86-64; four zero bytes elsewhere (never run) */
    jit_buf b = { 0 };
    jit_emit32(&b, 0xC3u);
    jit_code c;
    const smm_status s = jit_code_make(&b, &c);
    jit_code_free(&c);
    jit_buf_free(&b);
    return s == SMM_ERR_NO_EXEC_MEMORY ? s : SMM_OK;
}
