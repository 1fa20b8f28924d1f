/*
 * results_h5.c - the HDF5 results table of a sweep. See results_h5.h.
 */
#define _GNU_SOURCE /* fallocate, FALLOC_FL_KEEP_SIZE */
#include "results_h5.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

/*
 * One row per chunk: each chunk carries its own Fletcher32 checksum, so a
 * damaged row is found (and dropped by a salvage) on its own, and an append
 * writes a new chunk without rewriting the chunk of earlier rows.
 */
#define RESULTS_CHUNK_ROWS 1

/*
 * Bytes of disk reserved beyond the end of the file before every change
 * (results_reserve): far more than one row's chunk and the metadata an
 * append or an attribute adds (a few KiB), so a full disk fails the
 * reservation, before HDF5 has changed anything, not a write half done.
 */
#define RESULTS_RESERVE_BYTES (64 * 1024)

struct results_file {
    hid_t file;
    hid_t dset;
    hid_t memtype;  /* the layout of results_row in memory */
    int64_t rows;
    int failed;     /* a change failed: the file takes no more (its rows stay valid) */
    char *path;     /* results_create: the final path, and the temporary file written until published */
    char *tmp_path;
};

static void set_msg(char *msg, size_t msg_size, const char *fmt, ...)
{
    if (msg == NULL || msg_size == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msg_size, fmt, ap);
    va_end(ap);
}

void results_set_string(char *field, size_t size, const char *src)
{
    memset(field, 0, size);
    if (src != NULL && size > 0) {
        size_t len = strlen(src);
        if (len > size - 1)
            len = size - 1;
        memcpy(field, src, len);
    }
}

/* A fixed-length, NUL-padded string type of `size` bytes (numpy 'S<size>'). */
static hid_t fixed_string_type(size_t size)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0)
        return t;
    if (H5Tset_size(t, size) < 0 || H5Tset_strpad(t, H5T_STR_NULLPAD) < 0) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

/*
 * The compound type of results_row, memory layout (native types) when
 * file_layout is 0, or the packed little-endian file layout when it is 1.
 */
static hid_t row_type(int file_layout)
{
    hid_t s_mode = fixed_string_type(RESULTS_MODE_LEN);
    hid_t s_method = fixed_string_type(RESULTS_METHOD_LEN);
    hid_t s_dataset = fixed_string_type(RESULTS_DATASET_LEN);
    hid_t s_isa = fixed_string_type(RESULTS_ISA_LEN);
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(results_row));
    hid_t i64 = file_layout ? H5T_STD_I64LE : H5T_NATIVE_INT64;
    hid_t i32 = file_layout ? H5T_STD_I32LE : H5T_NATIVE_INT32;
    hid_t u64 = file_layout ? H5T_STD_U64LE : H5T_NATIVE_UINT64;
    hid_t f64 = file_layout ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE;
    herr_t err = (s_mode < 0 || s_method < 0 || s_dataset < 0 || s_isa < 0 || t < 0) ? -1 : 0;
    if (err >= 0) {
        err |= H5Tinsert(t, "config_hash", HOFFSET(results_row, config_hash), u64);
        err |= H5Tinsert(t, "config_index", HOFFSET(results_row, config_index), i64);
        err |= H5Tinsert(t, "mode", HOFFSET(results_row, mode), s_mode);
        err |= H5Tinsert(t, "method", HOFFSET(results_row, method), s_method);
        err |= H5Tinsert(t, "dataset", HOFFSET(results_row, dataset), s_dataset);
        err |= H5Tinsert(t, "m", HOFFSET(results_row, m), i64);
        err |= H5Tinsert(t, "n", HOFFSET(results_row, n), i64);
        err |= H5Tinsert(t, "k", HOFFSET(results_row, k), i64);
        err |= H5Tinsert(t, "bits", HOFFSET(results_row, bits), i32);
        err |= H5Tinsert(t, "sketch_dim", HOFFSET(results_row, sketch_dim), i32);
        err |= H5Tinsert(t, "bytes_per_vector", HOFFSET(results_row, bytes_per_vector), i64);
        err |= H5Tinsert(t, "topk", HOFFSET(results_row, topk), i32);
        err |= H5Tinsert(t, "candidates", HOFFSET(results_row, candidates), i32);
        err |= H5Tinsert(t, "seed", HOFFSET(results_row, seed), u64);
        err |= H5Tinsert(t, "threads", HOFFSET(results_row, threads), i32);
        err |= H5Tinsert(t, "isa", HOFFSET(results_row, isa), s_isa);
        err |= H5Tinsert(t, "status", HOFFSET(results_row, status), i32);
        err |= H5Tinsert(t, "exact_seconds", HOFFSET(results_row, exact_seconds), f64);
        err |= H5Tinsert(t, "approx_seconds", HOFFSET(results_row, approx_seconds), f64);
        err |= H5Tinsert(t, "encode_b_seconds", HOFFSET(results_row, encode_b_seconds), f64);
        err |= H5Tinsert(t, "rest_seconds", HOFFSET(results_row, rest_seconds), f64);
        err |= H5Tinsert(t, "encode_a_seconds", HOFFSET(results_row, encode_a_seconds), f64);
        err |= H5Tinsert(t, "estimate_seconds", HOFFSET(results_row, estimate_seconds), f64);
        err |= H5Tinsert(t, "refine_seconds", HOFFSET(results_row, refine_seconds), f64);
        err |= H5Tinsert(t, "speedup", HOFFSET(results_row, speedup), f64);
        err |= H5Tinsert(t, "nmse", HOFFSET(results_row, nmse), f64);
        err |= H5Tinsert(t, "rel_fro_error", HOFFSET(results_row, rel_fro_error), f64);
        err |= H5Tinsert(t, "max_abs_error", HOFFSET(results_row, max_abs_error), f64);
        err |= H5Tinsert(t, "recall", HOFFSET(results_row, recall), f64);
        err |= H5Tinsert(t, "recall_index", HOFFSET(results_row, recall_index), f64);
        err |= H5Tinsert(t, "max_value_error", HOFFSET(results_row, max_value_error), f64);
        err |= H5Tinsert(t, "recall_at_1", HOFFSET(results_row, recall_at_1), f64);
        err |= H5Tinsert(t, "recall_at_10", HOFFSET(results_row, recall_at_10), f64);
        err |= H5Tinsert(t, "recall_at_100", HOFFSET(results_row, recall_at_100), f64);
        err |= H5Tinsert(t, "alignment", HOFFSET(results_row, alignment), f64);
        if (file_layout && err >= 0)
            err = H5Tpack(t);
    }
    if (s_mode >= 0)
        H5Tclose(s_mode);
    if (s_method >= 0)
        H5Tclose(s_method);
    if (s_dataset >= 0)
        H5Tclose(s_dataset);
    if (s_isa >= 0)
        H5Tclose(s_isa);
    if (err < 0) {
        if (t >= 0)
            H5Tclose(t);
        return -1;
    }
    return t;
}

void results_library_setup(void)
{
    /*
     * HDF5 1.10 closes open files again at exit and crashes on one whose
     * close failed after a write error (H5F__close_cb): files are closed
     * explicitly here, so its exit handler is not wanted.
     */
    H5dont_atexit();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/*
 * What results_create and results_open (named by who) do first: check the
 * arguments, quiet HDF5 (errors are reported through statuses and msg) and
 * allocate *f with no HDF5 handle open.
 */
static smm_status results_begin(const char *who, const char *path, results_file **out, results_file **f,
                                char *msg, size_t msg_size)
{
    if (out != NULL)
        *out = NULL;
    if (path == NULL || out == NULL) {
        set_msg(msg, msg_size, "%s: NULL argument", who);
        return SMM_ERR_NULL_POINTER;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    *f = calloc(1, sizeof **f);
    if (*f == NULL) {
        set_msg(msg, msg_size, "out of memory");
        return SMM_ERR_NO_MEMORY;
    }
    (*f)->file = (*f)->dset = (*f)->memtype = -1;
    return SMM_OK;
}

/*
 * Make sure the next RESULTS_RESERVE_BYTES past the end of the file can be
 * written: within the file size limit (RLIMIT_FSIZE) and allocated on disk
 * without changing the file's size (fallocate with FALLOC_FL_KEEP_SIZE), so
 * that the writes of the change that follows cannot fail for want of space.
 */
static smm_status results_reserve(results_file *f)
{
    if (f->failed)
        return DATASET_ERR_IO;
    int *fd = NULL;
    struct stat st;
    struct rlimit lim;
    if (H5Fget_vfd_handle(f->file, H5P_DEFAULT, (void **)&fd) < 0 || fd == NULL || fstat(*fd, &st) != 0)
        return DATASET_ERR_IO;
    if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
        (uint64_t)st.st_size + RESULTS_RESERVE_BYTES > (uint64_t)lim.rlim_cur)
        return DATASET_ERR_IO;
    if (fallocate(*fd, FALLOC_FL_KEEP_SIZE, st.st_size, RESULTS_RESERVE_BYTES) == 0)
        return SMM_OK;
    /* file systems without fallocate: the writes themselves will tell */
    return errno == EOPNOTSUPP || errno == ENOSYS ? SMM_OK : DATASET_ERR_IO;
}

smm_status results_create(const char *path, results_file **out, char *msg, size_t msg_size)
{
    results_file *f;
    const smm_status begun = results_begin("results_create", path, out, &f, msg, msg_size);
    if (begun != SMM_OK)
        return begun;

    hid_t filetype = -1, space = -1, dcpl = -1;
    size_t len = strlen(path) + 32;
    f->path = strdup(path);
    f->tmp_path = malloc(len);
    if (f->path == NULL || f->tmp_path == NULL) {
        set_msg(msg, msg_size, "out of memory");
        results_close(f);
        return SMM_ERR_NO_MEMORY;
    }
    snprintf(f->tmp_path, len, "%s.tmp.%ld", path, (long)getpid());
    f->file = H5Fcreate(f->tmp_path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f->file < 0) {
        set_msg(msg, msg_size, "cannot create HDF5 file %s", f->tmp_path);
        goto fail;
    }
    f->memtype = row_type(0);
    filetype = row_type(1);
    hsize_t dims[1] = { 0 }, maxdims[1] = { H5S_UNLIMITED }, chunk[1] = { RESULTS_CHUNK_ROWS };
    space = H5Screate_simple(1, dims, maxdims);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (f->memtype < 0 || filetype < 0 || space < 0 || dcpl < 0 || H5Pset_chunk(dcpl, 1, chunk) < 0 ||
        H5Pset_fletcher32(dcpl) < 0) {
        set_msg(msg, msg_size, "%s: cannot set up the /results table type", path);
        goto fail;
    }
    if (results_reserve(f) != SMM_OK ||
        (f->dset = H5Dcreate2(f->file, "results", filetype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT)) < 0) {
        set_msg(msg, msg_size, "%s: cannot create the /results table", f->tmp_path);
        goto fail;
    }
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Tclose(filetype);
    *out = f;
    return SMM_OK;

fail:
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    if (filetype >= 0)
        H5Tclose(filetype);
    results_close(f);
    return DATASET_ERR_IO;
}

smm_status results_publish(results_file *f, char *msg, size_t msg_size)
{
    if (f == NULL)
        return SMM_ERR_NULL_POINTER;
    if (f->tmp_path == NULL)
        return SMM_OK;
    int *fd = NULL;
    if (f->failed || H5Fflush(f->file, H5F_SCOPE_GLOBAL) < 0 ||
        H5Fget_vfd_handle(f->file, H5P_DEFAULT, (void **)&fd) < 0 || fd == NULL || fsync(*fd) != 0) {
        set_msg(msg, msg_size, "cannot write %s", f->tmp_path);
        return DATASET_ERR_IO;
    }
    if (rename(f->tmp_path, f->path) != 0) {
        set_msg(msg, msg_size, "cannot rename %s to %s: %s", f->tmp_path, f->path, strerror(errno));
        return DATASET_ERR_IO;
    }
    free(f->tmp_path);
    f->tmp_path = NULL;
    return SMM_OK;
}

smm_status results_open(const char *path, int writable, results_file **out, char *msg, size_t msg_size)
{
    results_file *f;
    const smm_status begun = results_begin("results_open", path, out, &f, msg, msg_size);
    if (begun != SMM_OK)
        return begun;
    smm_status s = DATASET_ERR_IO;
    f->file = H5Fopen(path, writable ? H5F_ACC_RDWR : H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f->file < 0) {
        set_msg(msg, msg_size, "cannot open %s as an HDF5 file", path);
        goto fail;
    }
    s = DATASET_ERR_BAD_FORMAT;
    if (H5Lexists(f->file, "results", H5P_DEFAULT) <= 0 ||
        (f->dset = H5Dopen2(f->file, "results", H5P_DEFAULT)) < 0) {
        set_msg(msg, msg_size, "%s has no /results table: not a sketchmm_sweep results file", path);
        goto fail;
    }
    hid_t ftype = H5Dget_type(f->dset);
    int has_hash = ftype >= 0 && H5Tget_class(ftype) == H5T_COMPOUND &&
                   H5Tget_member_index(ftype, "config_hash") >= 0;
    if (ftype >= 0)
        H5Tclose(ftype);
    if (!has_hash) {
        set_msg(msg, msg_size, "%s: /results has no config_hash field (written by an older sketchmm_sweep)",
                path);
        goto fail;
    }
    hid_t space = H5Dget_space(f->dset);
    hsize_t dims[1] = { 0 };
    if (space < 0 || H5Sget_simple_extent_ndims(space) != 1 ||
        H5Sget_simple_extent_dims(space, dims, NULL) < 0) {
        if (space >= 0)
            H5Sclose(space);
        set_msg(msg, msg_size, "%s: /results is not a 1-D table", path);
        goto fail;
    }
    H5Sclose(space);
    f->rows = (int64_t)dims[0];
    f->memtype = row_type(0);
    if (f->memtype < 0) {
        s = DATASET_ERR_IO;
        set_msg(msg, msg_size, "%s: cannot set up the /results table type", path);
        goto fail;
    }
    *out = f;
    return SMM_OK;

fail:
    results_close(f);
    return s;
}

/* Read rows [first, first + count) into r; negative when HDF5 fails (a checksum among them). */
static herr_t read_range(const results_file *f, hsize_t first, hsize_t count, results_row *r)
{
    hid_t fspace = H5Dget_space(f->dset);
    hid_t mspace = H5Screate_simple(1, &count, NULL);
    herr_t err = fspace < 0 || mspace < 0 ? -1 : H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &first, NULL, &count, NULL);
    if (err >= 0)
        err = H5Dread(f->dset, f->memtype, mspace, fspace, H5P_DEFAULT, r);
    if (mspace >= 0)
        H5Sclose(mspace);
    if (fspace >= 0)
        H5Sclose(fspace);
    return err;
}

smm_status results_read_rows(const results_file *f, results_row **rows, int64_t *count,
                             unsigned char **unreadable)
{
    if (f == NULL || rows == NULL || count == NULL)
        return SMM_ERR_NULL_POINTER;
    *rows = NULL;
    *count = 0;
    if (unreadable != NULL)
        *unreadable = NULL;
    if (f->rows == 0)
        return SMM_OK;
    results_row *r = calloc((size_t)f->rows, sizeof *r);
    unsigned char *bad = calloc((size_t)f->rows, 1);
    if (r == NULL || bad == NULL) {
        free(r);
        free(bad);
        return SMM_ERR_NO_MEMORY;
    }
    int64_t nbad = 0;
    if (read_range(f, 0, (hsize_t)f->rows, r) < 0) {
        /* Some chunk fails its checksum (or cannot be read): find the rows, one at a time. */
        for (int64_t i = 0; i < f->rows; i++)
            if (read_range(f, (hsize_t)i, 1, &r[i]) < 0) {
                memset(&r[i], 0, sizeof r[i]);
                bad[i] = 1;
                nbad++;
            }
    }
    if (nbad > 0 && unreadable == NULL) {
        free(r);
        free(bad);
        return DATASET_ERR_BAD_FORMAT;
    }
    *rows = r;
    *count = f->rows;
    if (unreadable != NULL)
        *unreadable = bad;
    else
        free(bad);
    return SMM_OK;
}

/* A variable-length UTF-8 string type. */
static hid_t vlen_string_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0)
        return t;
    if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

/*
 * Open attribute name of the root group and its type: SMM_OK (close both
 * after), DATASET_ERR_BAD_FORMAT when it is missing, DATASET_ERR_IO.
 */
static smm_status open_attr(const results_file *f, const char *name, hid_t *attr, hid_t *ftype)
{
    if (H5Aexists(f->file, name) <= 0)
        return DATASET_ERR_BAD_FORMAT;
    *attr = H5Aopen(f->file, name, H5P_DEFAULT);
    if (*attr < 0)
        return DATASET_ERR_IO;
    *ftype = H5Aget_type(*attr);
    if (*ftype < 0) {
        H5Aclose(*attr);
        return DATASET_ERR_IO;
    }
    return SMM_OK;
}

smm_status results_get_attr_string(const results_file *f, const char *name, char **value)
{
    if (f == NULL || name == NULL || value == NULL)
        return SMM_ERR_NULL_POINTER;
    *value = NULL;
    hid_t attr, ftype;
    smm_status s = open_attr(f, name, &attr, &ftype);
    if (s != SMM_OK)
        return s;
    s = DATASET_ERR_BAD_FORMAT;
    if (H5Tget_class(ftype) == H5T_STRING && H5Tis_variable_str(ftype) > 0) {
        hid_t mtype = vlen_string_type();
        char *v = NULL;
        s = DATASET_ERR_IO;
        if (mtype >= 0 && H5Aread(attr, mtype, &v) >= 0 && v != NULL) {
            *value = strdup(v);
            s = *value != NULL ? SMM_OK : SMM_ERR_NO_MEMORY;
            H5free_memory(v);
        }
        if (mtype >= 0)
            H5Tclose(mtype);
    }
    H5Tclose(ftype);
    H5Aclose(attr);
    return s;
}

smm_status results_get_attr_int64(const results_file *f, const char *name, int64_t *value)
{
    if (f == NULL || name == NULL || value == NULL)
        return SMM_ERR_NULL_POINTER;
    hid_t attr, ftype;
    smm_status s = open_attr(f, name, &attr, &ftype);
    if (s != SMM_OK)
        return s;
    s = DATASET_ERR_BAD_FORMAT;
    if (H5Tget_class(ftype) == H5T_INTEGER)
        s = H5Aread(attr, H5T_NATIVE_INT64, value) >= 0 ? SMM_OK : DATASET_ERR_IO;
    H5Tclose(ftype);
    H5Aclose(attr);
    return s;
}

/* H5Aiterate2 callback of results_copy_attrs: copy one attribute to the results_file in op_data. */
static herr_t copy_one_attr(hid_t loc, const char *name, const H5A_info_t *info, void *op_data)
{
    (void)info;
    results_file *dst = op_data;
    hid_t attr = H5Aopen(loc, name, H5P_DEFAULT);
    if (attr < 0)
        return -1;
    hid_t ftype = H5Aget_type(attr);
    herr_t err = -1;
    if (ftype >= 0 && H5Tget_class(ftype) == H5T_STRING && H5Tis_variable_str(ftype) > 0) {
        hid_t mtype = vlen_string_type();
        char *v = NULL;
        if (mtype >= 0 && H5Aread(attr, mtype, &v) >= 0 && v != NULL) {
            err = results_set_attr_string(dst, name, v) == SMM_OK ? 0 : -1;
            H5free_memory(v);
        }
        if (mtype >= 0)
            H5Tclose(mtype);
    } else if (ftype >= 0 && H5Tget_class(ftype) == H5T_INTEGER) {
        if (H5Tget_sign(ftype) == H5T_SGN_NONE) {
            uint64_t v;
            if (H5Aread(attr, H5T_NATIVE_UINT64, &v) >= 0)
                err = results_set_attr_uint64(dst, name, v) == SMM_OK ? 0 : -1;
        } else {
            int64_t v;
            if (H5Aread(attr, H5T_NATIVE_INT64, &v) >= 0)
                err = results_set_attr_int64(dst, name, v) == SMM_OK ? 0 : -1;
        }
    }
    if (ftype >= 0)
        H5Tclose(ftype);
    H5Aclose(attr);
    return err;
}

smm_status results_copy_attrs(results_file *dst, const results_file *src)
{
    if (dst == NULL || src == NULL)
        return SMM_ERR_NULL_POINTER;
    hsize_t idx = 0;
    return H5Aiterate2(src->file, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, copy_one_attr, dst) < 0
               ? DATASET_ERR_IO
               : SMM_OK;
}

/* Write a scalar attribute of type `type` holding *value on the root group. */
static smm_status set_attr(results_file *f, const char *name, hid_t type, const void *value)
{
    if (f == NULL || name == NULL || value == NULL)
        return SMM_ERR_NULL_POINTER;
    if (results_reserve(f) != SMM_OK)
        return DATASET_ERR_IO;
    if (H5Aexists(f->file, name) > 0 && H5Adelete(f->file, name) < 0)
        return DATASET_ERR_IO;
    hid_t space = H5Screate(H5S_SCALAR);
    if (space < 0)
        return DATASET_ERR_IO;
    hid_t attr = H5Acreate2(f->file, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t err = attr < 0 ? -1 : H5Awrite(attr, type, value);
    if (attr >= 0)
        H5Aclose(attr);
    H5Sclose(space);
    return err < 0 ? DATASET_ERR_IO : SMM_OK;
}

smm_status results_set_attr_string(results_file *f, const char *name, const char *value)
{
    if (value == NULL)
        return SMM_ERR_NULL_POINTER;
    hid_t t = vlen_string_type();
    if (t < 0)
        return DATASET_ERR_IO;
    smm_status s = set_attr(f, name, t, &value);
    H5Tclose(t);
    return s;
}

smm_status results_set_attr_int64(results_file *f, const char *name, int64_t value)
{
    return set_attr(f, name, H5T_NATIVE_INT64, &value);
}

smm_status results_set_attr_uint64(results_file *f, const char *name, uint64_t value)
{
    return set_attr(f, name, H5T_NATIVE_UINT64, &value);
}

smm_status results_append(results_file *f, const results_row *row)
{
    if (f == NULL || row == NULL)
        return SMM_ERR_NULL_POINTER;
    if (results_reserve(f) != SMM_OK)
        return DATASET_ERR_IO;
    hsize_t size[1] = { (hsize_t)f->rows + 1 };
    if (H5Dset_extent(f->dset, size) < 0)
        return DATASET_ERR_IO;
    hid_t fspace = H5Dget_space(f->dset);
    hsize_t start[1] = { (hsize_t)f->rows }, count[1] = { 1 };
    hid_t mspace = H5Screate_simple(1, count, NULL);
    herr_t err = fspace < 0 || mspace < 0 ? -1 : H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
    if (err >= 0)
        err = H5Dwrite(f->dset, f->memtype, mspace, fspace, H5P_DEFAULT, row);
    if (mspace >= 0)
        H5Sclose(mspace);
    if (fspace >= 0)
        H5Sclose(fspace);
    if (err >= 0 && H5Fflush(f->file, H5F_SCOPE_GLOBAL) >= 0) {
        f->rows++;
        return SMM_OK;
    }
    /* The row did not make it: the table goes back to its rows (no blank row), and takes no more. */
    size[0] = (hsize_t)f->rows;
    H5Dset_extent(f->dset, size);
    H5Fflush(f->file, H5F_SCOPE_GLOBAL);
    f->failed = 1;
    return DATASET_ERR_IO;
}

int64_t results_rows(const results_file *f)
{
    return f != NULL ? f->rows : 0;
}

smm_status results_close(results_file *f)
{
    if (f == NULL)
        return SMM_OK;
    herr_t err = 0;
    if (f->dset >= 0)
        err |= H5Dclose(f->dset);
    if (f->memtype >= 0)
        err |= H5Tclose(f->memtype);
    if (f->file >= 0)
        err |= H5Fclose(f->file);
    if (f->tmp_path != NULL) /* never published: the file was not finished */
        unlink(f->tmp_path);
    free(f->tmp_path);
    free(f->path);
    free(f);
    return err < 0 ? DATASET_ERR_IO : SMM_OK;
}
