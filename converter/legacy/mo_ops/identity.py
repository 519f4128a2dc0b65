"""MO's Identity: passes its input through; the node is erased before the IR is written."""

from __future__ import annotations

from typing import ClassVar

from converter.back.replacement import BackReplacementPattern, BackStart
from converter.graph.graph import Graph, Node
from converter.ops.op import Op
from converter.passes import ReplacementPattern

__all__ = ["EraseIdentity", "Identity", "IdentityN", "StopGradientOp"]


class Identity(Op):
    """mo.ops.identity.Identity (no IR type: MO removed it too)."""

    op = "Identity"
    enabled = False
    in_ports_count = 1
    defaults: ClassVar[dict] = {"identity": True}

    @classmethod
    def infer(cls, node: Node) -> None:
        for port in node.out_ports():
            src = node.in_port(port).data
            out = node.out_port(port).data
            out.set_shape(src.get_shape())
            out.set_data_type(src.get_data_type())
            if src.get_value() is not None:
                out.set_value(src.get_value())


class IdentityN(Identity):
    """mo.ops.identity.IdentityN: input i passes to output i."""

    op = "IdentityN"
    in_ports_count = None


class EraseIdentity(BackReplacementPattern):
    """Each input of an identity op feeds what its output fed."""

    def run_after(self) -> list:
        return [BackStart]

    def find_and_replace_pattern(self, graph: Graph) -> None:
        for node in graph.get_op_nodes(identity=True):
            for port, out in list(node.iter_out_data()):
                src = node.in_port(port).data_node()
                for _, dst, attrs in list(graph.out_edges(out.id, data=True)):
                    graph.add_edge(src.id, dst, **attrs)
                graph.remove_node(out.id)
            graph.remove_node(node.id)


ReplacementPattern.registered_cls.remove(EraseIdentity)  # joins a conversion with Identity


def register() -> None:
    """Put EraseIdentity into the current conversion's passes (once)."""
    if EraseIdentity not in ReplacementPattern.registered_cls:
        ReplacementPattern.registered_cls.append(EraseIdentity)


class StopGradientOp(Identity):
    """mo.ops.stop_gradient.StopGradientOp: an identity at inference."""

    op = "StopGradient"
