"""Built-in opset ops, one definition each (shape, type, evaluate); importing registers them."""

from converter.ops import control, core, detection, elementwise, movement, nn, reduce
from converter.ops.op import Op, ir_op_class

__all__ = [
    "Op", "control", "core", "detection", "elementwise", "ir_op_class", "movement", "nn", "reduce",
]
