"""The package version: that of the C library it binds (include/sketchmm/common.h)."""

__version__ = "0.4.0"
