/*
 * sweep_harness.h - running sketchmm_sweep (SKETCHMM_SWEEP_EXE) from a test
 * and reading its HDF5 results file back with the HDF5 C API; shared by
 * test_sweep.c and test_sweep_integrity.c. Include after test_tmpdir.h.
 */
#ifndef SMM_TEST_SWEEP_HARNESS_H
#define SMM_TEST_SWEEP_HARNESS_H

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>
#include <hdf5.h>

#include "test_tmpdir.h"

#ifndef SKETCHMM_SWEEP_EXE
#error "SKETCHMM_SWEEP_EXE must name the sketchmm_sweep executable"
#endif

/* ------------------------------------------------------------------------ */
/* Temporary directory and running the driver                               */
/* ------------------------------------------------------------------------ */

/* Copy a file to stderr (the driver's log, when a check fails). */
static inline void dump_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    char line[512];
    fprintf(stderr, "---- %s ----\n", path);
    while (fgets(line, sizeof line, f) != NULL)
        fputs(line, stderr);
    fprintf(stderr, "----\n");
    fclose(f);
}

/* 1 when the file at path contains needle. */
static inline int file_contains(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    static char text[1 << 16];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    return strstr(text, needle) != NULL;
}

/*
 * Start the program argv (NULL-terminated), its stdout and stderr going to
 * test_tmpdir/log_name, with the environment variable env_name set to
 * env_value when env_name is not NULL, and files limited to fsize_limit
 * bytes when it is positive (RLIMIT_FSIZE, SIGXFSZ ignored: writes past the
 * limit fail as on a full disk). Returns its pid.
 */
static inline pid_t spawn_logged(const char *const *argv, const char *log_name, const char *env_name,
                                 const char *env_value, long long fsize_limit)
{
    char log[1024];
    test_tmp_path(log_name, log, sizeof log);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            _exit(126);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        close(fd);
        if (env_name != NULL)
            setenv(env_name, env_value, 1);
        if (fsize_limit > 0) {
            struct rlimit lim = { (rlim_t)fsize_limit, (rlim_t)fsize_limit };
            signal(SIGXFSZ, SIG_IGN);
            if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
                _exit(125);
        }
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* spawn_logged of the driver with args (NULL-terminated), logging to test_tmpdir/log.txt. */
static inline pid_t spawn_driver(const char *const *args, const char *env_name, const char *env_value,
                                 long long fsize_limit)
{
    const char *argv[64];
    int argc = 0;
    argv[argc++] = SKETCHMM_SWEEP_EXE;
    for (int i = 0; args[i] != NULL && argc < 63; i++)
        argv[argc++] = args[i];
    argv[argc] = NULL;
    return spawn_logged(argv, "log.txt", env_name, env_value, fsize_limit);
}

/* spawn_driver and wait for it: the raw wait status. */
static inline int run_driver(const char *const *args, const char *env_name, const char *env_value,
                             long long fsize_limit)
{
    pid_t pid = spawn_driver(args, env_name, env_value, fsize_limit);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    return status;
}

/* run_driver without a file size limit. */
static inline int run_sweep_status(const char *const *args, const char *env_name, const char *env_value)
{
    return run_driver(args, env_name, env_value, 0);
}

/* run_sweep_status without the variable; the exit status (-1 if the driver did not exit normally). */
static inline int run_sweep(const char *const *args)
{
    int status = run_sweep_status(args, NULL, NULL);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static inline const char *log_path(void)
{
    static char log[1024];
    return test_tmp_path("log.txt", log, sizeof log);
}

/* ------------------------------------------------------------------------ */
/* Reading the file back                                                    */
/* ------------------------------------------------------------------------ */

/* The fields the tests read; HDF5 matches compound members by name. */
typedef struct {
    uint64_t config_hash;
    int64_t config_index, bytes_per_vector;
    double encode_b_seconds, rest_seconds, encode_a_seconds, estimate_seconds, refine_seconds;
    double recall_at_1, recall_at_10, recall_at_100;
    char mode[8];
    char method[24];
    char dataset[32];
    char isa[16];
    int64_t m, n, k;
    int32_t bits, sketch_dim, topk, candidates;
    int32_t threads;
    int32_t status;
    uint64_t seed;
    double exact_seconds, approx_seconds, speedup, nmse, rel_fro_error, max_abs_error, alignment;
    double recall, recall_index, max_value_error;
} row_view;

static inline hid_t string_type(size_t size)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    ck_assert_int_ge(t, 0);
    ck_assert_int_ge(H5Tset_size(t, size), 0);
    ck_assert_int_ge(H5Tset_strpad(t, H5T_STR_NULLTERM), 0);
    return t;
}

static inline hid_t row_view_type(void)
{
    hid_t s8 = string_type(8), s16 = string_type(16), s24 = string_type(24), s32 = string_type(32);
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(row_view));
    ck_assert_int_ge(t, 0);
    herr_t e = 0;
    e |= H5Tinsert(t, "config_hash", HOFFSET(row_view, config_hash), H5T_NATIVE_UINT64);
    e |= H5Tinsert(t, "config_index", HOFFSET(row_view, config_index), H5T_NATIVE_INT64);
    e |= H5Tinsert(t, "bytes_per_vector", HOFFSET(row_view, bytes_per_vector), H5T_NATIVE_INT64);
    e |= H5Tinsert(t, "encode_b_seconds", HOFFSET(row_view, encode_b_seconds), H5T_NATIVE_DOUBLE);
    e |= H5Tinsert(t, "rest_seconds", HOFFSET(row_view, rest_seconds), H5T_NATIVE_DOUBLE);
    e |= H5Tinsert(t, "encode_a_seconds", HOFFSET(row_view, encode_a_seconds), H5T_NATIVE_DOUBLE);
    e |= H5Tinsert(t, "estimate_seconds", HOFFSET(row_view, estimate_seconds), H5T_NATIVE_DOUBLE);
    e |= H5Tinsert(t, "refine_seconds", HOFFSET(row_view, refine_seconds), H5T_NATIVE_DOUBLE);
    e |= H5Tinsert(t, "recall_at_1", HOFFSET(row_view, recall_at_1), H5T_NATIVE_DOUBLE);
    e |= H5Tinsert(t, "recall_at_10", HOFFSET(row_view, recall_at_10), H5T_NATIVE_DOUBLE);
    e |= H5Tinsert(t, "recall_at_100", HOFFSET(row_view, recall_at_100), H5T_NATIVE_DOUBLE);
    e |= H5Tinsert(t, "mode", HOFFSET(row_view, mode), s8);
    e |= H5Tinsert(t, "method", HOFFSET(row_view, method), s24);
    e |= H5Tinsert(t, "dataset", HOFFSET(row_view, dataset), s32);
    e |= H5Tinsert(t, "isa", HOFFSET(row_view, isa), s16);
    e |= H5Tinsert(t, "m", HOFFSET(row_view, m), H5T_NATIVE_INT64);
    e |= H5Tinsert(t, "n", HOFFSET(row_view, n), H5T_NATIVE_INT64);
    e |= H5Tinsert(t, "k", HOFFSET(row_view, k), H5T_NATIVE_INT64);
    e |= H5Tinsert(t, "bits", HOFFSET(row_view, bits), H5T_NATIVE_INT32);
    e |= H5Tinsert(t, "sketch_dim", HOFFSET(row_view, sketch_dim), H5T_NATIVE_INT32);
    e |= H5Tinsert(t, "topk", HOFFSET(row_view, topk), H5T_NATIVE_INT32);
    e |= H5Tinsert(t, "candidates", HOFFSET(row_view, candidates), H5T_NATIVE_INT32);
    e |= H5Tinsert(t, "threads", HOFFSET(row_view, threads), H5T_NATIVE_INT32);
    e |= H5Tinsert(t, "status", HOFFSET(row_view, status), H5T_NATIVE_INT32);
    e |= H5Tinsert(t, "seed", HOFFSET(row_view, seed), H5T_NATIVE_UINT64);
    e |= H5Tinsert(t, "exact_seconds", HOFFSET(row_view, exact_seconds), H5T_NATIVE_DOUBLE);
    e |= H5Tinsert(t, "approx_seconds", HOFFSET(row_view, approx_seconds), H5T_NATIVE_DOUBLE);
    e |= H5Tinsert(t, "speedup", HOFFSET(row_view, speedup), H5T_NATIVE_DOUBLE);
    e |= H5Tinsert(t, "nmse", HOFFSET(row_view, nmse), H5T_NATIVE_DOUBLE);
    e |= H5Tinsert(t, "rel_fro_error", HOFFSET(row_view, rel_fro_error), H5T_NATIVE_DOUBLE);
    e |= H5Tinsert(t, "max_abs_error", HOFFSET(row_view, max_abs_error), H5T_NATIVE_DOUBLE);
    e |= H5Tinsert(t, "alignment", HOFFSET(row_view, alignment), H5T_NATIVE_DOUBLE);
    e |= H5Tinsert(t, "recall", HOFFSET(row_view, recall), H5T_NATIVE_DOUBLE);
    e |= H5Tinsert(t, "recall_index", HOFFSET(row_view, recall_index), H5T_NATIVE_DOUBLE);
    e |= H5Tinsert(t, "max_value_error", HOFFSET(row_view, max_value_error), H5T_NATIVE_DOUBLE);
    ck_assert_int_ge(e, 0);
    H5Tclose(s8);
    H5Tclose(s16);
    H5Tclose(s24);
    H5Tclose(s32);
    return t;
}

/* Read every row of /results into a malloc'ed array; *count rows. */
static inline row_view *read_rows(hid_t file, int64_t *count)
{
    hid_t dset = H5Dopen2(file, "results", H5P_DEFAULT);
    ck_assert_int_ge(dset, 0);
    hid_t space = H5Dget_space(dset);
    ck_assert_int_eq(H5Sget_simple_extent_ndims(space), 1);
    hsize_t dims[1], maxdims[1];
    H5Sget_simple_extent_dims(space, dims, maxdims);
    ck_assert_msg(maxdims[0] == H5S_UNLIMITED, "/results must be extendible");
    hid_t dcpl = H5Dget_create_plist(dset);
    ck_assert_int_eq(H5Pget_layout(dcpl), H5D_CHUNKED);
    H5Pclose(dcpl);

    row_view *rows = calloc(dims[0] > 0 ? dims[0] : 1, sizeof *rows);
    ck_assert_ptr_nonnull(rows);
    hid_t t = row_view_type();
    if (dims[0] > 0)
        ck_assert_int_ge(H5Dread(dset, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows), 0);
    H5Tclose(t);
    H5Sclose(space);
    H5Dclose(dset);
    *count = (int64_t)dims[0];
    return rows;
}

/* A string attribute of the root group (fixed or variable length), malloc'ed. */
static inline char *read_attr_string(hid_t file, const char *name)
{
    ck_assert_msg(H5Aexists(file, name) > 0, "attribute %s missing", name);
    hid_t attr = H5Aopen(file, name, H5P_DEFAULT);
    ck_assert_int_ge(attr, 0);
    hid_t ftype = H5Aget_type(attr);
    ck_assert_int_eq(H5Tget_class(ftype), H5T_STRING);
    char *copy;
    if (H5Tis_variable_str(ftype) > 0) {
        hid_t mtype = H5Tcopy(H5T_C_S1);
        H5Tset_size(mtype, H5T_VARIABLE);
        H5Tset_cset(mtype, H5Tget_cset(ftype));
        char *value = NULL;
        ck_assert_int_ge(H5Aread(attr, mtype, &value), 0);
        ck_assert_ptr_nonnull(value);
        copy = strdup(value);
        H5free_memory(value);
        H5Tclose(mtype);
    } else {
        size_t size = H5Tget_size(ftype);
        hid_t mtype = string_type(size + 1);
        H5Tset_cset(mtype, H5Tget_cset(ftype));
        copy = calloc(size + 1, 1);
        ck_assert_int_ge(H5Aread(attr, mtype, copy), 0);
        H5Tclose(mtype);
    }
    H5Tclose(ftype);
    H5Aclose(attr);
    ck_assert_ptr_nonnull(copy);
    return copy;
}

static inline int64_t read_attr_int(hid_t file, const char *name)
{
    ck_assert_msg(H5Aexists(file, name) > 0, "attribute %s missing", name);
    hid_t attr = H5Aopen(file, name, H5P_DEFAULT);
    hid_t ftype = H5Aget_type(attr);
    ck_assert_int_eq(H5Tget_class(ftype), H5T_INTEGER);
    int64_t v = 0;
    ck_assert_int_ge(H5Aread(attr, H5T_NATIVE_INT64, &v), 0);
    H5Tclose(ftype);
    H5Aclose(attr);
    return v;
}


/* Open `out` and check the field names of /results. */
static inline hid_t open_results(const char *out)
{
    hid_t file = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
    ck_assert_int_ge(file, 0);
    hid_t dset = H5Dopen2(file, "results", H5P_DEFAULT);
    ck_assert_int_ge(dset, 0);
    hid_t ftype = H5Dget_type(dset);
    ck_assert_int_eq(H5Tget_class(ftype), H5T_COMPOUND);
    static const char *const fields[] = {
        "config_hash", "config_index", "bytes_per_vector", "encode_b_seconds", "rest_seconds",
        "encode_a_seconds", "estimate_seconds", "refine_seconds", "recall_at_1", "recall_at_10", "recall_at_100", "mode", "method", "dataset", "m", "n", "k", "bits", "sketch_dim", "topk", "candidates", "seed",
        "threads", "isa", "status", "exact_seconds", "approx_seconds", "speedup", "nmse",
        "rel_fro_error", "max_abs_error", "recall", "recall_index", "max_value_error", "alignment"
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        ck_assert_msg(H5Tget_member_index(ftype, fields[i]) >= 0, "field %s missing", fields[i]);
    H5Tclose(ftype);
    H5Dclose(dset);
    return file;
}


/* Write text to test_tmpdir/name; the path into buf. */
static inline const char *write_tmp_file(const char *name, const char *text, char *buf, size_t size)
{
    test_tmp_path(name, buf, size);
    FILE *f = fopen(buf, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return buf;
}

/* The whole log, malloc'ed. */
static inline char *read_log(void)
{
    FILE *f = fopen(log_path(), "r");
    ck_assert_ptr_nonnull(f);
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    size_t got;
    while ((got = fread(text + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len + 1 == cap) {
            cap *= 2;
            text = realloc(text, cap);
            ck_assert_ptr_nonnull(text);
        }
    }
    fclose(f);
    text[len] = '\0';
    return text;
}


/* A run into out of a small grid: 2 dense rows, then 2 top-k groups of 2 rows. */
static inline void small_run_args(const char *out, const char **args, const char *extra)
{
    static const char *const base[] = { "--datasets", "clustered", "--k", "24", "--shapes", "40x32",
                                        "--topk-shapes", "20x90", "--topk", "4", "--candidates", "8,90",
                                        "--methods", "simhash,countsketch", "--bits", "64",
                                        "--sketch-dims", "8", "--reps", "2", "--topk-reps", "1",
                                        "--threads", "1", "--seeds", "5" };
    int a = 0;
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
        args[a++] = base[i];
    args[a++] = "--out";
    args[a++] = out;
    if (extra != NULL) {
        args[a++] = "--shard";
        args[a++] = extra;
    }
    args[a] = NULL;
}
#define SMALL_RUN_ROWS 6

static inline char *attr_of(const char *path, const char *name)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    ck_assert_int_ge(file, 0);
    char *v = read_attr_string(file, name);
    H5Fclose(file);
    return v;
}

static inline row_view *rows_of(const char *path, int64_t *count)
{
    hid_t file = open_results(path);
    row_view *rows = read_rows(file, count);
    H5Fclose(file);
    return rows;
}

static inline int cmp_row_hash(const void *a, const void *b)
{
    uint64_t x = ((const row_view *)a)->config_hash, y = ((const row_view *)b)->config_hash;
    return (x > y) - (x < y);
}


/* Run `sketchmm_sweep merge` with args (NULL-terminated, after "merge"). */
static inline int run_merge(const char *const *args)
{
    const char *argv[32];
    int a = 0;
    argv[a++] = "merge";
    for (int i = 0; args[i] != NULL; i++)
        argv[a++] = args[i];
    argv[a] = NULL;
    return run_sweep(argv);
}


/* The number after "grid: " in a --dry-run log, -1 if missing. */
static inline long dry_run_size(void)
{
    char *text = read_log();
    const char *p = strstr(text, "grid: ");
    long n = p != NULL ? strtol(p + 6, NULL, 10) : -1;
    free(text);
    return n;
}

#endif /* SMM_TEST_SWEEP_HARNESS_H */
