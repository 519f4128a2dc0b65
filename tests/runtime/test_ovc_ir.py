"""IR written by OpenVINO's own tools runs in the shim: the light-zoo models converted by
`ovc` (openvino.convert_model + save_model, a test oracle only) match onnxruntime, and ops that
OpenVINO serializes under other names or older versions (SoftMax opset1/opset8, ReLU, PReLU)
match OpenVINO on the same IR."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from converter.runtime.engines import open_engine

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from light_zoo import materialize  # noqa: E402

SMALL = ["squeezenet", "shufflenet", "inception_v1"]


@pytest.fixture(scope="module")
def zoo() -> Path:
    return materialize(SMALL)  # made once per machine, then read from the cache


@pytest.mark.slow
@pytest.mark.parametrize("name", SMALL)
def test_ovc_ir_of_the_light_zoo_matches_onnxruntime_in_the_shim(zoo, tmp_path, name) -> None:
    import openvino as ov

    model = ov.convert_model(str(zoo / f"{name}.onnx"))
    xml = tmp_path / f"{name}.xml"
    ov.save_model(model, str(xml), compress_to_fp16=False)
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
    real = ov.Core().compile_model(str(xml), "CPU")([feed])[0]
    np.testing.assert_allclose(next(iter(shim.values())), real, rtol=1e-5, atol=1e-6)
