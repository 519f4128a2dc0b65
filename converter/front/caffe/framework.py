"""Caffe as a converter framework."""

from __future__ import annotations

from converter.frameworks import Framework
from converter.front.caffe.extractor import CaffePythonFrontExtractorOp  # noqa: F401  (MO's name)
from converter.front.caffe.translator import REGISTRY
from converter.graph.graph import Graph
from converter.options import ConvertOptions


def _load(opts: ConvertOptions) -> Graph:
    from converter.front.caffe.loader import load

    return load(opts)


FRAMEWORK = Framework("caffe", _load, REGISTRY)
