"""numpy operands as the library's (pointer, layout, leading dimension), without copies where possible.

A 2-D array is passed to C as it is when its memory is a BLAS matrix: one
stride of one element and the other a positive multiple of the element size at
least the length of a line. That covers C-ordered (row-major, ld = columns)
and Fortran-ordered (column-major, ld = rows) arrays, their transposed views
(``X.T``), and slices of whole lines or of a leading block of columns/rows
(``X[:, :100]``: row-major with ld = X.shape[1]). Anything else (another dtype,
negative, zero or overlapping strides, an unaligned buffer) is converted once,
to a C-ordered array of the dtype the call takes. ``copies`` counts those
conversions (tests read it).

dtype: the library computes in float32. Another real dtype (float64, int, bool)
is converted once per call (a float32 copy of the operand, rounding float64
values to float32); sketchmm.set_strict(True) makes such an operand raise
InputTypeError instead, for code that must not copy or round silently.
"""

import operator

import numpy as np

from ._lib import ffi, lib
from .errors import InputTypeError, InvalidArgumentError, ShapeError

ROW = lib.SMM_ROW_MAJOR
COL = lib.SMM_COL_MAJOR
NO_TRANS = lib.SMM_NO_TRANS
TRANS = lib.SMM_TRANS

# conversions made so far (dtype or strides): the zero-copy tests read it
copies = 0

# set_strict(True): operands of another dtype than the call's are refused instead of converted
strict = False


def set_strict(flag: bool) -> None:
    """Refuse (InputTypeError) operands whose dtype is not the one a call takes (float32 for the
    products), instead of converting them once per call (the default, False). Process-wide."""
    global strict
    strict = bool(flag)

_CONVERTIBLE = "fiub"  # float, signed, unsigned, bool


def convert(x, dtype, order="C"):
    """A new array of x's values in `dtype` and `order` (counted in `copies`)."""
    global copies
    copies += 1
    return np.array(x, dtype=dtype, order=order, copy=True)


def array(x, name, dtype=np.float32, ndim=(2,)):
    """x as an ndarray of `dtype` (converted once when it is of another numeric dtype) and one
    of the dimension counts in `ndim`; InputTypeError / ShapeError otherwise."""
    if not isinstance(x, np.ndarray):
        x = np.asarray(x)
    if x.ndim not in ndim:
        want = " or ".join(f"{d}-D" for d in ndim)
        raise ShapeError(f"{name} must be {want}, got an array of shape {x.shape}")
    if x.dtype != dtype:
        if x.dtype.kind not in _CONVERTIBLE:
            raise InputTypeError(f"{name} has dtype {x.dtype}, which does not convert to {np.dtype(dtype)} "
                                 "(pass real numbers: float, int or bool arrays)")
        if strict:
            raise InputTypeError(f"{name} has dtype {x.dtype}, not {np.dtype(dtype)} (sketchmm.set_strict(True): "
                                 f"convert it yourself, e.g. {name}.astype(np.{np.dtype(dtype).name}))")
        x = convert(x, dtype)
    return x


def ld_in(x, layout):
    """The leading dimension under which the memory of the 2-D array x is a BLAS matrix stored in
    `layout` (ROW or COL), or None."""
    rows, cols = x.shape
    if layout == COL:
        rows, cols = cols, rows
        line, step = x.strides
    else:
        step, line = x.strides
    item = x.itemsize
    if rows == 0 or cols == 0:  # nothing is read: any ld >= max(1, line length) does
        return max(1, cols)
    if not x.flags.aligned:
        return None
    if (cols <= 1 or line == item) and (rows <= 1 or (step > 0 and step % item == 0 and step // item >= cols)):
        return step // item if rows > 1 else max(1, cols)
    return None


def storage(x):
    """(layout, ld) under which the memory of the 2-D array x is a BLAS matrix, or None.
    Row-major is preferred when both fit (a single row or column)."""
    for layout in (ROW, COL):
        ld = ld_in(x, layout)
        if ld is not None:
            return layout, ld
    return None


def matrix(x, name, dtype=np.float32):
    """(array, layout, ld): a 2-D operand of `dtype` whose memory the library can read as it is
    (converted once otherwise, see the module docstring)."""
    x = array(x, name, dtype)
    found = storage(x)
    if found is None:
        x = convert(x, dtype)
        found = storage(x)
    return x, found[0], found[1]


def output(out, name, shape, dtype=np.float32):
    """Check a caller's out= array: an ndarray of `dtype` and `shape`, writeable."""
    if not isinstance(out, np.ndarray):
        raise InputTypeError(f"{name} must be a numpy.ndarray, got {type(out).__name__}")
    if out.dtype != dtype:
        raise InputTypeError(f"{name} must have dtype {np.dtype(dtype)}, got {out.dtype}")
    if out.shape != tuple(shape):
        raise ShapeError(f"{name} must have shape {tuple(shape)}, got {out.shape}")
    if not out.flags.writeable:
        raise InputTypeError(f"{name} is read-only")
    return out


def as_layout(layout, array_layout, trans=NO_TRANS):
    """The transpose flag that presents an array stored in `array_layout` to a call in `layout`:
    a row-major m x k matrix is the column-major k x m matrix of its transpose, so an operand stored
    in the other layout is passed as its transpose (the flag flipped), never copied."""
    if array_layout == layout:
        return trans
    return TRANS if trans == NO_TRANS else NO_TRANS


def pointer(x, ctype="float *"):
    """A C pointer to the first element of x (x must be kept alive across the call). Contiguous
    arrays go through the buffer protocol (ffi.from_buffer, a fraction of a microsecond), others
    through their data address."""
    flags = x.flags
    if flags.c_contiguous:
        return ffi.from_buffer(ctype[:-1] + "[]", x)
    if flags.f_contiguous:
        return ffi.from_buffer(ctype[:-1] + "[]", x.T)
    return ffi.cast(ctype, x.ctypes.data)


def integer(value, name, low, high):
    """value as an int in low..high (bool and float refused), else InvalidArgumentError / InputTypeError."""
    if isinstance(value, bool):
        raise InputTypeError(f"{name} must be an integer, got a bool")
    try:
        value = operator.index(value)
    except TypeError:
        raise InputTypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}") from None
    if not low <= value <= high:
        raise InvalidArgumentError(f"{name} must be in {low}..{high}, got {value}")
    return value


def real(value, name):
    """value as a Python float (numbers only: not strings)."""
    if isinstance(value, (str, bytes)):
        raise InputTypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise InputTypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}") from None


def first_non_finite(x):
    """(row, column) of the first NaN or Inf of a 2-D array, or None."""
    bad = np.argwhere(~np.isfinite(x))
    return tuple(int(v) for v in bad[0]) if len(bad) else None
