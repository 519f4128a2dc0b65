"""One run at a time writes an IR name: an exclusive flock on `<folder>/.<name>.lock`, held while
the pair is written, so a second run into the same name waits (and says so) instead of mixing
its .xml with the other's .bin. Once the lock is held, the temporary files of that name that a
killed run left behind are surely stale and are removed. The lock file goes when released."""

from __future__ import annotations

import fcntl
import logging
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["ir_name_lock"]

log = logging.getLogger("extgen.convert")


def _lock(path: Path) -> int:
    """An fd of path holding its exclusive flock; retried when the holder before us removed
    the file while we waited (our lock would then be on a file no one else sees)."""
    waited = False
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if not waited:
                    log.warning("another run is writing this IR (%s is locked); waiting for it",
                                path)
                    waited = True
                fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:  # Ctrl-C while waiting: no descriptor left open
            os.close(fd)
            raise
        try:
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)


def _remove_stale_temps(folder: Path, name: str) -> None:
    """Remove the `.<name>.xml.XXXXXXXX` / `.<name>.bin.XXXXXXXX` files (mkstemp's suffix) that
    runs killed while writing this name left behind."""
    stale = re.compile(rf"\.{re.escape(name)}\.(xml|bin)\.[a-z0-9_]{{8}}")
    for entry in folder.iterdir():
        if stale.fullmatch(entry.name):
            log.info("removing %s, left behind by an interrupted run", entry)
            entry.unlink(missing_ok=True)


@contextmanager
def ir_name_lock(folder: Path, name: str) -> Iterator[None]:
    """Hold the lock of IR `name` in folder (waiting for another run that holds it), with the
    stale temporary files of that name removed."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f".{name}.lock"
    fd = _lock(path)
    try:
        _remove_stale_temps(folder, name)
        yield
    finally:
        path.unlink(missing_ok=True)
        os.close(fd)
