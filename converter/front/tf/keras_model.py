"""A Keras 3 `.keras` file (a zip of config.json and model.weights.h5) as a frozen GraphDef: each
layer of the functional config becomes the TensorFlow ops Keras runs for it (Conv2D + BiasAdd +
activation, FusedBatchNormV3, ...), its weights Consts, so the TF translators do the rest.

Reading the weights needs h5py (the `keras` extra): HDF5 is too large a format to parse here.
Layers keep their weights under `layers/<class_name>[_n]/vars/<i>` in creation order. A layer
this module does not know is reported by class name, with the SavedModel route as the fix.
"""

from __future__ import annotations

import json
import re
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from converter.errors import InputFileError, ModelFormatError, UsageError
from converter.front.tf.writer import GraphBuilder

__all__ = ["load_keras"]

F32 = np.dtype(np.float32)
_ACTIVATIONS = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "elu": "Elu",
                "selu": "Selu", "softplus": "Softplus", "softsign": "Softsign",
                "swish": "Swish", "silu": "Swish", "relu6": "Relu6"}


class _Builder:
    """The GraphDef under construction, the weights by layer, and each tensor's static shape."""

    def __init__(self, weights: dict[str, list[np.ndarray]]) -> None:
        self.g = GraphBuilder()
        self.weights = weights
        self.count = 0

    def name(self, base: str) -> str:
        self.count += 1
        return f"{base}/{self.count}"

    def node(self, op: str, base: str, inputs: list[str], **attrs) -> str:
        return self.g.node(op, self.name(base), inputs, **attrs)

    def const(self, base: str, value) -> str:
        return self.g.const(self.name(base), np.asarray(value))

    def vars(self, layer: str) -> list[np.ndarray]:
        return self.weights.get(layer, [])


Layer = Callable[[_Builder, str, dict, list[str]], str]
_LAYERS: dict[str, Layer] = {}


def _layer(*names: str) -> Callable[[Layer], Layer]:
    def register(fn: Layer) -> Layer:
        for name in names:
            _LAYERS[name] = fn
        return fn

    return register


def _activate(b: _Builder, name: str, x: str, activation: str | None) -> str:
    if activation in (None, "linear"):
        return x
    if activation == "softmax":
        return b.node("Softmax", name, [x], T=F32)
    if activation == "gelu":  # Keras' exact GELU: 0.5 * x * (1 + erf(x / sqrt(2)))
        erf = b.node("Erf", name, [b.node("Mul", name, [x, b.const(name, F32.type(0.5 ** 0.5))],
                                         T=F32)], T=F32)
        one = b.node("AddV2", name, [erf, b.const(name, F32.type(1))], T=F32)
        return b.node("Mul", name, [b.node("Mul", name, [x, one], T=F32),
                                    b.const(name, F32.type(0.5))], T=F32)
    if activation == "hard_sigmoid":  # relu6(x + 3) / 6
        shifted = b.node("AddV2", name, [x, b.const(name, F32.type(3))], T=F32)
        return b.node("Mul", name, [b.node("Relu6", name, [shifted], T=F32),
                                    b.const(name, F32.type(1 / 6))], T=F32)
    if activation not in _ACTIVATIONS:
        msg = f"activation '{activation}'"
        raise KeyError(msg)
    return b.node(_ACTIVATIONS[activation], name, [x], T=F32)


def _bias(b: _Builder, name: str, x: str, cfg: dict, weights: list[np.ndarray],
          at: int = 1) -> str:
    """x + weights[at] (when the layer uses a bias), then the layer's activation."""
    if cfg.get("use_bias", True):
        x = b.node("BiasAdd", name, [x, b.const(name, weights[at])], T=F32)
    return _activate(b, name, x, cfg.get("activation"))


def _window(cfg: dict, key: str) -> list[int]:
    return [1, *cfg[key], 1]


def _windowed(b: _Builder, op: str, name: str, cfg: dict, x: str, w) -> str:
    """A TF convolution node with the layer's strides, padding and dilations."""
    return b.node(op, name, [x, b.const(name, w)], T=F32, strides=_window(cfg, "strides"),
                  padding=cfg["padding"].upper(), dilations=_window(cfg, "dilation_rate"),
                  data_format="NHWC")


@_layer("Conv2D")
def _conv(b: _Builder, name: str, cfg: dict, xs: list[str]) -> str:
    w = b.vars(name)
    return _bias(b, name, _windowed(b, "Conv2D", name, cfg, xs[0], w[0]), cfg, w)


@_layer("DepthwiseConv2D")
def _depthwise(b: _Builder, name: str, cfg: dict, xs: list[str]) -> str:
    w = b.vars(name)
    return _bias(b, name, _windowed(b, "DepthwiseConv2dNative", name, cfg, xs[0], w[0]), cfg, w)


@_layer("SeparableConv2D")
def _separable(b: _Builder, name: str, cfg: dict, xs: list[str]) -> str:
    w = b.vars(name)
    y = _windowed(b, "DepthwiseConv2dNative", name, cfg, xs[0], w[0])
    y = b.node("Conv2D", name, [y, b.const(name, w[1])], T=F32, strides=[1, 1, 1, 1],
               padding="VALID", data_format="NHWC")
    return _bias(b, name, y, cfg, w, at=2)


@_layer("Dense")
def _dense(b: _Builder, name: str, cfg: dict, xs: list[str]) -> str:
    w = b.vars(name)
    return _bias(b, name, b.node("MatMul", name, [xs[0], b.const(name, w[0])], T=F32), cfg, w)


@_layer("BatchNormalization")
def _batch_norm(b: _Builder, name: str, cfg: dict, xs: list[str]) -> str:
    w = list(b.vars(name))
    gamma = w.pop(0) if cfg.get("scale", True) else None
    beta = w.pop(0) if cfg.get("center", True) else None
    mean, var = w
    gamma = np.ones_like(mean) if gamma is None else gamma
    beta = np.zeros_like(mean) if beta is None else beta
    scale = gamma / np.sqrt(var + cfg["epsilon"])
    y = b.node("Mul", name, [xs[0], b.const(name, scale.astype(F32))], T=F32)
    return b.node("AddV2", name, [y, b.const(name, (beta - mean * scale).astype(F32))], T=F32)


@_layer("Activation")
def _activation(b: _Builder, name: str, cfg: dict, xs: list[str]) -> str:
    return _activate(b, name, xs[0], cfg["activation"])


@_layer("ReLU")
def _relu(b: _Builder, name: str, cfg: dict, xs: list[str]) -> str:
    if cfg.get("negative_slope") or cfg.get("threshold"):
        msg = "ReLU with negative_slope or threshold"
        raise KeyError(msg)
    if cfg.get("max_value") == 6:
        return b.node("Relu6", name, xs, T=F32)
    y = b.node("Relu", name, xs, T=F32)
    if cfg.get("max_value") is not None:
        y = b.node("Minimum", name, [y, b.const(name, F32.type(cfg["max_value"]))], T=F32)
    return y


@_layer("Add", "Multiply", "Subtract", "Maximum", "Minimum")
def _merge(b: _Builder, name: str, cfg: dict, xs: list[str]) -> str:
    op = {"Add": "AddV2", "Multiply": "Mul", "Subtract": "Sub", "Maximum": "Maximum",
          "Minimum": "Minimum"}[cfg["__class__"]]
    y = xs[0]
    for x in xs[1:]:
        y = b.node(op, name, [y, x], T=F32)
    return y


@_layer("Concatenate")
def _concat(b: _Builder, name: str, cfg: dict, xs: list[str]) -> str:
    axis = b.const(name, np.int32(cfg.get("axis", -1)))
    return b.node("ConcatV2", name, [*xs, axis], T=F32, N=len(xs))


@_layer("ZeroPadding2D")
def _zero_pad(b: _Builder, name: str, cfg: dict, xs: list[str]) -> str:
    pad = cfg["padding"]
    pads = [[0, 0], list(pad[0]), list(pad[1]), [0, 0]]
    return b.node("Pad", name, [xs[0], b.const(name, np.array(pads, np.int32))], T=F32)


@_layer("Cropping2D")
def _crop(b: _Builder, name: str, cfg: dict, xs: list[str]) -> str:
    (top, bottom), (left, right) = cfg["cropping"]
    begin = b.const(name, np.array([0, top, left, 0], np.int32))
    end = b.const(name, np.array([0, -bottom or 0, -right or 0, 0], np.int32))
    ones = b.const(name, np.ones(4, np.int32))
    end_mask = 1 | 8 | (2 if not bottom else 0) | (4 if not right else 0)
    return b.node("StridedSlice", name, [xs[0], begin, end, ones], T=F32, Index=np.int32,
                  begin_mask=9, end_mask=end_mask, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0)


@_layer("MaxPooling2D", "AveragePooling2D")
def _pool(b: _Builder, name: str, cfg: dict, xs: list[str]) -> str:
    op = "MaxPool" if cfg["__class__"] == "MaxPooling2D" else "AvgPool"
    strides = cfg.get("strides") or cfg["pool_size"]
    return b.node(op, name, xs, T=F32, ksize=_window(cfg, "pool_size"),
                  strides=[1, *strides, 1], padding=cfg["padding"].upper(), data_format="NHWC")


@_layer("GlobalAveragePooling2D", "GlobalMaxPooling2D", "GlobalAveragePooling1D")
def _global_pool(b: _Builder, name: str, cfg: dict, xs: list[str]) -> str:
    op = "Max" if "Max" in cfg["__class__"] else "Mean"
    axes = [1] if cfg["__class__"].endswith("1D") else [1, 2]
    return b.node(op, name, [xs[0], b.const(name, np.array(axes, np.int32))], T=F32,
                  keep_dims=bool(cfg.get("keepdims", False)))


@_layer("Flatten")
def _flatten(b: _Builder, name: str, cfg: dict, xs: list[str]) -> str:
    """Reshape to [batch, -1], the batch read from the input (as Keras writes it)."""
    ints = {"T": np.int32, "Index": np.int32}
    batch = b.node("StridedSlice", name, [b.node("Shape", name, xs, T=F32, out_type=np.int32),
                                          *(b.const(name, np.array([i], np.int32))
                                            for i in (0, 1, 1))],
                   shrink_axis_mask=1, **ints)
    shape = b.node("Pack", name, [batch, b.const(name, np.int32(-1))], T=np.int32, N=2)
    return b.node("Reshape", name, [xs[0], shape], T=F32, Tshape=np.int32)


@_layer("Reshape")
def _reshape(b: _Builder, name: str, cfg: dict, xs: list[str]) -> str:
    shape = b.const(name, np.array([-1, *cfg["target_shape"]], np.int32))
    return b.node("Reshape", name, [xs[0], shape], T=F32, Tshape=np.int32)


def _spatial(cfg: dict) -> list[int]:
    """The layer input's height and width, from its build config."""
    shape = cfg["__build__"].get("input_shape")
    if shape is None or None in shape[1:3]:
        msg = f"{cfg['__class__']} on an input of unknown height or width"
        raise KeyError(msg)
    return list(shape[1:3])


def _resize(b: _Builder, name: str, x: str, size: list[int], interpolation: str) -> str:
    """tf.image.resize: half-pixel centers."""
    op = {"bilinear": "ResizeBilinear", "nearest": "ResizeNearestNeighbor"}.get(interpolation)
    if op is None:
        msg = f"{interpolation} interpolation"
        raise KeyError(msg)
    return b.node(op, name, [x, b.const(name, np.array(size, np.int32))], T=F32,
                  align_corners=False, half_pixel_centers=True)


@_layer("UpSampling2D")
def _upsample(b: _Builder, name: str, cfg: dict, xs: list[str]) -> str:
    size = [d * s for d, s in zip(_spatial(cfg), cfg["size"], strict=True)]
    return _resize(b, name, xs[0], size, cfg["interpolation"])


@_layer("Resizing")
def _resizing(b: _Builder, name: str, cfg: dict, xs: list[str]) -> str:
    if cfg.get("crop_to_aspect_ratio") or cfg.get("pad_to_aspect_ratio"):
        msg = "Resizing to an aspect ratio"
        raise KeyError(msg)
    return _resize(b, name, xs[0], [cfg["height"], cfg["width"]], cfg["interpolation"])


@_layer("Conv2DTranspose")
def _conv_transpose(b: _Builder, name: str, cfg: dict, xs: list[str]) -> str:
    if cfg.get("output_padding") or any(d != 1 for d in cfg["dilation_rate"]):
        msg = "Conv2DTranspose with output_padding or dilation"
        raise KeyError(msg)
    w = b.vars(name)  # [kh, kw, filters, in], TF's conv2d_transpose layout
    out = [d * s + (max(k - s, 0) if cfg["padding"] == "valid" else 0)
           for d, s, k in zip(_spatial(cfg), cfg["strides"], cfg["kernel_size"], strict=True)]
    sizes = b.const(name, np.array([1, *out, cfg["filters"]], np.int32))
    y = b.node("Conv2DBackpropInput", name, [sizes, b.const(name, w[0]), xs[0]], T=F32,
               strides=_window(cfg, "strides"), padding=cfg["padding"].upper(),
               data_format="NHWC")
    return _bias(b, name, y, cfg, w)


@_layer("Dropout", "SpatialDropout2D", "GaussianNoise", "ActivityRegularization")
def _identity(b: _Builder, name: str, cfg: dict, xs: list[str]) -> str:
    return xs[0]


@_layer("Rescaling")
def _rescale(b: _Builder, name: str, cfg: dict, xs: list[str]) -> str:
    y = b.node("Mul", name, [xs[0], b.const(name, np.asarray(cfg["scale"], F32))], T=F32)
    return b.node("AddV2", name, [y, b.const(name, np.asarray(cfg["offset"], F32))], T=F32)


@_layer("Normalization")
def _normalize(b: _Builder, name: str, cfg: dict, xs: list[str]) -> str:
    given = cfg.get("mean") is not None and cfg.get("variance") is not None
    mean, var = ((np.asarray(cfg["mean"], F32), np.asarray(cfg["variance"], F32)) if given
                 else (np.asarray(v, F32) for v in b.vars(name)[:2]))
    scale = (1 / np.maximum(np.sqrt(var), 1e-7)).astype(F32)  # Keras divides by max(std, eps)
    y = b.node("Mul", name, [xs[0], b.const(name, scale)], T=F32)
    return b.node("AddV2", name, [y, b.const(name, (-mean * scale).astype(F32))], T=F32)


def _snake(name: str) -> str:
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def _read_weights(h5, layers: list[dict]) -> dict[str, list[np.ndarray]]:
    """Each layer's weights. The file keys them not by layer name but by class, numbered in
    model order: conv2d, conv2d_1, ..."""
    out, seen = {}, {}
    group = h5.get("layers")
    for layer in layers:
        base = _snake(layer["class_name"])
        count = seen.get(base, 0)
        seen[base] = count + 1
        key = f"{base}_{count}" if count else base
        vars_ = group.get(f"{key}/vars") if group is not None and key in group else None
        if vars_ is not None:
            out[layer["name"]] = [np.asarray(vars_[k]) for k in sorted(vars_, key=int)]
    return out


def _tensor_name(ref: dict, outputs: dict) -> str:
    layer, node_index, _ = ref["config"]["keras_history"]
    return outputs[(layer, node_index)]


def _inputs(args, outputs: dict) -> list[str]:
    """The tensor names a call's args hold (a tensor, or a list of them)."""
    if isinstance(args, dict) and args.get("class_name") == "__keras_tensor__":
        return [_tensor_name(args, outputs)]
    if isinstance(args, list):
        return [t for a in args for t in _inputs(a, outputs)]
    return []


def _build(config: dict, weights: dict) -> GraphBuilder:
    b = _Builder(weights)
    outputs: dict[tuple[str, int], str] = {}
    for layer in config["layers"]:
        cls, cfg, name = layer["class_name"], layer["config"], layer["name"]
        if cls == "InputLayer":
            shape = [-1 if d is None else d for d in cfg["batch_shape"]]
            outputs[(name, 0)] = b.g.placeholder(name, shape)
            continue
        if cls not in _LAYERS:
            msg = f"Keras layer {cls} ('{name}')"
            raise KeyError(msg)
        for index, call in enumerate(layer["inbound_nodes"]):
            xs = _inputs(call["args"], outputs)
            full = {**cfg, "__class__": cls, "__build__": layer.get("build_config") or {}}
            try:
                outputs[(name, index)] = _LAYERS[cls](b, name, full, xs)
            except (ValueError, IndexError, TypeError) as err:
                msg = f"Keras layer {cls} ('{name}') with these settings or weights ({err})"
                raise KeyError(msg) from None
    heads = config["output_layers"]
    heads = [heads] if heads and isinstance(heads[0], str) else heads  # one output: one triple
    for i, (layer, index, _) in enumerate(heads):
        b.g.node("Identity", f"output_{i}", [outputs[(layer, index)]], T=F32)
    return b.g


def load_keras(path: Path):
    """The frozen GraphDef of a Keras 3 .keras file."""
    try:
        import h5py
    except ImportError:
        msg = f"{path}: reading a .keras file needs h5py (pip install 'extgen[keras]')"
        raise UsageError(msg) from None
    try:
        with zipfile.ZipFile(path) as archive:
            config = json.loads(archive.read("config.json"))
            with archive.open("model.weights.h5") as raw, h5py.File(raw, "r") as h5:
                weights = _read_weights(h5, config["config"]["layers"])
    except (zipfile.BadZipFile, KeyError, OSError, ValueError) as err:
        msg = f"{path}: not a Keras 3 .keras file ({err})"
        raise InputFileError(msg) from None
    if config.get("class_name") != "Functional":
        msg = f"{path}: a {config.get('class_name')} model; only functional Keras models are read"
        raise ModelFormatError(msg)
    try:
        return _build(config["config"], weights).graph_def
    except KeyError as err:
        msg = (f"{path}: {err.args[0] if err.args else err} is not read from .keras files; "
               "export a SavedModel (model.export(folder)) and pass --saved_model_dir")
        raise ModelFormatError(msg) from None
