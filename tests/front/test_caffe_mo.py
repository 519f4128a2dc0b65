"""Caffe oracle: MO 2023.3 (openvino-dev, recorded: tests/mo_oracle.py; its Caffe path on pure-
Python protobuf) converts the same .prototxt + .caffemodel as extgen. Both IRs give the same
output shapes and values in OpenVINO (extgen's in the shim too), for the fork layers where MO
kept Caffe's meaning (docs/caffe.md lists where it did not), and for the detection and
recognition heads (Faster R-CNN's proposal layers among them)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import pytest

from tests import mo_oracle
from tests.front.test_caffe import convert_model, run_both, write_model
from tests.front.test_caffe_layers import interp

pytestmark = pytest.mark.slow


@pytest.fixture
def rng(request) -> np.random.Generator:
    """The test's own seeded generator for its weights and data."""
    return mo_oracle.seeded(request)


NET = """
name: "parity"
layer { name: "data" type: "Input" top: "data"
  input_param { shape { dim: 1 dim: 4 dim: 7 dim: 7 } } }
layer { name: "r6" type: "ReLU6" bottom: "data" top: "r6" }
layer { name: "sh" type: "ShuffleChannel" bottom: "data" top: "sh"
  shuffle_channel_param { group: 2 } }
layer { name: "hw" type: "Interp" bottom: "sh" top: "hw" interp_param { height: 11 width: 9 } }
layer { name: "crop" type: "Crop" bottom: "hw" bottom: "data" top: "crop"
  crop_param { axis: 2 offset: 1 offset: 2 } }
layer { name: "half" type: "Slice" bottom: "data" top: "half" top: "rest"
  slice_param { axis: 1 slice_point: 2 } }
layer { name: "ref" type: "Interp" bottom: "half" top: "ref" interp_param { height: 4 width: 3 } }
layer { name: "crop1" type: "Crop" bottom: "data" bottom: "ref" top: "crop1"
  crop_param { axis: 1 offset: 1 } }
layer { name: "like" type: "Interp" bottom: "data" bottom: "hw" top: "like" }
layer { name: "am" type: "ArgMax" bottom: "crop" top: "am" argmax_param { axis: 1 } }
layer { name: "tile" type: "Tile" bottom: "data" top: "tile" tile_param { axis: 1 tiles: 2 } }
layer { name: "grn" type: "GRN" bottom: "data" top: "grn" grn_param { bias: 0.5 } }
layer { name: "pool" type: "Pooling" bottom: "data" top: "pool"
  pooling_param { pool: AVE global_pooling: true } }
layer { name: "axpy" type: "Axpy" bottom: "pool" bottom: "data" bottom: "r6" top: "axpy" }
# HED's side output: upsampled, then cropped to the input's size
layer { name: "up" type: "Deconvolution" bottom: "data" top: "up"
  convolution_param { num_output: 2 kernel_size: 4 stride: 2 } }
layer { name: "score" type: "Crop" bottom: "up" bottom: "data" top: "score"
  crop_param { offset: 5 } }
"""
HEADS = """name: "heads"
input: "feat" input_shape { dim: 1 dim: 8 dim: 8 dim: 8 }
input: "rfcn" input_shape { dim: 1 dim: 18 dim: 8 dim: 8 }
input: "yolo" input_shape { dim: 1 dim: 40 dim: 4 dim: 4 }
input: "image" input_shape { dim: 1 dim: 3 dim: 32 dim: 32 }
input: "rois" input_shape { dim: 3 dim: 5 }
input: "scores" input_shape { dim: 6 dim: 2 dim: 5 }
input: "seq" input_shape { dim: 6 dim: 2 }
input: "cls" input_shape { dim: 1 dim: 18 dim: 8 dim: 8 }
input: "bbox" input_shape { dim: 1 dim: 36 dim: 8 dim: 8 }
input: "im_info" input_shape { dim: 1 dim: 3 }
layer { name: "reorg" type: "ReorgYolo" bottom: "feat" top: "reorg"
  reorg_yolo_param { stride: 2 } }
layer { name: "region" type: "RegionYolo" bottom: "yolo" top: "region"
  region_yolo_param { coords: 4 classes: 3 num: 5 anchors: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] } }
layer { name: "pbc" type: "PriorBoxClustered" bottom: "feat" bottom: "image" top: "pbc"
  prior_box_param { width: [4, 9.5] height: [6, 3] variance: [0.1, 0.1, 0.2, 0.2] } }
layer { name: "roi" type: "ROIPooling" bottom: "feat" bottom: "rois" top: "roi"
  roi_pooling_param { pooled_h: 2 pooled_w: 3 spatial_scale: 0.25 } }
layer { name: "ctc" type: "CTCGreedyDecoder" bottom: "scores" bottom: "seq" top: "ctc" }
layer { name: "proposal" type: "Python" bottom: "cls" bottom: "bbox" bottom: "im_info"
  top: "rois2" python_param { module: "rpn.proposal_layer" layer: "ProposalLayer"
  param_str: "'feat_stride': 16, 'post_nms_topn': 20, 'scales': [2, 4, 8]" } }
layer { name: "pool2" type: "ROIPooling" bottom: "feat" bottom: "rois2" top: "pool2"
  roi_pooling_param { pooled_h: 2 pooled_w: 2 spatial_scale: 0.0625 } }
layer { name: "psroi" type: "PSROIPooling" bottom: "rfcn" bottom: "rois2" top: "psroi"
  psroi_pooling_param { spatial_scale: 0.0625 output_dim: 2 group_size: 3 } }
layer { name: "proposal2" type: "Proposal" bottom: "cls" bottom: "bbox" bottom: "im_info"
  top: "rois3" proposal_param { post_nms_topn: 15 min_size: 4 scale: [2, 4, 8]
  ratio: [0.5, 1, 2] } }
"""


def mo_outputs(model: Path, out: Path, feed: dict) -> dict[str, np.ndarray]:
    """MO's IR of model run in OpenVINO, by output tensor name."""
    xml = mo_oracle.convert(model, out, ["--compress_to_fp16=False"])
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    results = compiled(feed)
    return {name: value for port, value in results.items() for name in port.get_names()}


def compare(tmp_path: Path, net: str, feed: dict, outputs: list[str],
            weights: dict | None = None) -> dict[str, np.ndarray]:
    """Convert net with MO and extgen; extgen's outputs (OpenVINO, shim) equal MO's. MO's."""
    model = write_model(tmp_path, "net", net, weights or {})
    theirs = mo_outputs(model, tmp_path / "mo", feed)
    for ours in run_both(convert_model(model, tmp_path / "ir"), feed):
        assert set(ours) == set(outputs) and set(outputs) <= set(theirs)
        for name, value in ours.items():
            assert value.shape == theirs[name].shape, name
            np.testing.assert_allclose(value, theirs[name], rtol=1e-5, atol=1e-5, err_msg=name)
    return theirs


def test_fork_layers_match_mo(rng, tmp_path: Path) -> None:
    x = (rng.standard_normal((1, 4, 7, 7)) * 4).astype(np.float32)
    outputs = ["rest", "crop1", "like", "am", "tile", "grn", "axpy", "score"]
    up = [rng.standard_normal((4, 2, 4, 4)).astype(np.float32), np.float32([0.5, -1])]
    theirs = compare(tmp_path, NET, {"data": x}, outputs, {"up": up})
    np.testing.assert_allclose(theirs["like"], interp(x, 11, 9), rtol=1e-5, atol=1e-5)


def test_heads_match_mo(rng, tmp_path: Path) -> None:
    feed = {name: rng.standard_normal(shape).astype(np.float32) for name, shape in [
        ("feat", (1, 8, 8, 8)), ("yolo", (1, 40, 4, 4)), ("image", (1, 3, 32, 32)),
        ("scores", (6, 2, 5)), ("bbox", (1, 36, 8, 8)), ("rfcn", (1, 18, 8, 8))]}
    feed["cls"] = rng.random((1, 18, 8, 8)).astype(np.float32)
    feed["bbox"] *= np.float32(0.3)
    feed["im_info"] = np.array([[128, 128, 1]], np.float32)
    feed["rois"] = np.array([[0, 1, 2, 20, 25], [0, 0, 0, 31, 31], [0, 5, 5, 9, 30]], np.float32)
    feed["seq"] = np.array([[0, 0], [1, 1], [1, 1], [1, 1], [1, 0], [1, 0]], np.float32)
    outputs = ["reorg", "region", "pbc", "roi", "ctc", "pool2", "psroi", "rois3"]
    compare(tmp_path, HEADS, feed, outputs)
