/*
 * sweep.c - sketchmm_sweep: accuracy against speed of every approximate
 * method of sketchmm, in two modes, recorded in an HDF5 table.
 *
 *   dense  approx_sgemm against exact_sgemm on C = A * B (sweep_dense.c)
 *   topk   approx_topk against exact_topk (sweep_topk.c)
 *
 * This file is the driver: the command line (sweep_cli.c), threads and ISA
 * path fixed for the whole run, the results file and its attributes
 * describing the run, then the modes. The timing scheme is in
 * sweep_rounds.c.
 *
 * Run `sketchmm_sweep --help` for the flags. Output: progress on stderr, a
 * table per mode and the path of the HDF5 file on stdout, the file itself
 * (format in results_h5.h). Exit status 0 on success, 1 when the run or a
 * configuration failed (finished rows stay in the file), 2 for a bad command
 * line.
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

/* Write the run's attributes; returns the first failing status. */
static smm_status write_attributes(results_file *rf, const sweep_config *cfg, int threads,
                                   const char *isa, int argc, char **argv)
{
    char commit[128], cpu[256], load[128], created[64], params[1024], methods[512], cmd[4096];
    char env[1024];
    git_commit(commit, sizeof commit);
    cpu_model(cpu, sizeof cpu);
    load_average(load, sizeof load);
    runtime_env(env, sizeof env);
    iso_time_now(created, sizeof created);
    sweep_data_params(cfg, params, sizeof params);
    join_methods(cfg, methods, sizeof methods);
    join_argv(argc, argv, cmd, sizeof cmd);

    smm_status s = SMM_OK;
    s = first_error(s, results_set_attr_string(rf, "library_version", smm_version()));
    s = first_error(s, results_set_attr_string(rf, "git_commit", commit));
    s = first_error(s, results_set_attr_string(rf, "isa", isa));
    s = first_error(s, results_set_attr_string(rf, "exact_kernel", exact_sgemm_impl()));
    s = first_error(s, results_set_attr_string(rf, "hamming_kernel", sketch_hamming_impl()));
    s = first_error(s, results_set_attr_int64(rf, "threads", threads));
    s = first_error(s, results_set_attr_string(rf, "cpu_model", cpu));
    s = first_error(s, results_set_attr_int64(rf, "online_cpus", sysconf(_SC_NPROCESSORS_ONLN)));
    /* Other load on the machine skews timings, multithreaded ones most. */
    s = first_error(s, results_set_attr_string(rf, "load_average_at_start", load));
    s = first_error(s, results_set_attr_string(rf, "environment", env));
    s = first_error(s, results_set_attr_string(rf, "dataset", sweep_data_names[cfg->data]));
    s = first_error(s, results_set_attr_string(rf, "data_params", params));
    s = first_error(s, results_set_attr_uint64(rf, "seed", cfg->seed));
    s = first_error(s, results_set_attr_string(rf, "created", created));
    s = first_error(s, results_set_attr_string(rf, "modes", modes_name(cfg->modes)));
    s = first_error(s, results_set_attr_string(rf, "methods", methods));
    s = first_error(s, results_set_attr_int64(rf, "k", cfg->k));
    s = first_error(s, results_set_attr_int64(rf, "warmup", cfg->warmup));
    if (cfg->modes & SWEEP_MODE_DENSE) {
        s = first_error(s, results_set_attr_int64(rf, "m", cfg->m));
        s = first_error(s, results_set_attr_int64(rf, "n", cfg->n));
        s = first_error(s, set_list_attr(rf, "bits", &cfg->bits));
        s = first_error(s, set_list_attr(rf, "sketch_dims", &cfg->sketch_dims));
        s = first_error(s, set_sizes_attr(rf, "dense_sizes", cfg, SWEEP_MODE_DENSE));
        s = first_error(s, results_set_attr_int64(rf, "reps", cfg->reps));
    }
    if (cfg->modes & SWEEP_MODE_TOPK) {
        s = first_error(s, results_set_attr_int64(rf, "queries", cfg->queries));
        s = first_error(s, results_set_attr_int64(rf, "database", cfg->database));
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
/* main                                                                     */
/* ------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    sweep_config cfg;
    int rc = sweep_parse_args(argc, argv, &cfg);
    if (rc >= 0)
        return rc;
    const char *prog = argv[0];

    /* Threads and ISA path, fixed for the whole sweep. */
    smm_status s = smm_set_num_threads(cfg.threads);
    if (s != SMM_OK) {
        fprintf(stderr, "%s: cannot set %d threads: %s\n", prog, cfg.threads, smm_status_str(s));
        return SWEEP_EXIT_RUN_FAILED;
    }
    smm_isa isa_id;
    s = smm_get_isa(&isa_id);
    if (s != SMM_OK) {
        fprintf(stderr, "%s: ISA selection failed: %s\n", prog, smm_status_str(s));
        return SWEEP_EXIT_RUN_FAILED;
    }
    sweep_run run = { &cfg, prog, smm_get_num_threads(), smm_isa_name(isa_id), NULL };

    /* The results file, with the description of the run. */
    char msg[1024];
    int err = make_parent_dirs(cfg.out);
    if (err != 0) {
        fprintf(stderr, "%s: cannot create the directory of %s: %s\n", prog, cfg.out, strerror(err));
        return SWEEP_EXIT_RUN_FAILED;
    }
    s = results_create(cfg.out, &run.rf, msg, sizeof msg);
    if (s == SMM_OK)
        s = write_attributes(run.rf, &cfg, run.threads, run.isa, argc, argv);
    if (s != SMM_OK) {
        fprintf(stderr, "%s: %s: %s\n", prog, smm_status_str(s), run.rf == NULL ? msg : cfg.out);
        results_close(run.rf);
        return SWEEP_EXIT_RUN_FAILED;
    }

    /* The modes; a failed one does not keep the other from running. */
    int exit_code = EXIT_SUCCESS;
    double t0 = metrics_now();
    if ((cfg.modes & SWEEP_MODE_DENSE) && sweep_dense(&run) != EXIT_SUCCESS)
        exit_code = SWEEP_EXIT_RUN_FAILED;
    if ((cfg.modes & SWEEP_MODE_TOPK) && sweep_topk(&run) != EXIT_SUCCESS)
        exit_code = SWEEP_EXIT_RUN_FAILED;
    printf("\nresults: %s (%lld rows, %.0f s)\n", cfg.out, (long long)results_rows(run.rf),
           metrics_now() - t0);

    if (results_close(run.rf) != SMM_OK) {
        fprintf(stderr, "%s: closing %s failed\n", prog, cfg.out);
        exit_code = SWEEP_EXIT_RUN_FAILED;
    }
    return exit_code;
}
