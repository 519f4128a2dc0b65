"""MO's mo.front.extractor helpers that extension code calls: the attribute lists a node carries
(update_attrs, add_attrs_props, update_ie_fields) and cutting the graph at user-given ports
(add_input_ops, add_output_ops, get_new_placeholder_name), and filling node attributes
from an extractor (extract_node_attrs)."""

from __future__ import annotations

import logging
from typing import Any

import networkx as nx
import numpy as np

from converter.graph.graph import Graph, Node
from converter.legacy.build import add_opoutput
from converter.legacy.ops import builtin_op
from converter.legacy.registries import UnsupportedOps
from converter.legacy.shapes import dynamic_dimension_value, shape_array
from converter.legacy.utils import Error, refer_to_faq_msg

__all__ = ["add_attrs_props", "add_input_ops", "add_output_ops", "add_outputs_identity",
           "extract_node_attrs", "get_new_placeholder_name", "update_attrs", "update_ie_fields"]

log = logging.getLogger("extgen")


def update_attrs(attrs: dict | Node, attr: str, new: str | list) -> None:
    """attrs[attr] (a list, created when missing) joined with the names in `new`."""
    old = attrs[attr] if attr in attrs else []
    attrs[attr] = list(set(old) | set([new] if isinstance(new, str) else new))


def add_attrs_props(attrs: dict) -> dict:
    """attrs with MO's lists of dimension-index and shape-valued attribute names."""
    update_attrs(attrs, "dim_attrs", ["spatial_dims", "channel_dims", "batch_dims", "axis"])
    update_attrs(attrs, "shape_attrs", ["shape", "pad", "window", "stride", "output_shape"])
    return attrs


def update_ie_fields(attrs: dict, ir_version: Any = None) -> None:
    """MO attached its IR serialization spec here. extgen's IR writer serializes a node's data
    from its op class's attributes, or from the names listed under attrs['IE'], which an op
    class already set: nothing is left to record."""


def get_new_placeholder_name(node_id: str, is_out_port: bool = False, port: int = 0) -> str:
    """The name of the Parameter that cutting node_id's port makes."""
    return f"{node_id}/placeholder{'_out' if is_out_port else ''}_port_{port}"


def _input_shape(shape: Any) -> np.ma.MaskedArray | None:
    if shape is None:
        return None
    dims = []
    for dim in shape:
        if hasattr(dim, "is_static"):  # an openvino Dimension
            dims.append(dim.get_min_length() if dim.is_static else dynamic_dimension_value)
        else:
            dims.append(dim if dim >= 0 else dynamic_dimension_value)
    return shape_array(dims)


def _new_input(node: Node, port: int, is_out: bool, info: dict) -> Node:
    data_type = info.get("data_type") or np.float32
    shape = _input_shape(info.get("shape"))
    param = builtin_op("Parameter")(node.graph, {
        "name": get_new_placeholder_name(node.id, is_out, port), "shape": shape,
        "user_shape": info.get("shape"), "data_type": data_type,
        "element_type": np.dtype(data_type), "initial_node_name": node.id}).create_node()
    name = node.soft_get("name", node.id)
    param.out_port(0).add_tensor_names([f"{name}:{port}" if is_out else f"{port}:{name}"])
    if is_out:
        node.out_port(port).get_connection().set_source(param.out_port(0))
    else:
        node.in_port(port).disconnect()
        param.out_port(0).connect(node.in_port(port))
    return param


def _cut_one(graph: Graph, node_id: str, info: dict) -> Node:
    node = Node(graph, node_id)
    is_out = "out" in info
    port = info["out"] if is_out else info.get("in")
    ports = node.out_ports() if is_out else node.in_ports()
    if is_out and port is None:
        raise Error(f"Output port for input node {node_id} should be specified, it cannot be None!")
    if port is not None and port not in ports:
        side = "output" if is_out else "input"
        raise Error(f"Port index {port} is out of number of available {side} ports for node "
                    f'"{node_id}". ' + refer_to_faq_msg(29))
    if node.soft_get("op") == "Parameter":
        if port is not None:
            raise Error(f'Parameter node "{node_id}" has no input port, but port {port} was given.')
        if info.get("shape") is not None:
            node["shape"] = _input_shape(info["shape"])
        if info.get("data_type") is not None:
            node["data_type"] = info["data_type"]
            node["element_type"] = np.dtype(info["data_type"])
        return node
    if port is None and len(ports) > 1:
        raise Error(f"Node {node_id} has more than 1 input and input shapes were provided; give "
                    "the port with port:node. " + refer_to_faq_msg(30))
    return _new_input(node, port or 0, is_out, info)


def add_input_ops(graph: Graph, user_defined_inputs: dict | None, before_infer: bool) -> list:
    """Cut the graph at each {node_id: [{'in'|'out': port, 'shape', 'data_type', 'added'}]}
    entry: a new Parameter feeds that input port (or replaces that output port's tensor for its
    consumers); an existing Parameter takes the shape and type. The ids of the model's inputs."""
    if user_defined_inputs is None:
        return [n.id for n in graph.get_op_nodes(op="Parameter")]
    inputs = []
    for node_id, infos in user_defined_inputs.items():
        for info in infos:
            if not info.get("added"):
                inputs.append(_cut_one(graph, node_id, info).id)
                info["added"] = True
    graph.clean_up(keep_parameters=False)
    return inputs


def add_output_ops(graph: Graph, user_defined_outputs: dict | None,
                   inputs: dict | None = None) -> list[Node]:
    """Results on the user's outputs ({node_id: [{'in'|'out': port}]}; an 'in' port means the
    tensor feeding it), replacing the graph's Results; with None, every op without consumers
    that the inputs reach gets a Result on each output port."""
    for result in graph.get_op_nodes(op="Result"):
        graph.remove_node(result.id)
    if user_defined_outputs is None:
        starts = list(inputs) if inputs else [n.id for n in graph.get_op_nodes(op="Parameter")]
        reached = set(starts).union(*(nx.descendants(graph, s) for s in starts))
        # an Assign is a sink without outputs (extgen builds Kaldi's in the front phase)
        ends = [n for n in graph.get_op_nodes() if n.id in reached and not n.out_nodes()
                and n.soft_get("op") != "Assign"]
        # (a TopK marked remove_values_output was an ArgMax in MO: one output, the indices)
        return [add_opoutput(graph, n.id, i, False) for n in ends
                for i in range(n.out_ports_count if n.has_valid("out_ports_count") else 1)
                if not (i == 0 and n.has_and_set("remove_values_output"))]
    sinks = []
    for node_id, values in user_defined_outputs.items():
        if node_id not in graph:
            raise Error(f'Node "{node_id}" does not exist in the graph. ' + refer_to_faq_msg(26))
        node = Node(graph, node_id)
        for value in values:
            if "in" in value:
                source = node.in_port(value["in"]).get_source()
                sinks.append(add_opoutput(graph, source.node.id, source.idx,
                                          user_defined_name=node_id))
            else:
                sinks.append(add_opoutput(graph, node_id, value.get("out", 0),
                                          user_defined_name=node_id))
    return sinks


def extract_node_attrs(graph: Graph, extractor: Any) -> Graph:
    """Merge extractor(node)'s (supported, attrs) into every node's attributes (a Result gets
    empty in_attrs/out_attrs); the nodes no extractor supports are logged as a warning."""
    unsupported = UnsupportedOps(graph)
    for nid, attrs in list(graph.nodes(data=True)):
        if attrs.get("op") == "Result":
            supported, new = True, {"in_attrs": [], "out_attrs": []}
        else:
            try:
                supported, new = extractor(Node(graph, nid))
            except Exception as err:
                msg = (f"Unexpected exception happened during extracting attributes for node "
                       f"{nid}.\nOriginal exception message: {err}")
                raise Error(msg) from err
        if supported:
            add_attrs_props(new)
        graph.nodes[nid].update(new)
        if not supported:
            unsupported.add(Node(graph, nid))
    unsupported.report(log.warning, "Instructions/layers that do not have attribute extractors:")
    return graph


def add_outputs_identity(graph: Graph, outputs: list, add_edge: Any,
                         params: dict | None = None) -> None:
    """An Identity marked needs_removal after each output node id, wired by
    add_edge(graph, output, identity, **params): it keeps the output's tensor names until
    the outputs are cut."""
    for output in outputs:
        nid = graph.unique_id(output)
        graph.add_node(nid, name=nid, identity=True, kind="op", op="Identity", infer=None,
                       needs_removal=True, symbol_dict={"op": "Identity"})
        add_edge(graph, output, nid, **(params or {}))
