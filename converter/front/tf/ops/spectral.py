"""TensorFlow translators for Fourier transforms: (I)FFT, (I)FFT2D/3D as DFT-7/IDFT-7, (I)RFFT,
(I)RFFT2D/3D as RDFT-9/IRDFT-9. A complex tensor is carried as its float pairs (a trailing
[re, im] axis, as the IR's DFT ops take them); Complex, Real, Imag and ComplexAbs read and build
those pairs."""

from __future__ import annotations

import numpy as np

from converter.front.tf.translator import TfNode, tf_op

_KIND = {"FFT": "DFT", "IFFT": "IDFT", "RFFT": "RDFT", "IRFFT": "IRDFT"}


def _fft(name: str):
    kind = _KIND[name]
    real = kind.startswith(("R", "IR"))

    def translate(n: TfNode):
        dims = {"2D": 2, "3D": 3}.get(n.op_type[-2:], 1)
        axes = n.const(list(range(-dims, 0)), np.int64)
        inputs = [n.input(0), axes]
        if real:
            inputs.append(n.op("Convert", [n.input(1)], destination_type=np.dtype(np.int64)))
        return [n.op(kind, inputs)]

    return translate


for _name in _KIND:
    for _suffix in ("", "2D", "3D"):
        tf_op(_name + _suffix)(_fft(_name))


def _part(n: TfNode, index: int):
    return n.op("Gather", [n.input(0), n.const(index, np.int64), n.const(-1, np.int64)],
                batch_dims=0)


@tf_op("Real")
def real(n: TfNode):
    return [_part(n, 0)]


@tf_op("Imag")
def imag(n: TfNode):
    return [_part(n, 1)]


@tf_op("Complex")
def complex_(n: TfNode):
    last = n.const([-1], np.int64)
    parts = [n.op("Unsqueeze", [n.input(i), last]) for i in (0, 1)]
    return [n.op("Concat", parts, axis=-1)]


@tf_op("ComplexAbs")
def complex_abs(n: TfNode):
    x = n.input(0)
    squares = n.op("ReduceSum", [n.op("Multiply", [x, x]), n.const([-1], np.int64)],
                   keep_dims=False)
    return [n.op("Sqrt", [squares])]
