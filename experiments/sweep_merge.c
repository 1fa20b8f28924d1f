/*
 * sweep_merge.c - `sketchmm_sweep merge [--overwrite] [--salvage] OUT.h5
 * IN.h5...`: the rows of the shard files of one sweep into one results file,
 * or the sound rows of a damaged file into a new one. See sweep.h.
 *
 * Every input must hold the same spec (attribute spec, compared as text),
 * every row of every input must pass sweep_check_rows (its checksum, its
 * hash recomputed from its configuration, its index in the grid, no
 * configuration twice), and no configuration (config_hash) may appear twice
 * among the inputs; otherwise nothing is written and the exit status is 2.
 * With --salvage the rows that fail sweep_check_rows are left out instead
 * (and listed on stderr). OUT gets the attributes of the first input, then:
 * shard "merged", merged_from (the inputs), salvage_dropped_rows (with
 * --salvage), start_time the earliest of the inputs', end_time the latest, or
 * "unfinished" when an input's is; rows ordered by config_index, so a
 * complete merge equals one unsharded run of the spec row for row (up to the
 * measurements). OUT appears only when it is complete (results_publish).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "cli_args.h"
#include "sweep_check.h"
#include "sweep_merge.h"

/* A row and the input it comes from. */
typedef struct {
    results_row row;
    int source;
} merge_row;

static int cmp_hash(const void *a, const void *b)
{
    uint64_t x = ((const merge_row *)a)->row.config_hash, y = ((const merge_row *)b)->row.config_hash;
    return (x > y) - (x < y);
}

static int cmp_index(const void *a, const void *b)
{
    int64_t x = ((const merge_row *)a)->row.config_index, y = ((const merge_row *)b)->row.config_index;
    return (x > y) - (x < y);
}

static int merge_usage(const char *prog, const char *what)
{
    fprintf(stderr, "%s merge: %s\nUsage: %s merge [--overwrite] [--salvage] OUT.h5 IN.h5 [IN.h5 ...]\n", prog,
            what, prog);
    return SWEEP_EXIT_USAGE;
}

/*
 * Input i, checked whole (sweep_check_file): its open file into in[i], its
 * spec into *spec (the first input's) or compared with it, its sound rows
 * appended to all[*n..] with source i (*all grown). Bad rows are an error
 * (the exit status is returned), or with salvage left out and counted in
 * *dropped. Returns -1 to go on.
 */
static int read_input(const char *prog, char **inputs, int i, int salvage, results_file **in, char **spec,
                      merge_row **all, int64_t *n, int64_t *dropped)
{
    const char *path = inputs[i];
    char *sp = NULL;
    results_row *r = NULL;
    const char **why = NULL;
    int64_t count = 0, nbad = 0;
    char msg[2048];
    smm_status s = sweep_check_file(path, &in[i], &sp, &r, &count, &why, &nbad, msg, sizeof msg);
    if (s != SMM_OK) {
        fprintf(stderr, "%s merge: %s\n", prog, msg);
        return s == SMM_ERR_NO_MEMORY ? SWEEP_EXIT_RUN_FAILED : SWEEP_EXIT_USAGE;
    }
    int rc = -1;
    if (i == 0) {
        *spec = sp;
        sp = NULL;
    } else if (strcmp(sp, *spec) != 0) {
        fprintf(stderr, "%s merge: %s and %s hold different specs (spec_hash %016llx and %016llx)\n", prog,
                inputs[0], path, (unsigned long long)XXH3_64bits(*spec, strlen(*spec)),
                (unsigned long long)XXH3_64bits(sp, strlen(sp)));
        rc = SWEEP_EXIT_USAGE;
    }
    if (rc < 0 && nbad > 0 && !salvage) {
        fprintf(stderr,
                "%s merge: %s is damaged: %lld of its %lld rows fail their checks: %s.\n"
                "Use --salvage to merge its sound rows only (the lost configurations run again on resume).\n",
                prog, path, (long long)nbad, (long long)count, msg);
        rc = SWEEP_EXIT_USAGE;
    } else if (rc < 0 && nbad > 0) {
        fprintf(stderr, "%s merge: --salvage: leaving out %lld of the %lld rows of %s: %s\n", prog, (long long)nbad,
                (long long)count, path, msg);
        *dropped += nbad;
    }
    merge_row *grown = rc < 0 ? realloc(*all, (size_t)(*n + count + 1) * sizeof **all) : NULL;
    if (rc < 0 && grown == NULL) {
        fprintf(stderr, "%s merge: %s\n", prog, dataset_status_str(SMM_ERR_NO_MEMORY));
        rc = SWEEP_EXIT_RUN_FAILED;
    }
    if (rc < 0) {
        *all = grown;
        for (int64_t t = 0; t < count; t++)
            if (why[t] == NULL) {
                (*all)[*n].row = r[t];
                (*all)[(*n)++].source = i;
            }
    }
    free(sp);
    free(r);
    free((void *)why);
    return rc;
}

/* Read the inputs' rows into *rows, checking specs, rows and duplicates; -1 to go on, else the exit status. */
static int read_inputs(const char *prog, char **inputs, int ninputs, int salvage, results_file **in,
                       merge_row **rows, int64_t *nrows, int64_t *dropped, char **spec)
{
    int64_t n = 0;
    int rc = -1;
    for (int i = 0; i < ninputs && rc < 0; i++)
        rc = read_input(prog, inputs, i, salvage, in, spec, rows, &n, dropped);
    if (rc >= 0)
        return rc;
    merge_row *all = *rows;
    *nrows = n;
    qsort(all, (size_t)n, sizeof *all, cmp_hash);
    for (int64_t t = 1; t < n; t++)
        if (all[t].row.config_hash == all[t - 1].row.config_hash) {
            fprintf(stderr,
                    "%s merge: configuration %016llx (config_index %lld, %s %s) is in %s and in %s: "
                    "the inputs overlap\n",
                    prog, (unsigned long long)all[t].row.config_hash, (long long)all[t].row.config_index,
                    all[t].row.mode, all[t].row.method, inputs[all[t - 1].source], inputs[all[t].source]);
            return SWEEP_EXIT_USAGE;
        }
    qsort(all, (size_t)n, sizeof *all, cmp_index);
    return -1;
}

/* Write OUT: attributes of the first input, merge attributes, rows. Returns -1 or the exit status. */
static int write_output(const char *prog, const char *out, char **inputs, int ninputs, results_file **in,
                        const merge_row *rows, int64_t nrows, int salvage, int64_t dropped)
{
    char msg[1024];
    results_file *rf = NULL;
    smm_status s = results_create(out, &rf, msg, sizeof msg);
    if (s != SMM_OK) {
        fprintf(stderr, "%s merge: %s\n", prog, msg);
        return SWEEP_EXIT_RUN_FAILED;
    }
    s = results_copy_attrs(rf, in[0]);
    char from[4096] = "", start[64] = "", end[64] = "";
    size_t used = 0;
    for (int i = 0; i < ninputs; i++) {
        if (used < sizeof from)
            used += (size_t)snprintf(from + used, sizeof from - used, "%s%s", i ? "," : "", inputs[i]);
        char *t = NULL;
        if (results_get_attr_string(in[i], "start_time", &t) == SMM_OK && (start[0] == '\0' || strcmp(t, start) < 0))
            snprintf(start, sizeof start, "%s", t);
        free(t);
        t = NULL;
        if (results_get_attr_string(in[i], "end_time", &t) != SMM_OK || strcmp(t, "unfinished") == 0)
            snprintf(end, sizeof end, "unfinished");
        else if (strcmp(end, "unfinished") != 0 && strcmp(t, end) > 0)
            snprintf(end, sizeof end, "%s", t);
        free(t);
    }
    if (s == SMM_OK)
        s = results_set_attr_string(rf, "shard", "merged");
    if (s == SMM_OK)
        s = results_set_attr_string(rf, "merged_from", from);
    if (s == SMM_OK && start[0] != '\0')
        s = results_set_attr_string(rf, "start_time", start);
    if (s == SMM_OK && end[0] != '\0')
        s = results_set_attr_string(rf, "end_time", end);
    if (s == SMM_OK && salvage)
        s = results_set_attr_int64(rf, "salvage_dropped_rows", dropped);
    for (int64_t t = 0; t < nrows && s == SMM_OK; t++)
        s = results_append(rf, &rows[t].row);
    msg[0] = '\0';
    if (s == SMM_OK)
        s = results_publish(rf, msg, sizeof msg);
    smm_status c = results_close(rf);
    if (s != SMM_OK || c != SMM_OK) {
        fprintf(stderr, "%s merge: writing %s failed: %s\n", prog, out,
                msg[0] ? msg : dataset_status_str(s != SMM_OK ? s : c));
        return SWEEP_EXIT_RUN_FAILED;
    }
    return -1;
}

int sweep_merge_main(int argc, char **argv)
{
    const char *prog = argv[0];
    int overwrite = 0, salvage = 0, first = 2;
    for (; first < argc && strncmp(argv[first], "-", 1) == 0; first++) {
        if (strcmp(argv[first], "--overwrite") == 0) {
            overwrite = 1;
        } else if (strcmp(argv[first], "--salvage") == 0) {
            salvage = 1;
        } else if (strcmp(argv[first], "-h") == 0 || strcmp(argv[first], "--help") == 0) {
            printf("Usage: %s merge [--overwrite] [--salvage] OUT.h5 IN.h5 [IN.h5 ...]\n"
                   "Merge the results files of the shards of one sweep (same spec, no configuration\n"
                   "twice) into OUT.h5, rows ordered by config_index. Every row is checked (its\n"
                   "chunk's checksum, its config_hash against its configuration, its config_index\n"
                   "in the grid, no configuration twice); a damaged input is refused, unless\n"
                   "--salvage, which leaves its bad rows out: `%s merge --salvage GOOD.h5\n"
                   "DAMAGED.h5` keeps the sound rows of one damaged file, and resuming GOOD.h5 runs\n"
                   "the lost configurations again. See %s --help.\n",
                   prog, prog, prog);
            return EXIT_SUCCESS;
        } else {
            char what[256];
            snprintf(what, sizeof what, "unknown option '%s'", argv[first]);
            return merge_usage(prog, what);
        }
    }
    if (argc - first < 2)
        return merge_usage(prog, "needs an output file and at least one input file");
    const char *out = argv[first];
    char **inputs = argv + first + 1;
    int ninputs = argc - first - 1;
    for (int i = 0; i < ninputs; i++)
        if (cli_same_file(inputs[i], out))
            return merge_usage(prog, "the output file must not be one of the inputs");
    if (!overwrite && access(out, F_OK) == 0) {
        fprintf(stderr, "%s merge: %s exists; use --overwrite to replace it\n", prog, out);
        return SWEEP_EXIT_USAGE;
    }

    results_file **in = calloc((size_t)ninputs, sizeof *in);
    merge_row *rows = NULL;
    int64_t nrows = 0, dropped = 0;
    char *spec = NULL;
    int rc = in == NULL ? SWEEP_EXIT_RUN_FAILED
                        : read_inputs(prog, inputs, ninputs, salvage, in, &rows, &nrows, &dropped, &spec);
    if (rc < 0)
        rc = write_output(prog, out, inputs, ninputs, in, rows, nrows, salvage, dropped);
    if (rc < 0) {
        printf("merged %lld rows from %d files into %s", (long long)nrows, ninputs, out);
        if (salvage)
            printf(" (%lld rows left out)", (long long)dropped);
        printf("\n");
        rc = EXIT_SUCCESS;
    }
    for (int i = 0; in != NULL && i < ninputs; i++)
        results_close(in[i]);
    free(in);
    free(rows);
    free(spec);
    return rc;
}
