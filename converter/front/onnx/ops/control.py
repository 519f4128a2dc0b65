"""If, Loop and Scan: ONNX control flow as opset If-8, Loop-5 and TensorIterator-1."""

from __future__ import annotations

import numpy as np

from converter.front.onnx.bodies import (
    OnnxBody,
    OuterInputs,
    axes_op,
    body_graph,
    build_body,
    insert_after,
    insert_before,
)
from converter.front.onnx.loader import add_op
from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.middle.subgraphs import GraphBody
from converter.ops.control._body import PortMap, PortRule
from converter.ops.op import Op


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


def _scan_map(body: OnnxBody, states: int, in_axes: list[int], in_reverse: list[int],
              out_axes: list[int], out_reverse: list[int]) -> PortMap:
    """States carried along back edges; each scanned input sliced on its axis (squeezed in the
    body), each scan output stacked on its axis (unsqueezed in the body)."""
    ins = [PortRule(i, p) for i, p in enumerate(body.params[:states])]
    for j, param in enumerate(body.params[states:]):
        insert_after(body.graph, param, "Squeeze", in_axes[j])
        ins.append(_sliced(states + j, param, in_axes[j], in_reverse[j]))
    outs = [PortRule(i, r) for i, r in enumerate(body.results[:states])]
    for k, result in enumerate(body.results[states:]):
        insert_before(body.graph, result, "Unsqueeze", out_axes[k])
        outs.append(_sliced(states + k, result, out_axes[k], out_reverse[k]))
    back_edges = list(zip(body.results[:states], body.params[:states]))
    return PortMap([*ins, *body.captured], outs, back_edges)


@onnx_op("Scan", since=9)
def scan(n: OnnxNode):
    inputs = [n.input(i) for i in range(n.num_inputs)]
    scanned = n.attr("num_scan_inputs")
    states = len(inputs) - scanned
    outer = OuterInputs(inputs)
    body = build_body(n, n.attr("body"), outer)
    scans = len(body.results) - states
    in_axes = []
    for j, axis in enumerate(n.attr("scan_input_axes", [0] * scanned)):
        rank = n.static_rank(states + j)
        in_axes.append(axis + rank if axis < 0 and rank is not None else axis)
    port_map = _scan_map(body, states, in_axes, n.attr("scan_input_directions", [0] * scanned),
                         n.attr("scan_output_axes", [0] * scans),
                         n.attr("scan_output_directions", [0] * scans))
    return _build(n, "TensorIterator", outer, {"body": body}, {"body": port_map})


@onnx_op("Scan", since=8)
def scan_batched(n: OnnxNode):
    """Opset 8 puts a batch axis first: a Loop over the batch (OpenVINO nests no
    TensorIterator in another) runs, per batch item, the TensorIterator over the sequence."""
    if n.input(0) is not None:
        n.reject("sequence_lens is not supported", "export the model without it (opset 9+)")
    inputs = [n.input(i) for i in range(1, n.num_inputs)]
    scanned = n.attr("num_scan_inputs")
    states = len(inputs) - scanned
    outer = OuterInputs(inputs)
    body = build_body(n, n.attr("body"), outer)
    scans = len(body.results) - states
    inner = _scan_map(body, states, [0] * scanned, n.attr("directions", [0] * scanned),
                      [0] * scans, [0] * scans)
    graph = body_graph(n, "batch")
    params = [add_op(graph, "Parameter", f"{n.name}/batch_{i}", shape=None,
                     element_type=np.dtype(np.float32)) for i in range(len(outer.ports))]
    feeds = []
    for i, param in enumerate(params):
        feeds.append(param.out_port(0))
        if i < len(inputs):
            squeeze = axes_op(graph, "Squeeze", f"{n.name}/batch_{i}/Squeeze", 0)
            param.out_port(0).connect(squeeze.in_port(0))
            feeds[-1] = squeeze.out_port(0)
    per_item = Op.builtin_ops["TensorIterator"](graph).create_node(feeds, {
        "name": f"{n.name}/sequence", "out_ports_count": n.num_outputs,
        "bodies": {"body": GraphBody(body.graph)}, "port_maps": {"body": inner}})
    go = add_op(graph, "Const", f"{n.name}/batch_go", value=np.array(True))
    go_result = add_op(graph, "Result", f"{n.name}/batch_go/sink_port_0")
    go.out_port(0).connect(go_result.in_port(0))
    results = [go_result.id]
    for k in range(n.num_outputs):
        unsqueeze = axes_op(graph, "Unsqueeze", f"{n.name}/batch_out_{k}", 0)
        per_item.out_port(k).connect(unsqueeze.in_port(0))
        result = add_op(graph, "Result", f"{n.name}/batch_out_{k}/sink_port_0")
        unsqueeze.out_port(0).connect(result.in_port(0))
        results.append(result.id)
    port_map = PortMap(
        [PortRule(2 + i, p.id, axis=0 if i < len(inputs) else None) for i, p in enumerate(params)],
        [PortRule(-1, results[0], purpose="execution_condition"),
         *(PortRule(k, r, axis=0) for k, r in enumerate(results[1:]))])
    batch = OnnxBody(graph, [p.id for p in params], results)
    size = n.op("Gather", [n.op("ShapeOf", [inputs[0]]), np.array(0), np.array(0)])
    loop_inputs = OuterInputs([size, n.const(np.array(True)), *outer.ports])
    return _build(n, "Loop", loop_inputs, {"body": batch}, {"body": port_map})
