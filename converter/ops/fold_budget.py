"""The constant-folding budget (MO's too): an op whose output would be larger than
FOLD_BUDGET_BYTES is not evaluated at conversion time but stays an op in the IR, so a tiny model
cannot make the converter build gigabytes of constants."""

from __future__ import annotations

import logging
import math
from typing import Any

import numpy as np

from converter.graph.shape import is_static

__all__ = ["FOLD_BUDGET_BYTES", "within_fold_budget"]

FOLD_BUDGET_BYTES = 64 << 20  # per output tensor

log = logging.getLogger("extgen.convert")


def _nbytes(shape: Any, dtype: Any) -> int | None:
    if not is_static(shape):
        return None
    itemsize = np.dtype(dtype).itemsize if dtype is not None else 1
    return math.prod(int(d) for d in shape) * itemsize


def within_fold_budget(op: str, name: str, shapes: list | None, types: list | None) -> bool:
    """True unless an output of the inferred `shapes`/`types` (None: not known) is over the
    budget; then say at INFO that the node stays unfolded."""
    for i, shape in enumerate(shapes or []):
        size = _nbytes(shape, types[i] if types and i < len(types) else None)
        if size is not None and size > FOLD_BUDGET_BYTES:
            log.info("not folding '%s' (%s): its output %d would take %.1f MiB, over the %d MiB "
                     "constant-folding budget; it stays an op in the IR", name, op, i,
                     size / (1 << 20), FOLD_BUDGET_BYTES >> 20)
            return False
    return True
