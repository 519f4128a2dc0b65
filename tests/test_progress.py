"""Progress is injected: the library's activity() is silent until the CLI installs its display."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from converter import progress as hook
from extgen import progress
from extgen.cli import main


@pytest.fixture(autouse=True)
def _silent_afterwards() -> Iterator[None]:
    yield
    hook.set_activity(None)


def test_the_library_default_shows_nothing(capsys, caplog) -> None:
    with caplog.at_level("DEBUG"), hook.activity("building OpenCL kernel"):
        pass
    assert capsys.readouterr() == ("", "")
    assert caplog.records == []


def test_the_cli_installs_its_display(monkeypatch, capsys) -> None:
    shown: list[str] = []

    @contextlib.contextmanager
    def display(label: str) -> Iterator[None]:
        shown.append(label)
        yield

    monkeypatch.setattr(progress, "activity", display)
    assert main(["schema"]) == 0
    capsys.readouterr()
    with hook.activity("building OpenCL kernel"):
        pass
    assert shown == ["building OpenCL kernel"]
