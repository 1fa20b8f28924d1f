/*
 * bench_cli.c - option splitting and list parsing for sketchmm_bench (see
 * bench_cli.h).
 */
#include "bench_cli.h"

#include <errno.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bench_usage_error(const char *mode, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "sketchmm_bench %s: ", mode);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry 'sketchmm_bench %s --help'.\n", mode);
    va_end(ap);
    return BENCH_EXIT_USAGE;
}

int bench_next_option(const char *mode, const char *const *known, int argc, char **argv, int *index, char *name,
                      const char **value)
{
    const char *arg = argv[*index];
    if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
        return bench_usage_error(mode, "unexpected argument '%s'", arg);
    const char *body = arg + 2;
    const char *equals = strchr(body, '=');
    size_t length = equals != NULL ? (size_t)(equals - body) : strlen(body);
    if (length == 0 || length >= BENCH_MAX_OPTION_NAME)
        return bench_usage_error(mode, "unknown option '%s'", arg);
    memcpy(name, body, length);
    name[length] = '\0';
    int is_known = strcmp(name, "help") == 0;
    for (int i = 0; known[i] != NULL && !is_known; i++)
        is_known = strcmp(name, known[i]) == 0;
    if (!is_known)
        return bench_usage_error(mode, "unknown option '%s'", arg);
    if (strcmp(name, "help") == 0) {
        if (equals != NULL)
            return bench_usage_error(mode, "--help takes no value");
        *value = NULL;
        return 0;
    }
    if (equals != NULL) {
        *value = equals + 1;
    } else {
        if (*index + 1 >= argc)
            return bench_usage_error(mode, "option '--%s' needs a value", name);
        *index += 1;
        *value = argv[*index];
    }
    return 0;
}

int bench_parse_int(const char *text, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = (int64_t)v;
    return 1;
}

/*
 * Call item(token, state, position) for each comma-separated token of text
 * (no empty tokens, at most BENCH_MAX_LIST); 1 when all succeed.
 */
static int for_each_token(const char *text, int (*item)(const char *, void *, int), void *state, int *count)
{
    char buffer[4096];
    if (strlen(text) >= sizeof buffer)
        return 0;
    strcpy(buffer, text);
    int n = 0;
    char *start = buffer;
    for (;;) {
        char *comma = strchr(start, ',');
        if (comma != NULL)
            *comma = '\0';
        if (*start == '\0' || n >= BENCH_MAX_LIST || !item(start, state, n))
            return 0;
        n++;
        if (comma == NULL)
            break;
        start = comma + 1;
    }
    *count = n;
    return 1;
}

typedef struct {
    int64_t lo, hi;
    int64_t *out;
} int_list_state;

static int int_item(const char *token, void *state, int position)
{
    int_list_state *s = state;
    return bench_parse_int(token, s->lo, s->hi, &s->out[position]);
}

int bench_parse_int_list(const char *text, int64_t lo, int64_t hi, int64_t *out, int *count)
{
    int_list_state s = { lo, hi, out };
    return for_each_token(text, int_item, &s, count);
}

typedef struct {
    const char *const *choices;
    int nchoices;
    int *out;
} choice_list_state;

static int choice_item(const char *token, void *state, int position)
{
    choice_list_state *s = state;
    for (int c = 0; c < s->nchoices; c++)
        if (strcmp(token, s->choices[c]) == 0) {
            s->out[position] = c;
            return 1;
        }
    return 0;
}

int bench_parse_choice_list(const char *text, const char *const *choices, int nchoices, int *out, int *count)
{
    choice_list_state s = { choices, nchoices, out };
    return for_each_token(text, choice_item, &s, count);
}

typedef struct {
    int64_t hi;
    bench_shape *out;
} shape_list_state;

static int shape_item(const char *token, void *state, int position)
{
    shape_list_state *s = state;
    int64_t dims[3];
    const char *p = token;
    for (int d = 0; d < 3; d++) {
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (errno != 0 || end == p || v < 1 || v > s->hi)
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
    s->out[position] = (bench_shape){ dims[0], dims[1], dims[2] };
    return 1;
}

int bench_parse_shapes(const char *text, int64_t hi, bench_shape *out, int *count)
{
    shape_list_state s = { hi, out };
    return for_each_token(text, shape_item, &s, count);
}

void bench_default_threads(int64_t *threads, int *count)
{
    int most = omp_get_max_threads();
    threads[0] = 1;
    *count = 1;
    if (most > 1)
        threads[(*count)++] = most;
}
