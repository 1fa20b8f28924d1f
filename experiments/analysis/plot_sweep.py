#!/usr/bin/python3
"""Plot a sketchmm_sweep results file: accuracy against speedup per method.

Usage:
    /usr/bin/python3 experiments/analysis/plot_sweep.py results/sweep.h5 [-o plot.png]

Prints the tables, then draws one panel per mode present in the file:
  (a) dense: NMSE (log scale) against speedup over exact_sgemm (log scale),
      one line per method through its sizes, each point labelled with its
      size (bits, or s for the sketch dimension of the classical methods);
  (b) top-k: recall@K against speedup over exact_topk (log scale), one line
      per (method, size) through its candidate counts (more candidates: more
      recall, less speed), labelled with the size at its fastest point.
Each method keeps one colour and marker in both panels; a dashed vertical
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from load_results import format_table, load_attributes, load_results, num_rows, select  # noqa: E402

# The methods in the order of sketchmm/approx.h, each with one colour and marker.
METHODS = ["simhash", "simhash_orthogonal", "simhash_structured", "crosspolytope",
           "gaussian_projection", "srht", "countsketch", "cr_sampling"]
MARKERS = ["o", "s", "D", "^", "v", "<", ">", "P", "X", "*"]
SIZE_LINESTYLES = ["-", "--", ":", "-."]


def _style(method):
    i = METHODS.index(method) if method in METHODS else len(METHODS) + hash(method) % 2
    return dict(color=plt.get_cmap("tab10")(i % 10), marker=MARKERS[i % len(MARKERS)])


def _size_label(size_name, size):
    return f"{size}b" if size_name == "bits" else f"s={size}"


def _col(table, name, dtype=None):
    return np.asarray(table[name], dtype=dtype)


def _ok(table, metric):
    status = _col(table, "status")
    speedup = _col(table, "speedup", float)
    value = _col(table, metric, float)
    return (status == 0) & np.isfinite(speedup) & (speedup > 0) & np.isfinite(value)


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


def _footer(ax, rows, ok, attrs, reps_attr, exact_name):
    exact_s = _col(rows, "exact_seconds", float)[ok]
    lo, hi = exact_s.min(), exact_s.max()
    exact_text = f"{lo:.3g} s" if np.isclose(lo, hi, rtol=0.02) else f"{lo:.3g} to {hi:.3g} s"
    align = float(_col(rows, "alignment", float)[ok][0])
    reps = attrs.get(reps_attr, attrs.get("reps", "?"))
    ax.text(0.02, 0.02, f"{exact_name} {exact_text} (medians of {reps} runs)\n"
            f"alignment ||AB||_F / (||A||_F ||B||_F) = {align:.3f}",
            transform=ax.transAxes, fontsize=8, color="0.25")


def plot_dense(ax, rows, attrs):
    ok = _ok(rows, "nmse") & (_col(rows, "nmse", float) > 0)
    methods = _col(rows, "method")
    speedup, nmse = _col(rows, "speedup", float), _col(rows, "nmse", float)
    sizes, size_names = _col(rows, "size"), _col(rows, "size_name")
    for method in [m for m in METHODS if m in set(methods[ok])] + \
            sorted(set(methods[ok]) - set(METHODS)):
        sel = np.flatnonzero(ok & (methods == method))
        sel = sel[np.argsort(sizes[sel])]
        ax.plot(speedup[sel], nmse[sel], markersize=6, linewidth=1.4, label=method, zorder=3,
                **_style(method))
        for i in sel:
            ax.annotate(_size_label(size_names[i], sizes[i]), (speedup[i], nmse[i]),
                        textcoords="offset points", xytext=(4, 3), fontsize=6.5, color="0.2",
                        zorder=4)
    _speedup_axis(ax, speedup[ok])
    ax.set_yscale("log")
    if ok.any():
        ax.set_ylim(nmse[ok].min() / 2.0, nmse[ok].max() * 2.0)
        _footer(ax, rows, ok, attrs, "reps", "exact_sgemm")
    else:
        _no_data(ax)
    m, n, k = (int(_col(rows, c)[0]) for c in ("m", "n", "k"))
    ax.set_title(f"(a) dense: C = A B, ({m} x {k}) * ({k} x {n})", fontsize=10)
    ax.set_xlabel("speedup over exact_sgemm (exact time / approx_sgemm time)")
    ax.set_ylabel("NMSE = mean((Y - Yhat)^2) / var(Y)")
    ax.legend(title="method", loc="upper right", fontsize=8, title_fontsize=8)


def plot_topk(ax, rows, attrs):
    ok = _ok(rows, "recall")
    methods = _col(rows, "method")
    speedup, recall = _col(rows, "speedup", float), _col(rows, "recall", float)
    sizes, size_names = _col(rows, "size"), _col(rows, "size_name")
    cands = _col(rows, "candidates")
    for method in [m for m in METHODS if m in set(methods[ok])] + \
            sorted(set(methods[ok]) - set(METHODS)):
        style = _style(method)
        for j, size in enumerate(sorted(set(sizes[ok & (methods == method)]))):
            sel = np.flatnonzero(ok & (methods == method) & (sizes == size))
            sel = sel[np.argsort(cands[sel])]
            ax.plot(speedup[sel], recall[sel], markersize=5, linewidth=1.2, zorder=3,
                    linestyle=SIZE_LINESTYLES[j % len(SIZE_LINESTYLES)],
                    label=method if j == 0 else None, **style)
            first = sel[0]  # fewest candidates: the fastest end of the line
            ax.annotate(_size_label(size_names[first], size), (speedup[first], recall[first]),
                        textcoords="offset points", xytext=(4, -8), fontsize=6.5,
                        color=style["color"], zorder=4)
    _speedup_axis(ax, speedup[ok])
    ax.set_ylim(min(0.0, np.nanmin(recall[ok]) if ok.any() else 0.0), 1.05)
    if ok.any():
        _footer(ax, rows, ok, attrs, "topk_reps", "exact_topk")
        c = sorted(set(cands[ok]))
        ax.text(0.98, 0.02, f"candidates per query: {', '.join(str(v) for v in c)}\n"
                "one line per (method, size), sizes solid < dashed < dotted;\n"
                "more candidates: more recall, further left",
                transform=ax.transAxes, fontsize=7.5, color="0.25", ha="right")
    else:
        _no_data(ax)
    m, n, k, topk = (int(_col(rows, c)[0]) for c in ("m", "n", "k", "topk"))
    ax.set_title(f"(b) top-{topk}: {m} queries x {n} database vectors, k = {k}", fontsize=10)
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


def plot(table, attrs, output):
    modes = [m for m in ("dense", "topk") if (np.asarray(table["mode"]) == m).any()]
    if not modes:
        modes = ["dense"]
    fig, axes = plt.subplots(1, len(modes), figsize=(7.5 * len(modes), 6.2), dpi=120, squeeze=False)
    for ax, mode in zip(axes[0], modes):
        rows = select(table, mode=mode)
        if num_rows(rows) == 0:
            _no_data(ax)
        elif mode == "dense":
            plot_dense(ax, rows, attrs)
        else:
            plot_topk(ax, rows, attrs)
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
