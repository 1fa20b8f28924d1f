/*
 * fuzz_h5.h - what the two HDF5 loader targets (fuzz_h5_matrix, fuzz_ann)
 * check alike: a documented status, and no HDF5 object left open.
 */
#ifndef SMM_FUZZ_H5_H
#define SMM_FUZZ_H5_H

#include "fuzz_common.h" /* first: it sets the feature macros */

#include <hdf5.h>

#include "data/dataset.h"

/* The statuses data/dataset.h documents for its HDF5 loaders. */
static inline int documented(smm_status s)
{
    return s == SMM_OK || s == DATASET_ERR_IO || s == DATASET_ERR_BAD_FORMAT || s == SMM_ERR_OVERFLOW ||
           s == SMM_ERR_NO_MEMORY;
}

/* Every HDF5 file the process has open (a loader must close what it opens). */
static inline void check_nothing_open(const char *after)
{
    ssize_t open_objects = H5Fget_obj_count((hid_t)H5F_OBJ_ALL, H5F_OBJ_ALL);
    FUZZ_CHECK(open_objects == 0, "%zd HDF5 objects left open after %s", open_objects, after);
}

#endif /* SMM_FUZZ_H5_H */
