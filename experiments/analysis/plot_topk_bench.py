#!/usr/bin/python3
"""Plot `sketchmm_bench topk --csv` files: recall@10 against speedup over exact_topk,
sketchmm's methods beside FAISS and hnswlib in the same run.

Usage:
    /usr/bin/python3 experiments/analysis/plot_topk_bench.py FILE.csv [FILE.csv ...] -o plot.png

One row of panels per CSV file (a data set): (a) plan queries, the database
sketched or trained once (speedup = exact_topk's median query seconds over the
contender's query seconds); (b) one-shot, creation included. One line per
(contender, parameters) through its candidate counts (hnswlib: its search
breadths ef, which the CSV keeps in the candidates column); the exact contenders
(exact_topk, OpenBLAS blocks, FAISS IndexFlatIP) are points at recall 1.
A dotted line marks recall 0.95 and a dashed one speedup 1. Prints, per file
and contender, the fastest row at recall >= 0.95 (queries and one-shot).
Needs pandas, numpy and matplotlib (Debian: python3-pandas, python3-numpy,
python3-matplotlib).
"""

import argparse
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

TARGET_RECALL = 0.95
EXACT = ("exact_topk", "openblas blocks", "faiss flat_ip")
PEERS = ("faiss", "hnswlib")  # other libraries: dashed lines, a marker each
PEER_MARKERS = {"faiss": "s", "hnswlib": "^"}


def load(path):
    """The rows of one CSV file, with a 'series' column: contender and parameters."""
    table = pd.read_csv(path)
    needed = {"dataset", "contender", "params", "candidates", "recall", "speedup_query", "speedup_oneshot"}
    missing = needed - set(table.columns)
    if missing:
        raise ValueError(f"{path}: not a sketchmm_bench topk CSV (missing {', '.join(sorted(missing))})")
    table["series"] = [c if p == "-" else f"{c} {p}" for c, p in zip(table["contender"], table["params"])]
    return table


def best_at_target(table, column):
    """Per series, the row with the largest `column` among rows at recall >= TARGET_RECALL."""
    good = table[(table["recall"] >= TARGET_RECALL) & table[column].notna()]
    if good.empty:
        return good
    return good.loc[good.groupby("series")[column].idxmax()].sort_values(column, ascending=False)


def summary(path, table):
    m, n, k = (int(table[c].iloc[0]) for c in ("m", "n", "k"))
    lines = [f"{path}: {table['dataset'].iloc[0]}, {m} queries x {n} vectors, k = {k}, "
             f"{int(table['threads'].iloc[0])} threads"]
    for column, label in (("speedup_query", "plan queries"), ("speedup_oneshot", "one-shot")):
        lines.append(f"  fastest at recall@10 >= {TARGET_RECALL} ({label}):")
        best = best_at_target(table, column)
        if best.empty:
            lines.append("    none")
        for _, row in best.iterrows():
            cand = "-" if row["candidates"] == 0 else str(int(row["candidates"]))
            lines.append(f"    {row['series']:<26} candidates {cand:>4}  recall {row['recall']:.4f}  "
                         f"{row[column]:7.2f}x")
    return "\n".join(lines)


def draw(ax, table, column, title):
    series = [s for s in dict.fromkeys(table["series"])]
    cmap = plt.get_cmap("tab20")
    for i, name in enumerate(series):
        rows = table[table["series"] == name].sort_values("candidates")
        x = rows[column].to_numpy(dtype=float)
        y = rows["recall"].to_numpy(dtype=float)
        ok = np.isfinite(x) & (x > 0)
        if not ok.any():
            continue
        exact = rows["contender"].iloc[0] in EXACT
        peer = rows["contender"].iloc[0].startswith(PEERS)
        marker = PEER_MARKERS.get(rows["contender"].iloc[0].split(" ")[0], "D" if exact else "o")
        ax.plot(x[ok], y[ok], marker=marker, linestyle="--" if peer else "-",
                color="black" if exact and not peer else cmap(i % 20), label=name, markersize=5)
        for xi, yi, c in zip(x[ok], y[ok], rows["candidates"].to_numpy()[ok]):
            if c > 0:
                ax.annotate(str(int(c)), (xi, yi), textcoords="offset points", xytext=(3, -9), fontsize=6)
    ax.axhline(TARGET_RECALL, color="grey", linestyle=":", linewidth=1)
    ax.axvline(1.0, color="grey", linestyle="--", linewidth=1)
    ax.set_xscale("log")
    ax.set_xlabel("speedup over exact_topk (same run)")
    ax.set_ylabel("recall@10")
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=0.3)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", nargs="+", help="CSV files of sketchmm_bench topk --csv")
    parser.add_argument("-o", "--output", required=True, help="the PNG to write")
    args = parser.parse_args(argv)
    try:
        tables = [load(p) for p in args.csv]
    except (OSError, ValueError, pd.errors.ParserError) as e:
        print(f"plot_topk_bench.py: {e}", file=sys.stderr)
        return 1
    fig, axes = plt.subplots(len(tables), 2, figsize=(13, 5.2 * len(tables)), squeeze=False)
    for row, (path, table) in enumerate(zip(args.csv, tables)):
        print(summary(path, table))
        m, n = int(table["m"].iloc[0]), int(table["n"].iloc[0])
        what = f"{table['dataset'].iloc[0]}, top-10 of {n} for {m} queries, {int(table['threads'].iloc[0])} threads"
        draw(axes[row][0], table, "speedup_query", f"{what}: plan queries")
        draw(axes[row][1], table, "speedup_oneshot", f"{what}: one-shot (creation included)")
        axes[row][1].legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"plot: {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
