"""Caffe models written by the tests (a .prototxt + a .caffemodel built with the project's
caffe.proto) convert, and the IR matches numpy/onnxruntime references in OpenVINO and the shim:
a LeNet-like net, a ResNet block, the V1 `layers` format, and more layer types."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from google.protobuf import text_format

from converter.front.caffe.proto import DEFAULT_PROTO, net_class
from converter.options import ConvertOptions
from converter.pipeline import convert


def write_model(folder: Path, name: str, prototxt: str, weights: dict[str, list[np.ndarray]],
                proto: Path | None = None) -> Path:
    """folder/name.prototxt and folder/name.caffemodel (layers of the .prototxt with blobs)."""
    cls = net_class(proto)
    net = cls()
    text_format.Merge(prototxt, net)
    for layer in list(net.layer) or list(net.layers):
        for value in weights.get(layer.name, []):
            blob = layer.blobs.add()
            blob.shape.dim.extend(value.shape)
            blob.data.extend(np.asarray(value, np.float32).ravel().tolist())
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.prototxt").write_text(prototxt)
    model = folder / f"{name}.caffemodel"
    model.write_bytes(net.SerializeToString())
    return model


def user_proto(folder: Path, messages: str, fields: str) -> Path:
    """A user's caffe.proto: the project's plus extra messages and LayerParameter fields."""
    head = "message LayerParameter {\n"
    text = DEFAULT_PROTO.read_text().replace(head, head + fields + "\n", 1)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "caffe.proto"
    path.write_text(text + "\n" + messages + "\n")
    return path


# -- numpy references -----------------------------------------------------------------------------
def conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: int = 1, pad: int = 0,
           group: int = 1) -> np.ndarray:
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    o, ci, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, o, oh, ow), np.float64)
    per = o // group
    for g in range(group):
        xs = x[:, g * ci:(g + 1) * ci]
        for i in range(oh):
            for j in range(ow):
                patch = xs[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
                wg = w[g * per:(g + 1) * per]
                out[:, g * per:(g + 1) * per, i, j] = np.einsum("nchw,ochw->no", patch, wg)
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out


def max_pool_caffe(x: np.ndarray, k: int, s: int, pad: int = 0) -> np.ndarray:
    """Caffe's MAX pooling with its ceil rounding (and the last-window clip when padded)."""
    n, c, h, w = x.shape

    def size(d: int) -> int:
        out = int(np.ceil((d + 2 * pad - k) / s)) + 1
        if pad and (out - 1) * s >= d + pad:
            out -= 1
        return out

    oh, ow = size(h), size(w)
    out = np.full((n, c, oh, ow), -np.inf)
    for i in range(oh):
        for j in range(ow):
            hs, ws = max(i * s - pad, 0), max(j * s - pad, 0)
            he, we = min(i * s - pad + k, h), min(j * s - pad + k, w)
            out[:, :, i, j] = x[:, :, hs:he, ws:we].max(axis=(2, 3))
    return out


def softmax(x: np.ndarray, axis: int = 1) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def run_both(xml: Path, feed: dict[str, np.ndarray], ext: list[Path] | None = None,
             openvino: bool = True) -> list[dict[str, np.ndarray]]:
    """Outputs by tensor name from real OpenVINO (f32; Python ops of the extensions run as
    OpenVINO Python ops) and from the shim."""
    from converter.runtime.engines import open_engine

    engines = ["openvino", "shim"] if openvino else ["shim"]
    return [open_engine(e, xml, "CPU", extensions=ext or []).run(feed) for e in engines]


def convert_model(model: Path, out: Path, **kw) -> Path:
    return convert(ConvertOptions(model, output_dir=out, **kw)).xml


RNG = np.random.default_rng(7)


def _rand(*shape: int, scale: float = 0.5) -> np.ndarray:
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


# -- LeNet: conv, pooling (ceil), in-place ReLU, inner product, softmax ----------------------------
LENET = """
name: "lenet"
input: "data"
input_shape { dim: 1 dim: 1 dim: 28 dim: 28 }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
  param { lr_mult: 1 } param { lr_mult: 2 }
  convolution_param { num_output: 6 kernel_size: 5 weight_filler { type: "xavier" } } }
layer { name: "pool1" type: "Pooling" bottom: "conv1" top: "pool1"
  pooling_param { pool: MAX kernel_size: 3 stride: 2 } }
layer { name: "relu1" type: "ReLU" bottom: "pool1" top: "pool1" }
layer { name: "conv2" type: "Convolution" bottom: "pool1" top: "conv2"
  convolution_param { num_output: 8 kernel_size: 3 pad: 1 group: 2 } }
layer { name: "relu2" type: "ReLU" bottom: "conv2" top: "conv2" relu_param { negative_slope: 0.1 } }
layer { name: "ip1" type: "InnerProduct" bottom: "conv2" top: "ip1"
  inner_product_param { num_output: 10 } }
layer { name: "drop" type: "Dropout" bottom: "ip1" top: "ip1" dropout_param { dropout_ratio: 0.5 } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip1" bottom: "label" top: "loss"
  include { phase: TRAIN } }
layer { name: "prob" type: "Softmax" bottom: "ip1" top: "prob" }
"""


def _lenet_weights() -> dict[str, list[np.ndarray]]:
    return {"conv1": [_rand(6, 1, 5, 5), _rand(6)], "conv2": [_rand(8, 3, 3, 3), _rand(8)],
            "ip1": [_rand(10, 8 * 12 * 12, scale=0.05), _rand(10)]}


def _lenet_reference(x: np.ndarray, w: dict) -> tuple[np.ndarray, np.ndarray]:
    y = conv2d(x, *w["conv1"])
    y = np.maximum(max_pool_caffe(y, 3, 2), 0)  # 24 -> ceil(21/2)+1 = 12 (floor would give 11)
    y = conv2d(y, w["conv2"][0], w["conv2"][1], pad=1, group=2)
    y = np.where(y < 0, 0.1 * y, y)
    logits = y.reshape(1, -1) @ w["ip1"][0].T + w["ip1"][1]
    return logits, softmax(logits)


def test_lenet_converts_and_matches_numpy(tmp_path: Path) -> None:
    weights = _lenet_weights()
    model = write_model(tmp_path, "lenet", LENET, weights)
    xml = convert_model(model, tmp_path / "ir")  # the .prototxt is found from the model's name
    text = xml.read_text()
    assert "SoftmaxWithLoss" not in text and 'rounding_type="ceil"' in text
    x = RNG.standard_normal((1, 1, 28, 28)).astype(np.float32)
    _, ref = _lenet_reference(x, weights)
    for out in run_both(xml, {"data": x}):
        assert set(out) == {"prob"}
        np.testing.assert_allclose(out["prob"], ref, rtol=1e-4, atol=1e-5)


def test_lenet_output_cut_at_an_in_place_blob(tmp_path: Path) -> None:
    """'ip1' names the output of the last layer writing it in place (Dropout, an identity)."""
    weights = _lenet_weights()
    model = write_model(tmp_path, "lenet", LENET, weights)
    xml = convert_model(model, tmp_path / "ir", outputs=["ip1"])
    x = RNG.standard_normal((1, 1, 28, 28)).astype(np.float32)
    logits, _ = _lenet_reference(x, weights)
    for out in run_both(xml, {"data": x}):
        np.testing.assert_allclose(out["ip1"], logits, rtol=1e-4, atol=1e-4)


# -- a ResNet block: conv, BatchNorm + Scale, eltwise add, global pooling, FC, softmax ------------
RESNET = """
name: "resblock"
layer { name: "data" type: "Input" top: "data"
  input_param { shape { dim: 2 dim: 4 dim: 8 dim: 8 } } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
  convolution_param { num_output: 4 kernel_size: 3 pad: 1 bias_term: false } }
layer { name: "bn1" type: "BatchNorm" bottom: "conv1" top: "conv1"
  batch_norm_param { use_global_stats: true } }
layer { name: "scale1" type: "Scale" bottom: "conv1" top: "conv1" scale_param { bias_term: true } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "conv2" type: "Convolution" bottom: "conv1" top: "conv2"
  convolution_param { num_output: 4 kernel_size: 3 pad: 1 bias_term: false } }
layer { name: "bn2" type: "BatchNorm" bottom: "conv2" top: "conv2" batch_norm_param { eps: 0.001 } }
layer { name: "scale2" type: "Scale" bottom: "conv2" top: "conv2" scale_param { bias_term: true } }
layer { name: "sum" type: "Eltwise" bottom: "data" bottom: "conv2" top: "sum"
  eltwise_param { operation: SUM coeff: 1 coeff: 0.5 } }
layer { name: "relu2" type: "ReLU" bottom: "sum" top: "sum" }
layer { name: "pool" type: "Pooling" bottom: "sum" top: "pool"
  pooling_param { pool: AVE global_pooling: true } }
layer { name: "fc" type: "InnerProduct" bottom: "pool" top: "fc"
  inner_product_param { num_output: 5 } }
layer { name: "prob" type: "Softmax" bottom: "fc" top: "prob" }
layer { name: "acc" type: "Accuracy" bottom: "fc" bottom: "label" top: "acc"
  include { phase: TRAIN } }
"""


def _bn_weights(c: int, factor: float) -> list[np.ndarray]:
    mean, var = _rand(c), np.abs(_rand(c)) + 0.5
    return [mean * factor, var * factor, np.array([factor], np.float32)]


def test_resnet_block_matches_numpy(tmp_path: Path) -> None:
    w = {"conv1": [_rand(4, 4, 3, 3)], "conv2": [_rand(4, 4, 3, 3)],
         "bn1": _bn_weights(4, 999.0), "bn2": _bn_weights(4, 1.0),
         "scale1": [_rand(4) + 1, _rand(4)], "scale2": [_rand(4) + 1, _rand(4)],
         "fc": [_rand(5, 4), _rand(5)]}
    model = write_model(tmp_path, "resblock", RESNET, w)
    xml = convert_model(model, tmp_path / "ir")

    def bn_scale(y, bn, sc, eps):
        f = 1 / bn[2][0]
        y = (y - (bn[0] * f).reshape(1, -1, 1, 1)) / np.sqrt((bn[1] * f).reshape(1, -1, 1, 1) + eps)
        return y * sc[0].reshape(1, -1, 1, 1) + sc[1].reshape(1, -1, 1, 1)

    x = RNG.standard_normal((2, 4, 8, 8)).astype(np.float32)
    y = np.maximum(bn_scale(conv2d(x, w["conv1"][0], None, pad=1), w["bn1"], w["scale1"], 1e-5), 0)
    y = bn_scale(conv2d(y, w["conv2"][0], None, pad=1), w["bn2"], w["scale2"], 1e-3)
    y = np.maximum(x + 0.5 * y, 0).mean(axis=(2, 3))
    ref = softmax(y @ w["fc"][0].T + w["fc"][1])
    for out in run_both(xml, {"data": x}):
        np.testing.assert_allclose(out["prob"], ref, rtol=1e-4, atol=1e-5)


# -- more layers, against onnxruntime --------------------------------------------------------------
ZOO = """
name: "zoo"
input: "data"
input_dim: 1 input_dim: 6 input_dim: 5 input_dim: 5
layer { name: "slice" type: "Slice" bottom: "data" top: "a" top: "b" top: "c"
  slice_param { axis: 1 slice_point: 1 slice_point: 3 } }
layer { name: "split" type: "Split" bottom: "c" top: "c1" top: "c2" }
layer { name: "prod" type: "Eltwise" bottom: "c1" bottom: "c2" top: "prod"
  eltwise_param { operation: PROD } }
layer { name: "max" type: "Eltwise" bottom: "b" bottom: "b" top: "max"
  eltwise_param { operation: MAX } }
layer { name: "sig" type: "Sigmoid" bottom: "a" top: "sig" }
layer { name: "tanh" type: "TanH" bottom: "max" top: "tanh" }
layer { name: "elu" type: "ELU" bottom: "prod" top: "elu" elu_param { alpha: 0.7 } }
layer { name: "cat" type: "Concat" bottom: "sig" bottom: "tanh" bottom: "elu" top: "cat" }
layer { name: "prelu" type: "PReLU" bottom: "cat" top: "cat" }
layer { name: "lrn" type: "LRN" bottom: "cat" top: "lrn"
  lrn_param { local_size: 3 alpha: 0.3 beta: 0.75 k: 2 } }
layer { name: "pow" type: "Power" bottom: "lrn" top: "pow"
  power_param { power: 2 scale: 0.5 shift: 1 } }
layer { name: "avg" type: "Pooling" bottom: "pow" top: "avg"
  pooling_param { pool: AVE kernel_size: 2 stride: 2 round_mode: FLOOR } }
layer { name: "perm" type: "Permute" bottom: "avg" top: "perm"
  permute_param { order: 0 order: 2 order: 3 order: 1 } }
layer { name: "flat" type: "Flatten" bottom: "perm" top: "flat" }
layer { name: "resh" type: "Reshape" bottom: "flat" top: "resh"
  reshape_param { shape { dim: 0 dim: -1 dim: 4 } } }
layer { name: "norm" type: "Normalize" bottom: "avg" top: "norm"
  norm_param { across_spatial: false channel_shared: false } }
layer { name: "deconv" type: "Deconvolution" bottom: "pow" top: "deconv"
  convolution_param { num_output: 2 kernel_size: 2 stride: 2 } }
"""


def test_more_layers_match_onnxruntime(tmp_path: Path) -> None:
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    slope, nscale, dw, db = np.abs(_rand(6)), np.abs(_rand(6)) + 0.5, _rand(6, 2, 2, 2), _rand(2)
    blobs = {"prelu": [slope], "norm": [nscale], "deconv": [dw, db]}
    model = write_model(tmp_path, "zoo", ZOO, blobs)
    xml = convert_model(model, tmp_path / "ir")
    H = helper.make_node
    consts = {"slope": slope.reshape(6, 1, 1), "nscale": nscale.reshape(1, 6, 1, 1),
              "dw": dw, "db": db, "split": np.array([1, 2, 3], np.int64), "two": np.float32(2),
              "half": np.float32(0.5), "one": np.float32(1),
              "shape": np.array([0, -1, 4], np.int64)}
    nodes = [
        H("Split", ["data", "split"], ["a", "b", "c"], axis=1), H("Mul", ["c", "c"], ["prod"]),
        H("Max", ["b", "b"], ["max"]), H("Sigmoid", ["a"], ["sig"]), H("Tanh", ["max"], ["tanh"]),
        H("Elu", ["prod"], ["elu"], alpha=0.7),
        H("Concat", ["sig", "tanh", "elu"], ["cat"], axis=1),
        H("PRelu", ["cat", "slope"], ["pr"]),
        H("LRN", ["pr"], ["lrn"], size=3, alpha=0.3, beta=0.75, bias=2.0),
        H("Mul", ["lrn", "half"], ["m"]), H("Add", ["m", "one"], ["s"]),
        H("Pow", ["s", "two"], ["pow"]),
        H("AveragePool", ["pow"], ["avg"], kernel_shape=[2, 2], strides=[2, 2]),
        H("Transpose", ["avg"], ["perm"], perm=[0, 2, 3, 1]), H("Flatten", ["perm"], ["flat"]),
        H("Reshape", ["flat", "shape"], ["resh"]),
        H("LpNormalization", ["avg"], ["l2"], axis=1, p=2), H("Mul", ["l2", "nscale"], ["norm"]),
        H("ConvTranspose", ["pow", "dw", "db"], ["deconv"], kernel_shape=[2, 2], strides=[2, 2]),
    ]
    outs = ["resh", "norm", "deconv"]
    graph = helper.make_graph(
        nodes, "zoo", [helper.make_tensor_value_info("data", TensorProto.FLOAT, [1, 6, 5, 5])],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in consts.items()])
    onnx_model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    x = RNG.standard_normal((1, 6, 5, 5)).astype(np.float32)
    session = ort.InferenceSession(onnx_model.SerializeToString())
    refs = dict(zip(outs, session.run(outs, {"data": x})))
    for out in run_both(xml, {"data": x}):
        assert set(out) == set(outs)
        for name in outs:
            np.testing.assert_allclose(out[name], refs[name], rtol=1e-4, atol=1e-5, err_msg=name)


# -- the V1 `layers` format ------------------------------------------------------------------------
V1 = """
name: "v1"
input: "data"
input_dim: 1 input_dim: 3 input_dim: 6 input_dim: 6
layers { name: "conv" type: CONVOLUTION bottom: "data" top: "conv"
  blobs_lr: 1 blobs_lr: 2 convolution_param { num_output: 2 kernel_size: 3 stride: 2 } }
layers { name: "relu" type: RELU bottom: "conv" top: "conv" }
layers { name: "fc" type: INNER_PRODUCT bottom: "conv" top: "fc"
  inner_product_param { num_output: 3 } }
layers { name: "prob" type: SOFTMAX bottom: "fc" top: "prob" }
"""


def test_v1_layers_format(tmp_path: Path) -> None:
    w = {"conv": [_rand(2, 3, 3, 3), _rand(2)], "fc": [_rand(3, 8), _rand(3)]}
    model = write_model(tmp_path, "v1", V1, w)
    xml = convert_model(model, tmp_path / "ir", input_proto=tmp_path / "v1.prototxt")
    x = RNG.standard_normal((1, 3, 6, 6)).astype(np.float32)
    y = np.maximum(conv2d(x, *w["conv"], stride=2), 0).reshape(1, -1)
    ref = softmax(y @ w["fc"][0].T + w["fc"][1])
    for out in run_both(xml, {"data": x}):
        np.testing.assert_allclose(out["prob"], ref, rtol=1e-4, atol=1e-5)
