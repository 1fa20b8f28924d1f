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
    table = sketchmm.load_results(results_file, as_pandas=False)
    assert len(table["mode"]) == 23 and {"size", "size_name", "recall_at_10"} <= set(table)
    assert "dense:" in sketchmm.results.format_table(table)
    assert len(sketchmm.results.select(table, mode="topk")["mode"]) == 6
    assert sketchmm.load_attributes(results_file)["git_commit"] == "0123456789abcdef"
    module = sketchmm.results.analysis_module("load_results")
    assert os.path.dirname(module.__file__) in (os.path.join(os.path.dirname(sketchmm.__file__), "_analysis"),
                                                os.path.join(REPO, "experiments", "analysis"))


def test_plot_results(results_file, tmp_path):
    png = sketchmm.plot_results(results_file, str(tmp_path / "plot.png"))
    with open(png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert os.path.getsize(png) > 10000
