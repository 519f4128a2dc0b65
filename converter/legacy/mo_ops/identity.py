"""MO's Identity: passes its input through; converter.legacy.mo_ops.lowering erases the node
before the IR is written."""

from __future__ import annotations

from typing import ClassVar

from converter.graph.graph import Node
from converter.ops.op import Op

__all__ = ["Identity", "IdentityN", "StopGradientOp"]


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
    out_ports_count = None  # as many as its edges, as in MO


class StopGradientOp(Identity):
    """mo.ops.stop_gradient.StopGradientOp: an identity at inference."""

    op = "StopGradient"
