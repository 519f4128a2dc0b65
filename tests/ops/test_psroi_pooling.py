"""PSROIPooling-1 against OpenVINO's CPU plugin: R-FCN's average mode (boxes partly off the map
too) and the bilinear mode (boxes in [0, 1], several sample bins)."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import pytest

from converter.ops.op import Op

PSROIPooling = Op.registered_ops["PSROIPooling"]
PIXELS = [[0, 1, 2, 40, 30], [1, 0, 0, 63, 47], [0, 10.4, 20.6, 12, 22], [1, -5, -3, 20, 70],
          [0, 60, 40, 80, 60]]
UNIT = [[0, 0.1, 0.2, 0.7, 0.5], [1, 0, 0, 1, 1], [0, 0.3, 0.3, 0.35, 0.32],
        [1, 0.5, 0.1, 0.9, 0.99]]


@pytest.mark.parametrize("mode,dim,size,bins_x,bins_y", [
    ("average", 3, 3, 1, 1), ("average", 2, 2, 1, 1), ("bilinear", 3, 2, 2, 2),
    ("bilinear", 2, 1, 3, 2),
])
def test_psroi_pooling_matches_openvino(mode, dim, size, bins_x, bins_y) -> None:
    rng = np.random.default_rng(2)
    channels = dim * (size * size if mode == "average" else bins_x * bins_y)
    x = rng.standard_normal((2, channels, 12, 16)).astype(np.float32)
    rois = np.array(PIXELS if mode == "average" else UNIT, np.float32)
    attrs = {"output_dim": dim, "group_size": size, "spatial_scale": 0.25, "mode": mode,
             "spatial_bins_x": bins_x, "spatial_bins_y": bins_y}
    ours = PSROIPooling.compute(attrs, [x, rois])[0]
    params = [ops1.parameter(list(v.shape), np.float32) for v in (x, rois)]
    node = ops1.psroi_pooling(*params, dim, size, 0.25, bins_x, bins_y, mode)
    compiled = ov.Core().compile_model(ov.Model([node], params), "CPU",
                                       {"INFERENCE_PRECISION_HINT": "f32"})
    want = compiled([x, rois])[0]
    assert ours.shape == want.shape == (len(rois), dim, size, size)
    np.testing.assert_allclose(ours, want, rtol=1e-5, atol=1e-6)
