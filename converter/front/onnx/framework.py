"""ONNX as a converter framework."""

from __future__ import annotations

from converter.frameworks import Framework
from converter.front.onnx.translator import REGISTRY
from converter.graph.graph import Graph
from converter.options import ConvertOptions


def _load(opts: ConvertOptions) -> Graph:
    from converter.front.onnx.loader import load_model, model_to_graph

    return model_to_graph(load_model(opts.input_model), opts.input_model.parent)


def _node_attrs(node) -> dict:
    from converter.front.onnx.translator import OnnxNode

    ctx = OnnxNode(node, 1)
    return {a.name: ctx.attr(a.name) for a in node.pb.attribute}


FRAMEWORK = Framework("onnx", _load, REGISTRY, _node_attrs)
