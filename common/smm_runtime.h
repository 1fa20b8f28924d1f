/*
 * smm_runtime.h - library-internal runtime shared by every module: CPU
 * features, the resolved ISA path and thread count of a call, and the
 * argument checks every public entry point runs before touching memory.
 */
#ifndef SMM_RUNTIME_H
#define SMM_RUNTIME_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "sketchmm/common.h"

/*
 * Features beyond an ISA path's baseline that a kernel may need (the
 * `needs` of a kernel table row, smm_dispatch.h); each implies its path's
 * baseline here (AVX-512 F/BW/DQ/VL with OS-saved zmm state).
 */
enum {
    SMM_CPU_VPOPCNTDQ = 1u << 0, /* AVX512_VPOPCNTDQ: vpopcntq */
    SMM_CPU_VBMI = 1u << 1,      /* AVX512_VBMI: vpermb, vpermi2b */
    SMM_CPU_VNNI = 1u << 2,      /* AVX512_VNNI: vpdpbusd */
    SMM_CPU_BF16 = 1u << 3       /* AVX512_BF16: vdpbf16ps */
};

/* What this CPU (and the operating system) can run. */
typedef struct {
    int avx2_fma;         /* AVX2, FMA, POPCNT and OS-saved ymm state */
    int avx512;           /* AVX-512 F/BW/DQ/VL and OS-saved zmm state */
    int avx512_vpopcntdq; /* AVX512_VPOPCNTDQ (implies avx512 here) */
    int neon;             /* AArch64 Advanced SIMD */
    unsigned flags;       /* SMM_CPU_* bits */
} smm_cpu_features;

/* Detected once, then cached; never NULL. */
const smm_cpu_features *smm_cpu(void);

/*
 * Who the CPU is, for the tuning file's signature: vendor (x86: the cpuid
 * vendor string, e.g. "AuthenticAMD"; AArch64: "arm-0x41", the MIDR
 * implementer), family, model and stepping (x86: display family and model
 * as lscpu prints them; AArch64: 0, the MIDR part number, variant * 16 +
 * revision). Unknown fields are 0 and the vendor "unknown". Detected once
 * (smm_cpu.c); never NULL.
 */
typedef struct {
    char vendor[32];
    int family, model, stepping;
} smm_cpu_identity;

const smm_cpu_identity *smm_cpu_id(void);

/* The settings one call runs with, resolved at its public entry point. */
typedef struct {
    smm_isa isa; /* never SMM_ISA_AUTO */
    int threads; /* >= 1 */
} smm_context;

/*
 * Resolve the process-wide ISA path and thread count into *ctx.
 * Returns SMM_OK or the selection error described in common.h (an
 * unparsable SKETCHMM_JIT included).
 */
smm_status smm_context_current(smm_context *ctx);

/*
 * The process-wide ISA selection as one int: > 0 an smm_isa, < 0 a negated
 * error status, 0 not resolved yet. smm_isa_now() reads it inline (one load)
 * for entry points whose whole work is a few dozen instructions (the 4x4
 * single-matrix calls); smm_isa_resolve() is its slow path.
 */
extern atomic_int smm_isa_selection;
int smm_isa_resolve(void);

static inline int smm_isa_now(void)
{
    const int sel = atomic_load_explicit(&smm_isa_selection, memory_order_relaxed);
    return sel != 0 ? sel : smm_isa_resolve();
}

/*
 * Run-time code generation on or off (smm_set_jit, SKETCHMM_JIT): 1 or 0,
 * read with one load once resolved; an unparsable SKETCHMM_JIT counts as off
 * here (smm_context_current reports it).
 */
int smm_jit_now(void);

/* ---- argument checks (no memory is touched) ---- */

smm_status smm_check_layout(smm_layout layout);
smm_status smm_check_trans(smm_trans trans);

/*
 * A rows x cols matrix stored in `layout` with leading dimension ld and
 * elements of elem_size bytes: rows, cols >= 0 (else SMM_ERR_BAD_SIZE);
 * ld >= max(1, cols) row-major or max(1, rows) column-major
 * (SMM_ERR_BAD_LEADING_DIM); p non-NULL when rows * cols > 0
 * (SMM_ERR_NULL_POINTER); its extent in bytes fits in size_t and ptrdiff_t
 * (SMM_ERR_OVERFLOW). The layout itself must already be valid.
 */
smm_status smm_check_matrix(smm_layout layout, int64_t rows, int64_t cols,
                            const void *p, int64_t ld, size_t elem_size);

/*
 * Aliasing. The memory span of a matrix is the byte range from its first
 * element to one past its last, padding between lines included: [lo, hi),
 * empty (lo == hi) when the matrix has no elements. Entry points whose
 * headers forbid an output to overlap an input compare these spans (after
 * smm_check_matrix accepted both matrices, so the extents fit) and return
 * SMM_ERR_BAD_ARGUMENT on an overlap. Spans are compared, not elements: a
 * matrix interleaved with another in the padding of its lines counts as
 * overlapping. O(1), no memory touched.
 */
typedef struct {
    uintptr_t lo, hi;
} smm_span;

/* The span of a rows x cols matrix in `layout` (leading dimension ld, elements of elem_size bytes) at p. */
static inline smm_span smm_matrix_span(smm_layout layout, int64_t rows, int64_t cols, const void *p, int64_t ld,
                                       size_t elem_size)
{
    const int64_t inner = layout == SMM_ROW_MAJOR ? cols : rows;
    const int64_t outer = layout == SMM_ROW_MAJOR ? rows : cols;
    smm_span s = { (uintptr_t)p, (uintptr_t)p };
    if (rows > 0 && cols > 0)
        s.hi = s.lo + ((size_t)(outer - 1) * (size_t)ld + (size_t)inner) * elem_size;
    return s;
}

/* 1 when the two spans share a byte (an empty span shares none). Disjoint spans fail one of the first two tests. */
static inline int smm_spans_overlap(smm_span a, smm_span b)
{
    return a.lo < b.hi && b.lo < a.hi && a.lo < a.hi && b.lo < b.hi;
}

/*
 * smm_spans_overlap for two spans of the same length `bytes` (1 <= bytes <=
 * SIZE_MAX / 2) starting at p and q: |p - q| < bytes, as one comparison
 * (the fixed-size 4x4 matrices, where the general test would cost as much
 * as a quarter of the call).
 */
static inline int smm_equal_spans_overlap(const void *p, const void *q, size_t bytes)
{
    return (uintptr_t)p - (uintptr_t)q + (bytes - 1) < 2 * bytes - 1;
}

/* a * b into *out; SMM_ERR_OVERFLOW when it does not fit in int64_t or a, b < 0. */
smm_status smm_mul_size(int64_t a, int64_t b, int64_t *out);

/*
 * Allocate n bytes aligned to 64 (NULL when n overflows or memory is short); free with smm_aligned_free.
 * Blocks of 8 MiB or more are aligned to 2 MiB and advised (madvise) to use transparent huge pages.
 */
void *smm_aligned_alloc(size_t n);
void smm_aligned_free(void *p);

/*
 * Workspaces carved from one allocation (e.g. one per thread): each piece
 * takes smm_piece(bytes) bytes, a multiple of 64, so every piece of a
 * 64-aligned workspace is 64-aligned; smm_carve returns the piece at *cursor
 * and moves *cursor past it.
 */
static inline size_t smm_piece(size_t bytes)
{
    return (bytes + 63) & ~(size_t)63;
}

static inline void *smm_carve(char **cursor, size_t bytes)
{
    void *p = *cursor;
    *cursor += smm_piece(bytes);
    return p;
}

#endif /* SMM_RUNTIME_H */
