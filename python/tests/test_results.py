"""sketchmm.load_results / plot_results run experiments/analysis on a small results file (written by that
directory's own test helper)."""

import importlib.util
import os

import pytest
from conftest import REPO

import sketchmm

pytest.importorskip("h5py")
pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def results_file(tmp_path_factory):
    path = os.path.join(REPO, "experiments", "analysis", "test_plot_sweep.py")
    spec = importlib.util.spec_from_file_location("sketchmm_test_plot_sweep", path)
    helper = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(helper)
    out = str(tmp_path_factory.mktemp("results") / "sweep.h5")
    helper.write_current(out)
    return out


def test_load_results(results_file):
    table = sketchmm.load_results(results_file, as_pandas=False, check=False)  # made by h5py: no spec
    assert len(table["mode"]) == 23 and {"size", "size_name", "recall_at_10"} <= set(table)
    assert "dense:" in sketchmm.results.format_table(table)
    assert len(sketchmm.results.select(table, mode="topk")["mode"]) == 6
    assert sketchmm.load_attributes(results_file)["git_commit"] == "0123456789abcdef"
    module = sketchmm.results.analysis_module("load_results")
    assert os.path.dirname(module.__file__) in (os.path.join(os.path.dirname(sketchmm.__file__), "_analysis"),
                                                os.path.join(REPO, "experiments", "analysis"))


def test_plot_results(results_file, tmp_path):
    png = sketchmm.plot_results(results_file, str(tmp_path / "plot.png"), check=False)
    with open(png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert os.path.getsize(png) > 10000


def test_zero_rows_and_malformed_tables(tmp_path):
    """A table of no rows prints "(no rows)" (it raised AttributeError); /results that is no table raises
    ValueError saying so (it raised TypeError)."""
    import h5py
    import numpy as np
    empty = str(tmp_path / "empty.h5")
    with h5py.File(empty, "w") as f:
        f.create_dataset("results", data=np.zeros(0, dtype=[("mode", "S8"), ("method", "S24"), ("bits", "<i4")]))
    for as_pandas in (False, None):
        table = sketchmm.load_results(empty, as_pandas=as_pandas, check=False)
        assert sketchmm.results.format_table(table) == "(no rows)"
        assert len(sketchmm.results.select(table, mode="topk")["mode"]) == 0
    assert "(no rows)" in str(sketchmm.load_results(empty, as_pandas=False, check=False))
    bad = str(tmp_path / "floats.h5")
    with h5py.File(bad, "w") as f:
        f.create_dataset("results", data=np.zeros(4, dtype=np.float32))
    with pytest.raises(ValueError, match="not a table of rows"):
        sketchmm.load_results(bad)


def test_rows_checked_by_the_sweep(tmp_path):
    """The sweep's own checks, through the sketchmm_sweep built beside the loaded library: a file it
    wrote loads without a warning; the same file with a row repeated is refused with the row named."""
    import subprocess
    import warnings

    import h5py
    import numpy as np
    sweep = sketchmm.results.sweep_program()
    if sweep is None:
        pytest.skip("no sketchmm_sweep beside the library or on PATH")
    path = str(tmp_path / "run.h5")
    r = subprocess.run([sweep, "--mode", "dense", "--datasets", "gaussian", "--k", "16", "--shapes", "32x32",
                        "--methods", "srht", "--sketch-dims", "4,8", "--reps", "1", "--threads", "1", "--out", path],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(sketchmm.load_results(path, as_pandas=False)["mode"]) == 2
    with h5py.File(path, "a") as f:
        rows = f["results"][...]
        attrs = dict(f.attrs)
        del f["results"]
        f.create_dataset("results", data=np.concatenate([rows, rows[:1]]), chunks=(1,), maxshape=(None,))
        f.attrs.update(attrs)
    with pytest.raises(ValueError, match="row 2 .*same configuration"):
        sketchmm.load_results(path)
