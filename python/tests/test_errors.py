"""Every class of bad input raises its exception before the library writes anything: out= arrays and
operands are left exactly as they were."""

import re

import numpy as np
import pytest

import sketchmm
from sketchmm import errors
from sketchmm.errors import (InputTypeError, InvalidArgumentError, NonFiniteError, PlatformError, ShapeError,
                             SketchmmError)

SENTINEL = -7.25


@pytest.fixture
def data(rng):
    A = rng.standard_normal((12, 20)).astype(np.float32)
    B = rng.standard_normal((20, 30)).astype(np.float32)
    return A, B


def _out(shape=(12, 30), dtype=np.float32):
    return np.full(shape, SENTINEL, dtype=dtype)


def _untouched(*arrays):
    for x in arrays:
        assert (x == SENTINEL).all()


def test_every_status_has_its_family():
    families = {1: InvalidArgumentError, 2: ShapeError, 3: ShapeError, 4: errors.ResourceError,
                13: errors.ResourceError, 10: PlatformError, 11: PlatformError, 14: NonFiniteError,
                17: InvalidArgumentError, 18: errors.FileError, 19: PlatformError}
    for status, name in errors.STATUS_NAMES.items():
        if status == 0:
            errors.check(0, "f")  # no exception
            continue
        e = errors.error(status, "exact_sgemm")
        assert type(e) is families.get(status, InvalidArgumentError), name
        assert isinstance(e, SketchmmError) and e.status == status and e.status_name == name
        assert errors.status_string(status) in str(e) and name in str(e) and str(e).startswith("exact_sgemm: ")
    assert issubclass(InvalidArgumentError, ValueError) and issubclass(InputTypeError, TypeError)
    assert issubclass(errors.FileError, OSError)
    assert issubclass(errors.ResourceError, MemoryError) and issubclass(PlatformError, RuntimeError)


@pytest.mark.parametrize("bad", [np.ones((12, 20), np.complex64), np.full((12, 20), "x"),
                                 np.array([[object()] * 20] * 12)])
def test_operand_dtype(data, bad):
    A, B = data
    out = _out()
    with pytest.raises(InputTypeError, match="dtype"):
        sketchmm.matmul(bad, B, out=out)
    with pytest.raises(InputTypeError):
        sketchmm.approx_matmul(A, bad.T, out=out)
    _untouched(out)


def test_out_dtype_shape_writeable(data):
    A, B = data
    with pytest.raises(InputTypeError, match="float32"):
        sketchmm.matmul(A, B, out=np.zeros((12, 30)))
    with pytest.raises(ShapeError, match="shape"):
        sketchmm.matmul(A, B, out=_out((30, 12)))
    frozen = _out()
    frozen.flags.writeable = False
    with pytest.raises(InputTypeError, match="read-only"):
        sketchmm.matmul(A, B, out=frozen)
    with pytest.raises(InputTypeError):
        sketchmm.matmul(A, B, out=[[0.0] * 30] * 12)


def test_shapes(data):
    A, B = data
    out = _out()
    for call in (sketchmm.matmul, sketchmm.approx_matmul):
        with pytest.raises(ShapeError, match="inner dimensions"):
            call(A, B.T, out=out)
        with pytest.raises(ShapeError, match="2-D"):
            call(A[None], B, out=out)
    with pytest.raises(ShapeError):
        sketchmm.exact_topk(A, B.T)
    plan = sketchmm.Plan(B, method="srht", sketch_dim=8)
    with pytest.raises(ShapeError):
        plan.matmul(A.T, out=_out((20, 30)))
    with pytest.raises(ShapeError):
        plan.topk(A[:, :5])
    with pytest.raises(ShapeError):
        sketchmm.hamming(np.zeros((3, 2), np.uint64), np.zeros((3, 4), np.uint64))
    with pytest.raises(ShapeError):
        sketchmm.mat4_mul(np.eye(3), np.eye(3))
    with pytest.raises(ShapeError, match="brgemm"):
        sketchmm.brgemm(np.zeros((2, 3, 4), np.float32), np.zeros((3, 4, 5), np.float32))
    _untouched(out)


@pytest.mark.parametrize("where", ["A", "B"])
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_non_finite(data, where, value):
    A, B = (x.copy() for x in data)
    (A if where == "A" else B)[3, 4] = value
    out = _out()
    with pytest.raises(NonFiniteError, match=rf"{where} holds .*\[3, 4\]"):
        sketchmm.approx_matmul(A, B, method="simhash_structured", bits=128, out=out)
    with pytest.raises(NonFiniteError, match=where):
        sketchmm.exact_topk(A, B, k=5)
    with pytest.raises(NonFiniteError):
        sketchmm.approx_topk(A, B, k=5, method="countsketch", sketch_dim=8)
    if where == "B":
        with pytest.raises(NonFiniteError, match="B holds"):
            sketchmm.Plan(B, method="lowrank", sketch_dim=4)
    else:
        plan = sketchmm.Plan(B, method="gaussian_projection", sketch_dim=8)
        with pytest.raises(NonFiniteError, match="A holds"):
            plan.matmul(A, out=out)
        with pytest.raises(NonFiniteError):
            plan.topk(A, k=2)
        with pytest.raises(NonFiniteError, match="X holds"):
            sketchmm.sketch(A)
    _untouched(out)


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")
def test_non_finite_after_conversion_and_derived_overflow(data):
    A, B = data
    out = _out()
    with pytest.raises(NonFiniteError, match="inf"):  # 1e300 is Inf in float32
        sketchmm.approx_matmul(np.full((12, 20), 1e300), B, out=out)
    with pytest.raises(NonFiniteError, match="derived"):  # finite, but the norms overflow float32
        sketchmm.approx_matmul(np.full((12, 20), 1e38, np.float32), B, out=out)
    _untouched(out)


@pytest.mark.parametrize("kwargs,match", [
    (dict(method="nosuch"), "unknown method"),
    (dict(method=99), "unknown method"),
    (dict(method="simhash", bits=0), "bits"),
    (dict(method="simhash", bits=70000), "bits"),
    (dict(method="simhash", sketch_dim=8), "sized by bits"),
    (dict(method="srht", bits=64), "sized by sketch_dim"),
    (dict(method="srht", sketch_dim=0), "sketch_dim"),
    (dict(method="srht", sketch_dim=8, threads=-1), "threads"),
    (dict(method="srht", sketch_dim=8, seed=-1), "seed"),
    (dict(method="srht", sketch_dim=8, energy=0.5), "SMM_ERR_BAD_ARGUMENT"),   # energy is lowrank's only
    (dict(method="lowrank", sketch_dim=4, energy=1.5), "SMM_ERR_BAD_ARGUMENT"),
    (dict(method="pq", sketch_dim=21), "SMM_ERR_BAD_ARGUMENT"),                # M > k
])
def test_bad_options(data, kwargs, match):
    A, B = data
    out = _out()
    with pytest.raises(InvalidArgumentError, match=match):
        sketchmm.approx_matmul(A, B, out=out, **kwargs)
    with pytest.raises(InvalidArgumentError, match=match):
        sketchmm.Plan(B, **kwargs)
    _untouched(out)


def test_bad_argument_types(data):
    A, B = data
    with pytest.raises(InputTypeError):
        sketchmm.approx_matmul(A, B, method="simhash", bits=64.0)
    with pytest.raises(InputTypeError):
        sketchmm.approx_matmul(A, B, method=None)
    with pytest.raises(InputTypeError):
        sketchmm.matmul(A, B, alpha="2")


def test_topk_ranges(data):
    A, B = data
    for k in (0, 31):
        with pytest.raises(InvalidArgumentError, match="k must be"):
            sketchmm.exact_topk(A, B, k=k)
    with pytest.raises(InvalidArgumentError, match="SMM_ERR_BAD_ARGUMENT"):  # candidates < k
        sketchmm.approx_topk(A, B, k=10, candidates=5)
    plan = sketchmm.Plan(B, method="simhash", bits=64, candidates=12)
    with pytest.raises(InvalidArgumentError, match="candidates must be"):  # per call: k..n
        plan.topk(A, k=5, candidates=4)
    with pytest.raises(InvalidArgumentError, match="exceeds"):
        plan.topk(A, k=13)
    with pytest.raises(ShapeError):  # pq needs 16 columns of B
        sketchmm.Plan(B[:, :10], method="pq", sketch_dim=4)


def test_overlap_and_beta(data):
    A, B = data
    square = np.full((20, 20), SENTINEL, np.float32)
    with pytest.raises(InvalidArgumentError, match="overlap"):
        sketchmm.matmul(square, square, out=square)
    with pytest.raises(InvalidArgumentError, match="overlap"):
        sketchmm.approx_matmul(square, square, out=square)
    _untouched(square)
    with pytest.raises(InvalidArgumentError, match="needs out"):
        sketchmm.matmul(A, B, beta=1.0)


def test_closed_plan(data):
    A, B = data
    with sketchmm.Plan(B, method="simhash", bits=64) as plan:
        plan.matmul(A)
    assert plan.closed and "closed" in repr(plan)
    plan.close()  # idempotent
    with pytest.raises(InvalidArgumentError, match="closed"):
        plan.matmul(A)
    with pytest.raises(InvalidArgumentError, match="closed"):
        plan.topk(A)


def test_singular_4x4():
    a = np.ones((3, 4, 4))
    a[0] = np.eye(4)
    out = np.full((3, 4, 4), SENTINEL)
    with pytest.raises(InvalidArgumentError, match="singular"):
        sketchmm.mat4_inv(a, out=out)
    _untouched(out)


def test_unknown_and_unavailable_isa(data):
    A, B = data
    with pytest.raises(InvalidArgumentError, match="unknown ISA"):
        sketchmm.set_isa("sse9")
    missing = [name for name in ("neon", "avx512", "avx2") if not sketchmm.isa_supported(name)]
    if not missing:
        pytest.skip("every ISA path is available here")
    out = _out()
    try:
        with pytest.raises(PlatformError, match="SMM_ERR_ISA_UNAVAILABLE"):
            sketchmm.set_isa(missing[0])
        with pytest.raises(PlatformError):  # until a selection succeeds, computing calls fail the same way
            sketchmm.matmul(A, B, out=out)
        assert sketchmm.kernel_names()["exact"] == "unavailable"
    finally:
        sketchmm.set_isa("auto")
    _untouched(out)
    sketchmm.matmul(A, B, out=out)


def test_size_errors_name_the_limit(rng):
    """An option or size a method cannot take is explained by the library (approx_check_sizes): the message
    names the limit, not only the status."""
    A = rng.random((30, 40), dtype=np.float32)
    B = rng.random((40, 200), dtype=np.float32)
    cases = [(dict(method="pq", sketch_dim=60), B, InvalidArgumentError, "at most min(k = 40"),
             (dict(method="maddness", sketch_dim=300), B, InvalidArgumentError, "256"),
             (dict(method="pq", sketch_dim=8), B[:, :10], ShapeError, "10 columns, fewer than the 16"),
             (dict(method="maddness", sketch_dim=8), B[:, :10], ShapeError, "16 leaves")]
    for kw, b, cls, needle in cases:
        for call in (lambda: sketchmm.approx_matmul(A, b, **kw), lambda: sketchmm.approx_topk(A, b, k=2, **kw),
                     lambda: sketchmm.Plan(b, **kw)):
            with pytest.raises(cls, match=re.escape(needle)):
                call()
