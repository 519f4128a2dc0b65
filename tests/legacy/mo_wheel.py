"""MO 2023.3's package as test data: fetched once per machine into ~/.cache/extgen/mo-2023.3
(only openvino/tools/mo/{front,middle,back,ops}/**.py, extracted beside it and renamed into
place under a lock), never imported by the product."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

CACHE = Path.home() / ".cache" / "extgen" / "mo-2023.3"
PACKAGE = CACHE / "openvino" / "tools" / "mo"
_PARTS = ("front", "middle", "back", "ops")


def mo_package() -> Path:
    """openvino/tools/mo of the extracted wheel."""
    if PACKAGE.is_dir():
        return PACKAGE
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    with open(CACHE.parent / "mo-2023.3.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not PACKAGE.is_dir():
            _extract()
    return PACKAGE


def _extract() -> None:
    with tempfile.TemporaryDirectory(dir=CACHE.parent) as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "openvino-dev==2023.3.0",
                        "--no-deps", "-q", "-d", tmp], check=True)
        (wheel,) = Path(tmp).glob("*.whl")
        staged = Path(tmp) / "tree"
        with zipfile.ZipFile(wheel) as zf:
            for name in zf.namelist():
                parts = name.split("/")
                if name.startswith("openvino/tools/mo/") and parts[3] in _PARTS \
                        and name.endswith(".py"):
                    zf.extract(name, staged)
        os.rename(staged, CACHE)
