#!/usr/bin/python3
"""What borrowing op(B) saves: approx_plan_create copying B against borrowing it (APPROX_BORROW_B),
beside the exact product of the same shape, in the same run.

    SKETCHMM_LIBRARY=build/libsketchmm.so /usr/bin/python3 python/benchmarks/bench_plan.py
        [--shapes 4096x4096x4096,10000x60000x784] [--methods gaussian_projection:64,...] [--reps 7]

A shape is m x n x k: B is k x n (the plan's database), A is m x k. For each method: `reps` rounds,
each timing one plan creation that copies B (Plan(B)) and one that borrows it (Plan(B, borrow=True)),
alternating which goes first, and the one-shot product approx_matmul(A, B) (which borrows since 0.4).
Prints median milliseconds, the ratio copy / borrow, and the exact product sketchmm.matmul(A, B) as
the baseline the approximate one-shot call is measured against. Random data in [-1, 1): the times
do not depend on it. Timings on a shared machine wander: run it on a quiet one.
"""

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout's package
import sketchmm  # noqa: E402

DEFAULT_METHODS = "gaussian_projection:64,srht:64,countsketch:64,cr_sampling:64,lowrank:16,simhash_structured:256"


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def seconds(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", default="4096x4096x4096,10000x60000x784")
    ap.add_argument("--methods", default=DEFAULT_METHODS, help="name:size,... (size as approx_matmul's size=)")
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()
    if args.reps < 1:
        ap.error("--reps must be at least 1")
    methods = []
    for item in args.methods.split(","):
        name, _, size = item.partition(":")
        methods.append((name, int(size) if size else None))
    print(f"CPU: {cpu_name()}, {os.cpu_count()} logical CPUs; sketchmm {sketchmm.__version__}, "
          f"ISA path {sketchmm.runtime.isa()}; medians of {args.reps} rounds")
    rng = np.random.default_rng(1)
    for shape in args.shapes.split(","):
        m, n, k = (int(x) for x in shape.split("x"))
        A = rng.uniform(-1, 1, (m, k)).astype(np.float32)
        B = rng.uniform(-1, 1, (k, n)).astype(np.float32)
        C = np.empty((m, n), np.float32)
        sketchmm.matmul(A, B, out=C)
        exact = statistics.median(seconds(lambda: sketchmm.matmul(A, B, out=C)) for _ in range(args.reps))
        print(f"\nm x n x k = {m} x {n} x {k}: B is {4 * n * k / 2**20:.0f} MiB; exact product {exact * 1e3:.1f} ms")
        print(f"{'method':<20} {'size':>5} {'copy ms':>9} {'borrow ms':>10} {'copy/borrow':>12} "
              f"{'one-shot ms':>12} {'exact/one-shot':>15}")
        for name, size in methods:
            Plan = sketchmm.Plan
            Plan(B, method=name, size=size).close()  # warm-up: pages, OpenMP threads
            copy, borrow, ratio, oneshot = [], [], [], []
            for r in range(args.reps):
                make = [("copy", False), ("borrow", True)]
                if r % 2:
                    make.reverse()
                got = {}
                for label, flag in make:
                    got[label] = seconds(lambda: Plan(B, method=name, size=size, borrow=flag).close())
                copy.append(got["copy"])
                borrow.append(got["borrow"])
                ratio.append(got["copy"] / got["borrow"])
                oneshot.append(seconds(lambda: sketchmm.approx_matmul(A, B, method=name, size=size)))
            one = statistics.median(oneshot)
            print(f"{name:<20} {size if size else '-':>5} {statistics.median(copy) * 1e3:>9.1f} "
                  f"{statistics.median(borrow) * 1e3:>10.1f} {statistics.median(ratio):>12.2f} "
                  f"{one * 1e3:>12.1f} {exact / one:>15.2f}")


if __name__ == "__main__":
    main()
