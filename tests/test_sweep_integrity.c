/*
 * test_sweep_integrity.c - nothing lost, nothing silently wrong: the
 * results file of sketchmm_sweep (SKETCHMM_SWEEP_EXE) under a kill before
 * the first row, a refused run, damaged rows (checksums and the checks of
 * every row against its spec), a full disk (a file size limit), data that
 * cannot be loaded (no output file then), corrupted gzip data, and spec
 * files with a key twice or lists too long.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>
#include <zlib.h>

#include "data/dataset.h"
#include "test_tmpdir.h"
#include "test_util.h"
#include "sweep_harness.h"

/* The whole file at path, malloc'ed; *size its bytes (NULL and 0 when it does not exist). */
static unsigned char *slurp(const char *path, size_t *size)
{
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)len + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_int_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *size = (size_t)len;
    return buf;
}

static void spill(const char *path, const unsigned char *buf, size_t size)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fwrite(buf, 1, size, f), size);
    fclose(f);
}

/* Names in test_tmpdir that start with prefix and hold ".tmp." (temporary results files left behind). */
static int leftover_temporaries(const char *prefix)
{
    DIR *d = opendir(test_tmpdir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0 && strstr(e->d_name, ".tmp.") != NULL;
    closedir(d);
    return n;
}

/* The small run's file is complete: SMALL_RUN_ROWS rows, config_index 0..5 once each, status 0. */
static void check_complete(const char *out)
{
    int64_t count;
    row_view *rows = rows_of(out, &count);
    ck_assert_int_eq(count, SMALL_RUN_ROWS);
    int seen[SMALL_RUN_ROWS] = { 0 };
    for (int64_t i = 0; i < count; i++) {
        ck_assert_int_ge(rows[i].config_index, 0);
        ck_assert_int_lt(rows[i].config_index, SMALL_RUN_ROWS);
        ck_assert_int_eq(rows[i].status, 0);
        seen[rows[i].config_index]++;
    }
    for (int i = 0; i < SMALL_RUN_ROWS; i++)
        ck_assert_msg(seen[i] == 1, "config_index %d appears %d times", i, seen[i]);
    free(rows);
}

/* Run the small grid into out; 0 expected. */
static void run_small(const char *out)
{
    const char *args[64];
    small_run_args(out, args, NULL);
    int rc = run_sweep(args);
    if (rc != 0)
        dump_file(log_path());
    ck_assert_int_eq(rc, 0);
}

static void sleep_ms(double ms)
{
    struct timespec ts = { (time_t)(ms / 1000), (long)((ms - 1000.0 * (time_t)(ms / 1000)) * 1e6) };
    nanosleep(&ts, NULL);
}

/* ------------------------------------------------------------------------ */
/* A: a kill before the first row                                           */
/* ------------------------------------------------------------------------ */

START_TEST(test_kill_before_first_row_resumes)
{
    char out[1024];
    test_tmp_path("r.h5", out, sizeof out);
    const char *args[64];
    small_run_args(out, args, NULL);
    /* Killed as soon as anything of the results file appears, then after fixed delays. */
    static const double delays_ms[] = { -1, 0, 5, 20 };
    for (size_t d = 0; d < sizeof delays_ms / sizeof delays_ms[0]; d++) {
        unlink(out);
        pid_t pid = spawn_driver(args, NULL, NULL, 0);
        if (delays_ms[d] < 0) {
            for (int spin = 0; spin < 200000; spin++) {
                struct stat st;
                if (stat(out, &st) == 0 || leftover_temporaries("r.h5") > 0)
                    break;
                sleep_ms(0.05);
            }
        } else {
            sleep_ms(delays_ms[d]);
        }
        kill(pid, SIGKILL);
        int status;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        /* The same command again: resumes (or starts) and finishes the grid. */
        int rc = run_sweep(args);
        if (rc != 0)
            dump_file(log_path());
        ck_assert_msg(rc == 0, "delay %g ms: the rerun exited %d", delays_ms[d], rc);
        check_complete(out);
        char *spec = attr_of(out, "spec");
        ck_assert_msg(spec[0] == '{', "spec attribute");
        free(spec);
    }
}
END_TEST

/* ------------------------------------------------------------------------ */
/* B: a refused run leaves the file as it was                               */
/* ------------------------------------------------------------------------ */

START_TEST(test_refusal_leaves_file_unchanged)
{
    char out[1024], other[1024];
    test_tmp_path("empty.h5", out, sizeof out);
    spill(out, (const unsigned char *)"", 0);
    const char *args[64];
    small_run_args(out, args, NULL);
    ck_assert_int_eq(run_sweep(args), 2);
    struct stat st;
    ck_assert_int_eq(stat(out, &st), 0);
    ck_assert_msg(st.st_size == 0, "the refused 0-byte file now has %lld bytes", (long long)st.st_size);

    /* A results file of another spec: refused, byte for byte unchanged. */
    test_tmp_path("other.h5", other, sizeof other);
    const char *other_args[] = { "--mode", "dense", "--datasets", "gaussian", "--k", "8", "--shapes", "8x8",
                                 "--methods", "srht", "--sketch-dims", "4", "--reps", "1", "--out", other, NULL };
    ck_assert_int_eq(run_sweep(other_args), 0);
    size_t before_size, after_size;
    unsigned char *before = slurp(other, &before_size);
    small_run_args(other, args, NULL);
    ck_assert_int_eq(run_sweep(args), 2);
    ck_assert_msg(file_contains(log_path(), "different spec"), "the refusal should say why");
    unsigned char *after = slurp(other, &after_size);
    ck_assert_msg(after_size == before_size && memcmp(before, after, before_size) == 0,
                  "the refused file changed (%zu -> %zu bytes)", before_size, after_size);
    free(before);
    free(after);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* C: damaged rows                                                          */
/* ------------------------------------------------------------------------ */

/*
 * Rewrite /results of path through HDF5 (checksums stay valid): edit(rows,
 * count, type) changes the rows in the file's own native layout and returns
 * the new count (count or count + 1: an appended row).
 */
typedef int64_t (*rows_edit_fn)(unsigned char *rows, int64_t count, hid_t type);

static void edit_rows(const char *path, rows_edit_fn edit)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    ck_assert_int_ge(file, 0);
    hid_t dset = H5Dopen2(file, "results", H5P_DEFAULT);
    hid_t ftype = H5Dget_type(dset);
    hid_t type = H5Tget_native_type(ftype, H5T_DIR_DEFAULT);
    size_t rsize = H5Tget_size(type);
    hid_t space = H5Dget_space(dset);
    hsize_t dims[1];
    H5Sget_simple_extent_dims(space, dims, NULL);
    H5Sclose(space);
    unsigned char *rows = calloc((size_t)dims[0] + 1, rsize);
    ck_assert_ptr_nonnull(rows);
    ck_assert_int_ge(H5Dread(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows), 0);
    hsize_t n[1] = { (hsize_t)edit(rows, (int64_t)dims[0], type) };
    ck_assert_int_ge(H5Dset_extent(dset, n), 0);
    ck_assert_int_ge(H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows), 0);
    free(rows);
    H5Tclose(type);
    H5Tclose(ftype);
    H5Dclose(dset);
    H5Fclose(file);
}

/* The offset of field name in the native row type. */
static size_t field_offset(hid_t type, const char *name)
{
    int i = H5Tget_member_index(type, name);
    ck_assert_int_ge(i, 0);
    return H5Tget_member_offset(type, (unsigned)i);
}

static int64_t index_out_of_grid(unsigned char *rows, int64_t count, hid_t type)
{
    int64_t bad = 9187201950435737471LL;
    memcpy(rows + 3 * H5Tget_size(type) + field_offset(type, "config_index"), &bad, sizeof bad);
    return count;
}

static int64_t hash_changed(unsigned char *rows, int64_t count, hid_t type)
{
    rows[1 * H5Tget_size(type) + field_offset(type, "config_hash")] ^= 0x40;
    return count;
}

static int64_t index_swapped(unsigned char *rows, int64_t count, hid_t type)
{
    size_t at = field_offset(type, "config_index"), rsize = H5Tget_size(type);
    int64_t a, b;
    memcpy(&a, rows + at, sizeof a);
    memcpy(&b, rows + rsize + at, sizeof b);
    memcpy(rows + at, &b, sizeof b);
    memcpy(rows + rsize + at, &a, sizeof a);
    return count;
}

static int64_t row_repeated(unsigned char *rows, int64_t count, hid_t type)
{
    memcpy(rows + (size_t)count * H5Tget_size(type), rows, H5Tget_size(type));
    return count + 1;
}

static int64_t blank_row_appended(unsigned char *rows, int64_t count, hid_t type)
{
    memset(rows + (size_t)count * H5Tget_size(type), 0, H5Tget_size(type));
    return count + 1;
}

/* Resuming path is refused with the row named and the salvage suggested; the file is not changed. */
static void check_refused_damaged(const char *path, const char *row_needle, const char *why_needle)
{
    size_t before_size, after_size;
    unsigned char *before = slurp(path, &before_size);
    const char *args[64];
    small_run_args(path, args, NULL);
    int rc = run_sweep(args);
    if (rc != 2 || !file_contains(log_path(), row_needle) || !file_contains(log_path(), why_needle))
        dump_file(log_path());
    ck_assert_int_eq(rc, 2);
    ck_assert_msg(file_contains(log_path(), row_needle), "the message should name %s", row_needle);
    ck_assert_msg(file_contains(log_path(), why_needle), "the message should say '%s'", why_needle);
    ck_assert_msg(file_contains(log_path(), "merge --salvage"), "the message should say how to salvage");
    unsigned char *after = slurp(path, &after_size);
    ck_assert_msg(after_size == before_size && memcmp(before, after, before_size) == 0, "refused file changed");
    free(before);
    free(after);
}

/* `sketchmm_sweep check --list path` finds the damage: exit 1, the row listed with why_needle. */
static void check_command_lists(const char *path, const char *row_needle, const char *why_needle)
{
    const char *args[] = { "check", "--list", path, NULL };
    int rc = run_sweep(args);
    if (rc != 1 || !file_contains(log_path(), row_needle) || !file_contains(log_path(), why_needle))
        dump_file(log_path());
    ck_assert_int_eq(rc, 1);
    ck_assert_msg(file_contains(log_path(), row_needle), "check --list should list %s", row_needle);
    ck_assert_msg(file_contains(log_path(), why_needle), "check --list should say '%s'", why_needle);
}

/* Salvage damaged into good: kept rows, and resuming good completes the grid. */
static void check_salvage(const char *damaged, const char *good, int64_t kept)
{
    const char *m[] = { "--overwrite", "--salvage", good, damaged, NULL };
    int rc = run_merge(m);
    if (rc != 0)
        dump_file(log_path());
    ck_assert_int_eq(rc, 0);
    int64_t count;
    row_view *rows = rows_of(good, &count);
    ck_assert_int_eq(count, kept);
    free(rows);
    run_small(good);
    check_complete(good);
}

START_TEST(test_damaged_rows_refused_and_salvaged)
{
    char out[1024], copy[1024], good[1024], merged[1024], s0[1024], s1[1024];
    test_tmp_path("r.h5", out, sizeof out);
    test_tmp_path("copy.h5", copy, sizeof copy);
    test_tmp_path("good.h5", good, sizeof good);
    test_tmp_path("merged.h5", merged, sizeof merged);
    run_small(out);
    size_t size;
    unsigned char *pristine = slurp(out, &size);
    const char *sound[] = { "check", out, NULL };
    ck_assert_int_eq(run_sweep(sound), 0);
    ck_assert_msg(file_contains(log_path(), "every row sound"), "check should call a fresh file sound");

    /* 1. Eight bytes of row 2's config_hash overwritten on disk: its chunk fails its checksum. */
    int64_t count;
    row_view *rows = rows_of(out, &count);
    uint64_t h = rows[2].config_hash;
    free(rows);
    unsigned char le[8];
    for (int b = 0; b < 8; b++)
        le[b] = (unsigned char)(h >> (8 * b));
    unsigned char *bytes = slurp(out, &size);
    unsigned char *at = NULL;
    for (size_t i = 0; i + sizeof le <= size && at == NULL; i++)
        if (memcmp(bytes + i, le, sizeof le) == 0)
            at = bytes + i;
    ck_assert_ptr_nonnull(at);
    memset(at, 0x7f, 8);
    spill(copy, bytes, size);
    free(bytes);
    check_refused_damaged(copy, "row 2: ", "checksum");
    check_command_lists(copy, "\t2\t", "checksum");
    const char *m[] = { "--overwrite", merged, copy, NULL };
    ck_assert_int_eq(run_merge(m), 2);
    ck_assert_msg(file_contains(log_path(), "damaged") && file_contains(log_path(), "row 2: "),
                  "merge should name the damaged row");
    ck_assert_msg(access(merged, F_OK) != 0, "a refused merge wrote its output");
    check_salvage(copy, good, SMALL_RUN_ROWS - 1);

    /* 2. Rows rewritten through HDF5 (valid checksums): the checks against the spec. */
    static const struct {
        rows_edit_fn edit;
        const char *row, *why;
        int64_t kept;
        const char *listed;
    } cases[] = {
        { index_out_of_grid, "row 3 ", "outside the grid", SMALL_RUN_ROWS - 1, "\t3\t" },
        { hash_changed, "row 1 ", "config_hash does not match", SMALL_RUN_ROWS - 1, "\t1\t" },
        { index_swapped, "row 0 ", "another configuration", SMALL_RUN_ROWS - 2, NULL },
        { row_repeated, "row 6 ", "same configuration", SMALL_RUN_ROWS, "\t6\t" },
        { blank_row_appended, "row 6 ", "mode is neither", SMALL_RUN_ROWS, "\t6\t" },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        spill(copy, pristine, size);
        edit_rows(copy, cases[c].edit);
        check_refused_damaged(copy, cases[c].row, cases[c].why);
        /* index_swapped passes the checks without a grid (merge) but not resume's */
        if (cases[c].edit != index_swapped) {
            check_command_lists(copy, cases[c].listed, cases[c].why);
            check_salvage(copy, good, cases[c].kept);
        }
    }

    /* 3. Merge with one damaged shard: refused, nothing written. */
    test_tmp_path("s0.h5", s0, sizeof s0);
    test_tmp_path("s1.h5", s1, sizeof s1);
    const char *args[64];
    small_run_args(s0, args, "0/2");
    ck_assert_int_eq(run_sweep(args), 0);
    small_run_args(s1, args, "1/2");
    ck_assert_int_eq(run_sweep(args), 0);
    edit_rows(s1, hash_changed);
    unlink(merged);
    const char *ms[] = { merged, s0, s1, NULL };
    ck_assert_int_eq(run_merge(ms), 2);
    ck_assert_msg(file_contains(log_path(), s1), "the damaged shard should be named");
    ck_assert_msg(access(merged, F_OK) != 0, "a refused merge wrote its output");
    free(pristine);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* D: a full disk                                                           */
/* ------------------------------------------------------------------------ */

/* Run args with a file size limit; its exit status (0 or 1 expected: no crash). */
static int run_limited(const char *const *args, long long limit)
{
    int status = run_driver(args, NULL, NULL, limit);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) <= 1, "limit %lld: the driver did not exit cleanly",
                  limit);
    return WEXITSTATUS(status);
}

START_TEST(test_full_disk_keeps_table_valid)
{
    char out[1024];
    test_tmp_path("full.h5", out, sizeof out);
    const char *args[64];
    small_run_args(out, args, NULL);
    /* The smallest limit (to 1 KiB) under which the run completes: doubling, then bisection. */
    long long lo = 1024, hi = 4096;
    for (unlink(out); run_limited(args, hi) != 0; unlink(out)) {
        lo = hi;
        hi *= 2;
        ck_assert_msg(hi < (64LL << 20), "no limit up to 64 MiB lets the small run complete");
    }
    while (hi - lo > 1024) {
        long long mid = (lo + hi) / 2;
        unlink(out);
        if (run_limited(args, mid) == 0)
            hi = mid;
        else
            lo = mid;
    }
    /* Every limit of the 16 KiB below it: the file, if any, holds sound rows only, and resumes. */
    int partial = 0;
    for (long long limit = hi - 16 * 1024; limit < hi; limit += 1024) {
        unlink(out);
        run_limited(args, limit);
        ck_assert_msg(leftover_temporaries("full.h5") == 0, "limit %lld: a temporary file was left", limit);
        if (access(out, F_OK) == 0) {
            int64_t count;
            row_view *rows = rows_of(out, &count);
            for (int64_t i = 0; i < count; i++)
                ck_assert_msg(rows[i].config_hash != 0 && rows[i].mode[0] != '\0',
                              "limit %lld: row %lld is blank", limit, (long long)i);
            partial += count < SMALL_RUN_ROWS;
            free(rows);
        }
        /* Space again: the same command resumes and completes the grid, each configuration once. */
        int rc = run_sweep(args);
        if (rc != 0)
            dump_file(log_path());
        ck_assert_msg(rc == 0, "limit %lld: the resume exited %d", limit, rc);
        check_complete(out);
    }
    ck_assert_msg(partial > 0, "no limit stopped the run part way: the test covers nothing");
}
END_TEST

/* ------------------------------------------------------------------------ */
/* E, F: data that cannot be loaded                                         */
/* ------------------------------------------------------------------------ */

/* A gzipped IDX image file of count 28 x 28 images (pixel (i * 7 + p) mod 256) at path. */
static void write_idx_gz(const char *path, int count)
{
    gzFile f = gzopen(path, "wb6");
    ck_assert_ptr_nonnull(f);
    unsigned char head[16] = { 0, 0, 8, 3 };
    uint32_t dims[3] = { (uint32_t)count, 28, 28 };
    for (int d = 0; d < 3; d++)
        for (int b = 0; b < 4; b++)
            head[4 + 4 * d + b] = (unsigned char)(dims[d] >> (24 - 8 * b));
    ck_assert_int_eq(gzwrite(f, head, sizeof head), (int)sizeof head);
    unsigned char img[784];
    for (int i = 0; i < count; i++) {
        for (int p = 0; p < 784; p++)
            img[p] = (unsigned char)((i * 7 + p * 13 + (p * p) % 31) & 0xff);
        ck_assert_int_eq(gzwrite(f, img, sizeof img), (int)sizeof img);
    }
    ck_assert_int_eq(gzclose(f), Z_OK);
}

START_TEST(test_corrupt_gzip_data_fails_without_output)
{
    char dir[1024], train[1100], test[1100], out[1024];
    test_tmp_path("fm", dir, sizeof dir);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    snprintf(train, sizeof train, "%s/train-images-idx3-ubyte.gz", dir);
    snprintf(test, sizeof test, "%s/t10k-images-idx3-ubyte.gz", dir);
    test_tmp_path("fm.h5", out, sizeof out);
    write_idx_gz(train, 400);
    write_idx_gz(test, 50);
    const char *args[] = { "--mode", "dense", "--data-dir", dir, "--m", "8", "--n", "8", "--methods", "srht",
                           "--sketch-dims", "4", "--reps", "1", "--out", out, NULL };
    /* Sound data: the run works (and only reads the first 16 images). */
    ck_assert_int_eq(run_sweep(args), 0);
    unlink(out);
    /* 64 bytes overwritten in the middle of the compressed stream, far past the images the run uses. */
    size_t size;
    unsigned char *bytes = slurp(train, &size);
    ck_assert_uint_gt(size, 4000);
    memset(bytes + size * 3 / 4, 0x5a, 64);
    spill(train, bytes, size);
    free(bytes);
    int rc = run_sweep(args);
    if (rc != 1)
        dump_file(log_path());
    ck_assert_int_eq(rc, 1);
    ck_assert_msg(file_contains(log_path(), "train-images-idx3-ubyte.gz"), "the message should name the file");
    ck_assert_msg(access(out, F_OK) != 0, "a run whose data could not be loaded created its output file");
}
END_TEST

START_TEST(test_zero_column_dataset_refused_without_output)
{
    char h5[1024], out[1024], spec[1100];
    test_tmp_path("zero.h5", h5, sizeof h5);
    test_tmp_path("z.h5", out, sizeof out);
    hid_t file = H5Fcreate(h5, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_int_ge(file, 0);
    hsize_t dims[2] = { 600, 0 };
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dset = H5Dcreate2(file, "x", H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_int_ge(dset, 0);
    H5Dclose(dset);
    H5Sclose(space);
    H5Fclose(file);
    snprintf(spec, sizeof spec, "%s:/x", h5);
    const char *args[] = { "--mode", "dense", "--datasets", spec, "--shapes", "100x100", "--methods", "srht",
                           "--sketch-dims", "4", "--reps", "1", "--out", out, NULL };
    int rc = run_sweep(args);
    if (rc != 2)
        dump_file(log_path());
    ck_assert_int_eq(rc, 2);
    ck_assert_msg(file_contains(log_path(), h5), "the message should name the file");
    ck_assert_msg(!file_contains(log_path(), "out of memory"), "not a memory problem");
    ck_assert_msg(access(out, F_OK) != 0, "output file created");
}
END_TEST

START_TEST(test_missing_data_creates_no_output)
{
    char out[1024], dir[1024];
    test_tmp_path("s.h5", out, sizeof out);
    test_tmp_path("no-such-dir", dir, sizeof dir);
    const char *args[] = { "--mode", "dense", "--data-dir", dir, "--m", "8", "--n", "8", "--out", out, NULL };
    ck_assert_int_eq(run_sweep(args), 1);
    ck_assert_msg(access(out, F_OK) != 0, "a run whose data could not be loaded created its output file");
    ck_assert_int_eq(leftover_temporaries("s.h5"), 0);
}
END_TEST

/*
 * Run args (which hold "--out", then OUT_SLOT) with the output named input itself, a symbolic link to
 * it and a hard link to it: each run is refused (2) with a message, and input keeps its bytes.
 */
static void check_out_refused(const char *input, const char **args, int out_slot)
{
    size_t size;
    unsigned char *before = slurp(input, &size);
    ck_assert_ptr_nonnull(before);
    char sym[1200], hard[1200];
    snprintf(sym, sizeof sym, "%s.symlink", input);
    snprintf(hard, sizeof hard, "%s.hardlink", input);
    unlink(sym);
    unlink(hard);
    ck_assert_int_eq(symlink(input, sym), 0);
    ck_assert_int_eq(link(input, hard), 0);
    const char *outs[] = { input, sym, hard };
    for (int i = 0; i < 3; i++) {
        args[out_slot] = outs[i];
        int rc = run_sweep(args);
        if (rc != 2)
            dump_file(log_path());
        ck_assert_msg(rc == 2, "--out %s (input %s): exit %d, expected 2", outs[i], input, rc);
        ck_assert_msg(file_contains(log_path(), "which the sweep reads"), "the message should say why");
        size_t after_size;
        unsigned char *after = slurp(input, &after_size);
        ck_assert_msg(after != NULL && after_size == size && memcmp(after, before, size) == 0,
                      "--out %s changed the input %s", outs[i], input);
        free(after);
    }
    unlink(sym);
    unlink(hard);
    free(before);
}

START_TEST(test_out_that_is_an_input_refused)
{
    /* an ann benchmark file, as `--datasets ann:d.h5 --out d.h5 --overwrite` */
    char ann[1024];
    test_tmp_path("input-ann.h5", ann, sizeof ann);
    float train[40 * 8], test[3 * 8], distances[3] = { 0 };
    for (int i = 0; i < 40 * 8; i++)
        train[i] = (float)((i * 7) % 11) - 5.0f;
    memcpy(test, train, sizeof test);
    int64_t neighbors[3] = { 0, 1, 2 };
    dataset_ann a = { { 40, 8, train }, { 3, 8, test }, neighbors, distances, 1, 40, 3, "dot" };
    char msg[256];
    ck_assert_int_eq(dataset_write_ann(ann, &a, msg, sizeof msg), SMM_OK);
    char spec_ann[1100];
    snprintf(spec_ann, sizeof spec_ann, "ann:%s", ann);
    const char *args_ann[] = { "--mode", "topk", "--datasets", spec_ann, "--topk-shapes", "3x40", "--topk", "2", "--candidates", "4",
                               "--methods", "srht", "--topk-sketch-dims", "4", "--topk-reps", "1", "--overwrite",
                               "--out", NULL, NULL };
    check_out_refused(ann, args_ann, 18);

    /* an HDF5 matrix FILE:/x */
    char spec_h5[1100];
    snprintf(spec_h5, sizeof spec_h5, "%s:/train", ann);
    const char *args_h5[] = { "--mode", "dense", "--datasets", spec_h5, "--shapes", "8x8", "--methods", "srht",
                              "--sketch-dims", "4", "--reps", "1", "--overwrite", "--out", NULL, NULL };
    check_out_refused(ann, args_h5, 14);

    /* the Fashion-MNIST images */
    char dir[1024], images[1100];
    test_tmp_path("fm-out", dir, sizeof dir);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    snprintf(images, sizeof images, "%s/t10k-images-idx3-ubyte.gz", dir);
    write_idx_gz(images, 50);
    snprintf(images, sizeof images, "%s/train-images-idx3-ubyte.gz", dir);
    write_idx_gz(images, 400);
    const char *args_fm[] = { "--mode", "dense", "--data-dir", dir, "--m", "8", "--n", "8", "--methods", "srht",
                              "--sketch-dims", "4", "--reps", "1", "--overwrite", "--out", NULL, NULL };
    check_out_refused(images, args_fm, 16);

    /* the spec file */
    char spec[1024];
    test_tmp_path("input-spec.json", spec, sizeof spec);
    FILE *f = fopen(spec, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"mode\": \"dense\", \"datasets\": [\"gaussian\"], \"methods\": [\"srht\"], \"sketch_dims\": [4], "
          "\"shapes\": [\"8x8\"], \"reps\": 1}\n", f);
    fclose(f);
    const char *args_spec[] = { "--spec", spec, "--overwrite", "--out", NULL, NULL };
    check_out_refused(spec, args_spec, 4);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Spec files: a key twice, long lists                                      */
/* ------------------------------------------------------------------------ */

/* A list of n integers "[v, v+1, ...]" or "v,v+1,..." (json), malloc'ed. */
static char *int_list(int n, int first, int json)
{
    char *s = malloc((size_t)n * 24 + 8);
    ck_assert_ptr_nonnull(s);
    size_t used = 0;
    if (json)
        s[used++] = '[';
    for (int i = 0; i < n; i++)
        used += (size_t)sprintf(s + used, "%s%d", i ? "," : "", first + i);
    if (json)
        s[used++] = ']';
    s[used] = '\0';
    return s;
}

START_TEST(test_spec_duplicate_keys_and_long_lists)
{
    char *l65 = int_list(65, 1, 1), *l5000 = int_list(5000, 1, 1), *l64 = int_list(64, 1, 1), *l32 = int_list(32, 1, 1);
    char j65[2048], j5000[60000], huge_grid[4096];
    snprintf(j65, sizeof j65, "{\"bits\": %s}", l65);
    snprintf(j5000, sizeof j5000, "{\"sketch_dims\": %s}", l5000);
    snprintf(huge_grid, sizeof huge_grid,
             "{\"mode\": \"dense\", \"datasets\": [\"gaussian\", \"clustered\", \"lowrank\"], \"seeds\": %s, "
             "\"threads\": [1, 2], \"shapes\": [\"8x8\", \"8x9\", \"8x10\", \"8x11\", \"8x12\", \"8x13\", "
             "\"8x14\", \"8x15\", \"8x16\", \"8x17\", \"8x18\", \"8x19\", \"8x20\", \"8x21\", \"8x22\", "
             "\"8x23\"], \"bits\": %s, \"sketch_dims\": %s}", l32, l64, l64);
    const struct {
        const char *json, *needle;
    } bad[] = {
        { "{\"bits\": [64], \"bits\": [128]}", "'bits' appears twice" },
        { "{\"bits\": [64],\n \"reps\": 2,\n \"b\\u0069ts\": [128]}", "'bits' appears twice in one object (line 3)" },
        { "{\"sizes\": {\"srht\": [4], \"srht\": [8]}}", "'srht' appears twice" },
        { j65, "at most 64" },
        { j5000, "at most 64" },
        /* a value twice would run its configurations twice (found by fuzz_spec) */
        { "{\"bits\": [64, 64]}", "64 appears twice" },
        { "{\"shapes\": [\"8x8\", \"8x8\"], \"datasets\": [\"gaussian\"], \"mode\": \"dense\"}",
          "8x8 appears twice" },
        { "{\"topk_sizes\": {\"srht\": [4, 8, 4]}}", "4 appears twice" },
        { "{\"methods\": [\"srht\", \"srht\"]}", "srht appears twice" },
        /* a few lines describing 3.1 million configurations (3 x 32 x 2 x 16 x 8 x 64) */
        { huge_grid, "a sweep runs at most 1000000" },
    };
    char spec[1024];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_tmp_file("bad.json", bad[i].json, spec, sizeof spec);
        const char *args[] = { "--spec", spec, "--dry-run", NULL };
        int rc = run_sweep(args);
        if (rc != 2 || !file_contains(log_path(), bad[i].needle))
            dump_file(log_path());
        ck_assert_msg(rc == 2, "spec %zu: exit status %d, expected 2", i, rc);
        ck_assert_msg(file_contains(log_path(), bad[i].needle), "spec %zu: no '%s'", i, bad[i].needle);
        ck_assert_msg(bad[i].json == huge_grid || file_contains(log_path(), spec),
                      "spec %zu: the file should be named", i); /* the grid's size is no one key's */
    }
    /* The same key in two objects is fine. */
    write_tmp_file("ok.json", "{\"sizes\": {\"srht\": [4]}, \"topk_sizes\": {\"srht\": [8]}}", spec, sizeof spec);
    const char *ok[] = { "--spec", spec, "--dry-run", NULL };
    ck_assert_int_eq(run_sweep(ok), 0);

    /* Flags: 65 items are refused with the reason; 64 long seeds (over 1 KiB of text) are fine. */
    char *c65 = int_list(65, 1, 0);
    const char *many[] = { "--bits", c65, "--dry-run", NULL };
    ck_assert_int_eq(run_sweep(many), 2);
    ck_assert_msg(file_contains(log_path(), "at most 64"), "--bits with 65 items: the reason");
    const char *twice[] = { "--seeds", "7,8,7", "--dry-run", NULL };
    ck_assert_int_eq(run_sweep(twice), 2);
    ck_assert_msg(file_contains(log_path(), "7 appears twice"), "--seeds 7,8,7: the reason");
    char seeds[64 * 24];
    size_t used = 0;
    for (int i = 0; i < 64; i++)
        used += (size_t)sprintf(seeds + used, "%s%llu", i ? "," : "", 18000000000000000000ULL + (unsigned)i);
    const char *long_seeds[] = { "--mode", "dense", "--datasets", "gaussian", "--k", "8", "--shapes", "8x8",
                                 "--methods", "srht", "--sketch-dims", "4", "--seeds", seeds, "--dry-run", NULL };
    int rc = run_sweep(long_seeds);
    if (rc != 0)
        dump_file(log_path());
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(dry_run_size(), 64);
    free(l65);
    free(l5000);
    free(l64);
    free(l32);
    free(c65);
}
END_TEST

static Suite *integrity_suite(void)
{
    Suite *s = suite_create("sweep_integrity");
    TCase *tc = tcase_create("integrity");
    tcase_add_checked_fixture(tc, test_tmpdir_setup, test_tmpdir_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_kill_before_first_row_resumes);
    tcase_add_test(tc, test_refusal_leaves_file_unchanged);
    tcase_add_test(tc, test_damaged_rows_refused_and_salvaged);
    tcase_add_test(tc, test_full_disk_keeps_table_valid);
    tcase_add_test(tc, test_corrupt_gzip_data_fails_without_output);
    tcase_add_test(tc, test_zero_column_dataset_refused_without_output);
    tcase_add_test(tc, test_missing_data_creates_no_output);
    tcase_add_test(tc, test_out_that_is_an_input_refused);
    tcase_add_test(tc, test_spec_duplicate_keys_and_long_lists);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(integrity_suite());
}
