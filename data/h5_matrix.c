/*
 * h5_matrix.c - 2-D numeric datasets of HDF5 files read as float matrices:
 * the public loader (dataset_load_h5_matrix and friends, data/dataset.h) and
 * the reading shared with ann_benchmark.c (data/h5_internal.h).
 */
#include "data/dataset.h"
#include "data/data_internal.h"
#include "data/h5_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void h5_quiet_begin(h5_quiet *q)
{
    q->func = NULL;
    q->data = NULL;
    H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void h5_quiet_end(const h5_quiet *q)
{
    H5Eset_auto2(H5E_DEFAULT, q->func, q->data);
}

smm_status h5_open_read(const char *file, hid_t *fid, char *msg, size_t msg_size)
{
    *fid = H5I_INVALID_HID;
    if (access(file, R_OK) != 0) {
        dataset_msg(msg, msg_size, "cannot open %s: %s", file, strerror(errno));
        return DATASET_ERR_IO;
    }
    *fid = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (*fid < 0) {
        *fid = H5I_INVALID_HID;
        dataset_msg(msg, msg_size, "%s: not a readable HDF5 file (not HDF5, truncated or corrupt)", file);
        return DATASET_ERR_BAD_FORMAT;
    }
    return SMM_OK;
}

/*
 * Whether every link of the absolute path exists ("/a", "/a/b", ...), so a
 * missing group and a missing dataset both read as "no such path".
 */
static int path_exists(hid_t fid, const char *path)
{
    size_t len = strlen(path);
    char *prefix = malloc(len + 1);
    if (prefix == NULL)
        return 0;
    memcpy(prefix, path, len + 1);
    int ok = len > 1 && path[0] == '/';
    for (size_t i = 1; ok && i <= len; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        prefix[i] = '\0';
        ok = H5Lexists(fid, prefix, H5P_DEFAULT) > 0;
        prefix[i] = path[i];
    }
    free(prefix);
    return ok;
}

/* A name for an HDF5 type class, for messages. */
static const char *class_name(H5T_class_t cls)
{
    switch (cls) {
    case H5T_INTEGER:   return "integer";
    case H5T_FLOAT:     return "floating-point";
    case H5T_TIME:      return "time";
    case H5T_STRING:    return "string";
    case H5T_BITFIELD:  return "bitfield";
    case H5T_OPAQUE:    return "opaque";
    case H5T_COMPOUND:  return "compound";
    case H5T_REFERENCE: return "reference";
    case H5T_ENUM:      return "enum";
    case H5T_VLEN:      return "variable-length";
    case H5T_ARRAY:     return "array";
    default:            return "unknown";
    }
}

/*
 * The size rule of data/dataset.h: the rows x cols values of value_bytes each
 * that m claims may be at most DATASET_H5_MAX_EXPANSION times the bytes the
 * file stores for it, so a dataspace claiming huge dimensions over little or
 * no stored data is refused before anything is allocated for it. The stored
 * size comes from the file's own metadata (H5Dget_storage_size), so it is
 * taken no larger than the file on disk.
 */
static smm_status check_storage(const h5_matrix *m, size_t value_bytes, char *msg, size_t msg_size)
{
    struct stat st;
    uint64_t on_disk = stat(m->file, &st) == 0 ? (uint64_t)st.st_size : 0;
    uint64_t stored = H5Dget_storage_size(m->id);
    if (stored > on_disk)
        stored = on_disk;
    uint64_t limit = stored > UINT64_MAX / DATASET_H5_MAX_EXPANSION ? UINT64_MAX
                                                                     : stored * DATASET_H5_MAX_EXPANSION;
    if (value_bytes > 0 && (uint64_t)m->rows <= limit / value_bytes / (uint64_t)m->cols)
        return SMM_OK;
    dataset_msg(msg, msg_size, "%s: %s claims %lld x %lld values of %zu bytes, more than %d times the %llu "
                "bytes the file stores for it", m->file, m->path, (long long)m->rows, (long long)m->cols,
                value_bytes, DATASET_H5_MAX_EXPANSION, (unsigned long long)stored);
    return DATASET_ERR_BAD_FORMAT;
}

/*
 * Whether the bit layout of a numeric file type is one a file could honestly
 * hold: its precision (at least 1 bit) starting at its offset fits in its
 * size, its byte order is known, and for floating-point types the sign,
 * exponent and mantissa fields (exponent and mantissa at least 1 bit) lie
 * inside the precision without overlapping. A corrupt file can declare
 * fields past the end of the value, which libhdf5 accepts and converts from
 * whatever bytes follow in its buffer (so the same value converts differently
 * in a whole and a partial read).
 */
static int sane_layout(hid_t type, H5T_class_t cls, size_t size)
{
    size_t precision = H5Tget_precision(type);
    int offset = H5Tget_offset(type);
    H5T_order_t order = H5Tget_order(type);
    if (size == 0 || precision == 0 || offset < 0 || (size_t)offset + precision > 8 * size)
        return 0;
    if (order != H5T_ORDER_LE && order != H5T_ORDER_BE && !(cls == H5T_FLOAT && order == H5T_ORDER_VAX))
        return 0;
    if (cls != H5T_FLOAT)
        return 1;
    size_t spos = 0, epos = 0, esize = 0, mpos = 0, msize = 0;
    if (H5Tget_fields(type, &spos, &epos, &esize, &mpos, &msize) < 0 || esize == 0 || msize == 0)
        return 0;
    /* the fields [pos, pos + bits) inside [offset, offset + precision) and pairwise disjoint */
    const size_t lo = (size_t)offset, hi = (size_t)offset + precision;
    const size_t pos[3] = { spos, epos, mpos }, bits[3] = { 1, esize, msize };
    for (int i = 0; i < 3; i++) {
        if (pos[i] < lo || pos[i] > hi || bits[i] > hi - pos[i])
            return 0;
        for (int j = 0; j < i; j++)
            if (pos[i] < pos[j] + bits[j] && pos[j] < pos[i] + bits[i])
                return 0;
    }
    return 1;
}

smm_status h5_matrix_open(hid_t fid, const char *file, const char *path, h5_matrix *m,
                          char *msg, size_t msg_size)
{
    m->id = H5I_INVALID_HID;
    m->rows = m->cols = 0;
    m->cls = H5T_NO_CLASS;
    m->file = file;
    m->path = path;
    if (!path_exists(fid, path)) {
        dataset_msg(msg, msg_size, "%s: no dataset %s in the file%s", file, path,
                    path[0] == '/' ? "" : " (paths start with '/')");
        return DATASET_ERR_BAD_FORMAT;
    }
    hid_t obj = H5Oopen(fid, path, H5P_DEFAULT);
    if (obj < 0) {
        dataset_msg(msg, msg_size, "%s: cannot open %s (corrupt file?)", file, path);
        return DATASET_ERR_BAD_FORMAT;
    }
    if (H5Iget_type(obj) != H5I_DATASET) {
        H5Oclose(obj);
        dataset_msg(msg, msg_size, "%s: %s is not a dataset (a group?)", file, path);
        return DATASET_ERR_BAD_FORMAT;
    }
    m->id = obj;

    hid_t space = H5Dget_space(m->id);
    int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    hsize_t dims[2] = { 0, 0 };
    if (rank == 2)
        H5Sget_simple_extent_dims(space, dims, NULL);
    if (space >= 0)
        H5Sclose(space);
    if (rank != 2) {
        if (rank < 0)
            dataset_msg(msg, msg_size, "%s: cannot read the shape of %s (corrupt file?)", file, path);
        else
            dataset_msg(msg, msg_size, "%s: %s has %d dimension%s, a matrix needs 2 (rows x columns)",
                        file, path, rank, rank == 1 ? "" : "s");
        h5_matrix_close(m);
        return DATASET_ERR_BAD_FORMAT;
    }
    if (dims[0] > (hsize_t)INT64_MAX || dims[1] > (hsize_t)INT64_MAX) {
        dataset_msg(msg, msg_size, "%s: %s is too large", file, path);
        h5_matrix_close(m);
        return SMM_ERR_OVERFLOW;
    }
    m->rows = (int64_t)dims[0];
    m->cols = (int64_t)dims[1];
    if (m->rows == 0 || m->cols == 0) {
        dataset_msg(msg, msg_size, "%s: %s is %lld x %lld; a matrix needs at least one row and one column",
                    file, path, (long long)m->rows, (long long)m->cols);
        h5_matrix_close(m);
        return DATASET_ERR_BAD_FORMAT;
    }

    hid_t type = H5Dget_type(m->id);
    m->cls = type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS;
    size_t value_bytes = type >= 0 ? H5Tget_size(type) : 0;
    int layout_ok = (m->cls == H5T_INTEGER || m->cls == H5T_FLOAT) && sane_layout(type, m->cls, value_bytes);
    if (type >= 0)
        H5Tclose(type);
    if (m->cls != H5T_INTEGER && m->cls != H5T_FLOAT) {
        dataset_msg(msg, msg_size, "%s: %s has %s values; expected floating-point (float32, float64) or integers",
                    file, path, class_name(m->cls));
        h5_matrix_close(m);
        return DATASET_ERR_BAD_FORMAT;
    }
    if (!layout_ok) {
        dataset_msg(msg, msg_size, "%s: %s declares a %s type of %zu bytes whose bit fields do not fit in it "
                    "(corrupt file?)", file, path, class_name(m->cls), value_bytes);
        h5_matrix_close(m);
        return DATASET_ERR_BAD_FORMAT;
    }
    smm_status s = check_storage(m, value_bytes, msg, msg_size);
    if (s != SMM_OK)
        h5_matrix_close(m);
    return s;
}

void h5_matrix_close(h5_matrix *m)
{
    if (m->id >= 0)
        H5Dclose(m->id);
    m->id = H5I_INVALID_HID;
}

smm_status h5_matrix_read_rows(const h5_matrix *m, int64_t first, int64_t rows, hid_t mem_type, void *buf,
                               char *msg, size_t msg_size)
{
    hsize_t start[2] = { (hsize_t)first, 0 }, count[2] = { (hsize_t)rows, (hsize_t)m->cols };
    hid_t fspace = H5Dget_space(m->id);
    hid_t mspace = H5Screate_simple(2, count, NULL);
    herr_t err = (fspace < 0 || mspace < 0) ? -1 : 0;
    if (err >= 0)
        err = H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
    if (err >= 0)
        err = H5Dread(m->id, mem_type, mspace, fspace, H5P_DEFAULT, buf);
    if (fspace >= 0)
        H5Sclose(fspace);
    if (mspace >= 0)
        H5Sclose(mspace);
    if (err < 0) {
        dataset_msg(msg, msg_size, "%s: cannot read rows %lld..%lld of %s (truncated or corrupt file, "
                    "or values that do not convert)", m->file, (long long)first, (long long)(first + rows - 1),
                    m->path);
        return DATASET_ERR_BAD_FORMAT;
    }
    return SMM_OK;
}

smm_status h5_matrix_read(const h5_matrix *m, int64_t rows, hid_t mem_type, void *buf,
                          char *msg, size_t msg_size)
{
    return h5_matrix_read_rows(m, 0, rows, mem_type, buf, msg, msg_size);
}

smm_status h5_matrix_load_float_rows(const h5_matrix *m, int64_t first, int64_t rows, dataset_matrix *out,
                                     char *msg, size_t msg_size)
{
    dataset_matrix_clear(out);
    smm_status s = dataset_matrix_alloc(rows, m->cols, out);
    if (s != SMM_OK) {
        dataset_msg(msg, msg_size, "%s: %s: %s for %lld x %lld floats", m->file, m->path,
                    dataset_status_str(s), (long long)rows, (long long)m->cols);
        return s;
    }
    s = h5_matrix_read_rows(m, first, rows, H5T_NATIVE_FLOAT, out->data, msg, msg_size);
    for (int64_t t = 0; s == SMM_OK && t < rows * m->cols; t++) {
        if (!isfinite(out->data[t])) {
            dataset_msg(msg, msg_size, "%s: %s(%lld, %lld) = %g is not a finite float", m->file, m->path,
                        (long long)(first + t / m->cols), (long long)(t % m->cols), (double)out->data[t]);
            s = DATASET_ERR_BAD_FORMAT;
        }
    }
    if (s != SMM_OK)
        dataset_matrix_free(out);
    return s;
}

smm_status h5_matrix_load_floats(const h5_matrix *m, int64_t max_rows, dataset_matrix *out,
                                 char *msg, size_t msg_size)
{
    int64_t rows = (max_rows > 0 && max_rows < m->rows) ? max_rows : m->rows;
    return h5_matrix_load_float_rows(m, 0, rows, out, msg, msg_size);
}

smm_status dataset_h5_split_spec(const char *spec, char *file, size_t file_size,
                                 const char **path)
{
    if (spec == NULL || file == NULL || path == NULL)
        return SMM_ERR_NULL_POINTER;
    const char *sep = strstr(spec, ":/");
    if (sep == NULL || sep == spec)
        return SMM_ERR_BAD_ARGUMENT;
    size_t len = (size_t)(sep - spec);
    if (len >= file_size)
        return SMM_ERR_OVERFLOW;
    memcpy(file, spec, len);
    file[len] = '\0';
    *path = sep + 1;
    return SMM_OK;
}

/*
 * Open file and its dataset path; on SMM_OK the caller closes *m and *fid.
 * Expects the caller to have switched error printing off.
 */
static smm_status open_matrix(const char *file, const char *path, hid_t *fid, h5_matrix *m,
                              char *msg, size_t msg_size)
{
    m->id = H5I_INVALID_HID;
    smm_status s = h5_open_read(file, fid, msg, msg_size);
    if (s != SMM_OK)
        return s;
    s = h5_matrix_open(*fid, file, path, m, msg, msg_size);
    if (s != SMM_OK) {
        H5Fclose(*fid);
        *fid = H5I_INVALID_HID;
    }
    return s;
}

smm_status dataset_h5_matrix_shape(const char *file, const char *path,
                                   int64_t *rows, int64_t *cols,
                                   char *msg, size_t msg_size)
{
    if (rows != NULL)
        *rows = 0;
    if (cols != NULL)
        *cols = 0;
    if (file == NULL || path == NULL || rows == NULL || cols == NULL) {
        dataset_msg(msg, msg_size, "dataset_h5_matrix_shape: NULL argument");
        return SMM_ERR_NULL_POINTER;
    }
    h5_quiet q;
    h5_quiet_begin(&q);
    hid_t fid;
    h5_matrix m;
    smm_status s = open_matrix(file, path, &fid, &m, msg, msg_size);
    if (s == SMM_OK) {
        *rows = m.rows;
        *cols = m.cols;
        h5_matrix_close(&m);
        H5Fclose(fid);
    }
    h5_quiet_end(&q);
    return s;
}

/*
 * Rows first .. first + count - 1 of the dataset (count 0: rows 0 .. max_rows - 1, or every row when
 * max_rows is 0), for the two loaders below once they have checked their arguments.
 */
static smm_status load_rows(const char *file, const char *path, int64_t first, int64_t count, int64_t max_rows,
                            dataset_matrix *out, char *msg, size_t msg_size)
{
    h5_quiet q;
    h5_quiet_begin(&q);
    hid_t fid;
    h5_matrix m;
    smm_status s = open_matrix(file, path, &fid, &m, msg, msg_size);
    if (s == SMM_OK) {
        if (count == 0) {
            count = (max_rows > 0 && max_rows < m.rows) ? max_rows : m.rows;
        } else if (first > m.rows || count > m.rows - first) {
            dataset_msg(msg, msg_size, "%s: %s has %lld rows; rows %lld..%lld asked for", file, path,
                        (long long)m.rows, (long long)first, (long long)first + (long long)count - 1);
            s = SMM_ERR_BAD_ARGUMENT;
        }
        if (s == SMM_OK)
            s = h5_matrix_load_float_rows(&m, first, count, out, msg, msg_size);
        h5_matrix_close(&m);
        H5Fclose(fid);
    }
    h5_quiet_end(&q);
    return s;
}

smm_status dataset_load_h5_matrix(const char *file, const char *path, int64_t max_rows,
                                  dataset_matrix *out, char *msg, size_t msg_size)
{
    dataset_matrix_clear(out);
    if (file == NULL || path == NULL || out == NULL) {
        dataset_msg(msg, msg_size, "dataset_load_h5_matrix: NULL argument");
        return SMM_ERR_NULL_POINTER;
    }
    if (max_rows < 0) {
        dataset_msg(msg, msg_size, "dataset_load_h5_matrix: negative max_rows");
        return SMM_ERR_BAD_ARGUMENT;
    }
    return load_rows(file, path, 0, 0, max_rows, out, msg, msg_size);
}

smm_status dataset_load_h5_rows(const char *file, const char *path, int64_t first, int64_t count,
                                dataset_matrix *out, char *msg, size_t msg_size)
{
    dataset_matrix_clear(out);
    if (file == NULL || path == NULL || out == NULL) {
        dataset_msg(msg, msg_size, "dataset_load_h5_rows: NULL argument");
        return SMM_ERR_NULL_POINTER;
    }
    if (first < 0 || count < 1) {
        dataset_msg(msg, msg_size, "dataset_load_h5_rows: rows %lld..%lld (first >= 0 and count >= 1 needed)",
                    (long long)first, (long long)first + (long long)count - 1);
        return SMM_ERR_BAD_ARGUMENT;
    }
    return load_rows(file, path, first, count, 0, out, msg, msg_size);
}
