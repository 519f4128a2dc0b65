"""Writing files atomically, for the generator: the library's helper (converter.files)."""

from __future__ import annotations

from converter.files import write_atomic

__all__ = ["write_atomic"]
