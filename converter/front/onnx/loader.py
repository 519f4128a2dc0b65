"""Read an .onnx file (external data confined to its folder) into a front-stage Graph."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import onnx
from google.protobuf.message import DecodeError
from onnx import TensorProto, numpy_helper

from converter.errors import InputFileError, ModelFormatError
from converter.front.onnx.declarations import check_declarations, check_outputs
from converter.front.onnx.weights import MappedModel, WireFormatError
from converter.front.proto.strings import check_strings
from converter.graph.graph import Graph, Node
from converter.graph.shape import DYN
from converter.ir.carried import CARRIED_TYPE, carrier, is_carried
from converter.middle.declared_shapes import KEY as DECLARED
from converter.ops.op import Op

__all__ = [
    "add_op", "check_tensor_header", "fill_graph", "implicit_inputs", "load_model",
    "model_to_graph", "tensor_value",
]

_KNOWN_TYPES = frozenset(onnx.helper.get_all_tensor_dtypes()) - {TensorProto.UNDEFINED}
_MAX_ELEMENTS = 1 << 40


def load_model(path: str | Path) -> MappedModel:
    """Map and parse the file; one clear error for a missing, unreadable or corrupt model."""
    path = Path(path)
    if not path.is_file():
        msg = f"{path}: no such model file"
        raise InputFileError(msg)
    try:
        mapped = MappedModel(path)
    except OSError as err:
        msg = f"{path}: cannot read the model ({err.strerror})"
        raise InputFileError(msg) from err
    except (WireFormatError, DecodeError, RuntimeError, ValueError) as err:
        msg = f"{path}: not a valid ONNX model (truncated or corrupt protobuf: {err})"
        raise ModelFormatError(msg) from err
    if not mapped.model.HasField("graph") or not mapped.model.graph.output:
        msg = f"{path}: not a valid ONNX model (no graph or no outputs; truncated?)"
        raise ModelFormatError(msg)
    check_strings(mapped.model, path)
    return mapped


def _bad(tensor: TensorProto, what: str) -> ModelFormatError:
    return ModelFormatError(f"initializer '{tensor.name}': {what} (corrupt model)")


def _external_int(tensor: TensorProto, info: dict[str, str], key: str) -> int | None:
    if key not in info:
        return None
    text = info[key]
    if not text.isdigit():
        raise _bad(tensor, f"external data {key} '{text}' is not a non-negative integer")
    return int(text)


def _external_value(tensor: TensorProto, base: Path) -> np.ndarray:
    info = {e.key: e.value for e in tensor.external_data}
    location = info.get("location", "")
    if "\0" in location or not location:
        raise _bad(tensor, f"external data location {location!r} is not a file name")
    target = (base / location).resolve()
    if os.path.isabs(location) or base.resolve() not in target.parents:
        msg = (
            f"initializer '{tensor.name}' points outside the model's folder ({location}); "
            "external data must sit beside the model"
        )
        raise ModelFormatError(msg)
    if not target.is_file():
        msg = f"initializer '{tensor.name}': external data file {target} is missing"
        raise InputFileError(msg)
    dtype = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(tensor.data_type))
    shape = tuple(tensor.dims)
    offset = _external_int(tensor, info, "offset") or 0
    length = _external_int(tensor, info, "length")
    count = int(np.prod(shape, dtype=np.int64))
    if length is not None and length < count * dtype.itemsize:
        msg = f"external data length {length} is less than its dims {list(shape)} need"
        raise _bad(tensor, msg)
    if offset + count * dtype.itemsize > target.stat().st_size:
        msg = f"initializer '{tensor.name}': external data file {target} is too short"
        raise ModelFormatError(msg)
    return np.memmap(target, dtype=dtype, mode="r", offset=offset, shape=shape)


def check_tensor_header(tensor: TensorProto) -> None:
    """Reject an unknown data_type or negative/oversized dims before any bytes are read."""
    if tensor.data_type not in _KNOWN_TYPES:
        raise _bad(tensor, f"unknown data_type {tensor.data_type}")
    if any(d < 0 for d in tensor.dims):
        raise _bad(tensor, f"negative dimension in dims {list(tensor.dims)}")
    if np.prod([float(d) for d in tensor.dims]) > _MAX_ELEMENTS:
        raise _bad(tensor, f"dims {list(tensor.dims)} are too large")


def tensor_value(tensor: TensorProto, base: Path | None = None,
                 mapped: MappedModel | None = None) -> np.ndarray:
    """A TensorProto as numpy (raw bytes from `mapped`, external data read from base); a
    tensor whose bytes do not match its dims and type is a ModelFormatError naming it."""
    check_tensor_header(tensor)
    try:
        value = mapped.initializer(tensor) if mapped is not None else None
        if value is not None:
            return value
        if tensor.data_location == TensorProto.EXTERNAL:
            return _external_value(tensor, base or Path("."))
        return numpy_helper.to_array(tensor)
    except (ValueError, TypeError, KeyError, OverflowError) as err:
        raise _bad(tensor, f"its data does not match dims {list(tensor.dims)} ({err})") from None


def _declared_shape(value_info: onnx.ValueInfoProto) -> tuple[int, ...] | None:
    """The tensor's declared shape, a dim without a value (symbolic or unset) dynamic."""
    t = value_info.type.tensor_type
    if not t.HasField("shape"):
        return None
    return tuple(d.dim_value if d.HasField("dim_value") else DYN for d in t.shape.dim)


def _check_attribute_types(pb: onnx.NodeProto, name: str, opset: int) -> None:
    """An attribute of a standard op must have the type its ONNX schema declares."""
    if pb.domain not in ("", "ai.onnx"):
        return
    try:
        schema = onnx.defs.get_schema(pb.op_type, opset, "")
    except onnx.defs.SchemaError:
        return
    for attr in pb.attribute:
        want = schema.attributes.get(attr.name)
        if want is not None and int(want.type) != attr.type:
            got = onnx.AttributeProto.AttributeType.Name(attr.type)
            msg = (
                f"node '{name}' ({pb.op_type}): attribute '{attr.name}' is {got}, "
                f"the ONNX schema wants {want.type.name} (corrupt model)"
            )
            raise ModelFormatError(msg)


def implicit_inputs(g: onnx.GraphProto) -> list[str]:
    """The outer-scope tensors a sub-graph reads (its nested sub-graphs' too), in first use
    order: names it neither takes as inputs nor defines."""
    defined = {i.name for i in g.input} | {t.name for t in g.initializer}
    defined |= {o for node in g.node for o in node.output}
    used = [name for node in g.node for name in [*node.input, *_captures(node)]]
    used += [o.name for o in g.output]
    return list(dict.fromkeys(n for n in used if n and n not in defined))


def _captures(pb: onnx.NodeProto) -> tuple[str, ...]:
    """What pb's sub-graphs (If branches, Loop/Scan bodies) read from outside them (most nodes:
    the one empty tuple, shared)."""
    graphs = [g for a in pb.attribute for g in ([a.g] if a.HasField("g") else list(a.graphs))]
    return tuple(dict.fromkeys(name for g in graphs for name in implicit_inputs(g)))


def add_op(graph: Graph, op: str, name: str, **attrs) -> Node:
    node = Op.builtin_ops[op](graph).create_node(attrs={"name": name, **attrs})
    return node


def _declare_carried(node: Node, dtype: np.dtype) -> None:
    """Record the ONNX element type of a value the IR carries in another type
    (converter.ir.carried), for the ops that read it (CastLike)."""
    if is_carried(dtype):
        node[CARRIED_TYPE] = dtype


def _add_node(graph: Graph, pb: onnx.NodeProto, index: int,
              producers: dict[str, tuple[Node, int]]) -> None:
    """One framework node for pb, fed by the producers of its inputs, then of the outer values
    its sub-graphs read (`captures`, after the inputs); it produces its outputs."""
    # one string per op type, not one per node
    op = sys.intern(pb.op_type if pb.domain in ("", "ai.onnx") else f"{pb.domain}::{pb.op_type}")
    name = pb.name or (pb.output[0] if pb.output and pb.output[0] else f"{pb.op_type}_{index}")
    if not pb.op_type:
        msg = f"node '{name}' has no op_type (corrupt model)"
        raise ModelFormatError(msg)
    _check_attribute_types(pb, name, graph.graph["fw_opset_version"])
    node_id = graph.unique_id(name)
    captures = _captures(pb)
    graph.add_node(
        node_id, kind="op", op=op, name=name, pb=pb, captures=captures,
        in_ports_count=len(pb.input) + len(captures), out_ports_count=len(pb.output),
    )
    node = Node(graph, node_id)
    node.update_node()
    for port, tensor in enumerate([*pb.input, *captures]):
        if not tensor:
            continue
        if tensor not in producers:
            msg = (
                f"input '{tensor}' of node '{name}' ({op}) is produced by nothing "
                "(the model is truncated or corrupt, or its nodes form a cycle)"
            )
            raise ModelFormatError(msg)
        src, out = producers[tensor]
        src.out_port(out).connect(node.in_port(port))
    for port, tensor in enumerate(pb.output):
        if tensor:
            # the node's name is often its first output's: one string for both
            node.out_port(port).add_tensor_names([name if tensor == name else tensor])
            producers[tensor] = (node, port)


def _in_order(nodes: Sequence[onnx.NodeProto], known: set[str]) -> list[onnx.NodeProto]:
    """nodes with each after the producers of what it reads: their own order where it is one
    (as ONNX requires; onnxruntime and OpenVINO accept others, and float16 converters append
    the casts of the inputs), else the nodes ready in each pass over the rest. Nodes that
    read what nothing produces end the list, for _add_node to name."""
    ready, pending, ordered = set(known), list(nodes), []
    while pending:
        rest = []
        for pb in pending:
            if all(not t or t in ready for t in [*pb.input, *_captures(pb)]):
                ordered.append(pb)
                ready.update(pb.output)
            else:
                rest.append(pb)
        if len(rest) == len(pending):
            return ordered + rest
        pending = rest
    return ordered


def fill_graph(graph: Graph, g: onnx.GraphProto, producers: dict[str, tuple[Node, int]],
               value_of: Callable[[TensorProto], np.ndarray]) -> tuple[list[str], list[str]]:
    """g's initializers (Consts, by value_of), inputs (Parameters), nodes and outputs (Results)
    into graph; producers may already hold outer values. Returns the Parameter and the Result
    node ids, in g's input and output order."""
    check_declarations(g)
    inits = {t.name for t in g.initializer}
    for t in g.initializer:
        value = value_of(t)
        node = add_op(graph, "Const", t.name, value=value.astype(carrier(value.dtype), copy=False))
        _declare_carried(node, value.dtype)
        node.out_port(0).add_tensor_names([t.name])
        producers[t.name] = (node, 0)
    params = []
    for vi in g.input:
        if vi.name in inits:
            continue
        elem = vi.type.tensor_type.elem_type
        dtype = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem) if elem else np.float32)
        node = add_op(
            graph, "Parameter", vi.name, shape=_declared_shape(vi), element_type=carrier(dtype)
        )
        _declare_carried(node, dtype)
        node.out_port(0).add_tensor_names([vi.name])
        producers[vi.name] = (node, 0)
        params.append(node.id)
    for i, pb in enumerate(_in_order(g.node, set(producers))):
        _add_node(graph, pb, i, producers)
    results = []
    for vi in g.output:
        if vi.name not in producers:
            msg = f"graph output '{vi.name}' is produced by nothing (truncated or corrupt model)"
            raise ModelFormatError(msg)
        src, out = producers[vi.name]
        result = add_op(graph, "Result", f"{vi.name}/sink_port_0")
        src.out_port(out).connect(result.in_port(0))
        results.append(result.id)
    return params, results


def model_to_graph(mapped: MappedModel, base: Path | None = None) -> Graph:
    """Front-stage graph: Parameter/Const/framework nodes/Result, edges by tensor name."""
    model = mapped.model
    g = model.graph
    opsets = {(o.domain or "ai.onnx"): o.version for o in model.opset_import}
    check_outputs(g)
    graph = Graph()
    graph.graph.update(
        fw="onnx", layout="NCHW", feature_dim=1, opsets=opsets,
        fw_opset_version=opsets.get("ai.onnx", 1), name=g.name or "model",
    )
    fill_graph(graph, g, {}, lambda t: tensor_value(t, base, mapped))
    graph.graph[DECLARED] = {vi.name: shape for vi in (*g.input, *g.value_info, *g.output)
                             if (shape := _declared_shape(vi)) is not None}
    inits = {t.name for t in g.initializer}
    graph.graph["output_order"] = [vi.name for vi in g.output]
    graph.graph["input_order"] = [vi.name for vi in g.input if vi.name not in inits]
    return graph
