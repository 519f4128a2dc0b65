"""Conversions that used to print SUCCESS for IR OpenVINO refuses: one error line, exit 2."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from tests.conftest import make_model
from tests.front.test_onnx_errors import conv_model, convert_error


@pytest.fixture
def conv_path(tmp_path: Path) -> Path:
    path = tmp_path / "conv.onnx"
    onnx.save(conv_model(), path)
    return path


@pytest.mark.parametrize(("flags", "needles"), [
    (("--input_shape", "[1,3,32]"), ("node 'conv' (Convolution)", "data rank 3", "--input_shape")),
    (("--input", "x[1,4,32,32]"), ("node 'conv'", "4 channels", "filters take 3", "--input")),
    (("--input", "x[1,3,32,32]{f16}"), ("node 'conv'", "float16 vs float32", "--input")),
    (("--input", "x[1,3,32,32]{i32}"), ("node 'conv'", "int32 vs float32", "--input")),
    (("--mean_values", "img[1,2,3]"), ("--mean_values 'img': the model has no input",
                                       "its inputs: x")),
    (("--scale_values", "img[1,2,3]"), ("--scale_values 'img': the model has no input",
                                        "its inputs: x")),
], ids=["rank", "channels", "f16", "i32", "mean-name", "scale-name"])
def test_flags_that_break_the_model(conv_path: Path, capsys, flags, needles) -> None:
    line = convert_error(capsys, conv_path, *flags)
    for needle in needles:
        assert needle in line
    assert not (conv_path.parent / "o").exists()


def test_the_same_flags_that_fit_convert(conv_path: Path, capsys) -> None:
    from extgen.cli import main

    assert main(["convert", "--input_model", str(conv_path), "-o", str(conv_path.parent / "o"),
                 "--input", "x[2,3,16,16]", "--mean_values", "x[1,2,3]"]) == 0


def test_matmul_with_incompatible_inner_dims(tmp_path: Path, capsys) -> None:
    model = make_model(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
        [("x", TensorProto.FLOAT, [2, 3])], [("y", TensorProto.FLOAT, None)],
        {"w": np.ones((2, 3), np.float32)},
    )
    onnx.save(model, tmp_path / "mm.onnx")
    line = convert_error(capsys, tmp_path / "mm.onnx")
    assert "node 'mm' (MatMul): inner dimensions differ: [2, 3] x [2, 3]" in line


def test_constant_gather_index_out_of_range(tmp_path: Path, capsys) -> None:
    model = make_model(
        [helper.make_node("Gather", ["c", "i"], ["g"], name="gather", axis=0),
         helper.make_node("Add", ["x", "g"], ["y"], name="add")],
        [("x", TensorProto.FLOAT, [3])], [("y", TensorProto.FLOAT, None)],
        {"c": np.ones((2, 3), np.float32), "i": np.array(99, np.int64)},
    )
    onnx.save(model, tmp_path / "g.onnx")
    line = convert_error(capsys, tmp_path / "g.onnx")
    assert "node 'gather' (Gather): constant index 99 is out of range for axis 0 of size 2" in line


@pytest.mark.slow
def test_vit_at_an_input_shape_its_patches_do_not_fit(tmp_path: Path, capsys) -> None:
    """ViT-B/16 exported at 224x224 reshapes its 14x14 patches by a constant: at 160x160 (10x10
    patches) OpenVINO refuses the IR, so the conversion stops at that Reshape."""
    from tests.torch_corpus import materialize

    model = tmp_path / "vit.onnx"  # a link: the output goes beside it, not into the cache
    model.symlink_to(materialize("vit_b_16", "ts") / "model.onnx")
    line = convert_error(capsys, model, "--input_shape", "[1,3,160,160]")
    assert line == ("[ ERROR ] node '/Reshape' (Reshape): cannot reshape [1,768,10,10] (76800 "
                    "elements) to [1,768,196] (150528 elements); the input shape given by "
                    "--input_shape does not fit this model")
