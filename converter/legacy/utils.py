"""Small legacy helpers: MO's Error classes, refer_to_faq_msg, rename_node, ONNX and layout
helpers that have no equivalent elsewhere in the converter."""

from __future__ import annotations

from typing import Any

from converter.errors import ConversionError
from converter.graph.graph import Node

__all__ = [
    "Error", "FrameworkError", "InternalError", "get_batch_dim", "get_features_dim",
    "get_height_dim", "get_onnx_autopad", "get_onnx_opset_version", "get_width_dim",
    "onnx_get_num_outputs", "refer_to_faq_msg", "register_caffe_python_extractor", "rename_node",
]


class Error(ConversionError):
    """mo.utils.error.Error: `Error(message, *args)` formats message with args; one line."""

    def __init__(self, message: Any = "", *args: Any) -> None:
        text = str(message)
        if args:
            try:
                text = text.format(*args)
            except (IndexError, KeyError, ValueError):
                text = " ".join([text, *map(str, args)])
        super().__init__(" ".join(text.split()))


class FrameworkError(Error):
    """mo.utils.error.FrameworkError."""


class InternalError(Error):
    """mo.utils.error.InternalError."""


def refer_to_faq_msg(question_num: int) -> str:
    return f" (legacy Model Optimizer FAQ #{question_num})"


def rename_node(node: Node, name: str) -> None:
    node["name"] = name


def get_onnx_opset_version(node: Node) -> int:
    return node.graph.graph.get("fw_opset_version", 0)


def onnx_get_num_outputs(node: Node) -> int:
    return len(node.pb.output)


def get_onnx_autopad(auto_pad: bytes | str) -> str | None:
    text = (auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad).lower()
    return None if text == "notset" else text


def _dim(layout: str, ndim: int, letter: str) -> int:
    if layout == "NCHW":
        return {"N": 0, "C": 1, "H": 2, "W": ndim - 1}[letter]
    return {"N": 0, "C": ndim - 1, "H": 1, "W": ndim - 2}[letter]


def get_batch_dim(layout: str, ndim: int) -> int:
    return _dim(layout, ndim, "N")


def get_features_dim(layout: str, ndim: int) -> int:
    return _dim(layout, ndim, "C")


def get_height_dim(layout: str, ndim: int) -> int:
    return _dim(layout, ndim, "H")


def get_width_dim(layout: str, ndim: int) -> int:
    return _dim(layout, ndim, "W")


def register_caffe_python_extractor(op: Any, name: str | None = None) -> None:
    """MO's helper for Caffe Python layers: op's update_node_stat, with param_str's values, is the
    extractor of layers `name` ('module.layer'; default op.op)."""
    from converter.front.caffe.extractor import CaffePythonFrontExtractorOp

    name = name or getattr(op, "op", None)
    if not name:
        msg = f"register_caffe_python_extractor({op.__name__}): give the 'module.layer' name"
        raise Error(msg)

    def extract(cls, node: Node) -> bool:
        op.update_node_stat(node, cls.get_attrs(node))
        return True

    type(f"{op.__name__}PythonExtractor", (CaffePythonFrontExtractorOp,), {
        "op": name, "enabled": True, "extract": classmethod(extract), "__module__": op.__module__,
    })
