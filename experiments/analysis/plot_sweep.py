#!/usr/bin/python3
"""Plot a sketchmm_sweep results file: accuracy against speedup per method.

Usage:
    /usr/bin/python3 experiments/analysis/plot_sweep.py results/sweep.h5 [-o plot.png]

Prints the tables, then draws one panel per mode and context present in the
file (a context: dataset, shape, k, threads and top-k; a sweep over several
seeds shows the median over the seeds of each configuration):
  (a) dense: NMSE (log scale) against speedup over exact_sgemm (log scale),
      one line per method through its sizes, each point labelled with its
      size (bits, or s for the sketch dimension of the classical methods);
  (b) top-k: recall@K against speedup over exact_topk (log scale), one line
      per (method, size) through its candidate counts (more candidates: more
      recall, less speed), labelled with the size at its fastest point.
In every panel the Pareto front over all methods is marked: the
configurations no other configuration beats on both speed and accuracy
(higher speedup and lower NMSE, resp. higher speedup and higher recall) are
ringed in black and joined by a thick grey staircase, the best accuracy
reachable at each speedup.
Each method keeps one colour and marker in every panel; a dashed vertical
line marks speedup 1 (as fast as the exact call). The title gives the data
set, shapes, threads and ISA path. The PNG goes next to the results file
(same name, .png) unless -o says otherwise. Needs h5py, numpy and matplotlib
(Debian: python3-h5py, python3-numpy, python3-matplotlib, installed for
/usr/bin/python3).
"""

import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402

if __package__:  # imported as part of a package (sketchmm._analysis): its sibling module
    from .load_results import format_table, load_attributes, load_results, num_rows  # noqa: E402
else:  # run as a script or imported from this directory
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from load_results import format_table, load_attributes, load_results, num_rows  # noqa: E402

MARKERS = ["o", "s", "D", "^", "v", "<", ">", "P", "X", "*", "h", "p", "8"]
SIZE_LINESTYLES = ["-", "--", ":", "-."]


def method_order(attrs, points=None):
    """The methods as the sweep listed them (its attribute "methods", in sketch_method order for the
    default sweep), then any other method of points: the order of the legend and of the styles. The
    library's method list is not repeated here."""
    order = [m for m in str(attrs.get("methods", "")).split(",") if m]
    if points is not None:
        order += sorted(set(points["method"].tolist()) - set(order))
    return order


def _style(method, order):
    i = order.index(method) if method in order else len(order)
    # tab10's ten colours for the first ten methods, black after them, so no two of those share one
    return dict(color=plt.get_cmap("tab10")(i) if i < 10 else "black", marker=MARKERS[i % len(MARKERS)])


def _size_label(size_name, size):
    return f"{size}b" if size_name == "bits" else f"s={size}"


def _col(table, name, dtype=None):
    return np.asarray(table[name], dtype=dtype)


def _arrays(table):
    """A table of either kind (DataFrame or ResultsTable) as a dict of numpy arrays."""
    return {name: np.asarray(table[name]) for name in table}


def _take(rows, mask):
    return {name: column[mask] for name, column in rows.items()}


def _ok(table, metric):
    status = _col(table, "status")
    speedup = _col(table, "speedup", float)
    value = _col(table, metric, float)
    return (status == 0) & np.isfinite(speedup) & (speedup > 0) & np.isfinite(value)


# A panel shows the rows of one mode that share these fields.
CONTEXT_FIELDS = ("dataset", "m", "n", "k", "threads", "topk")


def contexts(rows):
    """[(values, mask)]: the distinct contexts of a mode's rows, in file order."""
    fields = [f for f in CONTEXT_FIELDS if f in rows]
    keys = list(zip(*(rows[f].tolist() for f in fields))) if fields else [()] * len(rows["mode"])
    out = []
    for key in dict.fromkeys(keys):
        mask = np.array([k == key for k in keys], dtype=bool)
        out.append((dict(zip(fields, key)), mask))
    return out


def median_over_seeds(rows, metric, group=("method", "size", "size_name", "candidates")):
    """The successful rows with one point per configuration: rows that differ
    only in their seed become one, with the median speedup and metric."""
    ok = _ok(rows, metric)
    if metric == "nmse":
        ok &= _col(rows, "nmse", float) > 0  # log axis
    rows = _take(rows, ok)
    group = [g for g in group if g in rows]
    keys = list(zip(*(rows[g].tolist() for g in group)))
    points = {g: [] for g in group}
    points.update(speedup=[], value=[], seeds=[])
    for key in dict.fromkeys(keys):
        sel = np.array([k == key for k in keys], dtype=bool)
        for g, v in zip(group, key):
            points[g].append(v)
        points["speedup"].append(float(np.median(rows["speedup"][sel])))
        points["value"].append(float(np.median(rows[metric][sel].astype(float))))
        points["seeds"].append(int(sel.sum()))
    return {name: np.asarray(values) for name, values in points.items()}, rows


def pareto_front(speedup, value, higher_is_better):
    """Indices of the points no other point dominates, by increasing speedup.

    A point is dominated when another has a speedup at least as high and a
    value at least as good (higher when higher_is_better, else lower), one of
    the two strictly; of identical points one is kept."""
    speedup = np.asarray(speedup, dtype=float)
    key = -np.asarray(value, dtype=float) if higher_is_better else np.asarray(value, dtype=float)
    front, best = [], np.inf
    for i in np.lexsort((key, -speedup)):  # fastest first, the better value first among equals
        if key[i] < best:
            front.append(i)
            best = key[i]
    return np.asarray(front[::-1], dtype=int)


def _draw_front(ax, speedup, value, higher_is_better):
    """The Pareto front: a thick grey staircase (the best value reachable at
    each speedup or faster) and its points ringed."""
    front = pareto_front(speedup, value, higher_is_better)
    if len(front) == 0:
        return front
    x, y = speedup[front], value[front]
    ax.step(x, y, where="pre", color="0.55", linewidth=6, alpha=0.45, zorder=2,
            solid_capstyle="round", label="Pareto front")
    ax.scatter(x, y, s=150, facecolors="none", edgecolors="0.1", linewidths=1.4, zorder=5)
    return front


def _speedup_axis(ax, speedups):
    ax.set_xscale("log")
    # Speedups read better as 0.5, 1, 2, 3, 5, 10 than as powers of ten.
    ax.xaxis.set_major_locator(LogLocator(base=10.0, subs=(1.0, 2.0, 3.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    if len(speedups):
        lo = min(np.min(speedups), 1.0)
        hi = max(np.max(speedups), 1.0)
        ax.set_xlim(lo / 1.5, hi * 1.5)
    ax.axvline(1.0, color="0.35", linestyle="--", linewidth=1.2, zorder=2)
    ax.text(1.0, 0.99, "speedup 1 ", transform=ax.get_xaxis_transform(), rotation=90,
            va="top", ha="right", fontsize=8, color="0.35")
    ax.grid(True, which="major", alpha=0.4)
    ax.grid(True, which="minor", alpha=0.15)


def _no_data(ax):
    ax.text(0.5, 0.5, "no successful configuration", transform=ax.transAxes,
            ha="center", va="center")


def _footer(ax, rows, attrs, reps_attr, exact_name, seeds):
    exact_s = _col(rows, "exact_seconds", float)
    lo, hi = exact_s.min(), exact_s.max()
    exact_text = f"{lo:.3g} s" if np.isclose(lo, hi, rtol=0.02) else f"{lo:.3g} to {hi:.3g} s"
    align = _col(rows, "alignment", float)
    align_lo, align_hi = np.nanmin(align), np.nanmax(align)
    align_text = f"{align_lo:.3f}" if np.isclose(align_lo, align_hi, rtol=1e-3) else \
        f"{align_lo:.3f} to {align_hi:.3f}"
    reps = attrs.get(reps_attr, attrs.get("reps", "?"))
    seed_text = f"each point the median over {seeds} seeds\n" if seeds > 1 else ""
    ax.text(0.02, 0.02, f"{exact_name} {exact_text} (medians of {reps} runs)\n{seed_text}"
            f"alignment ||AB||_F / (||A||_F ||B||_F) = {align_text}",
            transform=ax.transAxes, fontsize=8, color="0.25")


def _methods_in(points, order):
    present = set(points["method"].tolist())
    return [m for m in order if m in present]


def _context_title(context):
    return context.get("dataset", "?")


def plot_dense(ax, rows, attrs, letter="a", context=None):
    points, ok_rows = median_over_seeds(rows, "nmse")
    speedup, nmse = points["speedup"], points["value"]
    order = method_order(attrs, points)
    for method in _methods_in(points, order):
        sel = np.flatnonzero(points["method"] == method)
        sel = sel[np.argsort(points["size"][sel])]
        ax.plot(speedup[sel], nmse[sel], markersize=6, linewidth=1.4, label=method, zorder=3,
                **_style(method, order))
        for i in sel:
            ax.annotate(_size_label(points["size_name"][i], points["size"][i]), (speedup[i], nmse[i]),
                        textcoords="offset points", xytext=(4, 3), fontsize=6.5, color="0.2",
                        zorder=4)
    _draw_front(ax, speedup, nmse, higher_is_better=False)
    _speedup_axis(ax, speedup)
    ax.set_yscale("log")
    if len(speedup):
        ax.set_ylim(nmse.min() / 2.0, nmse.max() * 2.0)
        _footer(ax, ok_rows, attrs, "reps", "exact_sgemm", int(points["seeds"].max()))
    else:
        _no_data(ax)
    m, n, k = (int(_col(rows, c)[0]) for c in ("m", "n", "k"))
    where = f"{_context_title(context)}: " if context else ""
    ax.set_title(f"({letter}) dense, {where}C = A B, ({m} x {k}) * ({k} x {n})", fontsize=10)
    ax.set_xlabel("speedup over exact_sgemm (exact time / approx_sgemm time)")
    ax.set_ylabel("NMSE = mean((Y - Yhat)^2) / var(Y)")
    ax.legend(title="method", loc="upper right", fontsize=8, title_fontsize=8)


def plot_topk(ax, rows, attrs, letter="b", context=None):
    points, ok_rows = median_over_seeds(rows, "recall")
    speedup, recall = points["speedup"], points["value"]
    sizes, cands = points["size"], points.get("candidates", np.zeros(len(speedup), dtype=int))
    order = method_order(attrs, points)
    for method in _methods_in(points, order):
        style = _style(method, order)
        for j, size in enumerate(sorted(set(sizes[points["method"] == method].tolist()))):
            sel = np.flatnonzero((points["method"] == method) & (sizes == size))
            sel = sel[np.argsort(cands[sel])]
            ax.plot(speedup[sel], recall[sel], markersize=5, linewidth=1.2, zorder=3,
                    linestyle=SIZE_LINESTYLES[j % len(SIZE_LINESTYLES)],
                    label=method if j == 0 else None, **style)
            first = sel[0]  # fewest candidates: the fastest end of the line
            ax.annotate(_size_label(points["size_name"][first], size), (speedup[first], recall[first]),
                        textcoords="offset points", xytext=(4, -8), fontsize=6.5,
                        color=style["color"], zorder=4)
    _draw_front(ax, speedup, recall, higher_is_better=True)
    _speedup_axis(ax, speedup)
    ax.set_ylim(min(0.0, np.min(recall)) if len(recall) else 0.0, 1.05)
    if len(speedup):
        _footer(ax, ok_rows, attrs, "topk_reps", "exact_topk", int(points["seeds"].max()))
        c = sorted(set(cands.tolist()))
        ax.text(0.98, 0.02, f"candidates per query: {', '.join(str(v) for v in c)}\n"
                "one line per (method, size), sizes solid < dashed < dotted;\n"
                "more candidates: more recall, further left",
                transform=ax.transAxes, fontsize=7.5, color="0.25", ha="right")
    else:
        _no_data(ax)
    m, n, k, topk = (int(_col(rows, c)[0]) for c in ("m", "n", "k", "topk"))
    where = f"{_context_title(context)}: " if context else ""
    ax.set_title(f"({letter}) top-{topk}, {where}{m} queries x {n} database vectors, k = {k}",
                 fontsize=10)
    ax.set_xlabel("speedup over exact_topk (exact time / approx_topk time)")
    ax.set_ylabel(f"recall@{topk} (value-based)")
    ax.legend(title="method", loc="center left", fontsize=8, title_fontsize=8)


def _title(table, attrs):
    dataset = attrs.get("dataset", "?")
    threads = attrs.get("threads", "?")
    isa = attrs.get("isa", "?")
    parts = [f"{dataset}, threads={threads}, isa={isa}"]
    if "exact_kernel" in attrs:
        parts.append(f"exact kernel {attrs['exact_kernel']}")
    if "hamming_kernel" in attrs:
        parts.append(f"hamming {attrs['hamming_kernel']}")
    machine = []
    if "cpu_model" in attrs:
        machine.append(str(attrs["cpu_model"]))
    commit = str(attrs.get("git_commit", ""))
    if commit and commit != "unknown":
        machine.append(f"commit {commit[:10]}")
    return ", ".join(parts) + ("\n" + ", ".join(machine) if machine else "")


def panels(table):
    """[(mode, context, rows)]: one panel per mode and context, dense first."""
    rows = _arrays(table)
    out = []
    for mode in ("dense", "topk"):
        mode_rows = _take(rows, _col(rows, "mode") == mode)
        if num_rows(mode_rows) == 0:
            continue
        found = contexts(mode_rows)
        for context, mask in found:
            out.append((mode, context if len(found) > 1 else None, _take(mode_rows, mask)))
    return out


def plot(table, attrs, output):
    todo = panels(table) if num_rows(table) else []
    ncols = min(2, max(1, len(todo)))
    nrows = max(1, (len(todo) + ncols - 1) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(7.5 * ncols, 6.2 * nrows), dpi=120, squeeze=False)
    axes = axes.ravel()
    for i, (mode, context, rows) in enumerate(todo):
        letter = chr(ord("a") + i)
        if mode == "dense":
            plot_dense(axes[i], rows, attrs, letter, context)
        else:
            plot_topk(axes[i], rows, attrs, letter, context)
    if not todo:
        _no_data(axes[0])
    for ax in axes[len(todo) if todo else 1:]:
        ax.set_visible(False)
    fig.suptitle(_title(table, attrs), fontsize=9.5)
    fig.tight_layout()
    fig.savefig(output)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Plot accuracy against speedup from a sketchmm_sweep HDF5 file.")
    parser.add_argument("results", help="HDF5 file written by sketchmm_sweep")
    parser.add_argument("-o", "--output",
                        help="output PNG (default: the results file with a .png suffix)")
    args = parser.parse_args(argv)

    output = args.output or os.path.splitext(args.results)[0] + ".png"
    table = load_results(args.results)
    attrs = load_attributes(args.results)
    print(_title(table, attrs))
    print(format_table(table))
    plot(table, attrs, output)
    print(f"plot: {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
