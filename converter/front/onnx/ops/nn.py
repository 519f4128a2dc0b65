"""ONNX translators for the nn op family."""

from __future__ import annotations
