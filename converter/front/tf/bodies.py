"""TF functions (While cond and body, If branches) as the body Graphs of sub-graph ops, and the
GraphDef pass that readies loops: TF1 frames made While nodes (converter.front.tf.frames), and
each While given its initial condition.

A While checks its cond before each iteration, a Loop after: so the cond, inlined before the
While on its inputs, becomes one more (last) input of the While, which the translator gives the
Loop as its initial execution condition.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from converter.front.extractor import extract_nodes
from converter.front.tf.attrs import attr_value, get_tf_node_port
from converter.front.tf.frames import conds_to_if, frames_to_while
from converter.front.tf.functions import function_nodes, inline_calls
from converter.front.tf.loader import add_op, fill_graph, graph_def_class
from converter.front.tf.translator import REGISTRY, TfNode
from converter.graph.graph import Graph, Node

__all__ = ["LIST_SIZES", "WHILE_OPS", "TfBody", "build_body", "node_class", "prepare_loops"]

WHILE_OPS = ("While", "StatelessWhile")
LIST_SIZES = "_list_sizes"  # an attribute the converter gives a While
_FACTS = ("fw", "layout", "feature_dim", "fw_opset_version", "tf_functions")


@cache
def node_class() -> type:
    return type(graph_def_class()().node.add())


def _list_sizes(node, nodes: dict[str, object]) -> list[int]:
    """Per input of a While: the size of the TensorList it reserves, -1 when it is none or
    the size is not a constant."""
    sizes = []
    for tensor in (i for i in node.input if not i.startswith("^")):
        src = nodes.get(get_tf_node_port(tensor)[0])
        while src is not None and src.op == "Identity":
            src = nodes.get(get_tf_node_port(src.input[0])[0])
        size = nodes.get(get_tf_node_port(src.input[1])[0]) if (
            src is not None and src.op == "TensorListReserve") else None
        value = attr_value(size.attr["value"]) if size is not None and size.op == "Const" else None
        sizes.append(int(np.asarray(value).ravel()[0]) if value is not None else -1)
    return sizes


def _with_initial_conditions(nodes: list, functions: dict) -> list:
    """nodes, each While after its cond inlined on its inputs, which it reads last, and with
    the sizes of the lists it takes (LIST_SIZES)."""
    by_name = {n.name: n for n in nodes}
    out = []
    for node in nodes:
        if node.op in WHILE_OPS and LIST_SIZES not in node.attr:
            node.attr[LIST_SIZES].list.i.extend(_list_sizes(node, by_name))
        if node.op in WHILE_OPS and node.attr["cond"].func.name in functions:
            cond = functions[node.attr["cond"].func.name]
            data = [i for i in node.input if not i.startswith("^")]
            args = {a.name: src for a, src in zip(cond.signature.input_arg, data, strict=False)}
            inlined, results = function_nodes(cond, functions, f"{node.name}/initial_cond/",
                                              args)
            out.extend(inlined)
            node.input.insert(len(data), results[0])
        out.append(node)
    return out


def prepare_loops(graph_def) -> None:
    """TF1 conds and frames as If and While nodes, each While with its initial condition."""
    conds_to_if(graph_def)
    frames_to_while(graph_def)
    functions = {f.signature.name: f for f in graph_def.library.function}
    nodes = _with_initial_conditions(list(graph_def.node), functions)
    del graph_def.node[:]
    graph_def.node.extend(nodes)


@dataclass
class TfBody:
    graph: Graph
    params: list[str]  # Parameter node ids, one per argument
    results: list[str]  # Result node ids, one per result


def build_body(n: TfNode, nodes: list, params: list[str], results: list[str]) -> TfBody:
    """A translated body Graph: Parameters named `params`, the NodeDefs `nodes` reading them
    (function calls inlined), a Result on each tensor of `results`."""
    graph = Graph()
    graph.graph.update({k: n.graph.graph[k] for k in _FACTS if k in n.graph.graph})
    graph.graph["name"] = f"{n.name}/body"
    made: dict[str, Node] = {
        name: add_op(graph, "Parameter", name, shape=None, element_type=np.dtype(np.float32))
        for name in params
    }
    param_ids = [made[name].id for name in params]
    functions = graph.graph["tf_functions"]
    fill_graph(graph, _with_initial_conditions(inline_calls(nodes, functions), functions), made)
    result_ids = []
    for tensor in results:
        name, port = get_tf_node_port(tensor)
        result = add_op(graph, "Result", f"{name}/sink_port_{port}")
        made[name].out_port(port).connect(result.in_port(0))
        result_ids.append(result.id)
    extract_nodes(graph, REGISTRY)  # what nothing handles is reported with the outer graph's
    graph.clean_up()
    return TfBody(graph, param_ids, result_ids)
