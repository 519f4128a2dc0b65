"""Load --extensions folders (MO layout: ops/, front/, front/<fw>/, middle/, back/) and keep
what they register scoped to one conversion."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from pathlib import Path

from converter.front.extractor import FrontExtractorOp, source_file
from converter.legacy import legacy_imports
from converter.legacy.importer import add_local_folders
from converter.ops.loader import extension_root, import_extension_dirs, op_scope, python_op_classes
from converter.ops.op import Op
from converter.passes import ReplacementPattern

log = logging.getLogger("extgen.convert")

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
    classes = len(Op.registered_cls), len(FrontExtractorOp.registered_cls)
    with legacy_imports():
        add_local_folders(extension_root(d) for d in dirs if Path(d).is_dir())
        import_extension_dirs(dirs, [pattern.format(fw=framework) for pattern in subdirs])
    _warn_shadowing(FrontExtractorOp.registered_cls[classes[1]:])


def _warn_shadowing(extractors: list[type[FrontExtractorOp]]) -> None:
    """A user extractor named like a built-in op binds the model's nodes to that built-in op
    when no op class of the user's has its name: often an accident, so say so. (A user op class
    named like a built-in op replaces nothing the model converts to: translators build
    built-in ops, and an op is its (type, version). Legacy code that looks an op class up by
    name gets the user's, as in MO.) An extractor whose module holds an op class of another
    name builds its nodes with that class (as MO's own extractors build MO's): no warning."""
    for ext in extractors:
        op = ext.__dict__.get("op") or ""
        bound = Op.registered_ops.get(op)
        if bound is not None and bound is Op.builtin_ops.get(op) and not _uses_op_class(ext, bound):
            log.warning(
                "extension extractor %s (%s) for '%s' binds to the built-in op %s (%s), not an "
                "op class of yours; rename the op or add one under ops/",
                ext.__name__, source_file(ext), op, bound.op, source_file(bound),
            )


def _uses_op_class(ext: type, bound: type[Op]) -> bool:
    """The extractor's module holds an op class other than `bound` and the Op bases."""
    import sys

    bases = (bound, Op, *Op.excluded_classes)
    return any(isinstance(v, type) and issubclass(v, Op) and v not in bases
               for v in getattr(sys.modules.get(ext.__module__), "__dict__", {}).values())
