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


def test_new_over_edited_files_names_update_and_its_advice_keeps_the_edit(tmp_path, capsys) -> None:
    config, out = _generate(tmp_path)
    kernel = out / "user_ie_extensions/gpu/cosh_kernel.cl"
    _edit(kernel, "out0[AT(OUTPUT0)] =", EDIT)
    capsys.readouterr()
    assert main(["new", "--config", str(config), "--output_dir", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(kernel) in err[0] and "nothing was written" in err[0], err
    advice = f"`extgen update --config {config} --output_dir {out}` regenerates"
    assert advice in err[0] and "--force discards your edits" in err[0], err[0]
    assert "use --force to overwrite" not in err[0]
    command = err[0].split("`")[1].split()
    assert command[:2] == ["extgen", "update"]
    assert main(command[1:]) == 0  # following the advice keeps the edit
    assert EDIT in kernel.read_text() and "BETA" in kernel.read_text()


def test_update_refuses_while_conflict_markers_remain(tmp_path: Path, capsys) -> None:
    config, out = _generate(tmp_path)
    kernel = out / "user_ie_extensions/vpu/cosh_kernel.cl"
    _edit(kernel, "float SCALE)", "    float SCALE)  // my note\n")
    assert main(["update", "--config", str(config), "--output_dir", str(out)]) == 1
    marked = kernel.read_text()
    capsys.readouterr()
    assert main(["update", "--config", str(config), "--output_dir", str(out)]) == 1
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and "kept" not in captured.out, captured
    assert "1 file(s) still hold conflict markers" in err[0] and str(kernel) in err[0]
    assert "resolve them" in err[0] and "run extgen update again" in err[0]
    assert kernel.read_text() == marked
    # resolved: update runs again and keeps the resolution
    resolved = marked.replace("<<<<<<< yours\n", "").split("=======\n")[0] + \
        marked.split(">>>>>>> generated\n")[1]
    kernel.write_text(resolved)
    assert main(["update", "--config", str(config), "--output_dir", str(out)]) == 0
    assert kernel.read_text() == resolved


def test_update_without_targets_regenerates_every_recorded_target(tmp_path, capsys) -> None:
    """`new` once per target into one folder: the record keeps both, and an update from a
    config without targets merges into both."""
    config, out = _generate(tmp_path)
    data = json.loads(config.read_text())
    data.pop("targets")
    config.write_text(json.dumps(data))
    out2 = tmp_path / "ext2"
    for flag in ("--ie-gpu-ext", "--ie-vpu-ext"):
        data["ops"][0]["attributes"] = data["ops"][0]["attributes"][:1]
        config.write_text(json.dumps(data))
        assert main(["new", "--config", str(config), flag, "--output_dir", str(out2)]) == 0
    data["ops"][0]["attributes"].append({"name": "beta", "type": "float", "default": 0.25})
    config.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["update", "--config", str(config), "--output_dir", str(out2)]) == 0
    report = capsys.readouterr().out
    for target in ("gpu", "vpu"):
        assert f"update     {out2 / f'user_ie_extensions/{target}/cosh_kernel.cl'}" in report
