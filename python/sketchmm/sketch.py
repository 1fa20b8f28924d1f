"""Sketches of vectors and the kernels on them (sketch.h): sketch(), Hamming distances, Hamming
top-k, cross-polytope match counts, SimHash hyperplanes.

SimHash (random hyperplanes): bit b of the code of x is 1 exactly when <x, g_b> > 0,
g_b the b-th Gaussian hyperplane of the seed. For two vectors at angle theta each
bit differs with probability theta / pi, so the Hamming distance h over `bits` bits
gives the unbiased angle estimate pi h / bits (variance theta (pi - theta) / bits)
and the cosine estimate cos(pi h / bits) (sketchmm.estimators).

Code layout: a code of `bits` bits is ceil(bits / 64) uint64 words (cross-polytope:
code_words() words of fields that never straddle a word); bit b in word b / 64 at
position b % 64; unused high bits 0. A set of n codes is an n x words uint64 array,
one code per row. Codes depend only on (family, vectors, bits, seed): bit-identical
for every thread count, ISA path and layout, on every IEEE-754 platform.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _arrays
from ._gemm import TopK, check_values
from ._lib import ffi, lib
from ._methods import method_value
from .approx import DEFAULT_SEED
from .errors import InvalidArgumentError, ShapeError, check

__all__ = ["sketch", "code_words", "hamming", "hamming_topk", "crosspolytope_layout", "crosspolytope_matches",
           "simhash_hyperplanes", "CrossPolytopeLayout"]

_MAX_BITS = 65535


def _bits(bits):
    return _arrays.integer(bits, "bits", 1, _MAX_BITS)


def code_words(family: str, d: int, bits: int) -> int:
    """The uint64 words one code of `family` takes for vectors of dimension d and `bits` bits
    (SimHash families: ceil(bits / 64))."""
    words = ffi.new("int64_t *")
    check(lib.sketch_code_words(method_value(family, codes_only=True), _arrays.integer(d, "d", 0, 2**62),
                                _bits(bits), words), "sketch_code_words")
    return int(words[0])


def sketch(X, family: str = "simhash", bits: int = 256, seed: int = DEFAULT_SEED) -> tuple[np.ndarray, np.ndarray]:
    """Codes and norms of the rows of X (n x d): (codes uint64 n x words, norms float32 n).

    family: "simhash" (dense Gaussian hyperplanes, 2 bits d flops per vector),
    "simhash_orthogonal" (the hyperplanes orthonormalised in blocks of min(d, bits):
    variance at most SimHash's), "simhash_structured" (3 rounds of random signs and
    Walsh-Hadamard transform of x zero-padded to a power of two, O(d log d)) or
    "crosspolytope" (index and sign of the largest coordinate of such rotations,
    fields of log2(D) + 1 bits; crosspolytope_layout describes them).
    norms[i] = ||x_i||_2 (accumulated in double, rounded to float). A zero vector gets
    the all-zero code and norm 0. X in C or Fortran order is read without a copy.
    Raises NonFiniteError for NaN or Inf in X (or a norm overflowing float32).
    """
    method = method_value(family, codes_only=True)
    X, layout, ldx = _arrays.matrix(X, "X")
    n, d = X.shape
    words = code_words(family, d, bits)
    codes = np.zeros((n, words), dtype=np.uint64)
    norms = np.zeros(n, dtype=np.float32)
    status = lib.sketch_encode(method, layout, n, d, _arrays.pointer(X), ldx, bits,
                               _arrays.integer(seed, "seed", 0, 2**64 - 1),
                               _arrays.pointer(codes, "uint64_t *"), words, _arrays.pointer(norms))
    check_values(status, "sketch", X=X)
    return codes, norms


def _codes(x, name):
    """A 2-D uint64 code array whose rows the library reads in place (row stride >= words): (array, ld)."""
    x = _arrays.array(x, name, dtype=np.uint64)
    found = _arrays.storage(x)
    if found is None or (found[0] != _arrays.ROW and x.shape[0] > 1):
        x = _arrays.convert(x, np.uint64)
        found = _arrays.storage(x)
    return x, found[1]


def _code_pair(a, b):
    a, lda = _codes(a, "a")
    b, ldb = _codes(b, "b")
    if a.shape[1] != b.shape[1]:
        raise ShapeError(f"codes of a have {a.shape[1]} words and codes of b {b.shape[1]}; they must match")
    return a, lda, b, ldb


def hamming(a, b, dtype=np.uint32, out: np.ndarray | None = None) -> np.ndarray:
    """All-pairs Hamming distances: dist[i, j] = popcount(a_i xor b_j) over the words of the codes
    (rows of a: na x words, rows of b: nb x words, uint64). dtype uint32, or uint16 (half the memory
    traffic; codes of at most 1023 words). out: a C-ordered (na, nb) array of that dtype, else new."""
    a, lda, b, ldb = _code_pair(a, b)
    na, words = a.shape
    nb = b.shape[0]
    dtype = np.dtype(dtype)
    if dtype == np.uint32:
        function, ctype = lib.sketch_hamming_u32, "uint32_t *"
    elif dtype == np.uint16:
        function, ctype = lib.sketch_hamming_u16, "uint16_t *"
    else:
        raise InvalidArgumentError(f"dtype must be uint32 or uint16, got {dtype}")
    if out is None:
        out = np.empty((na, nb), dtype=dtype)
    else:
        _arrays.output(out, "out", (na, nb), dtype)
    found = _arrays.storage(out)
    if found is None or (found[0] != _arrays.ROW and na > 1):
        raise ShapeError("hamming: out must be row-major (C order, or rows of a wider C array)")
    status = function(na, _arrays.pointer(a, "uint64_t *"), lda, nb, _arrays.pointer(b, "uint64_t *"), ldb,
                      words, _arrays.pointer(out, ctype), found[1])
    check(status, "hamming")
    return out


def hamming_topk(a, b, k: int = 10) -> TopK:
    """The k codes of b nearest to each code of a in Hamming distance, without forming the distance
    matrix: TopK(values = distances uint32 na x k, indices int64 na x k), row i sorted by (distance,
    index). 1 <= k <= nb; codes of 1..1024 words."""
    a, lda, b, ldb = _code_pair(a, b)
    na, words = a.shape
    nb = b.shape[0]
    k = _arrays.integer(k, "k", 1, max(1, nb))
    idx = np.empty((na, k), dtype=np.int64)
    dist = np.empty((na, k), dtype=np.uint32)
    status = lib.sketch_hamming_topk(na, _arrays.pointer(a, "uint64_t *"), lda, nb, _arrays.pointer(b, "uint64_t *"),
                                     ldb, words, k, _arrays.pointer(idx, "int64_t *"),
                                     _arrays.pointer(dist, "uint32_t *"), k)
    check(status, "hamming_topk")
    return TopK(dist, idx)


class CrossPolytopeLayout(NamedTuple):
    """The shape of a cross-polytope code (sketch_cp_layout)."""
    dim: int              #: D = smallest power of two >= max(d, 2)
    width: int            #: w = log2(D) + 1 bits per full hash
    full_hashes: int      #: L = bits // w
    last_width: int       #: r = bits % w: bits of the small last hash (0: none)
    last_dim: int         #: D' = 2^(r-1) when r > 0, else 0
    hashes: int           #: L + (r > 0) hashes per code
    fields_per_word: int  #: 64 // w
    words: int            #: uint64 words per code


def crosspolytope_layout(d: int, bits: int) -> CrossPolytopeLayout:
    """The field layout of cross-polytope codes for dimension d (<= 2^24) and `bits` bits: L = bits // w
    full hashes of dimension D (hash = index of the largest |coordinate| of an HD-rotation, + D when it
    is negative) and, when r = bits % w > 0, one hash of dimension 2^(r-1)."""
    layout = ffi.new("sketch_cp_layout *")
    check(lib.sketch_crosspolytope_layout(_arrays.integer(d, "d", 0, 2**62), _bits(bits), layout),
          "crosspolytope_layout")
    return CrossPolytopeLayout(*(int(getattr(layout, f)) for f in CrossPolytopeLayout._fields))


def crosspolytope_matches(a, b, d: int, bits: int) -> np.ndarray:
    """All-pairs counts of equal hashes between cross-polytope codes (of dimension d and `bits` bits):
    matches[i, j] = number of hashes equal in a_i and b_j, 0..hashes (uint16, na x nb). Exact integers;
    sketchmm.estimators.crosspolytope_cosine_estimate turns them into cosines."""
    a, lda, b, ldb = _code_pair(a, b)
    d = _arrays.integer(d, "d", 0, 2**62)
    bits = _bits(bits)
    words = crosspolytope_layout(d, bits).words
    if a.shape[1] != words:
        raise ShapeError(f"cross-polytope codes of d = {d}, bits = {bits} have {words} words; a and b have "
                         f"{a.shape[1]}")
    na, nb = a.shape[0], b.shape[0]
    out = np.empty((na, nb), dtype=np.uint16)
    status = lib.sketch_crosspolytope_matches(d, bits, na, _arrays.pointer(a, "uint64_t *"), lda, nb,
                                              _arrays.pointer(b, "uint64_t *"), ldb,
                                              _arrays.pointer(out, "uint16_t *"), max(1, nb))
    check(status, "crosspolytope_matches")
    return out


def simhash_hyperplanes(bits: int, d: int, seed: int = DEFAULT_SEED) -> np.ndarray:
    """The `bits` Gaussian hyperplanes of `seed` in dimension d (bits x d, float32): entry (b, t) is
    the standard-normal quantile of a uniform drawn by XXH3 from (b, t, seed), independent of d and of
    the other entries; finite, nonzero and below 8.3 in magnitude."""
    bits = _bits(bits)
    d = _arrays.integer(d, "d", 0, 2**62)
    G = np.empty((bits, d), dtype=np.float32)
    check(lib.sketch_simhash_hyperplanes(bits, d, _arrays.integer(seed, "seed", 0, 2**64 - 1),
                                         _arrays.pointer(G), max(1, d)), "simhash_hyperplanes")
    return G
