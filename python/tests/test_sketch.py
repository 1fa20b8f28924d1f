"""sketch(), Hamming kernels, cross-polytope matches and the estimators against numpy re-implementations
of the definitions in sketch.h."""

import math

import numpy as np
import pytest
from layouts import variant

import sketchmm

FAMILIES = ["simhash", "simhash_orthogonal", "simhash_structured", "crosspolytope"]


def _bits_of(codes, bits):
    """codes (n x words uint64) -> n x bits 0/1 array, bit b in word b // 64 at position b % 64."""
    as_bytes = codes.astype("<u8").view(np.uint8).reshape(codes.shape[0], -1)
    return np.unpackbits(as_bytes, axis=1, bitorder="little")[:, :bits]


def test_simhash_definition(rng):
    X = rng.standard_normal((50, 33)).astype(np.float32)
    codes, norms = sketchmm.sketch(X, "simhash", bits=100, seed=3)
    assert codes.shape == (50, 2) and codes.dtype == np.uint64 and norms.dtype == np.float32
    G = sketchmm.simhash_hyperplanes(100, 33, seed=3)
    dots = X.astype(np.float64) @ G.astype(np.float64).T
    sure = np.abs(dots) > 1e-9  # signs of dot products this far from 0 are certain
    np.testing.assert_array_equal(_bits_of(codes, 100)[sure], (dots > 0)[sure])
    assert (codes[:, 1] >> np.uint64(36) == 0).all()  # unused high bits of the last word are 0
    np.testing.assert_allclose(norms, np.linalg.norm(X.astype(np.float64), axis=1), rtol=1e-6)
    assert not sketchmm.sketch(np.zeros((2, 33)), "simhash", 100)[0].any()


@pytest.mark.parametrize("family", FAMILIES)
def test_codes_depend_on_vectors_bits_seed_only(rng, family):
    X = rng.standard_normal((40, 20)).astype(np.float32)
    codes, norms = sketchmm.sketch(X, family, bits=130, seed=9)
    assert codes.shape[1] == sketchmm.code_words(family, 20, 130)
    for kind in ("F", "C_slice", "T_of_C", "float64"):
        again = sketchmm.sketch(variant(kind, X), family, bits=130, seed=9)
        np.testing.assert_array_equal(again[0], codes)
        np.testing.assert_array_equal(again[1], norms)
    assert not np.array_equal(sketchmm.sketch(X, family, bits=130, seed=10)[0], codes)


def test_hamming(rng):
    a = rng.integers(0, 2**63, size=(17, 3), dtype=np.uint64)
    b = rng.integers(0, 2**63, size=(29, 3), dtype=np.uint64)
    bits_a, bits_b = _bits_of(a, 192).astype(np.int64), _bits_of(b, 192).astype(np.int64)
    want = (bits_a[:, None, :] != bits_b[None, :, :]).sum(axis=2)
    np.testing.assert_array_equal(sketchmm.hamming(a, b), want)
    np.testing.assert_array_equal(sketchmm.hamming(a, b, dtype=np.uint16), want)
    assert sketchmm.hamming(a, b, dtype=np.uint16).dtype == np.uint16
    wide = np.zeros((29, 5), np.uint64)
    wide[:, :3] = b
    np.testing.assert_array_equal(sketchmm.hamming(a, wide[:, :3]), want)  # rows of a wider array, in place
    dist, idx = sketchmm.hamming_topk(a, b, k=5)
    order = np.lexsort((np.broadcast_to(np.arange(29), want.shape), want), axis=1)[:, :5]
    np.testing.assert_array_equal(idx, order)
    np.testing.assert_array_equal(dist, np.take_along_axis(want, order, axis=1))


def test_crosspolytope(rng):
    d, bits = 20, 64
    layout = sketchmm.crosspolytope_layout(d, bits)
    assert (layout.dim, layout.width, layout.full_hashes, layout.last_width) == (32, 6, 10, 4)
    assert layout.hashes == 11 and layout.last_dim == 8 and layout.fields_per_word == 10 and layout.words == 2
    X = rng.standard_normal((30, d)).astype(np.float32)
    codes, _ = sketchmm.sketch(X, "crosspolytope", bits=bits)
    fields = []
    for h in range(layout.hashes):
        word, offset = divmod(h, layout.fields_per_word)
        fields.append((codes[:, word] >> np.uint64(offset * layout.width)) & np.uint64((1 << layout.width) - 1))
    fields = np.stack(fields, axis=1)
    want = (fields[:, None, :] == fields[None, :, :]).sum(axis=2)
    matches = sketchmm.crosspolytope_matches(codes, codes, d, bits)
    np.testing.assert_array_equal(matches, want)
    assert (np.diag(matches) == layout.hashes).all()
    cos = sketchmm.crosspolytope_cosine_estimate(d, bits, matches)
    assert np.allclose(np.diag(cos), 1.0) and (np.abs(cos) <= 1).all()
    assert cos[0, 1] == sketchmm.crosspolytope_cosine_estimate(d, bits, int(matches[0, 1]))


def test_simhash_estimators():
    h = np.array([[0, 10, 64, 128], [129, -1, 5, 7]])
    angle = sketchmm.angle_estimate(h, 128)
    want = np.where((h >= 0) & (h <= 128), np.pi * h / 128, np.nan)
    np.testing.assert_array_equal(np.isnan(angle), np.isnan(want))
    np.testing.assert_allclose(angle, want, rtol=1e-15)
    np.testing.assert_allclose(sketchmm.cosine_estimate(h, 128), np.cos(want), rtol=1e-15, atol=1e-16)
    assert sketchmm.cosine_estimate(32, 128) == pytest.approx(math.cos(math.pi / 4))
    assert math.isnan(sketchmm.angle_estimate(3, 0)) and np.isnan(sketchmm.angle_estimate(h, 70000)).all()
    na, nb = np.array([[2.0], [3.0]]), np.array([1.0, 0.5, 2.0, 4.0])
    dots = sketchmm.dot_estimate(h, 128, na, nb)
    for i in range(2):
        for j in range(4):  # the array form is the C function's arithmetic
            assert np.array_equal(dots[i, j], sketchmm.dot_estimate(int(h[i, j]), 128, float(na[i, 0]),
                                                                    float(nb[j])), equal_nan=True)
    theta = np.array([0.0, 0.5, np.pi / 2, np.pi])
    np.testing.assert_allclose(sketchmm.simhash_angle_variance(theta, 64), theta * (np.pi - theta) / 64)
    np.testing.assert_allclose(sketchmm.simhash_cosine_variance(theta, 64),
                               np.sin(theta) ** 2 * theta * (np.pi - theta) / 64, atol=1e-18)
    assert math.isnan(sketchmm.simhash_angle_variance(4.0, 64))


def test_crosspolytope_statistics():
    rho = np.linspace(-1, 1, 9)
    p = sketchmm.crosspolytope_collision_probability(784, 1024, rho)
    assert np.all(np.diff(p) >= 0) and p[-1] == pytest.approx(1.0) and p[0] == pytest.approx(0.0, abs=1e-12)
    e = sketchmm.crosspolytope_expected_matches(784, 256, rho)
    layout = sketchmm.crosspolytope_layout(784, 256)
    assert e[-1] == pytest.approx(layout.hashes) and np.all(np.diff(e) >= 0)
    assert np.all(sketchmm.crosspolytope_matches_variance(784, 256, rho) >= 0)
    assert sketchmm.crosspolytope_cosine_variance(784, 256, 0.5) > 0
    assert math.isnan(sketchmm.crosspolytope_expected_matches(784, 256, 1.5))


def test_sketch_estimate_matches_approx_matmul(rng):
    """sketch + hamming + dot_estimate reproduce the simhash estimate approx_matmul makes (to float rounding)."""
    A = rng.standard_normal((20, 48)).astype(np.float32)
    B = rng.standard_normal((48, 30)).astype(np.float32)
    ca, na = sketchmm.sketch(A, "simhash", 256, seed=5)
    cb, nb = sketchmm.sketch(B.T, "simhash", 256, seed=5)
    est = sketchmm.dot_estimate(sketchmm.hamming(ca, cb), 256, na[:, None], nb[None, :])
    got = sketchmm.approx_matmul(A, B, method="simhash", bits=256, seed=5)
    np.testing.assert_allclose(got, est, rtol=1e-5, atol=1e-5)
