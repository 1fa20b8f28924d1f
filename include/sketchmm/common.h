/*
 * sketchmm/common.h - types shared by every sketchmm module: matrix layout and
 * transpose flags, status codes, the library version, the instruction-set
 * (ISA) path and the thread count.
 *
 * Conventions used by every function of the library
 * - Matrices travel as a pointer, a layout and a leading dimension, all in
 *   elements (not bytes), exactly as in CBLAS.
 * - Functions return an smm_status. On any status other than SMM_OK the
 *   output arrays are left untouched. Nothing in the library aborts, exits or
 *   prints.
 * - The *_create functions (approx_plan_create, brgemm_plan_create) return
 *   their object through an output pointer `plan`: on any failure they set
 *   *plan to NULL when plan itself is not NULL, so a failed create can be
 *   followed by the matching *_free(*plan) unconditionally.
 * - Aliasing: where a function's header says an output must not overlap an
 *   input, it compares their memory spans (each from its first to its last
 *   element, padding between lines included) and returns
 *   SMM_ERR_BAD_ARGUMENT when they share a byte; buffers that merely touch
 *   are fine. Spans, not elements, are compared: an output interleaved with
 *   an input in the padding of its lines is rejected too. Operands a call
 *   does not read (e.g. A and B when alpha == 0) are not compared.
 * - The caller owns every array passed in; the library keeps no pointer to
 *   them after a call returns.
 */
#ifndef SKETCHMM_COMMON_H
#define SKETCHMM_COMMON_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SKETCHMM_VERSION_MAJOR 0
#define SKETCHMM_VERSION_MINOR 4
#define SKETCHMM_VERSION_PATCH 0
/* The version as one number, major * 10000 + minor * 100 + patch (0.4.0: 400), for #if tests. */
#define SKETCHMM_VERSION_NUMBER (SKETCHMM_VERSION_MAJOR * 10000 + SKETCHMM_VERSION_MINOR * 100 + SKETCHMM_VERSION_PATCH)

/*
 * SMM_API marks every function of the public API: the shared library is
 * built with hidden visibility and exports these names only
 * (tests/check_exports.cmake holds it to that).
 */
#if defined(__GNUC__) || defined(__clang__)
#define SMM_API __attribute__((visibility("default")))
#else
#define SMM_API
#endif

/* Storage order of a matrix; the values are those of CBLAS. */
typedef enum { SMM_ROW_MAJOR = 101, SMM_COL_MAJOR = 102 } smm_layout;

/* op(X) = X or its transpose; the values are those of CBLAS. */
typedef enum { SMM_NO_TRANS = 111, SMM_TRANS = 112 } smm_trans;

/*
 * Status codes. The numbers are stable: new codes are only ever appended.
 *
 * Sizes against options: a matrix or vector dimension (m, n, k, d, a word or
 * matrix count) outside what the function accepts is SMM_ERR_BAD_SIZE,
 * whether negative, zero where the function needs at least 1 (e.g. k and n
 * of approx_plan_create and of the top-k calls) or above a documented limit;
 * any other count or option (topk, candidates, size, a batch stride)
 * out of its documented range is SMM_ERR_BAD_ARGUMENT (bits:
 * SMM_ERR_BAD_BITS). Every function's header lists which of its arguments
 * must be at least 1.
 */
typedef enum {
    SMM_OK = 0,
    SMM_ERR_NULL_POINTER = 1,    /* a required pointer is NULL */
    SMM_ERR_BAD_SIZE = 2,        /* a dimension is negative, zero where at least 1 is required, or above its limit */
    SMM_ERR_BAD_LEADING_DIM = 3, /* a leading dimension is smaller than allowed */
    SMM_ERR_OVERFLOW = 4,        /* an element or byte count does not fit in 64 bits / size_t */
    SMM_ERR_BAD_LAYOUT = 5,      /* layout is neither SMM_ROW_MAJOR nor SMM_COL_MAJOR */
    SMM_ERR_BAD_TRANS = 6,       /* a transpose flag is neither SMM_NO_TRANS nor SMM_TRANS */
    SMM_ERR_BAD_BITS = 7,        /* the sketch bit count is not supported */
    SMM_ERR_BAD_METHOD = 8,      /* unknown sketch_method value, or one the call does not take (sketch.h) */
    SMM_ERR_BAD_ISA = 9,         /* unknown smm_isa value */
    SMM_ERR_ISA_UNAVAILABLE = 10,/* the requested ISA path is not available on this CPU/build */
    SMM_ERR_BAD_ENV = 11,        /* SKETCHMM_ISA, SKETCHMM_NUM_THREADS or SKETCHMM_JIT has a value that cannot be
                                    parsed */
    SMM_ERR_BAD_THREADS = 12,    /* a thread count is negative or above SMM_MAX_THREADS */
    SMM_ERR_NO_MEMORY = 13,      /* a workspace allocation failed */
    SMM_ERR_NON_FINITE = 14,     /* an input holds NaN or Inf where a finite value is required, or a value the
                                    call derives from finite inputs before its result (a norm, a sketch) overflows
                                    float (see approx.h) */
    /* 15 and 16: the tools' file statuses, DATASET_ERR_IO and DATASET_ERR_BAD_FORMAT (data/dataset.h) */
    SMM_ERR_BAD_ARGUMENT = 17,   /* another argument is out of its documented range, or an output overlaps an
                                    input where the function forbids it */
    SMM_ERR_FILE = 18,           /* a file the call writes could not be written (tuning.h: smm_tune) */
    SMM_ERR_NO_EXEC_MEMORY = 19  /* the system refuses executable memory for generated code (smm_jit_status,
                                    sketchmm/jit.h: the precompiled kernels run instead) */
} smm_status;

/* A short English description of s; never NULL (unknown codes give a generic text). */
SMM_API const char *smm_status_str(smm_status s);

/* The library version as "MAJOR.MINOR.PATCH". */
SMM_API const char *smm_version(void);

/* SKETCHMM_VERSION_NUMBER of the library that runs (the header's may differ when linking a shared library). */
SMM_API int smm_version_number(void);

/*
 * Instruction-set paths. Every kernel of the library exists as a portable C
 * reference (SMM_ISA_SCALAR) and, where written, in SIMD versions. The path is
 * chosen once per process: SMM_ISA_AUTO picks the environment variable
 * SKETCHMM_ISA (scalar|avx2|avx512|neon, case-insensitive) when set and
 * otherwise the best path this CPU supports. A path may reuse another's kernel
 * for an operation it has no kernel of its own for (for example the AVX-512
 * path uses the AVX2 kernel where there is no AVX-512 one); the
 * *_kernel_name() functions of each module name the kernel that actually
 * runs ("Kernel names" below).
 */
typedef enum {
    SMM_ISA_AUTO = 0,
    SMM_ISA_SCALAR = 1,
    SMM_ISA_AVX2 = 2,   /* AVX2 + FMA + POPCNT */
    SMM_ISA_AVX512 = 3, /* AVX-512 F, BW, DQ, VL (and AVX2 + FMA) */
    SMM_ISA_NEON = 4    /* AArch64 Advanced SIMD */
} smm_isa;

/* "auto", "scalar", "avx2", "avx512" or "neon"; NULL for an unknown value. */
SMM_API const char *smm_isa_name(smm_isa isa);

/*
 * Kernel names. Each module's kernel-name query (exact_sgemm_kernel_name,
 * sketch_hamming_kernel_name, sketch_crosspolytope_kernel_name,
 * unary_kernel_name, mat4_kernel_name) returns, for the current ISA
 * selection, the name of the kernel that runs: the name smm_isa_name gives
 * the path that kernel belongs to ("scalar", "avx2", "avx512", "neon"),
 * optionally followed by "_" and a detail (a register tile, an instruction):
 * "avx512_12x32", "avx2_pshufb", "avx512_vpopcntdq", "neon_cnt", "scalar".
 * A path that reuses a lower path's kernel (above) gives that kernel's name,
 * so the name starts with the lower path's. The one other value is
 * "unavailable", when the ISA selection failed (smm_set_isa, SKETCHMM_ISA).
 * Never NULL.
 */

/* 1 when this CPU and this build can run path isa, else 0 (SMM_ISA_AUTO and SMM_ISA_SCALAR: always 1). */
SMM_API int smm_isa_supported(smm_isa isa);

/*
 * Select the ISA path for every later call in this process.
 * SMM_ISA_AUTO re-reads SKETCHMM_ISA (see above).
 * Returns SMM_ERR_BAD_ISA for an unknown value, SMM_ERR_ISA_UNAVAILABLE when
 * the CPU lacks the path, SMM_ERR_BAD_ENV when SKETCHMM_ISA cannot be parsed.
 * An unknown value changes nothing (the previous selection stays). After the
 * other failures (SMM_ERR_ISA_UNAVAILABLE, SMM_ERR_BAD_ENV), computing
 * functions return that same status until a later smm_set_isa() succeeds. Not to be called while another thread is
 * inside a sketchmm function.
 */
SMM_API smm_status smm_set_isa(smm_isa isa);

/*
 * The path in use, resolving SMM_ISA_AUTO on first use. Returns the status a
 * computing function would return if the selection failed (SKETCHMM_ISA
 * naming a missing or unknown path); *isa is then SMM_ISA_AUTO.
 */
SMM_API smm_status smm_get_isa(smm_isa *isa);

/*
 * Threads used by computing functions (OpenMP). n == 0 restores the default:
 * SKETCHMM_NUM_THREADS when set (a positive integer), otherwise OpenMP's
 * omp_get_max_threads(). Results never depend on the thread count.
 * Returns SMM_ERR_BAD_THREADS for n < 0 or n > SMM_MAX_THREADS, SMM_ERR_BAD_ENV when n == 0 and
 * SKETCHMM_NUM_THREADS cannot be parsed (computing functions then return it too).
 */
SMM_API smm_status smm_set_num_threads(int n);

/*
 * Run-time code generation (sketchmm/jit.h): where sketchmm has a generator,
 * it writes kernels for the exact shapes it is given; otherwise, or when
 * generation is off, its precompiled kernels run. On by default;
 * SKETCHMM_JIT=0 turns it off for the process (1: on; surrounding spaces
 * allowed). smm_set_jit(1) or smm_set_jit(0) turns it on or off for later
 * plans and calls (a plan keeps what it was created with); smm_set_jit(-1)
 * restores the default, re-reading SKETCHMM_JIT. Returns
 * SMM_ERR_BAD_ARGUMENT for any other value (nothing changes), SMM_ERR_BAD_ENV
 * when -1 finds SKETCHMM_JIT unparsable (computing functions then return it
 * too, as for SKETCHMM_ISA). Not to be called while another thread is inside
 * a sketchmm function.
 */
SMM_API smm_status smm_set_jit(int mode);

/* 1 when run-time code generation is on, else 0 (also while SKETCHMM_JIT cannot be parsed). */
SMM_API int smm_get_jit(void);

/* Largest thread count the library accepts (from the API or SKETCHMM_NUM_THREADS). */
#define SMM_MAX_THREADS 4096

/* The thread count computing functions use (at least 1). */
SMM_API int smm_get_num_threads(void);

#ifdef __cplusplus
}
#endif

#endif /* SKETCHMM_COMMON_H */
