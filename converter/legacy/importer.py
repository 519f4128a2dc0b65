"""The import hook that lets legacy Model Optimizer extensions import `mo.*`, `extensions.*` and
`openvino.tools.mo.*` while they load and run, and nothing afterwards.

A sys.meta_path finder answers only for those roots, with shim packages built from
converter.legacy.names. A name the shim lacks fails with one line naming the name, its legacy
module and the extension file and line that asked for it. No top-level `mo`/`extensions`
package is installed, and the real `openvino` package stays as it is: `openvino.tools.mo` exists
only inside `legacy_imports()`.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.machinery
import logging
import sys
import threading
import types
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from converter.errors import ExtensionError
from converter.legacy.names import ROOTS, legacy_modules

__all__ = ["LegacyImportError", "add_local_folders", "caller", "legacy_imports"]

log = logging.getLogger("extgen")
_HERE = str(Path(__file__).parent)
_MIGRATION = ("copy what you need of it into your extension folder, or use extgen's own API "
              "(converter.ops.op.Op, converter.front.extractor.FrontExtractorOp)")


class LegacyImportError(ExtensionError, ImportError):
    """A legacy MO name extgen does not provide (an ImportError, so `try: ... except
    ImportError` fallbacks in extension code still work)."""


def _is_legacy(fullname: str) -> bool:
    return any(fullname == r or fullname.startswith(r + ".") for r in ROOTS)


def caller() -> str:
    """'file:line: ' of the first frame outside the import machinery and this package."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith(("<frozen", _HERE)) and "importlib" not in name:
            return f"{name}:{frame.f_lineno}: "
        frame = frame.f_back
    return ""


def _resolve(module: str, name: str, target: str) -> Any:
    where, _, attr = target.partition(":")
    try:
        if where == "op":
            from converter.legacy.mo_ops.renamed import mo_builtin

            return mo_builtin(attr)
        return getattr(importlib.import_module(where), attr)
    except (ImportError, AttributeError, KeyError) as err:
        if isinstance(err, ImportError) and err.name and not where.startswith(err.name):
            raise
        fw = where.split(".")[2] if where.startswith("converter.front.") else None
        why = f"extgen's {fw} frontend does not provide it yet" if fw else "extgen lacks it"
        msg = f"{caller()}'{name}' from {module} is not supported: {why}; {_MIGRATION}"
        raise LegacyImportError(msg, name=module) from None


_LOCAL_ROOTS: list[Path] = []  # extension folders whose modules answer their legacy paths


def add_local_folders(folders: Iterable[Path]) -> None:
    """Let `mo.ops.<x>`, `extensions.ops.<x>` and `openvino.tools.mo.ops.<x>` resolve to
    `ops/<x>.py` of these extension folders (importable as packages named after them), and any
    other legacy path to the folder's module at that path (`extensions.middle.<x>` to
    `middle/<x>.py`), until the outermost legacy_imports() block ends: old tutorials had users
    copy their op into MO's own package and import it from there, and code copied from MO
    imports its siblings by MO's paths. Outside ops/, a name extgen provides still comes from
    extgen (as MO's own module answered in MO, whatever copies a folder held). A later folder
    wins."""
    with _LOCK:
        _LOCAL_ROOTS.extend(Path(f) for f in folders)


def _below(module: str) -> str:
    """The legacy module's path below its root ('front.common.replacement'), or ''."""
    return next((module[len(r) + 1:] for r in ROOTS if module.startswith(r + ".")), "")


def _local_files(module: str) -> list[tuple[Path, str]]:
    """(file, importable name) of each extension folder's module at legacy path `module`, the
    latest folder first."""
    below = _below(module)
    if not below:
        return []
    files = [(root.joinpath(*below.split(".")).with_suffix(".py"), f"{root.name}.{below}")
             for root in reversed(_LOCAL_ROOTS)]
    return [(file, name) for file, name in files if file.is_file()]


def _local_name(module: str, name: str) -> Any:
    """The user's own `name` of the folder module at legacy path `module`, or None."""
    for _, importable in _local_files(module):
        found = getattr(importlib.import_module(importable), name, None)
        if found is not None:
            return found
    return None


_IGNORED: set[Path] = set()  # copies already reported


def _report_ignored_copy(module: str, name: str) -> None:
    """A user's file at an MO path that extgen provides (a copy of MO's own module) does not
    answer imports, as MO's own module answered them in MO: say so once per file."""
    for file, _ in _local_files(module):
        if file not in _IGNORED:
            _IGNORED.add(file)
            log.warning("%s: a copy of MO's %s; imports of it (%s) get extgen's own, as they "
                        "got MO's in MO, so this copy is not used for them", file,
                        _below(module), name)


class _LegacyModule(types.ModuleType):
    """A shim package: names resolve on first use (the user's own ops/<x>.py first, see
    add_local_folders), child shims import on attribute access."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        table = legacy_modules().get(self.__name__, {})
        # an op of the user's own under MO's ops/ (as old tutorials had it) wins; elsewhere a
        # copy of MO's module answers only for the names extgen does not provide
        ours_first = name in table and not _below(self.__name__).startswith("ops.")
        local = None if ours_first else _local_name(self.__name__, name)
        if local is not None:
            setattr(self, name, local)
            return local
        if name in table:
            value = _resolve(self.__name__, name, table[name])
            if ours_first:
                _report_ignored_copy(self.__name__, name)
            setattr(self, name, value)
            return value
        child = f"{self.__name__}.{name}"
        if any(m == child or m.startswith(child + ".") for m in legacy_modules()):
            return importlib.import_module(child)
        msg = (f"{caller()}'{name}' from {self.__name__} is not supported by extgen's legacy "
               f"Model Optimizer layer; {_MIGRATION}")
        raise LegacyImportError(msg, name=self.__name__)


class _LegacyFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname: str, path: Any = None, target: Any = None):
        if not _is_legacy(fullname):
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec) -> types.ModuleType:
        return _LegacyModule(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        module.__path__ = []
        module.__all__ = list(legacy_modules().get(module.__name__, {}))
        module.__file__ = f"<extgen legacy shim {module.__name__}>"


_FINDER = _LegacyFinder()
_depth = 0
_LOCK = threading.RLock()  # install/removal vs. another legacy_imports() block in another thread


def _remove_shims() -> None:
    # another thread may import while we sweep: iterate a snapshot (dict.copy is one C call)
    for name in [m for m in sys.modules.copy() if _is_legacy(m)]:
        sys.modules.pop(name, None)
    tools = sys.modules.get("openvino.tools")
    if tools is not None and isinstance(getattr(tools, "__dict__", {}).get("mo"), _LegacyModule):
        delattr(tools, "mo")


@contextlib.contextmanager
def legacy_imports() -> Iterator[None]:
    """Legacy MO imports resolve inside this block (re-entrant); on exit the shims are gone."""
    global _depth
    with _LOCK:
        if _depth == 0:
            _remove_shims()
            sys.meta_path.insert(0, _FINDER)
        _depth += 1
    try:
        yield
    finally:
        with _LOCK:
            _depth -= 1
            if _depth == 0:
                if _FINDER in sys.meta_path:
                    sys.meta_path.remove(_FINDER)
                _remove_shims()
                _LOCAL_ROOTS.clear()
                _IGNORED.clear()
