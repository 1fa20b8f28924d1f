"""Approximate products and top-k search (approx.h): approx_matmul, approx_topk, Plan, phase_times.

Notation: a_i is row i of A (m x k), b_j column j of B (k x n), C_ij = <a_i, b_j>.
The alignment ||A B||_F / (||A||_F ||B||_F) (<= 1) says how much of the norms the
product keeps: estimates whose error scales with |a_i| |b_j| are only useful where
it is large.

Methods (``method=``; sketchmm.methods() lists them):

Sketch families, sized by ``bits`` (1..65535, default 256): each a_i and b_j gets a
code of `bits` bits and its norm; C_ij ~ |a_i| |b_j| cos-estimate(code_i, code_j),
one table lookup per entry fused with the Hamming (match-count) loop. Error: the
cosine estimate's standard deviation times |a_i| |b_j|, independent of m, n and k,
falling as 1 / sqrt(bits); for SimHash near cosine 0, sd(cos) ~ sqrt(2.47 / bits).

- ``simhash``: dense Gaussian hyperplanes, Var[theta-hat] = theta (pi - theta) / bits.
- ``simhash_orthogonal``: hyperplanes orthonormalised in blocks ("super-bit"); variance
  at most SimHash's.
- ``simhash_structured``: 3 rounds of random signs and Walsh-Hadamard transform,
  O(k log k) per vector.
- ``crosspolytope``: cross-polytope LSH on the same rotations; the cosine from the
  calibrated collision table (a near-neighbour hash: weak at moderate cosines).

Classical randomised products, sized by ``sketch_dim`` s (1..2^20, default 64): a
random k x s matrix S, the same for both sides, C ~ (A S)(S^T B), all through
exact_sgemm. Unbiased (E[S S^T] = I); entry error variance about
(|a_i|^2 |b_j|^2 + C_ij^2) / s, so the relative Frobenius error is about
sqrt((1 + alignment^2) / (s alignment^2)) on aligned data.

- ``gaussian_projection``: S = G / sqrt(s), G i.i.d. N(0, 1).
- ``srht``: subsampled randomized Hadamard transform (random signs, Walsh-Hadamard
  of order K' = k rounded up to a power of two, s coordinates sampled).
- ``countsketch``: each coordinate into one of s buckets with a random sign.
- ``cr_sampling``: column-row sampling with probability proportional to
  |column t of A| |row t of B|; E||C - C-hat||_F^2 <= ||A||_F^2 ||B||_F^2 / s.

Data-aware, sized by ``sketch_dim``:

- ``lowrank``: V (k x s, orthonormal) spans B's dominant s-dimensional column space
  (randomized range finder, one power iteration); C ~ (A V)(V^T B), with
  ||C - est||_F <= ||A||_F ||(I - V V^T) B||_2 (close to sigma_{s+1}(B) when the
  spectrum decays). Not unbiased: good when the rows of A lie near B's dominant
  directions. ``energy`` e in (0, 1] picks the least rank s' <= s holding a fraction
  e of ||B||_F^2.
- ``pq``: product quantization, s = M subspaces with 16 centroids each (4-bit codes),
  estimated through byte lookup tables. M <= k; B needs at least 16 columns.
- ``maddness``: MADDNESS (Blalock and Guttag 2021), s = C codebooks: learned 4-level
  hash trees (trained on the directions of B's columns) encode the direction of each row
  of A with comparisons only, and its norm is kept exactly; 16 prototypes per codebook
  refined by ridge regression give per column of B a byte table T_j[c][leaf] =
  <prototype, b_j>, summed by the same lookup kernels as pq and multiplied by |a_i|.
  C <= min(k, 256); B needs at least 16 columns. Not unbiased. It assumes A's rows point
  like B's columns (at any scale); docs/methods.md lists where it fails.

sketchmm.methods() lists the methods of the library that is loaded, with what sizes
each (a newer library may have more than the ones above; help() of its approx.h has
their math).

Scale: A / s with B * s gives the relative error of A with B, for every method, over the
whole float range (the library scales data far from 1 by powers of two
internally; data whose largest magnitude lies in [2^-32, 2^32) is not touched).

Every method's randomness is a function of (method, seed, sizes) alone: the same
seed gives the same result, bit for bit for every thread count (and for the sketch
families every ISA path). NaN or Inf in an operand raises NonFiniteError before
anything is written. The GIL is released during every call; a Plan may be used from
several threads at once.
"""

from __future__ import annotations

import threading

import numpy as np

from . import _arrays, _gemm
from ._gemm import TopK
from ._handle import Handle
from ._lib import ffi, lib
from ._methods import CODE_METHODS, method_name, method_value
from .errors import InvalidArgumentError, ShapeError

__all__ = ["approx_matmul", "approx_topk", "Plan", "TopK", "phase_times", "DEFAULT_SEED"]

DEFAULT_SEED = 0x5EED

_MAX_BITS = lib.SKETCH_MAX_BITS
_MAX_SKETCH_DIM = lib.APPROX_MAX_SKETCH_DIM
_MAX_THREADS = lib.SMM_MAX_THREADS


def options(method="simhash", size=None, bits=None, sketch_dim=None, seed=DEFAULT_SEED, threads=0, candidates=0,
            energy=0.0, borrow=False):
    """An approx_options struct (cffi) from keyword arguments. The method's size is given once: ``size``,
    or by the name that says what it counts, ``bits`` for the sketch families and ``sketch_dim`` for the
    others (the name a method does not use is an error). None: the method's default (256 bits, s = 64)."""
    opts = ffi.new("approx_options *")
    lib.approx_options_init(opts)
    opts.method = method_value(method)
    name = method_name(opts.method)
    uses_bits = name in CODE_METHODS
    given = [(label, v) for label, v in (("size", size), ("bits", bits), ("sketch_dim", sketch_dim)) if v is not None]
    if len(given) > 1:
        raise InvalidArgumentError(f"give the size of {name!r} once (got {', '.join(lab for lab, _ in given)})")
    if bits is not None and not uses_bits:
        raise InvalidArgumentError(f"method {name!r} is sized by sketch_dim, not bits")
    if sketch_dim is not None and uses_bits:
        raise InvalidArgumentError(f"method {name!r} is sized by bits, not sketch_dim")
    if given:
        label, value = given[0]
        opts.size = _arrays.integer(value, label, 1, _MAX_BITS if uses_bits else _MAX_SKETCH_DIM)
    opts.seed = _arrays.integer(seed, "seed", 0, 2**64 - 1)
    opts.num_threads = _arrays.integer(threads, "threads", 0, _MAX_THREADS)
    opts.candidates = _arrays.integer(candidates if candidates is not None else 0, "candidates", 0, 2**31 - 1)
    opts.energy = _arrays.real(energy, "energy")
    opts.flags = lib.APPROX_BORROW_B if borrow else 0
    return opts


def _explainer(opts):
    """explain(k, n) for _gemm: the library's sentence naming the limit an option or size broke
    (approx_check_sizes), or None."""
    def explain(k, n):
        msg = ffi.new("char[]", 512)
        if lib.approx_check_sizes(opts, k, n, msg, 512) == 0:
            return None
        return ffi.string(msg).decode() or None
    return explain


# The phase times of each thread's most recent call (the library reports them per call).
_last = threading.local()


def _call(candidates=0):
    """An approx_call struct asking for the phase times (kept for phase_times()), with the candidates."""
    call = ffi.new("approx_call *")
    call.struct_size = ffi.sizeof("approx_call")
    call.candidates = candidates
    times = ffi.new("approx_phase_times *")
    call.times = times
    _last.times = times
    return call


def approx_matmul(A, B, method: str = "simhash", size: int | None = None, *, bits: int | None = None,
                  sketch_dim: int | None = None, seed: int = DEFAULT_SEED, threads: int = 0, energy: float = 0.0,
                  alpha: float = 1.0, beta: float = 0.0, out: np.ndarray | None = None) -> np.ndarray:
    """C := alpha * est(A @ B) + beta * C with approx_sgemm: B sketched, A sketched, the estimate.

    The operands follow sketchmm.matmul (float32, any BLAS layout without copies,
    1-D as in numpy.matmul, out= written in place and untouched on error). method,
    size (or bits / sketch_dim), seed, energy: see the module docstring
    (help(sketchmm.approx)); threads: 0 for the library's thread count
    (sketchmm.num_threads()). A zero row or column gives 0 for the sketch families.

    Raises NonFiniteError (NaN or Inf in A or B, a sketch family's norm overflowing
    float32, or a product beyond float32), InvalidArgumentError (unknown method, a size
    out of range or given under the other name, energy out of (0, 1] or given for a
    method other than lowrank; the message names the limit), ShapeError, InputTypeError,
    ResourceError.
    """
    opts = options(method, size, bits, sketch_dim, seed, threads, 0, energy)
    return _gemm.call("approx_matmul", lib.approx_sgemm, A, B, alpha, beta, out, (opts, _call()), _explainer(opts))


def approx_topk(A, B, k: int = 10, method: str = "simhash", size: int | None = None, *, bits: int | None = None,
                sketch_dim: int | None = None, candidates: int | None = None, seed: int = DEFAULT_SEED,
                threads: int = 0, energy: float = 0.0) -> TopK:
    """The k largest entries of each row of A @ B with exact values, from candidates chosen by a
    sketch: TopK(values float32 m x k, indices int64 m x k). One-shot Plan(B, ...).topk(A, k).

    For each row a_i of A (m x d): the method estimates row i of A @ B (never stored
    whole) and keeps the `candidates` columns with the largest estimates (default
    10 k; at most n); <a_i, b_j> is computed exactly (double accumulation, rounded to
    float) for those only and the k largest returned in decreasing value (ties:
    smaller index first). Values are exact; only recall is approximate
    (candidates = n gives the exact top-k). B is d x n, database vectors as columns
    (``D.T`` for a database D of rows). 1 <= k <= n, candidates in k..n.
    """
    opts = options(method, size, bits, sketch_dim, seed, threads, candidates, energy)
    idx, val = _gemm.topk_call("approx_topk", lib.approx_topk, A, B, k, (opts, _call()), _explainer(opts))
    return TopK(val, idx)


def phase_times() -> dict:
    """Wall-clock seconds of the phases of this thread's most recent approximate call
    (approx_matmul, approx_topk, Plan(), Plan.matmul, Plan.topk), as the library reported
    them for that call: encode_b (sketching B), encode_a (sketching A), estimate (the
    estimate, or for top-k choosing the candidates), refine (top-k: exact values of the
    candidates). 0 for a phase the call does not have (all 0 before the first call)."""
    t = getattr(_last, "times", None)
    if t is None:
        return {"encode_b": 0.0, "encode_a": 0.0, "estimate": 0.0, "refine": 0.0}
    return {"encode_b": t.encode_b, "encode_a": t.encode_a, "estimate": t.estimate, "refine": t.refine}


class Plan:
    """B (dim x n) sketched once, for any number of approximate products and top-k searches.

    ``plan = Plan(B, method="lowrank", sketch_dim=16)`` sketches the n columns of B
    with the method and options of approx_matmul (see help(sketchmm.approx)) and keeps
    a copy of B (4 n dim bytes): top-k refines candidates with it, column-row sampling
    draws from it; the caller's B is not referenced afterwards. ``borrow=True`` saves
    that copy: the plan then reads the caller's array, which it keeps referenced, and
    which must not change while the plan lives. For a database D with one vector per
    row pass ``D.T`` (a view: no copy). dim, n >= 1.

    Attributes (from approx_plan_info): dim (the vectors' dimension), n (their count),
    method, size (and bits or sketch_dim, the same number under the name that says what
    it counts), seed, threads, candidates (the default of topk(); 0: 10 k), energy,
    borrow.

    ``plan.matmul(A)`` ~ A @ B; ``plan.topk(Q, k=10, candidates=c)`` -> TopK(values,
    indices), any candidates per call (the sketch does not depend on them). The plan is
    read-only in C: several Python threads may use one plan at once (the GIL is
    released during each call). It frees its C memory when garbage-collected, on
    ``plan.close()`` or at the end of a ``with Plan(...) as plan:`` block; close()
    while another thread is inside a call frees it when that call returns. A copy
    (copy.copy) shares the C plan.

    Raises what approx_matmul raises (NonFiniteError for NaN or Inf in B, or for
    pq fewer than 16 columns: ShapeError).
    """

    def __init__(self, B, method: str = "simhash", size: int | None = None, *, bits: int | None = None,
                 sketch_dim: int | None = None, seed: int = DEFAULT_SEED, threads: int = 0, candidates: int = 0,
                 energy: float = 0.0, borrow: bool = False):
        opts = options(method, size, bits, sketch_dim, seed, threads, candidates, energy, borrow)
        B, layout_b, ldb = _arrays.matrix(B, "B")
        dim, n = B.shape
        out = ffi.new("approx_plan **")
        row = _arrays.ROW
        status = lib.approx_plan_create(row, _arrays.as_layout(row, layout_b), dim, n, _arrays.pointer(B), ldb,
                                        opts, _call(), out)
        _gemm.check_values(status, "Plan", lambda: _explainer(opts)(dim, n), B=B)
        # Every bit of the C plan's lifetime lives in this one owner, which copies of this object share.
        self._handle = Handle(out[0], lib.approx_plan_free, "plan")
        self._borrowed = B if borrow else None  # the plan reads it: keep it alive
        self._read_info()

    def _read_info(self):
        dim = ffi.new("int64_t *")
        n = ffi.new("int64_t *")
        opts = ffi.new("approx_options *")
        lib.approx_options_init(opts)
        with self._handle as plan:
            _gemm.check_values(lib.approx_plan_info(plan, dim, n, opts), "approx_plan_info")
        self.dim = int(dim[0])
        self.n = int(n[0])
        self.method = method_name(opts.method)
        self.size = int(opts.size)
        uses_bits = self.method in CODE_METHODS
        self.bits = self.size if uses_bits else None
        self.sketch_dim = None if uses_bits else self.size
        self.seed = int(opts.seed)
        self.threads = int(opts.num_threads)
        self.candidates = int(opts.candidates)
        self.energy = float(opts.energy)
        self.borrow = bool(opts.flags & lib.APPROX_BORROW_B)

    # -- lifetime: a call holds the plan; close() frees it once no call does (sketchmm._handle) --
    def close(self) -> None:
        """Free the plan's C memory (idempotent). Later calls raise InvalidArgumentError. A copy
        (copy.copy) shares the C plan: closing either closes both."""
        self._handle.close()

    @property
    def closed(self) -> bool:
        return self._handle.closed

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        size = f"bits={self.bits}" if self.bits is not None else f"sketch_dim={self.sketch_dim}"
        state = " closed" if self.closed else ""
        return (f"<sketchmm.Plan{state} method={self.method} {size} dim={self.dim} n={self.n} "
                f"seed={self.seed:#x} candidates={self.candidates}{' borrow' if self.borrow else ''}>")

    # -- use --
    def matmul(self, A, alpha: float = 1.0, beta: float = 0.0, out: np.ndarray | None = None) -> np.ndarray:
        """C := alpha * est(A @ B) + beta * C with the plan's B (approx_plan_multiply): A is m x dim
        (1-D: one row), C m x n; exactly approx_matmul's result for the same options. out= as in
        sketchmm.matmul (untouched on error; may lie over the caller's B unless the plan borrows it)."""
        A = _arrays.array(A, "A", ndim=(1, 2))
        A2 = A[np.newaxis, :] if A.ndim == 1 else A
        if A2.shape[1] != self.dim:
            raise ShapeError(f"Plan.matmul: A has shape {A.shape}; the plan's B has dim = {self.dim} rows")
        alpha = _arrays.real(alpha, "alpha")
        beta = _arrays.real(beta, "beta")
        m = A2.shape[0]
        shape = A.shape[:-1] + (self.n,)
        C = _gemm.Output(out, m, self.n, shape, beta, "Plan.matmul")
        A2, layout_a, lda = _arrays.matrix(A2, "A")
        call = _call()
        with self._handle as plan:
            status = lib.approx_plan_multiply(plan, C.layout, _arrays.as_layout(C.layout, layout_a), m, alpha,
                                              _arrays.pointer(A2), lda, beta, _arrays.pointer(C.array), C.ld, call)
        _gemm.check_values(status, "Plan.matmul", A=A2)
        return C.result(shape)

    def topk(self, A, k: int = 10, candidates: int | None = None) -> TopK:
        """The k largest entries of each row of A @ B with exact values (approx_plan_topk):
        TopK(values float32 m x k, indices int64 m x k); see approx_topk. A is m x dim (queries
        as rows). candidates: per row, k..n; None uses the plan's (Plan(..., candidates=c); 0:
        10 k). Any value gives exactly the result of a plan made with it: only the search
        depends on it, not the sketch."""
        A = _arrays.array(A, "A")
        if A.shape[1] != self.dim:
            raise ShapeError(f"Plan.topk: A has shape {A.shape}; the plan's vectors have dim = {self.dim} entries")
        k = _arrays.integer(k, "k", 1, self.n)
        c = self.candidates if candidates is None else _arrays.integer(candidates, "candidates", k, self.n)
        if c and not k <= c:
            raise InvalidArgumentError(f"Plan.topk: k = {k} exceeds the plan's candidates ({c})")
        A, layout_a, lda = _arrays.matrix(A, "A")
        m = A.shape[0]
        idx, val = _gemm.topk_outputs(m, k)
        call = _call(c)
        with self._handle as plan:
            status = lib.approx_plan_topk(plan, layout_a, _arrays.NO_TRANS, m, _arrays.pointer(A), lda, k,
                                          _arrays.pointer(idx, "int64_t *"), _arrays.pointer(val), k, call)
        _gemm.check_values(status, "Plan.topk", A=A)
        return TopK(val, idx)
