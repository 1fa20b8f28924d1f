#!/usr/bin/python3
"""Plot a sketchmm_sweep results file: error (NMSE) against speedup.

Usage:
    /usr/bin/python3 experiments/analysis/plot_sweep.py results/sweep.h5 [-o plot.png]

Prints the table, then draws one line of points per method, NMSE (log scale)
against speedup over exact_sgemm (log scale), each point labelled with its
sketch length in bits, with a vertical line where the approximate product is
as fast as the exact one. The title gives the data set, shape, threads and
ISA path. The PNG goes next to the results file (same name, .png) unless -o
says otherwise. Needs h5py, numpy and matplotlib (Debian: python3-h5py,
python3-numpy, python3-matplotlib, installed for /usr/bin/python3).
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
from load_results import format_table, load_attributes, load_results  # noqa: E402


def _first(table, name, default="?"):
    column = np.asarray(table[name]) if name in table else np.asarray([])
    if column.size == 0:
        return default
    value = column[0]
    return value.item() if isinstance(value, np.generic) else value


def _title(table, attrs):
    dataset = attrs.get("dataset", _first(table, "dataset"))
    m, n, k = (_first(table, c, attrs.get(c, "?")) for c in ("m", "n", "k"))
    threads = attrs.get("threads", _first(table, "threads"))
    isa = attrs.get("isa", _first(table, "isa"))
    line1 = f"{dataset}: ({m} x {k}) * ({k} x {n}), threads={threads}, isa={isa}"
    details = []
    if "exact_kernel" in attrs:
        details.append(f"exact kernel {attrs['exact_kernel']}")
    if "hamming_kernel" in attrs:
        details.append(f"hamming {attrs['hamming_kernel']}")
    machine = []
    if "cpu_model" in attrs:
        machine.append(str(attrs["cpu_model"]))
    commit = str(attrs.get("git_commit", ""))
    if commit and commit != "unknown":
        machine.append(f"commit {commit[:10]}")
    lines = [line1] + [", ".join(part) for part in (details, machine) if part]
    return "\n".join(lines)


def plot(table, attrs, output):
    methods = np.asarray(table["method"])
    status = np.asarray(table["status"]) if "status" in table else np.zeros(len(methods), int)
    speedup = np.asarray(table["speedup"], dtype=float)
    nmse = np.asarray(table["nmse"], dtype=float)
    bits = np.asarray(table["bits"])
    ok = (status == 0) & np.isfinite(speedup) & np.isfinite(nmse) & (speedup > 0) & (nmse > 0)

    fig, ax = plt.subplots(figsize=(8, 5.5), dpi=120)
    markers = "osD^v<>"
    for i, method in enumerate(sorted(set(methods[ok]))):
        sel = ok & (methods == method)
        order = np.argsort(bits[sel])
        x, y, b = speedup[sel][order], nmse[sel][order], bits[sel][order]
        ax.plot(x, y, marker=markers[i % len(markers)], markersize=7, linewidth=1.5,
                label=method, zorder=3)
        for xi, yi, bi in zip(x, y, b):
            ax.annotate(f"{bi} bits", (xi, yi), textcoords="offset points", xytext=(7, 5),
                        fontsize=9, zorder=4,
                        bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.8))

    ax.axvline(1.0, color="0.35", linestyle="--", linewidth=1.2, zorder=2)
    ax.text(1.0, 1.0, "speedup 1 = exact_sgemm ", transform=ax.get_xaxis_transform(), rotation=90,
            va="top", ha="right", fontsize=8, color="0.35")

    ax.set_xscale("log")
    ax.set_yscale("log")
    # Speedups read better as 0.5, 1, 2, 3, 5, 10 than as powers of ten.
    ax.xaxis.set_major_locator(LogLocator(base=10.0, subs=(1.0, 2.0, 3.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    if ok.any():
        lo = min(speedup[ok].min(), 1.0)
        hi = max(speedup[ok].max(), 1.0)
        ax.set_xlim(lo / 1.6, hi * 1.6)
        ylo, yhi = nmse[ok].min(), nmse[ok].max()
        ax.set_ylim(ylo / 2.0, yhi * 2.0)
    else:
        ax.text(0.5, 0.5, "no successful configuration", transform=ax.transAxes,
                ha="center", va="center")
    ax.set_xlabel("speedup over exact_sgemm (exact time / approximate time)")
    ax.set_ylabel("NMSE = mean((Y - Yhat)^2) / var(Y)")
    ax.grid(True, which="major", alpha=0.4)
    ax.grid(True, which="minor", alpha=0.15)
    if ok.any():
        exact_s = np.asarray(table["exact_seconds"], dtype=float)[ok]
        lo, hi = exact_s.min(), exact_s.max()
        exact_text = f"{lo:.3g} s" if lo == hi else f"{lo:.3g} to {hi:.3g} s"
        align = float(np.asarray(table["alignment"])[ok][0])
        reps = attrs.get("reps", "?")
        ax.text(0.02, 0.03,
                f"exact_sgemm {exact_text} (median of {reps} runs per point)\n"
                f"alignment ||AB||_F / (||A||_F ||B||_F) = {align:.3f}",
                transform=ax.transAxes, fontsize=9, color="0.25")
    ax.legend(title="method", loc="best")
    ax.set_title(_title(table, attrs), fontsize=9.5)
    fig.tight_layout()
    fig.savefig(output)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Plot NMSE against speedup from a sketchmm_sweep HDF5 file.")
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
