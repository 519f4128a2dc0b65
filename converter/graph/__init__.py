"""Graph, Node, Port and Connection: the MO graph model on networkx."""

from converter.graph.graph import Graph, Node, rename_nodes
from converter.graph.port import Connection, Port

__all__ = ["Connection", "Graph", "Node", "Port", "rename_nodes"]
