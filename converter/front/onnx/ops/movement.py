"""ONNX translators for the movement op family."""

from __future__ import annotations
