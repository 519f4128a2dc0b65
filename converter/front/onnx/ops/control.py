"""If, Loop and Scan: ONNX control flow as opset If-8, Loop-5 and TensorIterator-1."""

from __future__ import annotations

import numpy as np

from converter.front.onnx.bodies import OuterInputs, build_body, insert_after, insert_before
from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.middle.subgraphs import GraphBody
from converter.ops.control._body import PortMap, PortRule


def _build(n: OnnxNode, op: str, outer: OuterInputs, bodies: dict, port_maps: dict):
    node = n.op_node(op, outer.ports, out_ports_count=n.num_outputs,
                     bodies={k: GraphBody(b.graph) for k, b in bodies.items()},
                     port_maps=port_maps)
    return [node.out_port(i) for i in range(n.num_outputs)]


@onnx_op("If")
def if_(n: OnnxNode):
    outer = OuterInputs([n.input(0)])
    bodies = {"then_body": build_body(n, n.attr("then_branch"), outer),
              "else_body": build_body(n, n.attr("else_branch"), outer)}
    port_maps = {
        name: PortMap(b.captured, [PortRule(i, r) for i, r in enumerate(b.results)])
        for name, b in bodies.items()
    }
    return _build(n, "If", outer, bodies, port_maps)


@onnx_op("Loop")
def loop(n: OnnxNode):
    trip = n.input(0) or n.const(np.array(-1, np.int64))
    cond = n.input(1) or n.const(np.array(True))
    carried = [n.input(i) for i in range(2, n.num_inputs)]
    outer = OuterInputs([trip, cond, *carried])
    body = build_body(n, n.attr("body"), outer)
    iteration, cond_in, *state_in = body.params
    cond_out, *outs = body.results
    state_out, scans = outs[: len(carried)], outs[len(carried):]
    for result in scans:
        insert_before(body.graph, result, "Unsqueeze", 0)
    port_map = PortMap(
        [PortRule(-1, iteration, purpose="current_iteration"), PortRule(1, cond_in),
         *(PortRule(2 + i, p) for i, p in enumerate(state_in)), *body.captured],
        [PortRule(-1, cond_out, purpose="execution_condition"),
         *(PortRule(i, r) for i, r in enumerate(state_out)),
         *(PortRule(len(carried) + k, r, axis=0) for k, r in enumerate(scans))],
        [(cond_out, cond_in), *zip(state_out, state_in)],
    )
    return _build(n, "Loop", outer, {"body": body}, {"body": port_map})


def _sliced(external: int, internal: str, axis: int, reverse: int) -> PortRule:
    if reverse:
        return PortRule(external, internal, axis=axis, start=-1, end=0, stride=-1)
    return PortRule(external, internal, axis=axis)


@onnx_op("Scan", since=9)
def scan(n: OnnxNode):
    inputs = [n.input(i) for i in range(n.num_inputs)]
    scanned = n.attr("num_scan_inputs")
    states = len(inputs) - scanned
    outer = OuterInputs(inputs)
    body = build_body(n, n.attr("body"), outer)
    scans = len(body.results) - states
    in_axes = n.attr("scan_input_axes", [0] * scanned)
    in_reverse = n.attr("scan_input_directions", [0] * scanned)
    out_axes = n.attr("scan_output_axes", [0] * scans)
    out_reverse = n.attr("scan_output_directions", [0] * scans)
    ins = [PortRule(i, p) for i, p in enumerate(body.params[:states])]
    for j, param in enumerate(body.params[states:]):
        rank = n.static_rank(states + j)
        axis = in_axes[j] + rank if in_axes[j] < 0 and rank is not None else in_axes[j]
        insert_after(body.graph, param, "Squeeze", axis)
        ins.append(_sliced(states + j, param, axis, in_reverse[j]))
    outs = [PortRule(i, r) for i, r in enumerate(body.results[:states])]
    for k, result in enumerate(body.results[states:]):
        insert_before(body.graph, result, "Unsqueeze", out_axes[k])
        outs.append(_sliced(states + k, result, out_axes[k], out_reverse[k]))
    back_edges = list(zip(body.results[:states], body.params[:states]))
    port_map = PortMap([*ins, *body.captured], outs, back_edges)
    return _build(n, "TensorIterator", outer, {"body": body}, {"body": port_map})
