"""MO's FakeOutput on an ONNX graph's outputs, for legacy extensions' front passes.

MO's ONNX loader put a FakeOutput node, named as the output tensor, between the op computing
each graph output and its Result; an op whose name the FakeOutput took was renamed (MO's
unique id: the name and a number). Passes written against MO see that graph through the front
phase, so extgen builds it after extraction when Python extension folders join an ONNX
conversion, and removes it again before inference (the op gets its name back), where extgen's
own phases take over.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from converter.graph.graph import Graph
from converter.legacy.mo_ops.identity import Identity

__all__ = ["FakeOutput", "add_fake_outputs", "remove_fake_outputs"]


class FakeOutput(Identity):
    """mo.ops.fake_output.FakeOutput: holds an output's name; passes its input through."""

    op = "FakeOutput"
    defaults: ClassVar[dict] = {"identity": True, "fake_output": True}


def add_fake_outputs(graph: Graph, extensions: list[Path]) -> None:
    """A FakeOutput before each Result of an ONNX graph's outputs, when extension folders
    (where MO's passes may live) join the conversion."""
    if graph.graph.get("fw") != "onnx" or not any(Path(p).is_dir() for p in extensions):
        return
    for name in graph.graph.get("output_order") or []:
        results = graph.get_op_nodes(op="Result", name=f"{name}/sink_port_0")
        if len(results) != 1 or results[0].in_port(0).disconnected():
            continue
        source = results[0].in_port(0).get_source()
        producer = source.node
        if producer.soft_get("name", producer.id) == name:
            producer["fake_output_of"] = name
            producer["name"] = _unique_name(graph, name)
        fake = FakeOutput(graph, {"name": name}).create_node()
        results[0].in_port(0).disconnect()
        source.connect(fake.in_port(0))
        fake.out_port(0).connect(results[0].in_port(0))


def remove_fake_outputs(graph: Graph) -> None:
    """Each FakeOutput goes (its Result reads the op again) and the op its name took gets it
    back."""
    for fake in graph.get_op_nodes(op="FakeOutput", fake_output=True):
        source = fake.in_port(0).get_source()
        fake.out_port(0).get_connection().set_source(source)
        graph.remove_node(fake.id)
    for node in graph.get_op_nodes():
        if node.has_valid("fake_output_of"):
            node["name"] = node["fake_output_of"]
            del node["fake_output_of"]


def _unique_name(graph: Graph, name: str) -> str:
    taken = {node.soft_get("name", node.id) for node in graph.get_op_nodes()}
    number = len(graph)
    while f"{name}{number}" in taken:
        number += 1
    return f"{name}{number}"
