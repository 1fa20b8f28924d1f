"""Runtime controls, version, kernel names, help() and the C declarations against the headers."""

import os
import pydoc
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from conftest import REPO, assert_product

import sketchmm
from sketchmm import _cdef


def test_version_matches_the_header():
    header = open(os.path.join(REPO, "include", "sketchmm", "common.h")).read()
    parts = [re.search(rf"#define SKETCHMM_VERSION_{p} (\d+)", header).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
    assert sketchmm.version() == ".".join(parts) == sketchmm.__version__
    assert sketchmm.version_number() == int(parts[0]) * 10000 + int(parts[1]) * 100 + int(parts[2])


def test_isa_selection(rng):
    supported = sketchmm.supported_isas()
    assert "scalar" in supported and sketchmm.isa() in supported
    A = rng.standard_normal((30, 50)).astype(np.float32)
    try:
        for name in supported:
            sketchmm.set_isa(name)
            assert sketchmm.isa() == name
            names = sketchmm.kernel_names()
            assert set(names) == {"exact", "hamming", "crosspolytope", "unary", "mat4"}
            assert all(isinstance(v, str) and v for v in names.values())
            if name == "scalar":
                assert all(v.startswith("scalar") for v in names.values())
            assert_product(sketchmm.matmul(A, A.T), A, A.T)
    finally:
        sketchmm.set_isa("auto")


def test_threads(rng):
    default = sketchmm.num_threads()
    A = rng.standard_normal((300, 200)).astype(np.float32)
    want = sketchmm.matmul(A, A.T)
    try:
        sketchmm.set_num_threads(1)
        assert sketchmm.num_threads() == 1
        np.testing.assert_array_equal(sketchmm.matmul(A, A.T), want)  # bit-identical for every thread count
    finally:
        sketchmm.set_num_threads(0)
    assert sketchmm.num_threads() == default


def test_help_is_useful():
    text = pydoc.render_doc(sketchmm, renderer=pydoc.plaintext)
    for name in ("matmul", "approx_matmul", "Plan", "exact_topk", "sketch", "hamming", "brgemm", "mat4_inv",
                 "set_isa", "load_results", "NonFiniteError", "alpha * A @ B + beta * C"):
        assert name in text, name
    for name in sketchmm.__all__:
        obj = getattr(sketchmm, name)
        if callable(obj):
            assert obj.__doc__ and len(obj.__doc__) > 40, name


def _declarations(text):
    """name -> normalised declaration of every function in C text (SMM_API and comments removed)."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S).replace("SMM_API", " ")
    text = re.sub(r"^\s*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)  # preprocessor lines
    found = {}
    for ret, name, args in re.findall(r"([A-Za-z_][\w \*]*?[\s\*])(\w+)\s*\(([^;{]*?)\)\s*;", text):
        ret = " ".join(ret.replace("*", " * ").split())
        args = " ".join(args.replace("*", " * ").replace(",", " , ").split())
        found[name] = f"{ret} {name}({args})".replace("* ", "*").replace(" ,", ",")
    return found


def test_cdef_matches_the_headers():
    headers = ""
    for name in sorted(os.listdir(os.path.join(REPO, "include", "sketchmm"))):
        headers += open(os.path.join(REPO, "include", "sketchmm", name)).read()
    in_headers = _declarations(headers)
    in_cdef = _declarations(_cdef.CDEF)
    assert in_cdef, "no declarations parsed"
    for name, decl in in_cdef.items():
        assert in_headers.get(name) == decl, f"{name}: cdef {decl!r}, header {in_headers.get(name)!r}"
    # the constants the cdef repeats have the headers' values
    defines = re.findall(r"^#define (\w+) (\d+)$", _cdef.CDEF, re.M)
    assert len(defines) >= 4, defines
    for name, value in defines:
        found = re.search(rf"#define {name} (.+)", headers)
        assert found, name
        text = re.sub(r"(\d+)[uU]\b", r"\1", found.group(1).split("/*")[0])  # "(1 << 20)", "1u"
        assert eval(text, {}) == int(value), (name, found.group(1), value)
    # numpy allocates (zeros_padded); sketch_encode(SKETCH_SIMHASH, ...) is sketch_simhash_encode
    not_bound = {"exact_matrix_alloc", "exact_matrix_free", "sketch_simhash_encode"}
    assert set(in_headers) - set(in_cdef) <= not_bound, set(in_headers) - set(in_cdef) - not_bound


def test_package_docstring_example_runs():
    block = next(p for p in sketchmm.__doc__.split("\n\n") if p.lstrip().startswith("import numpy"))
    scope = {}
    exec(textwrap.dedent(block), scope)
    assert scope["C"].shape == scope["E"].shape == (2000, 3000)
    assert scope["idx"].shape == (2000, 10) and scope["plan"].closed


def test_exit_while_openmp_threads_spin():
    """The interpreter exits cleanly while the library's OpenMP workers still spin (OMP_WAIT_POLICY=active,
    common on clusters): the library stays loaded for the life of the process (RTLD_NODELETE and
    -z nodelete), so teardown never unmaps the code they run. Crashed 5 runs of 5 when it was unloaded."""
    code = textwrap.dedent("""
        import numpy as np, sketchmm
        A = np.random.default_rng(1).random((300, 300), dtype=np.float32)
        sketchmm.set_num_threads(2)
        print(sketchmm.matmul(A, A).shape, sketchmm.approx_matmul(A, A, method="pq", sketch_dim=8).shape)
    """)
    env = dict(os.environ, OMP_WAIT_POLICY="active", PYTHONPATH=os.path.dirname(os.path.dirname(sketchmm.__file__)))
    for _ in range(4):
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0 and r.stdout.strip() == "(300, 300) (300, 300)", (r.returncode, r.stdout, r.stderr)


def test_jit_switch_gives_the_same_bits(rng):
    """Run-time code generation on and off: the same bits from brgemm, unary and small products."""
    assert sketchmm.jit() is True  # on by default (the suite does not set SKETCHMM_JIT)
    assert sketchmm.jit_status() is None
    A = rng.standard_normal((5, 13, 7)).astype(np.float32)
    B = rng.standard_normal((5, 7, 29)).astype(np.float32)
    X = rng.standard_normal((130, 97)).astype(np.float32)
    X[0, :5] = [np.nan, -0.0, np.inf, -np.inf, -1.0]
    S = rng.standard_normal((24, 40)).astype(np.float32)
    T = rng.standard_normal((40, 17)).astype(np.float32)
    results = {}
    try:
        for on in (True, False):
            sketchmm.set_jit(on)
            assert sketchmm.jit() is on
            before = sketchmm.jit_stats()
            results[on] = (sketchmm.brgemm(A, B, alpha=1.5), sketchmm.relu(X), sketchmm.transpose(X),
                           sketchmm.matmul(S, T))
            after = sketchmm.jit_stats()
            used = after["generated"] + after["hits"] - before["generated"] - before["hits"]
            generating = sketchmm.isa() in ("avx2", "avx512", "neon")
            assert (used > 0) == (on and generating), (on, sketchmm.isa(), before, after)
        for got, want in zip(results[True], results[False]):
            np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
        np.testing.assert_allclose(results[True][3], S @ T, rtol=1e-5, atol=1e-5)
        with pytest.raises(sketchmm.InvalidArgumentError):
            sketchmm.set_jit(2)
        stats = sketchmm.jit_stats()
        assert set(stats) == {"generated", "hits", "failed", "evicted", "kernels", "code_bytes",
                              "generate_seconds"}
        assert all(v >= 0 for v in stats.values())
    finally:
        sketchmm.set_jit(None)
    assert sketchmm.jit() is True


def test_exact_config_reports_the_configuration():
    c = sketchmm.exact_config()
    assert c["isa"] == sketchmm.isa()
    assert c["source"] in ("tuned", "model", "table")
    assert c["kernel"] == sketchmm.kernel_names()["exact"] and c["kernel"].startswith(c["isa"])
    assert c["mr"] > 0 and c["nr"] > 0 and c["kc"] > 0
    assert all(m % c["mr"] == 0 for m in c["mc"]) and all(n % c["nr"] == 0 for n in c["nc"])
    assert set(c["split"]) <= {"auto", "rows", "columns"}
    assert set(c["mat4"]) == {"mul_f32", "mul_f64", "inv_f32", "inv_f64"}
    assert f"kernel={c['kernel']}" in c["description"] and f"source={c['source']}" in c["description"]
    assert c["note"]


def test_tuning_file_choice(monkeypatch, tmp_path):
    try:
        monkeypatch.setenv("SKETCHMM_TUNING", "none")
        sketchmm.reload_tuning()
        assert sketchmm.tuning_path() == ""
        c = sketchmm.exact_config()
        assert c["source"] != "tuned" and c["file"] == "" and "none" in c["note"]
        missing = str(tmp_path / "missing.txt")
        monkeypatch.setenv("SKETCHMM_TUNING", missing)
        sketchmm.reload_tuning()
        assert sketchmm.tuning_path() == missing
        assert sketchmm.exact_config()["note"] == "no file"
        damaged = tmp_path / "damaged.txt"
        damaged.write_text("sketchmm-tuning 1\nlibrary 0.0.0\n")
        monkeypatch.setenv("SKETCHMM_TUNING", str(damaged))
        sketchmm.reload_tuning()
        c = sketchmm.exact_config()
        assert c["source"] != "tuned" and c["note"].startswith("ignored: ")
    finally:
        monkeypatch.delenv("SKETCHMM_TUNING")
        sketchmm.reload_tuning()


def test_tune_writes_and_installs(monkeypatch, tmp_path, rng):
    target = tmp_path / "t" / "tuning.txt"
    seen = []
    with pytest.raises(sketchmm.InvalidArgumentError):
        sketchmm.tune(budget=5)
    try:
        c = sketchmm.tune(budget=10, threads=2, path=str(target), progress=lambda e, b, s: seen.append((e, b, s)))
        assert c["source"] == "tuned" and c["file"] == str(target)
        text = target.read_text()
        assert text.startswith("sketchmm-tuning 1\n") and f"path {c['isa']}\n" in text
        assert len(seen) >= 8 and seen[-1][2].startswith("[8/8] done")
        assert all(b == 10.0 for _, b, _ in seen)
        A = rng.standard_normal((300, 200)).astype(np.float32)
        assert_product(sketchmm.matmul(A, A.T), A, A.T)
        monkeypatch.setenv("SKETCHMM_TUNING", str(target))
        sketchmm.reload_tuning()
        assert sketchmm.exact_config()["note"] == "read"
        with pytest.raises(sketchmm.FileError):
            sketchmm.tune(budget=10, path=str(target / "below-a-file.txt"), progress=False)
    finally:
        monkeypatch.delenv("SKETCHMM_TUNING", raising=False)
        sketchmm.reload_tuning()
