"""ONNX's optimizer steps (ai.onnx.preview.training Adagrad, Momentum, Adam) as elementwise
ops: each tensor X, with its gradient G and its accumulators, gets its new value and new
accumulators, by the update rules of the ONNX spec."""

from __future__ import annotations

import numpy as np

from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port

_DOMAIN = "ai.onnx.preview.training::"


def _like(n: OnnxNode, value: float, x: Port) -> Port:
    return n.op("ConvertLike", [np.float32(value), x])


def _groups(n: OnnxNode, count: int) -> list[list[Port]]:
    """The tensor inputs after R and T as `count` equal groups (X..., G..., ...)."""
    tensors = [n.input(i) for i in range(2, n.num_inputs)]
    size = len(tensors) // count
    if size * count != len(tensors) or not size:
        n.reject(f"has {len(tensors)} tensor inputs, not {count} groups of one per tensor",
                 "pass R, T, then the tensors, their gradients and accumulators")
    return [tensors[i * size:(i + 1) * size] for i in range(count)]


def _regularized(n: OnnxNode, x: Port, g: Port) -> Port:
    """norm_coefficient * X + G."""
    return n.op("Add", [n.op("Multiply", [_like(n, n.attr("norm_coefficient", 0.0), x), x]), g])


@onnx_op(_DOMAIN + "Adagrad")
def adagrad(n: OnnxNode) -> list[Port]:
    rate, count = n.input(0), n.input(1)
    decay = n.op("Multiply", [n.op("ConvertLike", [count, rate]),
                              _like(n, n.attr("decay_factor", 0.0), rate)])
    r = n.op("Divide", [rate, n.op("Add", [_like(n, 1, rate), decay])])
    news, squares = [], []
    for x, g, h in zip(*_groups(n, 3)):
        g = _regularized(n, x, g)
        h_new = n.op("Add", [h, n.op("Multiply", [g, g])])
        adaptive = n.op("Add", [n.op("Sqrt", [h_new]), _like(n, n.attr("epsilon", 1e-6), x)])
        step = n.op("Divide", [n.op("Multiply", [n.op("ConvertLike", [r, x]), g]), adaptive])
        news.append(n.op("Subtract", [x, step]))
        squares.append(h_new)
    return news + squares


@onnx_op(_DOMAIN + "Momentum")
def momentum(n: OnnxNode) -> list[Port]:
    rate, count = n.input(0), n.input(1)
    alpha, beta = float(n.attr("alpha")), float(n.attr("beta"))
    nesterov = n.attr("mode", "standard") == "nesterov"
    first = n.op("Greater", [count, n.op("ConvertLike", [np.int64(0), count])])
    news, momenta = [], []
    for x, g, v in zip(*_groups(n, 3)):
        g = _regularized(n, x, g)
        beta_now = n.op("Select", [first, _like(n, beta, x), _like(n, 1, x)])
        v_new = n.op("Add", [n.op("Multiply", [_like(n, alpha, x), v]),
                             n.op("Multiply", [beta_now, g])])
        direction = (n.op("Add", [g, n.op("Multiply", [_like(n, alpha, x), v_new])])
                     if nesterov else v_new)
        news.append(n.op("Subtract", [x, n.op("Multiply", [n.op("ConvertLike", [rate, x]),
                                                          direction])]))
        momenta.append(v_new)
    return news + momenta


@onnx_op(_DOMAIN + "Adam")
def adam(n: OnnxNode) -> list[Port]:
    rate, count = n.input(0), n.input(1)
    alpha, beta = float(n.attr("alpha", 0.9)), float(n.attr("beta", 0.999))
    steps = n.op("ConvertLike", [count, rate])
    bias = n.op("Divide", [
        n.op("Sqrt", [n.op("Subtract", [_like(n, 1, rate),
                                        n.op("Power", [_like(n, beta, rate), steps])])]),
        n.op("Subtract", [_like(n, 1, rate), n.op("Power", [_like(n, alpha, rate), steps])])])
    started = n.op("Greater", [count, n.op("ConvertLike", [np.int64(0), count])])
    r = n.op("Select", [started, n.op("Multiply", [rate, bias]), rate])
    news, firsts, seconds = [], [], []
    for x, g, v, h in zip(*_groups(n, 4)):
        g = _regularized(n, x, g)
        v_new = n.op("Add", [n.op("Multiply", [_like(n, alpha, x), v]),
                             n.op("Multiply", [_like(n, 1 - alpha, x), g])])
        h_new = n.op("Add", [n.op("Multiply", [_like(n, beta, x), h]),
                             n.op("Multiply", [_like(n, 1 - beta, x), n.op("Multiply", [g, g])])])
        root = n.op("Add", [n.op("Sqrt", [h_new]), _like(n, n.attr("epsilon", 1e-6), x)])
        x_new = n.op("Subtract", [x, n.op("Divide", [
            n.op("Multiply", [n.op("ConvertLike", [r, x]), v_new]), root])])
        post = _like(n, 1 - n.attr("norm_coefficient_post", 0.0), x)
        news.append(n.op("Multiply", [post, x_new]))
        firsts.append(v_new)
        seconds.append(h_new)
    return news + firsts + seconds
