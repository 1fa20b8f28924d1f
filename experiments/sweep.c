/*
 * sweep.c - sketchmm_sweep: accuracy against speed of every approximate
 * method of sketchmm, in two modes, recorded in an HDF5 table.
 *
 *   dense  approx_sgemm against exact_sgemm on C = A * B (sweep_dense.c)
 *   topk   approx_topk against exact_topk (sweep_topk.c)
 *
 * This file is the driver: the command line and spec (sweep_cli.c,
 * sweep_spec.c), the grid and the shard (sweep_grid.c), the results file
 * (created with attributes describing the run, or reopened to resume when it
 * holds the same spec, or refused), then the grid's contexts one by one (a
 * context: the configurations sharing mode, dataset, shape, seed and thread
 * count, i.e. one data load and one exact reference), skipping the
 * configurations already in the file. The timing scheme is in
 * sweep_rounds.c; `sketchmm_sweep merge` in sweep_merge.c.
 *
 * Run `sketchmm_sweep --help` for the flags. Output: progress on stderr, a
 * table per context and the path of the HDF5 file on stdout, the file itself
 * (format in results_h5.h). Exit status 0 on success, 1 when the run or a
 * configuration failed (finished rows stay in the file), 2 for a bad command
 * line or spec, or a results file of another spec.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "metrics.h"
#include "sweep.h"

#ifndef SKETCHMM_SOURCE_DIR
#define SKETCHMM_SOURCE_DIR "."
#endif

/* ------------------------------------------------------------------------ */
/* Run description                                                          */
/* ------------------------------------------------------------------------ */

/* `git -C <source dir> rev-parse HEAD`, or "unknown". */
static void git_commit(char *buf, size_t size)
{
    snprintf(buf, size, "unknown");
    int fd[2];
    if (pipe(fd) != 0)
        return;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return;
    }
    if (pid == 0) {
        dup2(fd[1], STDOUT_FILENO);
        close(fd[0]);
        close(fd[1]);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0)
            dup2(devnull, STDERR_FILENO);
        execlp("git", "git", "-C", SKETCHMM_SOURCE_DIR, "rev-parse", "HEAD", (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    char out[128];
    size_t len = 0;
    ssize_t got;
    while (len < sizeof out - 1 && (got = read(fd[0], out + len, sizeof out - 1 - len)) > 0)
        len += (size_t)got;
    close(fd[0]);
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
        ;
    out[len] = '\0';
    while (len > 0 && (out[len - 1] == '\n' || out[len - 1] == '\r'))
        out[--len] = '\0';
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 && len >= 7 &&
        strspn(out, "0123456789abcdef") == len)
        snprintf(buf, size, "%s", out);
}

/* The "model name" line of /proc/cpuinfo, or "unknown". */
static void cpu_model(char *buf, size_t size)
{
    snprintf(buf, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL)
        return;
    char line[512];
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        char *colon = strchr(line, ':');
        if (colon == NULL)
            continue;
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        size_t len = strlen(v);
        while (len > 0 && (v[len - 1] == '\n' || v[len - 1] == ' '))
            v[--len] = '\0';
        if (len > 0)
            snprintf(buf, size, "%s", v);
        break;
    }
    fclose(f);
}

/* The first line of /proc/loadavg (1, 5, 15 minute load ...), or "unknown". */
static void load_average(char *buf, size_t size)
{
    snprintf(buf, size, "unknown");
    FILE *f = fopen("/proc/loadavg", "r");
    if (f == NULL)
        return;
    if (fgets(buf, (int)size, f) != NULL) {
        size_t len = strlen(buf);
        while (len > 0 && buf[len - 1] == '\n')
            buf[--len] = '\0';
    } else {
        snprintf(buf, size, "unknown");
    }
    fclose(f);
}

/*
 * The environment variables that change how the library runs, as
 * "NAME=value NAME=value" (empty when none is set).
 */
static void runtime_env(char *buf, size_t size)
{
    static const char *const names[] = { "SKETCHMM_ISA", "SKETCHMM_NUM_THREADS", "OMP_NUM_THREADS",
                                         "OMP_WAIT_POLICY", "OMP_PROC_BIND", "OMP_PLACES",
                                         "GOMP_SPINCOUNT", "OMP_DYNAMIC" };
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0] && used < size; i++) {
        const char *v = getenv(names[i]);
        if (v != NULL)
            used += (size_t)snprintf(buf + used, size - used, "%s%s=%s", used ? " " : "", names[i], v);
    }
}

static void iso_time_now(char *buf, size_t size)
{
    time_t t = time(NULL);
    struct tm tm;
    if (gmtime_r(&t, &tm) == NULL || strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(buf, size, "unknown");
}

/* mkdir -p for the directory part of path. Returns 0 or an errno value. */
static int make_parent_dirs(const char *path)
{
    char *dir = strdup(path);
    if (dir == NULL)
        return ENOMEM;
    char *slash = strrchr(dir, '/');
    if (slash == NULL || slash == dir) {
        free(dir);
        return 0;
    }
    *slash = '\0';
    int err = 0;
    for (char *p = dir + 1; err == 0; p++) {
        if (*p == '/' || *p == '\0') {
            char saved = *p;
            *p = '\0';
            if (mkdir(dir, 0777) != 0 && errno != EEXIST)
                err = errno;
            *p = saved;
            if (saved == '\0')
                break;
        }
    }
    free(dir);
    return err;
}


static void join_argv(int argc, char **argv, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < argc && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? " " : "", argv[i]);
}

/* a when it is an error, else b. */
static smm_status first_error(smm_status a, smm_status b)
{
    return a != SMM_OK ? a : b;
}

static void join_methods(const sweep_config *cfg, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < cfg->nmethods && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? "," : "",
                                 approx_method_name(cfg->methods[i]));
}

static void join_datasets(const sweep_config *cfg, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < cfg->ndatasets && used < size; i++) {
        char label[1100];
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? "," : "",
                                 sweep_data_label(cfg, cfg->datasets[i], label, sizeof label));
    }
}

static void join_seeds(const sweep_config *cfg, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < cfg->nseeds && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%llu", i ? "," : "",
                                 (unsigned long long)cfg->seeds[i]);
}

static void join_shapes(const sweep_shape *shapes, int count, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < count && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%lldx%lld", i ? "," : "",
                                 (long long)shapes[i].rows, (long long)shapes[i].cols);
}

/* The thread counts the grid resolves to, "2" or "1,2" (0 in the spec: the library default). */
static void join_resolved_threads(const sweep_config *cfg, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < cfg->threads.count && used < size; i++) {
        int t = cfg->threads.v[i];
        if (smm_set_num_threads(t) == SMM_OK)
            t = smm_get_num_threads();
        used += (size_t)snprintf(buf + used, size - used, "%s%d", i ? "," : "", t);
    }
}

static const char *modes_name(unsigned modes)
{
    if (modes == (SWEEP_MODE_DENSE | SWEEP_MODE_TOPK))
        return "both";
    return modes == SWEEP_MODE_DENSE ? "dense" : "topk";
}

static smm_status set_list_attr(results_file *rf, const char *name, const sweep_list *list)
{
    char buf[1024];
    sweep_list_format(list, buf, sizeof buf);
    return results_set_attr_string(rf, name, buf);
}

static smm_status set_sizes_attr(results_file *rf, const char *name, const sweep_config *cfg, unsigned mode)
{
    char buf[4096];
    sweep_sizes_format(cfg, mode, buf, sizeof buf);
    return results_set_attr_string(rf, name, buf);
}

/* Per dataset, sweep_data_params of its first shapes, joined with " | ". */
static void data_params(const sweep_config *cfg, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < cfg->ndatasets && used < size; i++) {
        sweep_config c = *cfg;
        c.data = cfg->datasets[i];
        c.m = cfg->shapes[0].rows;
        c.n = cfg->shapes[0].cols;
        c.queries = cfg->topk_shapes[0].rows;
        c.database = cfg->topk_shapes[0].cols;
        char one[1024];
        sweep_data_params(&c, one, sizeof one);
        used += (size_t)snprintf(buf + used, size - used, "%s%s: %s", i ? " | " : "",
                                 sweep_data_names[c.data], one);
    }
}

/* Write the attributes of a new file; returns the first failing status. */
static smm_status write_attributes(results_file *rf, const sweep_config *cfg, const char *isa,
                                   const char *spec, int64_t grid_size, int argc, char **argv)
{
    char commit[128], cpu[256], load[128], now[64], params[4096], buf[4096], cmd[4096], env[1024];
    git_commit(commit, sizeof commit);
    cpu_model(cpu, sizeof cpu);
    load_average(load, sizeof load);
    runtime_env(env, sizeof env);
    iso_time_now(now, sizeof now);
    data_params(cfg, params, sizeof params);
    join_argv(argc, argv, cmd, sizeof cmd);

    smm_status s = SMM_OK;
    s = first_error(s, results_set_attr_string(rf, "spec", spec));
    s = first_error(s, results_set_attr_uint64(rf, "spec_hash", XXH3_64bits(spec, strlen(spec))));
    s = first_error(s, results_set_attr_int64(rf, "grid_size", grid_size));
    s = first_error(s, results_set_attr_string(rf, "library_version", smm_version()));
    s = first_error(s, results_set_attr_string(rf, "git_commit", commit));
    s = first_error(s, results_set_attr_string(rf, "isa", isa));
    s = first_error(s, results_set_attr_string(rf, "exact_kernel", exact_sgemm_impl()));
    s = first_error(s, results_set_attr_string(rf, "hamming_kernel", sketch_hamming_impl()));
    join_resolved_threads(cfg, buf, sizeof buf);
    s = first_error(s, results_set_attr_string(rf, "threads", buf));
    s = first_error(s, results_set_attr_string(rf, "cpu_model", cpu));
    s = first_error(s, results_set_attr_int64(rf, "online_cpus", sysconf(_SC_NPROCESSORS_ONLN)));
    /* Other load on the machine skews timings, multithreaded ones most. */
    s = first_error(s, results_set_attr_string(rf, "load_average_at_start", load));
    s = first_error(s, results_set_attr_string(rf, "environment", env));
    join_datasets(cfg, buf, sizeof buf);
    s = first_error(s, results_set_attr_string(rf, "dataset", buf));
    s = first_error(s, results_set_attr_string(rf, "data_params", params));
    join_seeds(cfg, buf, sizeof buf);
    s = first_error(s, results_set_attr_string(rf, "seed", buf));
    s = first_error(s, results_set_attr_string(rf, "start_time", now));
    s = first_error(s, results_set_attr_string(rf, "modes", modes_name(cfg->modes)));
    join_methods(cfg, buf, sizeof buf);
    s = first_error(s, results_set_attr_string(rf, "methods", buf));
    s = first_error(s, results_set_attr_int64(rf, "k", cfg->k));
    s = first_error(s, results_set_attr_int64(rf, "warmup", cfg->warmup));
    if (cfg->modes & SWEEP_MODE_DENSE) {
        join_shapes(cfg->shapes, cfg->nshapes, buf, sizeof buf);
        s = first_error(s, results_set_attr_string(rf, "shapes", buf));
        s = first_error(s, set_list_attr(rf, "bits", &cfg->bits));
        s = first_error(s, set_list_attr(rf, "sketch_dims", &cfg->sketch_dims));
        s = first_error(s, set_sizes_attr(rf, "dense_sizes", cfg, SWEEP_MODE_DENSE));
        s = first_error(s, results_set_attr_int64(rf, "reps", cfg->reps));
    }
    if (cfg->modes & SWEEP_MODE_TOPK) {
        join_shapes(cfg->topk_shapes, cfg->ntopk_shapes, buf, sizeof buf);
        s = first_error(s, results_set_attr_string(rf, "topk_shapes", buf));
        s = first_error(s, results_set_attr_int64(rf, "topk", cfg->topk));
        s = first_error(s, set_list_attr(rf, "candidates", &cfg->candidates));
        s = first_error(s, set_list_attr(rf, "topk_bits", &cfg->topk_bits));
        s = first_error(s, set_list_attr(rf, "topk_sketch_dims", &cfg->topk_sketch_dims));
        s = first_error(s, set_sizes_attr(rf, "topk_sizes", cfg, SWEEP_MODE_TOPK));
        s = first_error(s, results_set_attr_int64(rf, "topk_reps", cfg->topk_reps));
    }
    s = first_error(s, results_set_attr_string(rf, "command_line", cmd));
    return s;
}

/* ------------------------------------------------------------------------ */
/* The results file: create, resume or refuse                               */
/* ------------------------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/*
 * Reopen an existing results file to resume: it must hold the same spec.
 * *done receives the sorted config hashes of its rows. Returns -1 to go on,
 * else the exit status (messages on stderr).
 */
static int resume_file(const sweep_config *cfg, const char *prog, const char *spec, results_file **rf,
                       uint64_t **done, int64_t *ndone)
{
    char msg[1024];
    smm_status s = results_open(cfg->out, 1, rf, msg, sizeof msg);
    if (s != SMM_OK) {
        fprintf(stderr, "%s: cannot resume into %s: %s; use --overwrite to replace it\n", prog, cfg->out, msg);
        return SWEEP_EXIT_USAGE;
    }
    char *stored = NULL;
    s = results_get_attr_string(*rf, "spec", &stored);
    if (s != SMM_OK || strcmp(stored, spec) != 0) {
        if (s != SMM_OK)
            fprintf(stderr, "%s: %s has no spec attribute; use --overwrite to replace it\n", prog, cfg->out);
        else
            fprintf(stderr,
                    "%s: %s holds the results of a different spec (spec_hash %016llx, this spec %016llx); "
                    "use --overwrite to replace it, or another --out\n",
                    prog, cfg->out, (unsigned long long)XXH3_64bits(stored, strlen(stored)),
                    (unsigned long long)XXH3_64bits(spec, strlen(spec)));
        free(stored);
        return SWEEP_EXIT_USAGE;
    }
    free(stored);
    results_row *rows;
    int64_t count;
    s = results_read_rows(*rf, &rows, &count);
    uint64_t *hashes = malloc((size_t)(count > 0 ? count : 1) * sizeof *hashes);
    if (s != SMM_OK || hashes == NULL) {
        fprintf(stderr, "%s: cannot read the rows of %s: %s\n", prog, cfg->out,
                smm_status_str(s != SMM_OK ? s : SMM_ERR_NO_MEMORY));
        free(rows);
        free(hashes);
        return SWEEP_EXIT_RUN_FAILED;
    }
    for (int64_t i = 0; i < count; i++)
        hashes[i] = rows[i].config_hash;
    free(rows);
    qsort(hashes, (size_t)count, sizeof *hashes, cmp_u64);
    *done = hashes;
    *ndone = count;
    char now[64];
    iso_time_now(now, sizeof now);
    s = results_set_attr_string(*rf, "last_resume_time", now);
    if (s != SMM_OK) {
        fprintf(stderr, "%s: cannot write to %s: %s\n", prog, cfg->out, smm_status_str(s));
        return SWEEP_EXIT_RUN_FAILED;
    }
    return -1;
}

/* Create the results file (replacing any) with the attributes of the run. Returns -1 or the exit status. */
static int create_file(const sweep_config *cfg, const char *prog, const char *isa, const char *spec,
                       int64_t grid_size, int argc, char **argv, results_file **rf)
{
    char msg[1024];
    int err = make_parent_dirs(cfg->out);
    if (err != 0) {
        fprintf(stderr, "%s: cannot create the directory of %s: %s\n", prog, cfg->out, strerror(err));
        return SWEEP_EXIT_RUN_FAILED;
    }
    smm_status s = results_create(cfg->out, rf, msg, sizeof msg);
    if (s == SMM_OK)
        s = write_attributes(*rf, cfg, isa, spec, grid_size, argc, argv);
    if (s != SMM_OK) {
        fprintf(stderr, "%s: %s: %s\n", prog, smm_status_str(s), *rf == NULL ? msg : cfg->out);
        return SWEEP_EXIT_RUN_FAILED;
    }
    return -1;
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
                                    smm_status_str(s));
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
    if (argc > 1 && strcmp(argv[1], "merge") == 0)
        return sweep_merge_main(argc, argv);
    sweep_config cfg;
    int rc = sweep_parse_args(argc, argv, &cfg);
    if (rc >= 0)
        return rc;
    const char *prog = argv[0];

    sweep_grid grid;
    char *spec = sweep_spec_canonical(&cfg);
    if (spec == NULL || sweep_grid_expand(&cfg, &grid) != SMM_OK) {
        fprintf(stderr, "%s: %s\n", prog, smm_status_str(SMM_ERR_NO_MEMORY));
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
        fprintf(stderr, "%s: ISA selection failed: %s\n", prog, smm_status_str(s));
        sweep_grid_free(&grid);
        free(spec);
        return SWEEP_EXIT_RUN_FAILED;
    }
    sweep_progress progress;
    sweep_run run = { &cfg, prog, smm_isa_name(isa_id), NULL, &progress, 0, 0 };
    const char *stop = getenv("SKETCHMM_SWEEP_TEST_STOP_AFTER");
    if (stop != NULL)
        run.stop_after = strtoll(stop, NULL, 10);

    /* The results file: resume into it when it exists, unless --overwrite. */
    uint64_t *done = NULL;
    int64_t ndone = 0;
    if (!cfg.overwrite && access(cfg.out, F_OK) == 0)
        rc = resume_file(&cfg, prog, spec, &run.rf, &done, &ndone);
    else
        rc = create_file(&cfg, prog, run.isa, spec, grid.count, argc, argv, &run.rf);
    char shard[64] = "all";
    if (cfg.shard_count > 1)
        snprintf(shard, sizeof shard, "%d/%d", cfg.shard_index, cfg.shard_count);
    if (rc < 0 && (results_set_attr_string(run.rf, "shard", shard) != SMM_OK ||
                   results_set_attr_string(run.rf, "end_time", "unfinished") != SMM_OK)) {
        fprintf(stderr, "%s: cannot write to %s\n", prog, cfg.out);
        rc = SWEEP_EXIT_RUN_FAILED;
    }
    unsigned char *pending = calloc((size_t)(end - begin + 1), 1);
    if (rc < 0 && pending == NULL) {
        fprintf(stderr, "%s: %s\n", prog, smm_status_str(SMM_ERR_NO_MEMORY));
        rc = SWEEP_EXIT_RUN_FAILED;
    }
    if (rc >= 0) {
        results_close(run.rf);
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
    char now[64];
    iso_time_now(now, sizeof now);
    if (results_set_attr_string(run.rf, "end_time", now) != SMM_OK) {
        fprintf(stderr, "%s: cannot write to %s\n", prog, cfg.out);
        exit_code = SWEEP_EXIT_RUN_FAILED;
    }
    printf("\nresults: %s (%lld rows, %lld new, %.0f s)\n", cfg.out, (long long)results_rows(run.rf),
           (long long)run.appended, metrics_now() - t0);

    if (results_close(run.rf) != SMM_OK) {
        fprintf(stderr, "%s: closing %s failed\n", prog, cfg.out);
        exit_code = SWEEP_EXIT_RUN_FAILED;
    }
    free(pending);
    free(done);
    sweep_grid_free(&grid);
    free(spec);
    return exit_code;
}
