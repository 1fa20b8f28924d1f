"""Runtime controls (common.h, tuning.h): instruction-set path, thread count, version, kernel names,
methods, and the exact core's configuration and tuner.

Every kernel exists as a portable C reference ("scalar") and, where written, in SIMD
versions ("avx2": AVX2 + FMA + POPCNT; "avx512": AVX-512 F/BW/DQ/VL; "neon":
AArch64). The path is chosen once per process: "auto" takes the environment
variable SKETCHMM_ISA when set, else the best path the CPU supports. Threads
(OpenMP) default to SKETCHMM_NUM_THREADS when set, else OpenMP's maximum; results
never depend on the thread count. Run-time code generation (batch-reduce GEMM
plans, the unary primitives, small matrix products on the avx2, avx512 and neon
paths) is on unless SKETCHMM_JIT=0 or set_jit(False); generated and precompiled
kernels give the same bits.

The exact core (exact_sgemm and what is built on it) runs with a configuration per
path: micro-kernel shape, cache blocks, threading split, prefetch distance,
small-product threshold, exact_topk's block, the 4x4 kernels' paths. It comes from a
tuning file written by the tuner (tune(), or the program sketchmm_tune) when one
matches this CPU and library, else from an analytical model of the caches, else a
fixed table; exact_config() says which, and what it holds. SKETCHMM_TUNING names
the file, or "none" for no file.
"""

from __future__ import annotations

import sys

from . import _arrays
from ._lib import ffi, lib
from ._lib import path as library_path
from ._methods import CODE_METHODS, METHODS, enum_names
from .errors import InvalidArgumentError, check

__all__ = ["isa", "set_isa", "isa_supported", "supported_isas", "num_threads", "set_num_threads", "jit",
           "set_jit", "jit_status", "jit_stats", "version", "version_number", "kernel_names", "methods",
           "library_path", "ISAS", "exact_config", "tuning_path", "reload_tuning", "tune"]

# name -> smm_isa value
ISAS = enum_names(lib.smm_isa_name, range(16))


def _isa_value(name):
    value = ISAS.get(str(name).lower()) if isinstance(name, str) else None
    if value is None:
        raise InvalidArgumentError(f"unknown ISA path {name!r}; one of {', '.join(ISAS)}")
    return value


def isa() -> str:
    """The ISA path in use ("scalar", "avx2", "avx512", "neon"), resolving "auto" on first use.
    Raises PlatformError when SKETCHMM_ISA names a missing or unknown path."""
    value = ffi.new("smm_isa *")
    check(lib.smm_get_isa(value), "smm_get_isa")
    return ffi.string(lib.smm_isa_name(value[0])).decode()


def set_isa(name: str) -> None:
    """Select the ISA path for every later call in this process ("auto" re-reads SKETCHMM_ISA).
    Raises InvalidArgumentError for an unknown name, PlatformError when the CPU lacks the path (the
    computing calls then fail the same way until a later set_isa succeeds). Not to be called while
    another thread is inside a sketchmm call."""
    check(lib.smm_set_isa(_isa_value(name)), "set_isa", f"{name!r}")


def isa_supported(name: str) -> bool:
    """Whether this CPU and this build can run the path ("auto" and "scalar": always)."""
    return bool(lib.smm_isa_supported(_isa_value(name)))


def supported_isas() -> list[str]:
    """The paths this CPU and build can run, "auto" excluded."""
    return [name for name in ISAS if name != "auto" and isa_supported(name)]


def num_threads() -> int:
    """The thread count computing calls use (at least 1)."""
    return int(lib.smm_get_num_threads())


def set_num_threads(n: int) -> None:
    """Threads for every later computing call; 0 restores the default (SKETCHMM_NUM_THREADS, else
    OpenMP's maximum). Raises InvalidArgumentError for n < 0 or n > 4096."""
    check(lib.smm_set_num_threads(_arrays.integer(n, "threads", 0, 4096)), "set_num_threads")


def jit() -> bool:
    """Whether run-time code generation is on (False also while SKETCHMM_JIT cannot be parsed)."""
    return bool(lib.smm_get_jit())


def set_jit(on) -> None:
    """Turn run-time code generation on (True) or off (False) for later plans and calls (a
    brgemm plan keeps what it was made with); None restores the default, re-reading SKETCHMM_JIT
    (raises PlatformError when it cannot be parsed). Not to be called while another thread is
    inside a sketchmm call."""
    if on is not None and not isinstance(on, bool):
        raise InvalidArgumentError(f"set_jit takes True, False or None, not {on!r}")
    check(lib.smm_set_jit(-1 if on is None else int(on)), "set_jit")


def jit_status() -> None:
    """Raises PlatformError (status SMM_ERR_NO_EXEC_MEMORY) when the system refuses executable memory
    for generated code: the precompiled kernels then run. Returns None when generated code can run."""
    check(lib.smm_jit_status(), "jit_status")


def jit_stats() -> dict[str, float]:
    """What the code generator has done (sketchmm/jit.h): kernels generated, cache hits, requests that
    got no kernel (failed), kernels evicted from the cache, kernels and bytes of code held now, and
    the seconds spent generating."""
    stats = ffi.new("smm_jit_stats *")
    lib.smm_jit_get_stats(stats)
    return {"generated": int(stats.generated), "hits": int(stats.hits), "failed": int(stats.failed),
            "evicted": int(stats.evicted), "kernels": int(stats.kernels), "code_bytes": int(stats.code_bytes),
            "generate_seconds": float(stats.generate_seconds)}


def version() -> str:
    """The library's version, "MAJOR.MINOR.PATCH"."""
    return ffi.string(lib.smm_version()).decode()


def version_number() -> int:
    """The library's version as major * 10000 + minor * 100 + patch."""
    return int(lib.smm_version_number())


def kernel_names() -> dict[str, str]:
    """The kernels the current ISA path runs, per module: exact (exact_sgemm's micro-kernel, e.g.
    "avx512_12x32"), hamming, crosspolytope, unary, mat4. "unavailable" after a failed ISA selection."""
    functions = {"exact": lib.exact_sgemm_kernel_name, "hamming": lib.sketch_hamming_kernel_name,
                 "crosspolytope": lib.sketch_crosspolytope_kernel_name, "unary": lib.unary_kernel_name,
                 "mat4": lib.mat4_kernel_name}
    return {module: ffi.string(f()).decode() for module, f in functions.items()}


def methods() -> dict[str, str]:
    """The approximate methods: name -> what sizes it ("bits" or "sketch_dim")."""
    return {name: "bits" if name in CODE_METHODS else "sketch_dim" for name in METHODS}


_MAT4_OPS = ("mul_f32", "mul_f64", "inv_f32", "inv_f64")


def _isa_name(value):
    name = lib.smm_isa_name(value)
    return ffi.string(name).decode() if name != ffi.NULL else str(int(value))


def exact_config() -> dict:
    """The exact core's configuration on the current ISA path, and where it came from.

    Keys: isa; source ("tuned": a tuning file, "model": the analytical cache model, "table": fixed
    sizes); kernel (e.g. "avx512_12x32"), mr, nr; kc; mc, nc, split, prefetch (pairs: one thread,
    several threads); sup_max_macs; topk_block (rows, columns); mat4 (operation -> path of the
    batched 4x4 kernels); file (the tuning file read or looked for, "" for none); note (what became
    of it: "read", "no file", "ignored: ..."); description (the same as one line, as
    sketchmm_bench and the sweep's HDF5 attributes record it). Raises PlatformError after a failed
    ISA selection."""
    c = ffi.new("smm_exact_config *")
    check(lib.smm_exact_config_get(c), "smm_exact_config_get")
    text = ffi.new("char[]", 2048)
    lib.smm_exact_config_describe(c, text, 2048)
    return {
        "isa": _isa_name(c.isa),
        "source": ffi.string(lib.smm_config_source_name(c.source)).decode(),
        "kernel": ffi.string(c.kernel).decode(),
        "mr": int(c.mr), "nr": int(c.nr), "kc": int(c.kc),
        "mc": (int(c.mc[0]), int(c.mc[1])), "nc": (int(c.nc[0]), int(c.nc[1])),
        "split": (ffi.string(c.split[0]).decode(), ffi.string(c.split[1]).decode()),
        "prefetch": (int(c.prefetch[0]), int(c.prefetch[1])),
        "sup_max_macs": float(c.sup_max_macs),
        "topk_block": (int(c.topk_rows), int(c.topk_cols)),
        "mat4": {op: _isa_name(c.mat4_paths[i]) for i, op in enumerate(_MAT4_OPS)},
        "file": ffi.string(c.file).decode(),
        "note": ffi.string(c.note).decode(),
        "description": ffi.string(text).decode(),
    }


def tuning_path() -> str:
    """The tuning file this process reads and tune() writes by default: SKETCHMM_TUNING when set,
    else this CPU's file under $XDG_CACHE_HOME/sketchmm (or ~/.cache/sketchmm); "" when
    SKETCHMM_TUNING is "none" or no home directory is known."""
    buf = ffi.new("char[]", 1024)
    check(lib.smm_tuning_path(buf, 1024), "smm_tuning_path")
    return ffi.string(buf).decode()


def reload_tuning() -> None:
    """Read SKETCHMM_TUNING and the tuning file again (after changing the variable, or after
    another process tuned). Not to be called while another thread is inside a sketchmm call."""
    check(lib.smm_tuning_reload(), "smm_tuning_reload")


def _progress_printer(stream):
    def show(elapsed, budget, status):
        stream.write(f"\r\033[K[{min(100, round(100 * elapsed / budget)):3d}%] {elapsed:4.0f} s / {budget:.0f} s  "
                     f"{status[:160]}")
        stream.flush()
    return show


def tune(budget: float = 120.0, threads: int = 0, path: str | None = None, progress=True) -> dict:
    """Measure this machine and write the exact core's tuning file (as the program sketchmm_tune).

    Searches micro-kernel shapes, kc, mc, nc, the threading split and prefetch distance (one
    thread and `threads` threads; 0: num_threads()), the small-product threshold, exact_topk's
    block and the 4x4 kernels' paths within `budget` seconds (at least 10), on the current ISA
    path. The result is written to `path` (None: tuning_path(); "none": nowhere) and becomes this
    process's configuration at once; other processes read it on first use. progress: True prints
    a progress line to stderr, False nothing, or a callable(elapsed, budget, status). Returns
    exact_config(). Raises InvalidArgumentError for a budget or thread count out of range,
    FileError when the file could not be written (the configuration is active all the same).
    The GIL is released while it runs, except in the progress callback. Not to be called while
    another thread is inside a sketchmm call."""
    budget = float(budget)
    if not budget >= 10.0 or budget > 86400.0:
        raise InvalidArgumentError(f"tune: budget {budget} s is not in [10, 86400]")
    options = ffi.new("smm_tune_options *")
    options.budget_seconds = budget
    options.threads = _arrays.integer(threads, "threads", 0, 4096)
    keep = None
    if path is not None:
        keep = ffi.new("char[]", str(path).encode())
        options.path = keep
    shown = _progress_printer(sys.stderr) if progress is True else (progress or None)
    callback = ffi.NULL
    if shown is not None:
        @ffi.callback("smm_tune_progress_fn")
        def callback(arg, elapsed, total, status):
            shown(float(elapsed), float(total), ffi.string(status).decode())
    status = lib.smm_tune(options, callback, ffi.NULL)
    if progress is True:
        sys.stderr.write("\n")
    check(status, "smm_tune", str(path) if path is not None else None)
    return exact_config()
