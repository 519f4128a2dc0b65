"""MO's FakeOutput on an ONNX graph's outputs, for legacy extensions' passes.

MO's ONNX loader put a FakeOutput node, named as the output tensor, between the op computing
each graph output and its Result; an op whose name the FakeOutput took was renamed (MO's
unique id: the name and a number). Passes written against MO see that graph through the front
and middle phases, so extgen builds it after extraction when Python extension folders join an
ONNX conversion and keeps it through inference (an identity) and the middle passes; MO's back
pass FakeOutputResolver turns it into an Add (converter.legacy.fake_output_resolver), which
extgen removes before the IR, where the op gets its name back.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import ClassVar

from converter.graph.graph import Graph
from converter.legacy.mo_ops.identity import Identity

__all__ = ["RENAMED", "FakeOutput", "add_fake_outputs", "restore_names"]

# graph.graph, once FakeOutputs are built: {an op's name while a FakeOutput has its own: that}
RENAMED = "fake_output_renamed"


class FakeOutput(Identity):
    """mo.ops.fake_output.FakeOutput: holds an output's name; passes its input through (not an
    `identity` op: MO's identity erasure left it to FakeOutputResolver)."""

    op = "FakeOutput"
    defaults: ClassVar[dict] = {"fake_output": True}


def add_fake_outputs(graph: Graph, extensions: list[Path]) -> None:
    """A FakeOutput before each Result of an ONNX graph's outputs, when extension folders
    (where MO's passes may live) join the conversion."""
    if graph.graph.get("fw") != "onnx" or not any(Path(p).is_dir() for p in extensions):
        return
    renamed = graph.graph.setdefault(RENAMED, {})
    for name in graph.graph.get("output_order") or []:
        results = graph.get_op_nodes(op="Result", name=f"{name}/sink_port_0")
        if len(results) != 1 or results[0].in_port(0).disconnected():
            continue
        source = results[0].in_port(0).get_source()
        producer = source.node
        if producer.soft_get("name", producer.id) == name:
            producer["name"] = _unique_name(graph, name)
            renamed[producer["name"]] = name
        fake = FakeOutput(graph, {"name": name}).create_node()
        results[0].in_port(0).disconnect()
        source.connect(fake.in_port(0))
        fake.out_port(0).connect(results[0].in_port(0))


def restore_names(graph: Graph, keep: Collection[str] = ()) -> None:
    """Each op named as a renamed op (it, or one a pass named after it) gets the output's name
    back, except for the outputs in `keep`; the renaming is forgotten."""
    renamed = {new: old for new, old in graph.graph.pop(RENAMED, {}).items() if old not in keep}
    if not renamed:
        return
    for _, attrs in graph.nodes(data=True):
        name = attrs.get("name")
        if attrs.get("kind") == "op" and isinstance(name, str) and name in renamed:
            attrs["name"] = renamed[name]


def _unique_name(graph: Graph, name: str) -> str:
    taken = {node.soft_get("name", node.id) for node in graph.get_op_nodes()}
    number = len(graph)
    while f"{name}{number}" in taken:
        number += 1
    return f"{name}{number}"
