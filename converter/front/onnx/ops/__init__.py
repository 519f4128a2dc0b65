"""Built-in ONNX translators, one module per op family; importing registers them."""

from converter.front.onnx.ops import control, core, elementwise, movement, nn, reduce

__all__ = ["control", "core", "elementwise", "movement", "nn", "reduce"]
