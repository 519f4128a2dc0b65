"""Graph boundary and plumbing ops: Parameter, Const, Result, Convert, ShapeOf."""

from converter.ops.core import const, convert, parameter, result, shape_of

__all__ = ["const", "convert", "parameter", "result", "shape_of"]
