"""IR written by OpenVINO's own tools runs in the shim: the light-zoo models converted by
`ovc` (openvino.convert_model + save_model, a test oracle only) match onnxruntime, and ops that
OpenVINO serializes under other names or older versions (SoftMax opset1/opset8, ReLU, PReLU,
TopK-1, Interpolate-1, BatchNormInference-1, ...) match OpenVINO on the same IR."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from converter.runtime.engines import open_engine

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from light_zoo import ZOO, materialize  # noqa: E402

F32 = {"INFERENCE_PRECISION_HINT": "f32"}  # the CPU plugin may pick bf16 on its own


@pytest.fixture(scope="module")
def zoo() -> Path:
    return materialize(ZOO)  # made once per machine, then read from the cache


@pytest.mark.slow
@pytest.mark.parametrize("name", ZOO)
def test_ovc_ir_of_the_light_zoo_matches_onnxruntime_in_the_shim(zoo, tmp_path, name) -> None:
    import openvino as ov

    model = ov.convert_model(str(zoo / f"{name}.onnx"))
    xml = tmp_path / f"{name}.xml"
    ov.save_model(model, str(xml), compress_to_fp16=False)
    if name in ("squeezenet", "shufflenet", "inception_v1"):
        assert 'type="SoftMax"' in xml.read_text()  # the spelling the shim once refused
    x = np.load(zoo / f"{name}.input.npy")
    expected = np.load(zoo / f"{name}.expected.npy")
    (got,) = open_engine("shim", xml, "CPU").run({model.inputs[0].get_any_name(): x}).values()
    assert np.abs(got - expected).max() <= 1e-4 * np.abs(expected).max()


@pytest.mark.parametrize("opset", ["opset1", "opset8"])
def test_renamed_and_older_ops_match_openvino(tmp_path, opset) -> None:
    import importlib

    import openvino as ov

    ops = importlib.import_module(f"openvino.{opset}")
    x = ops.parameter([2, 5], ov.Type.f32, name="x")
    shift = ops.constant(np.float32(0.5))
    act = ops.prelu(ops.subtract(ops.relu(x), shift), ops.constant(np.array([0.25], np.float32)))
    y = ops.softmax(act, 1) if opset == "opset1" else ops.softmax(act, -1)
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model([y], [x]), str(xml), compress_to_fp16=False)
    text = xml.read_text()
    assert all(f'type="{t}"' in text for t in ("SoftMax", "ReLU", "PReLU"))
    feed = np.random.default_rng(0).standard_normal((2, 5)).astype(np.float32)
    shim = open_engine("shim", xml, "CPU").run({"x": feed})
    real = ov.Core().compile_model(str(xml), "CPU", F32)([feed])[0]
    np.testing.assert_allclose(next(iter(shim.values())), real, rtol=1e-5, atol=1e-6)


def _old_ops() -> dict:
    """Ops of opset1/opset3 that later opsets replaced, built by OpenVINO's Python API."""
    import openvino.opset1 as o1
    import openvino.opset3 as o3

    def const(v):
        return o1.constant(np.array(v))

    cases = {
        "TopK-1": lambda x: o1.topk(x, const(np.int64(2)), 1, "max", "value").output(0),
        "TopK-3": lambda x: o3.topk(x, const(np.int64(2)), 1, "max", "value").output(0),
        "Gather-1": lambda x: o1.gather(x, const([0, 2]), const(np.int64(1))),
        "Broadcast-1": lambda x: o1.broadcast(x, const([2, 3, 4, 4])),
        "ShapeOf-1": lambda x: o1.convert(o1.shape_of(x), "f32"),
        "BatchNormInference-1": lambda x: o1.batch_norm_inference(
            x, const(np.float32([1, 2, 3])), const(np.float32([0, 1, 0])),
            const(np.float32([0, 0.5, 0])), const(np.float32([1, 2, 4])), 1e-5),
    }
    for mode in ("nearest", "linear", "cubic"):
        for corners in (False, True):
            for axes, size in (([2, 3], [7, 5]), ([3], [9])):
                cases[f"Interpolate-1 {mode} align_corners={corners} axes={axes}"] = (
                    lambda x, m=mode, c=corners, a=axes, s=size: o1.interpolate(
                        x, const(s), {"axes": a, "mode": m, "align_corners": c}))
    return cases


@pytest.mark.parametrize("name", list(_old_ops()))
def test_older_op_versions_match_openvino(tmp_path, name) -> None:
    import openvino as ov
    import openvino.opset1 as o1

    x = o1.parameter([1, 3, 4, 4], ov.Type.f32, name="x")
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model([_old_ops()[name](x)], [x]), str(xml), compress_to_fp16=False)
    feed = np.random.default_rng(1).standard_normal((1, 3, 4, 4)).astype(np.float32)
    shim = next(iter(open_engine("shim", xml, "CPU").run({"x": feed}).values()))
    real = ov.Core().compile_model(str(xml), "CPU", F32)([feed])[0]
    np.testing.assert_allclose(shim, real, rtol=1e-5, atol=1e-5)
