"""Load the HDF5 results file written by sketchmm_sweep.

The three lines (run with /usr/bin/python3, which has h5py and numpy; from
the repository root)::

    import sys; sys.path.insert(0, "experiments/analysis")
    from load_results import load_results
    t = load_results("results/sweep.h5"); print(t)

The file holds one table, ``/results`` (one row per configuration: mode
("dense" or "topk"), method, dataset, m, n, k, bits, sketch_dim, topk,
candidates, seed, threads, isa, status, exact_seconds, approx_seconds, speedup,
nmse, rel_fro_error, max_abs_error (dense rows), recall, recall_index,
max_value_error (top-k rows), alignment, and whatever newer sweeps add, such
as config_hash, config_index, bytes_per_vector, encode_b_seconds,
rest_seconds, encode_a_seconds, estimate_seconds, refine_seconds,
recall_at_1/10/100; a field a mode does not measure is NaN or
0), and attributes on the root group describing the run (library_version,
git_commit, isa, exact_kernel, hamming_kernel, threads, cpu_model, dataset,
seed, created, modes, methods, ...). Every field the file has is loaded; none
beyond those of the first sweeps is required. Fixed-length byte strings are
decoded to ``str``.

Every row is checked as the sweep checks it before a resume or a merge (its
chunk's checksum, its names and sizes, its config_hash against the file's spec,
its config_index, no configuration twice), by the sweep's own code: the loader
runs ``sketchmm_sweep check`` (found at $SKETCHMM_SWEEP, next to an installed
package, in the repository's build/, or on PATH). A file with bad rows raises
ValueError naming them (``sketchmm_sweep merge --salvage GOOD.h5 FILE.h5`` keeps
the sound ones); so does a file that is not a results table. ``check=None``
(the default) warns when the program cannot be found or the file has no spec
(sweeps before 0.2.0), ``check=True`` raises then, ``check=False`` skips the
check. Two columns are derived on loading: ``size`` (bits for the sketch families,
sketch_dim for the classical methods) and ``size_name`` ("bits" or
"sketch_dim"). Files of older sweeps (SimHash only, dense only, no mode
field) load with the missing fields filled in: mode "dense", sketch_dim,
topk and candidates 0, recall, recall_index and max_value_error NaN.

More::

    from load_results import load_results, load_attributes, format_table, select

    table = load_results("results/sweep.h5")   # a pandas.DataFrame when pandas
                                               # is importable, else a
                                               # ResultsTable: a dict of numpy
                                               # arrays (column -> array) that
                                               # prints as a table
    print(table["size"], table["speedup"], table["nmse"])
    print(format_table(table))                 # works for both kinds
    dense = select(table, mode="dense")        # rows of one mode (either kind)

    attrs = load_attributes("results/sweep.h5")
    print(attrs["isa"], attrs["threads"], attrs["git_commit"])

    # Force one kind:
    arrays = load_results("results/sweep.h5", as_pandas=False)

From the command line, ``/usr/bin/python3 load_results.py FILE.h5`` prints the
attributes and the table.
"""

import os
import re
import shutil
import subprocess
import sys
import warnings

import h5py
import numpy as np

__all__ = ["load_results", "load_attributes", "format_table", "num_rows", "select", "ResultsTable",
           "find_sweep", "check_rows"]

# The program whose `check` subcommand checks a results file (the sweep driver itself).
SWEEP_ENV = "SKETCHMM_SWEEP"
_HERE = os.path.dirname(os.path.abspath(__file__))

# Fields added after the first sweeps, with the value they take in older files.
_DEFAULTS = {
    "mode": "dense",
    "sketch_dim": 0,
    "topk": 0,
    "candidates": 0,
    "recall": np.nan,
    "recall_index": np.nan,
    "max_value_error": np.nan,
}


def _decode(value):
    """bytes / numpy bytes -> str; numpy scalars -> Python scalars."""
    if isinstance(value, (bytes, np.bytes_)):
        return value.decode("utf-8", errors="replace").rstrip("\x00")
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray) and value.dtype.kind == "S":
        return [_decode(v) for v in value]
    return value


class ResultsTable(dict):
    """The table without pandas: column name -> numpy array, all of one length.
    A plain dict otherwise; printing it shows format_table()."""

    def __str__(self):
        return format_table(self)

    def __repr__(self):
        return f"{format_table(self)}\n[{num_rows(self)} rows; columns: {', '.join(self)}]"


def _recorded_sweep():
    """SWEEP of sketchmm/_paths.py (written by cmake --install) when this file is sketchmm/_analysis/."""
    paths = os.path.join(os.path.dirname(_HERE), "_paths.py")
    if os.path.basename(_HERE) != "_analysis" or not os.path.isfile(paths):
        return None
    try:
        with open(paths) as f:
            found = re.search(r'^SWEEP = "([^"\n]+)"$', f.read(), re.MULTILINE)  # read, never run
    except OSError:
        return None
    return found.group(1) if found else None


def find_sweep():
    """The sketchmm_sweep program that checks results files, or None: $SKETCHMM_SWEEP, the one
    installed with the package (sketchmm/_paths.py), the repository's build/sketchmm_sweep (when this
    file is experiments/analysis/load_results.py), then PATH."""
    env = os.environ.get(SWEEP_ENV)
    if env:
        return env
    for path in (_recorded_sweep(), os.path.join(os.path.dirname(os.path.dirname(_HERE)), "build", "sketchmm_sweep")):
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return shutil.which("sketchmm_sweep")


def check_rows(path, sweep=None):
    """Check every row of a results file with `sketchmm_sweep check` (the checks of a resume or a
    merge, one implementation for the sweep and its readers). Returns None when every row is sound;
    raises ValueError naming the bad rows (or saying why the file is no results file),
    FileNotFoundError when the program cannot be found."""
    sweep = sweep or find_sweep()
    if not sweep:
        raise FileNotFoundError(f"sketchmm_sweep not found (set ${SWEEP_ENV}, or build it: cmake --build build); "
                                f"it checks the rows of {path}")
    r = subprocess.run([sweep, "check", "--list", path], capture_output=True, text=True, timeout=3600)
    if r.returncode == 0:
        return None
    if r.returncode == 1:
        bad = [line.split("\t") for line in r.stdout.splitlines() if line.count("\t") == 3]
        listed = "; ".join(f"row {row} (config_index {index}): {why}" for _, row, index, why in bad[:5])
        more = f"; and {len(bad) - 5} more" if len(bad) > 5 else ""
        raise ValueError(f"{path} is damaged: {len(bad)} row(s) fail the sweep's checks: {listed}{more}. "
                         f"Keep its sound rows with `sketchmm_sweep merge --salvage GOOD.h5 {path}`")
    message = r.stderr.strip().splitlines()
    reason = message[0] if message else f"exit status {r.returncode}"
    if r.returncode == 2:
        raise ValueError(f"{path} is not a results file of sketchmm_sweep: {reason}")
    raise RuntimeError(f"{sweep} check {path} failed: {reason}")


def _read_table(path):
    """The /results compound table of path (a numpy structured array) and whether the file has a spec
    attribute; ValueError saying what is wrong when the file is no results table."""
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise ValueError(f"{path} cannot be opened as an HDF5 file: {e}") from None
    with f:
        if "results" not in f:
            raise ValueError(f"{path} has no /results table: not a results file of sketchmm_sweep")
        table = f["results"]
        if not isinstance(table, h5py.Dataset):
            raise ValueError(f"{path}: /results is a {type(table).__name__}, not a table (a dataset of rows)")
        if table.dtype.names is None or table.ndim != 1:
            raise ValueError(f"{path}: /results is a {table.ndim}-D array of {table.dtype} with shape "
                             f"{table.shape}, not a table of rows (a 1-D compound dataset): not a results file "
                             "of sketchmm_sweep")
        if "method" not in table.dtype.names:
            raise ValueError(f"{path}: /results has no field 'method' (fields: {', '.join(table.dtype.names)}): "
                             "not a results file of sketchmm_sweep")
        try:
            data = table[...]
        except OSError as e:
            raise ValueError(f"{path}: the rows of /results cannot be read ({e}); "
                             f"`sketchmm_sweep check {path}` names the damaged rows") from None
        return data, "spec" in f.attrs


def _verify(path, has_spec, check, sweep):
    """Run check_rows as `check` asks (None: warn where it cannot run, True: raise, False: skip)."""
    if check is False:
        return
    if not has_spec:
        message = (f"{path} has no spec attribute (a file of a sweep before sketchmm 0.2.0, or not written by "
                   "sketchmm_sweep): its rows are not checked")
        if check:
            raise ValueError(message)
        warnings.warn(message, stacklevel=3)
        return
    try:
        check_rows(path, sweep)
    except FileNotFoundError as e:
        if check:
            raise
        warnings.warn(f"{e}: its rows are not checked", stacklevel=3)


def _columns(path, check=None, sweep=None):
    """The /results table as a ResultsTable of numpy arrays, strings decoded."""
    data, has_spec = _read_table(path)
    _verify(path, has_spec, check, sweep)
    columns = ResultsTable()
    for name in data.dtype.names:
        column = data[name]
        if column.dtype.kind == "S":
            column = np.array([v.decode("utf-8", errors="replace").rstrip("\x00")
                               for v in column], dtype=object)
        columns[name] = column
    rows = len(data)
    for name, default in _DEFAULTS.items():
        if name not in columns:
            dtype = object if isinstance(default, str) else type(default)
            columns[name] = np.full(rows, default, dtype=dtype)
    bits = np.asarray(columns.get("bits", np.zeros(rows, dtype=np.int32)))
    uses_bits = bits > 0
    columns["size"] = np.where(uses_bits, bits, columns["sketch_dim"]).astype(np.int64)
    columns["size_name"] = np.array(["bits" if b else "sketch_dim" for b in uses_bits], dtype=object)
    return columns


def load_results(path, as_pandas=None, check=None, sweep=None):
    """Return the /results table of a sweep file.

    as_pandas: None (default) gives a pandas.DataFrame when pandas can be
    imported and a dict of numpy arrays otherwise; True requires pandas; False
    always gives the dict. check: the rows checked by `sketchmm_sweep check`
    (None: warn when that cannot run, True: raise then, False: no check);
    sweep: the program's path (default: find_sweep()). Raises ValueError for a
    file that is no results table or has bad rows.
    """
    columns = _columns(path, check, sweep)
    if as_pandas is False:
        return columns
    try:
        import pandas as pd
    except ImportError:
        if as_pandas:
            raise
        return columns
    return pd.DataFrame(columns)


def load_attributes(path):
    """The root-group attributes of a sweep file as a dict (strings decoded)."""
    with h5py.File(path, "r") as f:
        return {name: _decode(value) for name, value in f.attrs.items()}


def num_rows(table):
    """Number of rows of a table returned by load_results (either kind)."""
    if hasattr(table, "shape") and hasattr(table, "columns"):
        return int(table.shape[0])
    return len(next(iter(table.values()))) if table else 0


def _equal(column, value, rows):
    """column == value as one bool per row, whatever the column's dtype (numpy gives a lone False for
    an empty float array compared with a string)."""
    return np.broadcast_to(np.asarray(np.asarray(column, dtype=object) == value, dtype=bool), (rows,))


def select(table, **equal):
    """The rows of a table (either kind) whose columns equal the given values,
    e.g. select(table, mode="topk", method="simhash"); same kind as table."""
    rows = num_rows(table)
    mask = np.ones(rows, dtype=bool)
    for name, value in equal.items():
        mask &= _equal(table[name], value, rows)
    if hasattr(table, "columns") and hasattr(table, "loc"):
        return table.loc[mask].reset_index(drop=True)
    return ResultsTable((name, np.asarray(column)[mask]) for name, column in table.items())


# (column, header, width, format spec), per mode
_COMMON_HEAD = [
    ("method", "method", 20, "<s"),
    ("size_name", "size", 10, "s"),
    ("size", "", 5, "d"),
]
_COMMON_TAIL = [
    ("exact_seconds", "exact_s", 9, ".4f"),
    ("approx_seconds", "approx_s", 9, ".4f"),
    ("speedup", "speedup", 8, ".3f"),
]
_MODE_COLUMNS = {
    "dense": _COMMON_HEAD + _COMMON_TAIL + [
        ("nmse", "nmse", 10, ".3e"),
        ("rel_fro_error", "rel_fro", 10, ".3e"),
        ("max_abs_error", "max_abs", 10, ".3e"),
        ("alignment", "align", 7, ".4f"),
        ("status", "status", 6, "d"),
    ],
    "topk": _COMMON_HEAD + [("candidates", "cand", 6, "d")] + _COMMON_TAIL + [
        ("recall", "recall", 7, ".4f"),
        ("recall_index", "rec_idx", 7, ".4f"),
        ("recall_at_1", "r@1", 6, ".3f"),
        ("recall_at_10", "r@10", 6, ".3f"),
        ("recall_at_100", "r@100", 6, ".3f"),
        ("max_value_error", "max_val_err", 11, ".2e"),
        ("alignment", "align", 7, ".4f"),
        ("status", "status", 6, "d"),
    ],
}


# Columns that tell the contexts of a sweep apart (dataset, shape, seed,
# threads); a table shows those that take more than one value.
CONTEXT_COLUMNS = ["dataset", "m", "n", "k", "seed", "threads"]
_CONTEXT_FORMATS = {"dataset": ("dataset", 14, "<s")}


def varying_columns(table, names=CONTEXT_COLUMNS):
    """The columns of `names` present in the table with more than one value."""
    return [name for name in names
            if name in table and len(set(np.asarray(table[name]).tolist())) > 1]


def _shown(table, column):
    """Whether a column is worth a place: present, and not NaN throughout
    (columns such as recall_at_100 are NaN when a sweep's topk is smaller)."""
    if column not in table:
        return False
    values = np.asarray(table[column])
    return values.dtype.kind != "f" or not np.isnan(values).all()


def _format_rows(table, columns):
    context = [(name,) + _CONTEXT_FORMATS.get(name, (name, 8, "d")) for name in varying_columns(table)]
    columns = context + [c for c in columns if _shown(table, c[0])]
    header = " ".join(h.ljust(w) if spec.startswith("<") else h.rjust(w)
                      for _, h, w, spec in columns)
    lines = [header, "-" * len(header)]
    for i in range(num_rows(table)):
        cells = []
        for name, _, width, spec in columns:
            value = np.asarray(table[name])[i]
            if isinstance(value, np.generic):
                value = value.item()
            if spec.startswith("<"):
                cells.append(format(value, spec[1:]).ljust(width))
            else:
                cells.append(format(value, spec).rjust(width))
        lines.append(" ".join(cells))
    return "\n".join(lines)


def format_table(table):
    """A plain-text table per mode (DataFrame or dict of arrays): dense rows
    with their errors, top-k rows with their recall."""
    parts = []
    for mode, columns in _MODE_COLUMNS.items():
        if _equal(table["mode"], mode, num_rows(table)).any():
            rows = select(table, mode=mode)
            topk = ""
            if mode == "topk":
                topk = f" (recall@{int(np.asarray(rows['topk'])[0])})"
            parts.append(f"{mode}{topk}:\n" + _format_rows(rows, columns))
    return "\n\n".join(parts) if parts else "(no rows)"


def main(argv):
    if len(argv) != 2:
        print("usage: load_results.py FILE.h5", file=sys.stderr)
        return 2
    try:
        table = load_results(argv[1])
    except (ValueError, FileNotFoundError) as e:
        print(f"load_results.py: {e}", file=sys.stderr)
        return 1
    for name, value in load_attributes(argv[1]).items():
        print(f"{name:16} {value}")
    print()
    print(format_table(table))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except BrokenPipeError:  # output piped into head & co.
        sys.exit(0)
