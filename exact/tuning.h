/*
 * tuning.h - the configuration the exact core runs with: per ISA path, the
 * SGEMM micro-kernel shape, cache blocks, threading split and prefetch
 * distance, the small-product threshold, exact_topk's block shape and the
 * path each batched 4x4 operation runs on.
 *
 * Where it comes from, per path (smm_config_source, sketchmm/tuning.h):
 *   1. a tuning file written by the tuner (tuning_file.h), when its
 *      signature matches this CPU and library and every line checks out;
 *   2. else the analytical model (sgemm_model.h), from the cache geometry
 *      read at run time (common/smm_cache.h);
 *   3. else, when the geometry cannot be read, the fixed table of
 *      sgemm_targets.c.
 * The file is looked up once, on first use (tuning_active); the
 * environment variable SKETCHMM_TUNING names it (a path) or disables it
 * ("none"); otherwise it is $XDG_CACHE_HOME/sketchmm/tuning-HASH.txt
 * ($HOME/.cache when XDG_CACHE_HOME is unset), HASH a hash of the
 * signature, so machines sharing a home directory keep a file each.
 *
 * Determinism: kc and the small-product threshold are one value per path
 * for every thread count, and every shape of a path computes the same bits
 * (sgemm_kernel_fn), so one configuration gives bit-identical results for
 * any thread count. mc, nc, the split and the prefetch distance, which may
 * differ between one thread and several, never change a result.
 */
#ifndef EXACT_TUNING_H
#define EXACT_TUNING_H

#include <stddef.h>
#include <stdint.h>

#include "sketchmm/tuning.h"
#include "common/smm_dispatch.h"
#include "exact/sgemm_target.h"

/* The thread-count classes of a configuration: one thread, several. */
enum { TUNING_ONE = 0, TUNING_MANY = 1, TUNING_TEAMS = 2 };

/* Parameters that may differ between one thread and several (none changes a result). */
typedef struct {
    int64_t mc, nc;       /* rows of A per L2 block (multiple of mr), columns of B per L3 block (of nr) */
    sgemm_split split;    /* which loops the threads share */
    int64_t prefetch;     /* the kernel's A prefetch distance in k steps (0: none) */
} tuning_team;

/* The batched 4x4 operations whose path a configuration chooses (mat4.c). */
typedef enum { MAT4_OP_MUL_F32 = 0, MAT4_OP_MUL_F64 = 1, MAT4_OP_INV_F32 = 2, MAT4_OP_INV_F64 = 3, MAT4_OPS = 4 } mat4_op;

/* The configuration of one ISA path. */
typedef struct {
    int shape;                     /* index into sgemm_kernels_for(path)->shapes */
    int64_t kc;                    /* depth of a k block (changes the summation order: the same for every team) */
    tuning_team team[TUNING_TEAMS];
    double sup_max_macs;           /* products of at most this many multiply-adds take the small-product path */
    int64_t topk_rows, topk_cols;  /* exact_topk's score block: rows per task, columns per block */
    smm_isa mat4[MAT4_OPS];        /* the path each batched 4x4 operation runs on (this one or a narrower) */
} tuning_params;

/* Limits a configuration must keep (tuning_check); the tuner searches inside them. */
#define TUNING_KC_MIN 16
#define TUNING_KC_MAX 2048
#define TUNING_MC_MAX 16384
#define TUNING_NC_MAX 65536
#define TUNING_PREFETCH_MAX 64
#define TUNING_SUP_MAX 1.0e9
#define TUNING_TOPK_ROWS_MIN 16
#define TUNING_TOPK_ROWS_MAX 4096
#define TUNING_TOPK_COLS_MIN 64
#define TUNING_TOPK_COLS_MAX 65536
#define TUNING_WORKSPACE_MAX ((int64_t)256 << 20) /* bytes of a packed A or B block */

/* exact_topk's block of scores without a tuning file (approx/topk_stream.h uses the same for long products). */
#define TUNING_TOPK_ROWS_DEFAULT 256
#define TUNING_TOPK_COLS_DEFAULT 2048

/*
 * NULL when p is a valid configuration of path isa (shape within the row's,
 * kc, mc, nc, prefetch, threshold and block shape within the limits above,
 * mc a multiple of mr and nc of nr, packed blocks within
 * TUNING_WORKSPACE_MAX, each mat4 path the section's own or one it falls
 * back to and this build has), else a short reason ("kc out of range").
 */
const char *tuning_check(smm_isa isa, const tuning_params *p);

/* 1 when a and b hold the same values (field by field: padding is not compared). */
int tuning_params_equal(const tuning_params *a, const tuning_params *b);

/* The fixed-table configuration of path isa (sgemm_targets.c; the rest: fixed defaults). */
void tuning_table_params(smm_isa isa, tuning_params *p);

/* The path whose kernel row serves isa (isa itself, or the row SMM_KERNELS_FOR falls back to). */
smm_isa tuning_row_path(smm_isa isa);

/*
 * The default configuration of path isa with shape `shape` of its row into
 * *p: the model's (SMM_CONFIG_MODEL) when the cache geometry is known, else
 * the fixed table's, mc and nc rounded to the shape (SMM_CONFIG_TABLE).
 */
smm_config_source tuning_default_params(smm_isa isa, int shape, tuning_params *p);

/* The active configuration: every path's parameters and where they came from. */
typedef struct {
    tuning_params params[SMM_ISA_COUNT];
    smm_config_source source[SMM_ISA_COUNT];
    char file[SMM_CONFIG_PATH]; /* the file read or looked for; "" when disabled */
    char note[SMM_CONFIG_NOTE]; /* what happened to it */
} tuning_state;

/*
 * The active state, loaded on first use (never NULL). Stays valid until
 * tuning_install or smm_tuning_reload, which the public header forbids
 * while another call runs.
 */
const tuning_state *tuning_active(void);

/* Make *state the active configuration (the tuner, tests). Same rule as smm_tuning_reload. */
void tuning_install(const tuning_state *state);

/*
 * Build a state as the first use would: model or table for every path,
 * then the file named by SKETCHMM_TUNING or the default location (file:
 * NULL), or the file at `file` ("none": no file).
 */
void tuning_load(tuning_state *state, const char *file);

/*
 * The target of a call on path isa with `threads` threads: the path's row
 * and the active parameters of its team (one thread or several).
 */
void sgemm_target_for(smm_isa isa, int threads, sgemm_target *t);

/* The same from explicit parameters (the tuner's candidates). p must pass tuning_check for the row's path. */
void sgemm_target_from(smm_isa isa, const tuning_params *p, int threads, sgemm_target *t);

#endif /* EXACT_TUNING_H */
