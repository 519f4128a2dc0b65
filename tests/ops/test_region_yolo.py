"""RegionYolo-1 and ReorgYolo-2 (converter.ops.detection) against OpenVINO's CPU plugin: YOLOv2
(softmax, flattened) and YOLOv3 (mask, sigmoid) heads; ReorgYolo's darknet order."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset1 as ops
import pytest

from converter.ops.op import Op

RegionYolo = Op.registered_ops["RegionYolo"]


@pytest.mark.parametrize(("shape", "attrs"), [
    ((2, 5 * (4 + 1 + 3), 3, 4), {"coords": 4, "classes": 3, "num": 5, "do_softmax": True}),
    ((1, 2 * (4 + 1 + 3), 3, 4), {"coords": 4, "classes": 3, "num": 2, "do_softmax": True,
                                  "end_axis": 1}),
    ((2, 3 * (4 + 1 + 2), 4, 4), {"coords": 4, "classes": 2, "num": 9, "do_softmax": False,
                                  "mask": [3, 4, 5]}),
])
def test_region_yolo_matches_openvino(shape, attrs):
    attrs = {**RegionYolo.defaults, **attrs}
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32) * 2
    (ours,) = RegionYolo.compute(attrs, [x])
    param = ops.parameter(shape, np.float32)
    node = ops.region_yolo(param, attrs["coords"], attrs["classes"], attrs["num"],
                           attrs["do_softmax"], attrs["mask"], attrs["axis"], attrs["end_axis"])
    compiled = ov.Core().compile_model(ov.Model([node], [param]), "CPU",
                                       {"INFERENCE_PRECISION_HINT": "f32"})
    want = compiled({0: x})[compiled.output(0)]
    assert ours.shape == want.shape
    np.testing.assert_allclose(ours, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("shape", "stride"), [((1, 8, 4, 6), 2), ((2, 18, 6, 3), 3)])
def test_reorg_yolo_matches_openvino(shape, stride):
    import openvino.opset2 as ops2

    reorg = Op.registered_ops["ReorgYolo"]
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    (ours,) = reorg.compute({"stride": [stride]}, [x])
    param = ops2.parameter(shape, np.float32)
    compiled = ov.Core().compile_model(ov.Model([ops2.reorg_yolo(param, [stride])], [param]),
                                       "CPU")
    want = compiled({0: x})[compiled.output(0)]
    assert ours.shape == want.shape
    np.testing.assert_array_equal(ours, want)
