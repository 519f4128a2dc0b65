"""ONNX DeformConv (offsets reaching outside the map, groups, offset groups, mask, bias)
through DeformableConvolution-8 in real OpenVINO and in the shim, against onnx's reference
evaluator within 1e-4; the op's evaluate against OpenVINO's own op for both
bilinear_interpolation_pad values."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from converter.onnx_backend import ExtgenBackend
from converter.ops.nn.deformable_convolution import DeformableConvolution
from tests.conftest import make_model

RNG = np.random.default_rng(8)


def _feeds(group: int, offset_group: int, mask: bool) -> tuple[list[str], list[np.ndarray]]:
    names = ["x", "w", "offset", "b"] + (["mask"] if mask else [])
    values = [RNG.standard_normal((2, 4, 6, 7)), RNG.standard_normal((6, 4 // group, 3, 3)),
              RNG.uniform(-3, 3, (2, offset_group * 18, 3, 5)), RNG.standard_normal(6)]
    if mask:
        values.append(RNG.uniform(0, 1, (2, offset_group * 9, 3, 5)))
    return names, [v.astype(np.float32) for v in values]


@pytest.mark.parametrize(("group", "offset_group", "mask"), [(1, 1, False), (2, 2, True),
                                                              (1, 4, True)])
def test_deform_conv_matches_the_reference(group: int, offset_group: int, mask: bool) -> None:
    names, feeds = _feeds(group, offset_group, mask)
    node = helper.make_node("DeformConv", names, ["y"], group=group, offset_group=offset_group,
                            pads=[1, 0, 1, 0], strides=[2, 1], kernel_shape=[3, 3])
    shapes = [list(v.shape) for v in feeds]
    model = make_model([node], [(k, TensorProto.FLOAT, s) for k, s in zip(names, shapes)],
                       [("y", TensorProto.FLOAT, None)], opset=19)
    expected = ReferenceEvaluator(model).run(None, dict(zip(names, feeds)))[0]
    for engine in ("openvino", "shim"):
        got = ExtgenBackend.prepare(model, engine=engine).run(feeds)[0]
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4, err_msg=engine)


@pytest.mark.parametrize("pad", [False, True])
def test_evaluate_matches_openvino(pad: bool) -> None:
    import openvino as ov
    import openvino.opset8 as ops

    _, (x, w, offset, _, mask) = _feeds(1, 2, True)
    attrs = {"strides": [2, 1], "pads_begin": [1, 0], "pads_end": [1, 0], "dilations": [1, 1],
             "group": 1, "deformable_group": 2, "bilinear_interpolation_pad": pad}
    params = [ops.parameter(v.shape, np.float32) for v in (x, offset, w, mask)]
    node = ops.deformable_convolution(*params[:3], attrs["strides"], attrs["pads_begin"],
                                      attrs["pads_end"], attrs["dilations"], mask=params[3],
                                      deformable_group=2, bilinear_interpolation_pad=pad)
    compiled = ov.Core().compile_model(ov.Model([node], params), "CPU")
    theirs = compiled([x, offset, w, mask])[0]
    ours = DeformableConvolution.evaluate(attrs, [x, offset, w, mask])[0]
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)
