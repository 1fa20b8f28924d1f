#!/usr/bin/python3
"""Tests of plot_topk_bench.py on small CSV files written here.

    /usr/bin/python3 experiments/analysis/test_plot_topk_bench.py [WORKDIR]

Checks the fastest row at recall >= 0.95 per contender (queries and one-shot),
that the script run as a program writes a non-empty PNG from two files, and
that a CSV of another kind is refused with exit status 1. Exits 77 (ctest's
skip code) when pandas, numpy or matplotlib cannot be imported.
"""

import os
import subprocess
import sys
import tempfile
import unittest

try:
    import matplotlib  # noqa: F401
    import numpy  # noqa: F401
    import pandas  # noqa: F401
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"skipped: {e} (install python3-pandas, python3-numpy, python3-matplotlib)")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import plot_topk_bench  # noqa: E402

HEADER = ("dataset,m,n,k,threads,reps,contender,params,candidates,recall,create_seconds,query_seconds,"
          "oneshot_seconds,speedup_query,speedup_oneshot,encode_b_seconds,encode_a_seconds,estimate_seconds,"
          "refine_seconds,other_cpu_share,isa\n")
ROWS = [
    "exact_topk,-,0,1,,2.0,2.0,1,1",
    "faiss pq_fs+rf,M=98,20,0.90,5.0,0.2,5.2,10,0.38",
    "faiss pq_fs+rf,M=98,100,0.97,5.0,0.4,5.4,5,0.37",
    "lowrank,dim=16,20,0.94,0.1,0.1,0.2,20,10",
    "lowrank,dim=16,50,0.98,0.1,0.15,0.25,13.3,8",
    "lowrank,dim=16,100,0.995,0.1,0.25,0.35,8,5.7",
    "pq,dim=98,100,0.80,0.3,0.2,0.5,10,4",
    "hnswlib,M=16 efc=200,40,0.90,20.0,0.5,20.5,4,0.098",
    "hnswlib,M=16 efc=200,160,0.97,20.0,1.0,21.0,2,0.095",
]


def write_csv(path, dataset="fashion-mnist"):
    with open(path, "w") as f:
        f.write(HEADER)
        for r in ROWS:
            c = r.split(",")
            f.write(f"{dataset},100,1000,784,2,3,{c[0]},{c[1]},{c[2]},{c[3]},{c[4]},{c[5]},{c[6]},{c[7]},{c[8]},"
                    ",,,,0.0,avx512\n")


class PlotTopkBench(unittest.TestCase):
    workdir = None

    def test_best_at_target(self):
        path = os.path.join(self.workdir, "a.csv")
        write_csv(path)
        table = plot_topk_bench.load(path)
        best = plot_topk_bench.best_at_target(table, "speedup_query")
        got = {row["series"]: (int(row["candidates"]), row["speedup_query"]) for _, row in best.iterrows()}
        # lowrank's fastest row at recall >= 0.95 is 50 candidates (13.3x), not 20 (0.94); pq never gets there
        self.assertEqual(got["lowrank dim=16"], (50, 13.3))
        self.assertEqual(got["faiss pq_fs+rf M=98"], (100, 5.0))
        self.assertNotIn("pq dim=98", got)
        # hnswlib: one series through its search breadths (ef in the candidates column)
        self.assertEqual(got["hnswlib M=16 efc=200"], (160, 2.0))
        self.assertEqual(list(best["series"])[0], "lowrank dim=16")  # fastest first
        once = plot_topk_bench.best_at_target(table, "speedup_oneshot")
        self.assertAlmostEqual(once[once["series"] == "lowrank dim=16"]["speedup_oneshot"].item(), 8.0)

    def test_program_writes_png(self):
        a, b = os.path.join(self.workdir, "f.csv"), os.path.join(self.workdir, "g.csv")
        write_csv(a)
        write_csv(b, "gaussian")
        png = os.path.join(self.workdir, "frontier.png")
        out = subprocess.run([sys.executable, os.path.join(HERE, "plot_topk_bench.py"), a, b, "-o", png],
                             capture_output=True, text=True, check=True).stdout
        self.assertIn("lowrank dim=16", out)
        self.assertIn("gaussian", out)
        self.assertGreater(os.path.getsize(png), 10000)

    def test_refuses_other_csv(self):
        bad = os.path.join(self.workdir, "bad.csv")
        with open(bad, "w") as f:
            f.write("a,b\n1,2\n")
        r = subprocess.run([sys.executable, os.path.join(HERE, "plot_topk_bench.py"), bad, "-o",
                            os.path.join(self.workdir, "bad.png")], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("not a sketchmm_bench topk CSV", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.workdir, "bad.png")))


if __name__ == "__main__":
    work = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="plot_topk_bench_")
    os.makedirs(work, exist_ok=True)
    PlotTopkBench.workdir = work
    unittest.main(argv=[sys.argv[0]], verbosity=1)
