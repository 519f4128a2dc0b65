"""ONNX Resize in the modes Interpolate lacks (one weight matrix per axis), against onnxruntime
in both engines, with scales, sizes and roi as initializers."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from tests.conftest import make_model
from tests.ops.test_transformer_ops import check

RNG = np.random.default_rng(37)
CASES = {
    "crop_linear": ({"roi": [0.1, 0.3, 0.9, 1.2], "scales": [1.6, 0.8]},
                    dict(mode="linear", coordinate_transformation_mode="tf_crop_and_resize",
                         extrapolation_value=7.0, axes=[2, 3])),
    "crop_nearest_sizes": ({"roi": [0, 0, -0.2, 0.4, 1, 1, 0.7, 1.3], "sizes": [1, 2, 4, 6]},
                           dict(mode="nearest",
                                coordinate_transformation_mode="tf_crop_and_resize")),
    "cubic_exclude_antialias": ({"sizes": [3, 4]},
                                dict(mode="cubic", exclude_outside=1, antialias=1,
                                     cubic_coeff_a=-0.5, axes=[3, 2])),
    "symmetric_cubic": ({"scales": [1, 1, 1.7, 0.6]},
                        dict(mode="cubic", coordinate_transformation_mode="half_pixel_symmetric")),
    "not_smaller": ({"sizes": [9, 3]},
                    dict(mode="linear", keep_aspect_ratio_policy="not_smaller", axes=[2, 3])),
    "align_corners_down": ({"scales": [1, 1, 0.7, 0.45]},
                           dict(mode="linear", coordinate_transformation_mode="align_corners")),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_resize_mode(case: str) -> None:
    values, attrs = CASES[case]
    dtypes = {"roi": np.float32, "scales": np.float32, "sizes": np.int64}
    inits = {k: np.array(v, dtypes[k]) for k, v in values.items()}
    names = ["x"] + [k if k in inits else "" for k in ("roi", "scales", "sizes")]
    while not names[-1]:
        names.pop()
    node = helper.make_node("Resize", names, ["y"], **attrs)
    model = make_model([node], [("x", TensorProto.FLOAT, [1, 2, 5, 7])],
                       [("y", TensorProto.FLOAT, None)], inits, opset=19)
    # align_corners from scales: onnxruntime divides by the rounded output length, the ONNX
    # spec (and its node suite) by the unrounded one; we follow the spec
    check(model, {"x": RNG.standard_normal((1, 2, 5, 7)).astype(np.float32)},
          reference=case == "align_corners_down")
