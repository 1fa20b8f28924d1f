"""No copies of float32 operands the library can read in place, checked three ways that can fail:
the address handed to C is the caller's memory; tracemalloc sees no allocation of an operand's size
during the call (numpy reports its buffers to tracemalloc; the test first shows that a converted
operand is seen); the package's conversion counter stays put."""

import tracemalloc

import numpy as np
import pytest
from layouts import VARIANTS, ZERO_COPY, variant

import sketchmm
from sketchmm import _arrays

CONVERTED = [name for name in VARIANTS if name not in ZERO_COPY]


def _address(x):
    return x.__array_interface__["data"][0]


@pytest.fixture
def passed(monkeypatch):
    """The addresses _arrays.pointer hands to the library during the test."""
    seen = []
    original = _arrays.pointer

    def spy(x, ctype="float *"):
        seen.append(_address(x))
        return original(x, ctype)

    monkeypatch.setattr(_arrays, "pointer", spy)
    return seen


def _calls(a, b, out):
    """Every call taking a as its first operand and b (k x n) as its second, out as the m x n output."""
    return {
        "matmul": lambda: sketchmm.matmul(a, b, out=out),
        "approx_matmul": lambda: sketchmm.approx_matmul(a, b, method="countsketch", sketch_dim=8, out=out),
        "exact_topk": lambda: sketchmm.exact_topk(a, b, k=3),
        "approx_topk": lambda: sketchmm.approx_topk(a, b, k=3, method="simhash", bits=64),
        "plan": lambda: sketchmm.Plan(b, method="srht", sketch_dim=8).matmul(a, out=out),
        "plan_topk": lambda: sketchmm.Plan(b, method="simhash", bits=64).topk(a, k=3),
        "sketch": lambda: sketchmm.sketch(a, bits=64),
        "unary": lambda: sketchmm.unary("identity", a),
    }


@pytest.mark.parametrize("call", list(_calls(None, None, None)))
@pytest.mark.parametrize("kind", ZERO_COPY)
def test_pointer_is_the_callers_memory(rng, passed, call, kind):
    A = variant(kind, rng.standard_normal((40, 24)))
    B = variant(kind, rng.standard_normal((24, 30)))
    out = variant(kind, np.zeros((40, 30)))
    before = _arrays.copies
    _calls(A, B, out)[call]()
    assert _arrays.copies == before
    assert _address(A) in passed
    if call not in ("sketch", "unary"):
        assert _address(B) in passed


@pytest.mark.parametrize("kind", CONVERTED)
def test_other_operands_are_converted_once(rng, passed, kind):
    A = variant(kind, rng.standard_normal((40, 24)))
    B = rng.standard_normal((24, 30)).astype(np.float32)
    before = _arrays.copies
    sketchmm.matmul(A, B)
    assert _arrays.copies == before + 1
    assert _address(A) not in passed and _address(B) in passed


def _peak_during(fn):
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("kind", ZERO_COPY)
def test_tracemalloc_sees_no_operand_sized_allocation(rng, kind):
    n = 512  # operands of 1 MiB
    A = variant(kind, rng.standard_normal((n, n)))
    B = variant(kind, rng.standard_normal((n, n)))
    out = np.empty((n, n), dtype=np.float32)
    size = A.shape[0] * A.shape[1] * 4
    # the detector works: a float64 operand is converted inside the call, and that allocation is seen
    A64 = A.astype(np.float64)
    assert _peak_during(lambda: sketchmm.matmul(A64, B, out=out)) >= size
    for fn in (lambda: sketchmm.matmul(A, B, out=out), lambda: sketchmm.matmul(A.T, B.T, out=out),
               lambda: sketchmm.approx_matmul(A, B, method="simhash", bits=64, out=out)):
        assert _peak_during(fn) < size // 8


def test_float64_converted_once_or_refused_when_strict(rng):
    """float64 operands are converted to float32 once per call (one copy per operand); set_strict(True)
    refuses them with InputTypeError, float32 still passes without a copy."""
    A = rng.standard_normal((40, 30))
    B = rng.standard_normal((30, 20))
    before = sketchmm._arrays.copies
    C = sketchmm.matmul(A, B)
    assert sketchmm._arrays.copies - before == 2 and C.dtype == np.float32
    np.testing.assert_allclose(C, A.astype(np.float32) @ B.astype(np.float32), rtol=1e-4, atol=1e-4)
    try:
        sketchmm.set_strict(True)
        with pytest.raises(sketchmm.InputTypeError, match="set_strict"):
            sketchmm.matmul(A, B)
        with pytest.raises(sketchmm.InputTypeError, match="float64"):
            sketchmm.approx_matmul(A.astype(np.float32), B, method="srht", sketch_dim=8)
        before = sketchmm._arrays.copies
        sketchmm.matmul(A.astype(np.float32), B.astype(np.float32))
        assert sketchmm._arrays.copies == before
    finally:
        sketchmm.set_strict(False)
