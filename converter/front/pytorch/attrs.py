"""A PyTorch op call's constant arguments, by schema name: what a custom op's extension reads
as its attributes (the tensors are its inputs, in order), as ovc's mappings do."""

from __future__ import annotations

from typing import Any

from converter.front.pytorch.builder import Input
from converter.graph.graph import Node

__all__ = ["constant_args"]


def constant_args(node: Node) -> dict[str, Any]:
    """The call's arguments that are not tensors (nor lists holding one), in order."""
    def tensor(value: Any) -> bool:
        return isinstance(value, Input) or (isinstance(value, list)
                                            and any(isinstance(v, Input) for v in value))

    return {name: value for name, value in node.soft_get("pb", ())
            if value is not None and not tensor(value)}
