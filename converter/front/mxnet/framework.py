"""MXNet as a converter framework: `<prefix>-symbol.json` + `<prefix>-<epoch>.params`, read
without MXNet."""

from __future__ import annotations

from converter.frameworks import Framework
from converter.front.mxnet.translator import REGISTRY
from converter.graph.graph import Graph
from converter.options import ConvertOptions


def _load(opts: ConvertOptions) -> Graph:
    from converter.front.mxnet.loader import load

    return load(opts)


FRAMEWORK = Framework("mxnet", _load, REGISTRY)
