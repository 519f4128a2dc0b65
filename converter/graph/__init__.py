"""Graph, Node, Port and Connection: the MO graph model on networkx. The names load on first
use, so importing `converter.graph.shape` alone (as the ops and the runtime do) leaves networkx
and the graph model unloaded."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["Connection", "Graph", "Node", "Port"]

_HOME = {"Graph": "graph", "Node": "graph", "Connection": "port", "Port": "port"}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
