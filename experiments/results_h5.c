/*
 * results_h5.c - the HDF5 results table of a sweep. See results_h5.h.
 */
#include "results_h5.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

/* Rows per chunk of /results: a few kilobytes. */
#define RESULTS_CHUNK_ROWS 64

struct results_file {
    hid_t file;
    hid_t dset;
    hid_t memtype;  /* the layout of results_row in memory */
    int64_t rows;
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
        err |= H5Tinsert(t, "mode", HOFFSET(results_row, mode), s_mode);
        err |= H5Tinsert(t, "method", HOFFSET(results_row, method), s_method);
        err |= H5Tinsert(t, "dataset", HOFFSET(results_row, dataset), s_dataset);
        err |= H5Tinsert(t, "m", HOFFSET(results_row, m), i64);
        err |= H5Tinsert(t, "n", HOFFSET(results_row, n), i64);
        err |= H5Tinsert(t, "k", HOFFSET(results_row, k), i64);
        err |= H5Tinsert(t, "bits", HOFFSET(results_row, bits), i32);
        err |= H5Tinsert(t, "sketch_dim", HOFFSET(results_row, sketch_dim), i32);
        err |= H5Tinsert(t, "topk", HOFFSET(results_row, topk), i32);
        err |= H5Tinsert(t, "candidates", HOFFSET(results_row, candidates), i32);
        err |= H5Tinsert(t, "seed", HOFFSET(results_row, seed), u64);
        err |= H5Tinsert(t, "threads", HOFFSET(results_row, threads), i32);
        err |= H5Tinsert(t, "isa", HOFFSET(results_row, isa), s_isa);
        err |= H5Tinsert(t, "status", HOFFSET(results_row, status), i32);
        err |= H5Tinsert(t, "exact_seconds", HOFFSET(results_row, exact_seconds), f64);
        err |= H5Tinsert(t, "approx_seconds", HOFFSET(results_row, approx_seconds), f64);
        err |= H5Tinsert(t, "speedup", HOFFSET(results_row, speedup), f64);
        err |= H5Tinsert(t, "nmse", HOFFSET(results_row, nmse), f64);
        err |= H5Tinsert(t, "rel_fro_error", HOFFSET(results_row, rel_fro_error), f64);
        err |= H5Tinsert(t, "max_abs_error", HOFFSET(results_row, max_abs_error), f64);
        err |= H5Tinsert(t, "recall", HOFFSET(results_row, recall), f64);
        err |= H5Tinsert(t, "recall_index", HOFFSET(results_row, recall_index), f64);
        err |= H5Tinsert(t, "max_value_error", HOFFSET(results_row, max_value_error), f64);
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

smm_status results_create(const char *path, results_file **out, char *msg, size_t msg_size)
{
    if (out != NULL)
        *out = NULL;
    if (path == NULL || out == NULL) {
        set_msg(msg, msg_size, "results_create: NULL argument");
        return SMM_ERR_NULL_POINTER;
    }
    /* Errors are reported through statuses and msg; HDF5 stays quiet. */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

    results_file *f = calloc(1, sizeof *f);
    if (f == NULL) {
        set_msg(msg, msg_size, "out of memory");
        return SMM_ERR_NO_MEMORY;
    }
    f->file = f->dset = f->memtype = -1;

    hid_t filetype = -1, space = -1, dcpl = -1;
    f->file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f->file < 0) {
        set_msg(msg, msg_size, "cannot create HDF5 file %s", path);
        goto fail;
    }
    f->memtype = row_type(0);
    filetype = row_type(1);
    hsize_t dims[1] = { 0 }, maxdims[1] = { H5S_UNLIMITED }, chunk[1] = { RESULTS_CHUNK_ROWS };
    space = H5Screate_simple(1, dims, maxdims);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (f->memtype < 0 || filetype < 0 || space < 0 || dcpl < 0 || H5Pset_chunk(dcpl, 1, chunk) < 0) {
        set_msg(msg, msg_size, "%s: cannot set up the /results table type", path);
        goto fail;
    }
    f->dset = H5Dcreate2(f->file, "results", filetype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (f->dset < 0) {
        set_msg(msg, msg_size, "%s: cannot create the /results table", path);
        goto fail;
    }
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Tclose(filetype);
    if (H5Fflush(f->file, H5F_SCOPE_GLOBAL) < 0) {
        set_msg(msg, msg_size, "%s: cannot flush the new file", path);
        results_close(f);
        return SMM_ERR_IO;
    }
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
    return SMM_ERR_IO;
}

/* Write a scalar attribute of type `type` holding *value on the root group. */
static smm_status set_attr(results_file *f, const char *name, hid_t type, const void *value)
{
    if (f == NULL || name == NULL || value == NULL)
        return SMM_ERR_NULL_POINTER;
    if (H5Aexists(f->file, name) > 0 && H5Adelete(f->file, name) < 0)
        return SMM_ERR_IO;
    hid_t space = H5Screate(H5S_SCALAR);
    if (space < 0)
        return SMM_ERR_IO;
    hid_t attr = H5Acreate2(f->file, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t err = attr < 0 ? -1 : H5Awrite(attr, type, value);
    if (attr >= 0)
        H5Aclose(attr);
    H5Sclose(space);
    return err < 0 ? SMM_ERR_IO : SMM_OK;
}

smm_status results_set_attr_string(results_file *f, const char *name, const char *value)
{
    if (value == NULL)
        return SMM_ERR_NULL_POINTER;
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0)
        return SMM_ERR_IO;
    if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
        H5Tclose(t);
        return SMM_ERR_IO;
    }
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
    hsize_t size[1] = { (hsize_t)f->rows + 1 };
    if (H5Dset_extent(f->dset, size) < 0)
        return SMM_ERR_IO;
    hid_t fspace = H5Dget_space(f->dset);
    if (fspace < 0)
        return SMM_ERR_IO;
    hsize_t start[1] = { (hsize_t)f->rows }, count[1] = { 1 };
    hid_t mspace = H5Screate_simple(1, count, NULL);
    herr_t err = mspace < 0 ? -1 : H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
    if (err >= 0)
        err = H5Dwrite(f->dset, f->memtype, mspace, fspace, H5P_DEFAULT, row);
    if (mspace >= 0)
        H5Sclose(mspace);
    H5Sclose(fspace);
    if (err < 0)
        return SMM_ERR_IO;
    f->rows++;
    return H5Fflush(f->file, H5F_SCOPE_GLOBAL) < 0 ? SMM_ERR_IO : SMM_OK;
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
    free(f);
    return err < 0 ? SMM_ERR_IO : SMM_OK;
}
