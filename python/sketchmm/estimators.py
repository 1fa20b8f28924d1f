"""Estimators from sketches (sketch.h): angle, cosine and inner product from SimHash Hamming distances,
cosine from cross-polytope match counts, and the variances of both.

Every function takes scalars or numpy arrays (broadcast together) and returns a
float or a float64 array. Those of an integer (a Hamming distance h, a match
count) look the value up in a table computed by the library's function for every
integer in range, so a whole distance matrix costs one numpy indexing; the
others call the library once per element. NaN where the library returns NaN
(arguments out of range), as the C functions.

SimHash: for vectors at angle theta the Hamming distance of `bits`-bit codes is
Binomial(bits, theta / pi): the angle estimate pi h / bits is unbiased with
Var = theta (pi - theta) / bits, and cos(pi h / bits) has the delta-method variance
sin^2(theta) theta (pi - theta) / bits.

Cross-polytope: p(rho) is the probability that a hash collides for vectors of
cosine rho (a table measured on the implemented hash for D <= 1024, a Gaussian
model beyond, interpolated linearly in theta = acos(rho));
E[matches](rho) = L p_D(rho) + [r > 0] p_D'(rho), increasing from 0 at rho = -1 to
hashes at rho = 1; the cosine estimate inverts it (clamped to [-1, 1]).
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from ._lib import lib
from .errors import InputTypeError

__all__ = ["angle_estimate", "cosine_estimate", "dot_estimate", "simhash_angle_variance",
           "simhash_cosine_variance", "crosspolytope_collision_probability", "crosspolytope_expected_matches",
           "crosspolytope_cosine_estimate", "crosspolytope_matches_variance", "crosspolytope_cosine_variance"]

_MAX_BITS = lib.SKETCH_MAX_BITS


def _integer(value, name):
    try:
        return operator.index(value)
    except TypeError:
        raise InputTypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}") from None


def _counts(h, name):
    """h as an integer array (scalars stay scalars)."""
    if np.isscalar(h) or isinstance(h, np.generic):
        return _integer(h, name)
    h = np.asarray(h)
    if h.dtype.kind not in "iu":
        raise InputTypeError(f"{name} must hold integers, got dtype {h.dtype}")
    return h


# the functions of an integer that are tabulated: name -> f(*args, i)
_TABULATED = {
    "angle": lambda bits, i: lib.sketch_angle_estimate(i, bits),
    "cosine": lambda bits, i: lib.sketch_cosine_estimate(i, bits),
    "crosspolytope_cosine": lambda d, bits, i: lib.sketch_crosspolytope_cosine_estimate(d, bits, i),
}


@functools.lru_cache(maxsize=64)
def _table(name, args, count):
    """[f(*args, i) for i in 0..count] as a float64 array, f = _TABULATED[name]."""
    return np.array([_TABULATED[name](*args, i) for i in range(count + 1)], dtype=np.float64)


def _lookup(table, h):
    """table[h], NaN where h is outside 0..len(table) - 1 (an empty table: NaN everywhere)."""
    if isinstance(h, int):
        return float(table[h]) if 0 <= h < len(table) else float("nan")
    valid = (h >= 0) & (h < len(table))
    if len(table) == 0:
        return np.full(h.shape, np.nan)
    return np.where(valid, table[np.where(valid, h, 0)], np.nan)


def _by_table(name, h, bits):
    """The SimHash estimator `name` of integer h, by a table over 0..bits (NaN for bits out of range)."""
    h = _counts(h, "h")
    bits = _integer(bits, "bits")
    table = _table(name, (bits,), bits) if 1 <= bits <= _MAX_BITS else np.empty(0)
    return _lookup(table, h)


def _elementwise(c_function, *args):
    """c_function over broadcast arguments: a float for scalars, else a float64 array."""
    if all(np.isscalar(a) or isinstance(a, np.generic) for a in args):
        return float(c_function(*args))
    arrays = np.broadcast_arrays(*(np.asarray(a) for a in args))
    out = np.empty(arrays[0].shape, dtype=np.float64)
    flat = [a.ravel() for a in arrays]
    for i in range(out.size):
        out.flat[i] = c_function(*(a[i].item() for a in flat))
    return out


def angle_estimate(h, bits: int):
    """SimHash angle estimate pi h / bits (radians) from Hamming distance h of `bits`-bit codes."""
    return _by_table("angle", h, bits)


def cosine_estimate(h, bits: int):
    """SimHash cosine estimate cos(pi h / bits)."""
    return _by_table("cosine", h, bits)


def dot_estimate(h, bits: int, norm_a, norm_b):
    """SimHash inner-product estimate norm_a * norm_b * cos(pi h / bits) (the same arithmetic, in
    the same order, as sketch_dot_estimate): e.g. dot_estimate(hamming(ca, cb), bits, na[:, None], nb)
    for the whole estimated product from sketch() codes and norms."""
    if all(np.isscalar(v) or isinstance(v, np.generic) for v in (h, norm_a, norm_b)):
        return float(lib.sketch_dot_estimate(_integer(h, "h"), _integer(bits, "bits"), norm_a, norm_b))
    norms = np.multiply(np.asarray(norm_a, dtype=np.float64), np.asarray(norm_b, dtype=np.float64))
    return norms * cosine_estimate(h, bits)


def simhash_angle_variance(theta, bits: int):
    """Var[pi h / bits] = theta (pi - theta) / bits for vectors at angle theta in [0, pi]."""
    return _elementwise(lambda t: lib.sketch_simhash_angle_variance(t, _integer(bits, "bits")), theta)


def simhash_cosine_variance(theta, bits: int):
    """Delta-method variance of the SimHash cosine estimate: sin^2(theta) theta (pi - theta) / bits."""
    return _elementwise(lambda t: lib.sketch_simhash_cosine_variance(t, _integer(bits, "bits")), theta)


def crosspolytope_collision_probability(d: int, hash_dim: int, rho):
    """The calibrated probability that a cross-polytope hash of dimension hash_dim (a power of two
    <= D) on the rotation of dimension d collides for two vectors of cosine rho."""
    return _elementwise(lambda r: lib.sketch_crosspolytope_collision_probability(
        _integer(d, "d"), _integer(hash_dim, "hash_dim"), r), rho)


def crosspolytope_expected_matches(d: int, bits: int, rho):
    """E[matches](rho) = L p_D(rho) + [r > 0] p_D'(rho) for codes of dimension d and `bits` bits."""
    return _elementwise(lambda r: lib.sketch_crosspolytope_expected_matches(_integer(d, "d"),
                                                                          _integer(bits, "bits"), r), rho)


def crosspolytope_cosine_estimate(d: int, bits: int, matches):
    """The cosine rho with E[matches](rho) = matches (clamped to [-1, 1]: 0 matches give -1, all
    give 1), for match counts from sketchmm.crosspolytope_matches."""
    matches = _counts(matches, "matches")
    d, bits = _integer(d, "d"), _integer(bits, "bits")
    hashes = -1
    if 0 <= d <= 2**24 and 1 <= bits <= _MAX_BITS:
        from .sketch import crosspolytope_layout
        hashes = crosspolytope_layout(d, bits).hashes
    table = _table("crosspolytope_cosine", (d, bits), hashes) if hashes >= 0 else np.empty(0)
    return _lookup(table, matches)


def crosspolytope_matches_variance(d: int, bits: int, rho):
    """Var[matches](rho) = L p (1 - p) + [r > 0] p' (1 - p')."""
    return _elementwise(lambda r: lib.sketch_crosspolytope_matches_variance(_integer(d, "d"),
                                                                          _integer(bits, "bits"), r), rho)


def crosspolytope_cosine_variance(d: int, bits: int, rho):
    """Delta-method variance of the cross-polytope cosine estimate at the true cosine rho:
    Var[matches](rho) / (dE[matches]/drho)^2."""
    return _elementwise(lambda r: lib.sketch_crosspolytope_cosine_variance(_integer(d, "d"),
                                                                         _integer(bits, "bits"), r), rho)
