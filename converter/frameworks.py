"""The frameworks the converter reads, and how a model file picks one.

Each framework lives in `converter/front/<name>/framework.py`, which defines
`FRAMEWORK = Framework(...)`; it is imported only when a model of that framework is converted.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from converter.errors import InputFileError, ModelFormatError, UsageError
from converter.framework_names import OVC_ONLY, SUFFIXES
from converter.front.translator import TranslatorRegistry
from converter.graph.graph import Graph, Node
from converter.options import ConvertOptions

__all__ = ["SUFFIXES", "Framework", "detect", "resolve"]


@dataclass(frozen=True)
class Framework:
    """load(opts) builds the front-stage graph; translators are the built-in translators of its
    nodes; node_attrs(node) gives a framework node's attributes as plain values (for
    `extgen check`)."""

    name: str
    load: Callable[[ConvertOptions], Graph]
    translators: TranslatorRegistry
    node_attrs: Callable[[Node], dict[str, Any]] | None = None

    def read(self, opts: ConvertOptions) -> Graph:
        """load(opts), with a model nested deeper than Python's parsers recurse (a 3,000-deep
        text message or JSON) reported as one ModelFormatError."""
        try:
            return self.load(opts)
        except RecursionError:
            msg = (f"{opts.input_model}: the model is nested too deeply to read "
                   "(corrupt or hostile file)")
            raise ModelFormatError(msg) from None


def detect(model: Path) -> str:
    """The framework a model file's extension implies (a SavedModel folder: tf; a Kaldi model
    also by its first token)."""
    if (Path(model) / "saved_model.pb").is_file():
        return "tf"
    suffix = Path(model).suffix.lower()
    for name, suffixes in SUFFIXES.items():
        if suffix in suffixes:
            return name
    if _kaldi_head(model):
        return "kaldi"
    if suffix in OVC_ONLY:
        fmt = OVC_ONLY[suffix]
        msg = (f"{model}: a {fmt} model; extgen does not read {fmt}, OpenVINO's ovc "
               f"(openvino.convert_model) does: ovc {model}")
        raise UsageError(msg)
    msg = (
        f"{model}: cannot tell the framework from the extension '{suffix}'; "
        f"pass --framework ({', '.join(SUFFIXES)})"
    )
    raise UsageError(msg)


def _kaldi_head(model: Path) -> bool:
    try:
        with open(model, "rb") as f:
            head = f.read(24)
    except OSError:
        return False
    head = head[2:] if head.startswith(b"\0B") else head
    return head.lstrip().startswith((b"<Nnet>", b"<Nnet3>", b"<TransitionModel>"))


def resolve(model: Path, name: str | None) -> Framework:
    """The framework named by --framework, or the one the file extension implies."""
    if name is None:
        if not Path(model).exists():
            msg = f"{model}: no such model file"
            raise InputFileError(msg)
        name = detect(model)
    if name not in SUFFIXES:
        msg = f"--framework {name}: unknown; choose one of {', '.join(SUFFIXES)}"
        raise UsageError(msg)
    try:
        module = importlib.import_module(f"converter.front.{name}.framework")
    except ModuleNotFoundError as err:
        if err.name not in (f"converter.front.{name}.framework", f"converter.front.{name}"):
            raise
        msg = f"--framework {name}: this framework is not supported yet"
        raise UsageError(msg) from None
    return module.FRAMEWORK
