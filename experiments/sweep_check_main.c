/*
 * sweep_check_main.c - `sketchmm_sweep check [--list] FILE.h5...`: the
 * integrity of results files, checked exactly as resume and merge check
 * them (sweep_check_file), for anyone who reads them: the Python loaders
 * (experiments/analysis/load_results.py) run it instead of checking rows
 * their own way. See sweep.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep_check.h"

static int check_usage(const char *prog, const char *what)
{
    fprintf(stderr, "%s check: %s\nUsage: %s check [--list] FILE.h5 [FILE.h5 ...]\n", prog, what, prog);
    return SWEEP_EXIT_USAGE;
}

/* Check one file; returns its exit status (0 sound, 1 bad rows, 2 cannot be checked). */
static int check_one(const char *prog, const char *path, int list)
{
    results_file *f = NULL;
    char *spec = NULL;
    results_row *rows = NULL;
    const char **why = NULL;
    int64_t count = 0, nbad = 0;
    char msg[2048];
    smm_status s = sweep_check_file(path, &f, &spec, &rows, &count, &why, &nbad, msg, sizeof msg);
    if (s != SMM_OK) {
        fprintf(stderr, "%s check: %s\n", prog, msg);
        return SWEEP_EXIT_USAGE;
    }
    if (nbad == 0) {
        printf("%s: %lld rows, every row sound\n", path, (long long)count);
    } else {
        printf("%s: %lld of its %lld rows fail their checks\n", path, (long long)nbad, (long long)count);
        if (!list)
            fprintf(stderr, "%s check: %s: %s. Keep the sound rows with `%s merge --salvage GOOD.h5 %s`.\n", prog,
                    path, msg, prog, path);
        for (int64_t i = 0; list && i < count; i++)
            if (why[i] != NULL)
                printf("%s\t%lld\t%lld\t%s\n", path, (long long)i, (long long)rows[i].config_index, why[i]);
    }
    results_close(f);
    free(spec);
    free(rows);
    free((void *)why);
    return nbad == 0 ? EXIT_SUCCESS : SWEEP_EXIT_RUN_FAILED;
}

int sweep_check_main(int argc, char **argv)
{
    const char *prog = argv[0];
    int list = 0, first = 2;
    for (; first < argc && strncmp(argv[first], "-", 1) == 0; first++) {
        if (strcmp(argv[first], "--list") == 0) {
            list = 1;
        } else if (strcmp(argv[first], "-h") == 0 || strcmp(argv[first], "--help") == 0) {
            printf("Usage: %s check [--list] FILE.h5 [FILE.h5 ...]\n"
                   "Check results files as a resume or merge checks them: each row's chunk\n"
                   "checksum, its names and sizes, its config_hash against its configuration under\n"
                   "the file's spec, its config_index in the grid, no configuration twice. Prints\n"
                   "one line per file; --list also prints every bad row as\n"
                   "FILE<TAB>ROW<TAB>CONFIG_INDEX<TAB>REASON. Exit status 0 when every row is\n"
                   "sound, 1 when a file has bad rows (`%s merge --salvage GOOD.h5 FILE.h5`\n"
                   "keeps its sound ones), 2 when a file is no results file of this driver or\n"
                   "cannot be read.\n",
                   prog, prog);
            return EXIT_SUCCESS;
        } else {
            char what[256];
            snprintf(what, sizeof what, "unknown option '%s'", argv[first]);
            return check_usage(prog, what);
        }
    }
    if (first >= argc)
        return check_usage(prog, "needs at least one file");
    int rc = EXIT_SUCCESS;
    for (int i = first; i < argc; i++) {
        int one = check_one(prog, argv[i], list);
        if (one == SWEEP_EXIT_USAGE || (one != EXIT_SUCCESS && rc == EXIT_SUCCESS))
            rc = one;
    }
    return rc;
}
