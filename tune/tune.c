/*
 * tune.c - smm_tune (sketchmm/tuning.h): the stages of tune.h in order,
 * each given a share of the time budget, then the tuning file written and
 * the result made the active configuration.
 *
 * Shares of the budget (what is left is shared out again before each stage,
 * so a stage that ends early leaves its time to the next): kernel shape, kc
 * and mc 0.28; nc 0.06; the several-thread split and mc 0.13; prefetch
 * distances 0.09; small-product threshold 0.10; exact_topk's block 0.12;
 * 4x4 paths 0.07; the final check against the default 0.15.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exact/tuning_file.h"
#include "tune/tune.h"

typedef void (*stage_fn)(tune_session *s, tuning_params *p, char *measured, size_t size);

static const struct {
    stage_fn run;
    double share;
} stages[] = {
    { tune_stage_kernel, 0.28 }, { tune_stage_nc, 0.06 },   { tune_stage_threads, 0.13 },
    { tune_stage_prefetch, 0.09 }, { tune_stage_small, 0.10 }, { tune_stage_topk, 0.12 },
    { tune_stage_mat4, 0.07 },
};
enum { STAGES = sizeof stages / sizeof stages[0] };
#define CHECK_SHARE 0.15

/* The deadline of a stage with `share` of the budget, `later` the shares of the stages after it. */
static double stage_deadline(const tune_session *s, double share, double later)
{
    const double now = tune_now(), left = s->start + s->budget - now;
    return now + (left > 0.0 ? left * share / (share + later) : 0.0);
}

/* Append text to measured (size bytes), separated by ", ". */
static void note(char *measured, size_t size, const char *text)
{
    const size_t used = strlen(measured);
    if (text[0] != '\0' && used + 2 < size)
        snprintf(measured + used, size - used, "%s%s", used ? ", " : "", text);
}

/* p as the active configuration of every path that shares tuned path's row, the rest as st; note and file as given. */
static void install(const tune_session *s, const tuning_params *p, const char *file, const char *why)
{
    tuning_state *st = malloc(sizeof *st);
    if (st == NULL)
        return;
    *st = *tuning_active();
    for (int isa = SMM_ISA_SCALAR; isa < SMM_ISA_COUNT; isa++)
        if (tuning_row_path((smm_isa)isa) == s->isa) {
            st->params[isa] = *p;
            st->source[isa] = SMM_CONFIG_TUNED;
        }
    snprintf(st->file, sizeof st->file, "%s", file);
    snprintf(st->note, sizeof st->note, "%s", why);
    tuning_install(st);
    free(st);
}

/* Write the section of the tuned path into the file at path, keeping the other sections of a matching file. */
static int write_file(const tune_session *s, const char *path, const tuning_params *p, const char *measured)
{
    tuning_file *f = malloc(sizeof *f), *old = malloc(sizeof *old);
    int ok = f != NULL && old != NULL;
    if (ok) {
        memset(f, 0, sizeof *f);
        ok = tuning_signature(f->signature, sizeof f->signature);
        char why[160];
        if (ok && tuning_file_read(path, old, why, sizeof why) == 1 && strcmp(old->signature, f->signature) == 0)
            for (int isa = SMM_ISA_SCALAR; isa < SMM_ISA_COUNT; isa++)
                if (old->has[isa]) {
                    f->has[isa] = 1;
                    f->params[isa] = old->params[isa];
                    memcpy(f->measured[isa], old->measured[isa], sizeof f->measured[isa]);
                }
        f->has[s->isa] = 1;
        f->params[s->isa] = *p;
        snprintf(f->measured[s->isa], sizeof f->measured[s->isa], "%s", measured);
        ok = ok && tuning_file_write(path, f);
    }
    free(f);
    free(old);
    return ok;
}

smm_status smm_tune(const smm_tune_options *options, smm_tune_progress_fn progress, void *arg)
{
    const smm_tune_options defaults = SMM_TUNE_OPTIONS_INIT;
    smm_tune_options o = options != NULL ? *options : defaults;
    if (o.budget_seconds == 0.0)
        o.budget_seconds = SMM_TUNE_DEFAULT_BUDGET;
    if (!(o.budget_seconds >= 10.0 && o.budget_seconds <= 86400.0) || o.threads < 0)
        return SMM_ERR_BAD_ARGUMENT;
    if (o.threads > SMM_MAX_THREADS)
        return SMM_ERR_BAD_THREADS;
    smm_context ctx;
    smm_status status = smm_context_current(&ctx);
    if (status != SMM_OK)
        return status;
    char path[SMM_CONFIG_PATH];
    if (o.path == NULL)
        status = smm_tuning_path(path, sizeof path);
    else if (strlen(o.path) < sizeof path)
        snprintf(path, sizeof path, "%s", strcmp(o.path, "none") == 0 ? "" : o.path);
    else
        status = SMM_ERR_BAD_ARGUMENT;
    if (status != SMM_OK)
        return status;
    const int write = !(o.path != NULL && strcmp(o.path, "none") == 0);

    tune_session s;
    memset(&s, 0, sizeof s);
    s.isa = tuning_row_path(ctx.isa);
    s.threads = o.threads > 0 ? o.threads : ctx.threads;
    s.start = tune_now();
    s.budget = o.budget_seconds;
    s.progress = progress;
    s.progress_arg = arg;
    s.side = 256;

    const tuning_state before = *tuning_active();
    tuning_params def, p;
    tuning_default_params(s.isa, 0, &def);
    p = def;
    char measured[TUNING_MEASURED_MAX] = "", part[TUNING_MEASURED_MAX];
    for (int i = 0; i < STAGES; i++) {
        double later = CHECK_SHARE;
        for (int j = i + 1; j < STAGES; j++)
            later += stages[j].share;
        s.stage_end = stage_deadline(&s, stages[i].share, later);
        s.best[0] = '\0';
        part[0] = '\0';
        stages[i].run(&s, &p, part, sizeof part);
        note(measured, sizeof measured, part);
        if (i == 4) /* from the top-k stage on, the SGEMM core measured so far runs exact_topk */
            install(&s, &p, before.file, "being tuned");
    }
    s.stage_end = stage_deadline(&s, CHECK_SHARE, 0.0);
    s.best[0] = '\0';
    part[0] = '\0';
    tune_stage_check(&s, &p, &def, part, sizeof part);
    note(measured, sizeof measured, part);

    char line[TUNING_MEASURED_MAX + 64];
    snprintf(line, sizeof line, "done in %.0f s: %s", tune_now() - s.start, measured);
    s.stage = "[8/8] done";
    s.best[0] = '\0';
    tune_report(&s, line);

    if (!write || path[0] == '\0') {
        install(&s, &p, "", write ? "tuned in this process; no file: neither XDG_CACHE_HOME nor HOME is set"
                                  : "tuned in this process; not written");
        return write ? SMM_ERR_FILE : SMM_OK;
    }
    if (!write_file(&s, path, &p, measured)) {
        install(&s, &p, path, "tuned in this process; the file could not be written");
        return SMM_ERR_FILE;
    }
    install(&s, &p, path, "written by the tuner in this process");
    return SMM_OK;
}
