#!/usr/bin/python3
"""Stress data sets for the learned methods (lowrank, pq, maddness), written as
HDF5 files the sweep reads as FILE.h5:/X (one vector per row, float32).

Each set keeps a low-rank structure that lowrank can find, and breaks one
assumption of the quantizers:

  cubed       the cubes of low-rank Gaussian data (x -> x^3, rows rescaled to
              unit RMS): the same directions ranked by a monotone map, but
              heavy-tailed coordinates (kurtosis about 46 against 3).
  dimscales   low-rank data whose coordinates are multiplied by scales spread
              over four decades (10^U(-2, 2), a fixed random order): a few
              dimensions carry most of the variance, spread over the
              contiguous subspaces unevenly.
  rowscales   low-rank data whose rows are multiplied by scales spread over
              four decades (10^U(-2, 2)): a database of very different norms,
              where the largest inner products go to the longest vectors.

Usage: stress_sets.py OUT_DIR [--rows N] [--k K] [--rank R] [--seed S]
(defaults 10500 rows of 784: 500 queries and a database of 10,000).
"""
import argparse
import os

import h5py
import numpy as np


def lowrank(rng, rows, k, rank, noise=0.1):
    """U V^T / sqrt(rank) + noise E, every factor i.i.d. N(0, 1)."""
    u = rng.standard_normal((rows, rank))
    v = rng.standard_normal((k, rank))
    return u @ v.T / np.sqrt(rank) + noise * rng.standard_normal((rows, k))


def unit_rms(x):
    return x / np.sqrt(np.mean(x * x, axis=1, keepdims=True))


def make(name, rows, k, rank, seed):
    rng = np.random.default_rng(seed)
    x = lowrank(rng, rows, k, rank)
    if name == "cubed":
        return unit_rms(x**3)
    if name == "dimscales":
        return x * 10.0 ** rng.uniform(-2.0, 2.0, size=(1, k))
    if name == "rowscales":
        return unit_rms(x) * 10.0 ** rng.uniform(-2.0, 2.0, size=(rows, 1))
    raise ValueError(name)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out_dir")
    p.add_argument("--rows", type=int, default=10500)
    p.add_argument("--k", type=int, default=784)
    p.add_argument("--rank", type=int, default=32)
    p.add_argument("--seed", type=int, default=42)
    a = p.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    for name in ("cubed", "dimscales", "rowscales"):
        x = make(name, a.rows, a.k, a.rank, a.seed).astype(np.float32)
        kurt = float(np.mean((x - x.mean()) ** 4) / np.var(x) ** 2)
        path = os.path.join(a.out_dir, name + ".h5")
        with h5py.File(path, "w") as f:
            f.create_dataset("X", data=x)
        print(f"{path}:/X  {x.shape[0]} x {x.shape[1]}, kurtosis {kurt:.1f}")


if __name__ == "__main__":
    main()
