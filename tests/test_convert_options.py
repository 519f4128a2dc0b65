"""MO flags change the IR the way the Model Optimizer did; checked by running it in OpenVINO."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import openvino as ov
import pytest
from onnx import TensorProto, helper

from converter.options import ConvertOptions, parse_input
from converter.pipeline import convert
from tests.conftest import make_model


def _run(xml: Path, *inputs: np.ndarray) -> dict[str, np.ndarray]:
    import openvino as ov

    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    result = compiled(list(inputs))
    return {min(p.get_names()): result[p] for p in compiled.outputs}


@pytest.fixture
def two_step(tmp_path: Path) -> Path:
    """x -> Relu (mid) -> Mul by w (y); a dynamic input shape."""
    w = np.array([1, 2, 3], np.float32).reshape(1, 3, 1, 1)
    model = make_model(
        [helper.make_node("Relu", ["x"], ["mid"], name="relu"),
         helper.make_node("Mul", ["mid", "w"], ["y"], name="mul")],
        [("x", TensorProto.FLOAT, ["N", 3, "H", "W"])],
        [("y", TensorProto.FLOAT, ["N", 3, "H", "W"])],
        {"w": w},
    )
    onnx.save(model, tmp_path / "two.onnx")
    return tmp_path / "two.onnx"


def test_input_shape_makes_the_input_static(two_step: Path, tmp_path: Path) -> None:
    xml = convert(ConvertOptions(two_step, output_dir=tmp_path, input_shape=[(1, 3, 4, 5)])).xml
    assert 'shape="1,3,4,5"' in xml.read_text()
    dynamic = convert(ConvertOptions(two_step, output_dir=tmp_path / "dyn")).xml
    assert 'shape="?,3,?,?"' in dynamic.read_text()
    x = np.random.default_rng(0).standard_normal((2, 3, 2, 2)).astype(np.float32)
    np.testing.assert_allclose(_run(dynamic, x)["y"], np.maximum(x, 0) * [[[[1]], [[2]], [[3]]]])


def test_output_cut_and_input_cut(two_step: Path, tmp_path: Path) -> None:
    x = np.random.default_rng(1).standard_normal((1, 3, 2, 2)).astype(np.float32)
    cut_out = convert(ConvertOptions(two_step, output_dir=tmp_path / "a", outputs=["mid"])).xml
    assert list(_run(cut_out, x)) == ["mid"]
    np.testing.assert_allclose(_run(cut_out, x)["mid"], np.maximum(x, 0))
    cut_in = convert(ConvertOptions(two_step, output_dir=tmp_path / "b",
                                    inputs=parse_input("mid[1,3,2,2]"))).xml
    assert "ReLU" not in cut_in.read_text()
    np.testing.assert_allclose(_run(cut_in, x)["y"], x * [[[[1]], [[2]], [[3]]]])


def test_mean_scale_reverse_channels(two_step: Path, tmp_path: Path) -> None:
    opts = ConvertOptions(two_step, output_dir=tmp_path, input_shape=[(1, 3, 2, 2)],
                          mean_values={None: [1.0, 2.0, 3.0]}, scale_values={None: [2.0, 4.0, 8.0]},
                          reverse_input_channels=True)
    x = np.random.default_rng(2).standard_normal((1, 3, 2, 2)).astype(np.float32) * 5
    pre = (x[:, ::-1] - np.array([1, 2, 3], np.float32).reshape(1, 3, 1, 1)) / np.array(
        [2, 4, 8], np.float32).reshape(1, 3, 1, 1)
    got = _run(convert(opts).xml, x)["y"]
    np.testing.assert_allclose(got, np.maximum(pre, 0) * [[[[1]], [[2]], [[3]]]], rtol=1e-6)


def test_compress_to_fp16_stores_half_weights(tmp_path: Path) -> None:
    w = np.random.default_rng(3).standard_normal((4, 4)).astype(np.float32)
    model = make_model([helper.make_node("MatMul", ["x", "w"], ["y"])],
                       [("x", TensorProto.FLOAT, [2, 4])], [("y", TensorProto.FLOAT, [2, 4])],
                       {"w": w})
    onnx.save(model, tmp_path / "mm.onnx")
    result = convert(ConvertOptions(tmp_path / "mm.onnx", output_dir=tmp_path,
                                    compress_to_fp16=True))
    text = result.xml.read_text()
    assert 'element_type="f16"' in text and 'name="decompression"' in text
    assert result.bin.stat().st_size == w.size * 2
    x = np.ones((2, 4), np.float32)
    expected = x @ w.astype(np.float16).astype(np.float32)
    np.testing.assert_allclose(_run(result.xml, x)["y"], expected, rtol=1e-6)


def test_identical_constants_are_stored_once(tmp_path: Path) -> None:
    c = np.arange(6, dtype=np.float32).reshape(2, 3)
    model = make_model([helper.make_node("Add", ["x", "a"], ["t"]),
                        helper.make_node("Max", ["t", "b"], ["y"])],
                       [("x", TensorProto.FLOAT, [2, 3])], [("y", TensorProto.FLOAT, [2, 3])],
                       {"a": c, "b": c.copy()})
    onnx.save(model, tmp_path / "dup.onnx")
    result = convert(ConvertOptions(tmp_path / "dup.onnx", output_dir=tmp_path))
    assert result.bin.stat().st_size == c.nbytes
    assert result.xml.read_text().count('offset="0"') == 2


def test_no_abbreviations_and_unknown_flags_point_at_the_subcommand(tmp_path, capsys) -> None:
    """`--scale 255` once silently meant --scale_values (it is MO's own --scale now); an
    abbreviation is unknown, and the error names the subcommand's --help."""
    from extgen.cli import main

    with pytest.raises(SystemExit) as err:
        main(["convert", "--input_model", str(tmp_path / "m.onnx"), "--mean=255"])
    assert err.value.code == 2
    line = capsys.readouterr().err.strip()
    assert line == ("extgen convert: error: unrecognized arguments: --mean=255 "
                    "(did you mean --mean_file?) (see 'extgen convert --help')")


def test_both_spellings_of_every_flag(relu_add_model, tmp_path, capsys) -> None:
    from extgen.cli import main

    ext = tmp_path / "ext"
    (ext / "ops").mkdir(parents=True)
    assert main(["convert", "--input-model", str(relu_add_model), "--output-dir",
                 str(tmp_path / "ir"), "--model-name=m", "--extension", str(ext)]) == 0
    assert (tmp_path / "ir" / "m.xml").is_file()
    assert main(["run", "--model", str(tmp_path / "ir" / "m.xml"), "--input", "random",
                 "--extensions", str(ext)]) == 0


@pytest.mark.parametrize("flag", [["--input_proto", "x.prototxt"], ["-k", "m.xml"],
                                  ["--input_symbol", "s.json"], ["--transformations_config", "t"]])
def test_a_flag_of_another_framework_is_refused(relu_add_model, tmp_path, capsys, flag) -> None:
    from extgen.cli import main

    code = main(["convert", "--input_model", str(relu_add_model), "--output_dir",
                 str(tmp_path / "ir"), *flag])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "is read as onnx; drop it" in err[0]
    assert not (tmp_path / "ir").exists()


def test_extensions_given_the_folder_extgen_new_wrote(relu_add_model, tmp_path, caplog) -> None:
    """`extgen new --output_dir ext` writes ext/user_mo_extensions/; `--extensions ext` finds it."""
    import logging

    from extgen.cli import main

    ops = tmp_path / "ext" / "user_mo_extensions" / "ops"
    ops.mkdir(parents=True)
    (ops / "marker.py").write_text("from converter.ops.op import Op\n\n"
                                   "class Marker(Op):\n    op = type = 'MarkerOp'\n")
    with caplog.at_level(logging.INFO):
        assert main(["convert", "--input_model", str(relu_add_model), "--output_dir",
                     str(tmp_path / "ir"), "--extensions", str(tmp_path / "ext")]) == 0
    assert "using" in caplog.text and "user_mo_extensions" in caplog.text


@pytest.mark.parametrize("command", ["convert", "run", "new", "check", "doctor", "schema"])
def test_version_on_every_subcommand(command: str, capsys) -> None:
    from extgen.cli import main

    with pytest.raises(SystemExit) as err:
        main([command, "--version"])
    assert err.value.code == 0 and capsys.readouterr().out.startswith("extgen ")


@pytest.mark.parametrize(("flags", "half"), [
    ([], True), (["--compress_to_fp16"], True), (["--compress_to_fp16=False"], False),
    (["--compress_to_fp16", "False"], False), (["--compress-to-fp16", "no"], False),
    (["--compress_to_fp16=1"], True), (["--compress_to_fp16", "YES"], True),
])
def test_compress_to_fp16_is_on_by_default_and_takes_booleans(tmp_path, flags, half) -> None:
    """MO 2023 and ovc compress by default; every boolean spelling MO took is accepted."""
    from extgen.cli import main

    w = np.random.default_rng(4).standard_normal((4, 4)).astype(np.float32)
    model = make_model([helper.make_node("MatMul", ["x", "w"], ["y"])],
                       [("x", TensorProto.FLOAT, [2, 4])], [("y", TensorProto.FLOAT, [2, 4])],
                       {"w": w})
    onnx.save(model, tmp_path / "mm.onnx")
    assert main(["convert", "--input_model", str(tmp_path / "mm.onnx"), "--output_dir",
                 str(tmp_path), *flags]) == 0
    assert (tmp_path / "mm.bin").stat().st_size == w.size * (2 if half else 4)
    assert ('element_type="f16"' in (tmp_path / "mm.xml").read_text()) is half


def test_a_constant_fp16_cannot_hold_stays_fp32_and_success_says_so(tmp_path, capsys) -> None:
    """y = (x + 1e6) * 1e-7 @ w: 1e6 is beyond f16's range (65504) and 1e-7 only a subnormal,
    so compressing either gave 0.0078 in OpenVINO where the answer is 0.1. As ovc does, the
    Add moves after the Multiply (x * 1e-7 + 0.1): 1e-7 stays f32, 0.1 and the matrix, which
    f16 holds, are compressed; the result is ovc's, and the success lines say what happened."""
    from extgen.cli import main

    big, tiny = np.full((1, 4), 1e6, np.float32), np.full((1, 4), 1e-7, np.float32)
    w = np.random.default_rng(5).standard_normal((4, 4)).astype(np.float32)
    model = make_model([helper.make_node("Add", ["x", "big"], ["a"]),
                        helper.make_node("Mul", ["a", "tiny"], ["b"]),
                        helper.make_node("MatMul", ["b", "w"], ["y"])],
                       [("x", TensorProto.FLOAT, [1, 4])], [("y", TensorProto.FLOAT, [1, 4])],
                       {"big": big, "tiny": tiny, "w": w})
    onnx.save(model, tmp_path / "range.onnx")
    assert main(["convert", "--input_model", str(tmp_path / "range.onnx"), "--output_dir",
                 str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert ("[ SUCCESS ] Weights stored as FP16: 2 constant(s); 1 that FP16 cannot hold kept "
            "FP32 (--compress_to_fp16=False keeps all FP32).") in out
    x = np.random.default_rng(6).standard_normal((1, 4)).astype(np.float32)
    half = np.float32(np.float16(0.1))
    want = (x * np.float32(1e-7) + half) @ w.astype(np.float16).astype(np.float32)
    np.testing.assert_allclose(_run(tmp_path / "range.xml", x)["y"], want, rtol=1e-5)
    ov.save_model(ov.convert_model(tmp_path / "range.onnx"), tmp_path / "ovc.xml")
    for xml in ("range.xml", "ovc.xml"):
        compiled = ov.Core().compile_model(str(tmp_path / xml), "CPU",
                                           {"INFERENCE_PRECISION_HINT": "f32"})
        np.testing.assert_allclose(compiled([x])[compiled.output(0)], want, rtol=1e-5)


def test_compress_to_fp16_rejects_a_non_boolean(relu_add_model, capsys) -> None:
    from extgen.cli import main

    with pytest.raises(SystemExit) as err:
        main(["convert", "--input_model", str(relu_add_model), "--compress_to_fp16=maybe"])
    assert err.value.code == 2
    assert "expected True or False, got 'maybe'" in capsys.readouterr().err


def _flatten_model(tmp_path: Path) -> Path:
    model = make_model([helper.make_node("Relu", ["x"], ["r"]),
                        helper.make_node("Flatten", ["r"], ["y"], axis=1)],
                       [("x", TensorProto.FLOAT, ["N", 1, 2, 2])],
                       [("y", TensorProto.FLOAT, ["N", 4])])
    onnx.save(model, tmp_path / "flat.onnx")
    return tmp_path / "flat.onnx"


@pytest.mark.parametrize("flag", [["--input", "x[1..4,1,2,2]"], ["--input_shape", "[1..4,1,2,2]"]])
def test_bounded_dimensions_are_kept_and_flatten_keeps_its_static_part(tmp_path, flag) -> None:
    """MO wrote `1..4` into the IR (not `?`), and Flatten on a dynamic batch gives [?,4]."""
    import openvino as ov

    from extgen.cli import main

    assert main(["convert", "--input_model", str(_flatten_model(tmp_path)), "--output_dir",
                 str(tmp_path), *flag]) == 0
    text = (tmp_path / "flat.xml").read_text()
    assert '<data shape="1..4,1,2,2" element_type="f32" />' in text
    model = ov.Core().read_model(str(tmp_path / "flat.xml"))
    assert str(model.inputs[0].get_partial_shape()) == "[1..4,1,2,2]"
    assert str(model.outputs[0].get_partial_shape()) == "[1..4,4]"
    x = np.random.default_rng(5).standard_normal((3, 1, 2, 2)).astype(np.float32)
    np.testing.assert_allclose(_run(tmp_path / "flat.xml", x)["y"], np.maximum(x, 0).reshape(3, 4))


def test_flatten_of_a_dynamic_batch_is_static_after_it(tmp_path) -> None:
    xml = convert(ConvertOptions(_flatten_model(tmp_path), output_dir=tmp_path)).xml
    result = xml.read_text().split('type="Result"')[1]
    assert "<dim>-1</dim>" in result and "<dim>4</dim>" in result


def test_a_malformed_range_is_one_line(relu_add_model, capsys) -> None:
    from extgen.cli import main

    code = main(["convert", "--input_model", str(relu_add_model), "--input_shape", "[4..1,3]"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "'4..1' is not a dimension range" in err[0]


@pytest.mark.parametrize("cut", [None, ["b", "d", "a"]])
def test_outputs_keep_the_model_s_order_in_openvino(tmp_path, cut) -> None:
    """OpenVINO numbers a model's outputs by their Result layers' ids: the Results come last in
    the order the model declares (or --output gives), as ovc orders them, not as computed."""
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Exp", ["a"], ["b"]),
             helper.make_node("Neg", ["b"], ["c"]), helper.make_node("Sigmoid", ["x"], ["d"])]
    model = make_model(nodes, [("x", TensorProto.FLOAT, [2])],
                       [(n, TensorProto.FLOAT, [2]) for n in ("c", "a", "d", "b")])
    onnx.save(model, tmp_path / "order.onnx")
    xml = convert(ConvertOptions(tmp_path / "order.onnx", output_dir=tmp_path,
                                 outputs=cut)).xml
    ours = ov.Core().read_model(str(xml))
    theirs = ov.convert_model(tmp_path / "order.onnx", output=cut)
    names = [[o.get_any_name() for o in m.outputs] for m in (ours, theirs)]
    assert names[0] == names[1] == (cut or ["c", "a", "d", "b"])
