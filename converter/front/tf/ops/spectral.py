"""TensorFlow translators for Fourier transforms: (I)FFT, (I)FFT2D/3D as DFT-7/IDFT-7, (I)RFFT,
(I)RFFT2D/3D as RDFT-9/IRDFT-9. A complex tensor is carried as its float pairs (a trailing
[re, im] axis, as the IR's DFT ops take them); Complex, Real, Imag and ComplexAbs read and build
those pairs."""

from __future__ import annotations

import numpy as np

from converter.front.tf.translator import TfNode, tf_op
from converter.graph.port import Port

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
    # the parts broadcast against each other, as in TF
    re, im = n.input(0), n.input(1)
    shape = n.op("ShapeOf", [n.op("Add", [re, im])], output_type=np.dtype(np.int64))
    re, im = (n.op("Broadcast", [p, shape], mode="numpy") for p in (re, im))
    return [_pair(n, re, im)]


@tf_op("ComplexAbs")
def complex_abs(n: TfNode):
    x = n.input(0)
    squares = n.op("ReduceSum", [n.op("Multiply", [x, x]), n.const([-1], np.int64)],
                   keep_dims=False)
    return [n.op("Sqrt", [squares])]


def is_complex(n: TfNode, attr: str = "T") -> bool:
    dtype = n.attr(attr)
    return dtype is not None and np.dtype(dtype).kind == "c"


def _parts(n: TfNode, x: Port) -> tuple[Port, Port]:
    return tuple(n.op("Gather", [x, n.const(i, np.int64), n.const(-1, np.int64)], batch_dims=0)
                 for i in (0, 1))


def _pair(n: TfNode, re: Port, im: Port) -> Port:
    last = n.const([-1], np.int64)
    return n.op("Concat", [n.op("Unsqueeze", [re, last]), n.op("Unsqueeze", [im, last])],
                axis=-1)


def complex_op(n: TfNode, kind: str, inputs: list[Port]) -> Port:
    """Opset op `kind` on complex operands carried as [re, im] pairs: sums and negation work on
    the pairs as they are; products and Exp take the parts apart."""
    if kind in ("Add", "Subtract", "Negative"):
        return n.op(kind, inputs)
    if kind == "Multiply":
        (ar, ai), (br, bi) = (_parts(n, x) for x in inputs)
        re = n.op("Subtract", [n.op("Multiply", [ar, br]), n.op("Multiply", [ai, bi])])
        im = n.op("Add", [n.op("Multiply", [ar, bi]), n.op("Multiply", [ai, br])])
        return _pair(n, re, im)
    if kind == "Exp":  # e^re (cos im + i sin im)
        re, im = _parts(n, inputs[0])
        scale = n.op("Exp", [re])
        return _pair(n, n.op("Multiply", [scale, n.op("Cos", [im])]),
                     n.op("Multiply", [scale, n.op("Sin", [im])]))
    n.reject(f"{n.op_type} on complex numbers is not supported",
             "keep complex values to FFTs, sums, products, Exp and Real/Imag/ComplexAbs")


def complex_strided_slice(n: TfNode, masks: dict) -> Port:
    """StridedSlice of a complex tensor: the spec gets a whole-axis slice of the pair axis."""
    i64 = np.dtype(np.int64)
    spec = [n.op("Concat", [n.op("Convert", [n.input(i)], destination_type=i64),
                            n.const([fill], np.int64)], axis=0)
            for i, fill in ((1, 0), (2, 0), (3, 1))]
    masks = {k: [*v, 1 if k in ("begin_mask", "end_mask") else 0] for k, v in masks.items()}
    return n.op("StridedSlice", [n.input(0), *spec], **masks)


def complex_cast(n: TfNode) -> Port:
    """Cast into complex (imaginary part 0) or out of it (the real part, as TF does)."""
    x = n.input(0)
    if is_complex(n, "SrcT"):
        real = _parts(n, x)[0]
        return n.op("Convert", [real], destination_type=n.attr("DstT"))
    dtype = np.dtype(np.float32 if np.dtype(n.attr("DstT")).itemsize == 8 else np.float64)
    re = n.op("Convert", [x], destination_type=dtype)
    return _pair(n, re, n.op("Multiply", [re, n.const(0, dtype)]))
