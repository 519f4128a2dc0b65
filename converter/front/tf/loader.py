"""Read a frozen TensorFlow GraphDef (.pb binary or .pbtxt text) with the converter's own
protos into a front-stage Graph.

- Placeholder -> Parameter (shape and dtype from its attributes; --input_shape overrides); a
  Placeholder nothing reads is dropped (TF2 control flow leaves dozens of them),
  Const -> Const, every other NodeDef -> a framework node with `pb` (the NodeDef) and `op`.
- Inputs `name`, `name:1` become edges from that output port; `^control` inputs are dropped.
- Outputs: every node whose outputs nobody consumes (NoOp, Const, Placeholder and sinks such
  as Assert/SaveV2 excepted, and what a node that is itself read holds by control input) gets
  a Result on port 0, in GraphDef order.
- graph.graph['layout'] is 'NHWC' when a layout-sensitive op (convolution, pooling, batch norm)
  uses NHWC data; then the middle phase changes the IR to NCHW (converter.middle.layout).
"""

from __future__ import annotations

import mmap
import os
from functools import cache
from pathlib import Path

import numpy as np
from google.protobuf.message import DecodeError

from converter.errors import InputFileError, ModelFormatError
from converter.front.proto import load_proto
from converter.front.proto.textproto import TextFormatError, merge_text
from converter.front.tf.attrs import (
    attr_value,
    get_tf_node_port,
    tf_dtype_extractor,
    tf_tensor_content,
    tf_tensor_shape,
)
from converter.graph.graph import Graph, Node
from converter.graph.shape import DYN
from converter.middle.declared_shapes import KEY as DECLARED
from converter.ops.op import Op

__all__ = [
    "LAYOUT_OPS", "add_op", "fill_graph", "graph_def_class", "graph_def_to_graph",
    "load_graph_def",
]

PROTO_DIR = Path(__file__).resolve().parent / "proto"
# ops whose data_format decides the model's layout (MO's list, plus pooling and batch norm)
LAYOUT_OPS = {
    "Conv2D", "Conv3D", "DepthwiseConv2dNative", "Conv2DBackpropInput", "Conv3DBackpropInputV2",
    "MaxPool", "AvgPool", "MaxPool3D", "AvgPool3D", "FusedBatchNorm", "FusedBatchNormV2",
    "FusedBatchNormV3",
}
_NO_OUTPUT = {"NoOp", "Const", "Placeholder", "Assert", "SaveV2", "RestoreV2", "VarHandleOp",
              "VariableV2", "PlaceholderWithDefault"}


@cache
def graph_def_class() -> type:
    """tensorflow.GraphDef, built from converter/front/tf/proto/*.proto (no protoc)."""
    return load_proto(PROTO_DIR / "graph.proto")["tensorflow.GraphDef"]


def load_graph_def(path: str | Path, is_text: bool | None = None):
    """Parse a frozen GraphDef; .pbtxt (or is_text) as text format. One clear error for a
    missing, unreadable, corrupt or syntactically wrong file."""
    path = Path(path)
    if not path.is_file():
        msg = f"{path}: no such model file"
        raise InputFileError(msg)
    graph_def = graph_def_class()()
    text = path.suffix.lower() == ".pbtxt" if is_text is None else is_text
    try:
        with open(path, "rb") as file:
            if text:
                _read_text(path, file, graph_def)
            else:
                _read_binary(path, file.read(), graph_def)
    except OSError as err:
        msg = f"{path}: cannot read the model ({err.strerror})"
        raise InputFileError(msg) from err
    if not graph_def.node:
        msg = f"{path}: the GraphDef holds no nodes (empty, truncated or not a TensorFlow model)"
        raise ModelFormatError(msg)
    for node in graph_def.node:
        if not node.name or not node.op:
            msg = f"{path}: a node without a name or op (corrupt or not a TensorFlow GraphDef)"
            raise ModelFormatError(msg)
    return graph_def


def _read_text(path: Path, file, graph_def) -> None:
    """Parse with the converter's text reader over a memory map (a frozen ResNet is 270 MB)."""
    if os.fstat(file.fileno()).st_size == 0:
        return
    with mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
        try:
            merge_text(data, graph_def)
        except TextFormatError as err:
            msg = f"{path}:{err.line}: not a valid text-format GraphDef ({err.what})"
            raise ModelFormatError(msg) from None


def _read_binary(path: Path, data: bytes, graph_def) -> None:
    try:
        graph_def.ParseFromString(data)
    except (DecodeError, RuntimeError, ValueError) as err:
        msg = (f"{path}: not a valid frozen TensorFlow GraphDef "
               f"(truncated or corrupt protobuf: {err})")
        raise ModelFormatError(msg) from None


def _placeholder_shape(pb) -> tuple[int, ...] | None:
    for key in ("shape", "_output_shapes"):
        if key in pb.attr:
            av = pb.attr[key]
            shape = (av.shape if av.HasField("shape")
                     else av.list.shape[0] if av.list.shape else None)
            if shape is None or shape.unknown_rank:
                return None
            return tuple(int(d) if d >= 0 else DYN for d in tf_tensor_shape(shape))
    return None


def _const_value(pb) -> np.ndarray:
    if "value" not in pb.attr or not pb.attr["value"].HasField("tensor"):
        msg = f"Const node '{pb.name}' has no value"
        raise ModelFormatError(msg)
    tensor = pb.attr["value"].tensor
    try:
        value = tf_tensor_content(tensor.dtype, tf_tensor_shape(tensor.tensor_shape), tensor)
    except ModelFormatError as err:
        msg = f"Const node '{pb.name}': {err}"
        raise ModelFormatError(msg) from None
    if value.dtype.kind == "c":  # the IR has no complex type: a trailing [re, im] axis
        return np.stack([value.real, value.imag], axis=-1)
    return value


def add_op(graph: Graph, op: str, name: str, **attrs) -> Node:
    return Op.builtin_ops[op](graph).create_node(attrs={"name": name, **attrs})


def model_layout(graph_def) -> str:
    """'NHWC' when some layout-sensitive op works on channels-last data, else 'NCHW'."""
    for pb in graph_def.node:
        if pb.op in LAYOUT_OPS:
            fmt = attr_value(pb.attr["data_format"]) if "data_format" in pb.attr else "NHWC"
            if fmt in ("NHWC", "NDHWC"):
                return "NHWC"
    return "NCHW"


def _add_node(graph: Graph, pb) -> Node:
    """Parameter for a Placeholder, Const for a Const, else a framework node."""
    if pb.op == "Placeholder":
        dtype = (tf_dtype_extractor(pb.attr["dtype"].type, np.float32) if "dtype" in pb.attr
                 else np.dtype(np.float32))
        return add_op(graph, "Parameter", pb.name, shape=_placeholder_shape(pb),
                       element_type=dtype, pb=pb, extracted=True)
    if pb.op == "Const":
        return add_op(graph, "Const", pb.name, value=_const_value(pb), pb=pb, extracted=True)
    node_id = graph.unique_id(pb.name)
    graph.add_node(node_id, kind="op", op=pb.op, name=pb.name, pb=pb,
                   in_ports_count=len(pb.input), out_ports_count=1)
    node = Node(graph, node_id)
    node.update_node()
    return node


def fill_graph(graph: Graph, pbs, nodes: dict[str, Node]) -> None:
    """Add pbs (NodeDefs) to graph with their data edges; `nodes` holds the nodes made so far
    (a body's Parameters) and gets the new ones."""
    read = {get_tf_node_port(t.lstrip("^"))[0] for pb in pbs for t in pb.input}
    added = []
    for pb in pbs:
        if pb.name in nodes:
            msg = f"two nodes are named '{pb.name}' (corrupt GraphDef)"
            raise ModelFormatError(msg)
        if pb.op == "Placeholder" and pb.name not in read:
            continue  # a dead input (TF2 control flow leaves dozens: unused_control_flow_input)
        nodes[pb.name] = _add_node(graph, pb)
        added.append(pb)
    for pb in added:
        node = nodes[pb.name]
        port = 0
        for tensor in pb.input:
            if tensor.startswith("^"):
                continue  # control dependency
            src_name, out = get_tf_node_port(tensor)
            src = nodes.get(src_name)
            if src is None:
                msg = (f"input '{tensor}' of node '{pb.name}' ({pb.op}) names no node in the "
                       "graph (truncated or corrupt model)")
                raise ModelFormatError(msg)
            src.out_port(out).connect(node.in_port(port))
            port += 1
    for pb in added:
        node = nodes[pb.name]
        for idx in node.out_ports():
            names = [f"{pb.name}:{idx}"] + ([pb.name] if idx == 0 else [])
            node.out_port(idx).add_tensor_names(names)


def _outputs(graph_def) -> list[str]:
    """The nodes nothing reads by data input, nor by control input from a node that is read in
    turn (a TF2 frozen graph's output waits for a NoOp that holds its loops' exits and unused
    variable reads)."""
    data: set[str] = set()
    held: dict[str, list[str]] = {}
    for pb in graph_def.node:
        for tensor in pb.input:
            name = get_tf_node_port(tensor.lstrip("^"))[0]
            if tensor.startswith("^"):
                held.setdefault(name, []).append(pb.name)
            else:
                data.add(name)
    read = data | set(held)
    return [pb.name for pb in graph_def.node
            if pb.name not in data and pb.op not in _NO_OUTPUT
            and not any(h in read for h in held.get(pb.name, ()))]


def graph_def_to_graph(graph_def, name: str = "model") -> Graph:
    """Front-stage graph of a GraphDef: Parameter/Const/framework nodes/Result. The function
    library stays in graph.graph['tf_functions'] (the bodies of While and If)."""
    layout = model_layout(graph_def)
    graph = Graph()
    graph.graph.update(
        fw="tf", layout=layout, feature_dim=-1 if layout == "NHWC" else 1, name=name,
        fw_opset_version=graph_def.versions.producer,
        tf_functions={f.signature.name: f for f in graph_def.library.function},
    )
    nodes: dict[str, Node] = {}
    fill_graph(graph, graph_def.node, nodes)
    outputs = _outputs(graph_def)
    if not outputs:
        msg = "the graph has no output: every node's result is consumed or a Const/Placeholder"
        raise ModelFormatError(msg)
    for out in outputs:
        result = add_op(graph, "Result", f"{out}/sink_port_0")
        nodes[out].out_port(0).connect(result.in_port(0))
    graph.graph["output_order"] = outputs
    graph.graph["input_order"] = [pb.name for pb in graph_def.node
                                  if pb.op == "Placeholder" and pb.name in nodes]
    graph.graph[DECLARED] = _declared_shapes(graph_def)
    return graph


def _declared_shapes(graph_def) -> dict[str, tuple[int, ...]]:
    """'node:port' -> the shape the GraphDef's `_output_shapes` declares for it (TF writes them
    with add_shapes=True; -1: unknown), for partial inference to check."""
    found = {}
    for pb in graph_def.node:
        if "_output_shapes" not in pb.attr:
            continue
        for port, shape in enumerate(pb.attr["_output_shapes"].list.shape):
            if not shape.unknown_rank:
                found[f"{pb.name}:{port}"] = tuple(max(int(d.size), -1) for d in shape.dim)
    return found
