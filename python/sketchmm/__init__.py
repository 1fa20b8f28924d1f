"""sketchmm: exact and approximate (sketching) float32 matrix products on numpy arrays.

Python binding of the C library libsketchmm (cffi, ABI mode; the GIL is released
during every call into the library).

    import numpy as np, sketchmm
    A, B = np.random.rand(2000, 784).astype(np.float32), np.random.rand(784, 3000).astype(np.float32)
    C = sketchmm.matmul(A, B)                                         # exact: alpha A B + beta C
    E = sketchmm.approx_matmul(A, B, method="simhash_structured", bits=256)  # estimated from sketches
    with sketchmm.Plan(B, method="lowrank", sketch_dim=16) as plan:  # B sketched once
        val, idx = plan.topk(A, k=10, candidates=50)  # 10 largest entries of each row of A @ B, exact values

Exact (sketchmm.exact, .brgemm, .unary, .mat4)
    matmul(A, B, alpha, beta, out)   C := alpha A @ B + beta C (exact_sgemm, as cblas_sgemm)
    exact_topk(A, B, k)              the k largest entries of each row of A @ B: TopK(values, indices)
    brgemm(A, B, out, alpha, beta)   C := beta C + alpha sum_i A[i] @ B[i] on small matrices
    unary(op, A, transpose, out), relu(A), transpose(A)   zero / identity / ReLU, plain or transposed
    mat4_mul, mat4_inv, mat4_copy    4x4 float32/float64 matrices, single or batched
    zeros_padded(rows, cols)         float32 arrays with cache-friendly padded leading dimensions
Approximate (sketchmm.approx: help(sketchmm.approx) has every method's math and error)
    approx_matmul(A, B, method, size (or bits / sketch_dim), seed, threads)   C ~ A @ B
    approx_topk(A, B, k, method, ..., candidates)   top-k with exact values, candidates from a sketch
    Plan(B, method, ..., borrow)     B sketched once: .matmul(A), .topk(A, k, candidates), info attributes
    phase_times()                    seconds per phase of this thread's last approximate call
Sketches (sketchmm.sketch, sketchmm.estimators)
    sketch(X, family, bits, seed) -> (codes uint64, norms)   SimHash (three kinds), cross-polytope
    hamming(a, b), hamming_topk(a, b, k), crosspolytope_matches(a, b, d, bits)
    angle_estimate, cosine_estimate, dot_estimate, ... and their variances
Runtime (sketchmm.runtime)
    isa(), set_isa(name), supported_isas(), num_threads(), set_num_threads(n), version(),
    kernel_names(), methods(), library_path; jit(), set_jit(on), jit_status(), jit_stats():
    run-time code generation (on by default; SKETCHMM_JIT=0 turns it off)
    exact_config()                   the exact core's kernel, blocks and where they came from
    tune(budget), tuning_path(), reload_tuning()   fit the exact core to this machine
Results of sketchmm_sweep (sketchmm.results)
    load_results(path), load_attributes(path), plot_results(path, output)
Errors (sketchmm.errors): SketchmmError and one subclass per family of statuses;
    wrong dtypes, shapes and values raise before the library writes anything, and
    out= arrays are left untouched on any error.

Conventions: float32 (other real dtypes, float64 included, are converted to a float32
copy once per call; set_strict(True) refuses them instead); arrays in C or
Fortran order, transposed views and slices of whole lines are passed to the
library as layouts, transposes and leading dimensions, without copies. Matrices
of vectors: A @ B pairs the rows of A with the columns of B, so a database D with
one vector per row is passed as D.T (a view). Finding the library: SKETCHMM_LIBRARY,
the path recorded by cmake --install, the repository's build/ directory, then the
dynamic linker (help(sketchmm._lib)).
"""

from ._version import __version__
from .approx import DEFAULT_SEED, Plan, approx_matmul, approx_topk, phase_times
from .brgemm import brgemm
from .errors import (FileError, InputTypeError, InvalidArgumentError, NonFiniteError, PlatformError,
                     ResourceError, SketchmmError, ShapeError)
from .estimators import (angle_estimate, cosine_estimate, crosspolytope_collision_probability,
                         crosspolytope_cosine_estimate, crosspolytope_cosine_variance,
                         crosspolytope_expected_matches, crosspolytope_matches_variance, dot_estimate,
                         simhash_angle_variance, simhash_cosine_variance)
from ._arrays import set_strict
from .exact import exact_topk, matmul, zeros_padded
from .mat4 import mat4_copy, mat4_inv, mat4_mul
from .results import load_attributes, load_results, plot_results
from .runtime import (exact_config, isa, isa_supported, jit, jit_stats, jit_status, kernel_names, library_path,
                      methods, num_threads, reload_tuning, set_isa, set_jit, set_num_threads, supported_isas, tune,
                      tuning_path, version, version_number)
from .sketch import (CrossPolytopeLayout, code_words, crosspolytope_layout, crosspolytope_matches, hamming,
                     hamming_topk, simhash_hyperplanes, sketch)
from .unary import relu, transpose, unary

__all__ = [
    "__version__",
    # exact
    "matmul", "exact_topk", "zeros_padded", "brgemm", "unary", "relu", "transpose", "mat4_mul", "mat4_inv",
    "mat4_copy",
    # approximate
    "approx_matmul", "approx_topk", "Plan", "phase_times", "DEFAULT_SEED",
    # sketches and estimators
    "sketch", "code_words", "hamming", "hamming_topk", "crosspolytope_layout", "crosspolytope_matches",
    "simhash_hyperplanes", "CrossPolytopeLayout", "angle_estimate", "cosine_estimate", "dot_estimate",
    "simhash_angle_variance", "simhash_cosine_variance", "crosspolytope_collision_probability",
    "crosspolytope_expected_matches", "crosspolytope_cosine_estimate", "crosspolytope_matches_variance",
    "crosspolytope_cosine_variance",
    # runtime
    "isa", "set_isa", "isa_supported", "supported_isas", "num_threads", "set_num_threads", "jit", "set_jit",
    "jit_status", "jit_stats", "version", "version_number", "kernel_names", "methods", "library_path", "set_strict",
    "exact_config", "tune", "tuning_path", "reload_tuning",
    # results
    "load_results", "load_attributes", "plot_results",
    # errors
    "SketchmmError", "InvalidArgumentError", "ShapeError", "NonFiniteError", "InputTypeError", "ResourceError",
    "PlatformError", "FileError",
]
