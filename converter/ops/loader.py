"""Import the Python modules of --extensions folders with what they register kept in a scope.

The runtime loads an extensions folder's ops/ with this alone (`python_op_classes`), so it never
imports the conversion machinery; converter.extensions builds the full MO layout (front/,
middle/, back/, legacy imports) on top. Op modules loaded here may import converter.ops.op.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import sys
import traceback
from collections.abc import Iterable, Iterator
from pathlib import Path

from converter.errors import ExtensionError
from converter.ops import op as op_module
from converter.ops.op import Op

__all__ = ["extension_root", "import_extension_dirs", "op_scope", "python_op_classes"]

log = logging.getLogger("extgen")
_SCOPE_DIRS: list[list[str]] = []  # per open op_scope: the extension folders imported in it


@contextlib.contextmanager
def op_scope() -> Iterator[None]:
    """Restore the op registries and sys.path on exit, and drop the extension's own modules
    (those under its folders). Third-party modules it imported stay: a framework such as
    tensorflow cannot be imported a second time in one process."""
    saved = (dict(Op.registered_ops), list(Op.registered_cls), dict(op_module._IR_REGISTRY))
    modules = set(sys.modules.copy())  # a snapshot: other threads may import meanwhile
    path = list(sys.path)
    _SCOPE_DIRS.append([])
    try:
        yield
    finally:
        Op.registered_ops.clear(); Op.registered_ops.update(saved[0])  # noqa: E702
        Op.registered_cls[:] = saved[1]
        op_module._IR_REGISTRY.clear(); op_module._IR_REGISTRY.update(saved[2])  # noqa: E702
        _drop_own_modules(modules, path, _SCOPE_DIRS.pop())
        sys.path[:] = path


def _drop_own_modules(before: set[str], old_path: list[str], ext_dirs: list[str]) -> None:
    """Drop the modules imported since `before` that lie in the extension folders, or whose
    deepest sys.path folder is one added since (old_path)."""
    entries = sorted({_folder(p) for p in sys.path if p}, key=len, reverse=True)
    added = {_folder(p) for p in sys.path if p and p not in old_path}
    own = tuple(_folder(d) for d in ext_dirs)
    current = sys.modules.copy()

    def is_own(module: object) -> bool:
        return any(p.startswith(own) or next((e for e in entries if p.startswith(e)), "") in added
                   for p in _places(module))

    # decide first, then drop: a namespace package finds its folders through its parent
    for name in [n for n in set(current) - before if is_own(current[n])]:
        sys.modules.pop(name, None)


def _places(module: object) -> list[str]:
    """The module's file, or a namespace package's folders, each ending in a separator."""
    attrs = getattr(module, "__dict__", {})
    places = [attrs.get("__file__") or "", *list(attrs.get("__path__") or [])]
    return [_folder(str(p)) for p in places if p]


def _folder(path: str) -> str:
    return os.path.join(os.path.abspath(path), "")


_LEGACY_ROOTS = ("mo", "extensions", "openvino.tools.mo")


def _import_file(root: Path, file: Path, skip_legacy: bool = False) -> None:
    name = ".".join(file.relative_to(root).with_suffix("").parts)
    try:
        importlib.import_module(name)
    except ExtensionError:
        raise
    except ModuleNotFoundError as err:
        legacy = any(err.name == r or (err.name or "").startswith(r + ".") for r in _LEGACY_ROOTS)
        if not (skip_legacy and legacy):
            raise ExtensionError(_load_failure(root, file, err)) from err
        log.warning("%s: written against the legacy MO API (%s), which only conversion "
                    "provides; the shim runs ops written against converter.ops.op", file, err.name)
    except Exception as err:  # a broken extension file: name the file and line
        raise ExtensionError(_load_failure(root, file, err)) from err


def _load_failure(root: Path, file: Path, err: Exception) -> str:
    frames = [f for f in traceback.extract_tb(err.__traceback__)
              if f.filename.startswith(str(root))]
    where = f"{frames[-1].filename}:{frames[-1].lineno}" if frames else str(file)
    if isinstance(err, SyntaxError) and err.filename:
        where = f"{err.filename}:{err.lineno}"
    return f"{where}: extension failed to load: {type(err).__name__}: {err}"


_LAYOUT = ("ops", "front", "middle", "back")


def extension_root(folder: Path) -> Path:
    """The resolved folder, or the user_mo_extensions/ in it when folder is what `extgen new
    --output_dir` wrote (the extensions one level down)."""
    folder = Path(folder).resolve()
    inner = folder / "user_mo_extensions"
    if inner.is_dir() and not any((folder / d).is_dir() for d in _LAYOUT):
        return inner
    return folder


def import_extension_dirs(dirs: Iterable[Path], subdirs: Iterable[str],
                          skip_legacy: bool = False) -> None:
    """Import every module of each folder's subdirs (relative paths), in order, dir by dir; each
    folder is importable as a package named after it. With skip_legacy, a module that needs the
    legacy MO names (which only conversion provides) is skipped with a warning."""
    subdirs = list(subdirs)
    for given in dirs:
        ext_dir = Path(given).resolve()
        if not ext_dir.is_dir():
            msg = f"--extensions: {ext_dir} is not a folder"
            raise ExtensionError(msg)
        if extension_root(ext_dir) != ext_dir:
            ext_dir = extension_root(ext_dir)
            log.info("--extensions %s: using %s, the extensions folder inside it", given, ext_dir)
        if _SCOPE_DIRS:
            _SCOPE_DIRS[-1].append(str(ext_dir))
        if str(ext_dir.parent) not in sys.path:
            sys.path.insert(0, str(ext_dir.parent))
        prefix = ext_dir.name + "."
        for stale in [m for m in sys.modules.copy() if m == ext_dir.name or m.startswith(prefix)]:
            sys.modules.pop(stale, None)
        for sub in (ext_dir / pattern for pattern in subdirs):
            if not sub.is_dir():
                continue
            for file in sorted(sub.glob("*.py")):
                if file.name != "__init__.py":
                    _import_file(ext_dir.parent, file, skip_legacy)


def python_op_classes(folder: Path) -> dict[str, type[Op]]:
    """IR type -> Op class, for the ops of an extensions folder that have a numpy evaluate
    (kernels for the shim's CPU device and for OpenVINO Python ops); registries left as they
    were."""
    found: dict[str, type[Op]] = {}
    with op_scope():
        before = dict(Op.registered_ops)
        import_extension_dirs([folder], ["ops"], skip_legacy=True)
        for cls in Op.registered_ops.values():
            if cls.type and cls.has_evaluate() and before.get(cls.op) is not cls:
                found[cls.type] = cls
    return found
