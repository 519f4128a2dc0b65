"""MO's flags through `extgen convert` and through MO 2023.3 itself (openvino-dev, a test oracle
only, recorded: tests/mo_oracle.py): the two IRs, read by the current OpenVINO, have the same
inputs (shapes, bounds, layouts) and compute the same outputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from extgen.cli import main
from tests import mo_oracle
from tests.conftest import make_model

F32 = {"INFERENCE_PRECISION_HINT": "f32"}


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("models")
    w = np.array([1, 2, 3], np.float32).reshape(1, 3, 1, 1) + np.float32(0.1)
    onnx.save(make_model(
        [helper.make_node("Relu", ["x"], ["mid"], name="relu"),
         helper.make_node("Mul", ["mid", "w"], ["y"], name="mul")],
        [("x", TensorProto.FLOAT, ["N", 3, "H", "W"])],
        [("y", TensorProto.FLOAT, ["N", 3, "H", "W"])], {"w": w}), folder / "two.onnx")
    onnx.save(make_model(
        [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Flatten", ["r"], ["y"])],
        [("x", TensorProto.FLOAT, ["N", 1, 2, 2])], [("y", TensorProto.FLOAT, ["N", 4])]),
        folder / "flat.onnx")
    onnx.save(make_model(
        [helper.make_node("Add", ["x", "b"], ["y"])],
        [("x", TensorProto.FLOAT, [2]), ("b", TensorProto.FLOAT, [2])],
        [("y", TensorProto.FLOAT, [2])]), folder / "add.onnx")
    onnx.save(make_model(
        [helper.make_node("Add", ["x", "s_in"], ["s_out"]),
         helper.make_node("Relu", ["s_out"], ["y"])],
        [("x", TensorProto.FLOAT, [1, 3]), ("s_in", TensorProto.FLOAT, [1, 3])],
        [("s_out", TensorProto.FLOAT, [1, 3]), ("y", TensorProto.FLOAT, [1, 3])]),
        folder / "state.onnx")
    onnx.save(_prunable(), folder / "prune.onnx")
    return folder


def _prunable() -> onnx.ModelProto:
    """conv(3->4) + bias -> relu -> conv(4->2): channel 3 has zero weights and bias (pruned),
    channel 1 zero weights but a bias (kept)."""
    rng = np.random.default_rng(0)
    w1 = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    w1[[1, 3]] = 0
    return make_model(
        [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c1"], ["r"]), helper.make_node("Conv", ["r", "w2"], ["y"])],
        [("x", TensorProto.FLOAT, [1, 3, 8, 8])], [("y", TensorProto.FLOAT, [1, 2, 8, 8])],
        {"w1": w1, "b1": np.array([0.5, 0.7, -0.2, 0], np.float32),
         "w2": rng.standard_normal((2, 4, 1, 1)).astype(np.float32)})


CASES = {
    "defaults (f16 weights)": ("two", []),
    "compress_to_fp16=False": ("two", ["--compress_to_fp16=False"]),
    "bounded input": ("two", ["--input", "x[1..4,3,2,2]"]),
    "scale": ("two", ["--input_shape", "[1,3,2,2]", "--scale", "2"]),
    "batch": ("two", ["--batch", "2"]),
    "layout nchw->nhwc": ("two", ["--input_shape", "[1,3,2,4]", "--layout", "x(nchw->nhwc)"]),
    "source/target layout": ("two", ["--input_shape", "[1,3,2,4]", "--source_layout", "nchw",
                                     "--target_layout", "nhwc"]),
    "mean/scale/reverse": ("two", ["--input_shape", "[1,3,2,2]", "--mean_values", "[1,2,3]",
                                   "--scale_values", "[2,4,8]", "--reverse_input_channels"]),
    "output cut": ("two", ["--output", "mid"]),
    "LowLatency2": ("two", ["--transform", "LowLatency2"]),
    "Pruning": ("prune", ["--transform", "Pruning"]),
    "flatten on a dynamic batch": ("flat", []),
    "freeze_placeholder_with_value": ("add", ["--freeze_placeholder_with_value", "b->[1 2]"]),
}


def _feed(model) -> list[np.ndarray]:
    rng = np.random.default_rng(3)
    feeds = []
    for port in model.inputs:
        dims = [d.get_length() if d.is_static else max(2, d.get_min_length())
                for d in port.get_partial_shape()]
        feeds.append(rng.standard_normal(dims).astype(np.float32))
    return feeds


def _inputs(model) -> list[tuple[str, str]]:
    import openvino as ov

    return [(str(p.get_partial_shape()), ov.layout_helpers.get_layout(p).to_string())
            for p in model.inputs]


def _both(model: Path, out: Path, flags: list[str]) -> list:
    """Our IR and MO's of model with flags, read by the current OpenVINO."""
    import openvino as ov

    assert main(["convert", str(model), "-o", str(out / "ours"), *flags]) == 0
    theirs = mo_oracle.convert(model, out / "mo", flags)
    return [ov.Core().read_model(str(xml)) for xml in (out / "ours" / theirs.name, theirs)]


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_extgen_and_mo_write_equivalent_ir(models, tmp_path, case) -> None:
    import openvino as ov

    name, flags = CASES[case]
    ours, theirs = _both(models / f"{name}.onnx", tmp_path, flags)
    core = ov.Core()
    assert _inputs(ours) == _inputs(theirs)
    assert [str(p.get_partial_shape()) for p in ours.outputs] == [
        str(p.get_partial_shape()) for p in theirs.outputs]
    feed = _feed(theirs)
    got, want = (core.compile_model(m, "CPU", F32)(feed) for m in (ours, theirs))
    for a, b in zip(got.values(), want.values()):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
    if case in ("defaults (f16 weights)", "compress_to_fp16=False", "Pruning"):
        # the same weights in the same precision (MO also halves scalars such as --scale's);
        # pruned, the same channels kept
        sizes = [(tmp_path / d / f"{name}.bin").stat().st_size for d in ("ours", "mo")]
        assert sizes[0] == sizes[1]



@pytest.mark.slow
def test_make_stateful_gives_mo_s_variables_and_outputs_over_inferences(models, tmp_path) -> None:
    import openvino as ov

    flags = ["--transform", "MakeStateful[param_res_names={'s_in':'s_out'}]"]
    ours, theirs = _both(models / "state.onnx", tmp_path, flags)
    assert _inputs(ours) == _inputs(theirs)
    requests = [ov.Core().compile_model(m, "CPU", F32).create_infer_request()
                for m in (ours, theirs)]
    assert [[s.name for s in r.query_state()] for r in requests] == [["s_ins_out"]] * 2
    for x in np.random.default_rng(5).standard_normal((4, 1, 3)).astype(np.float32):
        got, want = (list(r.infer({"x": x}).values()) for r in requests)
        assert len(got) == len(want) == 1
        np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
