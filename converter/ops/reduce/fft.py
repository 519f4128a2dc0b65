"""Fourier transforms DFT-7, IDFT-7, RDFT-9, IRDFT-9; complex values carry a trailing [re, im] dim. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/signals/dft-7.html"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from converter.graph.shape import DYN, Shape, normalize_axis
from converter.ops.op import Op


def _complex(x: np.ndarray) -> np.ndarray:
    return x[..., 0] + 1j * x[..., 1]


def _pairs(c: np.ndarray) -> np.ndarray:
    return np.stack([c.real, c.imag], axis=-1)


class FFTBase(Op):
    """Inputs data, axes, optional signal_size. Subclasses set the flags and `kernel`."""

    in_ports_count = 3
    complex_in: ClassVar[bool] = True
    complex_out: ClassVar[bool] = True

    @classmethod
    def lengths(cls, dims: Shape, axes: list[int], signal: np.ndarray | None) -> list[int]:
        """Transform length per axis: signal_size, where -1 (or no input) means the axis' size."""
        sizes = [dims[a] for a in axes]
        if signal is None:
            return sizes
        return [int(s) if int(s) != -1 else d for s, d in zip(np.asarray(signal).ravel(), sizes)]

    @classmethod
    def out_lengths(cls, lengths: list[int]) -> list[int]:
        return lengths

    @classmethod
    def kernel(cls, x: np.ndarray, axes: list[int], lengths: list[int]) -> np.ndarray:
        raise NotImplementedError

    @classmethod
    def _axes(cls, value: np.ndarray, rank: int) -> list[int]:
        return [normalize_axis(int(a), rank) for a in np.asarray(value).ravel()]

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        if shapes[0] is None:
            return [None]
        rank = len(shapes[0]) - int(cls.complex_in)
        out = [DYN] * rank
        if values[1] is not None:
            dims = shapes[0][:rank]
            axes = cls._axes(values[1], rank)
            has_signal = len(shapes) > 2 and shapes[2] is not None
            out = list(dims)
            if not has_signal or values[2] is not None:
                lengths = cls.lengths(dims, axes, values[2] if has_signal else None)
                new = cls.out_lengths(lengths)
            else:
                new = [DYN] * len(axes)
            for a, n in zip(axes, new):
                out[a] = n if n >= 0 else DYN
        return [tuple(out) + ((2,) if cls.complex_out else ())]

    @classmethod
    def evaluate(cls, attrs, inputs):
        x = np.asarray(inputs[0])
        rank = x.ndim - int(cls.complex_in)
        axes = cls._axes(inputs[1], rank)
        lengths = cls.lengths(x.shape[:rank], axes, inputs[2] if len(inputs) > 2 else None)
        return [cls.kernel(x, axes, lengths)]


class DFT(FFTBase):
    op = type = "DFT"
    version = "opset7"
    kernel = classmethod(lambda cls, x, axes, n: _pairs(np.fft.fftn(_complex(x), n, axes)))


class IDFT(FFTBase):
    op = type = "IDFT"
    version = "opset7"
    kernel = classmethod(lambda cls, x, axes, n: _pairs(np.fft.ifftn(_complex(x), n, axes)))


class RDFT(FFTBase):
    op = type = "RDFT"
    version = "opset9"
    complex_in = False
    kernel = classmethod(lambda cls, x, axes, n: _pairs(np.fft.rfftn(x, n, axes)))

    @classmethod
    def out_lengths(cls, lengths):
        last = lengths[-1]
        return [*lengths[:-1], last // 2 + 1 if last >= 0 else DYN]


class IRDFT(FFTBase):
    op = type = "IRDFT"
    version = "opset9"
    complex_out = False
    kernel = classmethod(lambda cls, x, axes, n: np.fft.irfftn(_complex(x), n, axes))

    @classmethod
    def lengths(cls, dims, axes, signal):
        sizes = super().lengths(dims, axes, signal)
        given = signal is not None and int(np.asarray(signal).ravel()[-1]) != -1
        last = dims[axes[-1]]
        if not given:
            sizes[-1] = 2 * (last - 1) if last >= 0 else DYN
        return sizes
