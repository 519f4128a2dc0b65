"""MO's graph-building helpers that extension code calls: an op with constant inputs and
negative-index wrapping (mo.front.tf.graph_utils), a Result on a port (mo.graph.graph), removing
an op or merging data nodes (mo.middle.passes.eliminate), the op neighbours and shared constants
a fusing pass handles (mo.middle.passes.fusing.helpers, MulFakeQuantizeFuse), aligning a
constant's type (mo.utils.type_utils), and the Object Detection API's post-processing nodes."""

from __future__ import annotations

from typing import Any

import numpy as np

from converter.errors import ConversionError
from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.legacy.graph_utils import (
    mark_input_as_in_correct_layout,
    mark_output_as_in_correct_layout,
)
from converter.legacy.ops import builtin_op

__all__ = [
    "add_activation_function_after_node", "add_fake_background_loc",
    "add_constant_to_negative_values", "add_convolution_to_swap_xy_coordinates", "add_opoutput",
    "const_for_input_data", "const_into", "create_const_with_batch_from_input",
    "create_op_node_with_second_input", "create_op_with_const_inputs", "get_next_operation",
    "get_tensor_in_port", "get_value_in_port", "merge_data_nodes",
    "override_data_type_of_constant", "remove_op_node_with_data_node", "resolve_shared_inputs",
]


def const_into(node: Node, port: int, value: Any, name: str, attrs: dict | None = None) -> Node:
    """A Const holding value, connected to node's input port (created when missing); after the
    front phase its output tensor gets its value at once, as MO's Const.infer did."""
    const = builtin_op("Const")(node.graph, {"name": name, "value": np.asarray(value),
                                             **(attrs or {})}).create_node()
    node.add_input_port(port, skip_if_exist=True)
    const.out_port(0).connect(node.in_port(port))
    if node.graph.stage not in (None, "front") and const.has_valid("infer"):
        const.infer(const)
    return const


def const_for_input_data(graph: Graph) -> None:
    """MO's CreateConstNodesReplacement: a Const produces each data node that holds a value and
    feeds an op without a producer (MO's Op.create_input_data_node makes such nodes)."""
    for nid, attrs in list(graph.nodes(data=True)):
        if (attrs.get("kind") != "data" or attrs.get("value") is None or graph.in_degree(nid)
                or not graph.out_degree(nid)):
            continue
        const = builtin_op("Const")(graph, {"name": f"{attrs.get('name', nid)}/const",
                                            "value": np.asarray(attrs["value"])}).create_node()
        graph.add_edge(const.id, nid, out=0)


def create_op_with_const_inputs(graph: Graph, op: type, port_value_dict: dict[int, Any],
                                op_attrs: dict | None = None,
                                input_node: Node | None = None) -> Node:
    """A new `op` node with a Const on each port of port_value_dict; input_node's output 0
    feeds port 0 when given."""
    node = op(graph, op_attrs).create_node()
    if input_node is not None:
        input_node.out_port(0).connect(node.in_port(0))
    for port, value in port_value_dict.items():
        const_into(node, port, value, f"{node.soft_get('name', node.id)}_input_port_{port}/value")
    return node


def create_op_node_with_second_input(graph: Graph, op: type, second_input_value: Any,
                                     op_attrs: dict | None = None,
                                     input_node: Node | None = None) -> Node:
    """create_op_with_const_inputs with one Const, on port 1."""
    node = op(graph, op_attrs).create_node()
    if input_node is not None:
        input_node.out_port(0).connect(node.in_port(0))
    const_into(node, 1, second_input_value, f"{node.soft_get('name', node.id)}/value")
    return node


def add_opoutput(graph: Graph, node_name: str, port: int, cut: bool = True,
                 keep_output_port: bool = False, user_defined_name: str | None = None) -> Node:
    """A Result on output `port` of the node with id node_name (named `<id>/sink_port_<port>`);
    it joins the port's consumers (MO's `cut` kept them too: the Result only adds an output)."""
    node = Node(graph, node_name)
    result = builtin_op("Result")(graph, {
        "name": f"{node_name}/sink_port_{port}", "keep_output_port": keep_output_port,
    }).create_node()
    node.out_port(port).connect(result.in_port(0))
    if user_defined_name is not None:
        node.out_port(port).add_tensor_names([user_defined_name])
    return result


def remove_op_node_with_data_node(graph: Graph, node_to_remove: Node,
                                  input_data_node: Node | None = None) -> None:
    """Remove a one-output op: its consumers read what fed its input (input_data_node's port,
    default port 0)."""
    if node_to_remove.kind != "op":
        msg = f"remove_op_node_with_data_node: {node_to_remove.id} is not an op node"
        raise ValueError(msg)
    port = 0
    if input_data_node is not None:
        port = next(i for i, p in node_to_remove.in_ports().items()
                    if not p.disconnected() and p.data_node() == input_data_node)
    source = node_to_remove.in_port(port).get_source()
    node_to_remove.out_port(0).get_connection().set_source(source)
    outs = [d for _, d in graph.out_edges(node_to_remove.id)
            if graph.nodes[d].get("kind") == "data"]
    graph.remove_nodes_from([node_to_remove.id, *outs])


def merge_data_nodes(graph: Graph, survived: Node, removed: Node) -> None:
    """Move removed's edges and attributes (but its name; debug names appended) onto
    survived; removed is left without edges."""
    for u, _, data in list(graph.in_edges(removed.id, data=True)):
        graph.add_edge(u, survived.id, **data)
        graph.remove_edge(u, removed.id)
    for _, v, data in list(graph.out_edges(removed.id, data=True)):
        graph.add_edge(survived.id, v, **data)
        graph.remove_edge(removed.id, v)
    for key, value in removed.attrs().items():
        if key == "fw_tensor_debug_info":
            survived[key] = [*(survived.soft_get(key, None) or []), *value]
        elif key != "name":
            survived[key] = value


def add_constant_to_negative_values(node: Node, port_idx: int, added_value: Any) -> None:
    """Input port_idx of node becomes x + (x < 0) * added_value (wrapping negative indices);
    the comparison is converted to added_value's type, which a Multiply needs."""
    added_value = np.asarray(added_value)
    source = node.in_port(port_idx).get_source()
    name = source.node.soft_get("name", source.node.id)
    zero = np.array(0, added_value.dtype)
    less = create_op_with_const_inputs(node.graph, builtin_op("Less"), {1: zero},
                                       {"name": name + "/Less"})
    mul = create_op_with_const_inputs(node.graph, builtin_op("Multiply"), {1: added_value},
                                      {"name": name + "/Mul"})
    as_number = builtin_op("Convert")(node.graph, {
        "name": name + "/Less/Convert", "destination_type": added_value.dtype}).create_node()
    node.in_port(port_idx).get_connection().set_destination(less.in_port(0))
    less.out_port(0).connect(as_number.in_port(0))
    as_number.out_port(0).connect(mul.in_port(0))
    add = builtin_op("Add")(node.graph, {"name": name + "/Add"}).create_node()
    mul.out_port(0).connect(add.in_port(1))
    source.connect(add.in_port(0))
    add.out_port(0).connect(node.in_port(port_idx))


def resolve_shared_inputs(node: Node, port_ids_to_duplicate: list[int]) -> None:
    """Each other consumer of the constant on these ports of node gets its own copy of it."""
    for port in port_ids_to_duplicate:
        value = node.in_port(port).data.get_value()
        others: dict[Node, list[int]] = {}
        for dst in node.in_port(port).get_source().get_destinations():
            if dst.node != node:
                others.setdefault(dst.node, []).append(dst.idx)
        if value is None:
            continue
        for other, idxs in others.items():
            const = builtin_op("Const")(node.graph, {
                "name": f"{other.soft_get('name', other.id)}/duplicated_",
                "value": np.array(value)}).create_node()
            for idx in idxs:
                other.in_port(idx).disconnect()
                const.out_port(0).connect(other.in_port(idx))
            if node.graph.stage not in (None, "front"):
                const.infer(const)


def override_data_type_of_constant(node: Node, lhs_idx: int = 0, rhs_idx: int = 1) -> None:
    """When the two inputs' types differ, the constant one takes the other's type."""
    types = [node.in_port(i).data.get_data_type() for i in (lhs_idx, rhs_idx)]
    if types[0] == types[1]:
        return
    sources = [node.in_port(i).get_source().node for i in (lhs_idx, rhs_idx)]
    for const, other_type in ((sources[0], types[1]), (sources[1], types[0])):
        if const.soft_get("op") == "Const":
            value = np.asarray(const.value).astype(other_type)
            const["value"] = value
            const.out_port(0).data.set_value(value)
            const.out_port(0).data.set_data_type(value.dtype)
            return
    msg = (f"{node.soft_get('op')} operation '{node.soft_get('name')}' has inputs of different "
           f"data types: '{types[0]}' and '{types[1]}' that cannot be aligned")
    raise ConversionError(msg)


def get_tensor_in_port(node: Node) -> Port | None:
    """The only input port without a constant value, or None."""
    ports = [p for p in node.in_ports().values() if p.data.get_value() is None]
    return ports[0] if len(ports) == 1 else None


def get_value_in_port(node: Node) -> Port | None:
    """The only input port with a constant value, or None."""
    ports = [p for p in node.in_ports().values() if p.data.get_value() is not None]
    return ports[0] if len(ports) == 1 else None


def get_next_operation(node: Node) -> list[Node]:
    """The op nodes that consume node's outputs, each once, in port order."""
    found: list[Node] = []
    for _, port in sorted(node.out_ports().items()):
        for dst in port.get_destinations():
            if dst.node not in found:
                found.append(dst.node)
    return found


def _consumer(port: Port, op: str, second_value: Any = None) -> Node | None:
    """A consumer of port that is `op` (with a constant second input equal to second_value)."""
    for dest in port.get_destinations():
        node = dest.node
        if node.soft_get("op") != op:
            continue
        if second_value is None:
            return node
        source = node.in_port(1).get_source() if node.is_in_port_connected(1) else None
        value = source.node.soft_get("value", None) if source is not None else None
        if value is not None and np.array_equal(value, second_value):
            return node
    return None


def create_const_with_batch_from_input(producer_port: Port, second_dim: int, value: Any = 0,
                                       precision: Any = np.float32) -> Node:
    """A [batch, second_dim] tensor filled with value, batch read at run time from the tensor
    of producer_port: ShapeOf -> first dimension -> Concat with second_dim -> Broadcast. Nodes
    an earlier call made for the same port are reused."""
    graph, name = producer_port.node.graph, producer_port.node.soft_get("name")
    shape = _consumer(producer_port, "ShapeOf")
    if shape is None:
        shape = builtin_op("ShapeOf")(graph, {"name": f"{name}/Shape"}).create_node()
        producer_port.connect(shape.in_port(0))
    batch = _consumer(shape.out_port(0), "Gather", np.array([0]))
    if batch is None:
        batch = create_op_with_const_inputs(graph, builtin_op("Gather"), {1: np.array([0]), 2: 0},
                                            {"name": f"{name}/Shape/Batch"}, shape)
    dims = _consumer(batch.out_port(0), "Concat", np.array([second_dim]))
    if dims is None:
        dims = create_op_node_with_second_input(graph, builtin_op("Concat"), np.array([second_dim]),
                                                {"name": f"{name}/Shape/Dims", "axis": 0}, batch)
    fill = np.array([value], dtype=precision)
    for dest in dims.out_port(0).get_destinations():
        node = dest.node
        if node.soft_get("op") == "Broadcast" and dest.idx == 1 and np.array_equal(
                node.in_port(0).get_source().node.soft_get("value", None), fill):
            return node
    broadcast = create_op_with_const_inputs(graph, builtin_op("Broadcast"), {0: fill},
                                            {"name": f"{name}/Shape/Broadcast"})
    dims.out_port(0).connect(broadcast.in_port(1))
    return broadcast


def add_convolution_to_swap_xy_coordinates(graph: Graph, input_node: Node,
                                           coordinates_size: int) -> Node:
    """Swap the x and y of the boxes input_node makes (4 numbers a box, or 5 with the first one
    kept, as Proposal makes them): [-1, 1, 1, size] with elements 0<->1 and 2<->3 (1<->2 and
    3<->4 for 5) swapped. MO used a 1x1 convolution; a Gather does the same permutation."""
    assert coordinates_size in (4, 5)
    name = input_node.soft_get("name", input_node.id)
    reshape = create_op_node_with_second_input(
        graph, builtin_op("Reshape"), np.array([-1, 1, 1, coordinates_size]),
        {"name": f"{name}/reshape_4d"}, input_node)
    mark_input_as_in_correct_layout(reshape, 0)
    mark_output_as_in_correct_layout(reshape, 0)
    order = [1, 0, 3, 2] if coordinates_size == 4 else [0, 2, 1, 4, 3]
    return create_op_with_const_inputs(graph, builtin_op("Gather"), {1: np.array(order), 2: -1},
                                       {"name": f"{name}/swap_xy"}, reshape)


def add_activation_function_after_node(graph: Graph, node: Node, activation_function: str) -> Node:
    """MO's Object Detection API post-processing: 'SOFTMAX' (over the last axis) or 'SIGMOID'
    of node's output as a new node, or node itself for 'IDENTITY'; anything else is an Error."""
    from converter.legacy.mo_ops import Softmax
    from converter.legacy.utils import Error

    if activation_function == "IDENTITY":
        return node
    ops = {"SOFTMAX": (Softmax, {"axis": -1}), "SIGMOID": (builtin_op("Sigmoid"), {})}
    if activation_function not in ops:
        raise Error(f'Unknown post-processing activation function "{activation_function}".')
    op, attrs = ops[activation_function]
    suffix = activation_function.lower()
    return op(graph, {**attrs, "nchw_layout": True}).create_node(
        [node], {"name": f"{node.name}/{suffix}"})


def add_fake_background_loc(graph: Graph, input_node: Node) -> Node:
    """Boxes for a "background" class ahead of the others (MO's DetectionOutput wants one): a
    copy of the first box along axis 1, concatenated before input_node's output."""
    from converter.legacy.mo_ops import Crop

    crop = Crop(graph, {"axis": np.array([1]), "offset": np.array([0]), "dim": np.array([1]),
                        "nchw_layout": True}).create_node([input_node], {"name": "crop_locs"})
    concat = builtin_op("Concat")(graph, {"axis": 1, "in_ports_count": 2, "nchw_layout": True})
    return concat.create_node([crop, input_node],
                              {"name": f"{input_node.id}/locs_with_fake_background"})
