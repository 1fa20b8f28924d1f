/*
 * tuning.c - the active configuration of the exact core (tuning.h): loaded
 * on first use from the tuning file, the model or the fixed table; the
 * public queries of sketchmm/tuning.h.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/smm_cache.h"
#include "exact/sgemm_model.h"
#include "exact/tuning.h"
#include "exact/tuning_file.h"

/* Two slots: tuning_install writes the one not in use, then publishes it. */
static tuning_state slots[2];
static _Atomic(const tuning_state *) active = NULL;
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;

static void set_note(tuning_state *st, const char *fmt, const char *detail)
{
    snprintf(st->note, sizeof st->note, fmt, detail);
}

/* The first line where two signatures differ, as "ours <line> / file's <line>" (for the note). */
static void describe_difference(const char *ours, const char *theirs, char *out, size_t size)
{
    while (*ours != '\0' && *theirs != '\0') {
        const size_t a = strcspn(ours, "\n"), b = strcspn(theirs, "\n");
        if (a != b || memcmp(ours, theirs, a) != 0) {
            snprintf(out, size, "this CPU '%.*s', the file '%.*s'", (int)(a < 80 ? a : 80), ours,
                     (int)(b < 80 ? b : 80), theirs);
            return;
        }
        ours += a + (ours[a] == '\n');
        theirs += b + (theirs[b] == '\n');
    }
    snprintf(out, size, "different length");
}

smm_config_source tuning_default_params(smm_isa isa, int shape, tuning_params *p)
{
    const smm_isa path = tuning_row_path(isa);
    const smm_cache_geometry *g = smm_caches();
    if (g->source != SMM_CACHE_NONE) {
        sgemm_model_params(path, shape, g, p);
        return SMM_CONFIG_MODEL;
    }
    tuning_table_params(path, p);
    const sgemm_shape *s = &sgemm_kernels_for(path)->shapes[shape];
    p->shape = shape;
    for (int team = 0; team < TUNING_TEAMS; team++) { /* the table's blocks are those of shapes[0] */
        p->team[team].mc = p->team[team].mc < s->mr ? s->mr : p->team[team].mc / s->mr * s->mr;
        p->team[team].nc = p->team[team].nc < s->nr ? s->nr : p->team[team].nc / s->nr * s->nr;
    }
    return SMM_CONFIG_TABLE;
}

void tuning_load(tuning_state *st, const char *file)
{
    memset(st, 0, sizeof *st);
    for (int isa = SMM_ISA_SCALAR; isa < SMM_ISA_COUNT; isa++)
        st->source[isa] = tuning_default_params((smm_isa)isa, 0, &st->params[isa]);

    const char *named = file != NULL ? file : getenv("SKETCHMM_TUNING");
    if (named != NULL && strcmp(named, "none") == 0) {
        set_note(st, "%s", "no file: SKETCHMM_TUNING=none");
        return;
    }
    if (named != NULL && named[0] != '\0') {
        if (strlen(named) >= sizeof st->file) {
            set_note(st, "%s", "SKETCHMM_TUNING too long: ignored");
            return;
        }
        snprintf(st->file, sizeof st->file, "%s", named);
    } else if (!tuning_file_default_path(st->file, sizeof st->file)) {
        st->file[0] = '\0';
        set_note(st, "%s", "no file: neither XDG_CACHE_HOME nor HOME is set");
        return;
    }

    tuning_file *f = malloc(sizeof *f);
    if (f == NULL) {
        set_note(st, "%s", "file not read: out of memory");
        return;
    }
    char why[160];
    const int read = tuning_file_read(st->file, f, why, sizeof why);
    char ours[TUNING_SIGNATURE_MAX];
    if (read == 0) {
        set_note(st, "%s", "no file");
    } else if (read < 0) {
        set_note(st, "ignored: %s", why);
    } else if (!tuning_signature(ours, sizeof ours) || strcmp(ours, f->signature) != 0) {
        describe_difference(ours, f->signature, why, sizeof why);
        set_note(st, "ignored: signature differs: %s", why);
    } else {
        int used = 0;
        for (int isa = SMM_ISA_SCALAR; isa < SMM_ISA_COUNT; isa++) {
            const smm_isa path = tuning_row_path((smm_isa)isa);
            if (f->has[path]) {
                st->params[isa] = f->params[path];
                st->source[isa] = SMM_CONFIG_TUNED;
                used = 1;
            }
        }
        set_note(st, "%s", used ? "read" : "read: no section for a path of this build");
    }
    free(f);
}

const tuning_state *tuning_active(void)
{
    const tuning_state *st = atomic_load_explicit(&active, memory_order_acquire);
    if (st != NULL)
        return st;
    pthread_mutex_lock(&install_lock);
    st = atomic_load_explicit(&active, memory_order_relaxed);
    if (st == NULL) {
        tuning_load(&slots[0], NULL);
        st = &slots[0];
        atomic_store_explicit(&active, st, memory_order_release);
    }
    pthread_mutex_unlock(&install_lock);
    return st;
}

void tuning_install(const tuning_state *state)
{
    pthread_mutex_lock(&install_lock);
    tuning_state *next = atomic_load_explicit(&active, memory_order_relaxed) == &slots[0] ? &slots[1] : &slots[0];
    *next = *state;
    atomic_store_explicit(&active, next, memory_order_release);
    pthread_mutex_unlock(&install_lock);
}

void sgemm_target_for(smm_isa isa, int threads, sgemm_target *t)
{
    sgemm_target_from(isa, &tuning_active()->params[isa], threads, t);
}

/* ---- the public queries (sketchmm/tuning.h) ---- */

const char *smm_config_source_name(smm_config_source source)
{
    switch (source) {
    case SMM_CONFIG_TABLE: return "table";
    case SMM_CONFIG_MODEL: return "model";
    case SMM_CONFIG_TUNED: return "tuned";
    }
    return NULL;
}

static const char *split_name(sgemm_split split)
{
    return split == SGEMM_SPLIT_ROWS ? "rows" : split == SGEMM_SPLIT_COLUMNS ? "columns" : "auto";
}

smm_status smm_exact_config_get(smm_exact_config *config)
{
    if (config == NULL)
        return SMM_ERR_NULL_POINTER;
    smm_isa isa;
    const smm_status s = smm_get_isa(&isa);
    if (s != SMM_OK)
        return s;
    const tuning_state *st = tuning_active();
    const tuning_params *p = &st->params[isa];
    const sgemm_shape *shape = &sgemm_kernels_for(isa)->shapes[p->shape];
    memset(config, 0, sizeof *config);
    config->isa = isa;
    config->source = st->source[isa];
    snprintf(config->kernel, sizeof config->kernel, "%s", shape->name);
    config->mr = shape->mr;
    config->nr = shape->nr;
    config->kc = p->kc;
    for (int t = 0; t < TUNING_TEAMS; t++) {
        config->mc[t] = p->team[t].mc;
        config->nc[t] = p->team[t].nc;
        snprintf(config->split[t], sizeof config->split[t], "%s", split_name(p->team[t].split));
        config->prefetch[t] = p->team[t].prefetch;
    }
    config->sup_max_macs = sgemm_kernels_for(isa)->sup != NULL ? p->sup_max_macs : 0.0;
    config->topk_rows = p->topk_rows;
    config->topk_cols = p->topk_cols;
    for (int op = 0; op < MAT4_OPS; op++)
        config->mat4_paths[op] = p->mat4[op];
    snprintf(config->file, sizeof config->file, "%s", st->file);
    snprintf(config->note, sizeof config->note, "%s", st->note);
    return SMM_OK;
}

smm_status smm_exact_config_describe(const smm_exact_config *c, char *buf, size_t size)
{
    if (c == NULL || (buf == NULL && size > 0))
        return SMM_ERR_NULL_POINTER;
    const char *isa = smm_isa_name(c->isa), *source = smm_config_source_name(c->source);
    char mat4[64] = "";
    size_t used = 0;
    for (int op = 0; op < 4; op++) {
        const char *name = smm_isa_name(c->mat4_paths[op]);
        const int n = snprintf(mat4 + used, sizeof mat4 - used, "%s%s", op ? "/" : "", name ? name : "?");
        used += n > 0 && (size_t)n < sizeof mat4 - used ? (size_t)n : 0;
    }
    const int n = snprintf(buf, size,
                           "isa=%s source=%s kernel=%s kc=%lld mc=%lld/%lld nc=%lld/%lld split=%s/%s "
                           "prefetch=%lld/%lld sup_max_macs=%.0f topk_block=%lldx%lld mat4=%s file=%s note=\"%s\"",
                           isa ? isa : "?", source ? source : "?", c->kernel, (long long)c->kc, (long long)c->mc[0],
                           (long long)c->mc[1], (long long)c->nc[0], (long long)c->nc[1], c->split[0], c->split[1],
                           (long long)c->prefetch[0], (long long)c->prefetch[1], c->sup_max_macs,
                           (long long)c->topk_rows, (long long)c->topk_cols, mat4, c->file[0] ? c->file : "-",
                           c->note);
    return n >= 0 && (size_t)n < size ? SMM_OK : SMM_ERR_BAD_SIZE;
}

smm_status smm_tuning_path(char *buf, size_t size)
{
    if (buf == NULL)
        return SMM_ERR_NULL_POINTER;
    if (size == 0)
        return SMM_ERR_BAD_SIZE;
    const char *named = getenv("SKETCHMM_TUNING");
    char path[SMM_CONFIG_PATH] = "";
    if (named != NULL && (strcmp(named, "none") == 0 || strlen(named) >= sizeof path))
        path[0] = '\0'; /* disabled, or too long to be read (tuning_load ignores it) */
    else if (named != NULL && named[0] != '\0')
        snprintf(path, sizeof path, "%s", named);
    else if (!tuning_file_default_path(path, sizeof path))
        path[0] = '\0';
    const int n = snprintf(buf, size, "%s", path);
    return n >= 0 && (size_t)n < size ? SMM_OK : SMM_ERR_BAD_SIZE;
}

smm_status smm_tuning_reload(void)
{
    tuning_state *st = malloc(sizeof *st);
    if (st == NULL)
        return SMM_ERR_NO_MEMORY;
    tuning_load(st, NULL);
    tuning_install(st);
    free(st);
    return SMM_OK;
}
