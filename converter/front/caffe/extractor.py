"""Extractors for Caffe Python layers (`type: "Python"`), keyed by `module.layer` as in MO:

    class ProposalPythonExtractor(CaffePythonFrontExtractorOp):
        op = "rpn.proposal_layer.ProposalLayer"

        @classmethod
        def extract(cls, node):
            attrs = cls.parse_param_str(node.pb.python_param.param_str)
            ProposalOp.update_node_stat(node, attrs)
            return cls.enabled
"""

from __future__ import annotations

import ast
import json
from typing import Any

from converter.errors import ModelFormatError
from converter.front.extractor import FrontExtractorOp
from converter.graph.graph import Node

__all__ = ["CaffePythonFrontExtractorOp"]


class CaffePythonFrontExtractorOp(FrontExtractorOp):
    """Base of extractors for Caffe Python layers; `op` is 'module.layer'."""

    @staticmethod
    def parse_param_str(param_str: str) -> dict[str, Any]:
        """python_param.param_str as a dict: a Python dict literal, JSON, or 'key': value pairs
        without the braces; empty gives {}."""
        text = (param_str or "").strip()
        if not text:
            return {}
        if not text.startswith("{"):
            text = "{" + text + "}"
        for parse in (ast.literal_eval, json.loads):
            try:
                value = parse(text)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
            if isinstance(value, dict):
                return value
        msg = (f"Python layer param_str {param_str!r} is not a dict literal "
               "(e.g. \"'num': 3, 'scale': 0.5\")")
        raise ModelFormatError(msg)

    @classmethod
    def get_attrs(cls, node: Node) -> dict[str, Any]:
        """The layer's param_str parsed (MO's CaffePythonFrontExtractorOp.get_attrs)."""
        return cls.parse_param_str(node.pb.python_param.param_str)

    @staticmethod
    def check_param(op_cls: type, attrs: dict[str, Any]) -> None:
        """Raise when param_str names attributes the op does not declare."""
        known = set(getattr(op_cls, "defaults", {})) | set(getattr(op_cls, "attr_types", {}))
        unknown = sorted(set(attrs) - known)
        if known and unknown:
            msg = f"Python layer parameters {unknown} are not attributes of op {op_cls.op}"
            raise ModelFormatError(msg)
