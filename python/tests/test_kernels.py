"""brgemm, unary and mat4 against numpy."""

import numpy as np
import pytest
from conftest import assert_product
from layouts import variant

import sketchmm


def _per_matrix_fortran(X):
    return np.swapaxes(np.ascontiguousarray(np.swapaxes(X, 1, 2)), 1, 2)


@pytest.mark.parametrize("a_form", ["C", "F", "broadcast", "list"])
@pytest.mark.parametrize("out_order", ["C", "F"])
@pytest.mark.parametrize("alpha,beta", [(1.0, 0.0), (0.5, 2.0)])
def test_brgemm(rng, a_form, out_order, alpha, beta):
    batch, m, n, k = 6, 13, 11, 9
    A = rng.standard_normal((batch, m, k)).astype(np.float32)
    B = rng.standard_normal((batch, k, n)).astype(np.float32)
    if a_form == "broadcast":
        A = np.broadcast_to(A[0], A.shape)  # stride 0: one matrix reused
    a = {"C": A, "F": _per_matrix_fortran(A), "broadcast": A, "list": list(A)}[a_form]
    b = list(B) if a_form == "list" else B
    C0 = rng.standard_normal((m, n)).astype(np.float32)
    out = np.array(C0, order=out_order)
    assert sketchmm.brgemm(a, b, out=out, alpha=alpha, beta=beta) is out
    A_cat = np.concatenate(list(A), axis=1)  # sum_i A_i B_i = [A_0 .. A_b] [B_0; ..; B_b]
    B_cat = np.concatenate(list(B), axis=0)
    assert_product(out, A_cat, B_cat, alpha, beta, C0)


def test_brgemm_forms_agree(rng):
    A = rng.standard_normal((5, 8, 7)).astype(np.float32)
    B = rng.standard_normal((5, 7, 6)).astype(np.float32)
    np.testing.assert_array_equal(sketchmm.brgemm(A, B), sketchmm.brgemm(list(A), list(B)))
    np.testing.assert_array_equal(sketchmm.brgemm(A[:0], B[:0], out=np.ones((8, 6), np.float32), beta=3.0),
                                  np.full((8, 6), 3.0))


@pytest.mark.parametrize("a_kind", ["C", "F", "C_slice", "every_other_column"])
@pytest.mark.parametrize("out_kind", [None, "C", "F", "F_slice"])
@pytest.mark.parametrize("transpose", [False, True])
def test_unary(rng, a_kind, out_kind, transpose):
    A = rng.standard_normal((21, 34)).astype(np.float32)
    A[0, :4] = [np.nan, -0.0, 0.0, -np.inf]
    a = variant(a_kind, A)
    shape = A.T.shape if transpose else A.shape
    for op, fn in (("zero", lambda x: np.zeros_like(x)), ("identity", lambda x: x),
                   ("relu", lambda x: np.where(x < 0, np.float32(0), x))):
        out = None if out_kind is None else variant(out_kind, np.full(shape, 5.0, np.float32))
        got = sketchmm.unary(op, a, transpose=transpose, out=out)
        want = fn(A.T if transpose else A)
        assert got.shape == shape and (out is None or got is out)
        np.testing.assert_array_equal(got.view(np.uint32), np.ascontiguousarray(want).view(np.uint32))


def test_relu_in_place_and_transpose(rng):
    A = rng.standard_normal((40, 30)).astype(np.float32)
    want = np.maximum(A, 0)
    assert sketchmm.relu(A, out=A) is A
    np.testing.assert_array_equal(A, want)
    T = sketchmm.transpose(A)
    assert T.flags.c_contiguous
    np.testing.assert_array_equal(T, A.T)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("count", [None, 1, 37])
def test_mat4(rng, dtype, count):
    shape = (4, 4) if count is None else (count, 4, 4)
    a = (rng.standard_normal(shape) + 4 * np.eye(4)).astype(dtype)
    b = rng.standard_normal(shape).astype(dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-13
    c = sketchmm.mat4_mul(a, b)
    assert c.dtype == dtype and c.shape == shape
    np.testing.assert_allclose(c, np.matmul(a.astype(np.float64), b), rtol=tol, atol=tol)
    inv = sketchmm.mat4_inv(a)
    np.testing.assert_allclose(np.matmul(a.astype(np.float64), inv), np.broadcast_to(np.eye(4), shape),
                               atol=20 * tol)
    np.testing.assert_array_equal(sketchmm.mat4_copy(a), a)
    np.testing.assert_array_equal(sketchmm.mat4_mul(np.asfortranarray(a) if count is None else a, b), c)


def test_mat4_dtypes():
    assert sketchmm.mat4_mul(np.eye(4, dtype=np.float32), np.eye(4)).dtype == np.float64
    assert sketchmm.mat4_inv(np.eye(4, dtype=int)).dtype == np.float64
