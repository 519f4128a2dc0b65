"""MO ops that are several opset ops: the node becomes the first, the rest follow it (MO's
RankDecomposer, SizeReplacer, EltwiseNReplacement, InstanceNormalization and Normalize
decompositions)."""

from __future__ import annotations

import numpy as np

from converter.graph.graph import Node
from converter.legacy.mo_ops._base import (
    MoOp,
    append_op,
    become,
    const_input,
    move_inputs,
    per_channel,
)
from converter.legacy.ops import builtin_op

__all__ = [
    "EltwiseNAdd", "EltwiseNMax", "EltwiseNMin", "EltwiseNMul", "InstanceNormalization",
    "NormalizeOp", "Rank", "Size",
]

_AXIS0 = np.array([0], np.int64)


class Rank(MoOp, builtin_op("ShapeOf")):
    """MO's Rank: a scalar, as ShapeOf, ShapeOf and Squeeze."""

    mo_op = "Rank"

    @classmethod
    def infer(cls, node: Node) -> None:
        out_type = np.dtype(node.soft_get("output_type", None) or np.int64)
        become(node, "ShapeOf", output_type=out_type).infer(node)
        rank = append_op(node, "ShapeOf", None, f"{node.name}/rank",
                         attrs={"output_type": out_type})
        append_op(rank, "Squeeze", _AXIS0, f"{node.name}/scalar")


class Size(MoOp, builtin_op("ShapeOf")):
    """MO's Size: the element count, as ShapeOf and ReduceProd."""

    mo_op = "Size"

    @classmethod
    def infer(cls, node: Node) -> None:
        out_type = np.dtype(node.soft_get("output_type", None) or np.int64)
        become(node, "ShapeOf", output_type=out_type).infer(node)
        append_op(node, "ReduceProd", _AXIS0, f"{node.name}/size", attrs={"keep_dims": False})


def _scale_shift(node: Node, scale: np.ndarray | None, shift: np.ndarray | None) -> None:
    if scale is not None:
        node = append_op(node, "Multiply", scale, f"{node.name}/scale")
    if shift is not None:
        append_op(node, "Add", shift, f"{node.name}/shift")


class InstanceNormalization(MoOp, builtin_op("MVN")):
    """MO's InstanceNormalization (x, scale, B; `epsilon`): MVN over the spatial axes, then
    Multiply and Add."""

    mo_op = "InstanceNormalization"

    @classmethod
    def infer(cls, node: Node) -> None:
        rank = len(node.in_port(0).data.get_shape())
        scale, shift = per_channel(node, 1, rank), per_channel(node, 2, rank)
        move_inputs(node, [0])
        const_input(node, 1, np.arange(2, rank))
        eps = float(node.soft_get("epsilon", None) or 1e-5)
        become(node, "MVN", eps=eps, eps_mode="inside_sqrt", normalize_variance=True)
        builtin_op("MVN").infer(node)
        _scale_shift(node, scale, shift)


class NormalizeOp(MoOp, builtin_op("NormalizeL2")):
    """MO's Normalize (Caffe: `across_spatial`, `channel_shared`, `eps`, weights on input 1):
    NormalizeL2 over the channels (and the spatial axes), then Multiply by the weights."""

    mo_op = "Normalize"

    @classmethod
    def infer(cls, node: Node) -> None:
        rank = len(node.in_port(0).data.get_shape())
        scale = per_channel(node, 1, rank)
        move_inputs(node, [0])
        axes = np.arange(1, rank) if node.soft_get("across_spatial", 0) else np.array([1])
        const_input(node, 1, axes)
        eps = float(node.soft_get("eps", None) or 1e-10)
        become(node, "NormalizeL2", eps=eps, eps_mode="add")
        builtin_op("NormalizeL2").infer(node)
        _scale_shift(node, scale, None)


_ELTWISE_N = {"sum": "Add", "mul": "Multiply", "max": "Maximum", "min": "Minimum"}


class _EltwiseN(MoOp, builtin_op("Add")):
    """MO's EltwiseN: one elementwise `operation` over any number of inputs, as a chain."""

    mo_op = "EltwiseN"
    in_ports_count = None
    operation = "sum"

    def __init__(self, graph, attrs1: dict | None = None, attrs2: dict | None = None):
        super().__init__(graph, {"operation": type(self).operation, **(attrs1 or {})}, attrs2)

    @classmethod
    def infer(cls, node: Node) -> None:
        inputs = [data for _, data in sorted(node.in_nodes().items())]
        op = _ELTWISE_N[node["operation"]]
        move_inputs(node, [0, 1])
        become(node, op).infer(node)
        for i, data in enumerate(inputs[2:], 2):
            node = append_op(node, op, data, f"{node.name}/{i}")


class EltwiseNAdd(_EltwiseN):
    operation = "sum"


class EltwiseNMul(_EltwiseN):
    operation = "mul"


class EltwiseNMax(_EltwiseN):
    operation = "max"


class EltwiseNMin(_EltwiseN):
    operation = "min"
