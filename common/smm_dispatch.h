/*
 * smm_dispatch.h - the one way every kernel family of the library picks its
 * kernels (docs/kernel-dispatch.md has the whole pattern and an example).
 *
 * A kernel family (the SGEMM micro-kernels, the Hamming kernels, the FWHT
 * passes, ...) describes the kernels of one ISA path as a struct whose first
 * member is an smm_kernel_head, followed by the family's function pointers
 * (and any per-path constants):
 *
 *     typedef struct {
 *         smm_kernel_head head;
 *         hamming_row_fn row;
 *         hamming_panel_fn panel;
 *     } hamming_kernels;
 *
 * and keeps one const table of them, indexed by smm_isa, with a row for
 * SMM_ISA_SCALAR (the plain-C twins, which every family has and tests
 * against) and rows for the paths it has SIMD kernels for:
 *
 *     static const hamming_kernels hamming_table[SMM_ISA_COUNT] = {
 *         [SMM_ISA_SCALAR] = { { "scalar", 0 }, hamming_row_scalar, hamming_panel_scalar },
 *     #if defined(__x86_64__)
 *         [SMM_ISA_AVX2] = { { "avx2_pshufb", 0 }, hamming_row_avx2, hamming_panel_avx2 },
 *         [SMM_ISA_AVX512] = { { "avx512_vpopcntdq", SMM_CPU_VPOPCNTDQ }, ... },
 *     #endif
 *     };
 *
 * A call resolves its row once, from the ISA path of its context
 * (smm_context.isa, or smm_isa_now() on the few paths that are a few dozen
 * instructions long), through SMM_KERNELS_FOR(table, isa): the path's own
 * row when it has one and the CPU has the features the row needs, else the
 * row of the next path down (avx512 -> avx2 -> scalar, neon -> scalar).
 * The kernel that runs and its name (head.name, what the module's
 * *_kernel_name() query returns and logs print) come from the same row, so
 * they cannot disagree.
 *
 * Kernel names start with the ISA of the kernel that runs ("scalar",
 * "avx2", "avx512", "neon", as smm_isa_name gives them), then "_" and a
 * detail (a register tile, an instruction): "avx512_12x32",
 * "avx2_pshufb". A path that falls back to a lower path's row reports that
 * row's name.
 */
#ifndef SMM_DISPATCH_H
#define SMM_DISPATCH_H

#include <stddef.h>

#include "common/smm_runtime.h"

/* Rows of a kernel table: every smm_isa value, SMM_ISA_AUTO (never a call's path) included. */
#define SMM_ISA_COUNT (SMM_ISA_NEON + 1)

/* What every row of a kernel table starts with. */
typedef struct {
    const char *name; /* NULL: the path has no row of its own (it falls back) */
    unsigned needs;   /* SMM_CPU_* features the row needs beyond its path's (0: none) */
} smm_kernel_head;

/* The path a path falls back to when it has no usable row. */
static inline smm_isa smm_isa_fallback(smm_isa isa)
{
    return isa == SMM_ISA_AVX512 ? SMM_ISA_AVX2 : SMM_ISA_SCALAR;
}

/*
 * The row of `table` (SMM_ISA_COUNT rows of row_size bytes, each starting
 * with an smm_kernel_head, the scalar one set) for a call on path isa. One
 * load and two tests when the path has a row needing nothing extra.
 */
static inline const void *smm_kernels_pick(const void *table, size_t row_size, smm_isa isa)
{
    for (;;) {
        const smm_kernel_head *h = (const smm_kernel_head *)((const char *)table + (size_t)isa * row_size);
        if (h->name != NULL && (h->needs == 0 || (h->needs & ~smm_cpu()->flags) == 0))
            return h;
        if (isa == SMM_ISA_SCALAR || isa == SMM_ISA_AUTO)
            return (const char *)table + (size_t)SMM_ISA_SCALAR * row_size;
        isa = smm_isa_fallback(isa);
    }
}

/* smm_kernels_pick for a table declared as an array of SMM_ISA_COUNT rows, typed as its rows. */
#define SMM_KERNELS_FOR(table, isa) \
    ((const __typeof__((table)[0]) *)smm_kernels_pick((table), sizeof((table)[0]), (isa)))

#endif /* SMM_DISPATCH_H */
