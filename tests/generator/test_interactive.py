"""Interactive `extgen new` through the real prompts (prompt_toolkit pipe input): a full
session, going back to change an answer, and Ctrl-C writing nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from extgen.cli import main
from tests.prompts import typed

ENTER, DOWN, CTRL_C = "\r", "\x1b[B", "\x03"


def _session(keys: list[str], argv: list[str], capsys) -> tuple[int, str, str]:
    with typed("".join(keys)):
        code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


ANSWERS = [
    "Cosh" + ENTER,                 # op name
    ENTER,                          # onnx op type: default (the op name)
    ENTER, ENTER,                   # inputs x, outputs y
    "y",                            # add an attribute (confirm answers on the key)
    "scale" + ENTER,                # its name
    ENTER,                          # type: float (first choice)
    "2.5" + ENTER,                  # default
    ENTER,                          # in IR: yes (default)
    "n",                            # no more attributes
    ENTER,                          # shape: same as first input
    "scale * (exp(x) + exp(-x)) / 2" + ENTER,
]


def test_full_session_writes_files_and_replayable_config(tmp_path: Path, capsys) -> None:
    code, out, _ = _session(ANSWERS + [ENTER], [  # review: "no, generate"
        "new", "--mo-onnx-ext", "--mo-op", "--output_dir", str(tmp_path)], capsys)
    assert code == 0, out
    op = (tmp_path / "user_mo_extensions" / "ops" / "cosh.py").read_text()
    assert "fn.exp(x0)" in op and '"scale": 2.5' in op
    replay = json.loads((tmp_path / "cosh.extgen.json").read_text())
    assert replay["ops"][0]["expression"] == "scale * (exp(x) + exp(-x)) / 2"
    # the written config replays to identical files
    replay_file = tmp_path / "cosh.extgen.json"
    code = main(["new", "--config", str(replay_file), "--output_dir", str(tmp_path)])
    assert code == 0
    assert "identical" in capsys.readouterr().out


def test_going_back_changes_an_answer(tmp_path: Path, capsys) -> None:
    # review: pick "op name" (targets, then op name: two downs) and rename the op
    keys = ANSWERS + [DOWN, DOWN, ENTER, "\x7f" * 4 + "Sinh2" + ENTER, ENTER]
    code, out, _ = _session(
        keys, ["new", "--mo-onnx-ext", "--mo-op", "--output_dir", str(tmp_path)], capsys)
    assert code == 0, out
    assert (tmp_path / "user_mo_extensions" / "ops" / "sinh2.py").exists()
    assert not (tmp_path / "user_mo_extensions" / "ops" / "cosh.py").exists()


def test_shape_formula_and_one_expression_per_output(tmp_path: Path, capsys) -> None:
    argv = ["new", "--mo-onnx-ext", "--mo-op", "--output_dir"]
    up = ["Up" + ENTER] + ANSWERS[1:10] + [
        DOWN, ENTER,                    # shape: a formula of the first input's dims
        ENTER,                          # dim names: N, C, H, W (default)
        ENTER, ENTER,                   # N, C as they are
        "\x7f" + "H * scale" + ENTER, "\x7f" + "W * scale" + ENTER,
        "x" + ENTER,                    # math: x alone, read at the nearest position
        ENTER]
    code, out, _ = _session(up, [*argv, str(tmp_path / "up")], capsys)
    assert code == 0, out
    saved = json.loads((tmp_path / "up" / "up.extgen.json").read_text())["ops"][0]
    shape = saved["shape"]
    assert (shape["kind"], shape["names"]) == ("formula", ["N", "C", "H", "W"])
    assert shape["dims"] == ["N", "C", "H * scale", "W * scale"]
    assert saved["expression"] == "x"
    two = ["Split" + ENTER, ENTER, ENTER, "\x7f" + "neg, pos" + ENTER, "n", ENTER,
           "min(x, 0)" + ENTER, "max(x, 0)" + ENTER, ENTER]
    code, out, _ = _session(two, [*argv, str(tmp_path / "two")], capsys)
    assert code == 0, out
    op = json.loads((tmp_path / "two" / "split.extgen.json").read_text())["ops"][0]
    assert op["expression"] == ["min(x, 0)", "max(x, 0)"]


@pytest.mark.parametrize("stop_after", [0, 3, 7])
def test_ctrl_c_writes_nothing(tmp_path: Path, capsys, stop_after: int) -> None:
    code, _, err = _session(ANSWERS[:stop_after] + [CTRL_C],
                            ["new", "--mo-op", "--output_dir", str(tmp_path / "out")], capsys)
    assert code == 130 and "nothing was written" in err
    assert not (tmp_path / "out").exists()


def test_standard_input_that_is_no_terminal_is_one_line(tmp_path: Path, capsys) -> None:
    code = main(["new", "--mo-op", "--output_dir", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "not a terminal" in err[0] and "--config" in err[0]


def test_renaming_follows_into_types_and_deselected_frameworks_drop(tmp_path, capsys) -> None:
    """Rename Cosh to Sinh2 (the onnx type followed the name), then deselect the ONNX
    extractor: its type leaves the saved config."""
    rename = [DOWN, DOWN, ENTER, "\x7f" * 4 + "Sinh2" + ENTER]
    untick = [DOWN, ENTER, " " + ENTER]  # targets: the first (mo-onnx-ext) off
    code, out, _ = _session(ANSWERS + rename + untick + [ENTER], [
        "new", "--mo-onnx-ext", "--mo-op", "--output_dir", str(tmp_path)], capsys)
    assert code == 0, out
    assert '"onnx": "Sinh2"' in out  # the review after the rename
    saved = json.loads((tmp_path / "sinh2.extgen.json").read_text())
    assert saved["targets"] == ["mo-op"] and "framework_types" not in saved["ops"][0]


def test_answers_are_kept_when_the_files_are_in_the_way(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["new", "--mo-onnx-ext", "--mo-op", "--output_dir", str(tmp_path / "out")]
    assert _session(ANSWERS + [ENTER], argv, capsys)[0] == 0
    ops = tmp_path / "out" / "user_mo_extensions" / "ops" / "cosh.py"
    ops.write_text(ops.read_text() + "# my edit\n")
    code, _, err = _session(ANSWERS + [ENTER], argv, capsys)
    assert code == 2 and "your answers are kept in cosh.extgen.json" in err
    assert f"`extgen update --config cosh.extgen.json --output_dir {tmp_path / 'out'} " in err
    assert json.loads((tmp_path / "cosh.extgen.json").read_text())["ops"][0]["name"] == "Cosh"


def test_framework_questions_of_the_original_extgen(tmp_path: Path, capsys) -> None:
    """Caffe: a Python layer and its module, not copying every parameter; TF: parse_all off;
    MXNet: a Custom op."""
    keys = ["Cosh" + ENTER, ENTER, ENTER, ENTER,   # name; tf, caffe, mxnet types: defaults
            DOWN + ENTER, "mylayers.CoshLayer" + ENTER, "n",  # Caffe: Python layer, no copy
            "n", "y",                                  # TF parse_all off; MXNet Custom op
            *ANSWERS[2:], ENTER]
    code, out, _ = _session(keys, ["new", "--mo-caffe-ext", "--mo-tf-ext", "--mo-mxnet-ext",
                                   "--mo-op", "--output_dir", str(tmp_path)], capsys)
    assert code == 0, out
    op = json.loads((tmp_path / "cosh.extgen.json").read_text())["ops"][0]
    assert op["caffe"] == {"pythonic": True, "module": "mylayers.CoshLayer", "copy_all": False}
    assert op["tf"] == {"parse_all": False} and op["mxnet"] == {"custom": True}
    caffe_ext = next((tmp_path / "user_mo_extensions/front/caffe").glob("*_ext.py")).read_text()
    assert "CaffePythonFrontExtractorOp" in caffe_ext and "mylayers.CoshLayer" in caffe_ext


def test_caffe_parameter_field_defaults_to_the_op_name(tmp_path: Path, capsys) -> None:
    keys = ["Cosh" + ENTER, ENTER, ENTER, ENTER, "y", *ANSWERS[2:], ENTER]
    code, out, _ = _session(keys, ["new", "--mo-caffe-ext", "--mo-op", "--output_dir",
                                   str(tmp_path)], capsys)
    assert code == 0, out
    op = json.loads((tmp_path / "cosh.extgen.json").read_text())["ops"][0]
    assert op["caffe"] == {"param_name": "cosh_param"}  # pythonic/copy_all: the defaults


BACK = "\x7f"
ONNX = ["new", "--mo-onnx-ext", "--mo-op", "--output_dir"]


def _attributes(tmp_path: Path) -> list[str]:
    saved = json.loads((tmp_path / "cosh.extgen.json").read_text())["ops"][0]
    return [a["name"] for a in saved.get("attributes", [])]


def _attribute(name: str) -> list[str]:
    """Add one float attribute without a default, written to the IR."""
    return ["y", name + ENTER, ENTER, ENTER, ENTER]


@pytest.mark.parametrize(("first", "refused"), [
    ("alpha", "alpha"),   # the same attribute twice
    ("alpha", "Alpha"),   # names must differ in more than case
    ("alpha", "nan"),     # its OpenCL macro NAN exists
    ("alpha", "x"),       # the input's name
    ("alpha", "Cosh"),    # the op's name
])
def test_a_bad_attribute_name_is_refused_as_typed(tmp_path, capsys, first, refused) -> None:
    """Refused at the prompt (Enter does nothing), not after the review: the name is replaced
    and the session goes on to generate."""
    keys = ANSWERS[:4] + _attribute(first) + [
        "y", refused + ENTER,               # refused: the prompt stays
        BACK * len(refused) + "beta" + ENTER, ENTER, ENTER, ENTER,
        "n", ENTER, ENTER,                  # no more; shape same; no expression
        ENTER]                              # review: generate
    code, out, err = _session(keys, [*ONNX, str(tmp_path)], capsys)
    assert code == 0, out + err
    assert _attributes(tmp_path) == [first, "beta"]


def test_bad_op_and_port_names_are_refused_as_typed(tmp_path: Path, capsys) -> None:
    keys = [
        "evaluate" + ENTER,                 # a name the generated op class uses: refused
        BACK * 8 + "Cosh" + ENTER,
        ENTER,                              # onnx op type
        BACK + "x, X" + ENTER,              # inputs: twice (in case only): refused
        BACK + "k" + ENTER,                 # inputs x, k
        BACK + "k" + ENTER,                 # outputs: an input's name: refused
        BACK + "y" + ENTER,
        "n", ENTER, ENTER, ENTER]           # no attributes; shape same; no math; generate
    code, out, err = _session(keys, [*ONNX, str(tmp_path)], capsys)
    assert code == 0, out + err
    op = json.loads((tmp_path / "cosh.extgen.json").read_text())["ops"][0]
    assert op["name"] == "Cosh" and [p["name"] for p in op["inputs"]] == ["x", "k"]


def test_dim_names_are_refused_as_typed(tmp_path: Path, capsys) -> None:
    keys = ANSWERS[:9] + [
        "n", DOWN, ENTER,                   # no more attributes; shape: a formula
        BACK * 10 + "N, C, H, scale" + ENTER,  # an attribute's name: refused
        BACK * 5 + "W" + ENTER,
        ENTER, ENTER, ENTER, ENTER,         # the dims as they are
        "x" + ENTER, ENTER]
    code, out, err = _session(keys, [*ONNX, str(tmp_path)], capsys)
    assert code == 0, out + err
    shape = json.loads((tmp_path / "cosh.extgen.json").read_text())["ops"][0]["shape"]
    assert shape["names"] == ["N", "C", "H", "W"]


def test_a_pytorch_type_is_asked_as_namespace_and_op(tmp_path: Path, capsys) -> None:
    """The PyTorch type has no default (the op name cannot be one) and is checked as typed: a
    bare name is refused at the prompt, 'ns::op' is taken into the files."""
    keys = ["Cosh" + ENTER, "cosh" + ENTER, "\x7f" * 4 + "demo::cosh" + ENTER, *ANSWERS[2:],
            ENTER]
    code, out, _ = _session(keys, ["new", "--mo-pytorch-ext", "--mo-op", "--output_dir",
                                   str(tmp_path)], capsys)
    assert code == 0, out
    replay = json.loads((tmp_path / "cosh.extgen.json").read_text())
    assert replay["ops"][0]["framework_types"] == {"pytorch": "demo::cosh"}
