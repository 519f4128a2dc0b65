"""Docs that run: every shell command of the tutorial and the README runs, in order, in a
temporary folder, and prints what the docs say; docs/reference.md matches the code."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MARK = "@@extgen-doc-block@@"


def _blocks(markdown: str) -> list[tuple[str, list[str]]]:
    """(bash code, expected lines) for each ```bash block; expected from a following ```text."""
    parts = re.findall(r"```(bash|text)\n(.*?)```", markdown, re.S)
    out: list[tuple[str, list[str]]] = []
    for lang, body in parts:
        if lang == "bash":
            out.append((body, []))
        elif out and not out[-1][1]:
            out[-1] = (out[-1][0], body.splitlines())
    return out


def _run_blocks(blocks: list[tuple[str, list[str]]], cwd: Path,
                skip: tuple[str, ...] = ()) -> list[str]:
    script = ["set -e", "exec 2>&1"]
    for code, _ in blocks:
        lines = [line for line in code.splitlines() if line.strip() not in skip]
        script += [f"echo {MARK}", *lines]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
           "COLUMNS": "200"}
    done = subprocess.run(["bash", "-c", "\n".join(script)], cwd=cwd, capture_output=True,
                          text=True, env=env, timeout=900)
    outputs = done.stdout.split(MARK + "\n")[1:]
    assert done.returncode == 0, done.stdout[-3000:]
    return outputs


def _check(blocks, outputs) -> None:
    assert len(outputs) == len(blocks)
    for (code, expected), got in zip(blocks, outputs):
        pos = 0
        for line in expected:
            if line.strip() in ("", "..."):
                continue
            found = got.find(line.strip(), pos)
            assert found >= 0, f"after\n{code}\nexpected {line!r} in:\n{got}"
            pos = found


def test_tutorial_runs_as_written(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples" / "cosh", tmp_path / "examples" / "cosh")
    blocks = _blocks((ROOT / "docs" / "tutorial.md").read_text())
    assert len(blocks) >= 10
    _check(blocks, _run_blocks(blocks, tmp_path))


def test_kaldi_page_runs_as_written(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples" / "kaldi", tmp_path / "examples" / "kaldi")
    blocks = _blocks((ROOT / "docs" / "kaldi.md").read_text())
    assert len(blocks) >= 4
    _check(blocks, _run_blocks(blocks, tmp_path))


def test_readme_commands_run(tmp_path: Path) -> None:
    """The README's first two commands are the main job and the tests (the test suite does not
    run itself; tests/test_example.py runs the main job); every other block runs here."""
    readme = (ROOT / "README.md").read_text()
    blocks = _blocks(readme)
    first = [line.split("#")[0].strip() for line in blocks[0][0].splitlines() if line.strip()]
    assert first[:2] == ["make example", "make test"]
    rest = blocks[1:]
    assert rest, "the README shows how to use extgen beyond the two commands"
    shutil.copytree(ROOT / "examples" / "cosh", tmp_path / "examples" / "cosh")
    _check(rest, _run_blocks(rest, tmp_path))


def test_reference_is_generated_from_the_code(monkeypatch) -> None:
    from extgen.reference import render

    monkeypatch.setenv("COLUMNS", "100")
    assert (ROOT / "docs" / "reference.md").read_text() == render(), (
        "docs/reference.md is stale: run "
        "`COLUMNS=100 python -m extgen.reference > docs/reference.md`"
    )


@pytest.mark.parametrize("command", ["check", "new", "convert", "run", "schema", "doctor"])
def test_every_command_help_shows_an_example(command: str, capsys) -> None:
    from extgen.cli import main

    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert "example" in capsys.readouterr().out


def test_help_lists_an_option_s_spellings_once_with_its_value_on_every_python(capsys) -> None:
    """argparse before 3.13 repeats the value after each spelling; extgen's help (and so the
    reference) reads the same on every Python."""
    from extgen.cli import main

    with pytest.raises(SystemExit):
        main(["convert", "--help"])
    out = capsys.readouterr().out
    assert "--input_model, -m, -w FILE" in out and "-m FILE" not in out
