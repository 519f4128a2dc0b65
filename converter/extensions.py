"""Load --extensions folders (MO layout: ops/, front/, front/<fw>/, middle/, back/) and keep
what they register scoped to one conversion."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from converter.front.extractor import FrontExtractorOp
from converter.legacy import legacy_imports
from converter.ops.loader import import_extension_dirs, op_scope, python_op_classes
from converter.passes import ReplacementPattern

__all__ = ["extension_scope", "load_extension_dirs", "python_op_classes"]

_SUBDIRS = ("ops", "front", "front/{fw}", "front/{fw}/extractors", "middle", "back")


@contextlib.contextmanager
def extension_scope() -> Iterator[None]:
    """Restore every registry on exit, so one conversion's extensions do not leak. Legacy MO
    imports (mo.*, extensions.*, openvino.tools.mo.*) resolve inside the scope only."""
    saved = (
        dict(FrontExtractorOp.registered_ops), list(FrontExtractorOp.registered_cls),
        list(ReplacementPattern.registered_cls),
    )
    try:
        with op_scope(), legacy_imports():
            yield
    finally:
        FrontExtractorOp.registered_ops.clear()
        FrontExtractorOp.registered_ops.update(saved[0])
        FrontExtractorOp.registered_cls[:] = saved[1]
        ReplacementPattern.registered_cls[:] = saved[2]


def load_extension_dirs(
    dirs: list[Path], framework: str, subdirs: tuple[str, ...] = _SUBDIRS
) -> None:
    """Import every module of the folders MO would load, in MO's order, dir by dir."""
    with legacy_imports():
        import_extension_dirs(dirs, [pattern.format(fw=framework) for pattern in subdirs])
