"""Recurrent layers, which MO held in a form of its own until its back phase.

MO's extractors made an LSTM, GRU or RNN one node of type `RNNSequence` (op `LSTM`, `GRU`,
`RNN`) with the framework's inputs (ONNX's W, R and B, ...), and its middle passes
(ONNXRNNSequenceNormalize, RNNSequenceNormalize, ...) reshaped those step by step into the
opset's form; its back pass RNNSequenceTypeRename gave the opset type. extgen's translators
write the opset's LSTMSequence, GRUSequence and RNNSequence at once. A legacy pass sees MO's
type and op names (converter.legacy.front_types, converter.front.mo_names), but not MO's
intermediate inputs: a pattern of a front or middle pass that matches such a node stops the
conversion with one line naming the pass, where it would otherwise rewire inputs that are not
there. Back passes see the opset's form, as MO's had by then.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from converter.errors import ExtensionError
from converter.graph.graph import Node
from converter.legacy.front_ops import class_location

__all__ = ["refuse_recurrent_matches"]

_OPSET = {"LSTM": "LSTMSequence", "GRU": "GRUSequence", "RNN": "RNNSequence"}
_MATCH_METHODS = ("replace_pattern", "replace_sub_graph")


def _opset_recurrent(node: Any) -> bool:
    return (isinstance(node, Node) and node.soft_get("type") == "RNNSequence"
            and node.soft_get("op") in _OPSET and node.soft_get("version") == "opset5")


def _checked(fn: Callable[..., Any], cls: type) -> Callable[..., Any]:
    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        graph, match = (args[-2], args[-1]) if len(args) >= 2 else (None, None)
        stage = getattr(graph, "stage", None)
        if isinstance(match, dict) and stage in ("front", "middle"):
            for node in filter(_opset_recurrent, match.values()):
                raise ExtensionError(
                    f"{class_location(cls)}the pattern matched {node.op} node "
                    f"'{node.soft_get('name', node.id)}', which MO held in its own recurrent "
                    f"form (the framework's weights as inputs) until its back phase; extgen "
                    f"holds it as the opset's {_OPSET[node.op]}, so the pass cannot run on it: "
                    "match it in a back pass, or replace the framework op in an extractor")
        return fn(*args, **kwargs)

    run.mo_rnn_checked = True
    return run


def refuse_recurrent_matches(cls: type) -> None:
    """Make cls's replace_pattern / replace_sub_graph refuse a match holding a recurrent
    layer in the front or middle phase."""
    for name in _MATCH_METHODS:
        raw = inspect.getattr_static(cls, name, None)
        fn = getattr(raw, "__func__", raw)
        if fn is None or not callable(fn) or getattr(fn, "mo_rnn_checked", False):
            continue
        kind = type(raw) if isinstance(raw, (staticmethod, classmethod)) else None
        run = _checked(fn, cls)
        setattr(cls, name, kind(run) if kind else run)
