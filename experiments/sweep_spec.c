/*
 * sweep_spec.c - the spec file of a sweep (JSON, read with json-c) and the
 * canonical spec echoed into the results file. See sweep.h.
 *
 * A spec key stands for the flag of the same name with '_' for '-' (the
 * table of sweep_options.c); its value is turned into the flag's text and
 * checked by the flag's parser, so a spec and the flags accept exactly the
 * same values.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "sweep_spec.h"

#include "sweep_options.h"

/* Largest spec file read. */
#define SPEC_MAX_BYTES (1 << 20)

static const char *const type_names[] = { "", "an integer", "a number", "a string", "a list of integers",
                                          "a list of strings", "an object of method: list of integers" };

void sweep_spec_help(FILE *f)
{
    fprintf(f,
        "Spec file (--spec FILE.json): one JSON object whose keys are the flags of\n"
        "the grid and of the measurement, with '_' for '-'; flags given on the\n"
        "command line override it. Keys and types:\n");
    sweep_spec_keys_help(f);
    fprintf(f,
        "Lists must not be empty or give a value twice (its configurations would\n"
        "run twice). datasets takes the names of --datasets, files included\n"
        "(\"ann:FILE.h5\", \"FILE.h5:/PATH\"; a file path is relative to the working\n"
        "directory); sizes and topk_sizes take {\"method\": [sizes], ...}. Example\n"
        "(experiments/specs/default.json is the default sweep):\n"
        "    {\"mode\": \"dense\", \"datasets\": [\"gaussian\", \"clustered\"], \"k\": 64,\n"
        "     \"shapes\": [\"256x256\", \"1024x256\"], \"methods\": [\"simhash\", \"srht\"],\n"
        "     \"bits\": [64, 256], \"sketch_dims\": [16, 64], \"seeds\": [1, 2],\n"
        "     \"threads\": [1, 2]}\n"
        "An unknown key, a key given twice in one object, a value of the wrong type\n"
        "or out of range, an empty list, a list of more than %d items or an\n"
        "unreadable file is an error (exit status 2) naming the file and key.\n"
        "The effective spec (defaults, file and flags together) is stored in the\n"
        "results file as canonical JSON (attribute spec); given back to --spec it\n"
        "describes the same grid.\n",
        SWEEP_MAX_LIST);
}

/* Read the whole file into a NUL-terminated malloc'ed buffer; NULL with errno set on failure. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *text = malloc(SPEC_MAX_BYTES + 1);
    size_t n = text != NULL ? fread(text, 1, SPEC_MAX_BYTES + 1, f) : 0;
    int failed = text == NULL || ferror(f);
    int saved = errno;
    fclose(f);
    if (failed || n > SPEC_MAX_BYTES) {
        free(text);
        errno = failed ? (saved != 0 ? saved : EIO) : EFBIG;
        return NULL;
    }
    text[n] = '\0';
    *len = n;
    return text;
}

/* An integer JSON value as decimal text (uint64 values above INT64_MAX included). */
static void format_int(struct json_object *v, char *buf, size_t size)
{
    int64_t i = json_object_get_int64(v);
    if (i < 0)
        snprintf(buf, size, "%" PRId64, i);
    else
        snprintf(buf, size, "%" PRIu64, json_object_get_uint64(v));
}

/*
 * The flag text of a list value: "a,b,c". Returns 0 when an item has the
 * wrong type or holds a comma.
 */
static int format_list(struct json_object *v, int ints, char *buf, size_t size)
{
    size_t used = 0, n = json_object_array_length(v);
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        struct json_object *item = json_object_array_get_idx(v, i);
        char text[1024]; /* a file data set: up to 1023 bytes, as on the command line */
        if (ints) {
            if (!json_object_is_type(item, json_type_int))
                return 0;
            format_int(item, text, sizeof text);
        } else {
            if (!json_object_is_type(item, json_type_string))
                return 0;
            const char *s = json_object_get_string(item);
            if (strchr(s, ',') != NULL || strlen(s) >= sizeof text)
                return 0;
            snprintf(text, sizeof text, "%s", s);
        }
        int w = snprintf(buf + used, size - used, "%s%s", i ? "," : "", text);
        if (w < 0 || (size_t)w >= size - used)
            return 0;
        used += (size_t)w;
    }
    return 1;
}

/* One line into msg: "spec FILE: ...". */
static int spec_error(char *msg, size_t msg_size, const char *path, const char *what)
{
    snprintf(msg, msg_size, "spec %s: %s", path, what);
    return 0;
}

/* Apply an object {"method": [sizes], ...} as one flag METHOD=LIST per method of option o. */
static int apply_sizes(const char *path, const char *key, const sweep_option *o, struct json_object *v,
                       sweep_parse_state *st, char *msg, size_t msg_size)
{
    char why[1024], value[4096];
    json_object_object_foreach(v, method, sizes)
    {
        char list[4000];
        if (!json_object_is_type(sizes, json_type_array) || json_object_array_length(sizes) == 0 ||
            !format_list(sizes, 1, list, sizeof list)) {
            snprintf(why, sizeof why, "key '%s.%s' must be a non-empty list of integers", key, method);
            return spec_error(msg, msg_size, path, why);
        }
        snprintf(value, sizeof value, "%s=%s", method, list);
        char detail[256];
        if (!sweep_option_apply(o, value, st, detail, sizeof detail)) {
            snprintf(why, sizeof why, "key '%s': invalid value for '%s': %.200s%s%s (see --help)", key, method,
                     json_object_to_json_string_ext(sizes, JSON_C_TO_STRING_PLAIN), detail[0] ? ": " : "",
                     detail);
            return spec_error(msg, msg_size, path, why);
        }
    }
    return 1;
}

/* Apply one key of the spec; 0 with msg set on error. */
static int apply_key(const char *path, const char *key, struct json_object *v, sweep_parse_state *st, char *msg,
                     size_t msg_size)
{
    char why[1024], value[4096];
    const sweep_option *o = sweep_option_of_key(key);
    if (o == NULL) {
        snprintf(why, sizeof why, "unknown key '%s' (see --help for the keys)", key);
        return spec_error(msg, msg_size, path, why);
    }
    const sweep_key_type type = o->key;

    int type_ok = 1, list_items_ok = 1;
    switch (type) {
    case SWEEP_KEY_INT:
        type_ok = json_object_is_type(v, json_type_int);
        if (type_ok)
            format_int(v, value, sizeof value);
        break;
    case SWEEP_KEY_NUMBER:
        type_ok = json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double);
        if (type_ok)
            snprintf(value, sizeof value, "%.17g", json_object_get_double(v));
        break;
    case SWEEP_KEY_STRING:
        type_ok = json_object_is_type(v, json_type_string);
        if (type_ok)
            snprintf(value, sizeof value, "%s", json_object_get_string(v));
        break;
    case SWEEP_KEY_INT_LIST:
    case SWEEP_KEY_STRING_LIST:
        type_ok = json_object_is_type(v, json_type_array);
        if (type_ok && json_object_array_length(v) == 0) {
            snprintf(why, sizeof why, "key '%s' is an empty list", key);
            return spec_error(msg, msg_size, path, why);
        }
        if (type_ok && json_object_array_length(v) > SWEEP_MAX_LIST) {
            snprintf(why, sizeof why, "key '%s' has %zu items; a list holds at most %d", key,
                     json_object_array_length(v), SWEEP_MAX_LIST);
            return spec_error(msg, msg_size, path, why);
        }
        if (type_ok)
            list_items_ok = format_list(v, type == SWEEP_KEY_INT_LIST, value, sizeof value);
        break;
    case SWEEP_KEY_NONE: /* sweep_option_of_key gives options with a key only */
        type_ok = 0;
        break;
    case SWEEP_KEY_SIZES:
        type_ok = json_object_is_type(v, json_type_object);
        if (type_ok && json_object_object_length(v) == 0) {
            snprintf(why, sizeof why, "key '%s' is an empty object", key);
            return spec_error(msg, msg_size, path, why);
        }
        if (!type_ok)
            break;
        return apply_sizes(path, key, o, v, st, msg, msg_size);
    }
    if (!type_ok || !list_items_ok) {
        snprintf(why, sizeof why, "key '%s' must be %s, not %.300s", key, type_names[type],
                 json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
        return spec_error(msg, msg_size, path, why);
    }
    char detail[256];
    if (!sweep_option_apply(o, value, st, detail, sizeof detail)) {
        snprintf(why, sizeof why, "key '%s': invalid value %.300s%s%s (see --help)", key,
                 json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN), detail[0] ? ": " : "", detail);
        return spec_error(msg, msg_size, path, why);
    }
    return 1;
}

/*
 * Keys an object may hold before the duplicate check stops comparing: a spec
 * object has at most 23 valid keys (its "sizes" objects 8), so a longer one
 * holds an unknown key or a duplicate among its first keys anyway, and the
 * check stays linear on hostile input.
 */
#define SPEC_MAX_COMPARED_KEYS 64

/* The objects open around the scan position of find_duplicate_key. */
typedef struct {
    int is_object, expect_key, nkeys;
    char *keys[SPEC_MAX_COMPARED_KEYS];
} scan_frame;

/* The string literal text[begin..end] (quotes included) decoded, malloc'ed; NULL if it is not one. */
static char *decode_key(const char *text, size_t begin, size_t end)
{
    struct json_tokener *tok = json_tokener_new();
    if (tok == NULL)
        return NULL;
    struct json_object *o = json_tokener_parse_ex(tok, text + begin, (int)(end + 1 - begin));
    char *key = o != NULL && json_object_is_type(o, json_type_string) ? strdup(json_object_get_string(o)) : NULL;
    json_object_put(o);
    json_tokener_free(tok);
    return key;
}

static void free_frame(scan_frame *f)
{
    for (int i = 0; i < f->nkeys; i++)
        free(f->keys[i]);
    f->nkeys = 0;
}

/*
 * JSON lets an object repeat a key (json-c keeps the last); a spec must not,
 * since only one of the values would count. Scan text (valid JSON) and put
 * the first key seen twice in the same object into dup, with its line.
 * Returns 1 when there is one.
 */
static int find_duplicate_key(const char *text, size_t len, char *dup, size_t dup_size, int *line)
{
    enum { MAX_DEPTH = 64 };
    scan_frame *stack = calloc(MAX_DEPTH, sizeof *stack);
    if (stack == NULL)
        return 0;
    int depth = 0, found = 0, at_line = 1;
    for (size_t i = 0; i < len && !found; i++) {
        char c = text[i];
        at_line += c == '\n';
        scan_frame *top = depth > 0 && depth <= MAX_DEPTH ? &stack[depth - 1] : NULL;
        if (c == '"') {
            size_t j = i + 1;
            while (j < len && text[j] != '"')
                j += text[j] == '\\' ? 2 : 1;
            if (j >= len)
                break;
            if (top != NULL && top->is_object && top->expect_key) {
                top->expect_key = 0;
                char *key = top->nkeys < SPEC_MAX_COMPARED_KEYS ? decode_key(text, i, j) : NULL;
                for (int k = 0; key != NULL && k < top->nkeys && !found; k++)
                    found = strcmp(top->keys[k], key) == 0;
                if (found) {
                    snprintf(dup, dup_size, "%s", key);
                    *line = at_line;
                    free(key);
                } else if (key != NULL) {
                    top->keys[top->nkeys++] = key;
                }
            }
            i = j;
        } else if (c == '{' || c == '[') {
            if (depth < MAX_DEPTH)
                stack[depth] = (scan_frame){ c == '{', c == '{', 0, { NULL } };
            depth++;
        } else if (c == '}' || c == ']') {
            if (top != NULL)
                free_frame(top);
            depth -= depth > 0;
        } else if (c == ',' && top != NULL && top->is_object) {
            top->expect_key = 1;
        }
    }
    for (int d = 0; d < depth && d < MAX_DEPTH; d++)
        free_frame(&stack[d]);
    free(stack);
    return found;
}

int sweep_spec_parse(const char *label, const char *text, size_t len, sweep_parse_state *st, char *msg,
                     size_t msg_size)
{
    struct json_tokener *tok = json_tokener_new();
    if (tok == NULL)
        return spec_error(msg, msg_size, label, "out of memory");
    struct json_object *root = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    int ok = 1, line = 1;
    char why[512], dup[256];
    if (root == NULL || jerr != json_tokener_success) {
        /* line of the error: newlines before the parse end */
        for (size_t i = 0; i < end && i < len; i++)
            line += text[i] == '\n';
        snprintf(why, sizeof why, "invalid JSON near line %d: %s", line,
                 jerr == json_tokener_continue ? "unexpected end of file" : json_tokener_error_desc(jerr));
        ok = spec_error(msg, msg_size, label, why);
    } else if (strspn(text + end, " \t\r\n") != len - end) {
        ok = spec_error(msg, msg_size, label, "invalid JSON: text after the top-level object");
    } else if (!json_object_is_type(root, json_type_object)) {
        ok = spec_error(msg, msg_size, label, "the top level must be a JSON object {...}");
    } else if (find_duplicate_key(text, len, dup, sizeof dup, &line)) {
        snprintf(why, sizeof why, "key '%.200s' appears twice in one object (line %d); give each key once",
                 dup, line);
        ok = spec_error(msg, msg_size, label, why);
    } else {
        json_object_object_foreach(root, key, value)
        {
            if (!apply_key(label, key, value, st, msg, msg_size)) {
                ok = 0;
                break;
            }
        }
    }
    json_object_put(root);
    return ok;
}

int sweep_spec_load(const char *path, sweep_parse_state *st, char *msg, size_t msg_size)
{
    size_t len = 0;
    char *text = read_file(path, &len);
    if (text == NULL) {
        snprintf(msg, msg_size, "cannot read spec %s: %s", path, strerror(errno));
        return 0;
    }
    int ok = sweep_spec_parse(path, text, len, st, msg, msg_size);
    free(text);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* The canonical spec                                                       */
/* ------------------------------------------------------------------------ */

char *sweep_spec_canonical(const sweep_config *cfg)
{
    struct json_object *o = sweep_options_canonical(cfg);
    if (o == NULL)
        return NULL;
    const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    char *copy = text != NULL ? strdup(text) : NULL;
    json_object_put(o);
    return copy;
}

int sweep_config_from_spec(const char *spec, sweep_config *cfg, char *msg, size_t msg_size)
{
    sweep_defaults(cfg);
    sweep_parse_state st = { 0, 0, 1, 0, 0, cfg };
    if (!sweep_spec_parse("(stored)", spec, strlen(spec), &st, msg, msg_size))
        return 0;
    sweep_resolve_sizes(cfg, &st);
    return 1;
}
