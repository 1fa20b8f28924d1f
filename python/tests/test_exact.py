"""sketchmm.matmul and exact_topk against numpy in float64, in every layout, order and view."""

import numpy as np
import pytest
from conftest import assert_product
from layouts import VARIANTS, variant

import sketchmm


@pytest.mark.parametrize("a_kind", list(VARIANTS))
@pytest.mark.parametrize("b_kind", list(VARIANTS))
def test_matmul_every_layout(rng, a_kind, b_kind):
    A = rng.standard_normal((37, 29)).astype(np.float32) * 3
    B = rng.standard_normal((29, 23)).astype(np.float32) * 3
    a, b = variant(a_kind, A), variant(b_kind, B)
    C = sketchmm.matmul(a, b)
    assert C.dtype == np.float32 and C.shape == (37, 23) and C.flags.c_contiguous
    assert_product(C, np.asarray(a, np.float32), np.asarray(b, np.float32))


@pytest.mark.parametrize("out_kind", ["C", "F", "T_of_C", "C_slice", "F_slice", "every_other_column",
                                      "reversed_rows"])
@pytest.mark.parametrize("alpha,beta", [(1.0, 0.0), (-0.5, 0.0), (2.0, 1.0), (0.0, -3.0), (1.5, 0.25)])
def test_matmul_out_alpha_beta(rng, out_kind, alpha, beta):
    A = rng.standard_normal((19, 41)).astype(np.float32)
    B = np.asfortranarray(rng.standard_normal((41, 13)).astype(np.float32))
    C0 = rng.standard_normal((19, 13)).astype(np.float32)
    out = variant(out_kind, C0.copy())
    got = sketchmm.matmul(A, B, alpha=alpha, beta=beta, out=out)
    assert got is out
    assert_product(out, A, B, alpha, beta, C0)


def test_matmul_beta_zero_ignores_nan_in_out(rng):
    A = rng.standard_normal((8, 8)).astype(np.float32)
    out = np.full((8, 8), np.nan, dtype=np.float32)
    sketchmm.matmul(A, A, out=out)
    assert np.isfinite(out).all()


@pytest.mark.parametrize("shapes", [((5,), (5, 3)), ((4, 5), (5,)), ((5,), (5,)), ((0, 5), (5, 3)),
                                    ((3, 0), (0, 4)), ((3, 5), (5, 0)), ((1, 1), (1, 1))])
def test_matmul_shapes_like_numpy(rng, shapes):
    A = rng.standard_normal(shapes[0]).astype(np.float32)
    B = rng.standard_normal(shapes[1]).astype(np.float32)
    got = sketchmm.matmul(A, B)
    want = np.matmul(A.astype(np.float64), B)
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_matmul_lists_and_large(rng):
    assert sketchmm.matmul([[1, 2], [3, 4]], [[1], [1]]).tolist() == [[3.0], [7.0]]
    A = rng.standard_normal((300, 500)).astype(np.float32)
    B = rng.standard_normal((500, 260)).astype(np.float32)
    assert_product(sketchmm.matmul(A.T.copy().T, B), A, B)  # a Fortran A past the small-product path


def _topk_reference(A, B, k):
    """Top-k of each row of A @ B in float64: values decreasing, ties to the smaller index."""
    P = np.asarray(A, np.float64) @ np.asarray(B, np.float64)
    order = np.lexsort((np.broadcast_to(np.arange(P.shape[1]), P.shape), -P), axis=1)[:, :k]
    return order, np.take_along_axis(P, order, axis=1)


@pytest.mark.parametrize("a_kind", ["C", "F", "T_of_C", "C_slice", "float64"])
@pytest.mark.parametrize("b_kind", ["C", "F", "T_of_F", "F_slice"])
def test_exact_topk(rng, a_kind, b_kind):
    Q = rng.standard_normal((23, 16)).astype(np.float32)
    D = rng.standard_normal((300, 16)).astype(np.float32)
    val, idx = sketchmm.exact_topk(variant(a_kind, Q), variant(b_kind, D.T), k=7)
    assert idx.dtype == np.int64 and val.dtype == np.float32 and idx.shape == val.shape == (23, 7)
    ref_idx, ref_val = _topk_reference(Q, D.T, 7)
    np.testing.assert_array_equal(idx, ref_idx)
    np.testing.assert_allclose(val, ref_val, rtol=1e-5, atol=1e-5)
    assert (np.diff(val, axis=1) <= 0).all()


def test_exact_topk_ties_to_smaller_index():
    D = np.ones((10, 3), dtype=np.float32)
    val, idx = sketchmm.exact_topk(np.ones((2, 3), np.float32), D.T, k=4)
    assert idx.tolist() == [[0, 1, 2, 3]] * 2 and (val == 3).all()


def test_zeros_padded():
    for order in ("C", "F"):
        X = sketchmm.zeros_padded(5, 1024, order=order)
        assert X.shape == (5, 1024) and X.dtype == np.float32 and not X.any()
        line = X.strides[0] if order == "C" else X.strides[1]
        assert line % 64 == 0 and line % 4096 != 0 and X.ctypes.data % 64 == 0
    X = sketchmm.zeros_padded(64, 1024)
    X[:] = 1
    assert_product(sketchmm.matmul(X, X.T[:, :48]), X, X.T[:, :48])
