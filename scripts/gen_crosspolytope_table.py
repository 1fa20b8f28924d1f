#!/usr/bin/env python3
"""Generate sketch/crosspolytope_table.c, the calibration of cross-polytope
codes (see include/sketchmm/sketch.h, "Cross-polytope LSH", Calibration): at
theta_k = k pi / 256, k = 0..256,

- cp_gauss[e][k]: p_D(theta_k) of the Gaussian model below for D = 2^e,
  e = 0..24;
- cp_mc[.][k]: for rotation dimensions D = 2^e, e = 1..MC_MAX_LOG2, and hash
  dimensions D' = 2^e2 <= D (the first D' coordinates of the rotation), the
  collision probability of the implemented HD-rotation hash measured by
  scripts/gen_crosspolytope_mc.c (its output file is given with --mc),
  made non-increasing in theta by pool-adjacent-violators (isotonic)
  regression with the exact end values p(0) = 1 and p(pi) = 0.

Gaussian model: the D rotated coordinates of two unit vectors with cosine
rho = cos(theta) are independent pairs (u_i, v_i) of standard normals with
correlation rho, so

  p_D = 2D * integral_{u, v > 0} phi_rho(u, v) F(u, v)^(D-1) du dv,
  F(u, v) = P(|U| < u, |V| < v).

Quadrature: substitute v = rho u + sigma z (sigma = sin theta), so that
phi_rho(u, v) du dv = phi(u) phi(z) du dz whatever theta; composite Simpson in
u on (0, 9] and, for each u, in z on [max(-rho u / sigma, -9), 9] (v > 0), 361
nodes each. 1 - F = P(|U| >= u) + P(|V| >= v) - J with the joint tail
J = 2 (P(U > u, V > v; rho) + P(U > u, V > v; -rho)), each orthant from
Owen's T function (scipy.special.owens_t), and F^(D-1) = exp((D-1) log1p(-(1-F))).
Halving the node counts changes no value by more than 2e-7 (checked for
D = 2 .. 1024). Exact values are used where known: p_1 = 1 - theta/pi,
p_D(0) = 1, p_D(pi) = 0.

Usage (Debian: python3-numpy, python3-scipy):
  /usr/bin/python3 scripts/gen_crosspolytope_table.py --mc /tmp/cp_mc.txt > sketch/crosspolytope_table.c
"""
import sys

import numpy as np
from scipy.special import erfc, log1p, ndtr, owens_t

STEPS = 256
MAX_LOG2 = 24
MC_MAX_LOG2 = 10
NODES = 361
LIMIT = 9.0


def simpson_weights(n, h):
    w = np.ones(n)
    w[1:-1:2] = 4
    w[2:-1:2] = 2
    return w * h / 3


def upper_orthant(h, k, r):
    """P(X > h, Y > k) for a standard bivariate normal with correlation r (h, k > 0, |r| < 1)."""
    s = np.sqrt(1 - r * r)
    return (0.5 * ndtr(-h) + 0.5 * ndtr(-k)
            - owens_t(h, (k - r * h) / (h * s)) - owens_t(k, (h - r * k) / (k * s)))


def collision_probabilities(theta, dims):
    """p_D(theta) for every D in dims (all >= 2), 0 < theta < pi."""
    rho, sig = np.cos(theta), np.sin(theta)
    u_all = np.linspace(0.0, LIMIT, NODES)
    wu_all = simpson_weights(NODES, LIMIT / (NODES - 1))
    out = np.zeros(len(dims))
    for u, wu in zip(u_all[1:], wu_all[1:]):  # u = 0: F = 0
        zlo = max(-rho * u / sig, -LIMIT)
        if zlo >= LIMIT:
            continue
        z = np.linspace(zlo, LIMIT, NODES)
        wz = simpson_weights(NODES, (LIMIT - zlo) / (NODES - 1))
        v = np.maximum(rho * u + sig * z, 1e-12)
        joint = 2.0 * (upper_orthant(u, v, rho) + upper_orthant(u, v, -rho))
        tail = erfc(u / np.sqrt(2.0)) + erfc(v / np.sqrt(2.0)) - joint
        log_f = log1p(-np.minimum(tail, 1.0))
        base = (wu * np.exp(-0.5 * u * u) / np.sqrt(2 * np.pi)) * wz * np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi)
        for j, dim in enumerate(dims):
            out[j] += 2.0 * dim * np.sum(base * np.exp((dim - 1) * log_f))
    return out


def isotonic_decreasing(y, w):
    """Weighted least-squares non-increasing fit (pool adjacent violators)."""
    blocks = []  # [mean, weight, count]
    for yi, wi in zip(y, w):
        blocks.append([yi, wi, 1])
        while len(blocks) > 1 and blocks[-2][0] < blocks[-1][0]:
            m2, w2, c2 = blocks.pop()
            m1, w1, c1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, c1 + c2])
    out = []
    for m, _, c in blocks:
        out += [m] * c
    return np.array(out)


def read_mc(path):
    rows = {}
    with open(path) as f:
        for line in f:
            e, e2, k, hits, n = (int(t) for t in line.split())
            rows.setdefault((e, e2), np.zeros(STEPS + 1))[k] = hits / n
    mc = []
    for e in range(1, MC_MAX_LOG2 + 1):
        for e2 in range(e + 1):
            p = rows[(e, e2)].copy()
            p[0], p[STEPS] = 1.0, 0.0
            mc.append(((e, e2), isotonic_decreasing(p, np.ones(STEPS + 1))))
    return mc


def main():
    if len(sys.argv) != 3 or sys.argv[1] != "--mc":
        sys.exit("usage: gen_crosspolytope_table.py --mc MC_OUTPUT > sketch/crosspolytope_table.c")
    mc = read_mc(sys.argv[2])
    dims = [2 ** e for e in range(1, MAX_LOG2 + 1)]
    table = np.zeros((MAX_LOG2 + 1, STEPS + 1))
    for k in range(STEPS + 1):
        theta = k * np.pi / STEPS
        table[0, k] = 1.0 - k / STEPS
        if k == 0:
            table[1:, k] = 1.0
        elif k == STEPS:
            table[1:, k] = 0.0
        else:
            table[1:, k] = np.clip(collision_probabilities(theta, dims), 0.0, 1.0)
        print(f"theta {k}/{STEPS}", file=sys.stderr, flush=True)
    w = sys.stdout.write
    w("/*\n * crosspolytope_table.c - GENERATED by scripts/gen_crosspolytope_table.py; do not edit.\n")
    w(" *\n * cp_gauss[e][k] = p_D(theta_k), the collision probability of a cross-polytope\n")
    w(" * hash of dimension D = 2^e under the Gaussian model, theta_k = k pi / %d;\n" % STEPS)
    w(" * cp_mc[e (e + 1) / 2 - 1 + e2][k] (1 <= e <= %d, 0 <= e2 <= e): the measured\n" % MC_MAX_LOG2)
    w(" * collision probability of the hash of dimension 2^e2 on the first coordinates\n")
    w(" * of the HD-rotation of dimension 2^e (the scripts document both).\n */\n")
    w('#include "sketch/crosspolytope.h"\n\n')
    w("static const double cp_mc[%d][%d] = {\n" % (len(mc), STEPS + 1))
    for (e, e2), row in mc:
        w("    { /* D = %d, D' = %d */\n" % (2 ** e, 2 ** e2))
        vals = ["%.7g" % x for x in row]
        for i in range(0, len(vals), 8):
            w("        " + ", ".join(vals[i:i + 8]) + ",\n")
        w("    },\n")
    w("};\n\n")
    w("static const double cp_gauss[%d][%d] = {\n" % (MAX_LOG2 + 1, STEPS + 1))
    for e in range(MAX_LOG2 + 1):
        w("    { /* D = %d */\n" % (2 ** e))
        vals = ["%.12e" % x for x in table[e]]
        for i in range(0, len(vals), 4):
            w("        " + ", ".join(vals[i:i + 4]) + ",\n")
        w("    },\n")
    w("};\n\n")
    w("const double *cp_table_row(int e, int e2)\n{\n")
    w("    if (e < 1 || e > CP_TABLE_MAX_LOG2 || e2 < 0 || e2 > e)\n        return 0;\n")
    w("    if (e <= CP_TABLE_MC_MAX_LOG2)\n        return cp_mc[e * (e + 1) / 2 - 1 + e2];\n")
    w("    return cp_gauss[e2];\n}\n")


if __name__ == "__main__":
    main()
