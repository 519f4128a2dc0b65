"""The Keras layers read from a .keras file, each as the TensorFlow ops Keras runs for it
(Conv2D + BiasAdd + activation, FusedBatchNormV3, ...), its weights Consts. A layer function
takes the builder, the layer's name, its config (with `__class__`, `__build__`: the build config,
and `__tree__`: its weights group from model.weights.h5) and its input tensors, and returns its
output tensor. Settings a function cannot express raise KeyError naming them.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from converter.front.tf.writer import GraphBuilder

__all__ = ["F32", "LAYERS", "Builder", "activate", "batch_size", "layer", "weights_of"]

F32 = np.dtype(np.float32)
_ACTIVATIONS = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "elu": "Elu",
                "selu": "Selu", "softplus": "Softplus", "softsign": "Softsign",
                "swish": "Swish", "silu": "Swish", "relu6": "Relu6"}


class Builder:
    """The GraphDef under construction; node names are unique by a running count."""

    def __init__(self) -> None:
        self.g = GraphBuilder()
        self.count = 0

    def name(self, base: str) -> str:
        self.count += 1
        return f"{base}/{self.count}"

    def node(self, op: str, base: str, inputs: list[str], **attrs) -> str:
        return self.g.node(op, self.name(base), inputs, **attrs)

    def const(self, base: str, value) -> str:
        return self.g.const(self.name(base), np.asarray(value))


def weights_of(cfg: dict, *path: str) -> list[np.ndarray]:
    """The layer's variables (or those of its sub-layer at path, e.g. "cell"), in creation
    order."""
    tree = cfg.get("__tree__") or {}
    for key in path:
        tree = tree.get(key) or {}
    found = tree.get("vars") or {}
    return [found[k] for k in sorted(found, key=int)]


def batch_size(b: Builder, name: str, x: str) -> str:
    """The scalar batch size of x, read from its shape (as Keras writes it)."""
    ints = {"T": np.int32, "Index": np.int32}
    return b.node("StridedSlice", name, [b.node("Shape", name, [x], T=F32, out_type=np.int32),
                                         *(b.const(name, np.array([i], np.int32))
                                           for i in (0, 1, 1))],
                  shrink_axis_mask=1, **ints)


Layer = Callable[[Builder, str, dict, list[str]], str]
LAYERS: dict[str, Layer] = {}


def layer(*names: str) -> Callable[[Layer], Layer]:
    def register(fn: Layer) -> Layer:
        for name in names:
            LAYERS[name] = fn
        return fn

    return register


def activate(b: Builder, name: str, x: str, activation: str | None) -> str:
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


def _bias(b: Builder, name: str, x: str, cfg: dict, weights: list[np.ndarray],
          at: int = 1) -> str:
    """x + weights[at] (when the layer uses a bias), then the layer's activation."""
    if cfg.get("use_bias", True):
        x = b.node("BiasAdd", name, [x, b.const(name, weights[at])], T=F32)
    return activate(b, name, x, cfg.get("activation"))


def _window(cfg: dict, key: str) -> list[int]:
    return [1, *cfg[key], 1]


def _windowed(b: Builder, op: str, name: str, cfg: dict, x: str, w) -> str:
    """A TF convolution node with the layer's strides, padding and dilations."""
    return b.node(op, name, [x, b.const(name, w)], T=F32, strides=_window(cfg, "strides"),
                  padding=cfg["padding"].upper(), dilations=_window(cfg, "dilation_rate"),
                  data_format="NHWC")


@layer("Conv2D")
def _conv(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    w = weights_of(cfg)
    groups = cfg.get("groups", 1)
    if groups == 1:
        return _bias(b, name, _windowed(b, "Conv2D", name, cfg, xs[0], w[0]), cfg, w)
    kh, kw, per_group, filters = w[0].shape
    if per_group != 1:
        msg = "Conv2D with groups of more than one input channel"
        raise KeyError(msg)
    kernel = w[0].reshape(kh, kw, groups, filters // groups)  # one group per input channel
    return _bias(b, name, _windowed(b, "DepthwiseConv2dNative", name, cfg, xs[0], kernel),
                 cfg, w)


@layer("Conv1D")
def _conv1d(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    """Conv2D on [B, 1, T, C], as Keras' tf.nn.convolution runs it."""
    if cfg["padding"] == "causal" or cfg.get("groups", 1) != 1:
        msg = "Conv1D with causal padding or groups"
        raise KeyError(msg)
    w = weights_of(cfg)
    x = b.node("ExpandDims", name, [xs[0], b.const(name, np.int32(1))], T=F32, Tdim=np.int32)
    y = b.node("Conv2D", name, [x, b.const(name, w[0][None])], T=F32,
               strides=[1, 1, *cfg["strides"], 1], padding=cfg["padding"].upper(),
               dilations=[1, 1, *cfg["dilation_rate"], 1], data_format="NHWC")
    return _bias(b, name, b.node("Squeeze", name, [y], T=F32, squeeze_dims=[1]), cfg, w)


@layer("DepthwiseConv2D")
def _depthwise(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    w = weights_of(cfg)
    return _bias(b, name, _windowed(b, "DepthwiseConv2dNative", name, cfg, xs[0], w[0]), cfg, w)


@layer("SeparableConv2D")
def _separable(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    w = weights_of(cfg)
    y = _windowed(b, "DepthwiseConv2dNative", name, cfg, xs[0], w[0])
    y = b.node("Conv2D", name, [y, b.const(name, w[1])], T=F32, strides=[1, 1, 1, 1],
               padding="VALID", data_format="NHWC")
    return _bias(b, name, y, cfg, w, at=2)


@layer("Dense")
def _dense(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    w = weights_of(cfg)
    return _bias(b, name, b.node("MatMul", name, [xs[0], b.const(name, w[0])], T=F32), cfg, w)


@layer("BatchNormalization")
def _batch_norm(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    w = list(weights_of(cfg))
    gamma = w.pop(0) if cfg.get("scale", True) else None
    beta = w.pop(0) if cfg.get("center", True) else None
    mean, var = w
    gamma = np.ones_like(mean) if gamma is None else gamma
    beta = np.zeros_like(mean) if beta is None else beta
    scale = gamma / np.sqrt(var + cfg["epsilon"])
    y = b.node("Mul", name, [xs[0], b.const(name, scale.astype(F32))], T=F32)
    return b.node("AddV2", name, [y, b.const(name, (beta - mean * scale).astype(F32))], T=F32)


@layer("Activation")
def _activation(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    return activate(b, name, xs[0], cfg["activation"])


@layer("ReLU")
def _relu(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    if cfg.get("negative_slope") or cfg.get("threshold"):
        msg = "ReLU with negative_slope or threshold"
        raise KeyError(msg)
    if cfg.get("max_value") == 6:
        return b.node("Relu6", name, xs, T=F32)
    y = b.node("Relu", name, xs, T=F32)
    if cfg.get("max_value") is not None:
        y = b.node("Minimum", name, [y, b.const(name, F32.type(cfg["max_value"]))], T=F32)
    return y


@layer("Add", "Multiply", "Subtract", "Maximum", "Minimum")
def _merge(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    op = {"Add": "AddV2", "Multiply": "Mul", "Subtract": "Sub", "Maximum": "Maximum",
          "Minimum": "Minimum"}[cfg["__class__"]]
    y = xs[0]
    for x in xs[1:]:
        y = b.node(op, name, [y, x], T=F32)
    return y


@layer("Concatenate")
def _concat(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    axis = b.const(name, np.int32(cfg.get("axis", -1)))
    return b.node("ConcatV2", name, [*xs, axis], T=F32, N=len(xs))


@layer("ZeroPadding2D")
def _zero_pad(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    pad = cfg["padding"]
    pads = [[0, 0], list(pad[0]), list(pad[1]), [0, 0]]
    return b.node("Pad", name, [xs[0], b.const(name, np.array(pads, np.int32))], T=F32)


@layer("Cropping2D")
def _crop(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    (top, bottom), (left, right) = cfg["cropping"]
    begin = b.const(name, np.array([0, top, left, 0], np.int32))
    end = b.const(name, np.array([0, -bottom or 0, -right or 0, 0], np.int32))
    ones = b.const(name, np.ones(4, np.int32))
    end_mask = 1 | 8 | (2 if not bottom else 0) | (4 if not right else 0)
    return b.node("StridedSlice", name, [xs[0], begin, end, ones], T=F32, Index=np.int32,
                  begin_mask=9, end_mask=end_mask, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0)


@layer("MaxPooling2D", "AveragePooling2D")
def _pool(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    op = "MaxPool" if cfg["__class__"] == "MaxPooling2D" else "AvgPool"
    strides = cfg.get("strides") or cfg["pool_size"]
    return b.node(op, name, xs, T=F32, ksize=_window(cfg, "pool_size"),
                  strides=[1, *strides, 1], padding=cfg["padding"].upper(), data_format="NHWC")


@layer("GlobalAveragePooling2D", "GlobalMaxPooling2D", "GlobalAveragePooling1D")
def _global_pool(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    op = "Max" if "Max" in cfg["__class__"] else "Mean"
    axes = [1] if cfg["__class__"].endswith("1D") else [1, 2]
    return b.node(op, name, [xs[0], b.const(name, np.array(axes, np.int32))], T=F32,
                  keep_dims=bool(cfg.get("keepdims", False)))


@layer("Flatten")
def _flatten(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    """Reshape to [batch, -1], the batch read from the input (as Keras writes it)."""
    shape = b.node("Pack", name, [batch_size(b, name, xs[0]), b.const(name, np.int32(-1))],
                   T=np.int32, N=2)
    return b.node("Reshape", name, [xs[0], shape], T=F32, Tshape=np.int32)


@layer("Reshape")
def _reshape(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    shape = b.const(name, np.array([-1, *cfg["target_shape"]], np.int32))
    return b.node("Reshape", name, [xs[0], shape], T=F32, Tshape=np.int32)


def _spatial(cfg: dict) -> list[int]:
    """The layer input's height and width, from its build config."""
    shape = cfg["__build__"].get("input_shape")
    if shape is None or None in shape[1:3]:
        msg = f"{cfg['__class__']} on an input of unknown height or width"
        raise KeyError(msg)
    return list(shape[1:3])


def _resize(b: Builder, name: str, x: str, size: list[int], interpolation: str) -> str:
    """tf.image.resize: half-pixel centers."""
    op = {"bilinear": "ResizeBilinear", "nearest": "ResizeNearestNeighbor"}.get(interpolation)
    if op is None:
        msg = f"{interpolation} interpolation"
        raise KeyError(msg)
    return b.node(op, name, [x, b.const(name, np.array(size, np.int32))], T=F32,
                  align_corners=False, half_pixel_centers=True)


@layer("UpSampling2D")
def _upsample(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    size = [d * s for d, s in zip(_spatial(cfg), cfg["size"], strict=True)]
    return _resize(b, name, xs[0], size, cfg["interpolation"])


@layer("Resizing")
def _resizing(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    if cfg.get("crop_to_aspect_ratio") or cfg.get("pad_to_aspect_ratio"):
        msg = "Resizing to an aspect ratio"
        raise KeyError(msg)
    return _resize(b, name, xs[0], [cfg["height"], cfg["width"]], cfg["interpolation"])


@layer("Conv2DTranspose")
def _conv_transpose(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    if cfg.get("output_padding") or any(d != 1 for d in cfg["dilation_rate"]):
        msg = "Conv2DTranspose with output_padding or dilation"
        raise KeyError(msg)
    w = weights_of(cfg)  # [kh, kw, filters, in], TF's conv2d_transpose layout
    out = [d * s + (max(k - s, 0) if cfg["padding"] == "valid" else 0)
           for d, s, k in zip(_spatial(cfg), cfg["strides"], cfg["kernel_size"], strict=True)]
    sizes = b.const(name, np.array([1, *out, cfg["filters"]], np.int32))
    y = b.node("Conv2DBackpropInput", name, [sizes, b.const(name, w[0]), xs[0]], T=F32,
               strides=_window(cfg, "strides"), padding=cfg["padding"].upper(),
               data_format="NHWC")
    return _bias(b, name, y, cfg, w)


@layer("Permute")
def _permute(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    perm = b.const(name, np.array([0, *cfg["dims"]], np.int32))
    return b.node("Transpose", name, [xs[0], perm], T=F32, Tperm=np.int32)


@layer("Dropout", "SpatialDropout2D", "GaussianNoise", "ActivityRegularization")
def _identity(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    return xs[0]


@layer("Rescaling")
def _rescale(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    y = b.node("Mul", name, [xs[0], b.const(name, np.asarray(cfg["scale"], F32))], T=F32)
    return b.node("AddV2", name, [y, b.const(name, np.asarray(cfg["offset"], F32))], T=F32)


@layer("Normalization")
def _normalize(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    given = cfg.get("mean") is not None and cfg.get("variance") is not None
    mean, var = ((np.asarray(cfg["mean"], F32), np.asarray(cfg["variance"], F32)) if given
                 else (np.asarray(v, F32) for v in weights_of(cfg)[:2]))
    scale = (1 / np.maximum(np.sqrt(var), 1e-7)).astype(F32)  # Keras divides by max(std, eps)
    y = b.node("Mul", name, [xs[0], b.const(name, scale)], T=F32)
    return b.node("AddV2", name, [y, b.const(name, (-mean * scale).astype(F32))], T=F32)


@layer("LayerScale")
def _layer_scale(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    return b.node("Mul", name, [xs[0], b.const(name, weights_of(cfg)[0])], T=F32)
