"""Test inputs built once per machine into a cache folder, safe across processes."""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

__all__ = ["write_once"]


def write_once(folder: Path, write: Callable[[Path], None]) -> Path:
    """folder, made by write(tmp) in a temporary sibling renamed into place: the first process
    writes it under a lock on the parent, the others wait and find it done."""
    if folder.is_dir():
        return folder
    root = folder.parent
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not folder.is_dir():
            tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=root))
            try:
                write(tmp)
                os.replace(tmp, folder)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    return folder
