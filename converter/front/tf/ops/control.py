"""TF2 control flow: While/StatelessWhile as Loop-5 and If/StatelessIf as If-8, with their
functions as bodies (TF1 frames reach here as While nodes: converter.front.tf.bodies).

The Loop runs the body, then the cond on the body's results (its execution condition); the
While's last input is the cond on its initial values (added by `prepare_loops`). A variable the
body hands back unchanged is a Loop input only (the While's output is its input); a list read
with TensorListGetItem at the iteration, a Loop input sliced on axis 0. A loop
variable that the body only writes with TensorListSetItem at the iteration (a variable that
starts at 0 and grows by 1) becomes an output stacking the items along axis 0; a list of one
item written at index 0 (Keras' RNNs keep only the last output so), an output of the last
item.
"""

from __future__ import annotations

import numpy as np

from converter.front.tf.bodies import LIST_SIZES, TfBody, build_body, node_class
from converter.front.tf.body_nodes import ADDS, BodyNodes
from converter.front.tf.functions import function_nodes
from converter.front.tf.gru_fusion import fuse_gru, match_gru
from converter.front.tf.lstm_fusion import fuse_lstm, match_lstm
from converter.front.tf.translator import TfNode, tf_op
from converter.front.tf.writer import set_attr
from converter.middle.subgraphs import GraphBody
from converter.ops.control._body import PortMap, PortRule


def _function(n: TfNode, attr: str):
    name = n.pb.attr[attr].func.name
    functions = n.graph.graph.get("tf_functions", {})
    if name not in functions:
        n.reject(f"its {attr} function '{name}' is not in the graph's function library",
                 "export the model with its functions (a SavedModel, or a GraphDef with its "
                 "library)")
    return functions[name]


def _body_nodes(n: TfNode, fdef, prefix: str, args: dict[str, str] | None = None):
    functions = n.graph.graph["tf_functions"]
    nodes, results = function_nodes(fdef, functions, prefix, args)
    return nodes, [prefix + a.name for a in fdef.signature.input_arg], results


def _is_counter(n: TfNode, j: int, body: BodyNodes, results: list[str]) -> bool:
    """Loop variable j starts at 0 and the body adds 1 to it."""
    start, step = n.const_value(j), body.node(results[j], *ADDS)
    if start is None or start.size != 1 or int(start.ravel()[0]) != 0 or step is None:
        return False
    ins = body.data(step)
    ones = [v for i in ins if (v := body.const(i)) is not None and v.size == 1]
    return j in map(body.param, ins) and any(int(v.ravel()[0]) == 1 for v in ones)


def _written_lists(n: TfNode, body: BodyNodes, results: list[str], counters: set[int]) -> dict:
    """Loop variable k -> (item tensor, stacked) for the lists the body only writes: at the
    iteration, or at index 0 of a list of one item."""
    sizes = list(n.attr(LIST_SIZES, [])) + [-1] * len(body.params)
    found = {}
    for k, tensor in enumerate(results):
        write = body.node(tensor, "TensorListSetItem")
        if write is None or body.param(write.input[0]) != k or body.readers(k) != [write]:
            continue
        zero = body.const(write.input[1])
        single = zero is not None and zero.size == 1 and not zero.any() and sizes[k] == 1
        if body.param(write.input[1]) in counters or single:
            found[k] = (write.input[2], body.param(write.input[1]) in counters)
    return found


def _expand(name: str, item: str) -> list:
    """NodeDefs of ExpandDims(item, 0), named `name`."""
    axis = node_class()(name=f"{name}/axis", op="Const")
    set_attr(axis.attr["dtype"], np.dtype(np.int32))
    set_attr(axis.attr["value"], np.array(0, np.int32))
    return [axis, node_class()(name=name, op="ExpandDims", input=[item, axis.name])]


def _read_lists(body: BodyNodes, results: list[str], counters: set[int]) -> set[int]:
    """The loop variables handed back unchanged that the body (and cond) only read with
    TensorListGetItem at the iteration: each becomes a Loop input sliced on axis 0, its reads
    Squeeze(slice, 0)."""
    found = set()
    for k in range(len(body.params)):
        readers = body.readers(k)
        if body.param(results[k]) != k or not readers or any(
                x.op != "TensorListGetItem" or body.param(x.input[0]) != k
                or body.param(x.input[1]) not in counters for x in readers):
            continue
        for read in readers:
            del read.input[1:]
            read.op = "Squeeze"
            read.attr.clear()
            read.attr["squeeze_dims"].list.i.append(0)
        found.add(k)
    return found


def _loop_map(body: TfBody, carried: list[int], lists: dict, sliced: set[int],
              unchanged: set[int]) -> PortMap:
    """Port map: carried variables in (sliced ones on axis 0), changing ones out and back."""
    count = len(body.params)
    kept = [k for k in range(count) if k not in unchanged]
    outputs = [PortRule(i, body.results[k], axis=0 if k in lists and lists[k][1] else None)
               for i, k in enumerate(kept)]
    return PortMap(
        [PortRule(2 + i, body.params[k], axis=0 if k in sliced else None)
         for i, k in enumerate(carried)],
        [*outputs, PortRule(-1, body.results[count], purpose="execution_condition")],
        [(body.results[k], body.params[k]) for k in carried if k not in unchanged],
    )


@tf_op("While", "StatelessWhile")
def while_(n: TfNode):
    cond, body_def = _function(n, "cond"), _function(n, "body")
    count = len(body_def.signature.input_arg)
    if n.num_inputs != count + 1:
        n.reject(f"it has {n.num_inputs} inputs for {count} loop variables",
                 "check the model: a While takes one input per loop variable")
    nodes, params, results = _body_nodes(n, body_def, f"{n.name}/body/")
    reader = BodyNodes({x.name: x for x in nodes}, params)
    counters = {j for j in range(count) if _is_counter(n, j, reader, results)}
    lists = _written_lists(n, reader, results, counters)
    lstm = match_lstm(n, reader, results, lists, counters)
    if lstm is not None:
        return fuse_lstm(n, lstm, counters)
    gru = match_gru(n, reader, results, lists, counters)
    if gru is not None:
        return fuse_gru(n, gru, counters)
    for k, (item, _) in lists.items():
        results[k] = f"{params[k]}/item"
        nodes += _expand(results[k], item)
    args = {a.name: results[i] for i, a in enumerate(cond.signature.input_arg)}
    cond_nodes, _, cond_out = _body_nodes(n, cond, f"{n.name}/cond/", args)
    sliced = _read_lists(BodyNodes({x.name: x for x in nodes + cond_nodes}, params), results,
                         counters)
    unchanged = {k for k in range(count) if reader.param(results[k]) == k}
    body = build_body(n, nodes + cond_nodes, params, results + cond_out[:1])
    for k in lists:
        if body.graph.out_edges(body.params[k]):
            n.reject(f"loop variable {k} is a TensorList the body reads",
                     "only lists the loop writes at its iteration are supported")
        body.graph.remove_node(body.params[k])
    body.graph.remove_nodes_from(body.results[k] for k in unchanged)
    carried = [k for k in range(count) if k not in lists]
    inputs = [n.const(np.array(-1, np.int64)), n.input(count)] + [n.input(k) for k in carried]
    if any(port is None for port in inputs):
        n.reject("a loop variable is a TensorList of unknown element shape that the loop "
                 "does not only write", "give the list a full element shape")
    loop = n.op_node("Loop", inputs, out_ports_count=count - len(unchanged),
                     bodies={"body": GraphBody(body.graph)},
                     port_maps={"body": _loop_map(body, carried, lists, sliced, unchanged)})
    ports = iter(loop.out_port(i) for i in range(count - len(unchanged)))
    return [n.input(k) if k in unchanged else next(ports) for k in range(count)]


@tf_op("If", "StatelessIf")
def if_(n: TfNode):
    bodies, port_maps, outputs = {}, {}, 0
    for key, attr in (("then_body", "then_branch"), ("else_body", "else_branch")):
        nodes, params, results = _body_nodes(n, _function(n, attr), f"{n.name}/{attr}/")
        body = build_body(n, nodes, params, results)
        bodies[key] = GraphBody(body.graph)
        port_maps[key] = PortMap([PortRule(1 + i, p) for i, p in enumerate(body.params)],
                                 [PortRule(i, r) for i, r in enumerate(body.results)])
        outputs = len(results)
    cond = n.op("Convert", [n.input(0)], destination_type=np.dtype(bool))
    inputs = [cond] + [n.input(i) for i in range(1, n.num_inputs)]
    node = n.op_node("If", inputs, out_ports_count=outputs, bodies=bodies, port_maps=port_maps)
    return [node.out_port(k) for k in range(outputs)]
