"""Unary primitives (unary.h): B := op(A) or B := op(A)^T for op zero, identity (copy) and ReLU,
with cache-blocked register-tile transposes."""

from __future__ import annotations

import numpy as np

from . import _arrays
from ._lib import lib
from .errors import InvalidArgumentError, check

__all__ = ["unary", "relu", "transpose", "UNARY_OPS"]

UNARY_OPS = {"zero": lib.UNARY_ZERO, "identity": lib.UNARY_IDENTITY, "relu": lib.UNARY_RELU}


def unary(op: str, A, transpose: bool = False, out: np.ndarray | None = None) -> np.ndarray:
    """B := op(A), or op(A)^T with transpose=True (B is then A.shape reversed), float32.

    op: "zero" (B = +0.0), "identity" (a copy, bit for bit: NaN payloads and signed
    zeros kept) or "relu" (max(x, 0): x when x >= 0 or NaN, +0.0 when x < 0; -0.0
    stays -0.0). Every ISA path gives the same bits.

    out: a float32 array of B's shape in any BLAS layout (the library writes it in
    place; A in the other order is read as its transpose, without a copy), or None for
    a new array (in A's order without transpose, C order with it). out may be A itself
    for an in-place op without transpose; any other overlap raises InvalidArgumentError.
    """
    if op not in UNARY_OPS:
        raise InvalidArgumentError(f"unknown unary op {op!r}; one of {', '.join(UNARY_OPS)}")
    A, layout_a, lda = _arrays.matrix(A, "A")
    rows, cols = A.shape
    m, n = (cols, rows) if transpose else (rows, cols)
    if out is None:
        out = np.empty((m, n), dtype=np.float32, order="F" if layout_a == _arrays.COL and not transpose else "C")
    else:
        _arrays.output(out, "out", (m, n))
    found = _arrays.storage(out)
    target = out if found is not None else np.empty((m, n), dtype=np.float32)
    layout, ldb = found if found is not None else (_arrays.ROW, max(1, n))
    trans = _arrays.as_layout(layout, layout_a, _arrays.TRANS if transpose else _arrays.NO_TRANS)
    check(lib.unary_apply(UNARY_OPS[op], layout, trans, m, n, _arrays.pointer(A), lda, _arrays.pointer(target),
                          ldb), f"unary({op!r})")
    if target is not out:
        out[...] = target
    return out


def relu(A, out: np.ndarray | None = None) -> np.ndarray:
    """max(A, 0) elementwise (unary("relu", A)); out=A for in place."""
    return unary("relu", A, out=out)


def transpose(A, out: np.ndarray | None = None) -> np.ndarray:
    """A.T as a new C-ordered float32 array (or into out), by the library's blocked transposes."""
    return unary("identity", A, transpose=True, out=out)
