"""torch itself, imported on first use: the PyTorch frontend needs it installed (as ovc does)."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

from converter.errors import UsageError

__all__ = ["import_torch", "quiet_torch"]


def import_torch(what: str) -> ModuleType:
    """torch, or one line saying that reading `what` needs it installed."""
    try:
        import torch
    except ImportError:
        msg = f"{what}: reading a PyTorch model needs torch; install it (pip install torch)"
        raise UsageError(msg) from None
    return torch


@contextmanager
def quiet_torch() -> Iterator[None]:
    """torch's own logging and warnings silenced (its loaders log a traceback before raising,
    where the converter reports one line)."""
    logger = logging.getLogger("torch")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.setLevel(level)
