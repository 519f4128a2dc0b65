"""Kept for existing imports: the IR reader lives in converter.ir.reader."""

from converter.ir.reader import IRLayer, IRModel, OutPort, read_ir

__all__ = ["IRLayer", "IRModel", "OutPort", "read_ir"]
