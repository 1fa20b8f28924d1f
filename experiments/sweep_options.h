/*
 * sweep_options.h - every option of sketchmm_sweep in one table
 * (sweep_options.c): its flag, spec key and type, parser, help text,
 * default (sweep_defaults) and place in the canonical spec. The command
 * line (sweep_cli.c), the spec file and the canonical spec (sweep_spec.c)
 * and --help are all generated from it, so they cannot drift apart.
 */
#ifndef SKETCHMM_SWEEP_OPTIONS_H
#define SKETCHMM_SWEEP_OPTIONS_H

#include <stdio.h>

#include <json-c/json.h>

#include "sweep_config.h"

/* Flags seen (on the command line or as spec keys), for the checks that need them. */
enum {
    SEEN_K = 1 << 0, SEEN_ALIGNMENT = 1 << 1, SEEN_CLUSTERS = 1 << 2, SEEN_RANK = 1 << 3,
    SEEN_NOISE = 1 << 4, SEEN_DATA_DIR = 1 << 5, SEEN_BITS = 1 << 6, SEEN_SKETCH_DIMS = 1 << 7,
    SEEN_TOPK_BITS = 1 << 8, SEEN_TOPK_SKETCH_DIMS = 1 << 9, SEEN_SIZES = 1 << 12, SEEN_BETA = 1 << 13,
    /* flags of one mode */
    SEEN_DENSE_ONLY = 1 << 10, SEEN_TOPK_ONLY = 1 << 11
};

/* What parsing has seen so far, and the configuration it fills. */
typedef struct {
    unsigned seen;           /* SEEN_* */
    unsigned cli_seen;       /* SEEN_DENSE_ONLY / SEEN_TOPK_ONLY given on the command line */
    int from_spec;           /* the option being parsed comes from the spec file */
    unsigned dense_override; /* bit i: --sizes gave method SKETCH_SIMHASH + i its sizes */
    unsigned topk_override;  /* bit i: --topk-sizes did */
    sweep_config *cfg;
} sweep_parse_state;

/* The JSON type of a spec key. */
typedef enum {
    SWEEP_KEY_NONE,        /* a command-line flag only (where the results go, how to run) */
    SWEEP_KEY_INT,
    SWEEP_KEY_NUMBER,
    SWEEP_KEY_STRING,
    SWEEP_KEY_INT_LIST,
    SWEEP_KEY_STRING_LIST,
    SWEEP_KEY_SIZES        /* {"method": [sizes], ...} */
} sweep_key_type;

typedef struct {
    const char *name;      /* the flag without "--"; its spec key is the name with '_' for '-' */
    const char *alias;     /* another name of the flag, or NULL */
    const char *arg;       /* what its value is called in --help; NULL: a flag without value */
    const char *section;   /* the --help heading it is listed under */
    sweep_key_type key;
    int canonical_order;   /* position of its key in the canonical spec (1, 2, ..); 0: never written */
    unsigned seen;         /* SEEN_* bits it sets */
    /* Parse value into st->cfg: 1, or 0 (sweep_option_why() may say why). NULL value for a flag. */
    int (*parse)(const char *value, sweep_parse_state *st);
    /* Its key's value in the canonical spec of cfg, or NULL when the key does not apply to cfg. */
    struct json_object *(*canonical)(const sweep_config *cfg);
    /* Its value in cfg as the text of the flag (the help's "{default}"); NULL: none. */
    void (*text)(const sweep_config *cfg, char *buf, size_t size);
    /* --help lines, '\n'-separated; "{default}" stands for text() of the defaults. */
    const char *help;
} sweep_option;

/* The option called name (its name or alias), or NULL. */
const sweep_option *sweep_option_named(const char *name);

/* The option whose spec key is key, or NULL (command-line flags have none). */
const sweep_option *sweep_option_of_key(const char *key);

/*
 * Parse value for option o into st (value NULL for a flag without value):
 * 1, or 0 with why (why_size bytes; may be left empty) saying what is
 * wrong with the value.
 */
int sweep_option_apply(const sweep_option *o, const char *value, sweep_parse_state *st, char *why,
                       size_t why_size);

/* Every option for --help, by section, each default filled in from sweep_defaults. */
void sweep_options_help(FILE *f);

/* The spec keys and their types, for --help. */
void sweep_spec_keys_help(FILE *f);

/* The canonical spec of cfg: the keys that apply, in canonical order (NULL when out of memory). */
struct json_object *sweep_options_canonical(const sweep_config *cfg);

/* The default configuration. */
void sweep_defaults(sweep_config *cfg);

/*
 * Each method's sizes per mode after parsing: its --topk-sizes (top-k), else
 * its --sizes, else its own default sizes (the method size defaults of
 * sweep_options.c) unless a list of its kind was given, else the mode's list
 * for its kind (bits or sketch dimensions).
 */
void sweep_resolve_sizes(sweep_config *cfg, const sweep_parse_state *st);

/* 1 when cfg runs data set d. */
int sweep_has_dataset(const sweep_config *cfg, sweep_data_kind d);

/* The sizes (bits or sketch dimensions) of a method in one mode (SWEEP_MODE_DENSE or SWEEP_MODE_TOPK). */
const sweep_list *sweep_sizes(const sweep_config *cfg, unsigned mode, sketch_method method);

/* Every method's sizes in one mode, as "simhash=32,64;srht=8,16" into buf. */
void sweep_sizes_format(const sweep_config *cfg, unsigned mode, char *buf, size_t size);

/* The list as "a,b,c" into buf. */
void sweep_list_format(const sweep_list *list, char *buf, size_t size);

#endif /* SKETCHMM_SWEEP_OPTIONS_H */
