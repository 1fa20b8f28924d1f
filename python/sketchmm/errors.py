"""Exceptions: one class per family of smm_status values (include/sketchmm/common.h).

Every function of the C library returns an smm_status and, on any status
other than SMM_OK, leaves its outputs untouched. The package turns a non-OK
status into an exception of the status's family, carrying the library's
message (smm_status_str), the status number and its name. Arguments that are
wrong on the Python side (dtype, shape, a value out of range) raise the same
classes before any C call, with ``status`` None.

    SketchmmError                      base of everything raised here
    |-- InvalidArgumentError (ValueError)   NULL pointer, layout, transpose, bits, method,
    |   |                                    ISA value, thread count, other argument (17)
    |   |-- ShapeError                       sizes and leading dimensions (BAD_SIZE, BAD_LEADING_DIM)
    |   `-- NonFiniteError                   NaN or Inf where a finite value is required (NON_FINITE)
    |-- InputTypeError (TypeError)          an operand of a kind that cannot become float32 (Python side)
    |-- ResourceError (MemoryError)         SMM_ERR_NO_MEMORY, SMM_ERR_OVERFLOW (a size beyond the address space)
    |-- PlatformError (RuntimeError)        SMM_ERR_ISA_UNAVAILABLE, SMM_ERR_BAD_ENV (SKETCHMM_ISA,
    |                                        SKETCHMM_NUM_THREADS, SKETCHMM_JIT unparsable),
    |                                        SMM_ERR_NO_EXEC_MEMORY (runtime.jit_status only)
    `-- FileError (OSError)                 SMM_ERR_FILE (the tuner could not write its file)
"""

from ._lib import ffi, lib

__all__ = ["SketchmmError", "InvalidArgumentError", "ShapeError", "NonFiniteError", "InputTypeError",
           "ResourceError", "PlatformError", "FileError", "STATUS_NAMES", "status_string", "check"]

# smm_status value -> its name in common.h, read from the declarations (_cdef.py, checked against the header)
STATUS_NAMES = dict(ffi.typeof("smm_status").elements)


class SketchmmError(Exception):
    """Base class. ``status``: the smm_status number (None for a check made in Python),
    ``status_name``: its name in common.h, ``function``: the call that failed."""

    def __init__(self, message, status=None, function=None):
        super().__init__(message)
        self.status = status
        self.status_name = STATUS_NAMES.get(status) if status is not None else None
        self.function = function


class InvalidArgumentError(SketchmmError, ValueError):
    """An argument out of its documented range (a value, option, method, ISA or thread count)."""


class ShapeError(InvalidArgumentError):
    """Shapes that do not fit together, a dimension out of range, or a bad leading dimension."""


class NonFiniteError(InvalidArgumentError):
    """NaN or Inf in an operand of a call that requires finite values (the approximate calls,
    sketches, exact_topk), or a derived value (a norm, a sketched factor) overflowing float32."""


class InputTypeError(SketchmmError, TypeError):
    """An operand whose dtype cannot be converted to the one the call takes (complex, object,
    strings), or an ``out`` array of the wrong dtype or not writeable."""


class ResourceError(SketchmmError, MemoryError):
    """The library could not allocate its workspace, or a size does not fit in the address space."""


class PlatformError(SketchmmError, RuntimeError):
    """The selected instruction-set path is not available on this CPU or build, SKETCHMM_ISA /
    SKETCHMM_NUM_THREADS / SKETCHMM_JIT hold a value the library cannot parse, or the system refuses
    executable memory for generated code."""


class FileError(SketchmmError, OSError):
    """A file the library writes could not be written (the tuner's configuration file)."""


# The family of each status, by name: a status this table does not know raises SketchmmError itself.
_FAMILY_BY_NAME = {
    "SMM_ERR_NULL_POINTER": InvalidArgumentError, "SMM_ERR_BAD_SIZE": ShapeError,
    "SMM_ERR_BAD_LEADING_DIM": ShapeError, "SMM_ERR_OVERFLOW": ResourceError,
    "SMM_ERR_BAD_LAYOUT": InvalidArgumentError, "SMM_ERR_BAD_TRANS": InvalidArgumentError,
    "SMM_ERR_BAD_BITS": InvalidArgumentError, "SMM_ERR_BAD_METHOD": InvalidArgumentError,
    "SMM_ERR_BAD_ISA": InvalidArgumentError, "SMM_ERR_ISA_UNAVAILABLE": PlatformError,
    "SMM_ERR_BAD_ENV": PlatformError, "SMM_ERR_BAD_THREADS": InvalidArgumentError,
    "SMM_ERR_NO_MEMORY": ResourceError, "SMM_ERR_NON_FINITE": NonFiniteError,
    "SMM_ERR_BAD_ARGUMENT": InvalidArgumentError, "SMM_ERR_FILE": FileError,
    "SMM_ERR_NO_EXEC_MEMORY": PlatformError,
}
_FAMILY = {value: _FAMILY_BY_NAME[name] for value, name in STATUS_NAMES.items() if name in _FAMILY_BY_NAME}


def status_string(status):
    """The library's description of an smm_status number (smm_status_str)."""
    return ffi.string(lib.smm_status_str(int(status))).decode()


def error(status, function, detail=None):
    """The exception for a non-OK status of `function` (not raised)."""
    status = int(status)
    name = STATUS_NAMES.get(status, f"status {status}")
    message = f"{function}: {status_string(status)} ({name})"
    if detail:
        message += f": {detail}"
    return _FAMILY.get(status, SketchmmError)(message, status, function)


def check(status, function, detail=None):
    """Raise the exception of `status` unless it is SMM_OK."""
    if status != lib.SMM_OK:
        raise error(status, function, detail)
