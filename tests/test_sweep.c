/*
 * test_sweep.c - the sweep driver end to end: run sketchmm_sweep
 * (SKETCHMM_SWEEP_EXE) on small synthetic data in dense, top-k and both
 * modes, read its HDF5 file back with the HDF5 C API and check the table and
 * the attributes; check that bad command lines and bad spec files are
 * rejected; the grid (--dry-run) and its shards; resume after a SIGKILL
 * (test hook SKETCHMM_SWEEP_TEST_STOP_AFTER); a changed spec refused; merge;
 * file data sets (FILE.h5:/PATH, ann:FILE.h5) on a small ann-benchmarks file
 * written by sketchmm_make_ann (SKETCHMM_MAKE_ANN_EXE).
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
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
#include "sweep_harness.h"

#ifndef SKETCHMM_MAKE_ANN_EXE
#error "SKETCHMM_MAKE_ANN_EXE must name the sketchmm_make_ann executable"
#endif

/* ------------------------------------------------------------------------ */
/* Tests                                                                    */
/* ------------------------------------------------------------------------ */

/*
 * Timing fields of a successful row: positive, speedup = exact / approx, and
 * the phases: each at most the median total plus the other (medians of
 * sums are not sums of medians, but with one round they are).
 */
static void check_times(const row_view *r)
{
    ck_assert_msg(r->exact_seconds > 0.0 && r->approx_seconds > 0.0, "times %g %g", r->exact_seconds,
                  r->approx_seconds);
    ck_assert_msg(r->encode_b_seconds > 0.0 && r->rest_seconds > 0.0, "phases %g %g", r->encode_b_seconds,
                  r->rest_seconds);
    ck_assert_msg(r->encode_b_seconds < r->approx_seconds + r->rest_seconds &&
                      r->rest_seconds < r->approx_seconds + r->encode_b_seconds,
                  "phases %g + %g against total %g", r->encode_b_seconds, r->rest_seconds, r->approx_seconds);
    /* the library's split of the rest: sketching A and the estimate always, refinement in top-k only */
    const int topk = r->topk > 0;
    ck_assert_msg(r->encode_a_seconds > 0.0 && r->estimate_seconds > 0.0 &&
                      (topk ? r->refine_seconds > 0.0 : r->refine_seconds == 0.0),
                  "library phases %g %g %g", r->encode_a_seconds, r->estimate_seconds, r->refine_seconds);
    ck_assert_msg(r->encode_a_seconds + r->estimate_seconds + r->refine_seconds <= 3.0 * r->rest_seconds,
                  "library phases %g + %g + %g against rest %g", r->encode_a_seconds, r->estimate_seconds,
                  r->refine_seconds, r->rest_seconds);
    ck_assert_msg(r->speedup > 0.0 && isfinite(r->speedup), "speedup %g", r->speedup);
    ck_assert_msg(fabs(r->speedup - r->exact_seconds / r->approx_seconds) <= 1e-9 * r->speedup,
                  "speedup %g is not exact/approx", r->speedup);
}

/* Run the sweep with args and assert exit status 0 (its log shown otherwise). */
static void run_ok(const char **args)
{
    int rc = run_sweep(args);
    if (rc != 0)
        dump_file(log_path());
    ck_assert_int_eq(rc, 0);
}

/* run_ok, then the rows of out (its file open in *file). */
static row_view *run_and_read(const char **args, const char *out, hid_t *file, int64_t *count)
{
    run_ok(args);
    *file = open_results(out);
    return read_rows(*file, count);
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
    run_ok(args);
    ck_assert_msg(file_contains(log_path(), out), "the driver should print the path of its file");
    ck_assert_msg(file_contains(log_path(), "[4/4] elapsed"), "progress line missing");
    ck_assert_msg(file_contains(log_path(), "dense clustered gaussian_projection sketch_dim=32: exact"),
                  "result line missing");

    hid_t file = open_results(out);
    int64_t count;
    row_view *rows = read_rows(file, &count);
    ck_assert_int_eq(count, 4);
    static const char *const methods[] = { "simhash", "simhash", "gaussian_projection",
                                           "gaussian_projection" };
    static const int32_t bits[] = { 64, 256, 0, 0 }, dims[] = { 0, 0, 8, 32 };
    static const int64_t bytes[] = { 12, 36, 32, 128 }; /* 8 + 4, 32 + 4, 4 s */
    for (int i = 0; i < 4; i++) {
        const row_view *r = &rows[i];
        ck_assert_int_eq(r->config_index, i);
        ck_assert_int_eq(r->bytes_per_vector, bytes[i]);
        ck_assert_msg(r->config_hash != 0 && (i == 0 || r->config_hash != rows[i - 1].config_hash), "hash");
        ck_assert_msg(isnan(r->recall_at_1) && isnan(r->recall_at_10), "recall_at_t of a dense row");
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
        "library_version", "git_commit", "isa", "exact_kernel", "hamming_kernel", "exact_config", "exact_config_source",
        "cpu_model", "dataset", "start_time", "end_time", "modes", "methods", "bits", "sketch_dims",
        "spec", "shard", "threads", "seed", "shapes"
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
    /* the exact core the speedups were measured against: its kernel and where its configuration came from */
    v = read_attr_string(file, "exact_config_source");
    ck_assert_msg(strcmp(v, "tuned") == 0 || strcmp(v, "model") == 0 || strcmp(v, "table") == 0, "source %s", v);
    char *config = read_attr_string(file, "exact_config"), *kernel = read_attr_string(file, "exact_kernel");
    char want[96];
    snprintf(want, sizeof want, "source=%s kernel=%s ", v, kernel);
    ck_assert_msg(strstr(config, want) != NULL, "exact_config '%s' lacks '%s'", config, want);
    free(v);
    free(config);
    free(kernel);
    static const char *const times[] = { "start_time", "end_time" };
    for (int i = 0; i < 2; i++) {
        v = read_attr_string(file, times[i]);
        ck_assert_msg(strlen(v) == 20 && v[4] == '-' && v[10] == 'T' && v[19] == 'Z', "%s = %s", times[i], v);
        free(v);
    }
    v = read_attr_string(file, "threads");
    ck_assert_str_eq(v, "1");
    free(v);
    v = read_attr_string(file, "seed");
    ck_assert_str_eq(v, "7");
    free(v);
    v = read_attr_string(file, "shapes");
    ck_assert_str_eq(v, "64x48");
    free(v);
    v = read_attr_string(file, "shard");
    ck_assert_str_eq(v, "all");
    free(v);
    v = read_attr_string(file, "spec");
    ck_assert_msg(strstr(v, "\"datasets\":[\"clustered\"]") != NULL && strstr(v, "\"seeds\":[7]") != NULL,
                  "spec = %s", v);
    free(v);
    ck_assert_int_eq(read_attr_int(file, "grid_size"), 4);
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
    run_ok(args);
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
        ck_assert_msg(r->recall_at_1 >= 0.0 && r->recall_at_1 <= 1.0, "recall_at_1 %g", r->recall_at_1);
        ck_assert_msg(isnan(r->recall_at_10) && isnan(r->recall_at_100), "recall at cuts above topk = 5");
        ck_assert_int_eq(r->bytes_per_vector, i < 2 ? 12 : 64);
        if (r->candidates == r->n) /* every column refined exactly: the exact top-k */
            ck_assert_msg(r->recall == 1.0 && r->recall_index == 1.0 && r->recall_at_1 == 1.0,
                          "%s: recall %g / %g / %g with candidates = n", r->method, r->recall, r->recall_index,
                          r->recall_at_1);
    }
    ck_assert_int_eq(read_attr_int(file, "topk"), 5);
    char *shapes = read_attr_string(file, "topk_shapes");
    ck_assert_str_eq(shapes, "30x200");
    free(shapes);
    char *v = read_attr_string(file, "candidates");
    ck_assert_str_eq(v, "10,200");
    free(v);
    ck_assert_msg(H5Aexists(file, "sketch_dims") == 0, "a top-k-only run has no dense attributes");
    free(rows);
    H5Fclose(file);
}
END_TEST

/* The texture data set: its rows, its parameter in the spec (and so in each configuration's key). */
START_TEST(test_sweep_topk_texture)
{
    char out[1024];
    test_tmp_path("tex.h5", out, sizeof out);
    const char *args[] = { "--mode", "topk", "--dataset", "texture", "--beta", "2.5", "--queries", "20",
                           "--database", "300", "--k", "64", "--topk", "5", "--candidates", "10,300",
                           "--methods", "maddness,pq", "--topk-sizes", "maddness=8", "--topk-sizes", "pq=8",
                           "--topk-reps", "1", "--warmup", "0", "--threads", "1", "--out", out, NULL };
    hid_t file;
    int64_t count;
    row_view *rows = run_and_read(args, out, &file, &count);
    ck_assert_int_eq(count, 4);
    for (int i = 0; i < 4; i++) {
        const row_view *r = &rows[i];
        ck_assert_str_eq(r->dataset, "texture");
        ck_assert_str_eq(r->method, i < 2 ? "maddness" : "pq");
        ck_assert_int_eq(r->k, 64);
        ck_assert_int_eq(r->status, 0);
        ck_assert_msg(r->recall >= 0.0 && r->recall <= 1.0, "recall %g", r->recall);
        if (r->candidates == 300)
            ck_assert_msg(r->recall == 1.0, "%s: recall %g with every candidate", r->method, r->recall);
    }
    char *spec = read_attr_string(file, "spec");
    ck_assert_msg(strstr(spec, "\"beta\":2.5") != NULL, "spec %s", spec);
    free(spec);
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
    run_ok(first);
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
    /* Another spec into the same file is refused, the file untouched ... */
    ck_assert_int_eq(run_sweep(second), 2);
    ck_assert_msg(file_contains(log_path(), "different spec") && file_contains(log_path(), "--overwrite"),
                  "the refusal should say why and what to do");
    file = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
    ck_assert_int_ge(file, 0);
    rows = read_rows(file, &count);
    ck_assert_int_eq(count, 4);
    free(rows);
    H5Fclose(file);
    /* ... unless --overwrite says to replace it. */
    const char *third[] = { "--mode", "dense", "--dataset", "gaussian", "--m", "16", "--n", "8",
                            "--k", "12", "--methods", "simhash", "--bits", "100", "--reps", "2",
                            "--out", out, "--overwrite", NULL };
    run_ok(third);
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
        { "--beta", "2", NULL },                  /* texture only */
        { "--beta", "8.5", "--dataset", "texture", NULL },
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
        { "--shard", "3/3", NULL },
        { "--shard", "1", NULL },
        { "--shard", "-1/2", NULL },
        { "--threads", "-1", NULL },
        { "--seeds", "1,x", NULL },
        { "--shapes", "64x", "--dataset", "gaussian", NULL },
        { "--shapes", "0x5", "--dataset", "gaussian", NULL },
        { "--datasets", "gaussian,gaussian", NULL },
        { "--spec", "", NULL },
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
        "--out", "--data-dir", "resume", "recall", "max_value_error", "simhash_orthogonal",
        "gaussian_projection", "cr_sampling", "--spec", "--dry-run", "--shard", "--overwrite", "merge",
        "config_hash", "end_time", "recall_at_10", "encode_b_seconds", "bytes_per_vector", "--seeds",
        "--datasets", "--shapes", "--topk-shapes", "SLURM", "SKETCHMM_SWEEP_TEST_STOP_AFTER", "topk_sizes"
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
                           "--topk", "2", "--candidates", "8", "--out", out, "--overwrite", NULL };
    ck_assert_int_eq(run_sweep(topk), 1);
    ck_assert_msg(file_contains(log_path(), "t10k-images-idx3-ubyte"), "the error should name the file");
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Spec files, the grid and shards                                          */
/* ------------------------------------------------------------------------ */

/* The configuration lines of a --dry-run log: index and hash of each, *count of them. */
static int dry_run_lines(int64_t *index, uint64_t *hash, int max)
{
    char *text = read_log();
    int count = 0;
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        long long i;
        unsigned long long h;
        if (sscanf(line, "%lld %16llx ", &i, &h) == 2) {
            ck_assert_int_lt(count, max);
            index[count] = i;
            hash[count++] = h;
        }
    }
    free(text);
    return count;
}

/* A small grid on synthetic data: 2 datasets x 2 dense shapes x 2 seeds x (2 + 1) sizes = 24 dense, 2 x 1 x 2 x 3 x 2 = 24 top-k. */
static const char small_spec[] =
    "{\n"
    "  \"mode\": \"both\", \"datasets\": [\"gaussian\", \"clustered\"], \"k\": 16, \"clusters\": 4,\n"
    "  \"seeds\": [1, 2], \"threads\": [1], \"warmup\": 0,\n"
    "  \"methods\": [\"simhash_structured\", \"cr_sampling\"],\n"
    "  \"shapes\": [\"24x16\", \"8x40\"], \"reps\": 1, \"bits\": [32, 64], \"sketch_dims\": [4],\n"
    "  \"topk_shapes\": [\"12x60\"], \"topk\": 3, \"candidates\": [3, 9], \"topk_reps\": 1,\n"
    "  \"topk_sizes\": {\"simhash_structured\": [64], \"cr_sampling\": [4, 8]}\n"
    "}\n";
#define SMALL_SPEC_GRID 48

START_TEST(test_sweep_spec_good)
{
    char spec[1024], again[1024];
    write_tmp_file("small.json", small_spec, spec, sizeof spec);
    const char *args[] = { "--spec", spec, "--dry-run", NULL };
    run_ok(args);
    ck_assert_int_eq(dry_run_size(), SMALL_SPEC_GRID);
    int64_t index[256];
    uint64_t hash[256];
    ck_assert_int_eq(dry_run_lines(index, hash, 256), SMALL_SPEC_GRID);

    /* The canonical spec, given back, describes the same grid (same hashes). */
    char *text = read_log();
    char *line = strstr(text, "spec: ");
    ck_assert_ptr_nonnull(line);
    char *nl = strchr(line, '\n');
    if (nl != NULL)
        *nl = '\0';
    write_tmp_file("again.json", line + 6, again, sizeof again);
    free(text);
    const char *args2[] = { "--spec", again, "--dry-run", NULL };
    ck_assert_int_eq(run_sweep(args2), 0);
    int64_t index2[256];
    uint64_t hash2[256];
    ck_assert_int_eq(dry_run_lines(index2, hash2, 256), SMALL_SPEC_GRID);
    for (int i = 0; i < SMALL_SPEC_GRID; i++)
        ck_assert_msg(index2[i] == index[i] && hash2[i] == hash[i], "configuration %d differs", i);

    /* Flags override the spec: a third seed, one dataset. */
    const char *args3[] = { "--spec", spec, "--seeds", "1,2,3", "--datasets", "clustered", "--dry-run", NULL };
    ck_assert_int_eq(run_sweep(args3), 0);
    ck_assert_int_eq(dry_run_size(), SMALL_SPEC_GRID / 2 * 3 / 2);
    /* A flag of the other mode is an error on the command line, not in a spec. */
    const char *args4[] = { "--spec", spec, "--mode", "dense", "--dry-run", NULL };
    ck_assert_int_eq(run_sweep(args4), 0);
    ck_assert_int_eq(dry_run_size(), 24);

    /* experiments/specs/default.json is the default sweep: same 121 configurations, same hashes. */
    char dir[1024], path[1100];
    snprintf(dir, sizeof dir, "%s", __FILE__);
    char *slash = strrchr(dir, '/');
    ck_assert_ptr_nonnull(slash);
    *slash = '\0';
    snprintf(path, sizeof path, "%s/../experiments/specs/default.json", dir);
    const char *defaults[] = { "--dry-run", NULL };
    ck_assert_int_eq(run_sweep(defaults), 0);
    static int64_t di[128], di2[128];
    static uint64_t dh[128], dh2[128];
    ck_assert_int_eq(dry_run_lines(di, dh, 128), 121);
    const char *from_file[] = { "--spec", path, "--dry-run", NULL };
    run_ok(from_file);
    ck_assert_int_eq(dry_run_lines(di2, dh2, 128), 121);
    for (int i = 0; i < 121; i++)
        ck_assert_msg(di[i] == di2[i] && dh[i] == dh2[i], "default configuration %d differs", i);
    ck_assert_msg(file_contains(log_path(), "dense fashion-mnist 4096x4096x784") &&
                      file_contains(log_path(), "topk fashion-mnist 10000x60000x784"),
                  "the default sweep's shapes");

    /* experiments/specs/gaussian.json, the hard case that scripts/run_sweep.sh runs second: 49 configurations. */
    snprintf(path, sizeof path, "%s/../experiments/specs/gaussian.json", dir);
    const char *gaussian[] = { "--spec", path, "--dry-run", NULL };
    run_ok(gaussian);
    ck_assert_int_eq(dry_run_lines(di2, dh2, 128), 49);
    ck_assert_msg(file_contains(log_path(), "dense gaussian 4096x4096x784") &&
                      file_contains(log_path(), "topk gaussian 2000x60000x784"),
                  "the Gaussian sweep's shapes");

    /* experiments/specs/texture.json, the learned methods' hard case that it runs third: 56 configurations. */
    snprintf(path, sizeof path, "%s/../experiments/specs/texture.json", dir);
    const char *texture[] = { "--spec", path, "--dry-run", NULL };
    run_ok(texture);
    ck_assert_int_eq(dry_run_lines(di2, dh2, 128), 56);
    ck_assert_msg(file_contains(log_path(), "dense texture 4096x4096x784") &&
                      file_contains(log_path(), "topk texture 2000x60000x784") &&
                      file_contains(log_path(), "\"beta\":2"),
                  "the texture sweep's shapes and spectrum");
}
END_TEST

START_TEST(test_sweep_spec_bad)
{
    static const struct {
        const char *json;   /* NULL: a file that does not exist */
        const char *needle; /* in the one-line error */
    } bad[] = {
        { "{\"bitz\": [64]}", "unknown key 'bitz'" },
        { "{\"bits\": 64}", "key 'bits' must be a list of integers" },
        { "{\"bits\": [64, \"128\"]}", "key 'bits' must be a list of integers" },
        { "{\"reps\": \"5\"}", "key 'reps' must be an integer" },
        { "{\"reps\": 1.5}", "key 'reps' must be an integer" },
        { "{\"alignment\": \"high\", \"datasets\": [\"clustered\"]}", "key 'alignment' must be a number" },
        { "{\"methods\": [\"simhash\", \"nosuch\"]}", "key 'methods': invalid value" },
        { "{\"datasets\": [\"imagenet\"]}", "key 'datasets': invalid value" },
        { "{\"seeds\": []}", "key 'seeds' is an empty list" },
        { "{\"reps\": 0}", "key 'reps': invalid value" },
        { "{\"shapes\": [\"4096\"]}", "key 'shapes': invalid value" },
        { "{\"sizes\": {\"srht\": []}}", "key 'sizes.srht'" },
        { "{\"sizes\": {\"nosuch\": [4]}}", "key 'sizes': invalid value for 'nosuch'" },
        { "{\"out\": \"x.h5\"}", "unknown key 'out'" },
        { "[1, 2]", "top level must be a JSON object" },
        { "{\"bits\": [64,", "invalid JSON" },
        { "{\"bits\": [64]} x", "invalid JSON" },
        { NULL, "cannot read spec" },
    };
    char spec[1024], out[1024];
    test_tmp_path("never.h5", out, sizeof out);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (bad[i].json != NULL)
            write_tmp_file("bad.json", bad[i].json, spec, sizeof spec);
        else
            test_tmp_path("no-such-spec.json", spec, sizeof spec);
        const char *args[] = { "--spec", spec, "--out", out, NULL };
        int rc = run_sweep(args);
        ck_assert_msg(rc == 2, "spec %zu (%s): exit status %d, expected 2", i, bad[i].json, rc);
        char *text = read_log();
        ck_assert_msg(strstr(text, bad[i].needle) != NULL && strstr(text, spec) != NULL,
                      "spec %zu: the error should name the file and say '%s', got: %s", i, bad[i].needle, text);
        char *nl = strchr(text, '\n');
        ck_assert_msg(nl != NULL && nl[1] == '\0', "spec %zu: the error should be one line: %s", i, text);
        free(text);
        ck_assert_msg(access(out, F_OK) != 0, "spec %zu: output file created", i);
    }
}
END_TEST

START_TEST(test_sweep_shards_cover_grid)
{
    char spec[1024];
    write_tmp_file("small.json", small_spec, spec, sizeof spec);
    const char *all[] = { "--spec", spec, "--dry-run", NULL };
    ck_assert_int_eq(run_sweep(all), 0);
    int64_t index[64];
    uint64_t hash[64];
    ck_assert_int_eq(dry_run_lines(index, hash, 64), SMALL_SPEC_GRID);
    for (int i = 0; i < SMALL_SPEC_GRID; i++) {
        ck_assert_int_eq(index[i], i);
        for (int j = 0; j < i; j++)
            ck_assert_msg(hash[j] != hash[i], "configurations %d and %d have the same hash", j, i);
    }
    static const char *const splits[] = { "3", "5", "48", "50" };
    for (size_t sp = 0; sp < sizeof splits / sizeof splits[0]; sp++) {
        int n = atoi(splits[sp]);
        int seen[SMALL_SPEC_GRID] = { 0 };
        int64_t prev_end = 0;
        for (int i = 0; i < n; i++) {
            char shard[32];
            snprintf(shard, sizeof shard, "%d/%d", i, n);
            const char *args[] = { "--spec", spec, "--shard", shard, "--dry-run", NULL };
            ck_assert_int_eq(run_sweep(args), 0);
            ck_assert_int_eq(dry_run_size(), SMALL_SPEC_GRID);
            int64_t si[64];
            uint64_t sh[64];
            int count = dry_run_lines(si, sh, 64);
            for (int t = 0; t < count; t++) {
                ck_assert_int_ge(si[t], 0);
                ck_assert_int_lt(si[t], SMALL_SPEC_GRID);
                ck_assert_msg(sh[t] == hash[si[t]], "shard %s: hash of configuration %lld", shard,
                              (long long)si[t]);
                ck_assert_int_eq(si[t], prev_end + t); /* contiguous blocks, in order */
                seen[si[t]]++;
            }
            prev_end += count;
            ck_assert_msg(count >= SMALL_SPEC_GRID / n && count <= SMALL_SPEC_GRID / n + 1,
                          "shard %s has %d configurations", shard, count);
        }
        for (int c = 0; c < SMALL_SPEC_GRID; c++)
            ck_assert_msg(seen[c] == 1, "%d shards: configuration %d run %d times", n, c, seen[c]);
    }
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Resume and merge                                                         */
/* ------------------------------------------------------------------------ */

/* The configuration columns of two rows agree. */
static void check_same_config(const row_view *a, const row_view *b)
{
    ck_assert_uint_eq(a->config_hash, b->config_hash);
    ck_assert_int_eq(a->config_index, b->config_index);
    ck_assert_str_eq(a->mode, b->mode);
    ck_assert_str_eq(a->method, b->method);
    ck_assert_str_eq(a->dataset, b->dataset);
    ck_assert_int_eq(a->m, b->m);
    ck_assert_int_eq(a->n, b->n);
    ck_assert_int_eq(a->k, b->k);
    ck_assert_int_eq(a->bits, b->bits);
    ck_assert_int_eq(a->sketch_dim, b->sketch_dim);
    ck_assert_int_eq(a->topk, b->topk);
    ck_assert_int_eq(a->candidates, b->candidates);
    ck_assert_uint_eq(a->seed, b->seed);
    ck_assert_int_eq(a->threads, b->threads);
}

START_TEST(test_sweep_resume_after_kill)
{
    char out[1024];
    test_tmp_path("r.h5", out, sizeof out);
    const char *args[64];
    small_run_args(out, args, NULL);

    /* Killed (SIGKILL) right after the 3rd row is flushed: in the middle of the first top-k group. */
    int status = run_sweep_status(args, "SKETCHMM_SWEEP_TEST_STOP_AFTER", "3");
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the driver should have been killed");
    int64_t count;
    row_view *first = rows_of(out, &count);
    ck_assert_int_eq(count, 3);
    char *end = attr_of(out, "end_time");
    ck_assert_str_eq(end, "unfinished");
    free(end);

    /* Rerun: the three rows stay as they are, the three others are added. */
    run_ok(args);
    ck_assert_msg(file_contains(log_path(), "3 of the 6 configurations to run are done"), "resume note");
    row_view *rows = rows_of(out, &count);
    ck_assert_int_eq(count, SMALL_RUN_ROWS);
    for (int i = 0; i < 3; i++) {
        check_same_config(&rows[i], &first[i]);
        ck_assert_msg(rows[i].exact_seconds == first[i].exact_seconds &&
                          rows[i].approx_seconds == first[i].approx_seconds &&
                          rows[i].encode_b_seconds == first[i].encode_b_seconds,
                      "row %d was changed by the resume", i);
    }
    for (int i = 0; i < SMALL_RUN_ROWS; i++) {
        ck_assert_int_eq(rows[i].config_index, i); /* 3, 4, 5 were run by the resume, in order */
        ck_assert_int_eq(rows[i].status, 0);
        check_times(&rows[i]);
    }
    qsort(rows, (size_t)count, sizeof *rows, cmp_row_hash);
    for (int i = 1; i < count; i++)
        ck_assert_msg(rows[i].config_hash != rows[i - 1].config_hash, "duplicate configuration");
    end = attr_of(out, "end_time");
    ck_assert_msg(strlen(end) == 20 && end[10] == 'T', "end_time = %s", end);
    free(end);
    free(rows);
    free(first);

    /* A third run has nothing to do and adds nothing. */
    ck_assert_int_eq(run_sweep(args), 0);
    rows = rows_of(out, &count);
    ck_assert_int_eq(count, SMALL_RUN_ROWS);
    free(rows);

    /* A file that is not a results file is refused, not overwritten. */
    char junk[1024];
    write_tmp_file("junk.h5", "not hdf5", junk, sizeof junk);
    small_run_args(junk, args, NULL);
    ck_assert_int_eq(run_sweep(args), 2);
    ck_assert_msg(file_contains(junk, "not hdf5"), "the file was changed");
}
END_TEST

START_TEST(test_sweep_merge_shards)
{
    char whole[1024], s0[1024], s1[1024], merged[1024], other[1024];
    test_tmp_path("whole.h5", whole, sizeof whole);
    test_tmp_path("s0.h5", s0, sizeof s0);
    test_tmp_path("s1.h5", s1, sizeof s1);
    test_tmp_path("merged.h5", merged, sizeof merged);
    test_tmp_path("other.h5", other, sizeof other);
    const char *args[64];
    small_run_args(whole, args, NULL);
    ck_assert_int_eq(run_sweep(args), 0);
    small_run_args(s0, args, "0/2");
    ck_assert_int_eq(run_sweep(args), 0);
    small_run_args(s1, args, "1/2");
    ck_assert_int_eq(run_sweep(args), 0);
    char *shard = attr_of(s1, "shard");
    ck_assert_str_eq(shard, "1/2");
    free(shard);

    const char *m[] = { merged, s1, s0, NULL };
    int rc = run_merge(m);
    if (rc != 0)
        dump_file(log_path());
    ck_assert_int_eq(rc, 0);
    int64_t nw, nm;
    row_view *w = rows_of(whole, &nw);
    row_view *r = rows_of(merged, &nm);
    ck_assert_int_eq(nw, SMALL_RUN_ROWS);
    ck_assert_int_eq(nm, nw);
    for (int i = 0; i < nm; i++) /* ordered by config_index: the same rows as one run */
        check_same_config(&r[i], &w[i]);
    free(w);
    free(r);
    char *a = attr_of(merged, "spec"), *b = attr_of(whole, "spec");
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
    a = attr_of(merged, "shard");
    ck_assert_str_eq(a, "merged");
    free(a);
    a = attr_of(merged, "end_time");
    ck_assert_msg(strlen(a) == 20, "end_time = %s", a);
    free(a);

    /* An existing output without --overwrite, duplicates, other specs: refused. */
    ck_assert_int_eq(run_merge(m), 2);
    ck_assert_msg(file_contains(log_path(), "--overwrite"), "existing output");
    const char *dup[] = { "--overwrite", merged, s0, s0, NULL };
    ck_assert_int_eq(run_merge(dup), 2);
    ck_assert_msg(file_contains(log_path(), "overlap"), "duplicates should be named");
    const char *dup2[] = { "--overwrite", merged, whole, s1, NULL };
    ck_assert_int_eq(run_merge(dup2), 2);
    const char *other_args[] = { "--mode", "dense", "--datasets", "gaussian", "--k", "8", "--shapes", "8x8",
                                 "--methods", "srht", "--sketch-dims", "4", "--reps", "1", "--out", other, NULL };
    ck_assert_int_eq(run_sweep(other_args), 0);
    const char *mixed[] = { "--overwrite", merged, s0, other, NULL };
    ck_assert_int_eq(run_merge(mixed), 2);
    ck_assert_msg(file_contains(log_path(), "different specs"), "mismatched specs should be named");
    const char *self[] = { s0, s0, NULL };
    ck_assert_int_eq(run_merge(self), 2);
    const char *none[] = { merged, NULL };
    ck_assert_int_eq(run_merge(none), 2);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* File data sets: FILE.h5:/PATH and ann:FILE.h5                            */
/* ------------------------------------------------------------------------ */

/*
 * Write a small ann-benchmarks file of the digits data set with
 * sketchmm_make_ann: /train 300 x 64, /test 40 x 64, top-10. Its path into buf.
 */
static const char *make_ann_file(const char *name, char *buf, size_t size)
{
    test_tmp_path(name, buf, size);
    char log[1024];
    test_tmp_path("make_ann_log.txt", log, sizeof log);
    const char *argv[] = { SKETCHMM_MAKE_ANN_EXE, "--source", "digits", "--train-rows", "300",
                           "--test-rows", "40", "--topk", "10", "--out", buf, NULL };
    pid_t pid = spawn_logged(argv, "make_ann_log.txt", NULL, NULL, 0);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        dump_file(log);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "sketchmm_make_ann failed");
    return buf;
}

START_TEST(test_sweep_file_datasets)
{
    char ann[1024], spec_h5[1100], spec_ann[1100], out[1024], out2[1024];
    make_ann_file("digits.h5", ann, sizeof ann);
    snprintf(spec_h5, sizeof spec_h5, "%s:/train", ann);
    snprintf(spec_ann, sizeof spec_ann, "ann:%s", ann);

    /* Dense on a matrix of the file: A = rows 0..99, B = rows 100..249 of /train. */
    test_tmp_path("dense.h5", out, sizeof out);
    const char *dense[] = { "--mode", "dense", "--datasets", spec_h5, "--shapes", "100x150",
                            "--methods", "simhash,srht", "--bits", "64", "--sketch-dims", "16",
                            "--reps", "1", "--warmup", "0", "--threads", "1", "--out", out, NULL };
    hid_t file;
    int64_t count;
    row_view *rows = run_and_read(dense, out, &file, &count);
    ck_assert_int_eq(count, 2);
    for (int i = 0; i < 2; i++) {
        const row_view *r = &rows[i];
        ck_assert_str_eq(r->mode, "dense");
        ck_assert_str_eq(r->dataset, "h5");
        ck_assert_str_eq(r->method, i == 0 ? "simhash" : "srht");
        ck_assert_int_eq(r->m, 100);
        ck_assert_int_eq(r->n, 150);
        ck_assert_int_eq(r->k, 64); /* the digits have 8 x 8 pixels */
        ck_assert_int_eq(r->status, 0);
        check_times(r);
        ck_assert_msg(isfinite(r->nmse) && r->nmse >= 0.0, "nmse %g", r->nmse);
        ck_assert_msg(r->alignment > 0.0 && r->alignment <= 1.0, "alignment %g", r->alignment);
        ck_assert_msg(isnan(r->recall), "recall of a dense row should be NaN");
    }
    free(rows);
    char *v = read_attr_string(file, "dataset");
    ck_assert_str_eq(v, spec_h5);
    free(v);
    v = read_attr_string(file, "spec");
    ck_assert_msg(strstr(v, spec_h5) != NULL, "spec %s does not name the file", v);
    free(v);
    H5Fclose(file);
    /* The same command again: everything is in the file already. */
    ck_assert_int_eq(run_sweep(dense), 0);
    ck_assert_msg(file_contains(log_path(), "0 new"), "a second run should add no rows");

    /* Top-k on the benchmark file: queries = /test rows 0..39, database = /train rows 0..299. */
    test_tmp_path("topk.h5", out2, sizeof out2);
    const char *topk[] = { "--mode", "topk", "--datasets", spec_ann, "--topk-shapes", "40x300", "--topk", "10",
                           "--candidates", "20,300", "--methods", "simhash,countsketch", "--topk-bits", "64",
                           "--topk-sketch-dims", "16", "--topk-reps", "1", "--warmup", "0", "--threads", "1",
                           "--out", out2, NULL };
    rows = run_and_read(topk, out2, &file, &count);
    ck_assert_int_eq(count, 4);
    for (int i = 0; i < 4; i++) {
        const row_view *r = &rows[i];
        ck_assert_str_eq(r->mode, "topk");
        ck_assert_str_eq(r->dataset, "ann");
        ck_assert_int_eq(r->m, 40);
        ck_assert_int_eq(r->n, 300);
        ck_assert_int_eq(r->k, 64);
        ck_assert_int_eq(r->topk, 10);
        ck_assert_int_eq(r->status, 0);
        check_times(r);
        ck_assert_msg(r->recall >= 0.0 && r->recall <= 1.0, "recall %g", r->recall);
        ck_assert_msg(r->recall_index >= 0.0 && r->recall_index <= r->recall, "recall_index %g, recall %g",
                      r->recall_index, r->recall);
        if (r->candidates == r->n)
            ck_assert_msg(r->recall == 1.0 && r->recall_index == 1.0, "%s: recall %g / %g with candidates = n",
                          r->method, r->recall, r->recall_index);
    }
    free(rows);
    v = read_attr_string(file, "dataset");
    ck_assert_str_eq(v, spec_ann);
    free(v);
    H5Fclose(file);

    /* The file is part of each configuration's key: another file, other hashes. */
    char ann2[1024], spec_ann2[1100];
    make_ann_file("digits2.h5", ann2, sizeof ann2);
    snprintf(spec_ann2, sizeof spec_ann2, "ann:%s", ann2);
    int64_t index[8], index2[8];
    uint64_t hash[8], hash2[8];
    const char *dry[] = { "--mode", "topk", "--datasets", spec_ann, "--topk-shapes", "40x300",
                          "--candidates", "300", "--methods", "simhash", "--topk-bits", "64", "--dry-run", NULL };
    ck_assert_int_eq(run_sweep(dry), 0);
    ck_assert_int_eq(dry_run_lines(index, hash, 8), 1);
    ck_assert_msg(file_contains(log_path(), "40x300x64"), "the dry run should show k = 64");
    dry[3] = spec_ann2;
    ck_assert_int_eq(run_sweep(dry), 0);
    ck_assert_int_eq(dry_run_lines(index2, hash2, 8), 1);
    ck_assert_msg(hash[0] != hash2[0], "two files, one configuration hash");

    /* A spec file takes the same names. */
    char spec[1024], json[2400];
    snprintf(json, sizeof json,
             "{\"mode\": \"both\", \"datasets\": [\"gaussian\", \"%s\"], \"shapes\": [\"10x20\"],"
             " \"topk_shapes\": [\"10x20\"], \"topk\": 3, \"candidates\": [5], \"methods\": [\"simhash\"],"
             " \"bits\": [64]}",
             spec_ann);
    write_tmp_file("files.json", json, spec, sizeof spec);
    const char *with_spec[] = { "--spec", spec, "--dry-run", NULL };
    run_ok(with_spec);
    ck_assert_int_eq(dry_run_size(), 4);
    ck_assert_msg(file_contains(log_path(), "dense ann 10x20x64"), "ann rows should have k = 64");
    ck_assert_msg(file_contains(log_path(), "dense gaussian 10x20x784"), "gaussian rows keep --k");
}
END_TEST

START_TEST(test_sweep_file_dataset_errors)
{
    char ann[1024], missing[1024], out[1024];
    make_ann_file("digits.h5", ann, sizeof ann);
    test_tmp_path("no-such-file.h5", missing, sizeof missing);
    test_tmp_path("s.h5", out, sizeof out);
    char missing_h5[1100], missing_ann[1100], no_path[1100], h5[1100], ann_spec[1100], two[2300];
    snprintf(missing_h5, sizeof missing_h5, "%s:/train", missing);
    snprintf(missing_ann, sizeof missing_ann, "ann:%s", missing);
    snprintf(no_path, sizeof no_path, "%s:/no/such/path", ann);
    snprintf(h5, sizeof h5, "%s:/train", ann);
    snprintf(ann_spec, sizeof ann_spec, "ann:%s", ann);
    snprintf(two, sizeof two, "%s,%s", h5, ann_spec);
    struct {
        const char *args[12];
        const char *needle; /* in the message */
    } bad[] = {
        { { "--mode", "dense", "--datasets", missing_h5, "--shapes", "10x10", NULL }, missing },
        { { "--mode", "topk", "--datasets", missing_ann, "--topk-shapes", "10x20", "--candidates", "20", NULL },
          missing },
        { { "--mode", "dense", "--datasets", no_path, "--shapes", "10x10", NULL }, ann },
        { { "--mode", "dense", "--datasets", h5, "--shapes", "200x101", NULL }, ann },      /* 301 > 300 rows */
        { { "--mode", "dense", "--datasets", ann_spec, "--shapes", "300x1", NULL }, ann },  /* /train */
        { { "--mode", "topk", "--datasets", ann_spec, "--topk-shapes", "41x300", "--candidates", "20", NULL },
          ann },                                                                          /* 40 queries */
        { { "--mode", "topk", "--datasets", ann_spec, "--topk-shapes", "40x301", "--candidates", "20", NULL },
          ann },                                                                          /* 300 vectors */
        { { "--mode", "topk", "--datasets", h5, "--topk-shapes", "100x201", "--candidates", "20", NULL }, ann },
        { { "--mode", "dense", "--datasets", ann_spec, "--k", "32", "--shapes", "10x10", NULL }, "--k" },
        { { "--mode", "dense", "--datasets", two, "--shapes", "10x10", NULL }, "--datasets" },
        { { "--mode", "dense", "--datasets", ":/train", "--shapes", "10x10", NULL }, "--datasets" },
        { { "--mode", "dense", "--datasets", "ann:", "--shapes", "10x10", NULL }, "--datasets" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *args[16];
        int a = 0;
        for (int j = 0; bad[i].args[j] != NULL; j++)
            args[a++] = bad[i].args[j];
        args[a++] = "--out";
        args[a++] = out;
        args[a] = NULL;
        int rc = run_sweep(args);
        if (rc != 2)
            dump_file(log_path());
        ck_assert_msg(rc == 2, "case %zu (%s): exit status %d, expected 2", i, bad[i].args[3], rc);
        ck_assert_msg(file_contains(log_path(), bad[i].needle), "case %zu: the message does not name %s", i,
                      bad[i].needle);
        ck_assert_msg(file_contains(log_path(), "--help"), "case %zu: no hint", i);
        ck_assert_msg(access(out, F_OK) != 0, "case %zu: output file created", i);
    }
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
    tcase_add_test(tc, test_sweep_topk_texture);
    tcase_add_test(tc, test_sweep_both_then_overwrite);
    tcase_add_test(tc, test_sweep_rejects_bad_command_lines);
    tcase_add_test(tc, test_sweep_help);
    tcase_add_test(tc, test_sweep_missing_fashion_mnist);
    tcase_add_test(tc, test_sweep_spec_good);
    tcase_add_test(tc, test_sweep_spec_bad);
    tcase_add_test(tc, test_sweep_shards_cover_grid);
    tcase_add_test(tc, test_sweep_resume_after_kill);
    tcase_add_test(tc, test_sweep_merge_shards);
    tcase_add_test(tc, test_sweep_file_datasets);
    tcase_add_test(tc, test_sweep_file_dataset_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(sweep_suite());
}
