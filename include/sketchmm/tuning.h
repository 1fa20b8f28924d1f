/*
 * sketchmm/tuning.h - the configuration of the exact core and the tuner that
 * fits it to the machine (experimental: fields, names and the file format
 * may change from one version to the next).
 *
 * What is configured, per ISA path: the micro-kernel shape exact_sgemm runs
 * (each path has several, e.g. AVX-512 12x32, 14x32, 8x48 and 6x64), its
 * cache blocks kc (depth), mc (rows of A) and nc (columns of B), which loops
 * the threads share, the kernel's prefetch distance, the size below which a
 * product skips packing (sup_max_macs), exact_topk's block of scores, and,
 * for the batched 4x4 operations of mat4.h, a narrower ISA path where it is
 * faster on this CPU. mc, nc, the split and the prefetch distance are kept
 * twice, for one thread and for several.
 *
 * Where the configuration comes from (smm_config_source):
 * - SMM_CONFIG_TUNED: a tuning file written by smm_tune (or the program
 *   sketchmm_tune), read on first use when its signature (library version,
 *   CPU vendor, family, model and stepping, the instruction-set features
 *   the library uses, cache sizes) matches this process's and every line
 *   checks out; a file that does not match, is damaged or holds a value out
 *   of range is ignored as a whole, and the reason is reported in
 *   smm_exact_config.note. Nothing fails because of a tuning file.
 * - SMM_CONFIG_MODEL: no usable file; the blocks come from an analytical
 *   model of the caches (sizes, ways, sets and lines read from cpuid or
 *   Linux sysfs at run time) and the rest are fixed defaults.
 * - SMM_CONFIG_TABLE: the cache geometry cannot be read either; fixed
 *   per-path block sizes.
 *
 * The file: the environment variable SKETCHMM_TUNING, when set, is its path,
 * or "none" to use no file; otherwise $XDG_CACHE_HOME/sketchmm/ (or
 * $HOME/.cache/sketchmm/) holds one file per CPU signature,
 * tuning-HASH.txt. It is plain text (docs/tuning.md describes it).
 *
 * Results. For one configuration exact_sgemm's results are bit-identical
 * for every thread count, as always; every kernel shape of a path gives the
 * same bits, and so does the small-product path. kc changes the summation
 * order, so results under a tuned configuration may differ in the last bits
 * from those under the default one, and the default one (the model)
 * depends on the CPU's caches. SKETCHMM_TUNING=none reproduces the default configuration's bits
 * on a machine that has a tuning file.
 */
#ifndef SKETCHMM_TUNING_H
#define SKETCHMM_TUNING_H

#include <stddef.h>

#include "sketchmm/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a configuration came from. */
typedef enum { SMM_CONFIG_TABLE = 0, SMM_CONFIG_MODEL = 1, SMM_CONFIG_TUNED = 2 } smm_config_source;

/* "table", "model" or "tuned"; NULL for an unknown value. */
SMM_API const char *smm_config_source_name(smm_config_source source);

#define SMM_CONFIG_NAME 32   /* bytes of a name field, NUL included */
#define SMM_CONFIG_PATH 1024 /* bytes of the file field */
#define SMM_CONFIG_NOTE 256  /* bytes of the note field */

/* The configuration of one ISA path, as the library runs it. Index 0 of the pairs: one thread; 1: several. */
typedef struct {
    smm_isa isa;                        /* the path described */
    smm_config_source source;
    char kernel[SMM_CONFIG_NAME];       /* the micro-kernel shape, e.g. "avx512_12x32" (exact_sgemm_kernel_name) */
    int mr, nr;                         /* its register tile */
    int64_t kc;                         /* depth of a k block (one value: results depend on it) */
    int64_t mc[2];                      /* rows of A per block */
    int64_t nc[2];                      /* columns of B per block */
    char split[2][SMM_CONFIG_NAME];     /* which loops threads share: "auto", "rows" or "columns" */
    int64_t prefetch[2];                /* A prefetch distance of the micro-kernel in k steps (0: none) */
    double sup_max_macs;                /* products of at most this many multiply-adds m*n*k skip packing */
    int64_t topk_rows, topk_cols;       /* exact_topk's block of scores: rows per task, columns per block */
    smm_isa mat4_paths[4];              /* the path of mat4_mul_batch_f32, _f64, mat4_inv_batch_f32, _f64 */
    char file[SMM_CONFIG_PATH];         /* the tuning file read or looked for; "" when SKETCHMM_TUNING=none */
    char note[SMM_CONFIG_NOTE];         /* what became of it: "read", "no file", "signature differs: ...", ... */
} smm_exact_config;

/*
 * The configuration of the current ISA path (smm_get_isa) into *config.
 * Reading it the first time reads the tuning file (see above).
 * Returns SMM_OK, SMM_ERR_NULL_POINTER, or the ISA selection error
 * (common.h) with *config untouched. Thread-safe.
 */
SMM_API smm_status smm_exact_config_get(smm_exact_config *config);

/* Bytes that always hold smm_exact_config_describe's text. */
#define SMM_CONFIG_TEXT 2048

/*
 * One line describing *config, "key=value" pairs separated by spaces:
 * isa, source, kernel, kc, mc, nc, split, prefetch (one thread/several as
 * "A/B"), sup_max_macs, topk_block, mat4, file, note. Writes at most size
 * bytes into buf, always NUL-terminated when size > 0. Returns SMM_OK,
 * SMM_ERR_NULL_POINTER, or SMM_ERR_BAD_SIZE when the text did not fit (it
 * is then cut short).
 */
SMM_API smm_status smm_exact_config_describe(const smm_exact_config *config, char *buf, size_t size);

/*
 * The tuning file this process reads and smm_tune writes by default:
 * SKETCHMM_TUNING when set (and not "none"), else the file for this CPU
 * under $XDG_CACHE_HOME/sketchmm or $HOME/.cache/sketchmm. "" when
 * SKETCHMM_TUNING is "none" or SMM_CONFIG_PATH bytes or longer (no file is
 * read then), or neither XDG_CACHE_HOME nor HOME is set.
 * Returns SMM_OK, SMM_ERR_NULL_POINTER or SMM_ERR_BAD_SIZE (buf too short;
 * SMM_CONFIG_PATH is enough for any path the library reads).
 */
SMM_API smm_status smm_tuning_path(char *buf, size_t size);

/*
 * Read SKETCHMM_TUNING and the tuning file again, replacing the active
 * configuration of every path. Returns SMM_OK (a missing or bad file is not
 * an error: the model is used and smm_exact_config.note says why), or
 * SMM_ERR_NO_MEMORY with the configuration unchanged. Not to be called while
 * another thread is inside a sketchmm function.
 */
SMM_API smm_status smm_tuning_reload(void);

/* The default time budget of smm_tune, in seconds. */
#define SMM_TUNE_DEFAULT_BUDGET 120.0

/* Options of smm_tune. */
typedef struct {
    double budget_seconds; /* wall time to spend (0: SMM_TUNE_DEFAULT_BUDGET); at least 10 */
    int threads;           /* the "several threads" count to tune for (0: smm_get_num_threads()) */
    const char *path;      /* the file to write: NULL: smm_tuning_path; "none": write nothing */
} smm_tune_options;

#define SMM_TUNE_OPTIONS_INIT { 0.0, 0, NULL }

/*
 * Called by smm_tune after each measurement round, from the calling
 * thread: elapsed seconds, the budget, and one line saying what is being
 * measured and the best found so far (no newline).
 */
typedef void (*smm_tune_progress_fn)(void *arg, double elapsed_seconds, double budget_seconds, const char *status);

/*
 * smm_tune - measure this machine and write its configuration for the
 * current ISA path.
 *
 * Searches, within the time budget, the micro-kernel shape and kc (one
 * choice for every thread count), then mc, nc, the threading split and the
 * prefetch distance for one thread and for options->threads threads, then
 * sup_max_macs, exact_topk's block shape and, for the batched 4x4
 * operations, the narrower ISA paths. Candidates are timed in interleaved
 * rounds (medians), so a change of machine load hits them alike; the model's
 * configuration is measured alongside and kept where no candidate beats it.
 * The result is written to the tuning file (keeping the sections of other
 * ISA paths from an existing file with the same signature; the file is
 * replaced in one step, never left half written) and becomes the active
 * configuration of this process.
 *
 * options NULL: SMM_TUNE_OPTIONS_INIT. progress may be NULL.
 * Returns SMM_OK; SMM_ERR_BAD_ARGUMENT (budget below 10 s, negative or
 * above a day; threads < 0), SMM_ERR_BAD_THREADS (threads above
 * SMM_MAX_THREADS), the ISA selection error, SMM_ERR_NO_MEMORY (nothing
 * changed then); SMM_ERR_FILE when the file cannot be written (the new
 * configuration is active in this process all the same).
 * Not to be called while another thread is inside a sketchmm function.
 */
SMM_API smm_status smm_tune(const smm_tune_options *options, smm_tune_progress_fn progress, void *arg);

#ifdef __cplusplus
}
#endif

#endif /* SKETCHMM_TUNING_H */
