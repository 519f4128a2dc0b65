"""Every error extgen shows a user; the CLI catches ExtgenError and prints one line.

The classes live in the library (converter.errors); this module re-exports them for the
application, user code and generated extensions, and adds the generator's own ConfigError."""

from __future__ import annotations

from converter.errors import (
    ConversionError,
    ExtensionError,
    ExtgenError,
    InputFileError,
    KernelBuildError,
    KernelConfigError,
    ModelFormatError,
    OutputError,
    ShapeInferenceError,
    UnsupportedOpError,
    UsageError,
)

__all__ = [
    "Cancelled",
    "ConfigError",
    "ExtgenError",
    "UsageError",
    "InputFileError",
    "ModelFormatError",
    "UnsupportedOpError",
    "ShapeInferenceError",
    "ConversionError",
    "OutputError",
    "ExtensionError",
    "KernelConfigError",
    "KernelBuildError",
]


class ConfigError(ExtgenError):
    """A generator config (JSON or answers) is invalid: names the field and the problem."""

    exit_code = 2


class Cancelled(ExtgenError):
    """The user pressed Ctrl-C at a prompt; nothing was written (exit 130, as for SIGINT)."""

    exit_code = 130
