/*
 * bench_cli.h - the skeleton every mode of sketchmm_bench runs on: a mode
 * is a descriptor (bench_mode) with a table of option specs (bench_option),
 * and bench_mode_main is the one driver that parses the options into the
 * mode's configuration, prints its --help and usage errors, opens the CSV
 * file and writes its column line, prints the run's setup (bench_report.h),
 * runs the mode and closes the run.
 *
 * Every option of every mode takes a value, given as "--name value" or
 * "--name=value"; --help takes none. Numbers and lists are parsed by the
 * helpers the sweep driver uses too (cli_args.h).
 */
#ifndef SKETCHMM_BENCH_CLI_H
#define SKETCHMM_BENCH_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BENCH_EXIT_FAILED 1 /* a run failed (verification mismatch, I/O error) */
#define BENCH_EXIT_USAGE 2  /* bad command line */

#define BENCH_MAX_LIST 64 /* longest list an option accepts */

/* A macro's value as a string literal, for help texts: "(default " BENCH_STR(DEFAULT_REPS) ")". */
#define BENCH_STR(x) BENCH_STR_(x)
#define BENCH_STR_(x) #x

/* The destinations of the option kinds (see bench_option_kind). */
typedef struct {
    int64_t v[BENCH_MAX_LIST];
    int count;
} bench_int_list;

typedef struct {
    int v[BENCH_MAX_LIST]; /* indices into the option's choices */
    int count;
} bench_choice_list;

/* A product shape m x n x k. */
typedef struct {
    int64_t m, n, k;
} bench_shape;

typedef struct {
    bench_shape v[BENCH_MAX_LIST];
    int count;
} bench_shape_list;

typedef enum {
    BENCH_INT,         /* int64_t: an integer in [lo, hi], a multiple of `multiple` when that is > 1 */
    BENCH_INT_LIST,    /* bench_int_list: comma-separated integers, each as for BENCH_INT */
    BENCH_CHOICE,      /* int: the index of one word of `choices` */
    BENCH_CHOICE_LIST, /* bench_choice_list: comma-separated words of `choices` */
    BENCH_SHAPES,      /* bench_shape_list: comma-separated MxNxK, every dimension in [lo, hi] */
    BENCH_STRING       /* const char *: the value as given (argv's storage), NULL when not given; the
                        * mode checks it (after_option, check) and states its default in the help text */
} bench_option_kind;

typedef enum {
    BENCH_DEFAULT_VALUE = 0,     /* `def` (BENCH_INT, BENCH_CHOICE) or `defaults` (lists; none: empty) */
    BENCH_DEFAULT_THREAD_COUNTS, /* BENCH_INT_LIST: 1, and the OpenMP maximum when that is larger */
    BENCH_DEFAULT_MAX_THREADS    /* BENCH_INT: the OpenMP maximum */
} bench_default_kind;

/*
 * One option of a mode. A repeated option takes its last value. Errors read
 * "--NAME wants WANTS in [LO, HI], got 'VALUE'" (without the range for the
 * choice kinds and when range_in_wants is set; WANTS of the choice kinds
 * defaults to their words: "a or b", "a, b and/or c"), and for a list value
 * that is no multiple of `multiple`: "--NAME wants WANTS, got VALUE".
 */
typedef struct {
    const char *name;           /* without "--"; NULL ends a mode's table */
    const char *arg;            /* what the value is called in --help: "N", "LIST" */
    bench_option_kind kind;
    size_t offset;              /* the destination: offsetof(the mode's configuration, its field) */
    int64_t lo, hi;             /* range of every number (BENCH_SHAPES: of every dimension) */
    int64_t multiple;           /* BENCH_INT, BENCH_INT_LIST: every value a multiple of this when > 1 */
    const char *const *choices; /* BENCH_CHOICE, BENCH_CHOICE_LIST: the words, NULL-terminated */
    bench_default_kind default_kind;
    int64_t def;                /* BENCH_INT: the default; BENCH_CHOICE: its index (-1: none given) */
    const int64_t *defaults;    /* BENCH_INT_LIST: the default values; BENCH_CHOICE_LIST: their indices */
    int ndefaults;
    const char *wants;          /* what the error message says the option wants (see above) */
    int range_in_wants;         /* 1: `wants` states the range itself, or there is none to state */
    /*
     * The --help text, lines separated by '\n'; each "{default}" is replaced
     * by the default (lists comma-separated, choices by their words). NULL:
     * the option is described together with the next one (its label joins
     * the next one's, and the next "{default}" of that text is its default).
     */
    const char *help;
} bench_option;

/* `.defaults` and `.ndefaults` of a bench_option from a list of values. */
#define BENCH_DEFAULTS(...)                                                                                      \
    .defaults = (const int64_t[]){ __VA_ARGS__ },                                                                \
    .ndefaults = (int)(sizeof((const int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t))

/*
 * Options several modes share (each expands where SMM_MAX_THREADS, from
 * sketchmm.h, is known): --threads LIST with the usual default, --reps N,
 * --isa LIST over bench_isa_choices (bench_report.h).
 */
#define BENCH_OPTION_THREAD_COUNTS(type, field)                                                                  \
    {                                                                                                            \
        .name = "threads", .arg = "LIST", .kind = BENCH_INT_LIST, .offset = offsetof(type, field), .lo = 1,      \
        .hi = SMM_MAX_THREADS, .default_kind = BENCH_DEFAULT_THREAD_COUNTS, .wants = "thread counts",            \
        .help = "thread counts (default: 1 and the OpenMP maximum)"                                             \
    }
#define BENCH_OPTION_REPS(type, field, most, default_reps, text)                                                 \
    {                                                                                                            \
        .name = "reps", .arg = "N", .kind = BENCH_INT, .offset = offsetof(type, field), .lo = 1, .hi = (most),   \
        .def = (default_reps), .wants = "a count", .help = (text)                                               \
    }
#define BENCH_OPTION_ISAS(type, field, text)                                                                     \
    {                                                                                                            \
        .name = "isa", .arg = "LIST", .kind = BENCH_CHOICE_LIST, .offset = offsetof(type, field),                \
        .choices = bench_isa_choices, BENCH_DEFAULTS(0), .wants = "a list of auto, scalar, avx2, avx512, neon",  \
        .help = (text)                                                                                           \
    }

/* A mode of sketchmm_bench. */
typedef struct {
    const char *name;            /* sketchmm_bench NAME */
    const char *summary;         /* its line in the list of modes */
    const bench_option *options; /* ended by an entry with name NULL */
    size_t config_size;          /* the configuration the options fill (zeroed, then the defaults) */
    void (*describe)(FILE *out); /* --help: what the mode measures and how (after the synopsis) */
    const char *notes;           /* --help: lines after the options (NULL: none) */
    /*
     * The CSV file's column line (ending in '\n'): the driver adds the option
     * --csv FILE ("also write one CSV row per <csv_rows>"), opens the file and
     * writes this line first. NULL: the mode writes no CSV.
     */
    const char *csv_header;
    const char *csv_rows;
    /* Called after each option is parsed (NULL: none); 0, or a usage error (bench_usage_error). */
    int (*after_option)(void *config, const bench_option *option);
    /* Checks across options and derived settings after parsing (NULL: none); 0 or a usage error. */
    int (*check)(void *config);
    /*
     * The measurements, after the setup lines (bench_print_setup); csv is the
     * open CSV file (its column line written) or NULL. Returns 0 or
     * BENCH_EXIT_FAILED; the driver prints the closing lines
     * (bench_print_run_end) and closes csv.
     */
    int (*run)(void *config, FILE *csv);
} bench_mode;

/*
 * Run mode with the arguments that follow its name. Returns the process
 * exit status: 0, BENCH_EXIT_FAILED or BENCH_EXIT_USAGE (after printing why).
 */
int bench_mode_main(const bench_mode *mode, int argc, char **argv);

/* Print mode's --help: synopsis, description, one entry per option, notes. */
void bench_mode_help(const bench_mode *mode, FILE *out);

/*
 * Print "sketchmm_bench <mode>: <message>" and a hint on stderr, for the
 * mode bench_mode_main runs; returns BENCH_EXIT_USAGE.
 */
int bench_usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Print "sketchmm_bench <mode>: <message>" and a newline on stderr (a failure during the run). */
void bench_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#endif /* SKETCHMM_BENCH_CLI_H */
