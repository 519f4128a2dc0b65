"""The recorded MO 2023.3 oracle (tests/mo_oracle.py): answers are found by the question's
content, whatever the paths; a question never recorded fails naming the script that records it;
no test runs MO itself."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests import mo_oracle

ROOT = Path(__file__).resolve().parents[1]


def test_an_unrecorded_question_fails_naming_the_recorder(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("EXTGEN_MO_PYTHON", raising=False)
    (model := tmp_path / "m.nnet").write_bytes(b"not recorded")
    with pytest.raises(pytest.fail.Exception, match="scripts/record_mo_fixtures.py"):
        mo_oracle.convert(model, tmp_path / "mo", ["--framework", "kaldi"])


def test_a_file_flag_is_keyed_by_its_content_not_its_path(tmp_path) -> None:
    (a := tmp_path / "a" / "counts.txt").parent.mkdir()
    (b := tmp_path / "b" / "counts.txt").parent.mkdir()
    a.write_text("[ 1 2 ]")
    b.write_text("[ 1 2 ]")
    assert mo_oracle._flag_digest(str(a)) == mo_oracle._flag_digest(str(b))
    b.write_text("[ 1 3 ]")
    assert mo_oracle._flag_digest(str(a)) != mo_oracle._flag_digest(str(b))


def test_no_test_needs_the_mo_venv() -> None:
    """MO installs only on Python <= 3.11: tests read its recorded answers instead."""
    runs_mo = re.compile(r"\.venv-mo|\"-m\", \"openvino\.tools\.mo\"|\bmo_python\b")
    recorder = ROOT / "tests" / "mo_oracle.py"
    found = [str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("*.py")
             if p not in (recorder, Path(__file__)) and runs_mo.search(p.read_text())]
    assert found == []
    assert ".venv-mo" not in (ROOT / "scripts" / "setup.sh").read_text()
