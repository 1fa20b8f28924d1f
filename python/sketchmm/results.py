"""Sweep results (experiments/): load the HDF5 file sketchmm_sweep writes, tabulate it, plot it.

The analysis code lives in the repository's experiments/analysis (load_results.py,
plot_sweep.py), which its command lines and tests use; this module runs that code:
from the copy installed with the package (``sketchmm/_analysis``, put there by
cmake --install and by pip) or, in a source checkout, from experiments/analysis
itself. Needs h5py (and pandas for a DataFrame, matplotlib to plot), imported only
when a function here is called::

    t = sketchmm.load_results("results/sweep.h5")   # a pandas.DataFrame, one row per configuration
    sketchmm.plot_results("results/sweep.h5", "sweep.png")

The table has one row per configuration (mode "dense" or "topk", method, dataset, m,
n, k, bits, sketch_dim, topk, candidates, seed, threads, isa, status, the times
exact_seconds, approx_seconds, encode_b_seconds, ..., speedup; dense rows nmse,
rel_fro_error, max_abs_error; top-k rows recall, recall_index, max_value_error,
recall_at_1/10/100; alignment) and the derived columns size and size_name.
"""

from __future__ import annotations

import importlib
import os
import sys
import types

__all__ = ["load_results", "load_attributes", "format_table", "select", "plot_results", "analysis_module",
           "sweep_program"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_DIRS = (os.path.join(_HERE, "_analysis"),
         os.path.join(os.path.dirname(os.path.dirname(_HERE)), "experiments", "analysis"))


def analysis_module(name: str):
    """The analysis module `name` ("load_results" or "plot_sweep") of experiments/analysis, imported
    as part of this package (sketchmm._analysis.<name>) from the installed copy or the source tree;
    sys.path is not changed."""
    package = f"{__package__}._analysis"
    if package not in sys.modules:
        directory = next((d for d in _DIRS if os.path.isfile(os.path.join(d, "load_results.py"))), None)
        if directory is None:
            raise ImportError(f"sketchmm.results: the analysis modules are in neither {' nor '.join(_DIRS)} "
                              "(install the package with cmake --install or pip, or use it from the repository)")
        module = types.ModuleType(package, "experiments/analysis: the results loader and plots of the sweep")
        module.__path__ = [directory]
        module.__package__ = package
        sys.modules[package] = module
    return importlib.import_module(f"{package}.{name}")


def sweep_program() -> str | None:
    """The sketchmm_sweep that checks results files: the one built or installed beside the C library
    this package loaded, else load_results.find_sweep() ($SKETCHMM_SWEEP, the install's record, the
    repository's build/, PATH)."""
    from ._lib import path as library
    beside = os.path.join(os.path.dirname(library), "sketchmm_sweep")
    if os.environ.get("SKETCHMM_SWEEP") is None and os.path.isfile(beside) and os.access(beside, os.X_OK):
        return beside
    return analysis_module("load_results").find_sweep()


def load_results(path: str, as_pandas: bool | None = None, check: bool | None = None):
    """The /results table of a sweep file: a pandas.DataFrame when pandas is importable (as_pandas
    None or True), else (or with as_pandas=False) a dict of numpy arrays that prints as a table.
    Every field of the file is loaded; files of older sweeps get the missing fields filled in.
    Every row is checked by `sketchmm_sweep check` (sweep_program()), the checks a resume or merge
    makes: a file with bad rows, or one that is no results table, raises ValueError. check=None
    warns when the rows cannot be checked (no program, a file without spec), True raises then,
    False skips the check."""
    return analysis_module("load_results").load_results(path, as_pandas=as_pandas, check=check,
                                                        sweep=sweep_program() if check is not False else None)


def load_attributes(path: str) -> dict:
    """The root attributes of a sweep file (spec, library version, git commit, ISA, threads, CPU
    model, dataset, ...), strings decoded."""
    return analysis_module("load_results").load_attributes(path)


def format_table(table) -> str:
    """A plain-text table per mode: dense rows with their errors, top-k rows with their recall."""
    return analysis_module("load_results").format_table(table)


def select(table, **equal):
    """The rows whose columns equal the given values, e.g. select(t, mode="topk", method="lowrank")."""
    return analysis_module("load_results").select(table, **equal)


def plot_results(path: str, output: str | None = None, check: bool | None = None) -> str:
    """Draw the sweep's plots into a PNG (default: the results file with .png) and return its path:
    per data set and shape, NMSE against speedup over exact_sgemm for the dense rows and recall@K
    against speedup over exact_topk for the top-k rows, one line per method, the Pareto front over all
    methods as a grey staircase (experiments/analysis/plot_sweep.py, which also prints the tables
    from the command line)."""
    plot_sweep = analysis_module("plot_sweep")
    output = output or os.path.splitext(path)[0] + ".png"
    plot_sweep.plot(load_results(path, check=check), load_attributes(path), output)
    return output
