"""`extgen new --config`: bad configs give one line naming the field (exit 2, nothing written),
the original extgen's keys map over, existing files are safe, `extgen schema` prints the schema."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from extgen.cli import main
from tests.conftest import make_model

GOOD = {"targets": ["mo-onnx-ext", "mo-op"],
        "ops": [{"name": "Cosh", "attributes": [{"name": "scale", "type": "float", "default": 1.0}],
                 "expression": "scale * (exp(x) + exp(-x)) / 2"}]}


def _run_config(tmp_path: Path, config, *extra: str) -> int:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config) if not isinstance(config, str) else config)
    return main(["new", "--config", str(path), "--output_dir", str(tmp_path / "out"), *extra])


def _with(op_changes: dict) -> dict:
    config = json.loads(json.dumps(GOOD))
    config["ops"][0].update(op_changes)
    return config


def _kernels(op_changes: dict) -> dict:
    """GOOD with the GPU and VPU targets: their XML fields are checked by the runtime's parser."""
    return {**_with(op_changes), "targets": ["ie-gpu-ext", "ie-vpu-ext"]}


@pytest.mark.parametrize(("config", "needle"), [
    ({**GOOD, "colour": "blue"}, "colour: unknown key"),
    (_with({"attributes": [{"name": "scale", "type": "float", "default": "big"}]}),
     "ops.0.attributes.0"),
    (_with({"name": "2fast"}), "ops.0.name: '2fast' is not an identifier"),
    (_with({"name": "class"}), "ops.0.name: 'class' is a keyword of Python"),
    (_with({"name": "virtual"}), "ops.0.name: 'virtual' is a keyword of C++"),
    (_with({"name": "../evil"}), "ops.0.name: '../evil' must not contain path separators"),
    (_with({"attributes": [{"name": "a", "type": "int"}, {"name": "a", "type": "float"}]}),
     "'a' is used twice"),
    (_with({"expression": "exp(z)"}), "unknown name 'z'"),
    (_with({"framework_types": {"onnx": "../../x"}}), "framework op type"),
    ("{not json", "config.json:1: not valid JSON"),
    (_kernels({"gpu": {"global_work_size": "B*F*import(os)"}}), "ops.0.gpu.global_work_size: "),
    (_kernels({"gpu": {"local_work_size": "1,1,1,1"}}), "ops.0.gpu.local_work_size: "),
    (_kernels({"gpu": {"format": "XYZ"}}), "ops.0.gpu.format: "),
    (_kernels({"vpu": {"global_work_size": "__import__('os')"}}), "ops.0.vpu.global_work_size: "),
    (_kernels({"vpu": {"scalars": [{"name": "w", "source": "I.Q"}]}}), "source 'I.Q' is neither"),
    (_kernels({"vpu": {"scalars": [{"name": "w", "type": "half", "source": "I.X"}]}}),
     "ops.0.vpu.scalars.0.type: "),
    (_kernels({"vpu": {"scalars": [{"name": "w", "source": "O.X", "port_index": 1}]}}),
     "vpu.scalars.0.port_index: source 'O.X' refers to output 1, the op has 1"),
    (_kernels({"vpu": {"scalars": [{"name": "w", "source": "I.X", "port_index": -1}]}}),
     "port_index -1 is negative"),
    (_kernels({"vpu": {"scalars": [{"name": "kernel", "source": "I.X"}]}}),
     "vpu.scalars.0.name: 'kernel' is a keyword of OpenCL C"),
    (_kernels({"vpu": {"scalars": [{"name": "w", "source": "I.X", "colour": 1}]}}),
     "ops.0.vpu.scalars.0.colour: unknown key"),
])
def test_bad_config_is_one_line_and_writes_nothing(tmp_path: Path, capsys, config, needle) -> None:
    code = _run_config(tmp_path, config)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert needle in err[0]
    assert not (tmp_path / "out").exists()


def test_existing_files_are_kept_without_force(tmp_path: Path, capsys) -> None:
    assert _run_config(tmp_path, GOOD) == 0
    op_file = tmp_path / "out" / "user_mo_extensions" / "ops" / "cosh.py"
    op_file.write_text("# my edits\n")
    capsys.readouterr()
    code = _run_config(tmp_path, _with({"expression": "x * 2"}))
    err = capsys.readouterr().err
    assert code == 2 and "cosh.py" in err and "--force" in err
    assert op_file.read_text() == "# my edits\n"
    assert _run_config(tmp_path, GOOD, "--force") == 0
    assert "fn.exp" in op_file.read_text()


def test_original_extgen_keys_tf_cosh_flow(tmp_path: Path, capsys) -> None:
    """The original tool's tutorial (TF cosh: --mo-tf-ext --mo-op --ie-cpu-ext --ie-gpu-ext) in
    silent mode: `extgen config.json`, with the original keys."""
    legacy = {
        "mo_tf_extractor": {"op": "Cosh", "op_class_name": "Cosh", "all_copy": False,
                            "params": [{"old_name": "T", "new_name": "elem_type", "type": "type"}]},
        "mo_op": {"op": "Cosh", "change_shape": False, "has_infer": False, "pythonic": False,
                  "supported_attrs": ["alpha"], "internal_attrs": ["elem_type"]},
        "ie_op": {"op": "Cosh", "plugin": ["cpu", "cldnn"],
                  "params": [{"name": "alpha", "type": "float", "default": 0.5}]},
        "mo_mxnet_extractor": {"op": "cosh", "allCopy": True, "custom": False},
    }
    path = tmp_path / "config.extgen.json"
    path.write_text(json.dumps(legacy))
    from extgen.generator.generate import load_config

    config = load_config(path)
    assert config.targets == ["mo-tf-ext", "mo-mxnet-ext", "mo-op", "ie-cpu-ext", "ie-gpu-ext"]
    op = config.ops[0]
    assert op.framework_type("mxnet") == "cosh" and not op.tf.parse_all
    attrs = {a.name: a for a in op.attributes}
    assert attrs["alpha"].default == 0.5 and attrs["alpha"].type == "float"
    assert attrs["elem_type"].framework_name == "T" and not attrs["elem_type"].in_ir


def test_original_values_as_the_original_extgen_wrote_them(tmp_path, capsys, monkeypatch) -> None:
    """String defaults under the original type names (listint, listfloat, ...), in silent mode
    (`extgen config.json`), and an editor's "$schema" key."""
    params = [{"name": n, "type": t, "default": d} for n, t, d in (
        ("alpha", "float", "1.0"), ("count", "int", "3"), ("on", "bool", "true"),
        ("axes", "listint", "1,2"), ("ratios", "listfloat", "[0.5, 2]"), ("mode", "string", "x"))]
    legacy = {"$schema": "extgen-config.schema.json",
              "mo_op": {"op": "Cosh", "supported_attrs": [p["name"] for p in params]},
              "ie_op": {"op": "Cosh", "plugin": "cpu", "params": params}}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(legacy))
    from extgen.generator.generate import load_config

    attrs = {a.name: (a.type, a.default) for a in load_config(path).ops[0].attributes}
    assert attrs == {"alpha": ("float", 1.0), "count": ("int", 3), "on": ("bool", True),
                     "axes": ("int_list", [1, 2]), "ratios": ("float_list", [0.5, 2.0]),
                     "mode": ("string", "x")}
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.chdir(out)
    assert main([str(path)]) == 0  # silent mode
    assert (out / "user_mo_extensions" / "ops" / "cosh.py").is_file()
    params[0]["default"] = "fast"
    path.write_text(json.dumps(legacy))
    assert main([str(path)]) == 2
    assert "param alpha.default: must be a float" in capsys.readouterr().err


def test_generated_onnx_extension_converts_and_runs(tmp_path: Path) -> None:
    assert _run_config(tmp_path, _with({"framework_types": {"onnx": "my.domain::Cosh"}})) == 0
    model = make_model(
        [helper.make_node("Cosh", ["x"], ["y"], domain="my.domain", scale=2.0)],
        [("x", TensorProto.FLOAT, [2, 3])], [("y", TensorProto.FLOAT, [2, 3])],
        domains=["my.domain"],
    )
    onnx.save(model, tmp_path / "m.onnx")
    from converter.options import ConvertOptions
    from converter.pipeline import convert
    from converter.runtime.engines import open_engine

    ext = tmp_path / "out" / "user_mo_extensions"
    options = ConvertOptions(tmp_path / "m.onnx", output_dir=tmp_path / "ir", extensions=[ext])
    xml = convert(options).xml
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    y = open_engine("shim", xml, "CPU", extensions=[ext]).run({"x": x})["y"]
    np.testing.assert_allclose(y, 2 * np.cosh(x), rtol=1e-6)


def test_schema_lists_the_fields(capsys) -> None:
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    op = schema["$defs"]["OpConfig"]["properties"]
    assert {"name", "expression", "attributes", "framework_types"} <= set(op)


def test_user_cookiecutter_template(tmp_path: Path, capsys) -> None:
    template = Path(__file__).parent / "fixtures" / "cc_template"
    assert _run_config(tmp_path, GOOD, "--template-dir", str(template)) == 0
    text = (tmp_path / "out" / "cosh_plugin" / "README.md").read_text()
    assert "# Cosh (extension), from Cosh" in text
    assert "math: scale * (exp(x) + exp(-x)) / 2" in text and "- scale: float = 1.0" in text
    capsys.readouterr()
    assert _run_config(tmp_path, GOOD, "--template-dir", str(template)) == 2  # exists: no overwrite
    assert "--force" in capsys.readouterr().err


def test_original_tutorial_flow_tf_cosh(tmp_path: Path, monkeypatch, capsys) -> None:
    """The original tutorial: `extgen new --mo-tf-ext --mo-op --ie-cpu-ext --ie-gpu-ext` for a TF
    Cosh layer (silent mode with the original keys), then convert a TF graph holding it."""
    from converter.front.tf.writer import GraphBuilder

    legacy = {"mo_tf_extractor": {"op": "Cosh", "all_copy": True},
              "mo_op": {"op": "Cosh", "change_shape": False},
              "ie_op": {"op": "Cosh", "plugin": ["cpu", "cldnn"], "params": []}}
    (tmp_path / "config.json").write_text(json.dumps(legacy))
    monkeypatch.chdir(tmp_path)
    assert main(["config.json"]) == 0  # silent mode: extgen FILE.json
    out = capsys.readouterr().out
    for part in ("user_mo_extensions/front/tf/cosh_ext.py", "user_mo_extensions/ops/cosh.py",
                 "user_ie_extensions/cpu/cosh_op.cpp", "user_ie_extensions/gpu/cosh_kernel.cl",
                 "user_ie_extensions/gpu/cosh_kernel.xml"):
        assert part in out and (tmp_path / part).is_file()
    assert main(["new", "--mo-tf-ext", "--mo-op", "--ie-cpu-ext", "--ie-gpu-ext", "--config",
                 "config.json"]) == 0  # the same with the original flags: identical files
    assert "overwrite" not in capsys.readouterr().out
    g = GraphBuilder()
    g.node("Cosh", "ModCosh/cosh/Cosh", [g.placeholder("x", [1, 4])], T=np.dtype(np.float32))
    g.save(tmp_path / "cosh.pb")
    assert main(["convert", "--input_model", "cosh.pb", "--extensions", "user_mo_extensions",
                 "--output_dir", "ir"]) == 0
    assert 'type="Cosh" version="extension"' in (tmp_path / "ir" / "cosh.xml").read_text()


@pytest.mark.parametrize(("config", "where"), [
    ({"targets": GOOD["targets"], "ops": [{"name": "Cosh", "atributes": []}]},
     "ops.0.atributes: unknown key; did you mean 'attributes'?"),
    ({"target": ["mo-op"], "ops": GOOD["ops"]}, "target: unknown key; did you mean 'targets'?"),
    (_with({"attributes": [{"name": "scale", "type": "float", "defualt": 1.0}]}),
     "ops.0.attributes.0.defualt: unknown key; did you mean 'default'?"),
    # the key meant is then missing too: the unknown key is the one named
    ({"ops": [{"nmae": "Cosh"}]}, "ops.0.nmae: unknown key; did you mean 'name'?"),
    (_with({"Expression": "x * 2"}), "ops.0.Expression: unknown key; did you mean 'expression'?"),
])
def test_a_misspelled_key_is_named_with_its_line_and_the_key_meant(
        tmp_path: Path, capsys, config: dict, where: str) -> None:
    text = json.dumps(config, indent=1)
    key = where.split(":")[0].split(".")[-1]
    lines = [n for n, line in enumerate(text.splitlines(), 1) if f'"{key}":' in line]
    code = _run_config(tmp_path, text)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    path = tmp_path / "config.json"
    assert f"{path}:{lines[0]}: {where}" in err[0], err[0]
    assert not (tmp_path / "out").exists()


def test_no_line_for_a_key_the_file_holds_twice(tmp_path: Path, capsys) -> None:
    config = {"ops": [{"name": "A", "nmae": "B"}, {"name": "C", "nmae": "D"}]}
    assert _run_config(tmp_path, json.dumps(config, indent=1)) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'config.json'}: ops.0.nmae: unknown key; did you mean 'name'?" in err
