/*
 * bench_cli.c - the driver of the modes of sketchmm_bench: options, --help,
 * usage errors and the run's frame (see bench_cli.h).
 */
#include "bench_cli.h"

#include <errno.h>
#include <omp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench_contention.h"
#include "bench_report.h"
#include "cli_args.h"

#define MAX_OPTION_NAME 64  /* longer option names are unknown */
#define MAX_LIST_TEXT 4096  /* longer list values are refused */
#define SYNOPSIS_WIDTH 100  /* the synopsis wraps before it would pass this column */
/*
 * Where the option texts start: at least two spaces after the longest label,
 * at an odd width (the columns of the help texts the modes had written by hand).
 */
#define HELP_TEXT_COLUMN(longest_label) (((longest_label) + 2) | 1)

/* The mode bench_mode_main runs (for the messages). */
static const bench_mode *current_mode;

static const char *mode_name(void)
{
    return current_mode != NULL ? current_mode->name : "";
}

int bench_usage_error(const char *fmt, ...)
{
    char prog[128];
    snprintf(prog, sizeof prog, "sketchmm_bench %s", mode_name());
    va_list ap;
    va_start(ap, fmt);
    cli_vusage_error(BENCH_EXIT_USAGE, prog, fmt, ap);
    va_end(ap);
    return BENCH_EXIT_USAGE;
}

void bench_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "sketchmm_bench %s: ", mode_name());
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ------------------------------------------------------------------------ */
/* Values                                                                   */
/* ------------------------------------------------------------------------ */

static void *destination(void *config, const bench_option *o)
{
    return (char *)config + o->offset;
}

static int count_choices(const char *const *choices)
{
    int n = 0;
    while (choices[n] != NULL)
        n++;
    return n;
}

static int choice_index(const char *const *choices, const char *word)
{
    for (int c = 0; choices[c] != NULL; c++)
        if (strcmp(word, choices[c]) == 0)
            return c;
    return -1;
}

/* A list of any of the list kinds, and what its items parse into. */
typedef union {
    bench_int_list ints;
    bench_choice_list choices;
    bench_shape_list shapes;
} any_list;

typedef struct {
    const bench_option *option;
    any_list *list;
} list_ctx;

static int int_item(const char *item, int index, void *ctx)
{
    const list_ctx *c = ctx;
    c->list->ints.count = index + 1;
    return cli_parse_i64(item, c->option->lo, c->option->hi, &c->list->ints.v[index]);
}

static int choice_item(const char *item, int index, void *ctx)
{
    const list_ctx *c = ctx;
    c->list->choices.count = index + 1;
    c->list->choices.v[index] = choice_index(c->option->choices, item);
    return c->list->choices.v[index] >= 0;
}

/* "MxNxK" (or "MXNXK"), every dimension in [lo, hi]. */
static int shape_item(const char *item, int index, void *ctx)
{
    const list_ctx *c = ctx;
    int64_t dims[3];
    const char *p = item;
    for (int d = 0; d < 3; d++) {
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (errno != 0 || end == p || v < c->option->lo || v > c->option->hi)
            return 0;
        dims[d] = (int64_t)v;
        if (d < 2) {
            if (*end != 'x' && *end != 'X')
                return 0;
            p = end + 1;
        } else if (*end != '\0') {
            return 0;
        }
    }
    c->list->shapes.count = index + 1;
    c->list->shapes.v[index] = (bench_shape){ dims[0], dims[1], dims[2] };
    return 1;
}

/* Parse a list value of the option's kind into *list; 1 on success. */
static int parse_list(const bench_option *o, const char *value, any_list *list)
{
    if (strlen(value) >= MAX_LIST_TEXT)
        return 0;
    list_ctx ctx = { o, list };
    cli_list_item_fn item = o->kind == BENCH_INT_LIST      ? int_item
                            : o->kind == BENCH_CHOICE_LIST ? choice_item
                                                           : shape_item;
    return cli_split_list(value, BENCH_MAX_LIST, item, &ctx, NULL, 0) > 0;
}

/* What the option wants, for the error messages ("a count", "row and/or col"). */
static void describe_wants(const bench_option *o, char *buf, size_t size)
{
    if (o->wants != NULL) {
        snprintf(buf, size, "%s", o->wants);
        return;
    }
    /* the choice kinds: their words */
    const int n = count_choices(o->choices);
    size_t used = 0;
    buf[0] = '\0';
    for (int c = 0; c < n && used < size; c++) {
        const char *sep = c == 0 ? "" : c < n - 1 ? ", " : o->kind == BENCH_CHOICE_LIST ? " and/or " : " or ";
        used += (size_t)snprintf(buf + used, size - used, "%s%s", sep, o->choices[c]);
    }
}

static int wants_error(const bench_option *o, const char *value)
{
    char wants[256], range[64] = "";
    describe_wants(o, wants, sizeof wants);
    if ((o->kind == BENCH_INT || o->kind == BENCH_INT_LIST || o->kind == BENCH_SHAPES) && !o->range_in_wants)
        snprintf(range, sizeof range, " in [%lld, %lld]", (long long)o->lo, (long long)o->hi);
    return bench_usage_error("--%s wants %s%s, got '%s'", o->name, wants, range, value);
}

/* Parse value into the option's destination; 0, or a usage error. */
static int parse_value(const bench_option *o, const char *value, void *config)
{
    void *dest = destination(config, o);
    switch (o->kind) {
    case BENCH_INT: {
        int64_t v;
        if (!cli_parse_i64(value, o->lo, o->hi, &v) || (o->multiple > 1 && v % o->multiple != 0))
            return wants_error(o, value);
        *(int64_t *)dest = v;
        return 0;
    }
    case BENCH_CHOICE: {
        const int c = choice_index(o->choices, value);
        if (c < 0)
            return wants_error(o, value);
        *(int *)dest = c;
        return 0;
    }
    case BENCH_INT_LIST:
    case BENCH_CHOICE_LIST:
    case BENCH_SHAPES: {
        any_list parsed;
        if (!parse_list(o, value, &parsed))
            return wants_error(o, value);
        if (o->kind == BENCH_INT_LIST) {
            for (int i = 0; i < parsed.ints.count; i++)
                if (o->multiple > 1 && parsed.ints.v[i] % o->multiple != 0)
                    return bench_usage_error("--%s wants %s, got %lld", o->name, o->wants, (long long)parsed.ints.v[i]);
            *(bench_int_list *)dest = parsed.ints;
        } else if (o->kind == BENCH_CHOICE_LIST) {
            *(bench_choice_list *)dest = parsed.choices;
        } else {
            *(bench_shape_list *)dest = parsed.shapes;
        }
        return 0;
    }
    case BENCH_STRING:
        *(const char **)dest = value;
        return 0;
    }
    return wants_error(o, value);
}

/* 1, and the OpenMP maximum when that is larger. */
static void default_thread_counts(bench_int_list *list)
{
    const int most = omp_get_max_threads();
    list->v[0] = 1;
    list->count = 1;
    if (most > 1)
        list->v[list->count++] = most;
}

static void set_default(const bench_option *o, void *config)
{
    void *dest = destination(config, o);
    switch (o->kind) {
    case BENCH_INT:
        *(int64_t *)dest = o->default_kind == BENCH_DEFAULT_MAX_THREADS ? omp_get_max_threads() : o->def;
        break;
    case BENCH_INT_LIST: {
        bench_int_list *list = dest;
        if (o->default_kind == BENCH_DEFAULT_THREAD_COUNTS) {
            default_thread_counts(list);
            break;
        }
        list->count = o->ndefaults;
        for (int i = 0; i < o->ndefaults; i++)
            list->v[i] = o->defaults[i];
        break;
    }
    case BENCH_CHOICE:
        *(int *)dest = (int)o->def;
        break;
    case BENCH_CHOICE_LIST: {
        bench_choice_list *list = dest;
        list->count = o->ndefaults;
        for (int i = 0; i < o->ndefaults; i++)
            list->v[i] = (int)o->defaults[i];
        break;
    }
    case BENCH_SHAPES:
        ((bench_shape_list *)dest)->count = 0;
        break;
    case BENCH_STRING:
        *(const char **)dest = NULL;
        break;
    }
}

/* ------------------------------------------------------------------------ */
/* --help                                                                   */
/* ------------------------------------------------------------------------ */

/* The --csv option the driver adds to a mode that writes CSV. */
static const bench_option csv_option = { .name = "csv", .arg = "FILE" };

/* Options of the mode in --help order: its table, then --csv; NULL past the end. */
static const bench_option *option_at(const bench_mode *mode, int i)
{
    int n = 0;
    while (mode->options[n].name != NULL)
        n++;
    if (i < n)
        return &mode->options[i];
    return i == n && mode->csv_header != NULL ? &csv_option : NULL;
}

static void format_default(const bench_option *o, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    switch (o->kind) {
    case BENCH_INT:
        snprintf(buf, size, "%lld", (long long)o->def);
        break;
    case BENCH_CHOICE:
        if (o->def >= 0)
            snprintf(buf, size, "%s", o->choices[o->def]);
        break;
    case BENCH_INT_LIST:
    case BENCH_CHOICE_LIST:
        for (int i = 0; i < o->ndefaults && used < size; i++) {
            if (o->kind == BENCH_INT_LIST)
                used += (size_t)snprintf(buf + used, size - used, "%s%lld", i ? "," : "", (long long)o->defaults[i]);
            else
                used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? "," : "", o->choices[o->defaults[i]]);
        }
        break;
    case BENCH_SHAPES:
    case BENCH_STRING:
        break;
    }
}

/* "--name ARG" */
static int label_length(const bench_option *o)
{
    return 2 + (int)strlen(o->name) + (o->arg != NULL ? 1 + (int)strlen(o->arg) : 0);
}

/*
 * Print one help entry: the labels of options group[0..count) joined by
 * ", ", padded to column, then text (lines indented to the column), each
 * "{default}" replaced by the next member's default.
 */
static void print_entry(FILE *out, const bench_option *const *group, int count, const char *text, int column)
{
    int width = 0;
    fprintf(out, "  ");
    for (int g = 0; g < count; g++) {
        width += fprintf(out, "%s--%s", g ? ", " : "", group[g]->name);
        if (group[g]->arg != NULL)
            width += fprintf(out, " %s", group[g]->arg);
    }
    fprintf(out, "%*s", column - width, "");
    int next_default = 0;
    for (const char *p = text; *p != '\0'; p++) {
        if (strncmp(p, "{default}", 9) == 0 && next_default < count) {
            char value[512];
            format_default(group[next_default++], value, sizeof value);
            fputs(value, out);
            p += 8;
        } else if (*p == '\n') {
            fprintf(out, "\n  %*s", column, "");
        } else {
            fputc(*p, out);
        }
    }
    fputc('\n', out);
}

void bench_mode_help(const bench_mode *mode, FILE *out)
{
    /* synopsis: every option, wrapped under the first */
    const int indent = fprintf(out, "sketchmm_bench %s", mode->name);
    int column = indent;
    for (int i = 0; option_at(mode, i) != NULL; i++) {
        const bench_option *o = option_at(mode, i);
        const int length = label_length(o) + 2;
        if (i > 0 && column + 1 + length > SYNOPSIS_WIDTH)
            column = fprintf(out, "\n%*s", indent, "") - 1;
        column += fprintf(out, " [--%s%s%s]", o->name, o->arg != NULL ? " " : "", o->arg != NULL ? o->arg : "");
    }
    fprintf(out, "\n");
    mode->describe(out);

    /* the option entries, their texts in one column */
    int label_column = 0, group_width = 0;
    for (int i = 0; option_at(mode, i) != NULL; i++) {
        const bench_option *o = option_at(mode, i);
        group_width += (group_width > 0 ? 2 : 0) + label_length(o);
        if (o == &csv_option || o->help != NULL) {
            label_column = group_width > label_column ? group_width : label_column;
            group_width = 0;
        }
    }
    label_column = HELP_TEXT_COLUMN(label_column);
    const bench_option *group[BENCH_MAX_LIST];
    int count = 0;
    for (int i = 0; option_at(mode, i) != NULL; i++) {
        const bench_option *o = option_at(mode, i);
        if (count < BENCH_MAX_LIST)
            group[count++] = o;
        if (o == &csv_option) {
            char text[512];
            snprintf(text, sizeof text, "also write one CSV row per %s", mode->csv_rows);
            print_entry(out, group, count, text, label_column);
            count = 0;
        } else if (o->help != NULL) {
            print_entry(out, group, count, o->help, label_column);
            count = 0;
        }
    }
    if (mode->notes != NULL)
        print_entry(out, NULL, 0, mode->notes, 0);
}

/* ------------------------------------------------------------------------ */
/* The driver                                                               */
/* ------------------------------------------------------------------------ */

static const bench_option *find_option(const bench_mode *mode, const char *name)
{
    for (int i = 0; option_at(mode, i) != NULL; i++)
        if (strcmp(option_at(mode, i)->name, name) == 0)
            return option_at(mode, i);
    return NULL;
}

/*
 * Parse argv into config (defaults first). Returns 0 to run, -1 after
 * printing --help, or a usage error.
 */
static int parse_options(const bench_mode *mode, int argc, char **argv, void *config, const char **csv_path)
{
    for (int i = 0; mode->options[i].name != NULL; i++)
        set_default(&mode->options[i], config);
    *csv_path = NULL;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        cli_option opt;
        char name[MAX_OPTION_NAME];
        if (!cli_option_split(arg, &opt) || arg[2] == '\0')
            return bench_usage_error("unexpected argument '%s'", arg);
        if (opt.name_length == 0 || !cli_option_name(&opt, name, sizeof name))
            return bench_usage_error("unknown option '%s'", arg);
        const bench_option *o = find_option(mode, name);
        if (o == NULL && strcmp(name, "help") != 0)
            return bench_usage_error("unknown option '%s'", arg);
        if (o == NULL) {
            if (opt.value != NULL)
                return bench_usage_error("--help takes no value");
            bench_mode_help(mode, stdout);
            return -1;
        }
        if (!cli_option_take_value(argc, argv, &i, &opt))
            return bench_usage_error("option '--%s' needs a value", name);
        if (o == &csv_option) {
            *csv_path = opt.value;
            continue;
        }
        int bad = parse_value(o, opt.value, config);
        if (bad == 0 && mode->after_option != NULL)
            bad = mode->after_option(config, o);
        if (bad != 0)
            return bad;
    }
    return mode->check != NULL ? mode->check(config) : 0;
}

int bench_mode_main(const bench_mode *mode, int argc, char **argv)
{
    current_mode = mode;
    void *config = calloc(1, mode->config_size);
    if (config == NULL) {
        bench_error("out of memory");
        return BENCH_EXIT_FAILED;
    }
    const char *csv_path;
    int status = parse_options(mode, argc, argv, config, &csv_path);
    if (status != 0) {
        free(config);
        return status < 0 ? 0 : status;
    }
    FILE *csv = NULL;
    if (bench_begin(mode->name, csv_path, &csv) != 0) {
        free(config);
        return BENCH_EXIT_FAILED;
    }
    if (csv != NULL)
        fputs(mode->csv_header, csv);
    const bench_contention_mark run_start = bench_contention_now();
    status = mode->run(config, csv);
    bench_print_run_end(stdout, run_start);
    if (bench_csv_close(csv, mode->name, csv_path) != 0 && status == 0)
        status = BENCH_EXIT_FAILED;
    free(config);
    return status;
}
