"""`extgen completion`: shell code for bash, zsh and fish, and completions that come back when
the shell asks (argcomplete's protocol, as the printed code drives it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from extgen.cli import main

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_prints_shell_code(shell: str, capsys) -> None:
    assert main(["completion", shell]) == 0
    out = capsys.readouterr().out
    assert "_ARGCOMPLETE" in out and "extgen" in out


def _complete(tmp_path: Path, line: str) -> list[str]:
    answer = tmp_path / "answer"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "_ARGCOMPLETE": "1", "COMP_LINE": line,
           "COMP_POINT": str(len(line)), "_ARGCOMPLETE_STDOUT_FILENAME": str(answer),
           "_ARGCOMPLETE_IFS": "\n"}
    done = subprocess.run([sys.executable, "-m", "extgen"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return [item.strip() for item in answer.read_text().split("\n")]


def test_subcommands_and_flags_complete(tmp_path: Path) -> None:
    assert {"convert", "check", "completion"} <= set(_complete(tmp_path, "extgen c"))
    flags = _complete(tmp_path, "extgen convert --compress")
    assert "--compress_to_fp16" in flags
    assert set(_complete(tmp_path, "extgen convert --framework ")) >= {"onnx", "caffe"}
