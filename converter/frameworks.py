"""The frameworks the converter reads, and how a model file picks one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from converter.graph.graph import Graph, Node
from converter.options import ConvertOptions
from extgen.errors import InputFileError, UsageError

__all__ = ["Framework", "resolve"]


@dataclass(frozen=True)
class Framework:
    name: str
    suffixes: tuple[str, ...]
    load: Callable[[ConvertOptions], Graph]
    translate: Callable[[Node], bool]


def _onnx_load(opts: ConvertOptions) -> Graph:
    from converter.front.onnx.loader import load_model, model_to_graph

    return model_to_graph(load_model(opts.input_model), opts.input_model.parent)


def _onnx_translate(node: Node) -> bool:
    from converter.front.onnx.extract import translate

    return translate(node)


_FRAMEWORKS = {
    "onnx": Framework("onnx", (".onnx",), _onnx_load, _onnx_translate),
}
_PLANNED = {"tf": (".pb", ".pbtxt"), "caffe": (".caffemodel", ".prototxt"), "mxnet": (".params", ".json")}


def resolve(model: Path, name: str | None) -> Framework:
    """The framework named by --framework, or the one the file extension implies."""
    if name is None:
        if not Path(model).exists():
            msg = f"{model}: no such model file"
            raise InputFileError(msg)
        suffix = Path(model).suffix.lower()
        name = next((f.name for f in _FRAMEWORKS.values() if suffix in f.suffixes), None)
        name = name or next((k for k, v in _PLANNED.items() if suffix in v), None)
        if name is None:
            msg = (
                f"{model}: cannot tell the framework from the extension '{suffix}'; "
                f"pass --framework ({', '.join(sorted(_FRAMEWORKS))})"
            )
            raise UsageError(msg)
    if name not in _FRAMEWORKS:
        msg = (
            f"--framework {name}: this framework is not supported yet; "
            f"supported: {', '.join(sorted(_FRAMEWORKS))}"
        )
        raise UsageError(msg)
    return _FRAMEWORKS[name]
