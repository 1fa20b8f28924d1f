"""Batch-reduce GEMM (brgemm.h) on small float32 matrices:

    C := beta * C + alpha * sum_{i < batch} A_i B_i

every A_i m x k, B_i k x n, C m x n, all in one layout. Each element of C is
accumulated in float with fused multiply-adds over i in increasing order and,
within each i, over the k terms in increasing order; then c := alpha acc + beta c.
C is tiled into register blocks summed over the whole batch and written once;
sized for operands that stay in L1/L2 (m, n, k up to a few hundred). Each
execution runs on the calling thread (callers parallelise over output blocks; the
GIL is released, so Python threads do).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from . import _arrays
from ._lib import ffi, lib
from .errors import InvalidArgumentError, ShapeError, check

__all__ = ["brgemm"]


def _in_layout(x, layout):
    """A float32 2-D or 3-D array whose (last two axes') memory is a BLAS matrix in `layout`,
    converted once when it is not."""
    if layout == _arrays.ROW:
        return _arrays.convert(x, np.float32)
    swapped = np.swapaxes(x, -1, -2)
    return np.swapaxes(_arrays.convert(swapped, np.float32), -1, -2)


def _strided(x, layout):
    """(array, ld, stride) for a 3-D batch: the matrices x[i] at a constant element stride >= 0."""
    item = x.itemsize
    ld = _arrays.ld_in(x[0], layout) if len(x) else None
    if ld is None or x.strides[0] < 0 or x.strides[0] % item:
        x = _in_layout(x, layout)
        ld = _arrays.ld_in(x[0] if len(x) else np.empty(x.shape[1:], np.float32), layout)
    return x, ld, x.strides[0] // item


def _pointers(xs, layout):
    """(arrays, ld, cdata array of pointers) for 2-D matrices of one shape, sharing one ld."""
    lds = {_arrays.ld_in(x, layout) for x in xs}
    if len(lds) != 1 or None in lds:
        xs = [_in_layout(x, layout) for x in xs]
        lds = {_arrays.ld_in(x, layout) for x in xs}
    return xs, lds.pop(), ffi.new("const float *[]", [_arrays.pointer(x) for x in xs])


def _batch(A, B):
    """(pointer_form, A, B, batch, m, n, k): the operands as float32 arrays, shapes checked."""
    pointer_form = not isinstance(A, np.ndarray)
    if pointer_form != (not isinstance(B, np.ndarray)):
        raise InvalidArgumentError("brgemm: A and B must both be 3-D arrays or both sequences of 2-D arrays")
    if pointer_form:
        A = [_arrays.array(x, f"A[{i}]") for i, x in enumerate(A)]
        B = [_arrays.array(x, f"B[{i}]") for i, x in enumerate(B)]
        if not A or not B:
            raise ShapeError("brgemm: an empty sequence has no shapes: pass arrays of shape (0, m, k) and (0, k, n)")
    else:
        A = _arrays.array(A, "A", ndim=(3,))
        B = _arrays.array(B, "B", ndim=(3,))
    shapes_a = {x.shape for x in A} if pointer_form else {A.shape[1:]}
    shapes_b = {x.shape for x in B} if pointer_form else {B.shape[1:]}
    (m, k), (k2, n) = min(shapes_a), min(shapes_b)
    if len(A) != len(B) or len(shapes_a) != 1 or len(shapes_b) != 1 or k2 != k:
        raise ShapeError(f"brgemm: A (batch {len(A)}, shapes {sorted(shapes_a)}) and B (batch {len(B)}, "
                         f"shapes {sorted(shapes_b)}): every A[i] must be m x k and every B[i] k x n, "
                         "as many of each")
    return pointer_form, A, B, len(A), m, n, k


def brgemm(A: np.ndarray | Sequence[np.ndarray], B: np.ndarray | Sequence[np.ndarray],
           out: np.ndarray | None = None, alpha: float = 1.0, beta: float = 0.0) -> np.ndarray:
    """C := beta * C + alpha * sum_i A[i] @ B[i] (batch-reduce GEMM), float32.

    A, B: 3-D arrays of shape (batch, m, k) and (batch, k, n) whose matrices lie at a
    constant stride (C order, per-matrix Fortran order, or a stride of 0 from
    numpy.broadcast_to that reuses one matrix: passed as they are, the strided
    execution), or two sequences of 2-D arrays (the pointer-array execution; the
    matrices of one sequence share one leading dimension, else they are copied).
    out: (m, n) float32, written in place; its layout (C or Fortran order) is the
    call's, operands in the other layout are converted once. None: a new C-ordered
    array (beta must be 0). beta == 0: out is write-only. batch == 0, k == 0 or
    alpha == 0: C := beta C. out must not overlap any A[i] or B[i]
    (InvalidArgumentError). The strided and pointer forms give the same bits.
    """
    alpha = _arrays.real(alpha, "alpha")
    beta = _arrays.real(beta, "beta")
    pointer_form, A, B, batch, m, n, k = _batch(A, B)
    if out is None:
        if beta != 0.0:
            raise InvalidArgumentError(f"brgemm: beta = {beta} needs out= (C := beta C + ... reads C)")
        out = np.empty((m, n), dtype=np.float32)
    else:
        _arrays.output(out, "out", (m, n))
    found = _arrays.storage(out)
    if found is None:
        raise ShapeError("brgemm: out must be a BLAS matrix (C or Fortran order, or lines of a wider array)")
    layout, ldc = found
    desc = ffi.new("brgemm_desc *")
    desc.layout, desc.m, desc.n, desc.k, desc.ldc = layout, m, n, k, ldc
    desc.alpha, desc.beta = alpha, beta
    if pointer_form:
        A, desc.lda, pa = _pointers(A, layout)
        B, desc.ldb, pb = _pointers(B, layout)
    else:
        A, desc.lda, desc.stride_a = _strided(A, layout)
        B, desc.ldb, desc.stride_b = _strided(B, layout)
    plan = ffi.new("brgemm_plan **")
    check(lib.brgemm_plan_create(desc, plan), "brgemm_plan_create")
    try:
        if pointer_form:
            status = lib.brgemm_execute_pointers(plan[0], pa, pb, _arrays.pointer(out), batch)
        else:
            status = lib.brgemm_execute_strided(plan[0], _arrays.pointer(A), _arrays.pointer(B),
                                                _arrays.pointer(out), batch)
    finally:
        lib.brgemm_plan_free(plan[0])
    check(status, "brgemm")
    return out
