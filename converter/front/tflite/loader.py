"""A TensorFlow Lite model (converter.front.tflite.model) as a front-stage Graph.

- Subgraph inputs -> Parameters (the file's types and shapes, -1 where the shape signature
  says dynamic), outputs -> Results; constant tensors -> Consts; each operator -> a framework
  node (`op`: the builtin's name or the custom op's custom_code, `pb`: its Operator record).
- Quantized tensors are computed in float32 holding their real values: quantized constants
  (int8 weights, int32 biases) stay integers, dequantized by ops kept in the IR
  (converter.front.tflite.weights); a quantized integer input is dequantized
  after its Parameter and a quantized integer output quantized again before its Result, so the
  IR keeps the file's interface (as ovc does).
- graph.graph['layout'] is 'NHWC' when the model convolves or pools (TFLite is channels-last);
  the middle phase then runs those ops NCHW inside (converter.middle.layout).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

from converter.errors import ModelFormatError
from converter.front.tflite.model import Operator, TensorInfo, TfliteModel
from converter.front.tflite.weights import dequantized_const
from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.middle.declared_shapes import KEY as DECLARED
from converter.ops.op import Op

__all__ = ["model_to_graph", "quantized_range"]

LAYOUT_OPS = {"CONV_2D", "DEPTHWISE_CONV_2D", "TRANSPOSE_CONV", "AVERAGE_POOL_2D",
              "MAX_POOL_2D", "L2_POOL_2D"}
_F32 = np.dtype(np.float32)


def quantized_range(dtype: np.dtype) -> tuple[int, int]:
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def _add(graph: Graph, op: str, name: str, inputs: list[Port] = (), **attrs) -> Node:
    node = Op.builtin_ops[op](graph).create_node(attrs={"name": name, **attrs})
    for i, src in enumerate(inputs):
        src.connect(node.in_port(i))
    return node


def _const(graph: Graph, name: str, value) -> Port:
    return _add(graph, "Const", name, value=np.asarray(value)).out_port(0)


def _dequantized(graph: Graph, src: Port, t: TensorInfo) -> Port:
    """src (t's integers) as float32 reals: (q - zero_point) * scale."""
    q = t.quantization
    rank = len(t.shape)
    real = _add(graph, "Convert", f"{t.name}/dequantize", [src], destination_type=_F32)
    shifted = _add(graph, "Subtract", f"{t.name}/dequantize/zero_point", [
        real.out_port(0), _const(graph, f"{t.name}/zero_point",
                                 q.along(q.zero_point, rank).astype(np.float32))])
    return _add(graph, "Multiply", f"{t.name}/dequantize/scale", [
        shifted.out_port(0), _const(graph, f"{t.name}/scale",
                                    q.along(q.scale, rank).astype(np.float32))]).out_port(0)


def _quantized(graph: Graph, src: Port, t: TensorInfo) -> Port:
    """src (reals) as t's integers: clamp(round(x / scale) + zero_point)."""
    q = t.quantization
    lo, hi = quantized_range(t.dtype)
    scaled = _add(graph, "Divide", f"{t.name}/quantize/scale", [
        src, _const(graph, f"{t.name}/quantize/scale_value", q.scale[:1].reshape(()))])
    rounded = _add(graph, "Round", f"{t.name}/quantize/round", [scaled.out_port(0)],
                   mode="half_to_even")
    shifted = _add(graph, "Add", f"{t.name}/quantize/zero_point", [
        rounded.out_port(0), _const(graph, f"{t.name}/quantize/zero_point_value",
                                    np.float32(q.zero_point[0]))])
    clamped = _add(graph, "Clamp", f"{t.name}/quantize/clamp", [shifted.out_port(0)],
                   min=float(lo), max=float(hi))
    return _add(graph, "Convert", f"{t.name}/quantize", [clamped.out_port(0)],
                destination_type=t.dtype).out_port(0)


class _Tensors:
    """The port each tensor comes from: Parameters, producing operators, Consts (made when
    first read)."""

    def __init__(self, graph: Graph, path: Path) -> None:
        self.graph, self.path = graph, path
        self.ports: dict[int, Port] = {}

    def port(self, t: TensorInfo, reader: str) -> Port:
        if t.index not in self.ports:
            if t.data is None:
                msg = (f"{self.path}: tensor '{t.name}', read by {reader}, is produced by "
                       "nothing (truncated or corrupt file); export the model again")
                raise ModelFormatError(msg)
            if t.quantized:
                port = dequantized_const(_builder(self.graph, t.name), t)
            else:
                port = _add(self.graph, "Const", t.name, value=t.data).out_port(0)
            port.add_tensor_names([t.name])
            self.ports[t.index] = port
        return self.ports[t.index]


def _builder(graph: Graph, prefix: str):
    """An op builder (weights.Builder) adding ops named prefix/<type>_<n>."""
    count = itertools.count()

    def op(kind: str, inputs: list, **attrs) -> Port:
        name = f"{prefix}/{kind}_{next(count)}"
        ports = [src if isinstance(src, Port) else _const(graph, f"{name}/value", src)
                 for src in inputs]
        return _add(graph, kind, name, ports, **attrs).out_port(0)

    return op


def _add_operator(graph: Graph, op: Operator, tensors: _Tensors) -> None:
    name = op.outputs[0].name if op.outputs else f"{op.op}_{op.index}"
    node_id = graph.unique_id(name)
    graph.add_node(node_id, kind="op", op=op.op, name=name, pb=op,
                   in_ports_count=len(op.inputs), out_ports_count=len(op.outputs))
    node = Node(graph, node_id)
    node.update_node()
    for i, t in enumerate(op.inputs):
        if t is not None:
            tensors.port(t, f"operator {op.index} ({op.op})").connect(node.in_port(i))
    for i, t in enumerate(op.outputs):
        node.out_port(i).add_tensor_names([t.name])
        tensors.ports[t.index] = node.out_port(i)


def model_to_graph(model: TfliteModel, path: Path) -> Graph:
    graph = Graph()
    nhwc = any(op.op in LAYOUT_OPS for op in model.operators)
    graph.graph.update(fw="tflite", layout="NHWC" if nhwc else "NCHW",
                       feature_dim=-1 if nhwc else 1, name=path.stem,
                       fw_opset_version=model.version)
    tensors = _Tensors(graph, path)
    for t in model.inputs:
        param = _add(graph, "Parameter", t.name, shape=t.shape, element_type=t.dtype)
        param.out_port(0).add_tensor_names([t.name])
        tensors.ports[t.index] = (_dequantized(graph, param.out_port(0), t) if t.quantized
                                  else param.out_port(0))
    for op in model.operators:
        _add_operator(graph, op, tensors)
    for t in model.outputs:
        src = tensors.port(t, "the model's outputs")
        if t.quantized:  # the tensor's name goes to the integers
            real, src = src, _quantized(graph, src, t)
            _move_names(real, src)
        result = _add(graph, "Result", f"{t.name}/sink_port_0")
        src.connect(result.in_port(0))
    graph.graph["input_order"] = [t.name for t in model.inputs]
    graph.graph["output_order"] = [t.name for t in model.outputs]
    graph.graph[DECLARED] = {t.name: t.shape for op in model.operators for t in op.outputs}
    return graph


def _move_names(old: Port, new: Port) -> None:
    names = old.get_tensor_names()
    old.remove_tensor_names()
    new.add_tensor_names(names)
