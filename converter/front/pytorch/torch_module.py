"""torch itself, imported on first use: the PyTorch frontend needs it installed (as ovc does)."""

from __future__ import annotations

from types import ModuleType

from converter.errors import UsageError

__all__ = ["import_torch"]


def import_torch(what: str) -> ModuleType:
    """torch, or one line saying that reading `what` needs it installed."""
    try:
        import torch
    except ImportError:
        msg = f"{what}: reading a PyTorch model needs torch; install it (pip install torch)"
        raise UsageError(msg) from None
    return torch
