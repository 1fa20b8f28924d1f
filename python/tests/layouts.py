"""Every way a logical matrix can be laid out in numpy memory, for the layout tests."""

import numpy as np

# name -> function(M) giving an array equal to M (float32 unless the name says otherwise)
VARIANTS = {
    "C": lambda M: np.ascontiguousarray(M),
    "F": lambda M: np.asfortranarray(M),
    "T_of_C": lambda M: np.ascontiguousarray(M.T).T,          # a transposed view: Fortran memory
    "T_of_F": lambda M: np.asfortranarray(M.T).T,             # a transposed view: C memory
    "C_slice": lambda M: _embed(M, "C")[: M.shape[0], : M.shape[1]],   # row-major, ld > columns
    "F_slice": lambda M: _embed(M, "F")[: M.shape[0], : M.shape[1]],   # column-major, ld > rows
    "every_other_column": lambda M: _spaced(M),               # no unit stride: converted
    "reversed_rows": lambda M: np.ascontiguousarray(M[::-1])[::-1],    # negative stride: converted
    "float64": lambda M: M.astype(np.float64),                # another dtype: converted
    "int32": lambda M: np.rint(M).astype(np.int32),           # integers: converted (values change)
}

# the variants the library reads in place
ZERO_COPY = ("C", "F", "T_of_C", "T_of_F", "C_slice", "F_slice")


def _embed(M, order):
    wide = np.full((M.shape[0] + 3, M.shape[1] + 5), np.nan, dtype=np.float32, order=order)
    wide[: M.shape[0], : M.shape[1]] = M
    return wide


def _spaced(M):
    big = np.full((M.shape[0], 2 * M.shape[1]), np.nan, dtype=np.float32)
    big[:, ::2] = M
    return big[:, ::2]


def variant(name, M):
    return VARIANTS[name](np.asarray(M, dtype=np.float32))
