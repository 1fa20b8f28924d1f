/*
 * cli_args.h - command-line helpers shared by the experiment programs, the
 * sweep driver (sweep_cli.c) and the benchmark (bench/bench_cli.c): whole-
 * string numbers, comma-separated lists, "--name value" / "--name=value"
 * options and the usage-error message. Each program keeps its own messages
 * and exit statuses; these helpers only say whether a text parsed.
 */
#ifndef SKETCHMM_CLI_ARGS_H
#define SKETCHMM_CLI_ARGS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* A decimal integer in [lo, hi], the whole text (strtoll: leading blanks and a sign allowed); 1 on success. */
int cli_parse_i64(const char *text, int64_t lo, int64_t hi, int64_t *out);

/* cli_parse_i64 into an int. */
int cli_parse_int(const char *text, int lo, int hi, int *out);

/* A non-negative integer, decimal or 0x-prefixed hex (strtoull base 0), the whole text; 1 on success. */
int cli_parse_u64(const char *text, uint64_t *out);

/* A number in [lo, hi] (strtod: NaN is refused), the whole text; 1 on success. */
int cli_parse_f64(const char *text, double lo, double hi, double *out);

/* One item of a list: its text and position (0, 1, ...); 0 rejects it. */
typedef int (*cli_list_item_fn)(const char *item, int index, void *ctx);

/*
 * Split a comma-separated list and give each item to item(). Returns the
 * number of items, 0 when the list is empty, an item is empty, an item is
 * rejected, or there are more than max_items items (then, when why is not
 * NULL, why[why_size] says "N items, and this list holds at most M").
 */
int cli_split_list(const char *text, int max_items, cli_list_item_fn item, void *ctx, char *why, size_t why_size);

/* One option argument "--name" or "--name=value". */
typedef struct {
    const char *name;   /* after "--", up to '=' or the end (not terminated at '=') */
    size_t name_length;
    const char *value;  /* after '='; NULL when the argument has no '=' */
} cli_option;

/* Split arg into *opt; 0 (and *opt untouched) when arg does not start with "--". */
int cli_option_split(const char *arg, cli_option *opt);

/* Copy opt's name into buf[size], terminated; 0 when it does not fit. */
int cli_option_name(const cli_option *opt, char *buf, size_t size);

/*
 * Give opt a value when it has none: the next argument, argv[*index + 1]
 * (advancing *index). 0 when there is no next argument.
 */
int cli_option_take_value(int argc, char **argv, int *index, cli_option *opt);

/*
 * 1 when a and b are the same path or name the same existing file (stat follows symbolic links, and
 * two hard links share an inode, so both are caught): a program refuses an output that is one of its
 * inputs before it truncates anything.
 */
int cli_same_file(const char *a, const char *b);

/*
 * Print "<prog>: <message>" and "Try '<prog> --help'." on stderr; returns
 * status (the program's exit status for a bad command line).
 */
int cli_usage_error(int status, const char *prog, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* cli_usage_error with a va_list. */
int cli_vusage_error(int status, const char *prog, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 0)))
#endif
    ;

#endif /* SKETCHMM_CLI_ARGS_H */
