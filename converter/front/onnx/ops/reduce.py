"""ONNX translators for the reduce op family."""

from __future__ import annotations
