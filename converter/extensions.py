"""Load --extensions folders (MO layout: ops/, front/, front/<fw>/, middle/, back/) and keep
what they register scoped to one conversion."""

from __future__ import annotations

import contextlib
import importlib
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

from converter.errors import ExtensionError
from converter.front.extractor import FrontExtractorOp
from converter.legacy import legacy_imports
from converter.ops import op as op_module
from converter.ops.op import Op
from converter.passes import ReplacementPattern

__all__ = ["extension_scope", "load_extension_dirs", "python_op_classes"]

_SUBDIRS = ("ops", "front", "front/{fw}", "front/{fw}/extractors", "middle", "back")


@contextlib.contextmanager
def extension_scope() -> Iterator[None]:
    """Restore every registry on exit, so one conversion's extensions do not leak. Legacy MO
    imports (mo.*, extensions.*, openvino.tools.mo.*) resolve inside the scope only."""
    saved = (
        dict(Op.registered_ops), list(Op.registered_cls), dict(op_module._IR_REGISTRY),
        dict(FrontExtractorOp.registered_ops), list(FrontExtractorOp.registered_cls),
        list(ReplacementPattern.registered_cls),
    )
    modules = set(sys.modules)
    path = list(sys.path)
    try:
        with legacy_imports():
            yield
    finally:
        Op.registered_ops.clear(); Op.registered_ops.update(saved[0])  # noqa: E702
        Op.registered_cls[:] = saved[1]
        op_module._IR_REGISTRY.clear(); op_module._IR_REGISTRY.update(saved[2])  # noqa: E702
        FrontExtractorOp.registered_ops.clear()
        FrontExtractorOp.registered_ops.update(saved[3])
        FrontExtractorOp.registered_cls[:] = saved[4]
        ReplacementPattern.registered_cls[:] = saved[5]
        for name in set(sys.modules) - modules:
            if not name.startswith(("converter.", "extgen.", "onnx", "numpy", "openvino")):
                del sys.modules[name]
        sys.path[:] = path


def _import_file(root: Path, file: Path) -> None:
    name = ".".join(file.relative_to(root).with_suffix("").parts)
    try:
        importlib.import_module(name)
    except ExtensionError:
        raise
    except Exception as err:  # a broken extension file: name the file and line
        frames = [f for f in traceback.extract_tb(err.__traceback__) if f.filename.startswith(str(root))]
        where = f"{frames[-1].filename}:{frames[-1].lineno}" if frames else str(file)
        if isinstance(err, SyntaxError) and err.filename:
            where = f"{err.filename}:{err.lineno}"
        msg = f"{where}: extension failed to load: {type(err).__name__}: {err}"
        raise ExtensionError(msg) from err


def load_extension_dirs(dirs: list[Path], framework: str, subdirs: tuple[str, ...] = _SUBDIRS) -> None:
    """Import every module of the folders MO would load, in MO's order, dir by dir."""
    with legacy_imports():
        _load_dirs(dirs, framework, subdirs)


def _load_dirs(dirs: list[Path], framework: str, subdirs: tuple[str, ...]) -> None:
    for ext_dir in dirs:
        ext_dir = Path(ext_dir).resolve()
        if not ext_dir.is_dir():
            msg = f"--extensions: {ext_dir} is not a folder"
            raise ExtensionError(msg)
        if str(ext_dir.parent) not in sys.path:
            sys.path.insert(0, str(ext_dir.parent))
        for stale in [m for m in sys.modules if m == ext_dir.name or m.startswith(ext_dir.name + ".")]:
            del sys.modules[stale]
        for pattern in subdirs:
            sub = ext_dir / pattern.format(fw=framework)
            if not sub.is_dir():
                continue
            for file in sorted(sub.glob("*.py")):
                if file.name != "__init__.py":
                    _import_file(ext_dir.parent, file)


def python_op_classes(folder: Path) -> dict[str, type[Op]]:
    """IR type -> Op class, for the ops of an extensions folder that have a numpy evaluate
    (kernels for the shim's CPU device and for OpenVINO Python ops); registries left as they were."""
    found: dict[str, type[Op]] = {}
    with extension_scope():
        before = dict(Op.registered_ops)
        load_extension_dirs([folder], framework="", subdirs=("ops",))
        for cls in Op.registered_ops.values():
            if cls.type and cls.has_evaluate() and before.get(cls.op) is not cls:
                found[cls.type] = cls
    return found
