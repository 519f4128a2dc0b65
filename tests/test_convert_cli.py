"""`extgen convert`: success output, and one clear line + exit 2 + nothing written on bad input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from extgen.cli import main
from tests.conftest import make_model


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["convert", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _no_output(folder: Path) -> bool:
    return not folder.exists() or not any(folder.iterdir())


def test_convert_writes_ir_that_openvino_runs(relu_add_model: Path, tmp_path: Path, capsys) -> None:
    import openvino as ov

    out = tmp_path / "ir"
    code, stdout, _ = _run(capsys, "--input_model", str(relu_add_model), "--output_dir", str(out))
    assert code == 0
    assert "XML file:" in stdout and "Total execution time:" in stdout
    assert "Memory consumed:" in stdout
    compiled = ov.Core().compile_model(str(out / "relu_add.xml"), "CPU")
    x = np.random.default_rng(0).standard_normal((1, 3, 4, 4)).astype(np.float32)
    y = compiled([x])[compiled.output("y")]
    np.testing.assert_allclose(y, np.maximum(x, 0) + np.arange(3).reshape(1, 3, 1, 1), rtol=1e-6)


def _assert_one_line_error(code: int, err: str, *needles: str) -> None:
    assert code == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    for needle in needles:
        assert needle in lines[0]


def test_missing_file(tmp_path: Path, capsys) -> None:
    code, _, err = _run(capsys, "--input_model", str(tmp_path / "nope.onnx"),
                        "-o", str(tmp_path / "o"))
    _assert_one_line_error(code, err, "nope.onnx", "no such model file")
    assert _no_output(tmp_path / "o")


@pytest.mark.parametrize("cut", [0.5, 0.9, 7])
def test_truncated_or_corrupt_model(relu_add_model: Path, tmp_path: Path, capsys, cut) -> None:
    data = relu_add_model.read_bytes()
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(data[: int(len(data) * cut)] if cut < 1 else b"\x08" * cut + b"garbage\xff")
    code, _, err = _run(capsys, "--input_model", str(bad), "-o", str(tmp_path / "o"))
    _assert_one_line_error(code, err, "bad.onnx")
    assert _no_output(tmp_path / "o")


def test_unknown_ops_listed_with_scaffold_command(tmp_path: Path, capsys) -> None:
    model = make_model(
        [helper.make_node("MyOp", ["x"], ["a"], name="first", domain="my.domain"),
         helper.make_node("Frobnicate", ["a"], ["b"], name="second"),
         helper.make_node("Frobnicate", ["b"], ["y"], name="third")],
        [("x", TensorProto.FLOAT, [2])], [("y", TensorProto.FLOAT, [2])], domains=["my.domain"],
    )
    path = tmp_path / "custom.onnx"
    onnx.save(model, path)
    code, _, err = _run(capsys, "--input_model", str(path), "-o", str(tmp_path / "o"))
    _assert_one_line_error(
        code, err, "my.domain::MyOp (node first)", "Frobnicate (nodes second, third)", "extgen new"
    )
    assert _no_output(tmp_path / "o")


@pytest.mark.parametrize("shape", ["[1,3,x]", "1,3;4", "[1,3],[2", "[]]"])
def test_malformed_input_shape(relu_add_model: Path, tmp_path: Path, capsys, shape: str) -> None:
    code, _, err = _run(capsys, "--input_model", str(relu_add_model), "--input_shape", shape,
                        "-o", str(tmp_path / "o"))
    _assert_one_line_error(code, err, "--input_shape")
    assert _no_output(tmp_path / "o")


def test_unwritable_output_dir(relu_add_model: Path, tmp_path: Path, capsys) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("not a folder")
    code, _, err = _run(capsys, "--input_model", str(relu_add_model), "-o", str(blocker / "ir"))
    _assert_one_line_error(code, err, "--output_dir")


def test_failed_emit_leaves_nothing(relu_add_model: Path, tmp_path: Path, monkeypatch) -> None:
    from converter.ir import writer as emit
    from converter.options import ConvertOptions
    from converter.pipeline import convert

    def broken(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(emit, "build_xml", broken)
    out = tmp_path / "ir"
    with pytest.raises(Exception, match="No space left"):
        convert(ConvertOptions(relu_add_model, output_dir=out))
    assert not any(out.iterdir())


def test_usage_error_is_one_line(capsys) -> None:
    assert main(["convert"]) == 2  # no model (positional, as ovc, or --input_model)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no model given" in err[0]


def test_external_data_beside_the_model_loads(tmp_path: Path) -> None:
    import openvino as ov

    from converter.options import ConvertOptions
    from converter.pipeline import convert

    w = np.arange(4096, dtype=np.float32).reshape(64, 64) / 4096
    model = make_model([helper.make_node("MatMul", ["x", "w"], ["y"])],
                       [("x", TensorProto.FLOAT, [1, 64])], [("y", TensorProto.FLOAT, [1, 64])],
                       {"w": w})
    onnx.save(model, tmp_path / "ext.onnx", save_as_external_data=True, location="ext.weights",
              size_threshold=0)
    xml = convert(ConvertOptions(tmp_path / "ext.onnx", output_dir=tmp_path / "ir")).xml
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    x = np.ones((1, 64), np.float32)
    np.testing.assert_allclose(compiled([x])[compiled.output("y")], x @ w, rtol=1e-5)


def test_external_data_outside_the_folder_is_refused(tmp_path: Path, capsys) -> None:
    w = np.ones((8, 8), np.float32)
    model = make_model([helper.make_node("MatMul", ["x", "w"], ["y"])],
                       [("x", TensorProto.FLOAT, [1, 8])], [("y", TensorProto.FLOAT, [1, 8])],
                       {"w": w})
    (tmp_path / "m").mkdir()
    onnx.save(model, tmp_path / "m" / "m.onnx", save_as_external_data=True, location="w.bin",
              size_threshold=0)
    proto = onnx.load(tmp_path / "m" / "m.onnx", load_external_data=False)
    for entry in proto.graph.initializer[0].external_data:
        if entry.key == "location":
            entry.value = "../../etc/passwd"
    onnx.save(proto, tmp_path / "m" / "evil.onnx")
    code, _, err = _run(capsys, "--input_model", str(tmp_path / "m" / "evil.onnx"),
                        "-o", str(tmp_path / "o"))
    _assert_one_line_error(code, err, "outside the model's folder")
    assert _no_output(tmp_path / "o")


def test_ir_files_get_the_usual_mode(relu_add_model: Path, tmp_path: Path) -> None:
    import os

    from converter.options import ConvertOptions
    from converter.pipeline import convert

    old = os.umask(0o022)
    try:
        result = convert(ConvertOptions(relu_add_model, output_dir=tmp_path / "ir"))
    finally:
        os.umask(old)
    assert (result.xml.stat().st_mode & 0o777) == 0o644
    assert (result.bin.stat().st_mode & 0o777) == 0o644


def test_tensor_names_with_commas_and_backslashes_round_trip(tmp_path: Path) -> None:
    from converter.options import ConvertOptions
    from converter.pipeline import convert
    from converter.runtime.ir_reader import read_ir

    model = make_model([helper.make_node("Relu", ["in,put"], ["a\\b,c"])],
                       [("in,put", TensorProto.FLOAT, [2])], [("a\\b,c", TensorProto.FLOAT, [2])])
    onnx.save(model, tmp_path / "names.onnx")
    ir = read_ir(convert(ConvertOptions(tmp_path / "names.onnx", output_dir=tmp_path / "ir")).xml)
    names = sorted(n for layer in ir.layers.values() for p in layer.outputs for n in p.names)
    assert names == ["a\\b,c", "in,put"]


def test_a_closed_pipe_stops_quietly(relu_add_model: Path, tmp_path: Path) -> None:
    """`extgen convert ... | head -1`: the reader is gone before extgen prints; no traceback."""
    import subprocess
    import sys

    code = ("import sys; sys.argv = ['extgen', 'convert',"
            f" '--input_model', {str(relu_add_model)!r},"
            f" '--output_dir', {str(tmp_path / 'ir')!r}]\n"
            "from extgen.cli import main; sys.exit(main())")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    proc.stdout.close()  # as `head` does once it has its line
    err = proc.stderr.read()
    assert proc.wait() == 141 and err == ""


def test_memory_consumed_is_the_conversions_own(relu_add_model: Path, tmp_path: Path) -> None:
    """Launched from a process holding 400 MiB, a small conversion reports its own peak:
    ru_maxrss would carry the parent's across fork and exec."""
    import re
    import subprocess
    import sys

    from tests.child_env import child_env

    held = np.ones(400 * 2**20 // 8)  # the parent's peak now exceeds 400 MiB
    proc = subprocess.run([sys.executable, "-m", "extgen", "convert", str(relu_add_model),
                           "-o", str(tmp_path)], capture_output=True, text=True,
                          env=child_env(), check=True)
    peak = float(re.search(r"Memory consumed: (\d+) MB", proc.stdout).group(1))
    assert held.nbytes >= 400 * 2**20 and peak < 300
