"""The operands of an sgemm-shaped call (exact_sgemm, approx_sgemm, approx_plan_multiply) from numpy
arrays: numpy.matmul's shape rules for 1-D and 2-D operands, the output's layout as the call's layout,
the inputs presented in it through transpose flags (no copies), and out= arrays the library cannot
write directly filled from a temporary only after the call succeeded."""

from typing import NamedTuple

import numpy as np

from . import _arrays
from ._lib import lib
from .errors import InvalidArgumentError, ShapeError, check


def operands(A, B):
    """(A2, B2, result_shape): A and B as float32 2-D arrays (a 1-D A is a row, a 1-D B a column,
    as in numpy.matmul) and the shape of their product as numpy.matmul gives it."""
    A = _arrays.array(A, "A", ndim=(1, 2))
    B = _arrays.array(B, "B", ndim=(1, 2))
    A2 = A[np.newaxis, :] if A.ndim == 1 else A
    B2 = B[:, np.newaxis] if B.ndim == 1 else B
    if A2.shape[1] != B2.shape[0]:
        raise ShapeError(f"A @ B: A has shape {A.shape} and B {B.shape}; the inner dimensions "
                         f"{A2.shape[1]} and {B2.shape[0]} differ")
    shape = A.shape[:-1] + B.shape[1:]
    return A2, B2, shape


class Output:
    """The C of a call: `array` (2-D float32) with `layout` and `ld` for the library; `result()` after a
    successful call returns what the Python call returns (out itself when given)."""

    def __init__(self, out, m, n, shape, beta, function):
        self.out = out
        self.temporary = None
        if out is None:
            if beta != 0.0:
                raise InvalidArgumentError(f"{function}: beta = {beta} needs out= (C := alpha A B + beta C "
                                           "reads C)")
            self.array = np.empty((m, n), dtype=np.float32)
            self.layout, self.ld = _arrays.ROW, max(1, n)
            return
        _arrays.output(out, "out", shape)
        view = out.reshape(m, n) if out.ndim != 2 else out  # a view: 0-D and 1-D only gain axes
        found = _arrays.storage(view)
        if found is None:  # strides the library cannot write: compute in a C-ordered temporary
            self.temporary = np.array(out.reshape(m, n), dtype=np.float32, order="C")
            self.array = self.temporary
            self.layout, self.ld = _arrays.ROW, max(1, n)
        else:
            self.array = view
            self.layout, self.ld = found

    def result(self, shape):
        if self.out is None:
            if shape == ():  # 1-D @ 1-D: a scalar, as numpy.matmul gives
                return self.array[0, 0]
            return self.array.reshape(shape) if self.array.shape != shape else self.array
        if self.temporary is not None:
            self.out[...] = self.temporary.reshape(self.out.shape)
        return self.out


def call(function, c_function, A, B, alpha, beta, out, extra=(), explain=None):
    """Run c_function(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, *extra)
    (exact_sgemm, approx_sgemm) on numpy operands and return C. explain(k, n): the library's sentence
    for an argument or size error (approx_check_sizes), or None."""
    A2, B2, shape = operands(A, B)
    alpha = _arrays.real(alpha, "alpha")
    beta = _arrays.real(beta, "beta")
    m, k = A2.shape
    n = B2.shape[1]
    C = Output(out, m, n, shape, beta, function)
    A2, layout_a, lda = _arrays.matrix(A2, "A")
    B2, layout_b, ldb = _arrays.matrix(B2, "B")
    status = c_function(C.layout, _arrays.as_layout(C.layout, layout_a), _arrays.as_layout(C.layout, layout_b),
                        m, n, k, alpha, _arrays.pointer(A2), lda, _arrays.pointer(B2), ldb,
                        beta, _arrays.pointer(C.array), C.ld, *extra)
    check_values(status, function, explain and (lambda: explain(k, n)), A=A2, B=B2)
    return C.result(shape)


def check_values(status, function, explain=None, **operands):
    """check(status), naming the operand that holds NaN or Inf when the status is SMM_ERR_NON_FINITE, and
    for other statuses with the sentence explain() gives (None: none)."""
    if status == lib.SMM_ERR_NON_FINITE:
        for name, x in operands.items():
            where = _arrays.first_non_finite(x)
            if where is not None:
                check(status, function, f"{name} holds {x[where]} at {list(where)}")
        check(status, function, "the inputs are finite: a value derived from them (a norm, a sketched "
                                "factor) or the product itself overflows float32")
    check(status, function, explain() if status != lib.SMM_OK and explain is not None else None)


class TopK(NamedTuple):
    """The result of a top-k search, in torch.topk's order: ``values`` (m x k, each row best first:
    the largest products, or the smallest Hamming distances) and ``indices`` (int64 m x k, the
    columns they belong to). Unpacks as ``values, indices = ...``."""
    values: np.ndarray
    indices: np.ndarray


def topk_outputs(m, k):
    """The idx (int64) and val (float32) arrays of m rows of k entries, ldk = k."""
    return np.empty((m, k), dtype=np.int64), np.empty((m, k), dtype=np.float32)


def topk_call(function, c_function, A, B, k, extra=(), explain=None):
    """Run c_function(layout, transa, transb, m, n, d, A, lda, B, ldb, topk, idx, val, ldk, *extra)
    (exact_topk, approx_topk) for the rows of A (m x d) against the columns of B (d x n);
    return (idx, val)."""
    A = _arrays.array(A, "A")
    B = _arrays.array(B, "B")
    m, d = A.shape
    n = B.shape[1]
    if B.shape[0] != d:
        raise ShapeError(f"{function}: A has shape {A.shape} and B {B.shape}; A's columns and B's rows "
                         f"({d} and {B.shape[0]}) must match (B holds the database vectors as columns: "
                         "pass D.T for a database D with one vector per row)")
    k = _arrays.integer(k, "k", 1, max(1, n))
    A, layout_a, lda = _arrays.matrix(A, "A")
    B, layout_b, ldb = _arrays.matrix(B, "B")
    idx, val = topk_outputs(m, k)
    row = _arrays.ROW
    status = c_function(row, _arrays.as_layout(row, layout_a), _arrays.as_layout(row, layout_b), m, n, d,
                        _arrays.pointer(A), lda, _arrays.pointer(B), ldb, k,
                        _arrays.pointer(idx, "int64_t *"), _arrays.pointer(val), k, *extra)
    check_values(status, function, explain and (lambda: explain(d, n)), A=A, B=B)
    return idx, val
