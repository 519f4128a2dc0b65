"""SSD's PriorBox and DetectionOutput layers: a small SSD-like head written as a Caffe model
converts, and the shim and OpenVINO give the same detections; the translators reject what
OpenVINO's ops cannot express."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from extgen.errors import ConversionError
from tests.front.test_caffe import convert_model, run_both, write_model

RNG = np.random.default_rng(11)
CLASSES = 3


def _head(name: str, bottom: str, priors: int, prior_param: str) -> str:
    """loc and conf convolutions over a feature map, permuted and flattened, and its priors."""
    return f"""
layer {{ name: "{name}_loc" type: "Convolution" bottom: "{bottom}" top: "{name}_loc"
  convolution_param {{ num_output: {priors * 4} kernel_size: 3 pad: 1 }} }}
layer {{ name: "{name}_loc_perm" type: "Permute" bottom: "{name}_loc" top: "{name}_loc_perm"
  permute_param {{ order: 0 order: 2 order: 3 order: 1 }} }}
layer {{ name: "{name}_loc_flat" type: "Flatten" bottom: "{name}_loc_perm"
  top: "{name}_loc_flat" }}
layer {{ name: "{name}_conf" type: "Convolution" bottom: "{bottom}" top: "{name}_conf"
  convolution_param {{ num_output: {priors * CLASSES} kernel_size: 3 pad: 1 }} }}
layer {{ name: "{name}_conf_perm" type: "Permute" bottom: "{name}_conf" top: "{name}_conf_perm"
  permute_param {{ order: 0 order: 2 order: 3 order: 1 }} }}
layer {{ name: "{name}_conf_flat" type: "Flatten" bottom: "{name}_conf_perm"
  top: "{name}_conf_flat" }}
layer {{ name: "{name}_priorbox" type: "PriorBox" bottom: "{bottom}" bottom: "data"
  top: "{name}_priorbox"
  prior_box_param {{ {prior_param} }} }}
"""


DETECTION_PARAM = ("nms_param { nms_threshold: 0.45 top_k: 40 } code_type: CENTER_SIZE "
                   "keep_top_k: 30 confidence_threshold: 0.2")


def ssd(batch: int = 1, detection_param: str = "", size: int = 32) -> str:
    return f"""
name: "ssd"
layer {{ name: "data" type: "Input" top: "data"
  input_param {{ shape {{ dim: {batch} dim: 3 dim: {size} dim: {size} }} }} }}
layer {{ name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
  convolution_param {{ num_output: 8 kernel_size: 3 stride: 2 pad: 1 }} }}
layer {{ name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }}
layer {{ name: "conv2" type: "Convolution" bottom: "conv1" top: "conv2"
  convolution_param {{ num_output: 8 kernel_size: 3 stride: 2 pad: 1 }} }}
layer {{ name: "relu2" type: "ReLU" bottom: "conv2" top: "conv2" }}
layer {{ name: "conv3" type: "Convolution" bottom: "conv2" top: "conv3"
  convolution_param {{ num_output: 8 kernel_size: 3 stride: 2 pad: 1 }} }}
layer {{ name: "relu3" type: "ReLU" bottom: "conv3" top: "conv3" }}
{_head("fm1", "conv2", 4, "min_size: 8 max_size: 16 aspect_ratio: 2 flip: true clip: false "
       "variance: 0.1 variance: 0.1 variance: 0.2 variance: 0.2 step: 4 offset: 0.5")}
{_head("fm2", "conv3", 6, "min_size: 16 max_size: 28 aspect_ratio: 2 aspect_ratio: 3 flip: true "
       "clip: true variance: 0.1 variance: 0.1 variance: 0.2 variance: 0.2")}
layer {{ name: "mbox_loc" type: "Concat" bottom: "fm1_loc_flat" bottom: "fm2_loc_flat"
  top: "mbox_loc" concat_param {{ axis: 1 }} }}
layer {{ name: "mbox_conf" type: "Concat" bottom: "fm1_conf_flat" bottom: "fm2_conf_flat"
  top: "mbox_conf" concat_param {{ axis: 1 }} }}
layer {{ name: "mbox_priorbox" type: "Concat" bottom: "fm1_priorbox" bottom: "fm2_priorbox"
  top: "mbox_priorbox" concat_param {{ axis: 2 }} }}
layer {{ name: "mbox_conf_reshape" type: "Reshape" bottom: "mbox_conf" top: "mbox_conf_reshape"
  reshape_param {{ shape {{ dim: 0 dim: -1 dim: {CLASSES} }} }} }}
layer {{ name: "mbox_conf_softmax" type: "Softmax" bottom: "mbox_conf_reshape"
  top: "mbox_conf_softmax" softmax_param {{ axis: 2 }} }}
layer {{ name: "mbox_conf_flatten" type: "Flatten" bottom: "mbox_conf_softmax"
  top: "mbox_conf_flatten" }}
layer {{ name: "detection_out" type: "DetectionOutput" bottom: "mbox_loc"
  bottom: "mbox_conf_flatten" bottom: "mbox_priorbox" top: "detection_out"
  include {{ phase: TEST }}
  detection_output_param {{ num_classes: {CLASSES} share_location: true background_label_id: 0
    {detection_param or DETECTION_PARAM} }} }}
"""


def _weights() -> dict[str, list[np.ndarray]]:
    def conv(o: int, i: int) -> list[np.ndarray]:
        return [(RNG.standard_normal((o, i, 3, 3)) / np.sqrt(i * 9)).astype(np.float32),
                (RNG.standard_normal(o) * 0.1).astype(np.float32)]

    w = {"conv1": conv(8, 3), "conv2": conv(8, 8), "conv3": conv(8, 8)}
    for name, priors in (("fm1", 4), ("fm2", 6)):
        w[f"{name}_loc"] = conv(priors * 4, 8)
        w[f"{name}_conf"] = conv(priors * CLASSES, 8)
        w[f"{name}_conf"][0] *= 4  # spread enough for the threshold and NMS to matter
    return w


def _rows(out: np.ndarray) -> np.ndarray:
    """The detections up to the end marker (image -1), sorted."""
    rows = out.reshape(-1, 7)
    end = np.nonzero(rows[:, 0] == -1)[0]
    rows = rows[: end[0] if end.size else len(rows)]
    return rows[np.lexsort(np.round(rows, 4).T[::-1])]


def _assert_same_detections(got: np.ndarray, want: np.ndarray, atol: float = 1e-5) -> None:
    """Sorted rows agree; rows whose sort keys differ in the last bits are paired by distance."""
    assert got.shape == want.shape
    free = list(range(len(want)))
    for row in got:
        dist = [np.abs(want[j] - row).max() for j in free]
        best = int(np.argmin(dist)) if dist else -1
        assert dist and dist[best] <= atol, f"no detection matches {row}"
        free.pop(best)


def _check(xml: Path, x: np.ndarray) -> np.ndarray:
    ov_out, shim_out = run_both(xml, {"data": x})
    assert set(ov_out) == set(shim_out) == {"detection_out"}
    a, b = ov_out["detection_out"], shim_out["detection_out"]
    assert a.shape == b.shape and a.shape[:2] == (1, 1) and a.shape[3] == 7
    ra, rb = _rows(a), _rows(b)
    _assert_same_detections(rb, ra)
    assert not b.reshape(-1, 7)[len(rb) + 1:].any()  # zeros after the end marker
    return ra


@pytest.mark.parametrize("batch", [1, 2])
def test_ssd_head_converts_and_the_shim_matches_openvino(tmp_path: Path, batch: int) -> None:
    model = write_model(tmp_path, "ssd", ssd(batch), _weights())
    xml = convert_model(model, tmp_path / "ir")
    text = xml.read_text()
    assert 'type="DetectionOutput"' in text and 'version="opset8"' in text
    assert 'code_type="caffe.PriorBoxParameter.CENTER_SIZE"' in text and 'keep_top_k="30"' in text
    x = RNG.standard_normal((batch, 3, 32, 32)).astype(np.float32)
    rows = _check(xml, x)
    assert len(rows) > 3 and set(rows[:, 0]) == set(range(batch))
    assert set(rows[:, 1]) <= {1, 2}  # never the background
    assert (rows[:, 2] > 0.2).all()


@pytest.mark.parametrize("param", [
    "nms_param { nms_threshold: 0.3 } code_type: CORNER keep_top_k: -1",  # every box, no top_k
    "nms_param { nms_threshold: 0.6 top_k: 5 } code_type: CENTER_SIZE "
    "variance_encoded_in_target: true keep_top_k: 4 confidence_threshold: 0.05",
])
def test_detection_output_options_match_openvino(tmp_path: Path, param: str) -> None:
    model = write_model(tmp_path, "ssd", ssd(1, param), _weights())
    xml = convert_model(model, tmp_path / "ir")
    _check(xml, RNG.standard_normal((1, 3, 32, 32)).astype(np.float32))


def test_priorbox_output_is_caffes_shape(tmp_path: Path) -> None:
    """The priors blob is [1, 2, 4 * H * W * priors]: 8x8 with 4 priors and 4x4 with 6."""
    model = write_model(tmp_path, "ssd", ssd(1), _weights())
    xml = convert_model(model, tmp_path / "ir", outputs=["mbox_priorbox"])
    x = RNG.standard_normal((1, 3, 32, 32)).astype(np.float32)
    ov_out, shim_out = run_both(xml, {"data": x})
    priors = shim_out["mbox_priorbox"]
    assert priors.shape == (1, 2, 4 * (8 * 8 * 4 + 4 * 4 * 6))
    np.testing.assert_allclose(priors, ov_out["mbox_priorbox"], atol=1e-6)
    first = priors[0, 0, :4] * 32  # cell (0, 0) of the 8x8 map, step 4: centre (2, 2), side 8
    np.testing.assert_allclose(first, [-2, -2, 6, 6], atol=1e-5)
    fm2 = priors[0, 0, 4 * 8 * 8 * 4:].reshape(-1, 4)
    assert fm2.min() >= 0 and fm2.max() <= 1  # clip: true on the second map
    np.testing.assert_allclose(priors[0, 1].reshape(-1, 4)[:, 2:], 0.2)


def test_priorbox_with_a_dynamic_input_runs_in_openvino(tmp_path: Path) -> None:
    """With the spatial size unknown at conversion the PriorBox stays in the IR (ShapeOf + Slice
    into it), so OpenVINO computes the priors itself."""
    model = write_model(tmp_path, "ssd", ssd(1), _weights())
    xml = convert_model(model, tmp_path / "ir", input_shape=[(1, 3, -1, -1)])
    text = xml.read_text()
    assert 'type="PriorBox"' in text and 'type="ShapeOf"' in text
    for size in (32, 48):
        _check(xml, RNG.standard_normal((1, 3, size, size)).astype(np.float32))


BAD = [
    ("step_h: 4 step_w: 8", "step_h 4 and step_w 8 differ"),
    ("offset: 0.3", "offset 0.3 needs an explicit step"),
    ("variance: 0.1 variance: 0.2", "2 variance values"),
    ("max_size: 16", "min_size is not given"),
]


@pytest.mark.parametrize(("param", "message"), BAD)
def test_priorbox_rejects_what_openvino_cannot_express(tmp_path: Path, param: str,
                                                       message: str) -> None:
    text = ssd(1).replace("min_size: 8 max_size: 16 aspect_ratio: 2",
                          "min_size: 8 aspect_ratio: 2")
    text = text.replace(
        "min_size: 8 aspect_ratio: 2 flip: true clip: false variance: 0.1 variance: 0.1 "
        "variance: 0.2 variance: 0.2 step: 4 offset: 0.5",
        ("" if "min_size" in message else "min_size: 8 ") + param)
    model = write_model(tmp_path, "ssd", text, _weights())
    with pytest.raises(ConversionError, match=message):
        convert_model(model, tmp_path / "ir")


def test_detection_output_rejects_adaptive_nms(tmp_path: Path) -> None:
    param = "nms_param { nms_threshold: 0.45 eta: 0.9 } keep_top_k: 10"
    model = write_model(tmp_path, "ssd", ssd(1, param), _weights())
    with pytest.raises(ConversionError, match="eta 0.9"):
        convert_model(model, tmp_path / "ir")
