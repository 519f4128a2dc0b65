"""Progress is injected: the library's activity() is silent unless the CLI's display is installed,
which main() does for the length of one command."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator

from converter import progress as hook
from extgen import progress
from extgen.cli import main
from extgen.commands import schema


def test_the_library_default_shows_nothing(capsys, caplog) -> None:
    with caplog.at_level("DEBUG"), hook.activity("building OpenCL kernel"):
        pass
    assert capsys.readouterr() == ("", "")
    assert caplog.records == []


def test_the_cli_shows_activities_while_a_command_runs(monkeypatch) -> None:
    shown: list[str] = []

    @contextlib.contextmanager
    def display(label: str) -> Iterator[None]:
        shown.append(label)
        yield

    def run(args: argparse.Namespace) -> int:
        with hook.activity("building OpenCL kernel"):
            return 0

    monkeypatch.setattr(progress, "activity", display)
    monkeypatch.setattr(schema, "run", run)
    assert main(["schema"]) == 0
    assert shown == ["building OpenCL kernel"]
    with hook.activity("after the command"):
        pass
    assert shown == ["building OpenCL kernel"]
