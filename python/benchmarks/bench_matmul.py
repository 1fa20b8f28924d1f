#!/usr/bin/python3
"""sketchmm.matmul against numpy.matmul (Debian's numpy on OpenBLAS) in the same run.

    SKETCHMM_LIBRARY=build/libsketchmm.so /usr/bin/python3 python/benchmarks/bench_matmul.py
        [--sizes 256,512,1024,2048,4096] [--reps 5] [--tiny 4,16,64] [--threads N]

1. Square float32 products C = A B (n x n), both libraries writing into a preallocated C (out=; fresh
   output pages would add first-touch page faults to both): a warm-up each, then `reps` rounds each
   timing one sketchmm.matmul and one numpy.matmul (alternating which goes first); medians, GFLOP/s =
   2 n^3 / time, and the ratio numpy time / sketchmm time (above 1: sketchmm faster).
2. Call overhead on tiny products (n = 4, 16, 64): microseconds per call, allocating the result as a
   user would (A @ B style) and with out=, the best of 5 timeit runs of many calls each.

Both use all cores unless --threads is given (sketchmm.set_num_threads; OpenBLAS reads
OPENBLAS_NUM_THREADS at start-up, so set that too for a fair single-thread comparison). Timings on a
shared machine wander: run it on a quiet one.
"""

import argparse
import os
import statistics
import sys
import time
import timeit

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout's package
import sketchmm  # noqa: E402


def _ints(text):
    return [int(v) for v in text.split(",") if v]


def square(sizes, reps, rng):
    print(f"{'n':>6} {'sketchmm s':>11} {'numpy s':>11} {'sketchmm GFLOP/s':>17} {'numpy GFLOP/s':>14} "
          f"{'numpy/sketchmm':>15}")
    for n in sizes:
        A = rng.standard_normal((n, n), dtype=np.float32)
        B = rng.standard_normal((n, n), dtype=np.float32)
        C1 = np.zeros((n, n), np.float32)
        C2 = np.zeros((n, n), np.float32)
        ours, theirs = [], []
        calls = ((lambda: sketchmm.matmul(A, B, out=C1), ours), (lambda: np.matmul(A, B, out=C2), theirs))
        for r in range(reps + 1):  # round 0: the warm-up, not kept
            for call, times in (calls if r % 2 == 0 else calls[::-1]):
                t = time.perf_counter()
                call()
                times.append(time.perf_counter() - t)
        del ours[0], theirs[0]
        err = float(np.abs(C1 - C2).max() / max(1e-30, float(np.abs(C2).max())))
        t1, t2 = statistics.median(ours), statistics.median(theirs)
        flops = 2.0 * n**3
        print(f"{n:>6} {t1:>11.5f} {t2:>11.5f} {flops / t1 / 1e9:>17.1f} {flops / t2 / 1e9:>14.1f} "
              f"{t2 / t1:>15.2f}   (max rel. difference {err:.1e})", flush=True)


def tiny(sizes, rng):
    print(f"{'n':>6} {'sketchmm us':>12} {'numpy us':>10} {'sketchmm out= us':>17} {'numpy out= us':>14}")
    for n in sizes:
        A = rng.standard_normal((n, n), dtype=np.float32)
        B = rng.standard_normal((n, n), dtype=np.float32)
        C = np.empty((n, n), np.float32)
        calls = (lambda: sketchmm.matmul(A, B), lambda: np.matmul(A, B),
                 lambda: sketchmm.matmul(A, B, out=C), lambda: np.matmul(A, B, out=C))
        cells = []
        for call in calls:
            number = 2000
            best = min(timeit.repeat(call, number=number, repeat=5)) / number
            cells.append(best * 1e6)
        print(f"{n:>6} {cells[0]:>12.2f} {cells[1]:>10.2f} {cells[2]:>17.2f} {cells[3]:>14.2f}", flush=True)


def numpy_blas():
    """The BLAS library numpy has loaded (Debian: libblas.so.3 through alternatives), from /proc/self/maps."""
    np.matmul(np.ones((64, 64), np.float32), np.ones((64, 64), np.float32))
    try:
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if "blas" in line.split()[-1].rsplit("/", 1)[-1]}
    except OSError:
        return "?"
    return ", ".join(sorted(os.path.realpath(p) for p in paths)) or "?"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=_ints, default=[256, 512, 1024, 2048, 4096])
    parser.add_argument("--reps", type=int, default=5, help="timed rounds per size (default 5)")
    parser.add_argument("--tiny", type=_ints, default=[4, 16, 64], help="sizes of the call-overhead table")
    parser.add_argument("--threads", type=int, default=0, help="sketchmm threads (0: the library default)")
    args = parser.parse_args(argv)
    if args.threads:
        sketchmm.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    blas = numpy_blas()
    print(f"sketchmm {sketchmm.version()} ({sketchmm.library_path}), ISA {sketchmm.isa()}, exact kernel "
          f"{sketchmm.kernel_names()['exact']}, {sketchmm.num_threads()} threads; numpy {np.__version__} "
          f"(BLAS {blas}, OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}); "
          f"{os.cpu_count()} CPUs")
    if args.sizes:
        print(f"\nsquare products, medians of {args.reps} rounds (out= preallocated):")
        square(args.sizes, args.reps, rng)
    if args.tiny:
        print("\ncall overhead, best of 5 x 2000 calls:")
        tiny(args.tiny, rng)
    return 0


if __name__ == "__main__":
    sys.exit(main())
