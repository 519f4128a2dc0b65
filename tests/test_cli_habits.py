"""Habits users bring from OpenVINO's ovc and the legacy mo: --output_model as a folder, unnamed
--input shapes, `extgen run M.xml`, formats only ovc reads, both flag spellings, "did you
mean", wrong input names listed, and `extgen check`'s suggestions (its convert command, its op
class names)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from extgen.cli import build_parser, main
from tests.conftest import make_model

F = TensorProto.FLOAT


def _error_line(capsys, code: int) -> str:
    """The one line a usage error prints (exit status 2)."""
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1, lines
    return lines[0]


@pytest.fixture
def two_inputs(tmp_path: Path) -> Path:
    """y = a + b over two dynamic [N, 4] inputs."""
    path = tmp_path / "two.onnx"
    onnx.save(make_model([helper.make_node("Add", ["a", "b"], ["y"], name="add")],
                         [("a", F, ["N", 4]), ("b", F, ["N", 4])], [("y", F, ["N", 4])]), path)
    return path


def _ir(tmp_path: Path, model: Path, *flags: str) -> str:
    assert main(["convert", str(model), "-o", str(tmp_path / "ir"), *flags]) == 0
    return (tmp_path / "ir" / model.with_suffix(".xml").name).read_text()


# 1. --output_model DIR


def test_output_model_an_existing_folder_gets_the_model_name(relu_add_model: Path,
                                                              tmp_path: Path) -> None:
    folder = tmp_path / "odir"
    folder.mkdir()
    assert main(["convert", str(relu_add_model), "--output_model", str(folder), "--silent"]) == 0
    assert (folder / "relu_add.xml").is_file() and (folder / "relu_add.bin").is_file()
    assert not (tmp_path / "odir.xml").exists()


def test_output_model_ending_in_a_separator_is_a_folder_made_as_ovc_does(
        relu_add_model: Path, tmp_path: Path) -> None:
    folder = tmp_path / "new" / "odir"
    assert main(["convert", str(relu_add_model), "--output_model", f"{folder}/", "--silent"]) == 0
    assert (folder / "relu_add.xml").is_file() and (folder / "relu_add.bin").is_file()


# 2. --input [shape], without a name


def test_an_unnamed_input_shape_fits_a_one_input_model(relu_add_model: Path,
                                                       tmp_path: Path) -> None:
    assert '<data shape="1,3,8,8"' in _ir(tmp_path, relu_add_model, "--input", "[1,3,8,8]")


def test_unnamed_input_shapes_go_to_the_inputs_in_order(two_inputs: Path, tmp_path: Path) -> None:
    xml = _ir(tmp_path, two_inputs, "--input", "[1,4],[3,4]")
    assert '<data shape="1,4"' in xml and '<data shape="3,4"' in xml


def test_one_unnamed_shape_for_two_inputs_names_them(two_inputs: Path, capsys) -> None:
    code = main(["convert", str(two_inputs), "--input", "[1,4]", "-o", str(two_inputs.parent)])
    line = _error_line(capsys, code)
    assert "(a, b)" in line and "--input a[1,4],b[...]" in line


def test_an_unnamed_shape_takes_no_type_and_no_input_shape_beside_it(relu_add_model: Path,
                                                                     capsys) -> None:
    code = main(["convert", str(relu_add_model), "--input", "[1,3,8,8]{f16}"])
    assert "needs the input's name" in _error_line(capsys, code)
    code = main(["convert", str(relu_add_model), "--input", "[1,3,8,8]",
                 "--input_shape", "[1,3,8,8]"])
    assert "give them once" in _error_line(capsys, code)


# 3. extgen run M.xml


def test_run_takes_the_model_as_its_argument(relu_add_model: Path, tmp_path: Path,
                                             capsys) -> None:
    _ir(tmp_path, relu_add_model)
    xml = str(tmp_path / "ir" / "relu_add.xml")
    capsys.readouterr()
    assert main(["run", xml, "--input", "random"]) == 0
    assert "y: float32 [1, 3, 4, 4]" in capsys.readouterr().out
    assert main(["run", "-m", xml, "--input", "random"]) == 0
    capsys.readouterr()
    assert "give it once" in _error_line(capsys, main(["run", xml, "--model", xml]))
    assert "extgen run M.xml" in _error_line(capsys, main(["run", "--input", "random"]))


# 4. formats only ovc reads


@pytest.mark.parametrize(("suffix", "name"), [(".pdmodel", "PaddlePaddle")])
@pytest.mark.parametrize("command", ["convert", "check"])
def test_a_format_only_ovc_reads_is_named(tmp_path: Path, capsys, suffix, name,
                                          command) -> None:
    model = tmp_path / f"m{suffix}"
    model.write_bytes(b"\x1c\x00\x00\x00TFL3 not read here")
    line = _error_line(capsys, main([command, str(model), "--output_dir", str(tmp_path / "o")]))
    assert name in line and "extgen does not read" in line and "ovc" in line
    assert "--framework" not in line and "TFL3" not in line


# 5. both spellings of every long option, in every command


@pytest.mark.parametrize("argv", [
    ["convert", "m.onnx", "--output_dir=o", "--input_shape", "[1,2]", "--compress_to_fp16=False",
     "--log_level", "info"],
    ["run", "m.xml", "--log_level=info", "--extension", "lib.so"],
    ["new", "--output_dir", "o", "--ie-cpu-ext", "--mo-op", "--from-model=m.onnx"],
    ["check", "m.onnx", "--input_proto", "d.prototxt", "--output_dir=c"],
    ["test", "d", "--cpu_library", "l.so", "--openvino_library=x.so"],
])
def test_every_command_takes_both_spellings(argv: list[str]) -> None:
    def respelled(arg: str) -> str:
        if not arg.startswith("--"):
            return arg
        name, eq, value = arg.partition("=")
        other = name[2:].replace("_", "-") if "_" in name else name[2:].replace("-", "_")
        return "--" + other + eq + value

    parse = build_parser().parse_args
    assert vars(parse([respelled(a) for a in argv])) == vars(parse(argv))


def test_after_a_double_dash_nothing_is_respelled(tmp_path: Path, monkeypatch, capsys) -> None:
    """A model file named like an option in the other spelling stays that file."""
    monkeypatch.chdir(tmp_path)
    onnx.save(make_model([helper.make_node("Relu", ["x"], ["y"])], [("x", F, [1, 2])],
                         [("y", F, [1, 2])]), tmp_path / "--output-dir")
    code = main(["check", "--framework", "onnx", "--output_dir", "cfg", "--", "--output-dir"])
    assert code == 0, capsys.readouterr()


# 6. did you mean


def test_a_misspelled_flag_gets_the_one_meant(relu_add_model: Path, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["convert", "--input_modle", str(relu_add_model)])
    line = _error_line(capsys, exit_.value.code)
    assert "unrecognized arguments: --input_modle (did you mean --input_model?)" in line
    with pytest.raises(SystemExit) as exit_:
        main(["run", "m.xml", "--devcie=GPU", "--zzzzzz"])
    line = _error_line(capsys, exit_.value.code)
    assert "--devcie=GPU (did you mean --device?) --zzzzzz (see" in line


# 7. a wrong input name lists the model's inputs


@pytest.mark.parametrize(("flags", "needle"), [
    (("--input", "wrong_name[1,3]"), "--input 'wrong_name': the model has no input or tensor"),
    (("--input", "1,3,8,8"), "a shape goes in brackets: --input [1,3,224,224]"),
    (("--mean_values", "wrong_name[1,2,3]"), "--mean_values 'wrong_name': the model has no input"),
    (("--freeze_placeholder_with_value", "wrong_name->1"),
     "--freeze_placeholder_with_value 'wrong_name'"),
], ids=["input", "bare-shape", "mean_values", "freeze"])
def test_a_wrong_input_name_lists_the_inputs(relu_add_model: Path, tmp_path: Path, capsys,
                                             flags, needle) -> None:
    code = main(["convert", str(relu_add_model), *flags, "-o", str(tmp_path / "o")])
    line = _error_line(capsys, code)
    assert needle in line and "(its inputs: x)" in line
    assert not (tmp_path / "o").exists()


# 8. and 9. extgen check's suggestions


def test_check_suggests_convert_with_the_flags_it_was_given(tmp_path: Path, capsys) -> None:
    model = tmp_path / "m.onnx"
    onnx.save(make_model([helper.make_node("Relu", ["x"], ["y"])], [("x", F, ["N", 4])],
                         [("y", F, ["N", 4])]), model)
    assert main(["check", str(model), "--framework", "onnx", "--input", "x[2,4]",
                 "--output_dir", str(tmp_path / "cfg")]) == 0
    out = capsys.readouterr().out
    command = out.partition("convert it with ")[2].strip()
    assert command == f"extgen convert --input_model {model} --framework onnx --input 'x[2,4]'"
    argv = shlex.split(command)[1:]
    assert main([*argv, "-o", str(tmp_path / "ir")]) == 0
    assert '<data shape="2,4"' in (tmp_path / "ir" / "m.xml").read_text()


def test_check_names_the_op_class_in_camel_case(tmp_path: Path, capsys) -> None:
    nodes = [helper.make_node("grid_sampler", ["x"], ["a"], name="gs", domain="mmdeploy"),
             helper.make_node("my_op", ["a"], ["b"], name="mine", domain="mmdeploy"),
             helper.make_node("Cosh", ["b"], ["y"], name="cosh", domain="mmdeploy")]
    model = tmp_path / "m.onnx"
    onnx.save(make_model(nodes, [("x", F, [1, 4])], [("y", F, [1, 4])], domains=["mmdeploy"]),
              model)
    assert main(["check", str(model), "--output_dir", str(tmp_path / "cfg")]) == 1
    names = {p.name: json.loads(p.read_text())["ops"][0]["name"]
             for p in (tmp_path / "cfg").glob("*.extgen.json")}
    assert names == {"grid_sampler.extgen.json": "GridSampler", "my_op.extgen.json": "MyOp",
                     "cosh.extgen.json": "Cosh"}
    config = tmp_path / "cfg" / "grid_sampler.extgen.json"
    assert main(["new", "--config", str(config), "--output_dir", str(tmp_path / "ext")]) == 0
    op_source = (tmp_path / "ext" / "user_mo_extensions" / "ops" / "grid_sampler.py").read_text()
    assert "class GridSampler(Op):" in op_source
    capsys.readouterr()


def test_camel_case() -> None:
    from extgen.model_ops import camel_case

    assert [camel_case(n) for n in ("grid_sampler", "my_op", "Cosh", "relu6", "GridSampler")] \
        == ["GridSampler", "MyOp", "Cosh", "Relu6", "GridSampler"]



@pytest.mark.parametrize(("argv", "guess"), [
    (["conver"], "did you mean 'convert'?"),
    (["convert", "m.onnx", "--framework", "onx"], "did you mean 'onnx'?"),
])
def test_a_misspelled_choice_gets_the_closest_one(argv: list[str], guess: str, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and guess in err, err
