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


def test_transform_low_latency_is_a_no_op_without_loops_and_the_rest_refused(model, capsys):
    assert _convert(model, "--transform", "LowLatency2[use_const_initializer=False]").is_file()
    for name in ("MakeStateful", "Pruning", "Foo"):
        code = main(["convert", str(model), "-o", str(model.parent / name), "--transform", name])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and f"--transform {name}" in err[0]


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
                                  ["--disable_omitting_optional"], ["--k", "m.xml"]])
def test_framework_flags_are_refused_on_onnx(model, capsys, flag) -> None:
    code = main(["convert", str(model), *flag])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "is read as onnx; drop it" in err[0]


@pytest.mark.parametrize("flag", [["--nd_prefix_name", "a"], ["--enable_ssd_gluoncv"],
                                  ["--mean_file", "missing.binaryproto"]])
def test_refused_and_missing_files_are_one_line(model, capsys, flag) -> None:
    try:
        code = main(["convert", str(model), *flag])
    except SystemExit as err:  # argparse: the named file does not exist
        code = err.code
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and ("not supported" in err[0] or "no such" in err[0])


def test_a_compiled_extension_given_to_convert_is_one_line(model, capsys) -> None:
    lib = model.parent / "libuser_cpu_extension.so"
    lib.write_bytes(b"\x7fELF")
    assert main(["convert", str(model), "--extension", str(lib)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is a compiled extension" in err[0] and "extgen run" in err[0]
