#!/usr/bin/python3
"""Write the seed corpora of the libFuzzer targets: tests/fuzz/corpus/<target>/.

    /usr/bin/python3 tests/fuzz/make_corpus.py [--make-ann build/sketchmm_make_ann]

Debian's /usr/bin/python3 with python3-h5py and python3-numpy (the HDF5 seeds).
Every seed is small (the corpora together stay under 200 KB) and deterministic:
running the script again rewrites the same bytes, except the ann-benchmarks file
written by sketchmm_make_ann (--make-ann), which only changes with the tool.
Each corpus holds valid inputs and near-valid ones the code must refuse; the
file names say which is which. The fuzz_api seeds follow the input layout that
fuzz_api.c's header comment and rd_* decoders describe (one call per seed).
"""
import argparse
import gzip
import json
import os
import random
import struct
import subprocess
import sys
import tempfile

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")


def out(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def gz(data):
    return gzip.compress(data, compresslevel=9, mtime=0)


# --------------------------------------------------------------------------
# fuzz_idx: IDX files, plain and gzipped
# --------------------------------------------------------------------------
def idx_images(count, rows, cols, pixels=None, extra=b""):
    head = struct.pack(">IIII", 0x803, count, rows, cols)
    if pixels is None:
        pixels = bytes((i * 37 + 11) % 256 for i in range(count * rows * cols))
    return head + pixels + extra


def idx_labels(count, labels=None, extra=b""):
    if labels is None:
        labels = bytes(i % 10 for i in range(count))
    return struct.pack(">II", 0x801, count) + labels + extra


def corpus_idx():
    t = "fuzz_idx"
    out(t, "valid-images-3x2x3.idx", idx_images(3, 2, 3))
    out(t, "valid-images-3x2x3.idx.gz", gz(idx_images(3, 2, 3)))
    out(t, "valid-images-2x28x28.idx.gz", gz(idx_images(2, 28, 28)))
    out(t, "valid-images-0x4x4-header-only.idx", idx_images(0, 4, 4))
    out(t, "valid-labels-7.idx", idx_labels(7))
    out(t, "valid-labels-7.idx.gz", gz(idx_labels(7)))
    out(t, "bad-images-truncated.idx", idx_images(3, 2, 3)[:-4])
    out(t, "bad-images-trailing-byte.idx", idx_images(3, 2, 3, extra=b"\x00"))
    out(t, "bad-images-huge-count-short-file.idx", idx_images(0x40000000, 16, 16, pixels=b"\x01" * 8))
    out(t, "bad-images-huge-count-short-file.idx.gz", gz(idx_images(0x40000000, 16, 16, pixels=b"\x01" * 8)))
    out(t, "bad-images-zero-width.idx", idx_images(2, 3, 0, pixels=b""))
    out(t, "bad-images-wrong-magic.idx", struct.pack(">IIII", 0x802, 1, 2, 2) + b"\x00" * 4)
    out(t, "bad-labels-huge-count.idx", idx_labels(0xFFFFFFFF, labels=b"\x02\x03"))
    good = bytearray(gz(idx_images(3, 2, 3)))
    good[-8] ^= 0x55  # the CRC-32 of the gzip trailer
    out(t, "bad-images-gzip-crc.idx.gz", bytes(good))
    out(t, "bad-images-gzip-truncated.idx.gz", gz(idx_images(3, 2, 3))[:-6])
    out(t, "bad-labels-two-gzip-members.idx.gz", gz(idx_labels(4)) + gz(b"\x01\x02"))


# --------------------------------------------------------------------------
# fuzz_h5_matrix and fuzz_ann: small HDF5 files (h5py, earliest file format:
# no metadata checksums, so mutations reach the parsers)
# --------------------------------------------------------------------------
def h5_bytes(fill):
    fd, path = tempfile.mkstemp(suffix=".h5")
    os.close(fd)
    try:
        with h5py.File(path, "w", libver="earliest", track_order=False) as f:
            fill(f)
        with open(path, "rb") as f:
            return f.read()
    finally:
        os.unlink(path)


def ds(f, name, data, **kw):
    kw.setdefault("track_times", False)
    return f.create_dataset(name, data=data, **kw)


def corpus_h5_matrix():
    t = "fuzz_h5_matrix"
    a = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5) / 4
    out(t, "valid-x-float32-3x4.h5", h5_bytes(lambda f: ds(f, "x", a)))
    out(t, "valid-x-float64-2x2.h5", h5_bytes(lambda f: ds(f, "x", np.array([[1.5, -2.0], [1e30, 0.0]]))))
    out(t, "bad-x-float64-beyond-float.h5", h5_bytes(lambda f: ds(f, "x", np.array([[1.0, 1e300]]))))
    out(t, "valid-x-int32-4x3.h5", h5_bytes(lambda f: ds(f, "x", np.arange(-6, 6, dtype=np.int32).reshape(4, 3))))
    out(t, "valid-x-uint8-5x2.h5", h5_bytes(lambda f: ds(f, "x", np.arange(10, dtype=np.uint8).reshape(5, 2))))
    out(t, "valid-x-int64-bigendian-2x3.h5",
        h5_bytes(lambda f: ds(f, "x", np.arange(6).reshape(2, 3).astype(">i8"))))
    out(t, "valid-x-float16-3x2.h5", h5_bytes(lambda f: ds(f, "x", np.ones((3, 2), dtype=np.float16))))
    out(t, "valid-x-chunked-gzip-6x5.h5",
        h5_bytes(lambda f: ds(f, "x", np.arange(30, dtype=np.float32).reshape(6, 5), chunks=(2, 5),
                              compression="gzip", shuffle=True)))
    out(t, "valid-g-x-nested-2x3.h5", h5_bytes(lambda f: ds(f, "g/x", np.ones((2, 3), dtype=np.float32))))
    out(t, "bad-x-1d.h5", h5_bytes(lambda f: ds(f, "x", np.arange(5, dtype=np.float32))))
    out(t, "bad-x-3d.h5", h5_bytes(lambda f: ds(f, "x", np.zeros((2, 2, 2), dtype=np.float32))))
    out(t, "bad-x-strings.h5", h5_bytes(lambda f: ds(f, "x", np.array([[b"ab", b"cd"]]))))
    out(t, "bad-x-compound.h5",
        h5_bytes(lambda f: ds(f, "x", np.zeros((2, 2), dtype=[("a", "<f4"), ("b", "<i4")]))))
    out(t, "bad-x-nan.h5", h5_bytes(lambda f: ds(f, "x", np.array([[1.0, np.nan]], dtype=np.float32))))
    out(t, "bad-x-empty-0x3.h5", h5_bytes(lambda f: ds(f, "x", np.zeros((0, 3), dtype=np.float32))))
    out(t, "bad-x-is-a-group.h5", h5_bytes(lambda f: f.create_group("x")))
    out(t, "bad-x-never-written-1000000x1000.h5",
        h5_bytes(lambda f: f.create_dataset("x", shape=(1000000, 1000), dtype=np.float32, chunks=(100, 100),
                                            track_times=False)))


def ann_fill(train, test, neighbors, distances, distance="dot", dimension="auto", fixed_string=True):
    """A benchmark file; a variable-length "distance" string costs a 4 KiB global heap, so most seeds use
    a fixed-length one."""
    def fill(f):
        ds(f, "train", train)
        ds(f, "test", test)
        ds(f, "neighbors", neighbors)
        ds(f, "distances", distances)
        if distance is not None:
            f.attrs["distance"] = np.bytes_(distance) if fixed_string else distance
        if dimension is not None:
            f.attrs["dimension"] = train.shape[1] if dimension == "auto" else dimension
    return fill


def corpus_ann(make_ann):
    t = "fuzz_ann"
    rng = np.random.default_rng(5)
    train = rng.integers(-8, 8, size=(6, 3)).astype(np.float32) / 4
    test = rng.integers(-8, 8, size=(2, 3)).astype(np.float32) / 4
    ip = test @ train.T
    nb = np.argsort(-ip, axis=1, kind="stable")[:, :2].astype(np.int32)
    dist = np.take_along_axis(ip, nb, axis=1).astype(np.float32)
    out(t, "valid-float32-int32-dot-vlen-string.h5", h5_bytes(ann_fill(train, test, nb, dist, fixed_string=False)))
    out(t, "valid-float32-int32-dot.h5", h5_bytes(ann_fill(train, test, nb, dist)))
    out(t, "valid-float64-int64-angular.h5",
        h5_bytes(ann_fill(train.astype(np.float64), test.astype(np.float64), nb.astype(np.int64), dist,
                          distance="angular")))
    out(t, "valid-no-attributes.h5", h5_bytes(ann_fill(train, test, nb, dist, distance=None, dimension=None)))
    out(t, "bad-k-larger-than-train.h5",
        h5_bytes(ann_fill(train[:1], test, nb, dist)))
    bad_nb = nb.copy()
    bad_nb[1, 1] = 6
    out(t, "bad-neighbor-out-of-range.h5", h5_bytes(ann_fill(train, test, bad_nb, dist)))
    bad_dist = dist.copy()
    bad_dist[0, 0] = np.inf
    out(t, "bad-distance-inf.h5", h5_bytes(ann_fill(train, test, nb, bad_dist)))
    out(t, "bad-dimension-attribute.h5", h5_bytes(ann_fill(train, test, nb, dist, dimension=4)))
    out(t, "bad-neighbors-float.h5", h5_bytes(ann_fill(train, test, nb.astype(np.float32), dist)))

    def no_distances(f):
        ds(f, "train", train)
        ds(f, "test", test)
        ds(f, "neighbors", nb)
    out(t, "bad-missing-distances.h5", h5_bytes(no_distances))
    if make_ann:
        fd, path = tempfile.mkstemp(suffix=".h5")
        os.close(fd)
        try:
            subprocess.run([make_ann, "--source", "digits", "--train-rows", "12", "--test-rows", "2", "--topk", "3",
                            "--out", path], check=True, stdout=subprocess.DEVNULL)
            with open(path, "rb") as f:
                out(t, "valid-sketchmm-make-ann-digits.h5", f.read())
        finally:
            os.unlink(path)


# --------------------------------------------------------------------------
# fuzz_spec: JSON specs (the fixture file is written by fuzz_spec itself)
# --------------------------------------------------------------------------
FIXTURE = "/tmp/sketchmm_fuzz_spec.h5"


def corpus_spec():
    t = "fuzz_spec"
    with open(os.path.join(HERE, "..", "..", "experiments", "specs", "default.json"), "rb") as f:
        out(t, "valid-default.json", f.read())

    def spec(name, obj):
        out(t, name, json.dumps(obj, separators=(", ", ": ")).encode())
    spec("valid-dense-gaussian.json", {"mode": "dense", "datasets": ["gaussian"], "k": 16, "shapes": ["8x6"],
                                        "methods": ["simhash", "srht"], "bits": [64], "sketch_dims": [4],
                                        "seeds": [1, 2], "threads": [1], "reps": 1, "warmup": 0})
    spec("valid-topk-clustered.json", {"mode": "topk", "datasets": ["clustered"], "k": 8, "alignment": 0.5,
                                        "clusters": 3, "topk_shapes": ["4x30"], "topk": 2, "candidates": [2, 10, 30],
                                        "methods": ["crosspolytope", "countsketch"], "topk_bits": [32],
                                        "topk_sketch_dims": [8], "topk_reps": 1,
                                        "topk_sizes": {"countsketch": [4, 16]}})
    spec("valid-both-lowrank-sizes.json", {"mode": "both", "datasets": ["lowrank", "gaussian"], "k": 12, "rank": 3,
                                            "noise": 0.25, "shapes": ["4x4", "3x5"], "topk_shapes": ["2x9"],
                                            "topk": 3, "candidates": [3], "methods": ["simhash_structured",
                                                                                      "cr_sampling"],
                                            "sizes": {"simhash_structured": [16, 128]}, "sketch_dims": [2],
                                            "seeds": [18446744073709551615]})
    spec("valid-ann-fixture.json", {"mode": "both", "datasets": ["ann:" + FIXTURE], "shapes": ["10x20"],
                                     "topk_shapes": ["8x40"], "topk": 5, "candidates": [5, 20],
                                     "methods": ["simhash"], "bits": [64]})
    spec("valid-h5-fixture-train.json", {"mode": "dense", "datasets": [FIXTURE + ":/train"], "shapes": ["20x20"],
                                          "methods": ["gaussian_projection"], "sketch_dims": [8]})
    spec("bad-h5-fixture-too-many-rows.json", {"mode": "dense", "datasets": [FIXTURE + ":/train"],
                                                "shapes": ["30x20"], "methods": ["srht"]})
    spec("bad-unknown-key.json", {"mode": "dense", "method": ["simhash"]})
    spec("bad-k-for-fashion-mnist.json", {"k": 64})
    spec("bad-empty-list.json", {"bits": []})
    spec("bad-topk-above-database.json", {"mode": "topk", "datasets": ["gaussian"], "topk_shapes": ["2x4"],
                                          "topk": 5})
    spec("bad-wrong-type.json", {"seeds": "42"})
    spec("bad-missing-file.json", {"datasets": ["ann:/nonexistent/sketchmm.h5"]})
    spec("bad-size-out-of-range.json", {"mode": "dense", "datasets": ["gaussian"], "bits": [65536]})
    out(t, "bad-duplicate-key.json", b'{"mode": "dense", "mode": "topk"}')
    out(t, "bad-trailing-text.json", b'{"mode": "dense"} x')
    out(t, "bad-truncated.json", b'{"mode": "dense", "shapes": ["4x')
    out(t, "bad-escapes-and-nesting.json", b'{"sizes": {"simhash": [1], "srh\\u0074": [[2]]}, "m\\u006fde": "both"}')


# --------------------------------------------------------------------------
# fuzz_api: one call per seed (layout: fuzz_api.c)
# --------------------------------------------------------------------------
OPS = ["exact_sgemm", "approx_sgemm", "approx_plan", "exact_topk", "approx_topk", "sketch_encode", "hamming",
       "hamming_topk", "cp_matches", "unary", "brgemm", "mat4", "matrix_alloc", "sketch_misc"]
ISA = {"auto": 0, "scalar": 1, "avx2": 2, "avx512": 3}
LAYOUT = {"row": 0, "col": 1, "bad": 6}
TRANS = {"n": 0, "t": 1, "bad": 6}
SCALAR = {1.0: 0, 0.0: 1, -1.0: 2, 2.0: 3, 0.5: 4, -0.5: 5, 0.25: 6, 3.0: 7, -2.0: 8, "nan": 14, "inf": 15}
METHOD = {"simhash": 0, "simhash_orthogonal": 1, "simhash_structured": 2, "crosspolytope": 3,
          "gaussian_projection": 4, "srht": 5, "countsketch": 6, "cr_sampling": 7, "bad": 12}
BITS = {1: 0, 2: 1, 3: 2, 7: 3, 63: 4, 64: 5, 65: 6, 100: 7, 128: 8, 256: 9, 511: 10, 65535: 11, 1024: 12, 0: 13,
        -1: 14, 65536: 15}
SDIM = {1: 0, 2: 1, 3: 2, 4: 3, 7: 4, 8: 5, 16: 6, 17: 7, 32: 8, 64: 9, 100: 10, 1000: 11, 4096: 12, 0: 13, -1: 14,
        "over": 15}
THREADS = {0: 0, 1: 1, -1: 6, 4097: 7}
CAND = {"default": 0, "n": 4, "topk": 5, "topk-1": 6, "n+1": 7, -1: 8}
SMALL = {1: 0, 2: 1, 3: 2, "n": 4, "n+1": 5, 0: 6, -1: 7}
WIDE = [31, 32, 33, 47, 63, 64, 65, 100, 127, 128, 129, 200, 255, 256, 257, 300]
NEG = [-1, -2, -17]
HUGE = 0xF0  # 2^61


def dim(v):
    """rd_dim (and rd_dim_wide for the WIDE values); "neg" / "huge" for the bad ones."""
    if v == "neg":
        return 0xE0
    if v == "huge":
        return HUGE
    if 0 <= v <= 17:
        return v
    return 0xD0 + WIDE.index(v)


def ld(v=0):
    """rd_ld: the smallest valid plus v (0..3), or "less" (one too small), "zero", "neg", "huge"."""
    return {"less": 0xC0, "zero": 0xD0, "neg": 0xE0, "huge": 0xF0}.get(v, v)


def words(v):
    return {0: 0xE0, -1: 0xE1, 1023: 0xE2, 1024: 0xE3, 1025: 0xE4}.get(v, v - 1 if 1 <= v <= 17 else None)


def opts(method, bits=64, sdim=8, seed=0, threads=0, cand="default", null=False):
    return [15 if null else 0, METHOD[method], BITS[bits], SDIM[sdim], seed, THREADS[threads], CAND[cand]]


def gemm(layout="row", ta="n", tb="n", m=3, n=4, k=5, lda=0, ldb=0, ldc=0, alpha=1.0, beta=0.0, null=None,
         inject=None, where=0):
    a = [LAYOUT[layout], TRANS[ta], TRANS[tb], dim(m), dim(n), dim(k), ld(lda), ld(ldb), ld(ldc), SCALAR[alpha],
         SCALAR[beta]]
    a += [7, {"A": 0, "B": 1, "C": 2}[null]] if null else [0]
    a += [11, {"A": 0, "B": 1}[inject]] if inject else [0]
    return a + [where, 0]


def topk(k=2, ldk=0, null=None):
    return [SMALL[k], ld(ldk)] + ([7, {"idx": 0, "val": 1}[null]] if null else [0])


def api_seed(name, op, isa, args, nvalues=96, seed=0):
    assert all(0 <= b <= 255 for b in args), (name, args)
    assert len(args) <= 62, (name, len(args))
    rnd = random.Random(seed * 7919 + len(name))
    values = bytes(rnd.randrange(256) for _ in range(nvalues))
    out("fuzz_api", name, bytes([OPS.index(op), ISA[isa]]) + bytes(args) + bytes(62 - len(args)) + values)


def corpus_api():
    s = api_seed
    s("exact_sgemm-row-nn", "exact_sgemm", "auto", gemm())
    s("exact_sgemm-col-tt-beta-ld-pad", "exact_sgemm", "avx2", gemm("col", "t", "t", 7, 5, 9, 1, 2, 3, 2.0, -1.0))
    s("exact_sgemm-scalar-17", "exact_sgemm", "scalar", gemm("row", "t", "n", 17, 17, 17, beta=0.5), nvalues=400)
    s("exact_sgemm-bad-ldc", "exact_sgemm", "avx512", gemm(ldc="less"))
    s("exact_sgemm-null-B", "exact_sgemm", "auto", gemm(null="B"))
    s("exact_sgemm-k0-alpha", "exact_sgemm", "auto", gemm(k=0, beta=2.0))
    s("exact_sgemm-huge-m", "exact_sgemm", "auto", gemm(m="huge"))
    for i, meth in enumerate(METHOD):
        if meth == "bad":
            continue
        s("approx_sgemm-" + meth, "approx_sgemm", ["auto", "scalar", "avx2", "avx512"][i % 4],
          opts(meth, bits=[64, 100, 128, 65][i % 4], sdim=[4, 8, 17, 3][i % 4], seed=i) +
          gemm(["row", "col"][i % 2], ["n", "t"][i % 2], ["t", "n"][i % 2], 5 + i % 3, 6, 7, beta=[0.0, 1.0][i % 2]),
          seed=i)
    s("approx_sgemm-defaults", "approx_sgemm", "auto", opts("simhash", null=True) + gemm())
    s("approx_sgemm-bad-bits", "approx_sgemm", "auto", opts("simhash", bits=0) + gemm())
    s("approx_sgemm-nan-in-A", "approx_sgemm", "auto", opts("srht", sdim=4) + gemm(inject="A"))
    s("approx_sgemm-bad-threads", "approx_sgemm", "auto", opts("countsketch", threads=-1) + gemm())
    for i, meth in enumerate(["simhash_structured", "crosspolytope", "cr_sampling", "gaussian_projection"]):
        s("approx_plan-" + meth, "approx_plan", ["avx512", "avx2", "scalar", "auto"][i],
          opts(meth, bits=[128, 64, 64, 64][i], sdim=[8, 8, 7, 16][i], cand=["n", "default", "topk", "default"][i]) +
          [0] + gemm(["row", "col"][i % 2], "n", ["t", "n"][i % 2], 4, 9, 6, beta=1.0) + topk(2), seed=i)
    s("approx_plan-bad-candidates", "approx_plan", "auto",
      opts("simhash", cand="topk-1") + [0] + gemm(m=3, n=8, k=4) + topk(3))
    s("exact_topk-row-ties", "exact_topk", "auto", opts("simhash") + gemm("row", "n", "t", 5, 11, 2) + topk(3),
      nvalues=8)
    s("exact_topk-col", "exact_topk", "avx2", opts("simhash") + gemm("col", "t", "n", 4, 7, 6) + topk("n", 1))
    s("exact_topk-bad-topk", "exact_topk", "auto", opts("simhash") + gemm() + topk("n+1"))
    s("approx_topk-simhash-all-candidates", "approx_topk", "auto",
      opts("simhash", bits=128, cand="n") + gemm("row", "n", "t", 6, 12, 8) + topk(3))
    s("approx_topk-srht", "approx_topk", "scalar",
      opts("srht", sdim=16) + gemm("col", "n", "n", 3, 10, 5) + topk(2, 2))
    for i, fam in enumerate(range(4)):
        s("sketch_encode-family%d" % fam, "sketch_encode", ["auto", "avx2", "scalar", "avx512"][i],
          [fam, LAYOUT[["row", "col"][i % 2]], dim(5), dim(9 + i), ld(i % 2), BITS[[64, 100, 7, 65][i]], i, ld(0),
           0, 1, 0, 0, 0], seed=i)
    s("sketch_encode-zero-vector", "sketch_encode", "auto", [0, 0, dim(3), dim(4), 0, BITS[128], 1, 1, 0, 3, 0, 0, 0])
    s("sketch_encode-nan", "sketch_encode", "auto", [2, 0, dim(3), dim(4), 0, BITS[64], 1, 0, 0, 0, 11, 5, 0])
    s("sketch_encode-bad-ldcodes", "sketch_encode", "auto", [3, 1, dim(2), dim(6), 0, BITS[511], 0, ld("less"), 0, 0,
                                                               0, 0, 0])
    s("hamming-u32", "hamming", "auto", [0, dim(5), dim(7), words(3), 0, 1, 2, 0, 1], nvalues=300)
    s("hamming-u16-sparse", "hamming", "avx2", [1, dim(9), dim(4), words(1), 0, 0, 0, 0, 0])
    s("hamming-u16-too-many-words", "hamming", "auto", [1, dim(2), dim(2), words(1024), 0, 0, 0, 0, 0])
    s("hamming_topk", "hamming_topk", "auto", [dim(6), dim(13), words(2), SMALL[3], 0, 0, 1, 0, 0], nvalues=300)
    s("hamming_topk-dense", "hamming_topk", "avx512", [dim(3), dim(17), words(17), SMALL["n"], 0, 1, 0, 0, 1],
      nvalues=2000)
    s("hamming_topk-bad-k", "hamming_topk", "auto", [dim(3), dim(4), words(1), SMALL["n+1"], 0, 0, 0, 0, 0])
    s("cp_matches", "cp_matches", "auto", [dim(9), BITS[100], dim(4), dim(6), 0, 0, 0, 0, 1], nvalues=400)
    s("cp_matches-small-hash", "cp_matches", "scalar", [dim(3), BITS[7], dim(5), dim(5), 1, 0, 2, 0, 0])
    for i, (op, tr) in enumerate([(1, "n"), (2, "t"), (0, "n"), (2, "n"), (1, "t")]):
        s("unary-%d-%s" % (op, tr), "unary", ["auto", "avx2", "scalar", "avx512", "auto"][i],
          [op, LAYOUT[["row", "col"][i % 2]], TRANS[tr], dim([5, 17, 3, 33, 64][i]), dim([7, 9, 2, 65, 17][i]), i % 4,
           (i + 1) % 4, 0, i % 2, 0, 0, 0], nvalues=[100, 200, 20, 2000, 1500][i], seed=i)
    s("unary-relu-in-place", "unary", "auto", [2, 0, 0, dim(6), dim(6), 0, 0, 0, 1, 5, 0, 3])
    s("unary-identity-overlap", "unary", "auto", [1, 0, 1, dim(4), dim(4), 0, 0, 0, 0, 5, 1, 3])
    s("unary-bad-op", "unary", "auto", [6, 0, 0, dim(2), dim(2), 0, 0, 0, 0, 0, 0, 0])
    for i, kind in enumerate([0, 1, 2, 0]):
        s("brgemm-kind%d-%d" % (kind, i), "brgemm", ["auto", "avx2", "avx512", "scalar"][i],
          [LAYOUT[["col", "row"][i % 2]], dim([8, 13, 64, 3][i]), dim([6, 4, 6, 17][i]), dim([4, 1, 16, 5][i]),
           i % 3, 0, 1, 0, [0, 6, 4, 7][i], SCALAR[[1.0, 2.0, -1.0, 0.5][i]], SCALAR[[0.0, 1.0, 0.5, 0.0][i]],
           [1, 2, 3, 3][i], kind, 0], nvalues=600, seed=i)
    s("brgemm-negative-stride", "brgemm", "auto", [1, dim(4), dim(4), dim(4), 0, 0, 0, 9, 0, 0, 1, 1, 0, 0])
    s("brgemm-batch0-null-A", "brgemm", "auto", [1, dim(4), dim(3), dim(2), 0, 0, 0, 0, 0, 0, 0, 4, 0, 9, 2])
    for sub in range(12):
        s("mat4-sub%d" % sub, "mat4", ["auto", "scalar", "avx2", "avx512"][sub % 4],
          [sub] + ([[0, 1, 2, 3][sub % 4]] if sub >= 6 else []) + [0, [0, 3][sub % 2], 0], nvalues=400, seed=sub)
    s("mat4-inv-f64-singular", "mat4", "auto", [4, 0, 3, 0])
    s("matrix_alloc-row", "matrix_alloc", "auto", [0, dim(5), dim(300), 0])
    s("matrix_alloc-col-256x3", "matrix_alloc", "auto", [1, dim(256), dim(3), 0])
    s("matrix_alloc-huge", "matrix_alloc", "auto", [0, dim("huge"), dim(3), 0])
    s("sketch_misc-hyperplanes", "sketch_misc", "auto", [0, BITS[100], dim(7), 1, 2, ld(1), 0])
    s("sketch_misc-code-words", "sketch_misc", "auto", [1, BITS[511], dim(17), 3, 0])
    s("sketch_misc-simhash-estimates", "sketch_misc", "auto", [2, BITS[64], dim(3), SMALL[3], 17])
    s("sketch_misc-cp-estimates", "sketch_misc", "auto", [3, BITS[65], dim(9), SMALL[2], 20])


# --------------------------------------------------------------------------
# fuzz_tuning: tuning files (exact/tuning_file.h). Their checksum line is a
# placeholder: fuzz_tuning parses every input a second time with the right
# checksum in its place, which is where these seeds are accepted.
# --------------------------------------------------------------------------
TUNING_SIGNATURE = ("library 0.3.0\ncpu AuthenticAMD 25 17 1\nfeatures avx2 avx512 vpopcntdq vbmi vnni bf16\n"
                    "caches 32768 8 64 1048576 8 64 33554432 16 64\n")


def tuning_section(path, kernel, kc=256, mc=(480, 480), nc=(4096, 4096), split=("auto", "rows"), prefetch=(16, 8),
                   sup=4096000, topk=(256, 2048), mat4=None, measured="kernel 1.05x at 1024"):
    mat4 = mat4 or [path] * 4
    return ("path %s\nkernel %s\nkc %d\nmc %d %d\nnc %d %d\nsplit %s %s\nprefetch %d %d\nsup_max_macs %d\n"
            "topk_block %d %d\nmat4 %s\nmeasured %s\n" % (path, kernel, kc, mc[0], mc[1], nc[0], nc[1], split[0],
                                                          split[1], prefetch[0], prefetch[1], sup, topk[0], topk[1],
                                                          " ".join(mat4), measured))


def corpus_tuning():
    t = "fuzz_tuning"
    head = "sketchmm-tuning 1\n# written by sketchmm_tune\n" + TUNING_SIGNATURE
    end = "checksum 0000000000000000\n"
    avx512 = tuning_section("avx512", "avx512_6x64", kc=256, mc=(240, 480), nc=(8192, 4096),
                            mat4=["avx2", "avx2", "avx512", "avx512"])
    out(t, "valid-avx512.txt", (head + avx512 + end).encode())
    out(t, "valid-scalar-avx2.txt", (head + tuning_section("scalar", "scalar_4x8", sup=0) +
                                     tuning_section("avx2", "avx2_fma_4x24", mc=(256, 128), nc=(2400, 2400),
                                                    split=("columns", "auto"))
                                     + end).encode())
    out(t, "valid-neon.txt", (head + tuning_section("neon", "neon_12x8", mc=(192, 96), nc=(4096, 4096), sup=0)
                              + end).encode())
    out(t, "bad-kc-zero.txt", (head + avx512.replace("kc 256", "kc 0") + end).encode())
    out(t, "bad-duplicate-key.txt", (head + avx512 + "kc 128\n" + end).encode())
    out(t, "bad-unknown-kernel.txt", (head + avx512.replace("avx512_6x64", "avx512_99x99") + end).encode())
    out(t, "bad-truncated.txt", (head + avx512)[:-60].encode())
    out(t, "bad-crlf.txt", (head + avx512 + end).replace("\n", "\r\n").encode())
    out(t, "bad-no-signature.txt", ("sketchmm-tuning 1\n" + avx512 + end).encode())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--make-ann", help="sketchmm_make_ann, for a benchmark file written by the library")
    args = ap.parse_args()
    corpus_idx()
    corpus_h5_matrix()
    corpus_ann(args.make_ann)
    corpus_spec()
    corpus_api()
    corpus_tuning()
    total = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(CORPUS) for f in fs)
    print("make_corpus: %d bytes in %s" % (total, CORPUS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
