"""Load the HDF5 results file written by sketchmm_sweep.

The file holds one table, ``/results`` (one row per configuration: method,
dataset, m, n, k, bits, seed, threads, isa, status, exact_seconds,
approx_seconds, speedup, nmse, rel_fro_error, max_abs_error, alignment), and
attributes on the root group describing the run (library_version, git_commit,
isa, exact_kernel, hamming_kernel, threads, cpu_model, dataset, seed, created,
...). Fixed-length byte strings are decoded to ``str``.

Usage (with /usr/bin/python3, which has h5py and numpy)::

    import sys
    sys.path.insert(0, "experiments/analysis")
    from load_results import load_results, load_attributes, format_table

    table = load_results("results/sweep.h5")   # a pandas.DataFrame when pandas
                                               # is importable, else a dict of
                                               # numpy arrays (column -> array)
    print(table["bits"], table["speedup"], table["nmse"])
    print(format_table(table))                 # works for both kinds

    attrs = load_attributes("results/sweep.h5")
    print(attrs["isa"], attrs["threads"], attrs["git_commit"])

    # Force one kind:
    arrays = load_results("results/sweep.h5", as_pandas=False)

From the command line, ``/usr/bin/python3 load_results.py FILE.h5`` prints the
attributes and the table.
"""

import sys

import h5py
import numpy as np

__all__ = ["load_results", "load_attributes", "format_table", "num_rows"]


def _decode(value):
    """bytes / numpy bytes -> str; numpy scalars -> Python scalars."""
    if isinstance(value, (bytes, np.bytes_)):
        return value.decode("utf-8", errors="replace").rstrip("\x00")
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray) and value.dtype.kind == "S":
        return [_decode(v) for v in value]
    return value


def _columns(path):
    """The /results table as an ordered dict of numpy arrays, strings decoded."""
    with h5py.File(path, "r") as f:
        data = f["results"][...]
    columns = {}
    for name in data.dtype.names:
        column = data[name]
        if column.dtype.kind == "S":
            column = np.array([v.decode("utf-8", errors="replace").rstrip("\x00")
                               for v in column], dtype=object)
        columns[name] = column
    return columns


def load_results(path, as_pandas=None):
    """Return the /results table of a sweep file.

    as_pandas: None (default) gives a pandas.DataFrame when pandas can be
    imported and a dict of numpy arrays otherwise; True requires pandas; False
    always gives the dict.
    """
    columns = _columns(path)
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


_TABLE_COLUMNS = [
    # (column, header, width, format spec)
    ("method", "method", 8, "s"),
    ("bits", "bits", 6, "d"),
    ("threads", "thr", 4, "d"),
    ("exact_seconds", "exact_s", 10, ".5f"),
    ("approx_seconds", "approx_s", 10, ".5f"),
    ("speedup", "speedup", 8, ".3f"),
    ("nmse", "nmse", 10, ".3e"),
    ("rel_fro_error", "rel_fro", 10, ".3e"),
    ("max_abs_error", "max_abs", 10, ".3e"),
    ("alignment", "align", 7, ".4f"),
    ("status", "status", 6, "d"),
]


def format_table(table):
    """A plain-text table of the main columns (DataFrame or dict of arrays)."""
    columns = [c for c in _TABLE_COLUMNS if c[0] in table]
    header = " ".join(h.rjust(w) for _, h, w, _ in columns)
    lines = [header, "-" * len(header)]
    for i in range(num_rows(table)):
        cells = []
        for name, _, width, spec in columns:
            value = np.asarray(table[name])[i]
            if isinstance(value, np.generic):
                value = value.item()
            cells.append(format(value, spec).rjust(width))
        lines.append(" ".join(cells))
    return "\n".join(lines)


def main(argv):
    if len(argv) != 2:
        print("usage: load_results.py FILE.h5", file=sys.stderr)
        return 2
    for name, value in load_attributes(argv[1]).items():
        print(f"{name:16} {value}")
    print()
    print(format_table(load_results(argv[1])))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except BrokenPipeError:  # output piped into head & co.
        sys.exit(0)
