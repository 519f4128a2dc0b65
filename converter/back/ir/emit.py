"""Kept for existing imports: the IR writer lives in converter.ir.writer."""

from converter.ir.writer import emit_ir

__all__ = ["emit_ir"]
