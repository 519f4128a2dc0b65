"""MO's AdaptiveAvgPooling (MXNet's contrib op): no IR type of its own; its inference made it
MO's average Pooling, window and stride derived from `output_size` as MO derived them."""

from __future__ import annotations

import numpy as np

from converter.graph.graph import Graph, Node
from converter.legacy.mo_ops.window import Pooling
from converter.legacy.ops import Op

__all__ = ["AdaptiveAvgPooling"]


class AdaptiveAvgPooling(Op):
    """Stride input // output per spatial axis, the window what is left for the last cell
    (exact when the input is a multiple of the output, MO's approximation otherwise)."""

    enabled = False

    def __init__(self, graph: Graph, attrs: dict | None = None) -> None:
        super().__init__(graph, {"type": None, "op": "AdaptiveAvgPooling",
                                 "infer": type(self).infer, "in_ports_count": 1,
                                 "out_ports_count": 1}, attrs)

    @classmethod
    def infer(cls, node: Node) -> None:
        spatial = np.asarray(node.in_port(0).data.get_shape()[2:4], np.int64)
        out = np.asarray(node["output_size"], np.int64)
        stride = spatial // out
        window = spatial - (out - 1) * stride
        Pooling.update_node_stat(node, {
            "window": np.array([1, 1, *window], np.int64),
            "stride": np.array([1, 1, *stride], np.int64),
            "pad": np.zeros((4, 2), np.int64), "pad_spatial_shape": np.zeros((2, 2), np.int64),
            "pool_method": "avg", "exclude_pad": False, "output_spatial_shape": None,
            "spatial_dims": None, "channel_dims": np.array([1], np.int64),
            "batch_dims": np.array([0], np.int64), "layout": "NCHW", "rounding_type": "floor",
            "pooling_convention": "valid"})
        Pooling.infer(node)


# MO's name for its nodes, set after creation: registering it would make every later
# conversion's AdaptiveAvgPooling nodes MO's
AdaptiveAvgPooling.op = "AdaptiveAvgPooling"
