/*
 * smm_runtime.c - the process-wide ISA path, thread count and code
 * generation switch (with their environment overrides), argument checks and
 * aligned allocation.
 */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE (Linux), hidden by _POSIX_C_SOURCE alone */
#include <ctype.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef __linux__
#include <sys/mman.h>
#endif

#include "common/smm_runtime.h"

/* A selection is kept as one int: > 0 an smm_isa, < 0 a negated error status, 0 not yet resolved. */
atomic_int smm_isa_selection = 0; /* smm_runtime.h */
static atomic_int thread_selection = 0;
static atomic_int jit_selection = 0;

const char *smm_isa_name(smm_isa isa)
{
    switch (isa) {
    case SMM_ISA_AUTO: return "auto";
    case SMM_ISA_SCALAR: return "scalar";
    case SMM_ISA_AVX2: return "avx2";
    case SMM_ISA_AVX512: return "avx512";
    case SMM_ISA_NEON: return "neon";
    }
    return NULL;
}

int smm_isa_supported(smm_isa isa)
{
    const smm_cpu_features *cpu = smm_cpu();
    switch (isa) {
    case SMM_ISA_AUTO:
    case SMM_ISA_SCALAR: return 1;
#if defined(__x86_64__)
    case SMM_ISA_AVX2: return cpu->avx2_fma;
    case SMM_ISA_AVX512: return cpu->avx512;
#endif
#if defined(__aarch64__)
    case SMM_ISA_NEON: return cpu->neon;
#endif
    default: return 0;
    }
}

/* Parse an ISA name as SKETCHMM_ISA accepts it; SMM_ERR_BAD_ENV when unknown. */
static smm_status isa_parse(const char *text, smm_isa *isa)
{
    static const smm_isa all[] = { SMM_ISA_AUTO, SMM_ISA_SCALAR, SMM_ISA_AVX2, SMM_ISA_AVX512, SMM_ISA_NEON };
    char word[16];
    size_t len = 0;
    while (*text && isspace((unsigned char)*text))
        text++;
    while (text[len] && !isspace((unsigned char)text[len]) && len + 1 < sizeof word) {
        word[len] = (char)tolower((unsigned char)text[len]);
        len++;
    }
    word[len] = '\0';
    for (const char *rest = text + len; *rest; rest++)
        if (!isspace((unsigned char)*rest))
            return SMM_ERR_BAD_ENV;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (strcmp(word, smm_isa_name(all[i])) == 0) {
            *isa = all[i];
            return SMM_OK;
        }
    }
    return SMM_ERR_BAD_ENV;
}

static smm_isa best_isa(void)
{
    if (smm_isa_supported(SMM_ISA_AVX512))
        return SMM_ISA_AVX512;
    if (smm_isa_supported(SMM_ISA_AVX2))
        return SMM_ISA_AVX2;
    if (smm_isa_supported(SMM_ISA_NEON))
        return SMM_ISA_NEON;
    return SMM_ISA_SCALAR;
}

/* The selection SMM_ISA_AUTO means now, encoded as in smm_isa_selection. */
static int resolve_auto(void)
{
    const char *env = getenv("SKETCHMM_ISA");
    smm_isa isa = SMM_ISA_AUTO;
    if (env && *env) {
        smm_status s = isa_parse(env, &isa);
        if (s != SMM_OK)
            return -(int)s;
    }
    if (isa == SMM_ISA_AUTO)
        return (int)best_isa();
    return smm_isa_supported(isa) ? (int)isa : -(int)SMM_ERR_ISA_UNAVAILABLE;
}

smm_status smm_set_isa(smm_isa isa)
{
    int sel;
    if (smm_isa_name(isa) == NULL)
        return SMM_ERR_BAD_ISA; /* an unknown value changes nothing */
    if (isa == SMM_ISA_AUTO)
        sel = resolve_auto();
    else
        sel = smm_isa_supported(isa) ? (int)isa : -(int)SMM_ERR_ISA_UNAVAILABLE;
    atomic_store(&smm_isa_selection, sel);
    return sel > 0 ? SMM_OK : (smm_status)(-sel);
}

int smm_isa_resolve(void)
{
    int sel = atomic_load(&smm_isa_selection);
    if (sel == 0) {
        sel = resolve_auto();
        atomic_store(&smm_isa_selection, sel);
    }
    return sel;
}

smm_status smm_get_isa(smm_isa *isa)
{
    const int sel = smm_isa_resolve();
    if (isa)
        *isa = sel > 0 ? (smm_isa)sel : SMM_ISA_AUTO;
    return sel > 0 ? SMM_OK : (smm_status)(-sel);
}

static int default_threads(void)
{
#ifdef _OPENMP
    int n = omp_get_max_threads();
    return n > 0 ? n : 1;
#else
    return 1;
#endif
}

/* SKETCHMM_NUM_THREADS or OpenMP's default, encoded as thread_selection. */
static int resolve_default_threads(void)
{
    const char *env = getenv("SKETCHMM_NUM_THREADS");
    if (env && *env) {
        char *end;
        errno = 0;
        long v = strtol(env, &end, 10);
        while (*end && isspace((unsigned char)*end))
            end++;
        if (errno || *end || v < 1 || v > SMM_MAX_THREADS)
            return -(int)SMM_ERR_BAD_ENV;
        return (int)v;
    }
    return default_threads();
}

smm_status smm_set_num_threads(int n)
{
    if (n < 0 || n > SMM_MAX_THREADS)
        return SMM_ERR_BAD_THREADS;
    int sel = n > 0 ? n : resolve_default_threads();
    atomic_store(&thread_selection, sel);
    return sel > 0 ? SMM_OK : (smm_status)(-sel);
}

static int current_threads(void)
{
    int sel = atomic_load(&thread_selection);
    if (sel == 0) {
        sel = resolve_default_threads();
        atomic_store(&thread_selection, sel);
    }
    return sel;
}

int smm_get_num_threads(void)
{
    int sel = current_threads();
    return sel > 0 ? sel : 1;
}

/* SKETCHMM_JIT, encoded as jit_selection: 1 on, 2 off, < 0 a negated error. */
static int resolve_default_jit(void)
{
    const char *env = getenv("SKETCHMM_JIT");
    if (env == NULL)
        return 1;
    while (isspace((unsigned char)*env))
        env++;
    if (*env == '\0')
        return 1;
    const char value = *env++;
    while (isspace((unsigned char)*env))
        env++;
    if (*env != '\0' || (value != '0' && value != '1'))
        return -(int)SMM_ERR_BAD_ENV;
    return value == '1' ? 1 : 2;
}

smm_status smm_set_jit(int mode)
{
    int sel;
    if (mode == 1 || mode == 0)
        sel = mode == 1 ? 1 : 2;
    else if (mode == -1)
        sel = resolve_default_jit();
    else
        return SMM_ERR_BAD_ARGUMENT;
    atomic_store(&jit_selection, sel);
    return sel > 0 ? SMM_OK : (smm_status)(-sel);
}

static int current_jit(void)
{
    int sel = atomic_load_explicit(&jit_selection, memory_order_relaxed);
    if (sel == 0) {
        sel = resolve_default_jit();
        atomic_store(&jit_selection, sel);
    }
    return sel;
}

int smm_jit_now(void)
{
    return current_jit() == 1;
}

int smm_get_jit(void)
{
    return smm_jit_now();
}

smm_status smm_context_current(smm_context *ctx)
{
    smm_isa isa;
    smm_status s = smm_get_isa(&isa);
    if (s != SMM_OK)
        return s;
    const int jit = current_jit();
    if (jit < 0)
        return (smm_status)(-jit);
    int threads = current_threads();
    if (threads < 0)
        return (smm_status)(-threads);
    ctx->isa = isa;
    ctx->threads = threads;
    return SMM_OK;
}

smm_status smm_check_layout(smm_layout layout)
{
    return (layout == SMM_ROW_MAJOR || layout == SMM_COL_MAJOR) ? SMM_OK : SMM_ERR_BAD_LAYOUT;
}

smm_status smm_check_trans(smm_trans trans)
{
    return (trans == SMM_NO_TRANS || trans == SMM_TRANS) ? SMM_OK : SMM_ERR_BAD_TRANS;
}

smm_status smm_mul_size(int64_t a, int64_t b, int64_t *out)
{
    if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, out))
        return SMM_ERR_OVERFLOW;
    return SMM_OK;
}

smm_status smm_check_matrix(smm_layout layout, int64_t rows, int64_t cols,
                            const void *p, int64_t ld, size_t elem_size)
{
    if (rows < 0 || cols < 0)
        return SMM_ERR_BAD_SIZE;
    const int64_t inner = layout == SMM_ROW_MAJOR ? cols : rows;
    const int64_t outer = layout == SMM_ROW_MAJOR ? rows : cols;
    if (ld < (inner > 1 ? inner : 1))
        return SMM_ERR_BAD_LEADING_DIM;
    if (rows == 0 || cols == 0)
        return SMM_OK;
    if (p == NULL)
        return SMM_ERR_NULL_POINTER;
    /* extent = ((outer - 1) * ld + inner) elements, in bytes, must fit in ptrdiff_t */
    int64_t extent, bytes;
    if (smm_mul_size(outer - 1, ld, &extent) != SMM_OK || __builtin_add_overflow(extent, inner, &extent) ||
        smm_mul_size(extent, (int64_t)elem_size, &bytes) != SMM_OK || (uint64_t)bytes > (uint64_t)PTRDIFF_MAX)
        return SMM_ERR_OVERFLOW;
    return SMM_OK;
}

/* Blocks from this size up are aligned to a huge page and asked to be backed by huge pages. */
#define SMM_HUGE_PAGE ((size_t)2 << 20)
#define SMM_HUGE_MIN ((size_t)8 << 20)

void *smm_aligned_alloc(size_t n)
{
    void *p = NULL;
    if (n == 0)
        n = 64;
    const size_t align = n >= SMM_HUGE_MIN ? SMM_HUGE_PAGE : 64;
    if (n > (size_t)PTRDIFF_MAX - SMM_HUGE_PAGE || posix_memalign(&p, align, n) != 0)
        return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    /* large buffers (plan copies, packed operands, score blocks) fault in 2 MiB at a time instead of 4 KiB:
     * on a virtual machine each fault is expensive; advice only, ignored where transparent huge pages are off */
    if (align == SMM_HUGE_PAGE)
        (void)madvise(p, n & ~(SMM_HUGE_PAGE - 1), MADV_HUGEPAGE);
#endif
    return p;
}

void smm_aligned_free(void *p)
{
    free(p);
}
