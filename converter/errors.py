"""Every error the converter and runtime show a user; the extgen CLI catches ExtgenError and
prints one line, exiting with its `exit_code`."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
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
    "not_in_model",
]


class ExtgenError(Exception):
    """Base of all user-facing errors. `exit_code` is what the CLI exits with."""

    exit_code = 1


class UsageError(ExtgenError):
    """A command-line value is malformed (bad --input_shape, unknown --framework, ...)."""

    exit_code = 2


class InputFileError(ExtgenError):
    """An input file is missing or cannot be read."""

    exit_code = 2


class ModelFormatError(ExtgenError):
    """A model file is truncated, corrupt or not of the format it claims."""

    exit_code = 2


class UnsupportedOpError(ExtgenError):
    """The model holds ops that neither the built-ins nor the extensions handle."""

    exit_code = 2

    def __init__(self, message: str, ops: dict[str, list[str]] | None = None) -> None:
        super().__init__(message)
        self.ops = ops or {}


class ShapeInferenceError(ExtgenError):
    """Shape or type inference failed on a node; the message names the node."""

    exit_code = 2


class ConversionError(ExtgenError):
    """A transformation failed on the model; the message names the pass."""

    exit_code = 2


class OutputError(ExtgenError):
    """The output location cannot be written."""

    exit_code = 2


class ExtensionError(ExtgenError):
    """A user extension folder fails to load or breaks a rule (duplicate id, cycle, ...)."""

    exit_code = 2


class KernelConfigError(ExtgenError):
    """A GPU (SimpleGPU) or VPU (MVCL) kernel XML is malformed, names a missing file or an
    invalid work size, or does not fit the layer it is bound to."""

    exit_code = 2


class KernelBuildError(ExtgenError):
    """An OpenCL kernel fails to compile; the message carries the build log's error lines."""

    exit_code = 2


def not_in_model(flag: str, name: str, what: str, inputs: Iterable[str],
                 hint: str = "") -> UsageError:
    """The one error for a flag that names something the model lacks: it lists the model's
    inputs (`extgen run --input`, `extgen convert --input`, --mean_values, ...)."""
    msg = (f"{flag} {name!r}: the model has no {what} of that name "
           f"(its inputs: {', '.join(inputs)}){hint}")
    return UsageError(msg)
