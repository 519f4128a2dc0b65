"""--transform Pruning (OpenVINO's offline Pruning, which MO ran for NNCF's filter pruning):
an output channel of a Convolution whose weights are all zero, and whose per-channel bias is
zero, is zero everywhere; drop it from the Convolution and the matching input channel from
the next Convolution. extgen follows the chain Convolution -> [Add bias] -> [activations
keeping 0 at 0] -> Convolution with one consumer at each step; other chains stay unchanged,
so the outputs never change."""

from __future__ import annotations

import logging

import numpy as np

from converter.graph.graph import Graph, Node

__all__ = ["prune_zero_channels"]

log = logging.getLogger(__name__)

_ZERO_AT_ZERO = {"ReLU", "Relu", "Clamp", "Tanh", "Elu", "Swish", "HSwish", "Gelu", "Abs"}


def _out_data(node: Node) -> Node:
    return next(d for _, d in node.iter_out_data())


def _consumers(data: Node) -> list[tuple[Node, int]]:
    return [(Node(data.graph, v), d["in"]) for _, v, d in data.graph.out_data(data.id)]


def _const(node: Node, port: int) -> Node | None:
    """The Const op feeding input `port` of node, when node is its only consumer."""
    src = node.in_port(port).get_source()
    if src is None or src.node.soft_get("op") != "Const":
        return None
    return src.node if len(_consumers(_out_data(src.node))) == 1 else None


def _keeps_zero(node: Node) -> bool:
    kind = node.soft_get("type")
    if kind == "Clamp":
        return node.soft_get("min", 0) <= 0 <= node.soft_get("max", 0)
    return kind in _ZERO_AT_ZERO


def _bias(node: Node, channels: int) -> Node | None:
    """The per-channel [1,C,1,...] Const of an Add on a Convolution's output, else None."""
    bias = _const(node, 1)
    if bias is None or node.soft_get("type") != "Add":
        return None
    shape = np.shape(bias.value)
    rank = len(_out_data(node).shape)
    if len(shape) != rank or shape[1] != channels or np.prod(shape) != channels:
        return None
    return bias


def _chain(conv: Node) -> tuple[list[Node], Node | None, Node] | None:
    """(nodes whose outputs carry the channels, the bias Const, the next Convolution)."""
    channels = np.shape(_const(conv, 1).value)[0]
    nodes, bias, node = [conv], None, conv
    while True:
        consumers = _consumers(_out_data(node))
        if len(consumers) != 1:
            return None
        node, port = consumers[0]
        if node.soft_get("type") == "Convolution" and port == 0 and _const(node, 1) is not None:
            return nodes, bias, node
        if bias is None and len(nodes) == 1 and port == 0 and _bias(node, channels) is not None:
            bias = _bias(node, channels)
        elif not (port == 0 and len(node.in_ports()) == 1 and _keeps_zero(node)):
            return None
        nodes.append(node)


def _shrink(const: Node, keep: np.ndarray, axis: int) -> None:
    value = np.take(np.asarray(const.value), keep, axis=axis)
    const["value"] = value
    data = _out_data(const)
    data["value"], data["shape"] = value, tuple(value.shape)


def _prune(conv: Node) -> int:
    found = _chain(conv)
    if found is None:
        return 0
    nodes, bias, after = found
    weights = np.asarray(_const(conv, 1).value)
    zero = ~weights.reshape(len(weights), -1).any(axis=1)
    if bias is not None:
        zero &= np.asarray(bias.value).reshape(-1) == 0
    keep = np.flatnonzero(~zero)
    if len(keep) in (0, len(weights)):
        return 0
    _shrink(_const(conv, 1), keep, 0)
    if bias is not None:
        _shrink(bias, keep, 1)
    _shrink(_const(after, 1), keep, 1)
    for node in nodes:
        data = _out_data(node)
        data["shape"] = (*data.shape[:1], len(keep), *data.shape[2:])
    return len(weights) - len(keep)


def prune_zero_channels(graph: Graph) -> None:
    pruned = sum(_prune(conv) for conv in graph.get_op_nodes(type="Convolution")
                 if _const(conv, 1) is not None)
    log.info("--transform Pruning: %d zero output channel(s) removed", pruned)
