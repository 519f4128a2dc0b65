"""Caffe layers of other forks that MO converted (Crop, ArgMax, Interp, ReLU6, ShuffleChannel,
Tile, GRN, Axpy): a net of them converts, and OpenVINO and the shim match numpy references of
Caffe's own definitions; bad parameters (of these and of the detection heads) stop in one
line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from converter.options import parse_input_shape
from tests.front.test_caffe import RNG, convert_model, run_both, write_model
from tests.front.test_caffe_errors import _convert

NET = """
name: "forks"
layer { name: "data" type: "Input" top: "data"
  input_param { shape { dim: 2 dim: 4 dim: 7 dim: 7 } } }
layer { name: "r6" type: "ReLU6" bottom: "data" top: "r6" }
layer { name: "r3" type: "ReLU6" bottom: "data" top: "r3" relu6_param { n: 3 } }
layer { name: "sh" type: "ShuffleChannel" bottom: "data" top: "sh"
  shuffle_channel_param { group: 2 } }
layer { name: "zoom" type: "Interp" bottom: "sh" top: "zoom" interp_param { zoom_factor: 2 } }
layer { name: "crop" type: "Crop" bottom: "zoom" bottom: "data" top: "crop"
  crop_param { axis: 2 offset: 3 offset: 4 } }
layer { name: "half" type: "Slice" bottom: "data" top: "half" top: "rest"
  slice_param { axis: 1 slice_point: 2 } }
layer { name: "ref" type: "Interp" bottom: "half" top: "ref" interp_param { height: 4 width: 3 } }
layer { name: "crop1" type: "Crop" bottom: "data" bottom: "ref" top: "crop1"
  crop_param { axis: 1 offset: 1 } }
layer { name: "small" type: "Interp" bottom: "data" top: "small"
  interp_param { shrink_factor: 2 pad_beg: -1 pad_end: -2 } }
layer { name: "both" type: "Interp" bottom: "data" top: "both"
  interp_param { shrink_factor: 2 zoom_factor: 3 } }
layer { name: "like" type: "Interp" bottom: "data" bottom: "ref" top: "like" }
layer { name: "am" type: "ArgMax" bottom: "crop" top: "am" argmax_param { axis: 1 top_k: 2 } }
layer { name: "amv" type: "ArgMax" bottom: "data" top: "amv"
  argmax_param { axis: -1 top_k: 2 out_max_val: true } }
layer { name: "amf" type: "ArgMax" bottom: "data" top: "amf"
  argmax_param { top_k: 3 out_max_val: true } }
layer { name: "am1" type: "ArgMax" bottom: "data" top: "am1" }
layer { name: "tile" type: "Tile" bottom: "data" top: "tile" tile_param { axis: 1 tiles: 2 } }
layer { name: "tilen" type: "Tile" bottom: "data" top: "tilen" tile_param { axis: -2 tiles: 3 } }
layer { name: "grn" type: "GRN" bottom: "data" top: "grn" grn_param { bias: 0.5 } }
layer { name: "pool" type: "Pooling" bottom: "data" top: "pool"
  pooling_param { pool: AVE global_pooling: true } }
layer { name: "axpy" type: "Axpy" bottom: "pool" bottom: "data" bottom: "r6" top: "axpy" }
"""


def interp(x: np.ndarray, height: int, width: int) -> np.ndarray:
    """Caffe's Interp: bilinear, the corner pixels of input and output aligned."""

    def weights(n_in: int, n_out: int) -> np.ndarray:
        pos = np.arange(n_out) * ((n_in - 1) / (n_out - 1)) if n_out > 1 else np.zeros(1)
        lo = np.floor(pos).astype(int)
        hi, frac, rows = np.minimum(lo + 1, n_in - 1), pos - lo, np.arange(n_out)
        m = np.zeros((n_out, n_in))
        np.add.at(m, (rows, lo), 1 - frac)
        np.add.at(m, (rows, hi), frac)
        return m

    return np.einsum("oh,nchw,pw->ncop", weights(x.shape[2], height), x,
                     weights(x.shape[3], width))


def top_indices(x: np.ndarray, k: int, axis: int) -> np.ndarray:
    return np.take(np.argsort(-x, axis=axis, kind="stable"), np.arange(k), axis=axis)


def reference(x: np.ndarray) -> dict[str, np.ndarray]:
    r6 = np.clip(x, 0, 6)
    n, c, h, w = x.shape
    sh = x.reshape(n, 2, c // 2, h, w).transpose(0, 2, 1, 3, 4).reshape(x.shape)
    crop = interp(sh, 13, 13)[:, :, 3:10, 4:11]  # 7 + 6 * (2 - 1)
    crop1 = x[:, 1:3, 1:5, 1:4]
    flat = x.reshape(n, 1, -1)
    flat_top = top_indices(flat, 3, 2)
    pool = x.mean(axis=(2, 3), keepdims=True)
    return {
        "crop1": crop1, "small": interp(x[:, :, 1:5, 1:5], 2, 2),  # (4 - 1) / 2 + 1
        "both": interp(x, 10, 10),  # (7 - 1) / 2 + 1 = 4, then 4 + 3 * (3 - 1)
        "like": interp(x, 4, 3), "am": top_indices(crop, 2, 1),
        "amv": -np.sort(-x, axis=-1)[..., :2],
        "amf": np.concatenate([flat_top, np.take_along_axis(flat, flat_top, 2)], axis=1),
        "am1": top_indices(flat, 1, 2), "r3": np.clip(x, 0, 3),
        "tile": np.concatenate([x, x], axis=1), "tilen": np.concatenate([x] * 3, axis=2),
        "grn": x / np.sqrt((x * x).sum(axis=1, keepdims=True) + 0.5),
        "axpy": pool * x + r6, "rest": x[:, 2:],
    }


@pytest.mark.parametrize("shape", [None, "[?,4,?,?]"])
def test_fork_layers_match_numpy(tmp_path: Path, shape: str | None) -> None:
    """As written, and with the batch and spatial sizes left dynamic."""
    model = write_model(tmp_path, "forks", NET, {})
    xml = convert_model(model, tmp_path / "ir",
                        input_shape=parse_input_shape(shape) if shape else None)
    x = (RNG.standard_normal((2, 4, 7, 7)) * 4).astype(np.float32)
    refs = reference(x)
    for out in run_both(xml, {"data": x}):
        assert set(out) == set(refs)
        for name, ref in refs.items():
            assert out[name].shape == ref.shape, name
            np.testing.assert_allclose(out[name], ref, rtol=1e-5, atol=1e-5, err_msg=name)
        assert out["am"].dtype == np.int64 and out["amf"].dtype == np.float32


LAYER = """name: "n"
input: "data"
input_shape {{ dim: 1 dim: 2 dim: 4 dim: 4 }}
layer {{ name: "bad" type: "{kind}" bottom: "data" top: "out" {param} }}
"""


@pytest.mark.parametrize("kind,param,words", [
    ("Interp", "interp_param { height: 8 width: 8 pad_beg: 1 }", "only crops"),
    ("Interp", "", "no output size"),
    ("Interp", "interp_param { zoom_factor: 0 }", "zoom_factor is 0"),
    ("Crop", "", "reference blob"),
    ("Tile", "tile_param { tiles: 0 }", "tiles is 0"),
    ("PriorBoxClustered", "prior_box_param { width: [1, 2] height: 1 }", "1 height values"),
    ("CTCGreedyDecoder", "ctc_decoder_param { blank_index: 0 }", "last class as the blank"),
    ("Proposal", "", "1 bottom(s)"),
    ("PSROIPooling", "psroi_pooling_param { output_dim: 2 }", "lacks spatial_scale, group_size"),
    ("Python", "python_param { module: 'rpn.proposal_layer' layer: 'ProposalLayer' "
               "param_str: \"'iou': 0.5\" }", "param_str sets iou"),
])
def test_bad_parameters_say_so(tmp_path: Path, capsys, kind: str, param: str, words: str) -> None:
    model = write_model(tmp_path, "n", LAYER.format(kind=kind, param=param), {})
    line = _convert(capsys, tmp_path, "--input_model", str(model))
    assert "'bad'" in line and words in line
