"""pytest set-up: the package is imported from this checkout (python/), whatever is installed; the C
library is found as the package documents (SKETCHMM_LIBRARY first: scripts/run_tests.sh points it at
the native test build)."""

import os
import sys

import numpy as np
import pytest

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(PYTHON_DIR)
sys.path.insert(0, PYTHON_DIR)


@pytest.fixture
def rng():
    return np.random.default_rng(20240622)


def reference_tolerance(A, B, alpha=1.0, beta=0.0, C0=None):
    """(reference, tolerance) of alpha A B + beta C0 as tests/test_exact.c checks exact_sgemm: the product
    in float64 and 4 (k + 2) FLT_EPSILON (|alpha| |A| |B| + |beta C0|) + FLT_MIN per entry."""
    A64 = np.asarray(A, dtype=np.float64)
    B64 = np.asarray(B, dtype=np.float64)
    ref = alpha * (A64 @ B64)
    mag = abs(alpha) * (np.abs(A64) @ np.abs(B64))
    if beta != 0.0:
        ref = ref + beta * np.asarray(C0, dtype=np.float64)
        mag = mag + np.abs(beta * np.asarray(C0, dtype=np.float64))
    k = A64.shape[-1]
    eps = float(np.finfo(np.float32).eps)
    return ref, 4.0 * (k + 2) * eps * mag + float(np.finfo(np.float32).tiny)


def assert_product(got, A, B, alpha=1.0, beta=0.0, C0=None):
    ref, tol = reference_tolerance(A, B, alpha, beta, C0)
    got = np.asarray(got, dtype=np.float64)
    assert got.shape == ref.shape
    bad = np.abs(got - ref) > tol
    assert not bad.any(), f"{bad.sum()} entries beyond the tolerance, first at {np.argwhere(bad)[0]}"
