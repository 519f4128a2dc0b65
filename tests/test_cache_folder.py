"""The cache-folder helper the corpus builders share: written once, never half-written."""

from __future__ import annotations

import pytest

from tests.cache_folder import write_once


def test_written_once_and_never_half(tmp_path):
    calls = []

    def write(tmp):
        calls.append(tmp)
        (tmp / "model.bin").write_text("x")

    folder = tmp_path / "cache" / "m"
    assert write_once(folder, write) == folder and (folder / "model.bin").read_text() == "x"
    write_once(folder, write)
    assert len(calls) == 1 and calls[0] != folder

    def broken(tmp):
        (tmp / "part").write_text("half")
        raise RuntimeError("build failed")

    with pytest.raises(RuntimeError):
        write_once(tmp_path / "cache" / "bad", broken)
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [".lock", "m"]
