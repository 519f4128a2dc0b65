"""MO's MXNet extractor helpers (mo.front.mxnet.extractors.utils) that extension code calls: a
symbol's attribute dict, MXNet's dtype names, replacing a `*_scalar` op by an elementwise op
with a constant, and the Deconvolution extractor's padding rule."""

from __future__ import annotations

from typing import Any

import numpy as np

from converter.graph.graph import Graph, Node
from converter.legacy.ops import builtin_op

__all__ = ["MXNET_DATA_TYPES", "DeconvFrontExtractor", "get_json_layer_attrs",
           "mxnet_str_dtype_to_np", "scalar_ops_replacer"]

MXNET_DATA_TYPES = {"float16": np.float16, "float32": np.float32, "float64": np.float64,
                    "int8": np.int8, "int32": np.int32, "int64": np.int64}


def mxnet_str_dtype_to_np(dtype: str) -> Any:
    return MXNET_DATA_TYPES[dtype]


def get_json_layer_attrs(json_dic: dict) -> dict:
    """A symbol's attributes, under whichever key its MXNet version used (attr, attrs, param)."""
    key = "attr" if "attr" in json_dic else "attrs" if "attrs" in json_dic else "param"
    return json_dic[key]


def scalar_ops_replacer(graph: Graph, node: Node, elementwise_op_type: Any = None) -> Node:
    """Put elementwise_op_type (default Add) of node's input and a Const of node.scalar in
    node's place; the new op."""
    op = elementwise_op_type or builtin_op("Add")
    scalar = builtin_op("Const")(graph, {"value": np.asarray(node.scalar),
                                         "name": f"{node.id}/const"}).create_node()
    new = op(graph, {"name": f"{node.id}/lin_"}).create_node()
    node.in_port(0).get_connection().set_destination(new.in_port(0))
    scalar.out_port(0).connect(new.in_port(1))
    node.out_port(0).get_connection().set_source(new.out_port(0))
    return new


class DeconvFrontExtractor:
    """MO's MXNet Deconvolution extractor, for its `get_pad` (MO's UpSampling extractor puts
    it on the nodes it makes). extgen's MXNet frontend translates Deconvolution itself, so the
    extractor's own `extract`, or a subclass of it, refuses in one line."""

    op = "Deconvolution"
    enabled = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        _refuse_extract(f"subclasses it as {cls.__name__}")

    @staticmethod
    def get_pad(node: Node, input_shape: Any, kernel_shape: Any) -> np.ndarray:
        """[[0, 0], [0, 0], [p, p], ...]: per spatial axis half (rounded up, towards zero) of
        what a deconvolution of `input_shape` by `kernel_shape` makes beyond
        `node.output_spatial_shape`."""
        axes = np.asarray(node.spatial_dims)
        made = (node.stride[axes] * (np.asarray(input_shape)[axes] - 1) + 1
                + (np.asarray(kernel_shape)[axes] - 1) * node.dilation[axes])
        pads = np.trunc((made - np.asarray(node.output_spatial_shape) + 1) / 2).astype(np.int64)
        return np.array([[0, 0], [0, 0], *[[p, p] for p in pads]], np.int64)

    @classmethod
    def extract(cls, node: Node) -> bool:
        _refuse_extract("calls its extract")


def _refuse_extract(how: str) -> None:
    from converter.errors import ExtensionError
    from converter.legacy.importer import caller

    msg = (f"{caller()}{how}: MO's front.mxnet.conv_ext.DeconvFrontExtractor extract is not "
           "implemented by extgen (its MXNet frontend translates Deconvolution); only its "
           "get_pad is")
    raise ExtensionError(msg)
