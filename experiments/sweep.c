/*
 * sweep.c - sketchmm_sweep: accuracy against speed of every approximate
 * method of sketchmm, in two modes, recorded in an HDF5 table.
 *
 *   dense  approx_sgemm against exact_sgemm on C = A * B (sweep_dense.c)
 *   topk   approx_topk against exact_topk (sweep_topk.c)
 *
 * This file is the driver: the command line and spec (sweep_cli.c,
 * sweep_spec.c), the grid and the shard (sweep_grid.c), the results file
 * (sweep_output.c: refused, reopened to resume when it holds the same spec
 * and sound rows, or created with the first row), then the grid's contexts
 * one by one (a
 * context: the configurations sharing mode, dataset, shape, seed and thread
 * count, i.e. one data load and one exact reference), skipping the
 * configurations already in the file. The timing scheme is in
 * sweep_rounds.c; `sketchmm_sweep merge` in sweep_merge.c, `sketchmm_sweep check`
 * in sweep_check_main.c.
 *
 * Run `sketchmm_sweep --help` for the flags. Output: progress on stderr, a
 * table per context and the path of the HDF5 file on stdout, the file itself
 * (format in results_h5.h). Exit status 0 on success, 1 when the run or a
 * configuration failed (finished rows stay in the file), 2 for a bad command
 * line or spec, or a results file of another spec or a damaged one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "sweep_check.h"
#include "sweep_cli.h"
#include "sweep_merge.h"
#include "sweep_run.h"
#include "sweep_spec.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* ------------------------------------------------------------------------ */
/* Running the grid                                                         */
/* ------------------------------------------------------------------------ */

static void print_dry_run(const sweep_config *cfg, const sweep_grid *grid, int64_t begin, int64_t end,
                          const char *spec)
{
    for (int64_t i = begin; i < end; i++) {
        char what[512];
        sweep_point_describe(&grid->points[i], what, sizeof what);
        printf("%6lld %016llx %s\n", (long long)i, (unsigned long long)grid->points[i].hash, what);
    }
    printf("grid: %lld configurations\n", (long long)grid->count);
    if (cfg->shard_count > 1)
        printf("shard %d/%d: %lld configurations (%lld..%lld)\n", cfg->shard_index, cfg->shard_count,
               (long long)(end - begin), (long long)begin, (long long)end - 1);
    printf("spec: %s\n", spec);
}

/* Run the contexts of [begin, end) with their pending configurations; returns the exit status. */
static int run_grid(sweep_run *run, const sweep_grid *grid, int64_t begin, int64_t end,
                    const unsigned char *pending)
{
    const sweep_config *cfg = run->cfg;
    int exit_code = EXIT_SUCCESS;
    for (int64_t i = begin; i < end;) {
        int64_t j = i + 1;
        while (j < end && sweep_point_same_context(&grid->points[i], &grid->points[j]))
            j++;
        int any = 0;
        for (int64_t t = i; t < j; t++)
            any |= pending[t - begin];
        const sweep_point *p = &grid->points[i];
        if (any) {
            smm_status s = smm_set_num_threads(p->threads);
            if (s != SMM_OK) {
                sweep_progress_note(run->progress, "%s: cannot set %d threads: %s", run->prog, (int)p->threads,
                                    dataset_status_str(s));
                return SWEEP_EXIT_RUN_FAILED;
            }
            sweep_config c = *cfg;
            c.data = p->data;
            c.seed = p->seed;
            c.k = p->k;
            c.m = c.queries = p->m;
            c.n = c.database = p->n;
            sweep_context ctx = { &c, p, pending + (i - begin), (int)(j - i), smm_get_num_threads() };
            int rc = p->mode == SWEEP_MODE_DENSE ? sweep_dense(run, &ctx) : sweep_topk(run, &ctx);
            if (rc != 0)
                exit_code = SWEEP_EXIT_RUN_FAILED;
            if (rc < 0)
                break;
        }
        i = j;
    }
    return exit_code;
}

/* ------------------------------------------------------------------------ */
/* main                                                                     */
/* ------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    results_library_setup();
    if (argc > 1 && strcmp(argv[1], "merge") == 0)
        return sweep_merge_main(argc, argv);
    if (argc > 1 && strcmp(argv[1], "check") == 0)
        return sweep_check_main(argc, argv);
    sweep_config cfg;
    int rc = sweep_parse_args(argc, argv, &cfg);
    if (rc >= 0)
        return rc;
    const char *prog = argv[0];

    sweep_grid grid;
    char *spec = sweep_spec_canonical(&cfg);
    if (spec == NULL || sweep_grid_expand(&cfg, &grid) != SMM_OK) {
        fprintf(stderr, "%s: %s\n", prog, dataset_status_str(SMM_ERR_NO_MEMORY));
        free(spec);
        return SWEEP_EXIT_RUN_FAILED;
    }
    int64_t begin, end;
    sweep_shard_range(grid.count, cfg.shard_index, cfg.shard_count, &begin, &end);
    if (cfg.dry_run) {
        print_dry_run(&cfg, &grid, begin, end, spec);
        sweep_grid_free(&grid);
        free(spec);
        return EXIT_SUCCESS;
    }

    /* The ISA path, fixed for the whole sweep. */
    smm_isa isa_id;
    smm_status s = smm_get_isa(&isa_id);
    if (s != SMM_OK) {
        fprintf(stderr, "%s: ISA selection failed: %s\n", prog, dataset_status_str(s));
        sweep_grid_free(&grid);
        free(spec);
        return SWEEP_EXIT_RUN_FAILED;
    }
    sweep_progress progress;
    sweep_run run;
    memset(&run, 0, sizeof run);
    run.cfg = &cfg;
    run.prog = prog;
    run.isa = smm_isa_name(isa_id);
    run.progress = &progress;
    const char *stop = getenv("SKETCHMM_SWEEP_TEST_STOP_AFTER");
    if (stop != NULL)
        run.stop_after = strtoll(stop, NULL, 10);

    /* The results file: refused, resumed, or created with the first row. */
    run.spec = spec;
    run.grid_size = grid.count;
    run.argc = argc;
    run.argv = argv;
    uint64_t *done = NULL;
    int64_t ndone = 0;
    rc = sweep_output_open(&run, &grid, &done, &ndone);
    unsigned char *pending = rc < 0 ? calloc((size_t)(end - begin + 1), 1) : NULL;
    if (rc < 0 && pending == NULL) {
        fprintf(stderr, "%s: %s\n", prog, dataset_status_str(SMM_ERR_NO_MEMORY));
        rc = SWEEP_EXIT_RUN_FAILED;
    }
    if (rc >= 0) {
        sweep_output_close(&run);
        free(pending);
        free(done);
        sweep_grid_free(&grid);
        free(spec);
        return rc;
    }

    /* The configurations of this shard not yet in the file. */
    int64_t npending = 0;
    for (int64_t i = begin; i < end; i++) {
        uint64_t h = grid.points[i].hash;
        pending[i - begin] = ndone == 0 || bsearch(&h, done, (size_t)ndone, sizeof h, cmp_u64) == NULL;
        npending += pending[i - begin];
    }
    sweep_progress_init(&progress, npending);
    if (npending < end - begin)
        sweep_progress_note(&progress, "%s: resuming %s: %lld of the %lld configurations to run are done", prog,
                            cfg.out, (long long)(end - begin - npending), (long long)(end - begin));

    int exit_code = EXIT_SUCCESS;
    double t0 = metrics_now();
    if (npending > 0)
        exit_code = run_grid(&run, &grid, begin, end, pending);
    sweep_progress_end(&progress);
    int64_t rows = results_rows(run.rf);
    int written = run.rf != NULL;
    if (sweep_output_close(&run) != SMM_OK)
        exit_code = SWEEP_EXIT_RUN_FAILED;
    if (written)
        printf("\nresults: %s (%lld rows, %lld new, %.0f s)\n", cfg.out, (long long)rows, (long long)run.appended,
               metrics_now() - t0);
    else
        printf("\nresults: none written to %s (no configuration finished, %.0f s)\n", cfg.out, metrics_now() - t0);

    free(pending);
    free(done);
    sweep_grid_free(&grid);
    free(spec);
    return exit_code;
}
