/*
 * bench_cli.h - command-line helpers shared by the modes of sketchmm_bench:
 * option splitting, number and list parsing, usage errors.
 *
 * Every option of every mode takes a value, given as "--name value" or
 * "--name=value"; --help takes none.
 */
#ifndef SKETCHMM_BENCH_CLI_H
#define SKETCHMM_BENCH_CLI_H

#include <stdint.h>

#define BENCH_EXIT_FAILED 1 /* a run failed (verification mismatch, I/O error) */
#define BENCH_EXIT_USAGE 2  /* bad command line */

#define BENCH_MAX_LIST 64 /* longest list a flag accepts */
#define BENCH_MAX_OPTION_NAME 64

/* Print "sketchmm_bench <mode>: <message>" and a hint on stderr; returns BENCH_EXIT_USAGE. */
int bench_usage_error(const char *mode, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/*
 * Split argv[*index] into an option name (without the leading "--", copied
 * to name[BENCH_MAX_OPTION_NAME]) and its value, taking the value from the
 * next argument (and advancing *index) when there is no '='. `known` lists
 * the mode's option names (NULL-terminated; "help" is always known). *value
 * is NULL for --help. Returns 0, or prints a usage error and returns
 * BENCH_EXIT_USAGE (not an option, unknown option, missing value).
 */
int bench_next_option(const char *mode, const char *const *known, int argc, char **argv, int *index, char *name,
                      const char **value);

/* Whole-string integer in [lo, hi]; 1 on success. */
int bench_parse_int(const char *text, int64_t lo, int64_t hi, int64_t *out);

/* Comma-separated integers in [lo, hi], at most BENCH_MAX_LIST; 1 on success. */
int bench_parse_int_list(const char *text, int64_t lo, int64_t hi, int64_t *out, int *count);

/* Comma-separated words, each one of choices[0..nchoices); out receives their indices; 1 on success. */
int bench_parse_choice_list(const char *text, const char *const *choices, int nchoices, int *out, int *count);

/* A product shape m x n x k. */
typedef struct {
    int64_t m, n, k;
} bench_shape;

/* Comma-separated shapes "MxNxK" with every dimension in [1, hi]; 1 on success. */
int bench_parse_shapes(const char *text, int64_t hi, bench_shape *out, int *count);

/* Default thread list: 1 and the OpenMP maximum when that is larger. */
void bench_default_threads(int64_t *threads, int *count);

#endif /* SKETCHMM_BENCH_CLI_H */
