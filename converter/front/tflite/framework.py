"""TensorFlow Lite as a converter framework: a .tflite flatbuffer, float or quantized."""

from __future__ import annotations

from converter.frameworks import Framework
from converter.front.tflite.translator import REGISTRY
from converter.graph.graph import Graph

# the NHWC->NCHW change inside convolutional models (a middle pass, registered on import)
from converter.middle.layout import transposes as _layout  # noqa: F401
from converter.options import ConvertOptions


def _load(opts: ConvertOptions) -> Graph:
    from converter.front.tflite.loader import model_to_graph
    from converter.front.tflite.model import read_model

    return model_to_graph(read_model(opts.input_model), opts.input_model)


def _node_attrs(node) -> dict:
    from converter.front.tflite.attrs import custom_attrs

    return custom_attrs(node) if not node.pb.builtin else dict(node.pb.options)


FRAMEWORK = Framework("tflite", _load, REGISTRY, _node_attrs)
