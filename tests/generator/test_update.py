"""`extgen update`: after a config change (a new attribute), a hand edit to a generated kernel
survives a three-way merge, and an edit to a line the generator also changes is marked as a
conflict, listed, and exits 1."""

from __future__ import annotations

import json
from pathlib import Path

from extgen.cli import main

ROOT = Path(__file__).resolve().parents[2]
EDIT = "    out0[AT(OUTPUT0)] = (OUTPUT0_TYPE)(((float)SCALE) * cosh(x0));  // my faster version\n"


def _generate(tmp_path: Path) -> tuple[Path, Path]:
    config = json.loads((ROOT / "examples/cosh/cosh.extgen.json").read_text())
    path = tmp_path / "cosh.json"
    path.write_text(json.dumps(config))
    out = tmp_path / "ext"
    assert main(["new", "--config", str(path), "--output_dir", str(out)]) == 0
    assert (out / ".extgen" / "base.json").is_file()
    config["ops"][0]["attributes"].append({"name": "beta", "type": "float", "default": 0.25})
    path.write_text(json.dumps(config))
    return path, out


def _edit(path: Path, start: str, new: str) -> None:
    lines = path.read_text().splitlines(True)
    index = next(i for i, line in enumerate(lines) if line.lstrip().startswith(start))
    lines[index] = new
    path.write_text("".join(lines))


def test_a_hand_edit_survives_a_new_attribute(tmp_path: Path, capsys) -> None:
    config, out = _generate(tmp_path)
    kernel = out / "user_ie_extensions/gpu/cosh_kernel.cl"
    _edit(kernel, "out0[AT(OUTPUT0)] =", EDIT)
    capsys.readouterr()
    assert main(["update", "--config", str(config), "--output_dir", str(out)]) == 0
    report = capsys.readouterr().out
    assert f"merged     {kernel}" in report
    assert f"update     {out / 'user_ie_extensions/cpu/cosh_op.hpp'}" in report
    text = kernel.read_text()
    assert EDIT in text and "BETA: attribute beta (float)" in text and "<<<<<<<" not in text
    assert "float beta = 0.25f" in (out / "user_ie_extensions/cpu/cosh_op.hpp").read_text()
    # the record moved on: updating again changes nothing and keeps the edit
    assert main(["update", "--config", str(config), "--output_dir", str(out)]) == 0
    assert EDIT in kernel.read_text() and "merged" not in capsys.readouterr().out


def test_a_conflict_is_marked_and_listed(tmp_path: Path, capsys) -> None:
    config, out = _generate(tmp_path)
    kernel = out / "user_ie_extensions/vpu/cosh_kernel.cl"
    _edit(kernel, "float SCALE)", "    float SCALE)  // my note\n")
    capsys.readouterr()
    assert main(["update", "--config", str(config), "--output_dir", str(out)]) == 1
    report = capsys.readouterr().out
    assert f"conflict   {kernel}" in report and "1 file(s) with conflicts" in report
    text = kernel.read_text()
    assert "<<<<<<< yours\n    float SCALE)  // my note\n=======\n" in text
    assert "    float BETA)\n>>>>>>> generated\n" in text


def test_update_without_a_record_is_one_line(tmp_path: Path, capsys) -> None:
    config = tmp_path / "c.json"
    config.write_text((ROOT / "examples/cosh/cosh.extgen.json").read_text())
    assert main(["update", "--config", str(config), "--output_dir", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no readable record of the last generation" in err[0]
