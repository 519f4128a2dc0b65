"""MO ops whose inputs or node count differ from the opset op's: they become the opset op(s) at
inference (MO did it in later passes: InterpolateNormalizer, CropToStridedSlice, ScaleShift and
FullyConnected decomposition)."""

from __future__ import annotations

import numpy as np

from converter.graph.graph import Node
from converter.legacy.mo_ops._base import (
    MoOp,
    append_op,
    become,
    const_input,
    ints,
    move_inputs,
)
from converter.legacy.ops import builtin_op
from converter.ops.movement.strided_slice import StridedSlice
from converter.ops.nn.interpolate import Interpolate as _Interpolate
from converter.ops.nn.matmul import MatMul

__all__ = [
    "AttributedPower", "Crop", "Eltwise", "Flatten", "FlattenONNX", "FullyConnected", "Interpolate",
    "ScaleShiftOp",
]


class Interpolate(MoOp, _Interpolate):
    """MO's Interpolate by `version`: opset1 (target shape input, `axes` attribute; MO's
    default), opset4 (data, sizes, scales[, axes]) or opset11; all become Interpolate-11."""

    in_ports_count = 4

    @classmethod
    def to_opset(cls, attrs: dict) -> dict:
        out = dict(attrs)
        out.setdefault("mo_version", attrs.get("version") or "opset1")
        if out["mo_version"] == "opset1":
            corners = bool(int(attrs.get("align_corners") or 0))
            out.update(coordinate_transformation_mode="align_corners" if corners else "half_pixel",
                       nearest_mode="round_prefer_floor", cube_coeff=-0.75,
                       shape_calculation_mode="sizes", antialias=bool(attrs.get("antialias")))
        for key in ("pads_begin", "pads_end"):
            if key in out and np.ndim(out[key]) == 0:
                out[key] = [int(out[key] or 0)]
        return out

    @classmethod
    def prepare(cls, node: Node) -> None:
        super().prepare(node)
        version = node["mo_version"]
        if version == "opset4":
            target = 1 if node.soft_get("shape_calculation_mode", "sizes") == "sizes" else 2
            move_inputs(node, [0, target, 3])
        elif version == "opset1":
            move_inputs(node, [0, 1])
            const_input(node, 2, ints(node["axes"]))
        node.attrs().update(mo_version="opset11", version=_Interpolate.version)

    @staticmethod
    def get_axes(node: Node) -> np.ndarray | None:
        """MO's Interpolate.get_axes: opset1's `axes`; else the axes input (3 in opset4, 2 in
        opset11), all axes without one."""
        if node.get_opset() == "opset1":
            axes = node.soft_get("axes", None)
            return None if axes is None else np.asarray(axes, np.int64)
        port = 3 if node.get_opset() == "opset4" else 2
        if not node.is_in_port_connected(port):
            return np.arange(len(node.in_port(0).data.get_shape()), dtype=np.int64)
        return np.asarray(node.in_port(port).data.get_value(), np.int64)


def _crop_bounds(node: Node, shape: tuple) -> tuple[list[int], list[int], list[int]]:
    """(begin, end, cropped axes) of MO's three Crop forms: a reference input, `dim` with
    `offset`, or `crop_begin`/`crop_end`, each along `axis`."""
    rank = len(shape)
    begin, end, axes = [0] * rank, list(shape), []
    if node.in_port(1).disconnected():
        axis = ints(node["axis"])
        offset = ints(node.soft_get("offset", None) or [0] * len(axis))
        for i, a in enumerate(axis):
            a %= rank
            if node.has_valid("dim"):
                begin[a], end[a] = offset[i], offset[i] + ints(node["dim"])[i]
            else:
                begin[a], end[a] = ints(node["crop_begin"])[i], shape[a] - ints(node["crop_end"])[i]
            axes.append(a)
        return begin, end, axes
    ref = node.in_port(1).data.get_shape()
    start = int(np.ravel(node["axis"])[0]) % rank
    offsets = ints(node["offset"])
    for j, a in enumerate(range(start, rank)):
        begin[a] = offsets[0] if len(offsets) == 1 else offsets[j]
        end[a] = begin[a] + ref[a]
        axes.append(a)
    return begin, end, axes


class Crop(MoOp, StridedSlice):
    """mo.ops.crop.Crop, as StridedSlice (MO's CropToStridedSlice)."""

    mo_op = "Crop"

    @classmethod
    def infer(cls, node: Node) -> None:
        shape = node.in_port(0).data.get_shape()
        begin, end, axes = _crop_bounds(node, shape)
        mask = [0 if i in axes else 1 for i in range(len(shape))]
        move_inputs(node, [0])
        for port, value in ((1, begin), (2, end), (3, [1] * len(shape))):
            const_input(node, port, value)
        become(node, StridedSlice)
        node.attrs().update(begin_mask=mask, end_mask=mask, new_axis_mask=[0] * len(shape),
                            shrink_axis_mask=[0] * len(shape), ellipsis_mask=[0] * len(shape))
        StridedSlice.infer(node)


def _channel_shaped(value: np.ndarray, rank: int, axis: int = 1) -> np.ndarray:
    return np.reshape(value, [-1 if i == axis else 1 for i in range(rank)])


def _const_of(node: Node, port: int) -> np.ndarray:
    value = node.in_port(port).data.get_value()
    if value is None:
        msg = f"'{node.soft_get('name', node.id)}': input {port} must be constant"
        raise ValueError(msg)
    return np.asarray(value)


class ScaleShiftOp(MoOp, builtin_op("Multiply")):
    """mo.ops.scale_shift.ScaleShiftOp: per-channel `weights` (input 1) and `biases` (input 2),
    as Multiply and Add."""

    mo_op = "ScaleShift"

    @classmethod
    def infer(cls, node: Node) -> None:
        rank = len(node.in_port(0).data.get_shape())
        weights = _const_of(node, 1)
        bias = None if node.in_port(2).disconnected() else _const_of(node, 2)
        move_inputs(node, [0])
        const_input(node, 1, _channel_shaped(weights, rank), dtype=weights.dtype)
        become(node, builtin_op("Multiply"))
        builtin_op("Multiply").infer(node)
        if bias is not None:
            append_op(node, "Add", _channel_shaped(bias, rank), f"{node.name}/bias")


class FullyConnected(MoOp, MatMul):
    """MO's FullyConnected: weights [out-size, K] (input 1), bias (input 2), as MatMul with
    transpose_b and Add."""

    mo_op = "FullyConnected"

    @classmethod
    def infer(cls, node: Node) -> None:
        bias = None if node.in_port(2).disconnected() else _const_of(node, 2)
        move_inputs(node, [0, 1])
        become(node, MatMul)
        node.attrs().update(transpose_a=False, transpose_b=True)
        MatMul.infer(node)
        if bias is not None:
            append_op(node, "Add", np.ravel(bias), f"{node.name}/bias")


class AttributedPower(MoOp, builtin_op("Multiply")):
    """MO's AttributedPower: (x * scale + shift) ** power, as Multiply, Add and Power."""

    mo_op = "AttributedPower"

    @classmethod
    def infer(cls, node: Node) -> None:
        dtype = node.in_port(0).data.get_data_type() or np.float32
        scale, shift, power = (np.array(node.soft_get(k, d), dtype)
                               for k, d in (("scale", 1), ("shift", 0), ("power", 1)))
        const_input(node, 1, scale, dtype=dtype)
        become(node, builtin_op("Multiply"))
        builtin_op("Multiply").infer(node)
        add = append_op(node, "Add", shift, f"{node.name}/shift")
        append_op(add, "Power", power, f"{node.name}/power")


_ELTWISE = {"sum": "Add", "mul": "Multiply", "max": "Maximum", "pow": "Power", "less": "Less",
            "less_equal": "LessEqual", "greater": "Greater", "greater_equal": "GreaterEqual",
            "equal": "Equal", "not_equal": "NotEqual", "floor_mod": "FloorMod",
            "logical_or": "LogicalOr", "logical_and": "LogicalAnd", "logical_xor": "LogicalXor"}


class Eltwise(MoOp, builtin_op("Add")):
    """MO's Eltwise of two inputs: the opset op its `operation` names."""

    @classmethod
    def infer(cls, node: Node) -> None:
        op = builtin_op(_ELTWISE[node.soft_get("operation", "sum")])
        become(node, op)
        op.infer(node)


def _flat_shape(node: Node, shape: tuple) -> list[int]:
    axis = int(node.soft_get("axis", None) or 0) % len(shape)
    if node.soft_get("op", None) == "FlattenONNX" or node.soft_get("onnx_flatten", False):
        return [int(np.prod(shape[:axis])), int(np.prod(shape[axis:]))]
    end = int(node.soft_get("end_axis", -1)) % len(shape)
    return [*shape[:axis], int(np.prod(shape[axis:end + 1])), *shape[end + 1:]]


class Flatten(MoOp, builtin_op("Reshape")):
    """MO's Flatten: axes `axis`..`end_axis` as one, as Reshape."""

    mo_op = "Flatten"

    @classmethod
    def infer(cls, node: Node) -> None:
        const_input(node, 1, _flat_shape(node, node.in_port(0).data.get_shape()))
        become(node, builtin_op("Reshape"))
        node["special_zero"] = False
        builtin_op("Reshape").infer(node)


class FlattenONNX(Flatten):
    """MO's FlattenONNX: [axes before `axis`, the rest], as Reshape."""

    mo_op = "FlattenONNX"

    def __init__(self, graph, attrs1: dict | None = None, attrs2: dict | None = None):
        super().__init__(graph, attrs1, attrs2)
        self.attrs["onnx_flatten"] = True
