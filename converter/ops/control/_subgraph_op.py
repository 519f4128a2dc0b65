"""SubgraphOp: the base of the ops that run bodies. Their attributes hold the bodies and port
maps (`bodies`, `port_maps`, keyed by body name: `body`, or `then_body`/`else_body`), which the
converter's nodes carry and the shim builds from the IR; conversion infers outputs through the
bodies (`infer_outputs`) instead of per-output shape and type functions."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from converter.ops.control._body import Spec
from converter.ops.op import Op

__all__ = ["SubgraphOp", "merge_shapes"]


def merge_shapes(a: tuple[int, ...] | None, b: tuple[int, ...] | None) -> tuple[int, ...] | None:
    """A shape that covers both: equal dims kept, others dynamic; None when ranks differ."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else -1 for x, y in zip(a, b))


class SubgraphOp(Op):
    body_names: ClassVar[tuple[str, ...]] = ("body",)

    @classmethod
    def ir_attrs(cls, node) -> dict[str, Any]:
        attrs = super().ir_attrs(node)
        attrs.update(bodies=node["bodies"], port_maps=node["port_maps"])
        return attrs

    @classmethod
    def infer_outputs(cls, attrs: dict[str, Any], inputs: list[Spec]) -> list[Spec]:
        raise NotImplementedError

    @classmethod
    def infer_types(cls, attrs, types):
        return []  # known only through the bodies: compute() keeps what evaluate returns

    @classmethod
    def infer(cls, node) -> None:
        """Conversion: the outputs' shapes, types (and values) through the bodies."""
        ports = [p for p in node.in_ports().values() if not p.disconnected()]
        specs = [Spec(p.data.get_shape(), p.data.get_data_type(), p.data.get_value())
                 for p in ports]
        for i, out in enumerate(cls.infer_outputs(cls.ir_attrs(node), specs)):
            data = node.out_port(i).data
            if out.value is not None:
                data.set_value(np.asarray(out.value))
            else:
                data.set_shape(out.shape)
            data.set_data_type(out.dtype)
