#!/usr/bin/python3
"""Tests of the analysis scripts on small results files written here with h5py.

    /usr/bin/python3 experiments/analysis/test_plot_sweep.py [WORKDIR]

Checks that load_results.py loads files of the current layout (every field,
newer ones such as config_hash and recall_at_10 included) and of older sweeps
(missing fields filled in), tables of no rows, refuses what is no results
table with a clear error, and (with $SKETCHMM_SWEEP, the sweep driver: files
it writes, then damages) refuses bad rows through `sketchmm_sweep check`; that
the Pareto front is right on known points, and that plot_sweep.py, run as a
program, writes a non-empty PNG. WORKDIR (default: a temporary directory)
receives the files. Exits 77 (ctest's skip code) when h5py, numpy or
matplotlib cannot be imported.
"""

import os
import subprocess
import sys
import tempfile
import unittest
import warnings

try:
    import h5py
    import matplotlib  # noqa: F401
    import numpy as np
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"skipped: {e} (install python3-h5py, python3-numpy, python3-matplotlib)")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from load_results import (ResultsTable, format_table, load_attributes, load_results, num_rows,  # noqa: E402
                          select)
from plot_sweep import pareto_front  # noqa: E402

WORKDIR = None

# The fields of a current results file, in results_h5.h order.
FIELDS = [("config_hash", "<u8"), ("config_index", "<i8"), ("mode", "S8"), ("method", "S24"),
          ("dataset", "S32"), ("m", "<i8"), ("n", "<i8"), ("k", "<i8"), ("bits", "<i4"),
          ("sketch_dim", "<i4"), ("bytes_per_vector", "<i8"), ("topk", "<i4"), ("candidates", "<i4"),
          ("seed", "<u8"), ("threads", "<i4"), ("isa", "S16"), ("status", "<i4"),
          ("exact_seconds", "<f8"), ("approx_seconds", "<f8"), ("encode_b_seconds", "<f8"),
          ("rest_seconds", "<f8"), ("speedup", "<f8"), ("nmse", "<f8"), ("rel_fro_error", "<f8"),
          ("max_abs_error", "<f8"), ("recall", "<f8"), ("recall_index", "<f8"),
          ("max_value_error", "<f8"), ("recall_at_1", "<f8"), ("recall_at_10", "<f8"),
          ("recall_at_100", "<f8"), ("alignment", "<f8")]


def _row(**values):
    row = {name: (np.nan if kind == "<f8" else (b"" if kind.startswith("S") else 0)) for name, kind in FIELDS}
    row.update(values)
    return tuple(row[name] for name, _ in FIELDS)


def write_current(path):
    """Dense rows on two datasets and two seeds (one failed row), top-k rows on one."""
    rows = []
    index = 0
    for dataset, scale in ((b"gaussian", 1.0), (b"digits", 0.5)):
        for seed in (1, 2):
            for method, bits, dim in ((b"simhash", 64, 0), (b"simhash", 256, 0), (b"srht", 0, 16),
                                      (b"srht", 0, 64)):
                size = bits or 4 * dim
                rows.append(_row(config_hash=1000 + index, config_index=index, mode=b"dense", method=method,
                                 dataset=dataset, m=32, n=32, k=16, bits=bits, sketch_dim=dim, seed=seed,
                                 threads=1, isa=b"avx2", exact_seconds=0.01,
                                 approx_seconds=0.01 * size / 256.0, speedup=256.0 / size * scale,
                                 nmse=scale * 8.0 / size * (1.0 + 0.1 * seed), alignment=0.3))
                index += 1
    rows.append(_row(config_index=index, mode=b"dense", method=b"countsketch", dataset=b"gaussian", m=32,
                     n=32, k=16, sketch_dim=8, seed=1, threads=1, status=3))
    index += 1
    for method, bits, dim in ((b"simhash", 256, 0), (b"gaussian_projection", 0, 64)):
        for cands in (20, 40, 80):
            rows.append(_row(config_index=index, mode=b"topk", method=method, dataset=b"gaussian", m=16,
                             n=200, k=16, bits=bits, sketch_dim=dim, topk=10, candidates=cands, seed=1,
                             threads=1, isa=b"avx2", exact_seconds=0.02, approx_seconds=0.0002 * cands,
                             speedup=100.0 / cands, recall=min(1.0, cands / 100.0 + (0.3 if bits else 0.2)),
                             recall_index=0.5, recall_at_1=1.0, recall_at_10=0.6, alignment=0.2))
            index += 1
    with h5py.File(path, "w") as f:
        f.create_dataset("results", data=np.array(rows, dtype=FIELDS))
        f.attrs["dataset"] = "gaussian,digits"
        f.attrs["isa"] = "avx2"
        f.attrs["threads"] = 1
        f.attrs["reps"] = 3
        f.attrs["git_commit"] = "0123456789abcdef"


def write_old(path):
    """A file of the first sweeps: SimHash only, dense only, no mode field."""
    fields = [("method", "S24"), ("dataset", "S32"), ("m", "<i8"), ("n", "<i8"), ("k", "<i8"),
              ("bits", "<i4"), ("seed", "<u8"), ("threads", "<i4"), ("isa", "S16"), ("status", "<i4"),
              ("exact_seconds", "<f8"), ("approx_seconds", "<f8"), ("speedup", "<f8"), ("nmse", "<f8"),
              ("rel_fro_error", "<f8"), ("max_abs_error", "<f8"), ("alignment", "<f8")]
    rows = [(b"simhash", b"fashion-mnist", 100, 100, 784, bits, 1, 1, b"scalar", 0, 0.1, 0.1 * bits / 512,
             512.0 / bits, 1.0 / bits, 0.1, 0.2, 0.8) for bits in (32, 64, 128)]
    with h5py.File(path, "w") as f:
        f.create_dataset("results", data=np.array(rows, dtype=fields))
        f.attrs["dataset"] = np.bytes_(b"fashion-mnist")


class LoadResults(unittest.TestCase):
    def setUp(self):
        self.current = os.path.join(WORKDIR, "current.h5")
        self.old = os.path.join(WORKDIR, "old.h5")
        write_current(self.current)
        write_old(self.old)

    def test_current_fields_all_loaded(self):
        t = load_results(self.current, as_pandas=False, check=False)  # made here: no spec to check rows against
        self.assertIsInstance(t, ResultsTable)
        for name, _ in FIELDS:
            self.assertIn(name, t)
        self.assertEqual(num_rows(t), 23)
        self.assertEqual(t["mode"][0], "dense")
        self.assertEqual(t["config_hash"][3], 1003)
        self.assertEqual(list(t["size"][:4]), [64, 256, 16, 64])
        self.assertEqual(t["size_name"][2], "sketch_dim")
        text = str(t)
        self.assertIn("dense:", text)
        self.assertIn("topk (recall@10):", text)
        self.assertIn("r@10", text)        # a newer field with values is shown
        self.assertNotIn("r@100", text)    # one that is NaN throughout is not
        self.assertIn("dataset", text)     # the contexts differ in dataset and seed
        self.assertIn("rows; columns:", repr(t))
        self.assertEqual(num_rows(select(t, mode="topk", method="simhash")), 3)
        self.assertEqual(load_attributes(self.current)["git_commit"], "0123456789abcdef")

    def test_not_a_results_table_refused(self):
        """Files that are no results table: a clear ValueError saying what the file holds."""
        cases = {
            "float_array": (lambda f: f.create_dataset("results", data=np.zeros(5, dtype=np.float32)),
                            "not a table of rows"),
            "group": (lambda f: f.create_group("results"), "not a table"),
            "nothing": (lambda f: f.create_dataset("other", data=np.zeros(2)), "no /results table"),
            "no_method": (lambda f: f.create_dataset("results", data=np.zeros(3, dtype=[("x", "<f8")])),
                          "no field 'method'"),
        }
        for name, (make, needle) in cases.items():
            path = os.path.join(WORKDIR, f"malformed_{name}.h5")
            with h5py.File(path, "w") as f:
                make(f)
            with self.assertRaises(ValueError, msg=name) as caught:
                load_results(path, as_pandas=False)
            self.assertIn(needle, str(caught.exception), name)
        path = os.path.join(WORKDIR, "not_hdf5.h5")
        with open(path, "w") as f:
            f.write("not an HDF5 file\n")
        with self.assertRaisesRegex(ValueError, "cannot be opened as an HDF5 file"):
            load_results(path)

    def test_zero_rows(self):
        """A table of no rows (a salvage that kept nothing) loads, selects and prints."""
        path = os.path.join(WORKDIR, "empty.h5")
        with h5py.File(path, "w") as f:
            f.create_dataset("results", data=np.zeros(0, dtype=FIELDS))
        for as_pandas in (False, None):
            t = load_results(path, as_pandas=as_pandas, check=False)
            self.assertEqual(num_rows(t), 0)
            self.assertEqual(format_table(t), "(no rows)")
            self.assertEqual(num_rows(select(t, mode="dense", method="srht")), 0)
        self.assertIn("(no rows)", repr(load_results(path, as_pandas=False, check=False)))

    def test_unchecked_rows_warn(self):
        """Rows that cannot be checked (no spec: files made here, sweeps before 0.2.0) warn, or raise
        with check=True."""
        with self.assertWarnsRegex(UserWarning, "no spec attribute"):
            load_results(self.current, as_pandas=False)
        with self.assertRaisesRegex(ValueError, "no spec attribute"):
            load_results(self.current, as_pandas=False, check=True)

    def test_old_file_gets_defaults(self):
        with self.assertWarnsRegex(UserWarning, "no spec attribute"):
            t = load_results(self.old, as_pandas=False)
        self.assertEqual(num_rows(t), 3)
        self.assertTrue((t["mode"] == "dense").all())
        self.assertTrue((t["sketch_dim"] == 0).all())
        self.assertTrue(np.isnan(t["recall"]).all())
        self.assertEqual(list(t["size"]), [32, 64, 128])
        self.assertIn("simhash", format_table(t))
        self.assertEqual(load_attributes(self.old)["dataset"], "fashion-mnist")

    def test_readme_lines(self):
        """The three lines the README shows, run from the repository root."""
        root = os.path.dirname(os.path.dirname(HERE))
        code = ('import sys; sys.path.insert(0, "experiments/analysis")\n'
                "from load_results import load_results\n"
                f"t = load_results({self.current!r}); print(t)\n")
        out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("dense", out.stdout)  # a DataFrame with pandas, else the text table


@unittest.skipUnless(os.environ.get("SKETCHMM_SWEEP"), "needs $SKETCHMM_SWEEP (the sweep driver)")
class CheckedRows(unittest.TestCase):
    """Files written by the sweep driver, then damaged: load_results refuses them with the rows named,
    through `sketchmm_sweep check` (the checks of resume and merge)."""

    def setUp(self):
        self.sweep = os.environ["SKETCHMM_SWEEP"]
        self.path = os.path.join(WORKDIR, "driver.h5")
        r = subprocess.run([self.sweep, "--mode", "dense", "--datasets", "gaussian", "--k", "16", "--shapes",
                            "32x32", "--methods", "srht,countsketch", "--sketch-dims", "4,8", "--reps", "1",
                            "--threads", "1", "--overwrite", "--out", self.path], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)

    def _damage(self, edit):
        path = os.path.join(WORKDIR, "driver_damaged.h5")
        with open(self.path, "rb") as src, open(path, "wb") as dst:
            dst.write(src.read())
        with h5py.File(path, "a") as f:
            rows = f["results"][...]
            rows = edit(rows)
            attrs = dict(f.attrs)
            del f["results"]
            f.create_dataset("results", data=rows, chunks=(1,), maxshape=(None,), fletcher32=True)
            f.attrs.update(attrs)
        return path

    def test_sound_file_loads(self):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # checked: no warning
            t = load_results(self.path, as_pandas=False)
        self.assertEqual(num_rows(t), 4)

    def test_bad_rows_refused(self):
        def blank(rows):
            return np.concatenate([rows, np.zeros(1, dtype=rows.dtype)])

        def repeat(rows):
            return np.concatenate([rows, rows[1:2]])

        def unknown_mode(rows):
            rows["mode"][2] = b"sparse"
            return rows

        def index_outside(rows):
            rows["config_index"][3] = 99
            return rows

        for edit, needle in ((blank, "row 4 "), (repeat, "row 4 "), (unknown_mode, "row 2 "),
                             (index_outside, "row 3 ")):
            path = self._damage(edit)
            with self.assertRaises(ValueError, msg=edit.__name__) as caught:
                load_results(path, as_pandas=False)
            self.assertIn(needle, str(caught.exception), edit.__name__)
            self.assertIn("merge --salvage", str(caught.exception))
            t = load_results(path, as_pandas=False, check=False)  # the caller's choice: read it unchecked
            self.assertGreaterEqual(num_rows(t), 4)

    def test_salvage_of_nothing_loads(self):
        """Every row bad, salvaged: a table of 0 rows that loads and prints (it raised AttributeError)."""
        def rehash(rows):
            rows["config_hash"] += 1
            return rows

        damaged = self._damage(rehash)
        empty = os.path.join(WORKDIR, "salvaged_nothing.h5")
        r = subprocess.run([self.sweep, "merge", "--overwrite", "--salvage", empty, damaged], capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("merged 0 rows", r.stdout)
        t = load_results(empty, as_pandas=False)
        self.assertEqual(num_rows(t), 0)
        self.assertEqual(str(t), "(no rows)")
        out = subprocess.run([sys.executable, os.path.join(HERE, "load_results.py"), empty], capture_output=True,
                             text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("(no rows)", out.stdout)


class ParetoFront(unittest.TestCase):
    def test_lower_is_better(self):
        speedup = [1.0, 2.0, 2.0, 4.0, 3.0, 0.5, 4.0]
        error = [0.1, 0.2, 0.3, 0.5, 0.6, 0.05, 0.5]
        # 2 loses to 1 (same speedup, more error), 4 to 3 (slower, more error), 6 duplicates 3
        self.assertEqual(list(pareto_front(speedup, error, higher_is_better=False)), [5, 0, 1, 3])

    def test_higher_is_better(self):
        speedup = [1.0, 2.0, 3.0, 3.0, 0.5]
        recall = [1.0, 0.9, 0.8, 0.95, 0.99]
        # 1 and 2 lose to 3 (as fast or faster, more recall); 4 is slower and worse than 0
        self.assertEqual(list(pareto_front(speedup, recall, higher_is_better=True)), [0, 3])

    def test_empty(self):
        self.assertEqual(len(pareto_front([], [], higher_is_better=True)), 0)


class PlotSweep(unittest.TestCase):
    def _plot(self, results, png):
        if os.path.exists(png):
            os.remove(png)
        out = subprocess.run([sys.executable, os.path.join(HERE, "plot_sweep.py"), results, "-o", png],
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertTrue(os.path.isfile(png), png)
        self.assertGreater(os.path.getsize(png), 10000)
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        return out.stdout

    def test_current_file(self):
        path = os.path.join(WORKDIR, "current.h5")
        write_current(path)
        stdout = self._plot(path, os.path.join(WORKDIR, "current.png"))
        self.assertIn("plot:", stdout)

    def test_old_file(self):
        path = os.path.join(WORKDIR, "old.h5")
        write_old(path)
        self._plot(path, os.path.join(WORKDIR, "old.png"))


def main():
    global WORKDIR
    args = sys.argv[1:]
    if args:
        WORKDIR = args.pop(0)
        os.makedirs(WORKDIR, exist_ok=True)
        return unittest.main(argv=[sys.argv[0], "-v"], exit=False).result.wasSuccessful()
    with tempfile.TemporaryDirectory(prefix="sketchmm_analysis_") as tmp:
        WORKDIR = tmp
        return unittest.main(argv=[sys.argv[0], "-v"], exit=False).result.wasSuccessful()


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
