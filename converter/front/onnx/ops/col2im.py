"""ONNX Col2Im (opset 18) as Col2Im-15, which OpenVINO has for 2-D images only."""

from __future__ import annotations

import numpy as np

from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port


def _spatial_rank(n: OnnxNode) -> int | None:
    """How many spatial axes: from the attributes, else from image_shape's length."""
    for attr, per_axis in (("pads", 2), ("strides", 1), ("dilations", 1)):
        if n.has_attr(attr):
            return len(n.attr(attr)) // per_axis
    size = n.input(1).node
    if size.soft_get("op") == "Const":
        return int(np.size(size.value))
    shape = size.soft_get("shape", None) if size.soft_get("op") == "Parameter" else None
    return None if shape is None or len(shape) != 1 or shape[0] < 0 else int(shape[0])


@onnx_op("Col2Im")
def col2im(n: OnnxNode) -> list[Port]:
    rank = _spatial_rank(n)
    if rank != 2:
        n.reject(f"rearranges blocks into a {rank or 'N'}-D image; OpenVINO's Col2Im is 2-D "
                 "only", "fold 2-D images [N, C, H, W]")
    pads = [int(p) for p in n.attr("pads", [0] * 4)]
    return [n.op("Col2Im", [n.input(0), n.input(1), n.input(2)],
                 strides=list(n.attr("strides", [1, 1])),
                 dilations=list(n.attr("dilations", [1, 1])),
                 pads_begin=pads[:2], pads_end=pads[2:])]
