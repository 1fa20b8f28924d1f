/*
 * cli_args.c - numbers, lists, options and usage errors of the experiment
 * programs' command lines (see cli_args.h).
 */
#include "cli_args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int cli_parse_i64(const char *text, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = (int64_t)v;
    return 1;
}

int cli_parse_int(const char *text, int lo, int hi, int *out)
{
    int64_t v;
    if (!cli_parse_i64(text, lo, hi, &v))
        return 0;
    *out = (int)v;
    return 1;
}

int cli_parse_u64(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    if (text[0] == '-' || text[0] == '\0')
        return 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno != 0 || *end != '\0')
        return 0;
    *out = (uint64_t)v;
    return 1;
}

int cli_parse_f64(const char *text, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !(v >= lo && v <= hi))
        return 0;
    *out = v;
    return 1;
}

int cli_split_list(const char *text, int max_items, cli_list_item_fn item, void *ctx, char *why, size_t why_size)
{
    if (text[0] == '\0' || text[strlen(text) - 1] == ',')
        return 0;
    int items = 1;
    for (const char *c = text; *c != '\0'; c++)
        items += *c == ',';
    if (items > max_items) {
        if (why != NULL)
            snprintf(why, why_size, "%d items, and this list holds at most %d", items, max_items);
        return 0;
    }
    char *buf = strdup(text);
    if (buf == NULL)
        return 0;
    int count = 0;
    char *p = buf;
    for (;;) {
        char *comma = strchr(p, ',');
        if (comma != NULL)
            *comma = '\0';
        if (*p == '\0' || !item(p, count, ctx))
            break;
        count++;
        if (comma == NULL) {
            free(buf);
            return count;
        }
        p = comma + 1;
    }
    free(buf);
    return 0;
}

int cli_option_split(const char *arg, cli_option *opt)
{
    if (strncmp(arg, "--", 2) != 0)
        return 0;
    opt->name = arg + 2;
    const char *equals = strchr(opt->name, '=');
    opt->name_length = equals != NULL ? (size_t)(equals - opt->name) : strlen(opt->name);
    opt->value = equals != NULL ? equals + 1 : NULL;
    return 1;
}

int cli_option_name(const cli_option *opt, char *buf, size_t size)
{
    if (opt->name_length >= size)
        return 0;
    memcpy(buf, opt->name, opt->name_length);
    buf[opt->name_length] = '\0';
    return 1;
}

int cli_option_take_value(int argc, char **argv, int *index, cli_option *opt)
{
    if (opt->value != NULL)
        return 1;
    if (*index + 1 >= argc)
        return 0;
    *index += 1;
    opt->value = argv[*index];
    return 1;
}

int cli_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (strcmp(a, b) == 0)
        return 1;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cli_vusage_error(int status, const char *prog, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry '%s --help'.\n", prog);
    return status;
}

int cli_usage_error(int status, const char *prog, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_vusage_error(status, prog, fmt, ap);
    va_end(ap);
    return status;
}
