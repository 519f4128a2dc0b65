"""The tensor names MO's IR gave a Result's input that its graph had no name for.

MO's loaders named a framework tensor on the edges that read it, so an output nothing read had
no name (an ONNX TopK's unused indices); a Result a pass put there, or on an op a pass built,
read an unnamed tensor, which MO named `<op name>:<port>` and `<op name>` before writing the IR
(pipeline.common.set_default_tensor_names_for_parameters_results). extgen names every framework
output: when extension folders join, the outputs nothing read after extraction are noted
(`note_unread_outputs`), and before the IR each Result reading one of them, or a tensor with no
name, gets MO's names (`name_results`).
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from converter.graph.graph import Graph

__all__ = ["name_results", "note_unread_outputs"]

_UNREAD = "mo_unread_outputs"  # graph.graph: {(op id, port)} MO held unnamed


def note_unread_outputs(graph: Graph, extensions: Collection[Path]) -> None:
    """Notes the named outputs nothing reads (after extraction, with extension folders)."""
    if not any(Path(p).is_dir() for p in extensions):
        return
    graph.graph[_UNREAD] = {
        (node.id, idx) for node in graph.get_op_nodes() for idx, port in node.out_ports().items()
        if not port.get_destinations() and port.get_tensor_names()}


def name_results(graph: Graph) -> None:
    """Each Result reading a tensor MO held unnamed takes MO's names for it (before the IR)."""
    unread = graph.graph.pop(_UNREAD, None)
    if unread is None:
        return
    for result in graph.get_op_nodes(type="Result"):
        if result.soft_get("keep_output_port", False) or result.in_port(0).disconnected():
            continue
        source = result.in_port(0).get_source()
        if (source.node.id, source.idx) in unread or not source.get_tensor_names():
            name = source.node.soft_get("name", source.node.id)
            source.remove_tensor_names()
            source.add_tensor_names(sorted([f"{name}:{source.idx}", name]))  # as MO wrote
