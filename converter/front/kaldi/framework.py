"""Kaldi as a converter framework: nnet1/nnet2/nnet3 models, binary or text, read without
Kaldi."""

from __future__ import annotations

from typing import Any

from converter.frameworks import Framework
from converter.front.kaldi.translator import REGISTRY
from converter.graph.graph import Graph, Node
from converter.options import ConvertOptions


def _load(opts: ConvertOptions) -> Graph:
    from converter.front.kaldi.loader import load

    return load(opts)


def _node_attrs(node: Node) -> dict[str, Any]:
    """A component's tokens and their values (for `extgen check`)."""
    from converter.front.kaldi.component import plain_fields

    comp = node.soft_get("component", None)
    return {} if comp is None else plain_fields(comp)


FRAMEWORK = Framework("kaldi", _load, REGISTRY, _node_attrs)
