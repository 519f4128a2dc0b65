"""MO's and ovc's flags through `extgen convert`, each checked against the IR MO's documented
meaning gives (run in OpenVINO and in the shim)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from extgen.cli import main
from tests.conftest import make_model

W = np.array([1, 2, 3], np.float32).reshape(1, 3, 1, 1)


@pytest.fixture
def model(tmp_path: Path) -> Path:
    """y = relu(x) * w over a dynamic NCHW input x."""
    onnx.save(make_model(
        [helper.make_node("Relu", ["x"], ["mid"]), helper.make_node("Mul", ["mid", "w"], ["y"])],
        [("x", TensorProto.FLOAT, ["N", 3, "H", "W"])],
        [("y", TensorProto.FLOAT, ["N", 3, "H", "W"])], {"w": W}), tmp_path / "two.onnx")
    return tmp_path / "two.onnx"


def _convert(model: Path, *flags: str) -> Path:
    out = model.parent / "ir"
    assert main(["convert", str(model), "-o", str(out), *flags]) == 0
    return out / "two.xml"


def _ov(xml: Path, x: np.ndarray):
    import openvino as ov

    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    return compiled.inputs[0], compiled.outputs[0], compiled([x])[0]


def _x(*shape: int) -> np.ndarray:
    return np.random.default_rng(7).standard_normal(shape).astype(np.float32)


def test_positional_model_output_model_and_silent(model, capsys) -> None:
    xml = model.parent / "out" / "net.xml"
    assert main(["convert", str(model), "--output_model", str(xml), "--silent"]) == 0
    assert xml.is_file() and xml.with_suffix(".bin").is_file()
    assert capsys.readouterr().out == ""


def test_scale_divides_every_input_and_excludes_scale_values(model, capsys) -> None:
    x = _x(1, 3, 2, 2)
    _, _, got = _ov(_convert(model, "--scale", "4", "--input_shape", "[1,3,2,2]"), x)
    np.testing.assert_allclose(got, np.maximum(x / 4, 0) * W, rtol=1e-6)
    code = main(["convert", str(model), "-s", "4", "--scale_values", "[1,2,3]"])
    assert code == 2 and "both --scale and --scale_values" in capsys.readouterr().err


def test_batch_sets_the_n_dimension(model, capsys) -> None:
    inp, _, got = _ov(_convert(model, "-b", "2", "--layout", "nchw"), _x(2, 3, 4, 4))
    assert str(inp.get_partial_shape()) == "[2,3,?,?]"
    code = main(["convert", str(model), "--batch", "2", "--input_shape", "[1,3,2,2]"])
    assert code == 2 and "both --batch and --input_shape" in capsys.readouterr().err


def test_layout_is_metadata_and_source_to_target_inserts_a_transpose(model) -> None:
    import openvino as ov

    xml = _convert(model, "--input_shape", "[1,3,2,4]", "--layout", "x(nchw->nhwc)",
                   "--source_layout", "y(nchw)", "--target_layout", "y(nhwc)")
    inp, out, got = _ov(xml, _x(1, 3, 2, 4).transpose(0, 2, 3, 1))
    assert str(inp.get_partial_shape()) == "[1,2,4,3]"
    assert ov.layout_helpers.get_layout(inp).to_string() == "[N,H,W,C]"
    assert ov.layout_helpers.get_layout(out).to_string() == "[N,H,W,C]"
    expected = (np.maximum(_x(1, 3, 2, 4), 0) * W).transpose(0, 2, 3, 1)
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    assert main(["run", "--model", str(xml), "--input", "random"]) == 0


def test_transform_low_latency_is_a_no_op_without_loops_and_unknown_names_refused(model, capsys):
    assert _convert(model, "--transform", "LowLatency2[use_const_initializer=False]").is_file()
    for name in ("Foo", "MakeStateful", "MakeStateful[param_res_names={'x':1}]"):
        code = main(["convert", str(model), "-o", str(model.parent / "o"), "--transform", name])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and "--transform" in err[0]


def _stateful(folder: Path, dims: list) -> Path:
    """s_out = x + s_in, y = relu(s_out): with s_in fed by s_out, y sums every x so far."""
    onnx.save(make_model(
        [helper.make_node("Add", ["x", "s_in"], ["s_out"]),
         helper.make_node("Relu", ["s_out"], ["y"])],
        [("x", TensorProto.FLOAT, dims), ("s_in", TensorProto.FLOAT, dims)],
        [("s_out", TensorProto.FLOAT, dims), ("y", TensorProto.FLOAT, dims)]),
        folder / "two.onnx")
    return folder / "two.onnx"


STATE = "MakeStateful[param_res_names={'s_in':'s_out'}]"


def test_make_stateful_carries_the_pair_as_a_variable(tmp_path) -> None:
    import openvino as ov

    from converter.runtime.engines import open_engine

    xml = _convert(_stateful(tmp_path, [1, 3]), "--transform", STATE)
    request = ov.Core().compile_model(str(xml), "CPU").create_infer_request()
    shim = open_engine("shim", xml, "CPU")
    xs = [_x(1, 3) * (k + 1) for k in range(3)]
    for k, x in enumerate(xs):
        want = np.maximum(np.sum(xs[:k + 1], axis=0), 0)
        for got in (request.infer({"x": x})[0], shim.run({"x": x})["y"]):
            np.testing.assert_allclose(got, want, rtol=1e-6)
    assert [s.name for s in request.query_state()] == ["s_ins_out"]  # OpenVINO's name
    assert [p.any_name for p in request.model_inputs] == ["x"]


def test_make_stateful_names_the_missing_input_or_dynamic_shape(tmp_path, capsys) -> None:
    model = _stateful(tmp_path, [1, 3])
    for pairs, problem in (("{'s':'s_out'}", "no input named 's'; the inputs are x, s_in"),
                           ("{'s_in':'z'}", "no output named 'z'; the outputs are s_out, y")):
        code = main(["convert", str(model), "-o", str(tmp_path / "o"), "--transform",
                     f"MakeStateful[param_res_names={pairs}]"])
        assert code == 2 and problem in capsys.readouterr().err
    model = _stateful(tmp_path, ["N", 3])
    assert main(["convert", str(model), "-o", str(tmp_path / "o"), "--transform", STATE]) == 2
    assert "'s_in' has a dynamic shape; give it one with --input_shape" in capsys.readouterr().err
    _convert(model, "--transform", STATE, "--input", "x[2,3],s_in[2,3]")


def test_pruning_drops_zero_channels_and_keeps_the_outputs(tmp_path) -> None:
    """conv(3->4) -> relu -> conv(4->2): channels 1 and 3 have zero weights; 1 has a bias."""
    from converter.ir.reader import read_ir
    from converter.runtime.engines import open_engine

    rng = np.random.default_rng(0)
    w1 = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    w1[[1, 3]] = 0
    w2 = rng.standard_normal((2, 4, 1, 1)).astype(np.float32)
    onnx.save(make_model(
        [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c1"], ["r"]), helper.make_node("Conv", ["r", "w2"], ["y"])],
        [("x", TensorProto.FLOAT, [1, 3, 8, 8])], [("y", TensorProto.FLOAT, [1, 2, 8, 8])],
        {"w1": w1, "b1": np.array([0.5, 0.7, -0.2, 0], np.float32), "w2": w2}),
        tmp_path / "two.onnx")
    whole = _ov(_convert(tmp_path / "two.onnx", "--compress_to_fp16=False"), _x(1, 3, 8, 8))[2]
    xml = _convert(tmp_path / "two.onnx", "--transform", "Pruning", "--compress_to_fp16=False")
    shapes = [lay.value.shape for lay in read_ir(xml).layers.values() if lay.type == "Const"]
    assert sorted(shapes) == [(1, 3, 1, 1), (2, 3, 1, 1), (3, 3, 3, 3)]
    for got in (_ov(xml, _x(1, 3, 8, 8))[2],
                open_engine("shim", xml, "CPU").run({"x": _x(1, 3, 8, 8)})["y"]):
        np.testing.assert_allclose(got, whole, rtol=1e-5, atol=1e-5)


def test_freeze_placeholder_with_value(tmp_path) -> None:
    onnx.save(make_model([helper.make_node("Add", ["x", "b"], ["y"])],
                         [("x", TensorProto.FLOAT, [2]), ("b", TensorProto.FLOAT, [2])],
                         [("y", TensorProto.FLOAT, [2])]), tmp_path / "two.onnx")
    xml = _convert(tmp_path / "two.onnx", "--freeze_placeholder_with_value", "b->[1,2]")
    _, _, got = _ov(xml, np.array([10, 20], np.float32))
    np.testing.assert_array_equal(got, [11, 22])


def test_progress_and_stream_output(model, capsys) -> None:
    _convert(model, "--progress", "--stream_output")
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("Progress:")]
    assert len(lines) == 7 and lines[-1].startswith("Progress: [....................] 100.00%")


def test_verbose_logs_the_phases(model) -> None:
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-m", "extgen", "convert", str(model), "--verbose",
                           "-o", str(model.parent / "v")], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(root)})
    assert done.returncode == 0 and "[ INFO ] Converting: infer" in done.stderr


@pytest.mark.parametrize("flag", [["--input_model_is_text"], ["--legacy_mxnet_model"],
                                  ["--disable_omitting_optional"], ["--k", "m.xml"],
                                  ["--tensorflow_custom_operations_config_update", "c.json"],
                                  ["--nd_prefix_name", "a"], ["--save_params_from_nd"],
                                  ["--enable_ssd_gluoncv"]])
def test_framework_flags_are_refused_on_onnx(model, capsys, flag) -> None:
    code = main(["convert", str(model), *flag])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "is read as onnx; drop it" in err[0]


@pytest.mark.parametrize("flag", [["--mean_file", "missing.binaryproto"]])
def test_missing_files_are_one_line(model, capsys, flag) -> None:
    try:
        code = main(["convert", str(model), *flag])
    except SystemExit as err:  # argparse: the named file does not exist
        code = err.code
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and ("not supported" in err[0] or "no such" in err[0])


def test_a_library_that_is_missing_or_no_extgen_library_is_one_line(model, capsys) -> None:
    """(tests/generator/test_cpu_target.py converts with a real one)"""
    lib = model.parent / "libuser_cpu_extension.so"
    assert main(["convert", str(model), "--extension", str(lib)]) == 2
    assert "no such library (build the generated" in capsys.readouterr().err
    lib.write_bytes(b"\x7fELF")
    assert main(["convert", str(model), "--extension", str(lib)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not an extgen CPU extension library" in err[0]
