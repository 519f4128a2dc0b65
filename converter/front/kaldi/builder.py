"""Front-stage graph pieces for Kaldi: the input Parameter, one framework node per component
(its `component` the parsed Component, its op the component type), opset ops built directly
(ParallelComponent's split and concat, nnet3's descriptors), and the Results."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from converter.errors import ModelFormatError
from converter.front.kaldi.component import Component
from converter.front.kaldi.mo_readers import parameters
from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.ops.movement.strided_slice import MO_CROP
from converter.ops.op import Op

__all__ = ["GraphBuilder", "check_delay"]

MAX_DELAY = 1000  # frames (10 s of speech at Kaldi's 100 frames a second)


def check_delay(name: str, k: int) -> None:
    """Refuse a delay no acoustic model has (a corrupt offset would build k variables)."""
    if k > MAX_DELAY:
        msg = (f"node '{name}' is read {k} frames back (more than {MAX_DELAY}); "
               "its time offsets look corrupt")
        raise ModelFormatError(msg)


class GraphBuilder:
    """Adds nodes to one graph, naming them uniquely."""

    def __init__(self, name: str) -> None:
        self.graph = Graph()
        self.graph.graph.update(fw="kaldi", layout="NCHW", feature_dim=1, name=name)
        self.graph.graph["input_order"] = []
        self.graph.graph["output_order"] = []

    @classmethod
    def on(cls, graph: Graph) -> GraphBuilder:
        """A builder adding to an existing graph (a translator's)."""
        builder = cls.__new__(cls)
        builder.graph = graph
        return builder

    def parameter(self, name: str, dim: int, batch: int = 1) -> Port:
        """The net's input `name` of `dim` features; Kaldi has no dynamic dims, so one below 1
        is a corrupt model."""
        if int(dim) < 1:
            msg = (f"input '{name}' has {dim} features; a Kaldi input dim is a size >= 1 (the "
                   "model is corrupt)")
            raise ModelFormatError(msg)
        node = Op.builtin_ops["Parameter"](self.graph).create_node(attrs={
            "name": name, "shape": (batch, int(dim)), "element_type": np.dtype(np.float32)})
        node.out_port(0).add_tensor_names([name])
        self.graph.graph["input_order"].append(name)
        return node.out_port(0)

    def component(self, comp: Component, source: Port, name: str | None = None) -> Port:
        name = name or comp.name
        node_id = self.graph.unique_id(name)
        self.graph.add_node(node_id, kind="op", op=comp.type, name=name, component=comp,
                            pb=comp, parameters=parameters(comp), in_ports_count=1,
                            out_ports_count=1)
        node = Node(self.graph, node_id)
        node.update_node()
        source.connect(node.in_port(0))
        node.out_port(0).add_tensor_names([name])
        return node.out_port(0)

    def op(self, type_name: str, inputs: Sequence[Port | np.ndarray], name: str,
           **attrs: Any) -> Node:
        node = Op.builtin_ops[type_name](self.graph).create_node(
            attrs={"name": self.graph.unique_id(name), **attrs})
        for i, src in enumerate(inputs):
            if not isinstance(src, Port):
                src = self.const(src, f"{name}/value_{i}")
            src.connect(node.in_port(i))
        return node

    def crop(self, source: Port, start: int, stop: int, name: str,
             mo_crop: bool = False) -> Port:
        """Features start:stop of a [batch, dim] tensor, the StridedSlice MO's Crop became
        (CropToStridedSlice: the batch axis masked, the feature axis sliced); mo_crop: MO's
        graph held it as a Crop until then (legacy passes see that, converter.legacy)."""
        node = self.op("StridedSlice", [source, np.array([0, start]), np.array([0, stop]),
                                        np.array([1, 1])], name, begin_mask=[1, 0],
                       end_mask=[1, 0], new_axis_mask=[0, 0], shrink_axis_mask=[0, 0],
                       ellipsis_mask=[0, 0])
        if mo_crop:
            node[MO_CROP] = (start, stop - start)
        return node.out_port(0)

    def const(self, value: Any, name: str) -> Port:
        node = Op.builtin_ops["Const"](self.graph).create_node(
            attrs={"name": self.graph.unique_id(name), "value": np.asarray(value),
                   "shape": np.array(np.shape(value), np.int64)})  # MO's Const has its shape
        return node.out_port(0)

    def result(self, source: Port, name: str, state: bool = False) -> None:
        """A model output; a --remove_memory state's is left out of the output order, so the
        IR lists the states first, as MO did."""
        source.add_tensor_names([name])
        result = Op.builtin_ops["Result"](self.graph).create_node(
            attrs={"name": f"{name}/sink_port_0"})
        source.connect(result.in_port(0))
        if not state:
            self.graph.graph["output_order"].append(name)


class DelayLines:
    """Past values of nodes, one variable per delayed frame (ReadValue/Assign, zero at first).
    The graph's "kaldi_state" is (remove_memory, batch): a batch of N frames is N independent
    streams, each with its own state (MO). With --remove_memory, StateInputs
    (converter.front.kaldi.states) takes the same calls."""

    def __init__(self, b: GraphBuilder) -> None:
        self.b = b
        self.batch = b.graph.graph.get("kaldi_state", (False, 1))[1]
        self.lines: dict[str, list[Port]] = {}
        self.pending: list[tuple[str, str | Port, int]] = []  # (variable, what it stores, dim)

    def delayed(self, name: str, k: int, dim: int, source: Port | None = None,
                variable: str | None = None, batch_from: Port | None = None) -> Port:
        """The value of node `name` (the port `source`, when given) from k calls ago
        (`variable`: the name MO gave a recurrent state, for --remove_memory only; `batch_from`:
        the port whose batch the zeros take, the first input when not given)."""
        check_delay(name, k)
        line = self.lines.setdefault(name, [])
        while len(line) < k:
            var = self.b.graph.unique_id(f"{name}/delay_{len(line) + 1}")
            zeros = np.zeros((self.batch, dim), np.float32)
            read = self.b.op("ReadValue", [self._zeros(dim, batch_from)], var, variable_id=var,
                             variable_type=np.dtype(np.float32),
                             variable_shape=zeros.shape).out_port(0)
            self.pending.append((var, line[-1] if line else (source or name), dim))
            line.append(read)
        return line[k - 1]

    def _zeros(self, dim: int, source: Port | None) -> Port | np.ndarray:
        """A state's first value: zeros [batch, dim], the batch read from the first input as
        MO's MakeKaldiConstReshapable built it (Broadcast(zeros [1, dim], Concat(ShapeOf(input)
        [0:1], [dim])), the pieces shared by the states), so the IR can be reshaped."""
        params = self.b.graph.get_op_nodes(op="Parameter")
        if source is None and not params:
            return np.zeros((self.batch, dim), np.float32)
        source = source or params[0].out_port(0)
        name = source.node.soft_get("name", source.node.id)

        def made(port: Port, op: str, value: Any = None) -> Node | None:
            return next((d.node for d in port.get_destinations() if d.node.soft_get("op") == op
                         and (value is None or np.array_equal(
                             d.node.in_port(1).get_source().node.soft_get("value"), value))),
                        None)
        kept = {"keep_unfolded": True}  # MO did not fold the shape path (no --static_shape)
        shape = made(source, "ShapeOf") or self.b.op("ShapeOf", [source], f"{name}/Shape",
                                                     **kept)
        batch = made(shape.out_port(0), "StridedSlice", np.array([0])) or self.b.op(
            "StridedSlice", [shape.out_port(0), np.array([0]), np.array([1]), np.array([1])],
            f"{name}/Shape/Crop", begin_mask=[0], end_mask=[0], new_axis_mask=[0],
            shrink_axis_mask=[0], ellipsis_mask=[0], **kept)
        dims = made(batch.out_port(0), "Concat", np.array([dim])) or self.b.op(
            "Concat", [batch.out_port(0), np.array([dim])], f"{name}/Shape/Crop/Concat", axis=0,
            **kept)
        zeros = np.zeros((1, dim), np.float32)
        return (made(dims.out_port(0), "Broadcast") or self.b.op(
            "Broadcast", [zeros, dims.out_port(0)], f"{dims.name}/Broadcast", **kept)).out_port(0)

    def _store(self, var: str, value: Port, dim: int) -> None:
        # a copy (Concat, Slice) gives the stored value a tensor of its own: OpenVINO 2026's
        # CPU plugin lets an Assign fed straight by a Parameter or a ReadValue share that
        # buffer, so the stored value became the new one (test_kaldi_openvino_bug.py); a value
        # an opset op computes needs none (MO stored it as it was), a component's may (it can
        # translate to its input)
        producer = value.node
        if producer.has_valid("type") and not producer.has_valid("component") and \
                producer.soft_get("op") not in ("Parameter", "ReadValue"):
            self.b.op("Assign", [value], f"{var}/assign", variable_id=var)
            return
        twice = self.b.op("Concat", [value, value], f"{var}/copy", axis=1).out_port(0)
        copy = self.b.op("Slice", [twice, np.array([0]), np.array([dim]), np.array([1]),
                                   np.array([1])], f"{var}/copy").out_port(0)
        self.b.op("Assign", [copy], f"{var}/assign", variable_id=var)

    def connect(self, port_of=None) -> None:
        """Store every variable's next value, once the nodes exist (port_of(name) gives a
        node's port)."""
        for var, source, dim in self.pending:
            self._store(var, source if isinstance(source, Port) else port_of(source), dim)
        self.pending.clear()
