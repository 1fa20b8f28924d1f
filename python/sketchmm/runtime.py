"""Runtime controls (common.h): instruction-set path, thread count, version, kernel names, methods.

Every kernel exists as a portable C reference ("scalar") and, where written, in SIMD
versions ("avx2": AVX2 + FMA + POPCNT; "avx512": AVX-512 F/BW/DQ/VL; "neon":
AArch64). The path is chosen once per process: "auto" takes the environment
variable SKETCHMM_ISA when set, else the best path the CPU supports. Threads
(OpenMP) default to SKETCHMM_NUM_THREADS when set, else OpenMP's maximum; results
never depend on the thread count. Run-time code generation (batch-reduce GEMM
plans, the unary primitives, small matrix products on the avx2, avx512 and neon
paths) is on unless SKETCHMM_JIT=0 or set_jit(False); generated and precompiled
kernels give the same bits.
"""

from __future__ import annotations

from . import _arrays
from ._lib import ffi, lib
from ._lib import path as library_path
from ._methods import CODE_METHODS, METHODS, enum_names
from .errors import InvalidArgumentError, check

__all__ = ["isa", "set_isa", "isa_supported", "supported_isas", "num_threads", "set_num_threads", "jit",
           "set_jit", "jit_status", "jit_stats", "version", "version_number", "kernel_names", "methods",
           "library_path", "ISAS"]

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
