"""The GIL is released during every computing call, shown without timing.

With sys.setswitchinterval(100) the interpreter never takes the GIL away from a running thread, so
another thread can only run while the GIL is released voluntarily. A worker thread reads a counter,
makes one call, reads the counter again; the main thread increments the counter whenever it runs.
Any increment between the two reads happened while the worker was inside the call, so the call
released the GIL. (Short calls, a few milliseconds each, are repeated: the main thread sleeps between its bursts and
must wake while the worker is inside the library at least once, which a loaded machine may delay
beyond one call.) The negative control (a long builtin
call that holds the GIL) sees none: the method can fail.
"""

import sys
import threading
import time

import numpy as np
import pytest

import sketchmm
from sketchmm._lib import ffi, lib


def increments_during(call):
    state = {"count": 0, "stop": False, "during": None, "error": None}

    def worker():
        try:
            before = state["count"]
            call()
            state["during"] = state["count"] - before
        except BaseException as e:  # reported by the main thread
            state["error"] = e
        finally:
            state["stop"] = True

    old = sys.getswitchinterval()
    sys.setswitchinterval(100.0)
    try:
        thread = threading.Thread(target=worker)
        thread.start()
        while not state["stop"]:
            for _ in range(1000):
                state["count"] += 1
            time.sleep(0.0002)  # lets the worker take the GIL back when its call returns
        thread.join()
    finally:
        sys.setswitchinterval(old)
    if state["error"] is not None:
        raise state["error"]
    return state["during"]


def test_negative_control_holding_the_gil():
    assert increments_during(lambda: sum(range(3_000_000))) == 0


N = 512


@pytest.fixture(scope="module")
def operands():
    rng = np.random.default_rng(1)
    A = rng.standard_normal((N, N)).astype(np.float32)
    B = rng.standard_normal((N, N)).astype(np.float32)
    return A, B, sketchmm.Plan(B, method="srht", sketch_dim=64, candidates=64)


def test_raw_library_call(operands):
    A, B, _ = operands
    C = np.empty((N, N), np.float32)
    pa, pb, pc = (ffi.from_buffer("float[]", x) for x in (A, B, C))
    assert increments_during(lambda: lib.exact_sgemm(101, 111, 111, N, N, N, 1.0, pa, N, pb, N, 0.0, pc, N)) > 0


@pytest.mark.parametrize("name", ["matmul", "approx_matmul", "Plan", "Plan.matmul", "Plan.topk", "exact_topk",
                                  "approx_topk", "sketch", "hamming", "brgemm", "unary"])
def test_package_calls(operands, name):
    A, B, plan = operands
    codes = sketchmm.sketch(A, bits=256)[0]
    batch = np.ascontiguousarray(np.broadcast_to(A[:64, :64], (400, 64, 64)))
    calls = {
        "matmul": lambda: [sketchmm.matmul(A, B) for _ in range(20)],
        "approx_matmul": lambda: [sketchmm.approx_matmul(A, B, method="simhash", bits=512)
                                  for _ in range(5)],
        "Plan": lambda: sketchmm.Plan(B, method="lowrank", sketch_dim=32),
        "Plan.matmul": lambda: [plan.matmul(A) for _ in range(20)],
        "Plan.topk": lambda: [plan.topk(A, k=10) for _ in range(5)],
        "exact_topk": lambda: sketchmm.exact_topk(A, B, k=10),
        "approx_topk": lambda: [sketchmm.approx_topk(A, B, k=10, method="countsketch", sketch_dim=32)
                                for _ in range(5)],
        "sketch": lambda: sketchmm.sketch(A, "simhash_orthogonal", bits=1024),
        "hamming": lambda: [sketchmm.hamming(codes, codes) for _ in range(50)],
        "brgemm": lambda: [sketchmm.brgemm(batch, batch) for _ in range(20)],
        "unary": lambda: [sketchmm.transpose(A) for _ in range(50)],
    }
    assert increments_during(calls[name]) > 0
