"""MO op classes of the same opset op as a built-in: MO's constructor, the built-in's node.

Most take the same attributes; the `Attributed*` forms carry as attributes what the opset op
takes as inputs (they get constant inputs at inference), and MO's Slice has ONNX's input order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from converter.graph.graph import Node
from converter.legacy.mo_ops._base import MoOp, append_op, const_input, move_inputs
from converter.legacy.mo_ops.strided_slice_masks import MASKS_NORMALIZED
from converter.legacy.ops import builtin_op

__all__ = [
    "ATTRIBUTED", "SAME", "AttributedLRN", "Fill", "MVNCaffe", "Range", "Slice", "Split",
    "StridedSlice", "mo_class",
]

# MO class name -> built-in op (the same name where not listed)
SAME: dict[str, str] = {
    name: name for name in (
        "ConvertLike", "DetectionOutput", "ReduceLogicalAnd", "ReduceLogicalOr", "Broadcast",
        "Bucketize", "CumSum", "DFT", "IDFT", "RDFT", "IRDFT", "Einsum", "BitwiseAnd",
        "BitwiseOr", "BitwiseXor", "BitwiseNot", "Eye", "GatherElements", "GatherND",
        "GroupNormalization", "HardSigmoid", "LRN", "MVN", "NonMaxSuppression", "NonZero",
        "OneHot", "Pad", "PReLU", "ReverseSequence", "Roll", "Select",
        "ShuffleChannels", "SpaceToDepth", "VariadicSplit", "Tile", "TopK", "LogSoftmax",
        "ScatterElementsUpdate", "ScatterUpdate", "ScatterNDUpdate", "BatchNormInference",
        "Assign", "ReadValue", "FakeQuantize", "ROIPooling", "ROIAlign",
        "EmbeddingBagOffsetsSum", "EmbeddingBagPackedSum",
        "EmbeddingSegmentsSum", "BatchToSpace", "SpaceToBatch", "GatherTree",
        "ExtractImagePatches", "CTCLoss", "RandomUniform", "ExperimentalDetectronDetectionOutput",
        "ExperimentalDetectronGenerateProposalsSingleImage",
        "ExperimentalDetectronPriorGridGenerator", "ExperimentalDetectronROIFeatureExtractor",
        "ExperimentalDetectronTopKROIs",
    )
}
SAME.update(DepthToSpaceOp="DepthToSpace", GeLUOP="Gelu", NormalizeL2Op="NormalizeL2",
            PriorBoxOp="PriorBox", ReLU6="Clamp", PriorBoxClusteredOp="PriorBoxClustered",
            CTCGreedyDecoderSeqLenOp="CTCGreedyDecoderSeqLen", GRNOp="GRN",
            CTCGreedyDecoderOp="CTCGreedyDecoder", RegionYoloOp="RegionYolo",
            ReorgYoloOp="ReorgYolo", ReduceAnd="ReduceLogicalAnd", BiasAdd="Add",
            ProposalOp="Proposal", PSROIPoolingOp="PSROIPooling",
            DeformablePSROIPoolingOp="DeformablePSROIPooling")
# what MO's constructor set by default, and MO's attribute names the opset op names otherwise
DEFAULTS: dict[str, dict[str, Any]] = {
    "ReLU6": {"min": 0.0, "max": 6.0},
    "ProposalOp": {"post_nms_topn": 300},
    "DeformablePSROIPoolingOp": {"mode": "bilinear_deformable", "trans_std": 0, "no_trans": True},
    **dict.fromkeys(("ScatterElementsUpdate", "ScatterUpdate"), {"is_scatter": True}),
}
RENAMED: dict[str, dict[str, str]] = {"BatchNormInference": {"eps": "epsilon"}}

# MO class -> (built-in op, {input port: the attribute that feeds it})
ATTRIBUTED: dict[str, tuple[str, dict[int, str]]] = {
    "AttributedSplit": ("Split", {1: "axis"}),
    "AttributedVariadicSplit": ("VariadicSplit", {1: "axis", 2: "split_lengths"}),
    "AttributedTile": ("Tile", {1: "repeats"}),
    "AttributedGather": ("Gather", {2: "axis"}),
    "AttributedPad": ("Pad", {1: "pads_begin", 2: "pads_end", 3: "fill_value"}),
    "AttributedRoll": ("Roll", {1: "shift", 2: "axes"}),
    "LeakyReLU": ("PReLU", {1: "negative_slope"}),
    "ExpandDims": ("Unsqueeze", {1: "expand_axis"}),
    "Permute": ("Transpose", {1: "order"}),
    "MVNOnnx": ("MVN", {1: "axes"}),
}


def _attr_inputs(ports: dict[int, str]) -> Any:
    @classmethod
    def prepare(cls, node: Node) -> None:
        super(cls, cls).prepare(node)
        for port, attr in ports.items():
            if node.has_valid(attr) and (port not in node.in_nodes()):
                value = np.asarray(node[attr])
                if value.dtype.kind == "f":  # a float attribute takes the data's type
                    value = value.astype(node.in_port(0).data.get_data_type() or np.float32)
                const_input(node, port, value, dtype=value.dtype)
    return prepare


def _renaming(defaults: dict[str, Any], renamed: dict[str, str]) -> Any:
    @classmethod
    def to_opset(cls, attrs: dict) -> dict:
        out = {**defaults, **attrs}
        out.update({new: attrs[old] for old, new in renamed.items() if old in attrs})
        return out
    return to_opset


def mo_class(name: str) -> type:
    """The class for MO op class `name` (one of SAME or ATTRIBUTED)."""
    builtin, ports = ATTRIBUTED.get(name, (SAME.get(name), {}))
    base = builtin_op(builtin)
    attrs: dict[str, Any] = {"__module__": __name__, "__qualname__": name,
                             "__doc__": f"MO's {name}: builds {base.type}-{base.version}."}
    if ports:
        attrs.update(prepare=_attr_inputs(ports), in_ports_count=max(ports) + 1, mo_op=name)
    if name in DEFAULTS or name in RENAMED:
        attrs["to_opset"] = _renaming(DEFAULTS.get(name, {}), RENAMED.get(name, {}))
    return type(name, (MoOp, base), attrs)


class Slice(MoOp, builtin_op("Slice")):
    """MO's Slice: inputs (data, starts, ends[, axes[, steps]]) as ONNX has them; Slice-8
    takes (data, start, stop, step[, axes])."""

    in_ports_count = 5

    @classmethod
    def prepare(cls, node: Node) -> None:
        if node.soft_get("onnx_order", True):
            starts = node.in_port(1).data.get_value()
            connected = node.in_nodes()
            move_inputs(node, [0, 1, 2] + [p if p in connected else None for p in (4, 3)])
            if 4 not in connected:
                const_input(node, 3, np.ones(np.shape(starts), np.int64))
            node["onnx_order"] = False


class Range(MoOp, builtin_op("Range")):
    """MO's Range: without an `output_type`, the type of its first constant input (MO's
    infer took it; GlobalPoolingToReduce builds one so, of int64 bounds)."""

    def __init__(self, graph: Any, attrs1: dict | None = None, attrs2: dict | None = None):
        super().__init__(graph, attrs1, attrs2)
        if "output_type" not in {**(attrs1 or {}), **(attrs2 or {})}:
            self.attrs["output_type"] = None

    @classmethod
    def prepare(cls, node: Node) -> None:
        super().prepare(node)
        if node.soft_get("output_type", None) is None:
            values = [node.in_port(i).data.get_value() for i in range(3)]
            known = [np.asarray(v).dtype for v in values if v is not None]
            node["output_type"] = known[0] if known else node.in_port(0).data.get_data_type()


class Fill(MoOp, builtin_op("Broadcast")):
    """MO's Fill: inputs (shape, value), as Broadcast (value, shape)."""

    mo_op = "Fill"

    @classmethod
    def prepare(cls, node: Node) -> None:
        super().prepare(node)
        if not node.soft_get("filled", False):
            move_inputs(node, [1, 0])
            node.attrs().update(filled=True, mode="numpy")


class MVNCaffe(MoOp, builtin_op("MVN")):
    """MO's MVNCaffe: axes from channel 1 (`across_channels`) or 2 to the last, as MVN-6."""

    in_ports_count = 2
    mo_op = "MVNCaffe"

    @classmethod
    def to_opset(cls, attrs: dict) -> dict:
        return {"eps": 1e-9, "normalize_variance": 1, **attrs, "eps_mode": "inside_sqrt"}

    @classmethod
    def prepare(cls, node: Node) -> None:
        super().prepare(node)
        node["normalize_variance"] = bool(node["normalize_variance"])
        if node.in_port(1).disconnected():
            rank = len(node.in_port(0).data.get_shape())
            start = 1 if node.soft_get("across_channels", 0) == 1 else 2
            const_input(node, 1, np.arange(start, rank))


_MASKS = ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")


class StridedSlice(MoOp, builtin_op("StridedSlice")):
    """MO's StridedSlice: masks of any length (padded to the length of `begin`, as MO aligned
    them: a dimension past a mask takes its begin and end). MO's begin_mask and end_mask are
    the opset's inverted (1: take the begin/end value) until its StridedSliceMasksNormalizer
    inverted them in the back phase; the node built in MO's form gets the opset's at inference."""

    @classmethod
    def prepare(cls, node: Node) -> None:
        masks = {m: [int(v) for v in np.ravel(node.soft_get(m, None))] if node.has_valid(m)
                 else [] for m in _MASKS}
        if node.soft_get("mo_lowered", True) is False and not node.graph.graph.get(
                MASKS_NORMALIZED):  # built after MO's StridedSliceMasksNormalizer: the opset's
            for mask in ("begin_mask", "end_mask"):
                masks[mask] = [1 - v for v in masks[mask]]
        begin = node.in_port(1).data.get_shape()
        length = max([begin[0] if begin else 0] + [len(v) for v in masks.values()])
        for mask, values in masks.items():
            node[mask] = values + [0] * (length - len(values))
        super().prepare(node)


class Split(MoOp, builtin_op("Split")):
    """MO's Split; with `squeeze_axis` each output loses the split axis (MO's SqueezeAxis)."""

    @classmethod
    def infer(cls, node: Node) -> None:
        super().infer(node)
        if node.soft_get("squeeze_axis", False):
            axis = np.array([int(node.in_port(1).data.get_value())], np.int64)
            for port, _ in list(node.iter_out_data()):
                append_op(node, "Squeeze", axis, f"{node.name}/squeeze{port}", port)
            node["squeeze_axis"] = False


class AttributedLRN(MoOp, builtin_op("LRN")):
    """MO's AttributedLRN: `local_size` and `region` (`across` channels, or `same`: the spatial
    axes) as LRN's `size` and axes input (MO's LRNToNorm)."""

    in_ports_count = 2
    mo_op = "AttributedLRN"

    @classmethod
    def to_opset(cls, attrs: dict) -> dict:
        out = {"bias": 1, "region": "across", **attrs}
        if "local_size" in attrs:
            out["size"] = attrs["local_size"]
        return out

    @classmethod
    def prepare(cls, node: Node) -> None:
        super().prepare(node)
        if node.in_port(1).disconnected():
            rank = len(node.in_port(0).data.get_shape())
            const_input(node, 1, [1] if node["region"] == "across" else range(2, rank))
