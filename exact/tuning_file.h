/*
 * tuning_file.h - the tuning file: its text format, the signature that ties
 * it to one CPU and library, reading and writing.
 *
 * The file is plain text, one item per line, words separated by single
 * spaces ('#' starts a comment line; blank lines are allowed):
 *
 *     sketchmm-tuning 1
 *     library 0.3.0
 *     cpu AuthenticAMD 25 17 1
 *     features avx2 avx512 vpopcntdq vbmi vnni bf16
 *     caches 32768 8 64 1048576 8 64 33554432 16 64
 *     path avx512
 *     kernel avx512_12x32
 *     kc 192
 *     mc 480 480                (one thread, several threads)
 *     nc 4096 4096
 *     split auto rows           (auto | rows | columns)
 *     prefetch 16 16            (k steps)
 *     sup_max_macs 4096000
 *     topk_block 256 2048       (rows, columns)
 *     mat4 avx512 avx2 avx512 avx512   (mul_f32 mul_f64 inv_f32 inv_f64)
 *     measured ...              (optional free text: what the tuner saw)
 *     checksum 0123456789abcdef
 *
 * The four lines after the first are the signature (tuning_signature):
 * library version, CPU vendor / family / model / stepping, the instruction
 * set features the library uses, and the size, ways and line of L1d, L2
 * and L3. Then one section per ISA path ("path NAME" and every key but
 * `measured` exactly once), and last the checksum: XXH3-64 of every byte
 * before the checksum line, in 16 lowercase hex digits, followed by one
 * newline and nothing else.
 *
 * Parsing refuses, as a whole, a file that is longer than
 * TUNING_FILE_MAX_BYTES, holds a NUL, CR or other control character, a
 * line over TUNING_FILE_MAX_LINE bytes, an unknown key, a key twice, a
 * missing key, a number that is not plain decimal or out of range
 * (tuning_check), a kernel or path this build lacks, a section twice, or a
 * wrong checksum: damaged, hostile or hand-edited files are never trusted
 * in part.
 */
#ifndef EXACT_TUNING_FILE_H
#define EXACT_TUNING_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "exact/tuning.h"

#define TUNING_FILE_MAX_BYTES 65536
#define TUNING_FILE_MAX_LINE 512
#define TUNING_SIGNATURE_MAX 1024
#define TUNING_MEASURED_MAX 256

/* What a tuning file holds. */
typedef struct {
    char signature[TUNING_SIGNATURE_MAX];          /* the four signature lines, each ending in '\n' */
    int has[SMM_ISA_COUNT];                        /* 1 when the file has a section for the path */
    tuning_params params[SMM_ISA_COUNT];
    char measured[SMM_ISA_COUNT][TUNING_MEASURED_MAX]; /* "" when absent */
} tuning_file;

/* This process's signature lines (see above) into buf; 0 when they do not fit. */
int tuning_signature(char *buf, size_t size);

/*
 * The default location of this CPU's file into buf: $XDG_CACHE_HOME (when
 * set to an absolute path) or $HOME/.cache, then
 * "/sketchmm/tuning-HASH.txt", HASH the XXH3-64 of the signature in 16 hex
 * digits. 0 when neither variable is usable or the path does not fit.
 */
int tuning_file_default_path(char *buf, size_t size);

/*
 * Parse len bytes of text into *f. Returns 1, or 0 with a reason in why
 * ("line 7: kc out of range"; why_size bytes, NUL-terminated). Does not
 * compare the signature with this process's.
 */
int tuning_file_parse(const char *text, size_t len, tuning_file *f, char *why, size_t why_size);

/* The text of *f (its sections must pass tuning_check) with its checksum into buf; its length, or -1 when it does not fit. */
int64_t tuning_file_format(const tuning_file *f, char *buf, size_t size);

/*
 * Read and parse the file at path. Returns 1, 0 when there is no file (why:
 * "no file"), or -1 when it cannot be read or does not parse (why says
 * what).
 */
int tuning_file_read(const char *path, tuning_file *f, char *why, size_t why_size);

/*
 * Write *f to path: the directory is created if missing (one level, and
 * its parent), the text goes to a temporary file beside it which is then
 * renamed over path, so a reader sees the old file or the new one, never a
 * part. Returns 1, or 0 (errno set) when something failed.
 */
int tuning_file_write(const char *path, const tuning_file *f);

#endif /* EXACT_TUNING_FILE_H */
