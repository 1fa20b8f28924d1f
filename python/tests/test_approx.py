"""approx_matmul, approx_topk and Plan: accuracy within the headers' error model, plan == one-shot bit
for bit, determinism for a seed, thread-count invariance, layouts, plan lifetime and threads."""

import copy
import pickle
import threading

import numpy as np
import pytest
from layouts import variant

import sketchmm
from sketchmm.errors import InvalidArgumentError

CODES = ["simhash", "simhash_orthogonal", "simhash_structured", "crosspolytope"]
CLASSICAL = ["gaussian_projection", "srht", "countsketch", "cr_sampling"]
ALL = CODES + CLASSICAL + ["lowrank", "pq"]


def _size(method, small=False):
    if method in CODES:
        return dict(bits=128 if small else 512)
    return dict(sketch_dim=8 if small else 32)


@pytest.fixture
def aligned(rng):
    """A (60 x 64) and B (64 x 50) whose rows and columns share a few directions (alignment ~0.6)."""
    basis = rng.standard_normal((4, 64))
    A = (rng.standard_normal((60, 4)) @ basis + 0.3 * rng.standard_normal((60, 64))).astype(np.float32)
    B = (rng.standard_normal((50, 4)) @ basis + 0.3 * rng.standard_normal((50, 64))).astype(np.float32).T
    return A, np.ascontiguousarray(B)


def _rel_fro(E, A, B):
    P = A.astype(np.float64) @ B
    return np.linalg.norm(E - P) / np.linalg.norm(P)


def test_methods_listed():
    assert list(sketchmm.methods()) == ALL + [m for m in sketchmm.methods() if m not in ALL]
    assert all(sketchmm.methods()[m] == "bits" for m in CODES)


@pytest.mark.parametrize("method", CODES + CLASSICAL)
def test_error_within_the_model(aligned, method):
    A, B = aligned
    P = A.astype(np.float64) @ B
    alignment = np.linalg.norm(P) / (np.linalg.norm(A) * np.linalg.norm(B))
    E = sketchmm.approx_matmul(A, B, method=method, **_size(method))
    if method in CODES:
        # entry error ~ sd(cos) |a_i| |b_j|, sd(cos) ~ sqrt(2.47 / bits) near cosine 0 (less elsewhere)
        model = np.sqrt(2.47 / 512) / alignment
        limit = 3 * model if method != "crosspolytope" else 1.0  # cross-polytope: weak at moderate cosines
    else:
        model = np.sqrt((1 + alignment**2) / (32 * alignment**2))
        limit = 3 * model
    assert _rel_fro(E, A, B) < limit


def test_lowrank_exact_at_the_rank(rng):
    A = (rng.standard_normal((40, 3)) @ rng.standard_normal((3, 30))).astype(np.float32)
    B = (rng.standard_normal((30, 3)) @ rng.standard_normal((3, 70))).astype(np.float32)
    assert _rel_fro(sketchmm.approx_matmul(A, B, method="lowrank", sketch_dim=3), A, B) < 1e-4
    E = sketchmm.approx_matmul(A, B, method="lowrank", sketch_dim=8, energy=0.999)
    assert _rel_fro(E, A, B) < 1e-4
    assert _rel_fro(sketchmm.approx_matmul(A, B, method="pq", sketch_dim=15), A, B) < 0.5


@pytest.mark.parametrize("method", ALL)
def test_plan_equals_one_shot_and_seeds(aligned, method):
    A, B = aligned
    size = _size(method, small=True)
    one_shot = sketchmm.approx_matmul(A, B, method=method, seed=7, **size)
    plan = sketchmm.Plan(B, method=method, seed=7, **size)
    np.testing.assert_array_equal(plan.matmul(A), one_shot)
    np.testing.assert_array_equal(sketchmm.approx_matmul(A, B, method=method, seed=7, **size), one_shot)
    np.testing.assert_array_equal(sketchmm.approx_matmul(A, B, method=method, seed=7, threads=1, **size),
                                  one_shot)
    other = sketchmm.approx_matmul(A, B, method=method, seed=8, **size)
    assert not np.array_equal(other, one_shot)


@pytest.mark.parametrize("method", ["simhash", "simhash_structured", "srht", "lowrank"])
@pytest.mark.parametrize("a_kind,b_kind", [("F", "C"), ("T_of_C", "F"), ("C_slice", "F_slice"),
                                           ("float64", "T_of_F")])
def test_layouts(aligned, method, a_kind, b_kind):
    A, B = aligned
    size = _size(method, small=True)
    want = sketchmm.approx_matmul(A, B, method=method, **size)
    got = sketchmm.approx_matmul(variant(a_kind, A), variant(b_kind, B), method=method, **size)
    if method in CODES:  # codes do not depend on the layout: the same bits
        np.testing.assert_array_equal(got, want)
    else:  # the same sketches multiplied by exact_sgemm in another order: rounding
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3 * np.abs(want).max())
    out = variant("F", np.ones_like(want))
    sketchmm.Plan(variant(b_kind, B), method=method, **size).matmul(variant(a_kind, A), alpha=2.0, beta=-1.0,
                                                                    out=out)
    np.testing.assert_allclose(out, 2 * want - 1, rtol=1e-4, atol=2e-3 * np.abs(want).max())


def test_plan_info(aligned):
    A, B = aligned
    plan = sketchmm.Plan(B, method="lowrank", sketch_dim=6, seed=123, threads=1, candidates=20, energy=0.9)
    assert (plan.dim, plan.n, plan.method, plan.bits, plan.sketch_dim) == (64, 50, "lowrank", None, 6)
    assert (plan.seed, plan.threads, plan.candidates, plan.energy) == (123, 1, 20, 0.9)
    assert "lowrank" in repr(plan) and "sketch_dim=6" in repr(plan)
    plan = sketchmm.Plan(B)
    assert (plan.method, plan.bits, plan.sketch_dim, plan.seed) == ("simhash", 256, None, sketchmm.DEFAULT_SEED)


def test_topk(rng):
    centers = rng.standard_normal((8, 32))
    D = (centers[rng.integers(0, 8, 2000)] + 0.5 * rng.standard_normal((2000, 32))).astype(np.float32)
    Q = (centers[rng.integers(0, 8, 50)] + 0.5 * rng.standard_normal((50, 32))).astype(np.float32)
    exact_val, exact_idx = sketchmm.exact_topk(Q, D.T, k=10)
    # every candidate refined: the exact top-k, values exact (double accumulation rounded)
    val, idx = sketchmm.approx_topk(Q, D.T, k=10, method="simhash", bits=64, candidates=2000)
    np.testing.assert_array_equal(idx, exact_idx)
    np.testing.assert_allclose(val, exact_val, rtol=1e-5, atol=1e-4)
    for method, size in (("lowrank", dict(sketch_dim=8)), ("simhash_structured", dict(bits=256)),
                         ("countsketch", dict(sketch_dim=16))):
        plan = sketchmm.Plan(D.T, method=method, candidates=100, **size)
        val, idx = plan.topk(Q, k=10, candidates=100)
        one_shot = sketchmm.approx_topk(Q, D.T, k=10, method=method, candidates=100, **size)
        np.testing.assert_array_equal(idx, one_shot.indices)
        np.testing.assert_array_equal(val, one_shot.values)
        np.testing.assert_array_equal(plan.topk(np.asfortranarray(Q), k=10).indices, idx)  # a Fortran Q
        exact = (Q.astype(np.float64)[:, None, :] * D[idx].astype(np.float64)).sum(axis=2)
        np.testing.assert_allclose(val, exact, rtol=1e-5, atol=1e-4)  # returned values are exact
        recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(idx, exact_idx)])
        assert recall > 0.8, (method, recall)
        times = sketchmm.phase_times()
        assert times["refine"] > 0 and times["encode_b"] == 0.0 and min(times.values()) >= 0


def test_plan_shared_by_threads(aligned, rng):
    A, B = aligned
    plan = sketchmm.Plan(B, method="srht", sketch_dim=16)
    inputs = [rng.standard_normal((200, 64)).astype(np.float32) for _ in range(8)]
    want = [plan.matmul(a) for a in inputs]
    got = [None] * len(inputs)

    def work(i):
        for _ in range(5):
            got[i] = plan.matmul(inputs[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_close_waits_for_running_calls(aligned):
    A, B = aligned
    plan = sketchmm.Plan(B, method="simhash", bits=64)
    handle = plan._handle
    with handle as held:  # as a call in another thread would
        plan.close()
        assert plan.closed and handle._pointer is not None  # not freed under the running call
        sketchmm._lib.lib.approx_plan_multiply(held, 101, 111, 0, 1.0, sketchmm._lib.ffi.NULL, 64, 0.0,
                                               sketchmm._lib.ffi.NULL, 50, sketchmm._lib.ffi.NULL)
    assert handle._pointer is None


@pytest.mark.parametrize("method,size", [("pq", {"sketch_dim": 8}), ("simhash", {"bits": 64}),
                                         ("lowrank", {"sketch_dim": 4}), ("maddness", {"sketch_dim": 4})])
def test_copy_shares_the_plan(aligned, method, size):
    """A shallow copy shares the C plan: closing the copy closes the original (a clear error, never a
    use after free), and the original's results before that are the copy's."""
    A, B = aligned
    plan = sketchmm.Plan(B, method=method, **size)
    twin = copy.copy(plan)
    np.testing.assert_array_equal(twin.matmul(A), plan.matmul(A))
    with twin:
        pass
    assert plan.closed and twin.closed
    with pytest.raises(InvalidArgumentError, match="closed"):
        plan.matmul(A)
    with pytest.raises(InvalidArgumentError, match="closed"):
        plan.topk(A, k=1)
    for deep in (copy.deepcopy, pickle.dumps):
        with pytest.raises(TypeError):
            deep(sketchmm.Plan(B, method=method, **size))


@pytest.mark.parametrize("method", sorted(sketchmm.methods()))
def test_scale_free(method):
    """The reproduction of the hostile-user report: B * s and A / s leave A B and so the relative error
    unchanged (pq was 0.999 at 1e-25, lowrank 0.60 at 2^-100 with status OK; maddness, before it encoded
    directions, assumed A and B at one scale)."""
    r = np.random.default_rng(5)
    X = r.standard_normal((48, 460)).astype(np.float32)
    B, A = X[:, :400], np.ascontiguousarray(X[:, 400:].T)
    size = {"bits": 256} if sketchmm.methods()[method] == "bits" else {"sketch_dim": 8}
    errors = []
    for s in (1.0, 1e-25, 1e20, 2.0**-100, 2.0**100):
        As = (A / np.float32(s)).astype(np.float32)
        Bs = (B * np.float32(s)).astype(np.float32)
        C = sketchmm.approx_matmul(As, Bs, method=method, **size)
        Y = As.astype(np.float64) @ Bs.astype(np.float64)
        errors.append(np.linalg.norm(C - Y) / np.linalg.norm(Y))
    assert all(abs(e - errors[0]) <= 0.05 * errors[0] + 1e-5 for e in errors), (method, errors)


@pytest.mark.parametrize("method,size", [("lowrank", {"sketch_dim": 8}), ("pq", {"sketch_dim": 8}),
                                         ("simhash_structured", {"bits": 128}), ("countsketch", {"sketch_dim": 16}),
                                         ("maddness", {"sketch_dim": 8})])
def test_candidates_per_call(rng, method, size):
    """One plan searched with any candidates gives exactly what a plan made with those candidates gives:
    the sketch does not depend on them (a sweep over candidates sketches the database once)."""
    D = rng.standard_normal((600, 32)).astype(np.float32)
    Q = rng.standard_normal((40, 32)).astype(np.float32)
    plan = sketchmm.Plan(D.T, method=method, **size)
    for c in (10, 37, 200, 600):
        got = plan.topk(Q, k=10, candidates=c)
        want = sketchmm.Plan(D.T, method=method, candidates=c, **size).topk(Q, k=10)
        np.testing.assert_array_equal(got.indices, want.indices)
        np.testing.assert_array_equal(got.values, want.values)
    borrowed = sketchmm.Plan(D.T, method=method, borrow=True, **size)  # reads D instead of a copy: the same results
    assert borrowed.borrow and not plan.borrow
    np.testing.assert_array_equal(borrowed.topk(Q, k=10, candidates=37).indices, plan.topk(Q, k=10, candidates=37).indices)
    np.testing.assert_array_equal(borrowed.matmul(Q), plan.matmul(Q))
