"""What an ONNX graph declares must be one thing each: every value written once (by one
initializer, graph input or node output), every graph input and output named once, and every
input dimension a size, -1 or a symbolic name. Otherwise the loader would keep whichever came
last; instead the model is refused with one line naming the value."""

from __future__ import annotations

import onnx

from converter.errors import ModelFormatError

__all__ = ["check_declarations", "check_outputs"]


def _once(names: list[str], what: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            msg = f"{what} '{name}' is declared twice (corrupt model); give each its own name"
            raise ModelFormatError(msg)
        seen.add(name)


def _check_dims(vi: onnx.ValueInfoProto) -> None:
    if not vi.type.tensor_type.HasField("shape"):
        return
    dims = vi.type.tensor_type.shape.dim
    for d in dims:
        if d.HasField("dim_value") and d.dim_value < -1:
            shape = [x.dim_value if x.HasField("dim_value") else x.dim_param or "?" for x in dims]
            msg = (f"graph input '{vi.name}' declares the dimension {d.dim_value} in its shape "
                   f"{shape}; a dimension is a size >= 0, or a symbolic name (dim_param) when "
                   "dynamic: fix the model")
            raise ModelFormatError(msg)


def _node_label(pb: onnx.NodeProto, index: int) -> str:
    name = pb.name or (pb.output[0] if pb.output and pb.output[0] else f"{pb.op_type}_{index}")
    return f"node '{name}' ({pb.op_type})"


def check_declarations(g: onnx.GraphProto) -> None:
    """g's initializers and inputs are named once, its input dimensions are valid and each
    tensor has one producer (an input may repeat an initializer: ONNX before IR 4)."""
    _once([t.name for t in g.initializer], "initializer")
    _once([vi.name for vi in g.input], "graph input")
    for vi in g.input:
        _check_dims(vi)
    writers = {t.name: f"initializer '{t.name}'" for t in g.initializer}
    for vi in g.input:
        writers.setdefault(vi.name, f"graph input '{vi.name}'")
    for index, pb in enumerate(g.node):
        for tensor in pb.output:
            if not tensor:
                continue
            here = _node_label(pb, index)
            if tensor in writers:
                msg = (f"tensor '{tensor}' is written by both {writers[tensor]} and {here} "
                       "(corrupt model); give each tensor one producer")
                raise ModelFormatError(msg)
            writers[tensor] = here


def check_outputs(g: onnx.GraphProto) -> None:
    """The model's outputs are named once."""
    _once([vi.name for vi in g.output], "graph output")
