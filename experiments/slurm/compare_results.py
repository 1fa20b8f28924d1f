#!/usr/bin/python3
"""compare_results.py MERGED.h5 SINGLE.h5: the merged file of a sharded sweep against one unsharded run
of the same spec. Checks that MERGED holds every configuration of the grid (config_index 0 .. grid_size
- 1) exactly once, the same configurations (config_hash) as SINGLE, and in every column but the timings
(the *_seconds columns and speedup) the same values, NaN matching NaN. Prints one line and exits 0, or
prints what differs and exits 1. Needs Debian's python3-h5py and python3-numpy."""
import sys

import h5py
import numpy as np

TIMINGS = ("speedup",)


def table(path):
    with h5py.File(path, "r") as f:
        rows = f["results"][...]
        grid = int(f.attrs["grid_size"])
        spec = f.attrs["spec"]
    return rows, grid, spec.decode() if isinstance(spec, bytes) else str(spec)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    merged, grid, spec = table(argv[1])
    single, single_grid, single_spec = table(argv[2])
    problems = []
    if spec != single_spec or grid != single_grid:
        problems.append("the two files hold different specs or grids")
    index = np.sort(merged["config_index"])
    if not np.array_equal(index, np.arange(grid)):
        seen, counts = np.unique(index, return_counts=True)
        problems.append(f"merged: {len(merged)} rows for a grid of {grid}; missing "
                        f"{sorted(set(range(grid)) - set(seen.tolist()))}, twice {seen[counts > 1].tolist()}")
    a = np.sort(merged, order="config_index")
    b = np.sort(single, order="config_index")
    if len(a) == len(b) and not np.array_equal(a["config_hash"], b["config_hash"]):
        problems.append("the configurations (config_hash) differ")
    compared = []
    for name in merged.dtype.names:
        if name.endswith("_seconds") or name in TIMINGS or len(a) != len(b):
            continue
        x, y = a[name], b[name]
        same = ((x == y) | (np.isnan(x) & np.isnan(y))) if x.dtype.kind == "f" else (x == y)
        if not np.all(same):
            rows = np.nonzero(~same)[0][:5]
            problems.append(f"column {name} differs at config_index {a['config_index'][rows].tolist()}: "
                            f"{x[rows].tolist()} against {y[rows].tolist()}")
        compared.append(name)
    if problems:
        for p in problems:
            print("compare_results:", p, file=sys.stderr)
        return 1
    print(f"compare_results: {grid} configurations, each once; {len(compared)} columns equal to the "
          f"unsharded run (timings aside)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
