"""Exact single-precision products: matmul (exact_sgemm), exact_topk, padded matrices."""

from __future__ import annotations

import numpy as np

from . import _arrays, _gemm
from ._lib import lib
from .errors import InvalidArgumentError

__all__ = ["matmul", "exact_topk", "zeros_padded"]


def matmul(A, B, alpha: float = 1.0, beta: float = 0.0, out: np.ndarray | None = None) -> np.ndarray:
    """C := alpha * A @ B + beta * C, exactly, with exact_sgemm (the meaning of cblas_sgemm).

    A is m x k, B is k x n (1-D operands as in numpy.matmul: a 1-D A is one row, a
    1-D B one column, and that axis is dropped from the result). The result is float32.

    Operands: float32 arrays in C order, Fortran order, transposed views (``X.T``) or
    slices of whole lines (``X[:, :100]``) are passed to the library as they are
    (layout, transpose flag and leading dimension), never copied. Other dtypes
    (float64, integers, bool) and other strides are converted to float32 once.

    out: None returns a new C-ordered array (beta must then be 0); otherwise a
    float32 array of the result's shape, written in place and returned (its own
    layout is the call's layout; an out whose strides the library cannot write is
    filled from a temporary after the call). With beta == 0, out is write-only
    (NaN in it does not reach the result). On any error out is left untouched.

    Values are not checked (as cblas_sgemm): NaN and Inf propagate. Results are
    bit-identical for every thread count; each ISA path is accurate to the usual
    k * FLT_EPSILON * sum |a| |b| bound. The GIL is released during the product.

    Raises ShapeError (inner dimensions differ, not 1-D/2-D), InputTypeError (complex
    or non-numeric operands, out of another dtype), InvalidArgumentError (beta != 0
    without out; out overlapping A or B), ResourceError, PlatformError.
    """
    return _gemm.call("matmul", lib.exact_sgemm, A, B, alpha, beta, out)


def exact_topk(A, B, k: int = 10) -> _gemm.TopK:
    """The k largest entries of each row of A @ B, exactly: TopK(values, indices).

    A is m x d (m query vectors as rows), B is d x n (n database vectors as
    columns: for a database D with one vector per row pass ``D.T``, a view, not a
    copy). Returns values (m x k, float32) and indices (m x k, int64): for row i,
    the columns j with the largest <a_i, b_j> in decreasing value (ties: smaller
    index first), the values exact_sgemm's. Computed by exact_sgemm a block of rows at
    a time (the full product is never stored) and an exact per-row selection: the
    reference for approx_topk and Plan.topk.

    1 <= k <= n; d, n >= 1. Raises NonFiniteError when A or B holds NaN or Inf
    (checked by the library before anything is computed; the message names the
    operand and the first bad entry), ShapeError, InvalidArgumentError. The GIL is
    released during the call.
    """
    idx, val = _gemm.topk_call("exact_topk", lib.exact_topk, A, B, k)
    return _gemm.TopK(val, idx)


def zeros_padded(rows: int, cols: int, order: str = "C") -> np.ndarray:
    """A zero-filled float32 rows x cols array whose lines start on 64-byte boundaries and whose
    leading dimension is exact_padded_ld(line length): the smallest multiple of 16 floats >= the
    line length whose byte stride is not a multiple of 4 KiB (lines 4 KiB apart share L1 cache
    sets and evict each other). A view into a larger buffer; the library reads it without copies.
    order: "C" (rows are the lines) or "F" (columns are)."""
    rows = _arrays.integer(rows, "rows", 0, 2**62)
    cols = _arrays.integer(cols, "cols", 0, 2**62)
    if order not in ("C", "F"):
        raise InvalidArgumentError(f"order must be 'C' or 'F', got {order!r}")
    lines, inner = (rows, cols) if order == "C" else (cols, rows)
    ld = int(lib.exact_padded_ld(inner))
    buffer = np.zeros(lines * ld + 16, dtype=np.float32)
    start = (-buffer.ctypes.data % 64) // 4
    block = buffer[start:start + lines * ld].reshape(lines, ld)[:, :inner]
    return block if order == "C" else block.T
