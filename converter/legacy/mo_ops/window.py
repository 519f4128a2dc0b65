"""MO's Convolution and Pooling: full-rank `stride`/`dilation`/`window` arrays and `pad` as
[[0, 0], [0, 0], [begin, end], ...] with `spatial_dims`, in front of the opset ops' per-spatial
`strides`/`dilations`/`kernel`/`pads_begin`/`pads_end`."""

from __future__ import annotations

from typing import Any

import numpy as np

from converter.graph.graph import Graph, Node
from converter.legacy.mo_ops._base import MoOp, append_op, ints, move_inputs, per_channel
from converter.ops.nn.convolution import Convolution as _Convolution
from converter.ops.nn.convolution import GroupConvolution
from converter.ops.nn.convolution_backprop import (
    ConvolutionBackpropData,
    GroupConvolutionBackpropData,
)
from converter.ops.nn.deformable_convolution import (
    DeformableConvolution as _DeformableConvolution,
)
from converter.ops.nn.pooling import AvgPool, MaxPool

__all__ = ["Convolution", "Deconvolution", "DeformableConvolution", "Pooling"]


def _spatial_dims(attrs: dict) -> list[int] | None:
    if attrs.get("spatial_dims") is not None:
        return ints(attrs["spatial_dims"])
    for key in ("stride", "dilation", "window", "pad"):
        if attrs.get(key) is not None:
            return list(range(2, len(np.asarray(attrs[key]))))
    return None


def window_attrs(attrs: dict) -> dict:
    """The opset window attributes of MO's (those MO left out stay as they are)."""
    sd = _spatial_dims(attrs)
    if sd is None:
        return attrs
    out = dict(attrs)
    for mo, opset in (("stride", "strides"), ("dilation", "dilations"), ("window", "kernel")):
        if attrs.get(mo) is not None:
            out[opset] = ints(np.asarray(attrs[mo])[sd])
    auto_pad = attrs.get("auto_pad") or "explicit"
    out["auto_pad"] = auto_pad
    if attrs.get("pad") is not None:
        pad = np.asarray(attrs["pad"]).reshape(-1, 2)[sd]
        explicit = auto_pad in ("explicit", "notset")
        out["pads_begin"] = ints(pad[:, 0]) if explicit else [0] * len(sd)
        out["pads_end"] = ints(pad[:, 1]) if explicit else [0] * len(sd)
    return out


def _mo_outputs(node: Node, kernel: list[int]) -> None:
    """What MO's window inference leaves on the node."""
    shape = node.out_port(0).data.get_shape()
    if shape is None:
        return
    sd = list(range(2, len(shape)))
    node["spatial_dims"] = np.array(sd, np.int64)
    node["channel_dims"], node["batch_dims"] = np.array([1]), np.array([0])
    node["output_spatial_shape"] = np.array([shape[i] for i in sd], np.int64)
    node["kernel_spatial"] = np.array(kernel, np.int64)
    begin, end = node.soft_get("pads_begin", None), node.soft_get("pads_end", None)
    if begin is not None and end is not None:
        node["pad_spatial_shape"] = np.array(list(zip(begin, end)), np.int64)


def _group_weights(node: Node, groups: int) -> None:
    """MO's grouped weights [A, B, *k] as [G, A/G, B, *k] (constant): Convolution's [O, I/G]
    for GroupConvolution, Deconvolution's [I, O/G] for GroupConvolutionBackpropData."""
    data = node.in_port(1).data
    w = data.get_value()
    if w is None:
        name = node.soft_get("name", node.id)
        msg = f"'{name}': group={groups} needs constant weights; reshape them first"
        raise ValueError(msg)
    grouped = np.reshape(w, (groups, w.shape[0] // groups, *w.shape[1:]))
    data.set_value(grouped)
    data.set_shape(grouped.shape)
    source = node.in_port(1).get_source().node
    if source.soft_get("type", None) == "Const":
        source["value"] = grouped


def _take_bias(node: Node) -> np.ndarray | None:
    """MO's bias input 2 (the opset ops have none: it becomes an Add after the node)."""
    bias = per_channel(node, 2, len(node.in_port(0).data.get_shape()))
    if bias is not None:
        move_inputs(node, [0, 1])
    return bias


def _add_bias(node: Node, bias: np.ndarray | None) -> None:
    if bias is not None:
        node["bias_term"] = False
        append_op(node, "Add", bias, f"{node.soft_get('name', node.id)}/bias")


class Convolution(MoOp, _Convolution):
    """mo.ops.convolution.Convolution: `group` > 1 becomes GroupConvolution at inference."""

    @classmethod
    def to_opset(cls, attrs: dict) -> dict:
        return window_attrs(attrs)

    @classmethod
    def infer(cls, node: Node) -> None:
        cls.prepare(node)
        bias = _take_bias(node)
        groups = int(node.soft_get("group", None) or 1)
        if groups > 1 or node.soft_get("type", None) == "GroupConvolution":
            if node.soft_get("type", None) != "GroupConvolution":
                _group_weights(node, groups)
            node.attrs().update(op="GroupConvolution", type="GroupConvolution",
                                version=GroupConvolution.version)
            GroupConvolution.infer(node)
            kernel = list(node.in_port(1).data.get_shape()[3:])
        else:
            _Convolution.infer(node)
            kernel = list(node.in_port(1).data.get_shape()[2:])
        _mo_outputs(node, kernel)
        node["output"] = node.out_port(0).data.get_shape()[1]
        _add_bias(node, bias)


class Deconvolution(MoOp, ConvolutionBackpropData):
    """mo.ops.deconvolution.Deconvolution: ConvolutionBackpropData, grouped when `group` > 1."""

    mo_op = "Deconvolution"

    @classmethod
    def to_opset(cls, attrs: dict) -> dict:
        out = window_attrs(attrs)
        sd = _spatial_dims(attrs)
        padding = attrs.get("output_padding")
        if padding is not None and sd is not None and len(np.ravel(padding)) == 2 + len(sd):
            out["output_padding"] = ints(np.asarray(attrs["output_padding"])[sd])
        return out

    @classmethod
    def infer(cls, node: Node) -> None:
        cls.prepare(node)
        bias = _take_bias(node) if node.soft_get("bias_term", False) else None
        groups = int(node.soft_get("group", None) or 1)
        op = GroupConvolutionBackpropData if groups > 1 else ConvolutionBackpropData
        if groups > 1 and node.soft_get("type", None) != op.type:
            _group_weights(node, groups)
        node.attrs().update(op=op.op, type=op.type, version=op.version)
        op.infer(node)
        _mo_outputs(node, list(node.in_port(1).data.get_shape()[2 + (groups > 1):]))
        _add_bias(node, bias)


class DeformableConvolution(MoOp, _DeformableConvolution):
    """mo.ops.deformable_convolution.DeformableConvolution: MO's window attributes, as
    DeformableConvolution-8 (inputs data, offsets, filters[, mask] in both)."""

    @classmethod
    def to_opset(cls, attrs: dict) -> dict:
        out = window_attrs(attrs)
        for key in ("group", "deformable_group"):
            if attrs.get(key) is not None:
                out[key] = int(np.ravel(attrs[key])[0])
        return out

    @classmethod
    def infer(cls, node: Node) -> None:
        super().infer(node)
        _mo_outputs(node, list(node.in_port(2).data.get_shape()[2:]))


_POOLS = {"max": MaxPool, "avg": AvgPool}


class Pooling(MoOp, AvgPool):
    """mo.ops.pooling.Pooling: MaxPool or AvgPool by `pool_method`; `global_pool` takes the
    whole spatial extent; `exclude_pad` is AvgPool's `exclude-pad`."""

    def __init__(self, graph: Graph, attrs1: dict | None = None, attrs2: dict | None = None):
        super().__init__(graph, attrs1, attrs2)
        pool = self._pool(self.attrs)
        # MO's op name until inference; one output, as in MO (MaxPool's indices stay unused)
        self.attrs.update(op="Pooling", type=pool.type, version=pool.version, out_ports_count=1)
        self.backend = pool

    def backend_attrs(self) -> list:
        return list(self.backend.attr_types)

    @staticmethod
    def _pool(attrs: Any) -> type:
        return _POOLS.get(attrs.get("pool_method", "max"), MaxPool)

    @classmethod
    def to_opset(cls, attrs: dict) -> dict:
        out = window_attrs(attrs)
        if "exclude_pad" in attrs:
            out["exclude-pad"] = bool(attrs["exclude_pad"])
        return out

    @classmethod
    def infer(cls, node: Node) -> None:
        cls.prepare(node)
        shape = node.in_port(0).data.get_shape()
        if node.soft_get("global_pool", False) and shape is not None:
            n = len(shape) - 2
            node.attrs().update(kernel=list(shape[2:]), strides=[1] * n, pads_begin=[0] * n,
                                pads_end=[0] * n, auto_pad="explicit")
        pool = cls._pool(node.attrs())
        node.attrs().update(op=pool.op, type=pool.type, version=pool.version)
        pool.infer(node)
        _mo_outputs(node, list(node["kernel"]))
