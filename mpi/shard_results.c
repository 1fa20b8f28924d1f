/*
 * shard_results.c - the HDF5 results file of sketchmm_shard_topk (see
 * shard_results.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "data/dataset.h"
#include "shard_results.h"

/* The directory of path and its parents, as mkdir -p; 0 on failure. */
static int make_parents(const char *path)
{
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return 0;
    char *slash = strrchr(dir, '/');
    if (slash == NULL || slash == dir)
        return 1;
    *slash = '\0';
    for (char *p = dir + 1; *p != '\0'; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(dir, 0777) != 0 && errno != EEXIST)
                return 0;
            *p = '/';
        }
    return mkdir(dir, 0777) == 0 || errno == EEXIST;
}

static herr_t attr_string(hid_t at, const char *name, const char *value)
{
    hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR);
    herr_t err = H5Tset_size(type, strlen(value) + 1);
    hid_t attr = err >= 0 ? H5Acreate2(at, name, type, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
    err = attr >= 0 ? H5Awrite(attr, type, value) : -1;
    if (attr >= 0)
        H5Aclose(attr);
    H5Sclose(space);
    H5Tclose(type);
    return err;
}

static herr_t attr_number(hid_t at, const char *name, hid_t file_type, hid_t mem_type, const void *value)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t attr = H5Acreate2(at, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t err = attr >= 0 ? H5Awrite(attr, mem_type, value) : -1;
    if (attr >= 0)
        H5Aclose(attr);
    H5Sclose(space);
    return err;
}

static herr_t attr_i64(hid_t at, const char *name, int64_t v)
{
    return attr_number(at, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v);
}

static herr_t attr_f64(hid_t at, const char *name, double v)
{
    return attr_number(at, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v);
}

/* A rows x cols dataset (rows >= 1). */
static herr_t put_matrix(hid_t file, const char *name, hid_t file_type, hid_t mem_type, int64_t rows, int64_t cols,
                         const void *data)
{
    hsize_t dims[2] = { (hsize_t)rows, (hsize_t)cols };
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t set = H5Dcreate2(file, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    herr_t err = set >= 0 ? H5Dwrite(set, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) : -1;
    if (set >= 0)
        H5Dclose(set);
    H5Sclose(space);
    return err;
}

/* One row of /ranks. */
typedef struct {
    int32_t rank;
    int64_t first, rows, candidates;
    double seconds[RANK_FIELDS - RANK_LOAD];
} rank_row;

static const char *const second_names[RANK_FIELDS - RANK_LOAD] = {
    "load_seconds",        "create_seconds",       "plan_seconds",         "search_seconds",
    "wait_seconds",        "merge_seconds",        "exact_create_seconds", "exact_plan_seconds",
    "exact_search_seconds", "exact_wait_seconds",  "exact_merge_seconds"
};

static herr_t put_ranks(hid_t file, const shard_results *r)
{
    rank_row rows[r->ranks > 0 ? r->ranks : 1];
    for (int q = 0; q < r->ranks; q++) {
        const double *src = r->rank_rows + (size_t)q * RANK_FIELDS;
        rows[q].rank = q;
        rows[q].first = (int64_t)src[RANK_FIRST];
        rows[q].rows = (int64_t)src[RANK_ROWS];
        rows[q].candidates = (int64_t)src[RANK_CANDIDATES];
        for (int f = RANK_LOAD; f < RANK_FIELDS; f++)
            rows[q].seconds[f - RANK_LOAD] = src[f];
    }
    hid_t type = H5Tcreate(H5T_COMPOUND, sizeof(rank_row));
    herr_t err = H5Tinsert(type, "rank", HOFFSET(rank_row, rank), H5T_NATIVE_INT32);
    err |= H5Tinsert(type, "first", HOFFSET(rank_row, first), H5T_NATIVE_INT64);
    err |= H5Tinsert(type, "rows", HOFFSET(rank_row, rows), H5T_NATIVE_INT64);
    err |= H5Tinsert(type, "candidates", HOFFSET(rank_row, candidates), H5T_NATIVE_INT64);
    for (int f = 0; f < RANK_FIELDS - RANK_LOAD; f++)
        err |= H5Tinsert(type, second_names[f], HOFFSET(rank_row, seconds) + (size_t)f * sizeof(double),
                         H5T_NATIVE_DOUBLE);
    hsize_t dims[1] = { (hsize_t)r->ranks };
    hid_t space = H5Screate_simple(1, dims, NULL);
    hid_t set = err >= 0 ? H5Dcreate2(file, "ranks", type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    err = set >= 0 ? H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) : -1;
    if (set >= 0)
        H5Dclose(set);
    H5Sclose(space);
    H5Tclose(type);
    return err;
}

static herr_t put_everything(hid_t file, const shard_results *r)
{
    smm_isa isa = SMM_ISA_AUTO;
    smm_get_isa(&isa);
    herr_t err = attr_string(file, "database", r->database);
    err |= attr_string(file, "queries", r->queries);
    err |= attr_string(file, "method", r->method);
    err |= attr_string(file, "library_version", smm_version());
    err |= attr_string(file, "isa", smm_isa_name(isa) ? smm_isa_name(isa) : "unknown");
    const struct {
        const char *name;
        int64_t value;
    } ints[] = { { "size", r->size }, { "candidates", r->candidates }, { "m", r->m }, { "n", r->n }, { "k", r->k },
                 { "topk", r->topk }, { "ranks", r->ranks }, { "threads", r->threads }, { "reps", r->reps } };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        err |= attr_i64(file, ints[i].name, ints[i].value);
    err |= attr_number(file, "seed", H5T_STD_U64LE, H5T_NATIVE_UINT64, &r->seed);
    const struct {
        const char *name;
        double value;
    } reals[] = { { "seconds", r->seconds }, { "plan_seconds", r->plan_seconds }, { "merge_seconds", r->merge_seconds },
                  { "exact_seconds", r->exact_seconds }, { "exact_plan_seconds", r->exact_plan_seconds },
                  { "recall", r->recall }, { "recall_index", r->recall_index },
                  { "max_value_error", r->max_value_error } };
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++)
        err |= attr_f64(file, reals[i].name, reals[i].value);
    err |= put_ranks(file, r);
    if (r->idx != NULL && r->m > 0) {
        err |= put_matrix(file, "idx", H5T_STD_I64LE, H5T_NATIVE_INT64, r->m, r->topk, r->idx);
        err |= put_matrix(file, "val", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, r->m, r->topk, r->val);
    }
    if (r->exact_idx != NULL && r->m > 0) {
        err |= put_matrix(file, "exact_idx", H5T_STD_I64LE, H5T_NATIVE_INT64, r->m, r->topk, r->exact_idx);
        err |= put_matrix(file, "exact_val", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, r->m, r->topk, r->exact_val);
    }
    return err;
}

smm_status shard_results_write(const char *path, const shard_results *r, char *msg, size_t msg_size)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (!make_parents(path)) {
        snprintf(msg, msg_size, "cannot create the directory of %s: %s", path, strerror(errno));
        return DATASET_ERR_IO;
    }
    H5E_auto2_t func = NULL;
    void *data = NULL;
    H5Eget_auto2(H5E_DEFAULT, &func, &data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t file = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    herr_t err = file >= 0 ? put_everything(file, r) : -1;
    if (file >= 0 && H5Fclose(file) < 0)
        err = -1;
    H5Eset_auto2(H5E_DEFAULT, func, data);
    if (err < 0 || rename(tmp, path) != 0) {
        snprintf(msg, msg_size, "cannot write %s (%s)", path, err < 0 ? "an HDF5 call failed" : strerror(errno));
        unlink(tmp);
        return DATASET_ERR_IO;
    }
    return SMM_OK;
}
