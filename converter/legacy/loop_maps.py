"""MO's port maps of a Loop or TensorIterator, while a legacy pass runs.

MO held a Loop's body connections as `input_port_map`, `output_port_map` and `back_edges` (lists
of records by internal layer id); extgen's Loop-5 and TensorIterator-1 hold them as
`port_maps['body']` (converter.ops.control). MO's Loop static methods that MO's own passes call
work on extgen's form (converter.legacy.mo_ops.loop_body); a pass that reads MO's records
itself (MO's ONNXLoopNormalize) stops with one line naming its file and line, not an
AttributeError.
"""

from __future__ import annotations

from converter.graph.graph import Graph, Node
from converter.legacy.unimplemented import Unimplemented

__all__ = ["restore", "show"]

_MAPS = ("input_port_map", "output_port_map", "back_edges")
_INSTEAD = ("extgen holds a Loop's and a TensorIterator's body connections as "
            "port_maps['body'] (converter.ops.control); MO's Loop static methods "
            "(pull_constant_inputs_into_body, normalize_input_output_ports) work on them")


def show(graph: Graph) -> list[Node]:
    """Each extgen Loop or TensorIterator gets MO's map names, each refusing when used."""
    shown = []
    for node in graph.get_op_nodes():
        if node.soft_get("type") in ("Loop", "TensorIterator") and node.has("port_maps"):
            for key in _MAPS:
                node[key] = Unimplemented(f"mo.ops.{node.type.lower()}", f"{node.type}.{key}",
                                          _INSTEAD)
            shown.append(node)
    return shown


def restore(graph: Graph, shown: list[Node]) -> None:
    for node in shown:
        if graph.has_node(node.id):
            for key in _MAPS:
                if isinstance(node.soft_get(key, None), Unimplemented):
                    del node[key]
