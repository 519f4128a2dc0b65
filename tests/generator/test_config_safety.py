"""`extgen new` refuses what it cannot render correctly: each bad config (hostile names, values,
encodings, original-extgen keys of the wrong shape) gives exit 2, one stderr line naming the
field, and writes nothing; an output folder that cannot be written leaves nothing behind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import extgen.generator.generate as generate_module
from extgen.cli import main
from extgen.generator.targets import TARGETS

# every target but the PyTorch extractor, which needs each op's torch.library name
# (framework_types.pytorch; test_ov_python.py checks the refusal)
ALL = [t for t in TARGETS if t != "mo-pytorch-ext"]


def _op(**changes) -> dict:
    return {"name": "Cosh", "attributes": [{"name": "scale", "type": "float", "default": 1.0}],
            **changes}


def _config(*ops: dict, targets: list[str] = ALL) -> dict:
    return {"targets": targets, "ops": list(ops) or [_op()]}


def _attr(name: str, type_: str = "float", default=None) -> dict:
    return {"name": name, "type": type_, **({} if default is None else {"default": default})}


def _new(tmp_path: Path, config: dict | str | bytes) -> int:
    path = tmp_path / "config.json"
    if isinstance(config, dict):
        config = json.dumps(config)
    path.write_bytes(config if isinstance(config, bytes) else config.encode())
    return main(["new", "--config", str(path), "--output_dir", str(tmp_path / "out")])


def _refused(tmp_path: Path, capsys, config, needle: str) -> str:
    code = _new(tmp_path, config)
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert code == 2 and len(lines) == 1, captured.err
    assert needle in lines[0], lines[0]
    assert not (tmp_path / "out").exists()
    return lines[0]


LEGACY = [
    ({"mo_op": {"op": "Cosh", "supported_attrs": [1]}},
     "mo_op.supported_attrs.0: must be a string"),
    ({"mo_tf_extractor": ["op"]}, "mo_tf_extractor: must be an object"),
    ({"mo_caffe_extractor": {"op": "Cosh", "params": {"a": 1}}},
     "mo_caffe_extractor.params: must be a list"),
    ({"mo_caffe_extractor": {"op": "Cosh", "params": ["scale"]}},
     "mo_caffe_extractor.params.0: must be an object"),
    ({"mo_mxnet_extractor": {"op": "Cosh", "params": [{"new_name": "s"}]}},
     "mo_mxnet_extractor.params.0.old_name: must be a non-empty string"),
    ({"mo_tf_extractor": {"op": "Cosh", "params": [{"old_name": "s", "type": ["i"]}]}},
     "mo_tf_extractor.params.0.type: must be a string"),
    ({"ie_op": {"op": "Cosh", "params": [{"type": "int"}]}}, "ie_op.params.0.name"),
    ({"ie_op": {"op": "Cosh", "plugin": 5}}, "ie_op.plugin: must be a list"),
    ({"ie_op": {"op": "Cosh", "plugin": [None]}}, "ie_op.plugin.0: must be a string"),
    ({"mo_op": {"op": "Cosh"}, "col\nour": 1}, "'col\\nour': not a key"),
]


@pytest.mark.parametrize(("config", "needle"), LEGACY)
def test_legacy_keys_of_the_wrong_shape(tmp_path: Path, capsys, config, needle) -> None:
    _refused(tmp_path, capsys, config, needle)


def test_config_not_utf8(tmp_path: Path, capsys) -> None:
    text = json.dumps(_config(_op(framework_types={"onnx": "K\u00f6sh"}))).encode("latin-1")
    _refused(tmp_path, capsys, text.replace(b"\\u00f6", b"\xf6"), "not UTF-8")


@pytest.mark.parametrize("where", ["framework_types", "default", "framework_name", "module",
                                   "vpu_source", "vpu_source_alone"])
def test_lone_surrogate_refused(tmp_path: Path, capsys, where: str) -> None:
    bad = "a\ud800b"
    op = {"framework_types": _op(framework_types={"onnx": bad}),
          "default": _op(attributes=[_attr("mode", "string", bad)]),
          "framework_name": _op(attributes=[{**_attr("mode", "string"), "framework_name": bad}]),
          "module": _op(caffe={"pythonic": True, "module": bad}),
          "vpu_source": _op(vpu={"scalars": [{"name": "w", "source": "I.X" + bad}]}),
          "vpu_source_alone": _op(vpu={"scalars": [{"name": "w", "source": "\ud800"}]})}[where]
    _refused(tmp_path, capsys, _config(op), "\\ud800")


@pytest.mark.parametrize(("scalar", "needle"), [
    ({"source": "nosuch"}, "vpu.scalars.0.source: 'nosuch' is neither a dimension"),
    ({"source": "mode"}, "vpu.scalars.0.source: 'mode'"),
    ({"source": "hidden"}, "(scale)"),
    ({"source": "I.X", "port_index": 1}, "vpu.scalars.0.port_index"),
    ({"source": "O", "port_index": 2}, "vpu.scalars.0.source: 'O' is neither"),
    ({"source": "O.F", "port_index": 2}, "vpu.scalars.0.port_index"),
    # the MYRIAD plugin reads I1.Y as output 0's Y: only I. names an input
    ({"source": "I1.Y"}, "the plugin reads 'I1.Y' as output 0's Y (only 'I.' names an input); "
                         "write I.Y or O.Y and pick the tensor with port_index"),
], ids=["no-attribute", "string-attribute", "not-in-ir", "port-index", "no-dim", "output-2",
        "i1"])
def test_vpu_scalar_that_extgen_run_could_not_bind(tmp_path: Path, capsys, scalar: dict,
                                                    needle: str) -> None:
    """A VPU scalar whose source names no int/float IR attribute, or a port the op lacks, is
    refused by `new` (not at `extgen run`), in one line naming the field."""
    attrs = [_attr("scale"), _attr("mode", "string"), {**_attr("hidden"), "in_ir": False}]
    op = _op(attributes=attrs, vpu={"scalars": [{"name": "w", **scalar}]})
    _refused(tmp_path, capsys, _config(op), needle)


def test_too_deep_json(tmp_path: Path, capsys) -> None:
    _refused(tmp_path, capsys, "[" * 100_000 + "]" * 100_000, "nested too deeply")


def test_int_too_long_to_read(tmp_path: Path, capsys) -> None:
    _refused(tmp_path, capsys, '{"ops": [' + "9" * 5000 + "]}", "not a usable JSON config")


def test_long_op_name_refused_and_the_longest_fits(tmp_path: Path, capsys) -> None:
    _refused(tmp_path, capsys, _config(_op(name="Ab" * 150)), "300 characters long")
    assert _new(tmp_path, _config(_op(name="aB" * 50))) == 0  # snake a_ba_b...: 149 characters
    names = [p.name for p in (tmp_path / "out").rglob("*")]
    assert names and max(len(n.encode()) for n in names) <= 255


@pytest.mark.parametrize("config", [
    _config(_op(name="cosh\n")),
    _config(_op(inputs=[{"name": "x\n"}])),
    _config(_op(attributes=[_attr("scale\n")])),
])
def test_trailing_newline_is_not_an_identifier(tmp_path: Path, capsys, config) -> None:
    line = _refused(tmp_path, capsys, config, "\\n' is not an identifier")
    assert "\n" not in line


@pytest.mark.parametrize(("default", "type_", "needle"), [
    ("Infinity", "float", "inf is not a finite"),
    ("-Infinity", "float", "-inf is not a finite"),
    ("NaN", "float", "nan is not a finite"),
    ("1e400", "float", "inf is not a finite"),
    ("1e39", "float", "float32"),
    ("[1.0, NaN]", "float_list", "nan is not a finite"),
    (str(2**63), "int", "out of the int64 range"),
    (str(-2**63), "int", "out of the int64 range"),
    (f"[1, {2**64}]", "int_list", "out of the int64 range"),
])
def test_unwritable_numbers_refused(tmp_path: Path, capsys, default, type_, needle) -> None:
    op = _op(attributes=[_attr("v", type_, "DEFAULT")])
    text = json.dumps(_config(op)).replace('"DEFAULT"', default)  # JSON's own spelling
    _refused(tmp_path, capsys, text, needle)


@pytest.mark.parametrize(("config", "needle"), [
    (_config(_op(name="FooBar"), _op(name="Foo_bar")), "share files foo_bar"),
    (_config(_op(attributes=[_attr("scale"), _attr("SCALE")])), "differ in more than case"),
    (_config(_op(inputs=[{"name": "x"}, {"name": "X"}])), "differ in more than case"),
    (_config(_op(attributes=[_attr("x")])), "'x' is used twice"),
    (_config(_op(inputs=[{"name": "Cosh"}])), "'Cosh' is used twice"),
])
def test_colliding_names_refused(tmp_path: Path, capsys, config, needle) -> None:
    _refused(tmp_path, capsys, config, needle)


@pytest.mark.parametrize("name", ["linux", "unix", "NULL", "errno", "NAN", "M_PI", "INFINITY",
                                  "std", "INPUT0_TYPE", "OUTPUT0_DIMS", "input0_type", "in0",
                                  "out0", "i", "get_global_id", "__x", "_Upper", "nan", "m_pi"])
def test_reserved_attribute_names(tmp_path: Path, capsys, name: str) -> None:
    _refused(tmp_path, capsys, _config(_op(attributes=[_attr(name)])), f"{name!r}")


@pytest.mark.parametrize("name", ["np", "Op", "std", "linux", "kernels", "type", "m_scale"])
def test_reserved_op_names(tmp_path: Path, capsys, name: str) -> None:
    _refused(tmp_path, capsys, _config(_op(name=name)), f"{name!r}")


@pytest.mark.parametrize("rule", ["shape", "dtype"])
@pytest.mark.parametrize("index", [-1, 1])
def test_rule_input_out_of_range(tmp_path: Path, capsys, rule: str, index: int) -> None:
    _refused(tmp_path, capsys, _config(_op(**{rule: {"input": index}})), "ops.0")


@pytest.mark.parametrize(("op", "needle"), [
    (_op(attributes=[_attr("mode", "string", "a\x00b")]), "'\\x00' is not allowed"),
    (_op(framework_types={"onnx": "d::A\x07"}), "'\\x07' is not allowed"),
    (_op(caffe={"pythonic": True, "module": 'm."""; import os'}), "not a dotted Python name"),
    (_op(caffe={"pythonic": True, "module": "m\n.x"}), "not a dotted Python name"),
    (_op(expression="exp(z)\n+1"), "config.json: ops.0: expression 'exp(z)\\n+1'"),
])
def test_unsafe_strings_refused(tmp_path: Path, capsys, op: dict, needle: str) -> None:
    _refused(tmp_path, capsys, _config(op), needle)


def test_non_bmp_characters_are_valid_escapes(tmp_path: Path) -> None:
    op = _op(framework_types={"onnx": "my\U0001f600::C\u00f6sh"},
             attributes=[_attr("mode", "string", "\U0001f600")],
             caffe={"pythonic": True, "module": "pkg.Layer"})
    assert _new(tmp_path, _config(op)) == 0
    cpu = (tmp_path / "out" / "user_ie_extensions" / "cpu" / "cosh_op.cpp").read_text()
    assert '"my\\U0001f600"' in cpu and '"C\\u00f6sh"' in cpu and "\\ud83d" not in cpu
    hpp = (tmp_path / "out" / "user_ie_extensions" / "cpu" / "cosh_kernel.hpp").read_text()
    assert 'm_mode = "\\U0001f600"' in hpp


def test_file_where_a_folder_must_be(tmp_path: Path, capsys) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "user_ie_extensions").write_text("a file")
    assert _new(tmp_path, _config()) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is a file where extgen needs a folder" in err[0]
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["user_ie_extensions"]


def test_write_failure_rolls_back(tmp_path: Path, capsys, monkeypatch) -> None:
    real, calls = generate_module.write_atomic, []

    def failing(path, write):
        calls.append(path)
        if len(calls) == 5:
            raise OSError(28, "No space left on device")
        real(path, write)

    monkeypatch.setattr(generate_module, "write_atomic", failing)
    (tmp_path / "out").mkdir()
    assert _new(tmp_path, _config()) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "No space left on device" in err[0]
    assert list((tmp_path / "out").iterdir()) == []


def test_errors_echo_values_on_one_line(tmp_path: Path, capsys) -> None:
    line = _refused(tmp_path, capsys, {**_config(), "col\nour": 1}, "'col\\nour': unknown key")
    assert line.count("'") >= 2
