"""Writing files atomically: a temporary file beside the target, renamed over it, with the mode
a plain open() would have given (mkstemp makes 0600 files); and pairs of files that belong
together (an IR's .xml and the .bin it points into), never left mixed by a crash."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

__all__ = ["cache_dir", "write_atomic", "write_pair", "write_temp"]

Writer = Callable[[BinaryIO], None]
PairWriter = Callable[[BinaryIO, BinaryIO], None]


def _read_umask() -> int:
    mask = os.umask(0)  # the only way to read it; done once, at import, before any thread runs
    os.umask(mask)
    return mask


_UMASK = _read_umask()


@contextmanager
def _temp_file(path: Path) -> Iterator[tuple[BinaryIO, Path]]:
    """A new temporary file `.<path.name>.XXXXXXXX` in path's folder, open for writing; once
    written it gets the mode path has (or a plain open() would give); on failure it is removed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f, Path(tmp)
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~_UMASK
        os.chmod(tmp, mode)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def cache_dir(kind: str) -> Path:
    """Where extgen keeps what it builds once per machine (OpenCL binaries, native kernels):
    $EXTGEN_CACHE_DIR/kind, else $XDG_CACHE_HOME/extgen/kind, else ~/.cache/extgen/kind."""
    if os.environ.get("EXTGEN_CACHE_DIR"):
        return Path(os.environ["EXTGEN_CACHE_DIR"]) / kind
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "extgen" / kind


def write_temp(path: Path, write: Writer) -> Path:
    """Call write(f) on a new temporary file `.<path.name>.XXXXXXXX` in path's folder, give it
    the mode path has (or a plain open() would give) and return it; on failure it is removed."""
    with _temp_file(path) as (f, tmp):
        write(f)
    return tmp


def write_atomic(path: Path, write: Writer) -> None:
    """Call write(f) on a temporary file in path's folder, then rename it to path; on any
    failure the temporary file is removed and path is untouched."""
    tmp = write_temp(path, write)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_pair(data: Path, index: Path, write: PairWriter) -> None:
    """Write two files that belong together, the index referring into the data (an IR's .xml
    and its .bin): write(data_file, index_file) fills both temporary files at once (so the index
    streams out as the data is written). Then the old index is removed, so that no crash can
    leave it beside the new data, the data is renamed into place and the index last. On a
    failure no temporary file is left; a kill leaves the old pair, the new pair, or data without
    an index (which nothing can load)."""
    temps: list[Path] = []
    try:
        with _temp_file(data) as (data_f, data_tmp), _temp_file(index) as (index_f, index_tmp):
            temps += [data_tmp, index_tmp]
            write(data_f, index_f)
        index.unlink(missing_ok=True)
        os.replace(temps[0], data)
        os.replace(temps[1], index)
    except BaseException:
        for tmp in temps:
            tmp.unlink(missing_ok=True)
        raise
