"""Kaldi's linear components: affine and linear transforms, per-dimension scales and shifts."""

from __future__ import annotations

import numpy as np

from converter.front import mo_front
from converter.front.kaldi.translator import KaldiNode, kaldi_op
from converter.graph.port import Port


def _matmul(n: KaldiNode, weights: np.ndarray, bias: np.ndarray | None,
            mo_fc: bool = True) -> Port:
    """x @ W^T (+ b), W stored [out, in] as Kaldi does; mo_fc: MO's FullyConnected, to legacy
    passes (MO's TdnnComponent was its own op)."""
    if weights.ndim != 2:
        n.reject(f"weights of shape {list(weights.shape)} are not a matrix",
                 "the model is corrupt")
    y = n.op("MatMul", [n.input(0), n.const(weights, np.float32)], transpose_b=True)
    out = y
    if bias is not None and bias.size:
        if bias.shape != (weights.shape[0],):
            n.reject(f"{bias.size} biases for {weights.shape[0]} outputs", "the model is corrupt")
        out = n.op("Add", [y, n.const(bias.reshape(1, -1), np.float32)])
    return mo_front.affine(out, y) if mo_fc else out


@kaldi_op("AffineTransform")
def affine_transform(n: KaldiNode) -> list[Port]:
    return [_matmul(n, n.comp.data(0), n.comp.data(1))]


@kaldi_op("LinearTransform")
def linear_transform(n: KaldiNode) -> list[Port]:
    return [_matmul(n, n.comp.data(0), None)]


@kaldi_op("AffineComponent", "FixedAffineComponent", "NaturalGradientAffineComponent",
          "AffineComponentPreconditionedOnline")
def affine_component(n: KaldiNode) -> list[Port]:
    return [_matmul(n, n.comp.array("<LinearParams>"), n.comp.array("<BiasParams>"))]


@kaldi_op("LinearComponent")
def linear_component(n: KaldiNode) -> list[Port]:
    return [_matmul(n, n.comp.array("<Params>"), None)]


@kaldi_op("TdnnComponent")
def tdnn_component(n: KaldiNode) -> list[Port]:
    """The input comes spliced by <TimeOffsets> (the loader reads the frames)."""
    bias = n.comp.array("<BiasParams>", default=None)
    return [_matmul(n, n.comp.array("<LinearParams>"), bias, mo_fc=False)]


def _scale_shift(n: KaldiNode, scale: np.ndarray | None, shift: np.ndarray | None) -> Port:
    y = n.input(0)
    if scale is not None:
        y = n.op("Multiply", [y, n.const(np.reshape(scale, (1, -1)), np.float32)])
        product = y
    if shift is not None:
        y = n.op("Add", [y, n.const(np.reshape(shift, (1, -1)), np.float32)])
    return mo_front.scale_shift(y, product) if scale is not None else y


@kaldi_op("AddShift")
def add_shift(n: KaldiNode) -> list[Port]:
    return [_scale_shift(n, None, n.comp.data(0))]


@kaldi_op("Rescale")
def rescale(n: KaldiNode) -> list[Port]:
    return [_scale_shift(n, n.comp.data(0), None)]


@kaldi_op("FixedScaleComponent")
def fixed_scale(n: KaldiNode) -> list[Port]:
    return [_scale_shift(n, n.comp.array("<Scales>"), None)]


@kaldi_op("NaturalGradientPerElementScaleComponent", "PerElementScaleComponent")
def per_element_scale(n: KaldiNode) -> list[Port]:
    return [_scale_shift(n, n.comp.array("<Params>"), None)]


@kaldi_op("FixedBiasComponent")
def fixed_bias(n: KaldiNode) -> list[Port]:
    return [_scale_shift(n, None, n.comp.array("<Bias>"))]


@kaldi_op("ScaleComponent", "BackpropTruncationComponent")
def scale_component(n: KaldiNode) -> list[Port]:
    """A constant factor (BackpropTruncation's <Scale>, as MO applied it)."""
    scale = n.comp.float("<Scale>", 1.0)
    if scale == 1.0:
        return [n.input(0)]
    y = n.op("Multiply", [n.input(0), n.const(np.array([scale]), np.float32)])
    return [mo_front.scale_shift(y, y)]
