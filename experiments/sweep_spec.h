/*
 * sweep_spec.h - the spec file (JSON) and the canonical spec (sweep_spec.c).
 */
#ifndef SKETCHMM_SWEEP_SPEC_H
#define SKETCHMM_SWEEP_SPEC_H

#include <stdio.h>

#include "sweep_config.h"
#include "sweep_options.h"


/*
 * Read the JSON spec at path and apply each key to st as the flag it stands
 * for (sweep_option_apply: "topk_bits": [256, 512] -> --topk-bits
 * "256,512"; "sizes": {"srht": [8]} -> --sizes "srht=8"), in file order.
 * Returns 1, or 0 with a one-line message in msg naming the file and the key
 * (unknown key, a key twice in one object, wrong type, bad value, empty or
 * too long list, unreadable file, invalid JSON).
 */
int sweep_spec_load(const char *path, sweep_parse_state *st, char *msg, size_t msg_size);

/* The same for spec text text[0..len) (label names it in messages). */
int sweep_spec_parse(const char *label, const char *text, size_t len, sweep_parse_state *st, char *msg,
                     size_t msg_size);

/*
 * The effective spec of cfg as canonical JSON (one line, fixed key order,
 * every size list resolved per method): given back to --spec it gives the
 * same grid. malloc'ed; NULL when out of memory.
 */
char *sweep_spec_canonical(const sweep_config *cfg);

/* The spec format, for --help. */
void sweep_spec_help(FILE *f);


/*
 * The configuration a stored spec (a results file's attribute spec, the
 * canonical JSON of sweep_spec_canonical) describes: defaults and the spec's
 * keys, without the checks that open data files. Enough for the keys of its
 * configurations (sweep_check_rows). Returns 1, or 0 with msg.
 */
int sweep_config_from_spec(const char *spec, sweep_config *cfg, char *msg, size_t msg_size);

#endif /* SKETCHMM_SWEEP_SPEC_H */
