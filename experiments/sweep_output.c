/*
 * sweep_output.c - the results file of a run of sketchmm_sweep: refused
 * (another spec, or damaged), resumed, or created with its first row, with
 * the attributes that describe the run. See sweep.h.
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

#include "sweep_check.h"
#include "sweep_data.h"
#include "sweep_options.h"
#include "sweep_run.h"

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
    static const char *const names[] = { "SKETCHMM_ISA", "SKETCHMM_NUM_THREADS", "SKETCHMM_TUNING", "OMP_NUM_THREADS",
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
                                 sketch_method_name(cfg->methods[i]));
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
static smm_status write_attributes(results_file *rf, const sweep_run *run)
{
    const sweep_config *cfg = run->cfg;
    const char *spec = run->spec;
    char commit[128], cpu[256], params[4096], buf[4096], cmd[4096], env[1024];
    git_commit(commit, sizeof commit);
    cpu_model(cpu, sizeof cpu);
    runtime_env(env, sizeof env);
    data_params(cfg, params, sizeof params);
    join_argv(run->argc, run->argv, cmd, sizeof cmd);

    smm_status s = SMM_OK;
    s = first_error(s, results_set_attr_string(rf, "spec", spec));
    s = first_error(s, results_set_attr_uint64(rf, "spec_hash", XXH3_64bits(spec, strlen(spec))));
    s = first_error(s, results_set_attr_int64(rf, "grid_size", run->grid_size));
    s = first_error(s, results_set_attr_string(rf, "library_version", smm_version()));
    s = first_error(s, results_set_attr_string(rf, "git_commit", commit));
    s = first_error(s, results_set_attr_string(rf, "isa", run->isa));
    s = first_error(s, results_set_attr_string(rf, "exact_kernel", exact_sgemm_kernel_name()));
    s = first_error(s, results_set_attr_string(rf, "hamming_kernel", sketch_hamming_kernel_name()));
    /* which exact core the speedups are measured against: its configuration and where it came from */
    smm_exact_config exact;
    char exact_text[SMM_CONFIG_TEXT] = "unavailable";
    const char *exact_source = "unavailable";
    if (smm_exact_config_get(&exact) == SMM_OK) {
        smm_exact_config_describe(&exact, exact_text, sizeof exact_text);
        exact_source = smm_config_source_name(exact.source);
    }
    s = first_error(s, results_set_attr_string(rf, "exact_config", exact_text));
    s = first_error(s, results_set_attr_string(rf, "exact_config_source", exact_source));
    join_resolved_threads(cfg, buf, sizeof buf);
    s = first_error(s, results_set_attr_string(rf, "threads", buf));
    s = first_error(s, results_set_attr_string(rf, "cpu_model", cpu));
    s = first_error(s, results_set_attr_int64(rf, "online_cpus", sysconf(_SC_NPROCESSORS_ONLN)));
    /* Other load on the machine skews timings, multithreaded ones most. */
    s = first_error(s, results_set_attr_string(rf, "load_average_at_start", run->load_at_start));
    s = first_error(s, results_set_attr_string(rf, "environment", env));
    join_datasets(cfg, buf, sizeof buf);
    s = first_error(s, results_set_attr_string(rf, "dataset", buf));
    s = first_error(s, results_set_attr_string(rf, "data_params", params));
    join_seeds(cfg, buf, sizeof buf);
    s = first_error(s, results_set_attr_string(rf, "seed", buf));
    s = first_error(s, results_set_attr_string(rf, "start_time", run->start_time));
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
/* The results file: refuse, resume or create                               */
/* ------------------------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The shard attribute: "all" or "I/N". */
static void shard_name(const sweep_config *cfg, char *buf, size_t size)
{
    if (cfg->shard_count > 1)
        snprintf(buf, size, "%d/%d", cfg->shard_index, cfg->shard_count);
    else
        snprintf(buf, size, "all");
}

/*
 * Check the existing results file read-only: the same spec, every row
 * sound. On success *done gets the sorted config hashes of its rows and -1
 * is returned; 0 means the file is an abandoned creation of an older
 * sketchmm_sweep (no spec, no rows) to be replaced; otherwise the exit
 * status, with the reason on stderr. The file is not modified.
 */
static int check_existing(const sweep_run *run, const sweep_grid *grid, uint64_t **done, int64_t *ndone)
{
    const sweep_config *cfg = run->cfg;
    const char *prog = run->prog;
    char msg[2048];
    results_file *rf = NULL;
    smm_status s = results_open(cfg->out, 0, &rf, msg, sizeof msg);
    if (s != SMM_OK) {
        fprintf(stderr, "%s: cannot resume into %s: %s; use --overwrite to replace it\n", prog, cfg->out, msg);
        return SWEEP_EXIT_USAGE;
    }
    char *stored = NULL;
    s = results_get_attr_string(rf, "spec", &stored);
    if (s != SMM_OK && results_rows(rf) == 0) {
        results_close(rf);
        return 0;
    }
    int rc = -1;
    if (s != SMM_OK) {
        fprintf(stderr, "%s: %s has no spec attribute; use --overwrite to replace it\n", prog, cfg->out);
        rc = SWEEP_EXIT_USAGE;
    } else if (strcmp(stored, run->spec) != 0) {
        fprintf(stderr,
                "%s: %s holds the results of a different spec (spec_hash %016llx, this spec %016llx); "
                "use --overwrite to replace it, or another --out\n",
                prog, cfg->out, (unsigned long long)XXH3_64bits(stored, strlen(stored)),
                (unsigned long long)XXH3_64bits(run->spec, strlen(run->spec)));
        rc = SWEEP_EXIT_USAGE;
    }
    free(stored);
    results_row *rows = NULL;
    unsigned char *unreadable = NULL;
    int64_t count = 0;
    if (rc < 0 && (s = results_read_rows(rf, &rows, &count, &unreadable)) != SMM_OK) {
        fprintf(stderr, "%s: cannot read the rows of %s: %s\n", prog, cfg->out, dataset_status_str(s));
        rc = SWEEP_EXIT_RUN_FAILED;
    }
    if (rc < 0) {
        int64_t nbad = sweep_check_rows(cfg, grid->count, grid, rows, count, unreadable, NULL, msg, sizeof msg);
        if (nbad > 0) {
            fprintf(stderr,
                    "%s: %s is damaged: %lld of its %lld rows fail their checks: %s.\n"
                    "Copy the sound rows into a new file with `%s merge --salvage GOOD.h5 %s`, then resume "
                    "GOOD.h5 (--out GOOD.h5) to run the lost configurations again.\n",
                    prog, cfg->out, (long long)nbad, (long long)count, msg, prog, cfg->out);
            rc = SWEEP_EXIT_USAGE;
        }
    }
    uint64_t *hashes = rc < 0 ? malloc((size_t)(count > 0 ? count : 1) * sizeof *hashes) : NULL;
    if (rc < 0 && hashes == NULL) {
        fprintf(stderr, "%s: %s\n", prog, dataset_status_str(SMM_ERR_NO_MEMORY));
        rc = SWEEP_EXIT_RUN_FAILED;
    }
    if (rc < 0) {
        for (int64_t i = 0; i < count; i++)
            hashes[i] = rows[i].config_hash;
        qsort(hashes, (size_t)count, sizeof *hashes, cmp_u64);
        *done = hashes;
        *ndone = count;
    }
    free(rows);
    free(unreadable);
    results_close(rf);
    return rc;
}

int sweep_output_open(sweep_run *run, const sweep_grid *grid, uint64_t **done, int64_t *ndone)
{
    const sweep_config *cfg = run->cfg;
    *done = NULL;
    *ndone = 0;
    iso_time_now(run->start_time, sizeof run->start_time);
    load_average(run->load_at_start, sizeof run->load_at_start);
    int err = make_parent_dirs(cfg->out);
    if (err != 0) {
        fprintf(stderr, "%s: cannot create the directory of %s: %s\n", run->prog, cfg->out, strerror(err));
        return SWEEP_EXIT_RUN_FAILED;
    }
    if (cfg->overwrite || access(cfg->out, F_OK) != 0)
        return -1;
    int rc = check_existing(run, grid, done, ndone);
    if (rc == 0) {
        fprintf(stderr, "%s: note: %s holds no spec and no rows (a creation cut short): replacing it\n",
                run->prog, cfg->out);
        return -1;
    }
    if (rc >= 0)
        return rc;

    /* Sound: reopen it to append. */
    char msg[1024], now[64], shard[64];
    smm_status s = results_open(cfg->out, 1, &run->rf, msg, sizeof msg);
    iso_time_now(now, sizeof now);
    shard_name(cfg, shard, sizeof shard);
    if (s == SMM_OK)
        s = results_set_attr_string(run->rf, "last_resume_time", now);
    if (s == SMM_OK)
        s = results_set_attr_string(run->rf, "shard", shard);
    if (s == SMM_OK)
        s = results_set_attr_string(run->rf, "end_time", "unfinished");
    if (s != SMM_OK) {
        fprintf(stderr, "%s: cannot write to %s: %s\n", run->prog, cfg->out, run->rf == NULL ? msg : dataset_status_str(s));
        results_close(run->rf);
        run->rf = NULL;
        free(*done);
        *done = NULL;
        *ndone = 0;
        return SWEEP_EXIT_RUN_FAILED;
    }
    return -1;
}

/* The new results file, complete with its attributes, at --out (results_publish). */
static smm_status create_file(sweep_run *run, char *msg, size_t msg_size)
{
    results_file *rf = NULL;
    char shard[64];
    shard_name(run->cfg, shard, sizeof shard);
    smm_status s = results_create(run->cfg->out, &rf, msg, msg_size);
    if (s != SMM_OK)
        return s;
    s = write_attributes(rf, run);
    if (s == SMM_OK)
        s = results_set_attr_string(rf, "shard", shard);
    if (s == SMM_OK)
        s = results_set_attr_string(rf, "end_time", "unfinished");
    if (s != SMM_OK)
        snprintf(msg, msg_size, "cannot write the attributes of %s", run->cfg->out);
    if (s == SMM_OK)
        s = results_publish(rf, msg, msg_size);
    if (s != SMM_OK) {
        results_close(rf);
        return s;
    }
    run->rf = rf;
    return SMM_OK;
}

smm_status sweep_output_append(sweep_run *run, const results_row *row, char *msg, size_t msg_size)
{
    msg[0] = '\0';
    smm_status s = run->rf == NULL ? create_file(run, msg, msg_size) : SMM_OK;
    if (s == SMM_OK)
        s = results_append(run->rf, row);
    if (s != SMM_OK && msg[0] == '\0')
        snprintf(msg, msg_size, "%s: %s", run->cfg->out, dataset_status_str(s));
    return s;
}

smm_status sweep_output_close(sweep_run *run)
{
    if (run->rf == NULL)
        return SMM_OK;
    char now[64];
    iso_time_now(now, sizeof now);
    smm_status s = results_set_attr_string(run->rf, "end_time", now);
    if (s != SMM_OK)
        fprintf(stderr, "%s: cannot write to %s\n", run->prog, run->cfg->out);
    smm_status c = results_close(run->rf);
    run->rf = NULL;
    if (c != SMM_OK)
        fprintf(stderr, "%s: closing %s failed\n", run->prog, run->cfg->out);
    return s != SMM_OK ? s : c;
}
