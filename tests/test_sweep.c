/*
 * test_sweep.c - the sweep driver end to end: run sketchmm_sweep
 * (SKETCHMM_SWEEP_EXE) on small synthetic data in dense, top-k and both
 * modes, read its HDF5 file back with the HDF5 C API and check the table and
 * the attributes; check that bad command lines are rejected.
 */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hdf5.h>

#include "test_tmpdir.h"
#include "test_util.h"

#ifndef SKETCHMM_SWEEP_EXE
#error "SKETCHMM_SWEEP_EXE must name the sketchmm_sweep executable"
#endif

/* ------------------------------------------------------------------------ */
/* Temporary directory and running the driver                               */
/* ------------------------------------------------------------------------ */

/* Copy a file to stderr (the driver's log, when a check fails). */
static void dump_file(const char *path)
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
static int file_contains(const char *path, const char *needle)
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
 * Run the driver with args (NULL-terminated), its stdout and stderr going to
 * test_tmpdir/log.txt. Returns its exit status (-1 if it did not exit normally).
 */
static int run_sweep(const char *const *args)
{
    const char *argv[64];
    int argc = 0;
    argv[argc++] = SKETCHMM_SWEEP_EXE;
    for (int i = 0; args[i] != NULL && argc < 63; i++)
        argv[argc++] = args[i];
    argv[argc] = NULL;

    char log[1024];
    test_tmp_path("log.txt", log, sizeof log);
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
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static const char *log_path(void)
{
    static char log[1024];
    return test_tmp_path("log.txt", log, sizeof log);
}

/* ------------------------------------------------------------------------ */
/* Reading the file back                                                    */
/* ------------------------------------------------------------------------ */

/* The fields the tests read; HDF5 matches compound members by name. */
typedef struct {
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

static hid_t string_type(size_t size)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    ck_assert_int_ge(t, 0);
    ck_assert_int_ge(H5Tset_size(t, size), 0);
    ck_assert_int_ge(H5Tset_strpad(t, H5T_STR_NULLTERM), 0);
    return t;
}

static hid_t row_view_type(void)
{
    hid_t s8 = string_type(8), s16 = string_type(16), s24 = string_type(24), s32 = string_type(32);
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(row_view));
    ck_assert_int_ge(t, 0);
    herr_t e = 0;
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
static row_view *read_rows(hid_t file, int64_t *count)
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
static char *read_attr_string(hid_t file, const char *name)
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

static int64_t read_attr_int(hid_t file, const char *name)
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

/* ------------------------------------------------------------------------ */
/* Tests                                                                    */
/* ------------------------------------------------------------------------ */

/* Timing fields of a successful row: positive, and speedup = exact / approx. */
static void check_times(const row_view *r)
{
    ck_assert_msg(r->exact_seconds > 0.0 && r->approx_seconds > 0.0, "times %g %g", r->exact_seconds,
                  r->approx_seconds);
    ck_assert_msg(r->speedup > 0.0 && isfinite(r->speedup), "speedup %g", r->speedup);
    ck_assert_msg(fabs(r->speedup - r->exact_seconds / r->approx_seconds) <= 1e-9 * r->speedup,
                  "speedup %g is not exact/approx", r->speedup);
}

/* Open `out` and check the field names of /results. */
static hid_t open_results(const char *out)
{
    hid_t file = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
    ck_assert_int_ge(file, 0);
    hid_t dset = H5Dopen2(file, "results", H5P_DEFAULT);
    ck_assert_int_ge(dset, 0);
    hid_t ftype = H5Dget_type(dset);
    ck_assert_int_eq(H5Tget_class(ftype), H5T_COMPOUND);
    static const char *const fields[] = {
        "mode", "method", "dataset", "m", "n", "k", "bits", "sketch_dim", "topk", "candidates", "seed",
        "threads", "isa", "status", "exact_seconds", "approx_seconds", "speedup", "nmse",
        "rel_fro_error", "max_abs_error", "recall", "recall_index", "max_value_error", "alignment"
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        ck_assert_msg(H5Tget_member_index(ftype, fields[i]) >= 0, "field %s missing", fields[i]);
    H5Tclose(ftype);
    H5Dclose(dset);
    return file;
}

START_TEST(test_sweep_dense_clustered)
{
    char out[1024];
    /* A directory that does not exist yet: the driver creates it. */
    test_tmp_path("sub/s.h5", out, sizeof out);
    const char *args[] = { "--mode", "dense", "--dataset", "clustered", "--m", "64", "--n", "48",
                           "--k", "40", "--methods", "simhash,gaussian_projection",
                           "--bits", "64,256", "--sketch-dims", "8,32", "--reps", "1",
                           "--warmup", "0", "--alignment", "0.9", "--threads", "1", "--seed", "7",
                           "--out", out, NULL };
    int rc = run_sweep(args);
    if (rc != 0)
        dump_file(log_path());
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(file_contains(log_path(), out), "the driver should print the path of its file");
    ck_assert_msg(file_contains(log_path(), "[dense 4/4] gaussian_projection sketch_dim=32"),
                  "progress line missing");

    hid_t file = open_results(out);
    int64_t count;
    row_view *rows = read_rows(file, &count);
    ck_assert_int_eq(count, 4);
    static const char *const methods[] = { "simhash", "simhash", "gaussian_projection",
                                           "gaussian_projection" };
    static const int32_t bits[] = { 64, 256, 0, 0 }, dims[] = { 0, 0, 8, 32 };
    for (int i = 0; i < 4; i++) {
        const row_view *r = &rows[i];
        ck_assert_str_eq(r->mode, "dense");
        ck_assert_str_eq(r->method, methods[i]);
        ck_assert_str_eq(r->dataset, "clustered");
        ck_assert_int_eq(r->bits, bits[i]);
        ck_assert_int_eq(r->sketch_dim, dims[i]);
        ck_assert_int_eq(r->topk, 0);
        ck_assert_int_eq(r->candidates, 0);
        ck_assert_int_eq(r->m, 64);
        ck_assert_int_eq(r->n, 48);
        ck_assert_int_eq(r->k, 40);
        ck_assert_uint_eq(r->seed, 7);
        ck_assert_int_eq(r->threads, 1);
        ck_assert_int_eq(r->status, 0);
        ck_assert_msg(strlen(r->isa) > 0, "isa empty");
        ck_assert_msg(isfinite(r->nmse) && r->nmse >= 0.0, "nmse %g", r->nmse);
        ck_assert_msg(isfinite(r->rel_fro_error) && r->rel_fro_error >= 0.0, "rel_fro %g", r->rel_fro_error);
        ck_assert_msg(isfinite(r->max_abs_error) && r->max_abs_error >= 0.0, "max_abs %g", r->max_abs_error);
        ck_assert_msg(isnan(r->recall) && isnan(r->recall_index) && isnan(r->max_value_error),
                      "top-k fields of a dense row should be NaN");
        check_times(r);
        ck_assert_msg(r->alignment > 0.0 && r->alignment <= 1.0, "alignment %g", r->alignment);
        ck_assert(r->alignment == rows[0].alignment);
    }
    /* Longer sketches estimate better (the error variance falls like 1/size). */
    for (int i = 0; i < 4; i += 2) {
        ck_assert_msg(rows[i + 1].nmse < 0.6 * rows[i].nmse, "%s: nmse %g then %g", rows[i].method,
                      rows[i].nmse, rows[i + 1].nmse);
        ck_assert_msg(rows[i + 1].rel_fro_error < rows[i].rel_fro_error, "%s: rel_fro %g then %g",
                      rows[i].method, rows[i].rel_fro_error, rows[i + 1].rel_fro_error);
    }

    /* Attributes of the run. */
    static const char *const string_attrs[] = {
        "library_version", "git_commit", "isa", "exact_kernel", "hamming_kernel",
        "cpu_model", "dataset", "created", "modes", "methods", "bits", "sketch_dims"
    };
    for (size_t i = 0; i < sizeof string_attrs / sizeof string_attrs[0]; i++) {
        char *v = read_attr_string(file, string_attrs[i]);
        ck_assert_msg(strlen(v) > 0, "attribute %s is empty", string_attrs[i]);
        free(v);
    }
    char *v = read_attr_string(file, "library_version");
    ck_assert_str_eq(v, smm_version());
    free(v);
    v = read_attr_string(file, "dataset");
    ck_assert_str_eq(v, "clustered");
    free(v);
    v = read_attr_string(file, "modes");
    ck_assert_str_eq(v, "dense");
    free(v);
    v = read_attr_string(file, "methods");
    ck_assert_str_eq(v, "simhash,gaussian_projection");
    free(v);
    v = read_attr_string(file, "sketch_dims");
    ck_assert_str_eq(v, "8,32");
    free(v);
    v = read_attr_string(file, "isa");
    ck_assert_str_eq(v, rows[0].isa);
    free(v);
    v = read_attr_string(file, "created");
    ck_assert_msg(strlen(v) == 20 && v[4] == '-' && v[10] == 'T' && v[19] == 'Z', "created = %s", v);
    free(v);
    ck_assert_int_eq(read_attr_int(file, "threads"), 1);
    ck_assert_int_eq(read_attr_int(file, "seed"), 7);
    ck_assert_int_eq(read_attr_int(file, "m"), 64);
    ck_assert_msg(H5Aexists(file, "topk") == 0, "a dense-only run has no top-k attributes");
    free(rows);
    H5Fclose(file);
}
END_TEST

START_TEST(test_sweep_topk_gaussian)
{
    char out[1024];
    test_tmp_path("t.h5", out, sizeof out);
    /* 3 < topk and 500 > database are skipped; 200 = database makes the search exact. */
    const char *args[] = { "--mode", "topk", "--dataset", "gaussian", "--queries", "30",
                           "--database", "200", "--k", "32", "--topk", "5",
                           "--candidates", "3,10,200,500", "--methods", "simhash,countsketch",
                           "--topk-bits", "64", "--topk-sketch-dims", "16", "--topk-reps", "2",
                           "--warmup", "1", "--threads", "1", "--out", out, NULL };
    int rc = run_sweep(args);
    if (rc != 0)
        dump_file(log_path());
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(file_contains(log_path(), "skipping --candidates 3"), "no note about candidates 3");
    ck_assert_msg(file_contains(log_path(), "skipping --candidates 500"), "no note about candidates 500");

    hid_t file = open_results(out);
    int64_t count;
    row_view *rows = read_rows(file, &count);
    ck_assert_int_eq(count, 4);
    static const char *const methods[] = { "simhash", "simhash", "countsketch", "countsketch" };
    static const int32_t cands[] = { 10, 200, 10, 200 };
    for (int i = 0; i < 4; i++) {
        const row_view *r = &rows[i];
        ck_assert_str_eq(r->mode, "topk");
        ck_assert_str_eq(r->method, methods[i]);
        ck_assert_str_eq(r->dataset, "gaussian");
        ck_assert_int_eq(r->bits, i < 2 ? 64 : 0);
        ck_assert_int_eq(r->sketch_dim, i < 2 ? 0 : 16);
        ck_assert_int_eq(r->topk, 5);
        ck_assert_int_eq(r->candidates, cands[i]);
        ck_assert_int_eq(r->m, 30);
        ck_assert_int_eq(r->n, 200);
        ck_assert_int_eq(r->k, 32);
        ck_assert_int_eq(r->status, 0);
        check_times(r);
        ck_assert_msg(r->recall >= 0.0 && r->recall <= 1.0, "recall %g", r->recall);
        ck_assert_msg(r->recall_index >= 0.0 && r->recall_index <= r->recall, "recall_index %g, recall %g",
                      r->recall_index, r->recall);
        /* Values are exact dot products: only float rounding of values of size ~ sqrt(k) * 3. */
        ck_assert_msg(r->max_value_error >= 0.0 && r->max_value_error < 1e-4, "max_value_error %g",
                      r->max_value_error);
        ck_assert_msg(isnan(r->nmse) && isnan(r->rel_fro_error) && isnan(r->max_abs_error),
                      "dense fields of a top-k row should be NaN");
        ck_assert_msg(r->alignment > 0.0 && r->alignment <= 1.0, "alignment %g", r->alignment);
        if (r->candidates == r->n) /* every column refined exactly: the exact top-k */
            ck_assert_msg(r->recall == 1.0 && r->recall_index == 1.0, "%s: recall %g / %g with candidates = n",
                          r->method, r->recall, r->recall_index);
    }
    ck_assert_int_eq(read_attr_int(file, "topk"), 5);
    ck_assert_int_eq(read_attr_int(file, "queries"), 30);
    char *v = read_attr_string(file, "candidates");
    ck_assert_str_eq(v, "10,200");
    free(v);
    ck_assert_msg(H5Aexists(file, "sketch_dims") == 0, "a top-k-only run has no dense attributes");
    free(rows);
    H5Fclose(file);
}
END_TEST

START_TEST(test_sweep_both_then_overwrite)
{
    char out[1024];
    test_tmp_path("o.h5", out, sizeof out);
    const char *first[] = { "--dataset", "lowrank", "--rank", "3", "--k", "12", "--m", "16", "--n", "8",
                            "--queries", "6", "--database", "20", "--topk", "2", "--candidates", "4",
                            "--methods", "simhash_structured,srht", "--bits", "32", "--sketch-dims", "4",
                            "--topk-sizes", "srht=2", "--reps", "1", "--topk-reps", "1", "--out", out, NULL };
    int rc = run_sweep(first);
    if (rc != 0)
        dump_file(log_path());
    ck_assert_int_eq(rc, 0);
    hid_t file = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
    ck_assert_int_ge(file, 0);
    int64_t count;
    row_view *rows = read_rows(file, &count);
    ck_assert_int_eq(count, 4); /* dense: 2 methods x 1 size; top-k: 2 x 1 x 1 */
    ck_assert_str_eq(rows[0].mode, "dense");
    ck_assert_str_eq(rows[1].mode, "dense");
    ck_assert_str_eq(rows[2].mode, "topk");
    ck_assert_str_eq(rows[3].mode, "topk");
    ck_assert_int_eq(rows[1].sketch_dim, 4);
    ck_assert_int_eq(rows[2].bits, 32);      /* --bits sets top-k's sizes too */
    ck_assert_int_eq(rows[3].sketch_dim, 2); /* --topk-sizes overrides --sketch-dims */
    char *v = read_attr_string(file, "modes");
    ck_assert_str_eq(v, "both");
    free(v);
    free(rows);
    H5Fclose(file);

    const char *second[] = { "--mode", "dense", "--dataset", "gaussian", "--m", "16", "--n", "8",
                             "--k", "12", "--methods", "simhash", "--bits", "100", "--reps", "2",
                             "--out", out, NULL };
    rc = run_sweep(second);
    if (rc != 0)
        dump_file(log_path());
    ck_assert_int_eq(rc, 0);
    file = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
    ck_assert_int_ge(file, 0);
    rows = read_rows(file, &count);
    ck_assert_int_eq(count, 1);
    ck_assert_str_eq(rows[0].dataset, "gaussian");
    ck_assert_int_eq(rows[0].bits, 100);
    ck_assert_uint_eq(rows[0].seed, 42);
    free(rows);
    H5Fclose(file);
}
END_TEST

START_TEST(test_sweep_rejects_bad_command_lines)
{
    char out[1024];
    test_tmp_path("never.h5", out, sizeof out);
    const char *bad[][12] = {
        { "--no-such-flag", NULL },
        { "--bits", "0", "--dataset", "gaussian", NULL },
        { "--bits", "64,,x", NULL },
        { "--bits", "64,", NULL },
        { "--bits", "70000", NULL },
        { "--sketch-dims", "0", NULL },
        { "--topk-sketch-dims", "2000000", NULL },
        { "--dataset", "imagenet", NULL },
        { "--mode", "sparse", NULL },
        { "--methods", "simhash,nosuch", NULL },
        { "--methods", "srht,srht", NULL },
        { "--methods", "", NULL },
        { "--m", "-5", NULL },
        { "--reps", "0", NULL },
        { "--topk-reps", "0", NULL },
        { "--threads", "abc", NULL },
        { "--topk", "0", NULL },
        { "--alignment", "1.5", "--dataset", "clustered", NULL },
        { "--alignment", "0.5", NULL },           /* not for fashion-mnist */
        { "--k", "100", NULL },                   /* fashion-mnist has k = 784 */
        { "--m", "40000", "--n", "30000", NULL }, /* more than 60000 images */
        { "--queries", "10001", NULL },           /* 10000 test images */
        { "--database", "60001", NULL },          /* 60000 training images */
        { "--mode", "dense", "--topk", "5", NULL },        /* a top-k flag in dense mode */
        { "--mode", "dense", "--candidates", "50", NULL },
        { "--mode", "topk", "--m", "5", NULL },            /* a dense flag in top-k mode */
        { "--mode", "dense", "--topk-sizes", "srht=4", NULL },
        { "--sizes", "nosuch=4", NULL },
        { "--sizes", "srht=0", NULL },
        { "--sizes", "srht", NULL },
        { "--sizes", "simhash=70000", NULL },
        { "--dataset", "gaussian", "--database", "50", "--topk", "60", NULL },
        { "--dataset", "gaussian", "--database", "50", "--candidates", "5,60", NULL }, /* none in 10..50 */
        { "--m", NULL },                          /* missing value */
        { "positional", NULL },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *args[16];
        int a = 0;
        for (int j = 0; bad[i][j] != NULL; j++)
            args[a++] = bad[i][j];
        args[a++] = "--out";
        args[a++] = out;
        args[a] = NULL;
        int rc = run_sweep(args);
        ck_assert_msg(rc != 0, "command line %zu (%s %s ...) was accepted", i, bad[i][0], bad[i][1]);
        ck_assert_msg(rc == 2, "command line %zu (%s %s ...): exit status %d, expected 2", i, bad[i][0],
                      bad[i][1], rc);
        ck_assert_msg(file_contains(log_path(), "--help"), "command line %zu: no hint", i);
        ck_assert_msg(access(out, F_OK) != 0, "command line %zu: output file created", i);
    }
}
END_TEST

START_TEST(test_sweep_help)
{
    const char *args[] = { "--help", NULL };
    ck_assert_int_eq(run_sweep(args), 0);
    static const char *const flags[] = {
        "--mode", "--methods", "--dataset", "--m", "--n", "--k", "--bits", "--sketch-dims",
        "--topk-bits", "--topk-sketch-dims", "--sizes", "--topk-sizes", "--reps", "--topk-reps", "--queries", "--database",
        "--topk", "--candidates", "--warmup", "--threads", "--seed", "--alignment", "--rank",
        "--out", "--data-dir", "overwritten", "recall", "max_value_error", "simhash_orthogonal",
        "gaussian_projection", "cr_sampling"
    };
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        ck_assert_msg(file_contains(log_path(), flags[i]), "--help does not mention %s", flags[i]);
}
END_TEST

START_TEST(test_sweep_missing_fashion_mnist)
{
    char out[1024], dir[1024];
    test_tmp_path("s.h5", out, sizeof out);
    test_tmp_path("no-such-dir", dir, sizeof dir);
    const char *dense[] = { "--mode", "dense", "--data-dir", dir, "--m", "8", "--n", "8", "--out", out, NULL };
    ck_assert_int_eq(run_sweep(dense), 1);
    ck_assert_msg(file_contains(log_path(), "apt-get install dataset-fashion-mnist"),
                  "the error should say how to install the data");
    const char *topk[] = { "--mode", "topk", "--data-dir", dir, "--queries", "8", "--database", "8",
                           "--topk", "2", "--candidates", "8", "--out", out, NULL };
    ck_assert_int_eq(run_sweep(topk), 1);
    ck_assert_msg(file_contains(log_path(), "t10k-images-idx3-ubyte"), "the error should name the file");
}
END_TEST

static Suite *sweep_suite(void)
{
    Suite *s = suite_create("sweep");
    TCase *tc = tcase_create("driver");
    tcase_add_checked_fixture(tc, test_tmpdir_setup, test_tmpdir_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_sweep_dense_clustered);
    tcase_add_test(tc, test_sweep_topk_gaussian);
    tcase_add_test(tc, test_sweep_both_then_overwrite);
    tcase_add_test(tc, test_sweep_rejects_bad_command_lines);
    tcase_add_test(tc, test_sweep_help);
    tcase_add_test(tc, test_sweep_missing_fashion_mnist);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(sweep_suite());
}
