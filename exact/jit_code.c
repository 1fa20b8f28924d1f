/*
 * jit_code.c - executable memory under W^X (see jit_code.h).
 *
 * The pool: arenas of ARENA_BYTES (or one kernel's size when larger), each a
 * memfd mapped twice, read+write and read+execute, both populated when made
 * (no page faults later). A kernel is copied through the writable view into
 * a free run of 64-byte granules (first fit among freed runs, else the
 * arena's unused end) and runs from the executable view: making a kernel
 * then costs a copy, no system call and no page fault, where a mapping per
 * kernel costs three system calls and a fault per page, tens of
 * microseconds when the caches are cold (measured: cold mmap + copy +
 * mprotect ~40 us of a ~60 us plan creation). Freed runs are merged with
 * their neighbours and reused.
 *
 * Fork: the arenas are shared mappings, so after fork() parent and child
 * see each other's writes to them. At a fork both freeze every arena they
 * have: nothing is written into a frozen arena again (its freed runs are
 * never reused, its kernels stay and keep running), and new kernels go to
 * arenas made after the fork, which the other process does not share.
 */
#define _GNU_SOURCE /* memfd_create, MFD_CLOEXEC, MAP_POPULATE */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "exact/jit_code.h"

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U /* Linux 6.3: the memfd may be mapped executable (vm.memfd_noexec) */
#endif

#define ARENA_BYTES ((size_t)1 << 20)
#define GRANULE 64

/* 0: nothing known yet; 1: code was made; SMM_ERR_NO_EXEC_MEMORY once refused (kept for the process). */
static atomic_int exec_state;
#define EXEC_WORKS 1

/* A freed run of an arena, in a list sorted by offset. */
typedef struct free_run {
    struct free_run *next;
    size_t offset, bytes;
} free_run;

struct jit_arena {
    struct jit_arena *next;
    unsigned char *write;       /* the read+write view */
    const unsigned char *exec;  /* the read+execute view of the same pages */
    size_t size, used;          /* bytes mapped; bytes handed out from the start */
    free_run *freed;
    int frozen;                 /* shared with another process since a fork: never written again */
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static jit_arena *arenas;
static int pool_refused; /* the system refused a double mapping: per-kernel mappings only */
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

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

/* ---- the pool ---- */

static void freeze_all(void)
{
    for (jit_arena *a = arenas; a != NULL; a = a->next)
        a->frozen = 1;
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&pool_lock);
}

/* After a fork, in the parent and in the child alike. */
static void fork_after(void)
{
    freeze_all();
    pthread_mutex_unlock(&pool_lock);
}

static void register_fork_handlers(void)
{
    pthread_atfork(fork_prepare, fork_after, fork_after);
}

#if defined(__linux__)
/* A new arena of size bytes (a multiple of the page size); NULL with *err set when none can be made. */
static jit_arena *arena_new(size_t size, int *err)
{
    jit_arena *a = calloc(1, sizeof *a);
    if (a == NULL) {
        *err = ENOMEM;
        return NULL;
    }
    int fd = memfd_create("sketchmm-jit", MFD_CLOEXEC | MFD_EXEC);
    if (fd < 0 && errno == EINVAL)
        fd = memfd_create("sketchmm-jit", MFD_CLOEXEC); /* a kernel before 6.3: no MFD_EXEC flag */
    void *w = MAP_FAILED, *x = MAP_FAILED;
    if (fd >= 0 && ftruncate(fd, (off_t)size) == 0) {
        w = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
        if (w != MAP_FAILED)
            x = mmap(NULL, size, PROT_READ | PROT_EXEC, MAP_SHARED | MAP_POPULATE, fd, 0);
    }
    *err = errno;
    if (fd >= 0)
        close(fd);
    if (x == MAP_FAILED) {
        if (w != MAP_FAILED)
            munmap(w, size);
        free(a);
        return NULL;
    }
    a->write = w;
    a->exec = x;
    a->size = size;
    return a;
}
#else
static jit_arena *arena_new(size_t size, int *err)
{
    (void)size;
    *err = EPERM;
    return NULL;
}
#endif

/* A run of bytes (a multiple of GRANULE) in arena a: 1 with *offset set, or 0. */
static int arena_take(jit_arena *a, size_t bytes, size_t *offset)
{
    for (free_run **p = &a->freed; *p != NULL; p = &(*p)->next) {
        free_run *r = *p;
        if (r->bytes < bytes)
            continue;
        *offset = r->offset;
        r->offset += bytes;
        r->bytes -= bytes;
        if (r->bytes == 0) {
            *p = r->next;
            free(r);
        }
        return 1;
    }
    if (a->size - a->used < bytes)
        return 0;
    *offset = a->used;
    a->used += bytes;
    return 1;
}

/* Give a run back to its arena, merged with the freed runs it touches. */
static void arena_give(jit_arena *a, size_t offset, size_t bytes)
{
    free_run **p = &a->freed;
    while (*p != NULL && (*p)->offset + (*p)->bytes < offset)
        p = &(*p)->next;
    free_run *near = *p; /* the first freed run that ends at or after offset */
    if (near != NULL && near->offset + near->bytes == offset) {
        near->bytes += bytes; /* joins the run before it, and maybe the one after */
        free_run *after = near->next;
        if (after != NULL && near->offset + near->bytes == after->offset) {
            near->bytes += after->bytes;
            near->next = after->next;
            free(after);
        }
        return;
    }
    if (near != NULL && offset + bytes == near->offset) { /* joins the run after it */
        near->offset = offset;
        near->bytes += bytes;
        return;
    }
    free_run *r = malloc(sizeof *r);
    if (r == NULL)
        return; /* the run stays unused: a few bytes lost, never wrong code */
    r->offset = offset;
    r->bytes = bytes;
    r->next = near;
    *p = r;
}

/*
 * Copy b into the pool: 1 on success (out filled), 0 when the pool cannot
 * take it (*err: ENOMEM, or a refusal of the double mapping).
 */
static int make_pooled(const jit_buf *b, jit_code *out, int *err)
{
    const size_t bytes = (b->len + GRANULE - 1) / GRANULE * GRANULE;
    pthread_mutex_lock(&pool_lock);
    if (pool_refused) {
        pthread_mutex_unlock(&pool_lock);
        *err = EPERM;
        return 0;
    }
    jit_arena *a = arenas;
    size_t offset = 0;
    while (a != NULL && (a->frozen || !arena_take(a, bytes, &offset)))
        a = a->next;
    if (a == NULL) {
        pthread_once(&fork_once, register_fork_handlers);
        a = arena_new(page_round(bytes > ARENA_BYTES ? bytes : ARENA_BYTES), err);
        if (a == NULL) {
            pool_refused = is_refusal(*err);
            pthread_mutex_unlock(&pool_lock);
            return 0;
        }
        a->next = arenas;
        arenas = a;
        arena_take(a, bytes, &offset);
    }
    memcpy(a->write + offset, b->p, b->len);
    pthread_mutex_unlock(&pool_lock);
    out->exec = a->exec + offset;
    out->mapped = bytes;
    out->arena = a;
    return 1;
}

/* ---- a mapping per kernel ---- */

/* Anonymous read+write pages, then read+execute. */
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

smm_status jit_code_make(const jit_buf *b, jit_code *out)
{
    out->exec = NULL;
    out->mapped = 0;
    out->arena = NULL;
    if (b->failed || b->len == 0)
        return SMM_ERR_NO_MEMORY;
    if (atomic_load_explicit(&exec_state, memory_order_relaxed) == (int)SMM_ERR_NO_EXEC_MEMORY)
        return SMM_ERR_NO_EXEC_MEMORY;
    int err = 0;
    if (!make_pooled(b, out, &err)) {
        if (!is_refusal(err))
            return SMM_ERR_NO_MEMORY;
        const size_t size = page_round(b->len);
        void *exec = NULL;
        if (!make_anonymous(b, size, &exec, &err)) {
            if (!is_refusal(err))
                return SMM_ERR_NO_MEMORY;
            atomic_store(&exec_state, (int)SMM_ERR_NO_EXEC_MEMORY);
            return SMM_ERR_NO_EXEC_MEMORY;
        }
        out->exec = exec;
        out->mapped = size;
    }
    /* the one path every kernel takes: make the new instructions visible to instruction fetch */
    __builtin___clear_cache((char *)(uintptr_t)out->exec, (char *)(uintptr_t)out->exec + b->len);
    if (atomic_load_explicit(&exec_state, memory_order_relaxed) == 0)
        atomic_store(&exec_state, EXEC_WORKS);
    return SMM_OK;
}

void jit_code_free(jit_code *c)
{
    if (c->exec == NULL)
        return;
    if (c->arena != NULL) {
        jit_arena *a = c->arena;
        pthread_mutex_lock(&pool_lock);
        if (!a->frozen) /* a frozen arena's runs are never reused: another process may still run them */
            arena_give(a, (size_t)(c->exec - a->exec), c->mapped);
        pthread_mutex_unlock(&pool_lock);
    } else {
        munmap((void *)(uintptr_t)c->exec, c->mapped);
    }
    c->exec = NULL;
    c->mapped = 0;
    c->arena = NULL;
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
