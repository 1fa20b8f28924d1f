/*
 * jit_buf.h - the buffer the run-time code generators write machine code
 * into (library-internal): a growable byte array in ordinary heap memory,
 * never executable. When a kernel is complete, jit_code.h copies it into
 * executable memory.
 *
 * Writes past JIT_BUF_MAX bytes, or a failed allocation, set `failed` and
 * are dropped; the generator finishes its walk and its caller sees the flag
 * (the precompiled kernels then run). Offsets into the buffer are the
 * targets of jumps (loops jump back) and of the constant pool.
 */
#ifndef EXACT_JIT_BUF_H
#define EXACT_JIT_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The largest kernel a generator may write (bytes). */
#define JIT_BUF_MAX ((size_t)1 << 20)

typedef struct {
    uint8_t *p;
    size_t len, cap;
    int failed; /* 1 after an allocation failure or a write past JIT_BUF_MAX */
} jit_buf;

/* Make room for n more bytes; 0 when there is none (failed is then set). */
static inline int jit_buf_room(jit_buf *b, size_t n)
{
    if (b->failed)
        return 0;
    if (b->len + n <= b->cap)
        return 1;
    size_t cap = b->cap == 0 ? 4096 : 2 * b->cap;
    while (cap < b->len + n)
        cap *= 2;
    if (cap > JIT_BUF_MAX) {
        if (b->len + n > JIT_BUF_MAX) {
            b->failed = 1;
            return 0;
        }
        cap = JIT_BUF_MAX;
    }
    uint8_t *p = realloc(b->p, cap);
    if (p == NULL) {
        b->failed = 1;
        return 0;
    }
    b->p = p;
    b->cap = cap;
    return 1;
}

static inline void jit_buf_free(jit_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
}

static inline void jit_emit8(jit_buf *b, uint8_t v)
{
    if (jit_buf_room(b, 1))
        b->p[b->len++] = v;
}

static inline void jit_emit32(jit_buf *b, uint32_t v)
{
    if (jit_buf_room(b, 4)) {
        for (int i = 0; i < 4; i++)
            b->p[b->len++] = (uint8_t)(v >> (8 * i));
    }
}

static inline void jit_emit_bytes(jit_buf *b, const void *data, size_t n)
{
    if (jit_buf_room(b, n)) {
        memcpy(b->p + b->len, data, n);
        b->len += n;
    }
}

/* Pad with `fill` bytes up to a multiple of align (a power of two). */
static inline void jit_align(jit_buf *b, size_t align, uint8_t fill)
{
    while (!b->failed && (b->len & (align - 1)) != 0)
        jit_emit8(b, fill);
}

#endif /* EXACT_JIT_BUF_H */
