"""Quantization ops: FakeQuantize."""

from converter.ops.quantization import fake_quantize

__all__ = ["fake_quantize"]
