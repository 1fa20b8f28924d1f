"""4x4 matrices (mat4.h): product, inverse and copy in float32 and float64, one matrix (shape (4, 4))
or a batch (shape (count, 4, 4)).

Storage: 16 contiguous values in row-major order; a batch is count such matrices
back to back, i.e. a C-ordered numpy array (others are converted once). The dtype
(float32 or float64) is kept; other dtypes become float64. The SIMD paths compute
each element as one product followed by three fused multiply-adds, so they may
differ from the scalar path in the last bits.
"""

from __future__ import annotations

import numpy as np

from . import _arrays
from ._lib import lib
from .errors import ShapeError, check

__all__ = ["mat4_mul", "mat4_inv", "mat4_copy"]


def _operand(x, name, dtype=None):
    x = np.asarray(x)
    if dtype is None:
        dtype = x.dtype if x.dtype in (np.float32, np.float64) else np.float64
    x = _arrays.array(x, name, dtype=dtype, ndim=(2, 3))
    if x.shape[-2:] != (4, 4):
        raise ShapeError(f"{name} must have shape (4, 4) or (count, 4, 4), got {x.shape}")
    if not (x.flags.c_contiguous and x.flags.aligned):
        x = _arrays.convert(x, dtype)
    return x


def _out(out, shape, dtype):
    if out is None:
        return np.empty(shape, dtype=dtype)
    _arrays.output(out, "out", shape, dtype)
    if not out.flags.c_contiguous:
        raise ShapeError("out must be C-contiguous (16 values per matrix, back to back)")
    return out


def _run(kind, inputs, out):
    """Call mat4_<kind>_{f32,f64} or its batch form on the operands."""
    dtype = inputs[0].dtype
    shape = inputs[0].shape
    suffix = "f32" if dtype == np.float32 else "f64"
    ctype = "float *" if dtype == np.float32 else "double *"
    out = _out(out, shape, dtype)
    pointers = [_arrays.pointer(x, ctype) for x in inputs] + [_arrays.pointer(out, ctype)]
    if len(shape) == 2:
        status = getattr(lib, f"mat4_{kind}_{suffix}")(*pointers)
    else:
        status = getattr(lib, f"mat4_{kind}_batch_{suffix}")(shape[0], *pointers)
    detail = "a matrix is singular (its determinant is 0, not finite, or 1/det is not finite) or out " \
             "overlaps an input" if kind == "inv" and status == lib.SMM_ERR_BAD_ARGUMENT else None
    check(status, f"mat4_{kind}", detail)
    return out


def mat4_mul(a, b, out: np.ndarray | None = None) -> np.ndarray:
    """C = A B for 4x4 matrices: c[i, j] = sum_k a[i, k] b[k, j] (batches: matrix by matrix).
    a and b must have the same shape; float64 when either is float64, else float32."""
    a = np.asarray(a)
    b = np.asarray(b)
    dtype = np.float32 if a.dtype == np.float32 and b.dtype == np.float32 else np.float64
    a = _operand(a, "a", dtype)
    b = _operand(b, "b", dtype)
    if a.shape != b.shape:
        raise ShapeError(f"a and b must have the same shape, got {a.shape} and {b.shape}")
    return _run("mul", [a, b], out)


def mat4_inv(a, out: np.ndarray | None = None) -> np.ndarray:
    """A^-1 by cofactors (twelve 2x2 minors, the determinant as their Laplace sum, the adjugate times
    1/det) in the element type. A singular matrix (det 0, NaN or infinite, or 1/det not finite) raises
    InvalidArgumentError; for a batch, when any matrix is singular nothing is written. A matrix that
    passes may still be badly conditioned."""
    return _run("inv", [_operand(a, "a")], out)


def mat4_copy(a, out: np.ndarray | None = None) -> np.ndarray:
    """A copy of 4x4 matrices (mat4_copy_*): out must not overlap a."""
    return _run("copy", [_operand(a, "a")], out)
