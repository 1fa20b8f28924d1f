"""Sketch method names <-> sketch_method values, read from the library (sketch_method_name)."""

from ._lib import ffi, lib
from .errors import InputTypeError, InvalidArgumentError


def enum_names(name_function, values):
    """{name: value} for the values of a C enum whose name function (sketch_method_name, smm_isa_name)
    returns a name, NULL for the values it does not know."""
    names = {}
    for value in values:
        name = name_function(value)
        if name != ffi.NULL:
            names[ffi.string(name).decode()] = value
    return names


# name -> value, in the order of sketch_method (sketch.h)
METHODS = enum_names(lib.sketch_method_name, range(1, 64))
# the code families (sized in bits); the others are sized by sketch_dim
CODE_METHODS = tuple(name for name, value in METHODS.items() if lib.sketch_method_uses_bits(value))


def method_value(method, codes_only=False):
    """The sketch_method value of a name ("simhash", "lowrank", ...; case-insensitive) or of the number."""
    if isinstance(method, str):
        value = METHODS.get(method.lower())
    elif isinstance(method, int) and not isinstance(method, bool):
        value = method if method in METHODS.values() else None
    else:
        raise InputTypeError(f"method must be a name such as 'simhash', got {type(method).__name__}")
    allowed = CODE_METHODS if codes_only else tuple(METHODS)
    if value is None or method_name(value) not in allowed:
        raise InvalidArgumentError(f"unknown {'sketch family' if codes_only else 'method'} {method!r}; "
                                   f"one of {', '.join(allowed)}")
    return value


def method_name(value):
    """The name of a sketch_method value."""
    return ffi.string(lib.sketch_method_name(value)).decode()
