"""Finding and opening libsketchmm.so (cffi ABI mode: no compiler needed at install time).

The library is looked for, in this order:

1. ``SKETCHMM_LIBRARY``: the path of the shared library (e.g.
   ``build/libsketchmm.so``). When it is set, it is the only place tried.
2. ``sketchmm/_paths.py``: written by ``cmake --install`` next to the installed
   package, it records the path of the library installed with it.
3. The build tree, for development: ``<repository>/build/libsketchmm.so`` when
   the package is imported from the repository's ``python/`` directory.
4. ``ctypes.util.find_library("sketchmm")``: the dynamic linker's search path
   (``ldconfig`` cache, ``LD_LIBRARY_PATH``), e.g. after ``cmake --install``
   to ``/usr/local`` and ``ldconfig``.

cffi releases the GIL around every call into the library, so computing calls
run in parallel with other Python threads.

The library is opened with RTLD_NODELETE (and is itself linked with -z nodelete): it
stays mapped for the life of the process, because the OpenMP worker threads it starts
outlive its calls, and unmapping their code at interpreter exit would crash them.
"""

import ctypes.util
import os

from cffi import FFI

from ._cdef import CDEF

ENV_VAR = "SKETCHMM_LIBRARY"

ffi = FFI()
ffi.cdef(CDEF)


def _recorded_path():
    """The path cmake --install wrote into _paths.py, or None."""
    try:
        from . import _paths  # generated at install time; absent in the source tree
    except ImportError:
        return None
    return getattr(_paths, "LIBRARY", None)


def _build_tree_path():
    """<repository>/build/libsketchmm.so when this package lives in <repository>/python/sketchmm."""
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    path = os.path.join(root, "build", "libsketchmm.so")
    if os.path.isfile(os.path.join(root, "include", "sketchmm.h")) and os.path.exists(path):
        return path
    return None


def candidates():
    """[(where, path)]: the places tried, in order (see the module docstring)."""
    env = os.environ.get(ENV_VAR)
    if env:
        return [(f"${ENV_VAR}", env)]
    found = []
    for where, path in (("sketchmm/_paths.py (cmake --install)", _recorded_path()),
                        ("the build tree", _build_tree_path()),
                        ("ctypes.util.find_library('sketchmm')", ctypes.util.find_library("sketchmm"))):
        if path:
            found.append((where, path))
    return found


def _open():
    tried = []
    for where, path in candidates():
        try:
            return ffi.dlopen(path, ffi.RTLD_NOW | ffi.RTLD_NODELETE), path
        except OSError as e:
            tried.append(f"  {where}: {path}: {e}")
    raise ImportError(
        "sketchmm: cannot load the C library libsketchmm.so.\n"
        + ("Tried:\n" + "\n".join(tried) + "\n" if tried else "")
        + f"It is looked for (1) at ${ENV_VAR} (a path, e.g. build/libsketchmm.so), (2) at the path "
        "cmake --install recorded in sketchmm/_paths.py, (3) in the repository's build/ directory when "
        "imported from its python/ directory, (4) by ctypes.util.find_library('sketchmm') (ldconfig, "
        f"LD_LIBRARY_PATH). Build it (cmake -S . -B build && cmake --build build) and set ${ENV_VAR}, "
        "or install it with cmake --install.")


def _check_version(library, where):
    """The library's MAJOR.MINOR must be the package's: the declarations of _cdef.py are those of that version."""
    from ._version import __version__
    try:
        have = ffi.string(library.smm_version()).decode()
    except AttributeError:  # a library too old to have smm_version
        have = "unknown"
    if have.split(".")[:2] != __version__.split(".")[:2]:
        raise ImportError(f"sketchmm {__version__}: the C library at {where} is version {have}; "
                          f"use a libsketchmm.so of version {'.'.join(__version__.split('.')[:2])}.x")


lib, path = _open()
_check_version(lib, path)
