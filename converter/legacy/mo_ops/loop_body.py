"""MO's Loop static methods that MO's own passes call (middle/MoveConstToLoopBody.py), on
extgen's Loop-5 nodes: the body is `bodies['body'].graph`, the port map `port_maps['body']`
(rules by op port and body node id, back edges as (Result, Parameter) ids). Ports 0 and 1
(trip count, execution condition) stay, as in MO."""

from __future__ import annotations

from dataclasses import replace

from converter.graph.graph import Graph, Node
from converter.ops.control._body import PortMap, PortRule

__all__ = ["normalize_input_output_ports", "parameter_unchanged_after_iteration",
           "pull_constant_inputs_into_body"]


def _body(loop: Node) -> tuple[Graph, PortMap]:
    return loop["bodies"]["body"].graph, loop["port_maps"]["body"]


def parameter_unchanged_after_iteration(loop: Node, body_parameter: Node) -> bool:
    """True when no back edge feeds the Parameter, or one feeds it from a Result that reads the
    Parameter itself (directly or through Identity ops): its value is the same every
    iteration."""
    _, port_map = _body(loop)
    results = [r for r, p in port_map.back_edges if p == body_parameter.id]
    for result in results:
        source = Node(body_parameter.graph, result).in_port(0).get_source().node
        while source.soft_get("op") == "Identity":
            source = source.in_port(0).get_source().node
        if source.id == body_parameter.id:
            return True
    return not results


def pull_constant_inputs_into_body(loop: Node) -> None:
    """Each input past port 1 fed by a Const whose body Parameter keeps its value becomes that
    Const inside the body, and the op input goes (MO then calls normalize_input_output_ports).
    A sliced input stays: its Parameter sees one slice per iteration (MO moved it anyway)."""
    body, port_map = _body(loop)
    for idx in sorted(loop.in_ports(), reverse=True):
        port = loop.in_port(idx)
        if idx <= 1 or port.disconnected() or port.get_source().node.soft_get("type") != "Const":
            continue
        rule = next((r for r in port_map.external_inputs() if r.external == idx), None)
        if rule is None or rule.axis is not None:
            continue
        parameter = Node(body, rule.internal)
        if not parameter_unchanged_after_iteration(loop, parameter):
            continue
        _replace_by_const(body, parameter, port.get_source().node)
        loop.delete_input_port(idx)


def _replace_by_const(body: Graph, parameter: Node, source: Node) -> None:
    from converter.legacy.ops import builtin_op

    attrs = {k: v for k, v in source.attrs().items() if not k.startswith("_")}
    const = builtin_op("Const")(body, attrs)
    if body.stage in (None, "front"):
        new = const.create_node()
        parameter.out_port(0).get_connection().set_source(new.out_port(0))
        body.remove_node(parameter.id)
        return
    data = parameter.out_port(0).data_node()  # the Const produces the Parameter's tensor
    new = const.add_node()
    body.remove_node(parameter.id)
    body.add_edge(new.id, data.id, out=0)


def normalize_input_output_ports(loop: Node) -> None:
    """Drop port-map rules and back edges whose body node is gone, and op outputs no rule
    describes; then number the inputs and outputs from 0 again, in their order."""
    body, port_map = _body(loop)
    port_map.inputs = [r for r in port_map.inputs if r.internal in body]
    for idx in [i for i in loop.in_ports() if i > 1]:
        if not any(r.external == idx for r in port_map.inputs):
            loop.delete_input_port(idx)
    port_map.outputs = [r for r in port_map.outputs if r.internal in body and (
        r.purpose == "execution_condition" or r.external in loop.out_ports())]
    port_map.back_edges = [(r, p) for r, p in port_map.back_edges if p in body and r in body]
    _renumber(loop, port_map, "in")
    _renumber(loop, port_map, "out")


def _renumber(loop: Node, port_map: PortMap, kind: str) -> None:
    """Ports (connected inputs, existing outputs) numbered from 0; the rules follow."""
    ports = loop.in_ports() if kind == "in" else loop.out_ports()
    kept = [i for i in sorted(ports) if kind == "out" or loop.is_in_port_connected(i)]
    moves = {old: new for new, old in enumerate(kept) if old != new}
    for old, new in moves.items():
        if kind == "in":
            loop.in_port(old).get_connection().set_destination(loop.in_port(new))
        else:
            loop.out_port(old).get_connection().set_source(loop.out_port(new))
    for idx in sorted(set(ports) - set(range(len(kept)))):
        (loop.delete_input_port if kind == "in" else loop.delete_output_port)(idx)
    rules = port_map.inputs if kind == "in" else port_map.outputs
    rules[:] = [_moved(r, moves) for r in rules]


def _moved(rule: PortRule, moves: dict[int, int]) -> PortRule:
    return replace(rule, external=moves[rule.external]) if rule.external in moves else rule
