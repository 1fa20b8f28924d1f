"""The owner of one C object: its pointer, the calls using it, and when it is freed.

A wrapper (Plan) keeps everything about its C object's lifetime in one Handle, so that
every Python object pointing at the C object shares the same state: a shallow copy of
the wrapper (copy.copy, or any other way of duplicating its attributes) gets the same
Handle, and closing either closes both instead of freeing the C object under the other.

A call holds the object (``with handle as ptr:``); close() frees it at once when no
call holds it, otherwise when the last call returns; calls after close() raise
InvalidArgumentError. Thread-safe.
"""

import threading

from ._lib import ffi
from .errors import InvalidArgumentError


class Handle:
    """Owns ``pointer`` (a cffi pointer freed by ``free``, a C function taking it)."""

    __slots__ = ("_pointer", "_lock", "_users", "_closed", "_what")

    def __init__(self, pointer, free, what: str):
        self._pointer = ffi.gc(pointer, free)  # freed at garbage collection if never closed
        self._lock = threading.Lock()
        self._users = 0
        self._closed = False
        self._what = what

    def __enter__(self):
        with self._lock:
            if self._closed:
                raise InvalidArgumentError(f"the {self._what} is closed")
            self._users += 1
            return self._pointer

    def __exit__(self, *exc):
        with self._lock:
            self._users -= 1
            free = self._closed and self._users == 0
        if free:
            self._free()

    def _free(self):
        pointer, self._pointer = self._pointer, None
        if pointer is not None:
            ffi.release(pointer)  # runs the C free now instead of at garbage collection

    def close(self) -> None:
        """Free the C object once no call holds it (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            free = self._users == 0
        if free:
            self._free()

    @property
    def closed(self) -> bool:
        return self._closed

    def __copy__(self):
        return self  # one owner per C object, whatever copies its wrapper

    def __deepcopy__(self, memo):
        raise TypeError(f"a sketchmm {self._what} cannot be deep-copied (its C memory has one owner); "
                        "make another one from the same arguments")

    def __reduce__(self):
        raise TypeError(f"a sketchmm {self._what} cannot be pickled (it holds C memory); "
                        "make another one from the same arguments in the other process")
