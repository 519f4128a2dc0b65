"""--transform, as MO 2023.3 ran OpenVINO's offline transformations: MakeStateful turns named
Parameter/Result pairs into variables (ReadValue/Assign), LowLatency2 has nothing to do
without TensorIterator/Loop; Pruning is converter.back.pruning."""

from __future__ import annotations

import ast
import logging

import numpy as np

from converter.errors import UsageError
from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.ops.op import Op
from converter.options import ConvertOptions

__all__ = ["apply_transforms"]

log = logging.getLogger(__name__)


def _pairs(args: dict[str, str]) -> dict[str, str]:
    """param_res_names={'in':'out',...} -> {'in': 'out'}, as MO read it (a Python dict)."""
    text = args.get("param_res_names")
    try:
        pairs = ast.literal_eval(text) if text else None
    except (ValueError, SyntaxError):
        pairs = None
    if not isinstance(pairs, dict) or not pairs or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in pairs.items()):
        msg = ("--transform MakeStateful needs its pairs: "
               "MakeStateful[param_res_names={'input_name':'output_name',...}]")
        raise UsageError(msg)
    return pairs


def _tensor_names(port: Port) -> list[str]:
    return port.get_tensor_names() or [port.node.soft_get("name")]


def _parameter(graph: Graph, name: str) -> Node:
    for param in graph.get_op_nodes(op="Parameter"):
        if name in _tensor_names(param.out_port(0)):
            shape = param.soft_get("shape", None)
            if shape is None or any(d < 0 for d in shape):
                msg = (f"--transform MakeStateful: input '{name}' has a dynamic shape; "
                       "give it one with --input_shape (MakeStateful needs static shapes)")
                raise UsageError(msg)
            return param
    names = ", ".join(n for p in graph.get_op_nodes(op="Parameter")
                      for n in _tensor_names(p.out_port(0)))
    msg = f"--transform MakeStateful: no input named '{name}'; the inputs are {names}"
    raise UsageError(msg)


def _result(graph: Graph, name: str) -> Node:
    for result in graph.get_op_nodes(op="Result"):
        if name in _tensor_names(result.in_port(0).get_source()):
            return result
    names = ", ".join(n for r in graph.get_op_nodes(op="Result")
                      for n in _tensor_names(r.in_port(0).get_source()))
    msg = f"--transform MakeStateful: no output named '{name}'; the outputs are {names}"
    raise UsageError(msg)


def make_stateful(graph: Graph, pairs: dict[str, str]) -> None:
    """Each input becomes a ReadValue of variable '<input><output>' (zeros at first, as
    OpenVINO's MakeStateful names and starts it) and its output an Assign to that variable."""
    found = [(_parameter(graph, p), _result(graph, r), p + r) for p, r in pairs.items()]
    for param, result, var in found:
        dtype = np.dtype(param.soft_get("element_type", np.float32))
        read = Op.builtin_ops["ReadValue"](graph).create_node(attrs={
            "name": f"{var}/read", "variable_id": var, "variable_type": dtype,
            "variable_shape": tuple(param.shape), "in_ports_count": 0})
        param.out_port(0).get_connection().set_source(read.out_port(0))
        graph.remove_node(param.id)
        assign = Op.builtin_ops["Assign"](graph).create_node(
            attrs={"name": f"{var}/assign", "variable_id": var})
        result.in_port(0).get_source().connect(assign.in_port(0))
        graph.remove_node(result.id)
    graph.graph["output_order"] = [n for n in graph.graph.get("output_order") or []
                                   if n not in pairs.values()]
    graph.graph["input_order"] = [n for n in graph.graph.get("input_order") or []
                                  if n not in pairs]


def apply_transforms(graph: Graph, opts: ConvertOptions) -> None:
    """Run each --transform in the order given (MO ran them after its own passes; these
    rewrites commute with the front passes, so they run once the inputs are final)."""
    for name, args in opts.transforms:
        if name == "MakeStateful":
            make_stateful(graph, _pairs(args))
        elif name == "Pruning":
            continue  # a back-stage pass (converter.back.pruning), once weights are folded
        elif not graph.get_op_nodes(op="TensorIterator") + graph.get_op_nodes(op="Loop"):
            log.info("--transform LowLatency2: the model has no TensorIterator or Loop; "
                     "nothing to change (as in OpenVINO)")
        else:
            msg = ("--transform LowLatency2: extgen does not rewrite TensorIterator/Loop "
                   "into state yet; convert without it and run OpenVINO's LowLatency2 on the IR")
            raise UsageError(msg)
