"""MO's FakeOutputResolver in the back phase, and extgen's undoing of it before the IR.

MO's back pass FakeOutputResolver replaced each FakeOutput (converter.legacy.fake_outputs) by
`Add(x, Const int64 0)` (can_be_fused False) named as the output and taking its tensor names,
the FakeOutput renamed `<name>/TBD` and dropped; legacy back passes ordered after it see that
Add. OpenVINO's offline passes dropped the Add again where the op computing the output has one
output (an op of several cannot take the output's name), so MO's IR has those Adds only:
extgen removes the others after the back passes (before its own fusions, which could fold
them) and the op computing the output gets its name back, as converted without extension
folders.
"""

from __future__ import annotations

import numpy as np

from converter.back.replacement import BackFinish, BackReplacementPattern
from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.legacy.build import const_into
from converter.legacy.fake_outputs import RENAMED, restore_names
from converter.legacy.ops import builtin_op
from converter.passes import ReplacementPattern

__all__ = ["FakeOutputResolver", "remove_output_adds", "resolve_fake_outputs"]

_ADD = "fake_output_add"  # on an Add the resolver built: the output's name


class FakeOutputResolver(BackReplacementPattern):
    """MO's back.FakeOutputResolver, where MO ran it (after BackStart): extension passes
    naming it order around it."""

    enabled = True

    def run_before(self) -> list:
        """Before BackFinish, and before a copy of MO's module in an extension folder: that
        finds no FakeOutput (MO ran one resolver), rather than build an Add extgen refuses."""
        copies = [c for c in ReplacementPattern.registered_cls
                  if c.__name__ == type(self).__name__ and c is not type(self)]
        return [BackFinish, *copies]

    def find_and_replace_pattern(self, graph: Graph) -> None:
        resolve_fake_outputs(graph)


def _zero_add_infer(node: Node) -> None:
    """x + 0 is x (MO gave the int64 zero x's type when writing the IR; Add's own infer would
    refuse the two types)."""
    src, out = node.in_port(0).data, node.out_port(0).data
    out.set_shape(src.get_shape())
    out.set_data_type(src.get_data_type())
    if src.get_value() is not None:
        out.set_value(src.get_value())


def resolve_fake_outputs(graph: Graph) -> None:
    """Middle/back stage: each FakeOutput becomes Add(its input, int64 0) named as it, with its
    input's tensor names; the FakeOutput's output tensor is the Add's."""
    for fake in graph.get_op_nodes(op="FakeOutput"):
        name = fake.soft_get("name", fake.id)
        source = fake.in_port(0).get_source()
        add = builtin_op("Add")(graph, {"name": f"{fake.id}/Add", "can_be_fused": False,
                                        _ADD: name}).create_node()
        add["name"], add["infer"] = name, _zero_add_infer
        const_into(add, 1, np.array(0, np.int64), f"{fake.id}/Add_input_port_1/value")
        out = fake.out_port(0).data_node()
        source.connect(add.in_port(0))
        graph.remove_node(fake.id)
        graph.add_edge(add.id, out.id, out=0)
        names = source.get_tensor_names()
        source.remove_tensor_names()
        if names:
            add.out_port(0).add_tensor_names(names)


def remove_output_adds(graph: Graph) -> None:
    """Each resolver's Add still adding zero goes (what fed it feeds its consumers, under its
    tensor names) and the op computing the output gets back the name its FakeOutput took. An
    Add a pass changed stays, as in MO's IR: its constant of its input's type."""
    if RENAMED not in graph.graph:  # no FakeOutputs were built (or they left in the front)
        return
    kept = set()
    for add in [Node(graph, nid) for nid, attrs in graph.nodes(data=True) if _ADD in attrs]:
        source, const = add.in_port(0).get_source(), add.in_port(1).get_source()
        value = const.data.get_value() if const is not None else None
        if source is None or value is None or np.any(value != 0) or _many_outputs(source):
            kept.add(add[_ADD])
            _keep(add, const)
            continue
        out = add.out_port(0).data_node()
        add.out_port(0).get_connection().set_source(source)
        graph.remove_nodes_from([add.id, out.id])
        _drop_unused(const)
    restore_names(graph, keep=kept)


def _many_outputs(source: Port) -> bool:
    """OpenVINO keeps an Add of zero before a Result when the op computing its input has more
    than one output (that op cannot take the Result's name): in MO's IR, any output of most
    ops (MO kept the unread ones as Results), the read ones of a Loop (MO dropped the others
    in normalize_input_output_ports)."""
    ports = source.node.out_ports().values()
    if source.node.soft_get("type") == "Loop":
        return sum(1 for port in ports if port.get_destinations()) > 1
    return len(ports) > 1


def _drop_unused(const: Port) -> None:
    """The Const and its tensor, when nothing else reads it."""
    if const.node.soft_get("op") == "Const" and not const.get_destinations():
        const.node.graph.remove_nodes_from([const.data_node().id, const.node.id])


def _keep(add: Node, const: Port | None) -> None:
    """A kept Add: an opset Add again, its Const of its input's type."""
    del add[_ADD]
    add["infer"] = builtin_op("Add")(add.graph).attrs["infer"]
    dtype = add.in_port(0).data.get_data_type()
    if const is not None and const.node.soft_get("op") == "Const" and dtype is not None:
        value = np.asarray(const.node["value"]).astype(dtype)
        const.node["value"] = value
        const.data.set_value(value)
        const.data.set_data_type(value.dtype)
