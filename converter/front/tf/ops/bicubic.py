"""TensorFlow's ResizeBicubic, exactly: per output row (then column) four taps around the source
position, weighted from TF's own 1025-entry cubic table at the fraction rounded to 1/1024 (an
exact cubic, as Interpolate's, is 1e-3 off). The weights and taps are computed in the graph
from the input's shape, so the input's size may be dynamic.

- half_pixel_centers: source x = (i + 0.5) * scale - 0.5; Keys' cubic (a = -0.5); a tap
  outside the image weighs 0 and the four weights are renormalized to sum 1.
- otherwise: source x = i * scale (scale = (in - 1) / (out - 1) with align_corners); a = -0.75;
  a tap outside the image reads the edge pixel.
"""

from __future__ import annotations

import numpy as np

from converter.front.tf.translator import TfNode, tf_op
from converter.graph.port import Port

_TABLE = 1024
_F32, _I64 = np.dtype(np.float32), np.dtype(np.int64)


def cubic_table(a: float) -> np.ndarray:
    """[2, 1025]: the cubic's weight at distance x = i / 1024 (row 0) and 1 + x (row 1)."""
    x = np.arange(_TABLE + 1, dtype=np.float32).astype(np.float64) / _TABLE
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = x + 1
    return np.stack([near, ((a * far - 5 * a) * far + 8 * a) * far - 4 * a]).astype(np.float32)


def _dim(n: TfNode, shape: Port, axis: int) -> Port:
    return n.op("Gather", [shape, n.const(axis, np.int64), n.const(0, np.int64)], batch_dims=0)


def _scale(n: TfNode, size_in: Port, size_out: Port) -> Port:
    """TF's CalculateResizeScale, in float32."""
    size_in, size_out = (n.op("Convert", [s], destination_type=_F32) for s in (size_in, size_out))
    plain = n.op("Divide", [size_in, size_out])
    if not n.attr("align_corners", False):
        return plain
    one = n.const(1.0, np.float32)
    corners = n.op("Divide", [n.op("Subtract", [size_in, one]),
                              n.op("Subtract", [size_out, one])])
    return n.op("Select", [n.op("Greater", [size_out, one]), corners, plain])


def _taps(n: TfNode, size_in: Port, size_out: Port, keys: bool) -> tuple[list[Port], list[Port]]:
    """The four source indices [out] and their weights [out] along one axis."""
    scale = _scale(n, size_in, size_out)
    out = n.op("Range", [n.const(0.0, np.float32), n.op("Convert", [size_out],
                                                         destination_type=_F32),
                         n.const(1.0, np.float32)], output_type=_F32)
    half = n.const(0.5, np.float32)
    source = (n.op("Subtract", [n.op("Multiply", [n.op("Add", [out, half]), scale]), half])
              if keys else n.op("Multiply", [out, scale]))
    floor = n.op("Floor", [source])
    offset = n.op("Convert", [n.op("Round", [n.op("Multiply", [
        n.op("Subtract", [source, floor]), n.const(float(_TABLE), np.float32)])],
        mode="half_to_even")], destination_type=_I64)
    table = cubic_table(-0.5 if keys else -0.75)
    back = n.op("Subtract", [n.const(_TABLE, np.int64), offset])
    weights = [n.op("Gather", [n.const(table[row]), at, n.const(0, np.int64)], batch_dims=0)
               for row, at in ((1, offset), (0, offset), (0, back), (1, back))]
    start = n.op("Convert", [floor], destination_type=_I64)
    last = n.op("Subtract", [n.op("Convert", [size_in], destination_type=_I64),
                             n.const(1, np.int64)])
    wanted = [n.op("Add", [start, n.const(k, np.int64)]) for k in (-1, 0, 1, 2)]
    index = [n.op("Minimum", [n.op("Maximum", [w, n.const(0, np.int64)]), last])
             for w in wanted]
    if keys:
        zero = n.const(0.0, np.float32)
        weights = [n.op("Select", [n.op("Equal", [i, w]), wt, zero])
                   for i, w, wt in zip(index, wanted, weights, strict=True)]
        total = n.op("Add", [n.op("Add", [weights[0], weights[1]]),
                             n.op("Add", [weights[2], weights[3]])])
        tiny = n.op("GreaterEqual", [n.op("Abs", [total]),
                                     n.const(1000 * np.finfo(np.float32).tiny, np.float32)])
        inverse = n.op("Select", [tiny, n.op("Divide", [n.const(1.0, np.float32), total]),
                                  n.const(1.0, np.float32)])
        weights = [n.op("Multiply", [w, inverse]) for w in weights]
    return index, weights


def _along(n: TfNode, x: Port, axis: int, size_out: Port, keys: bool) -> Port:
    """x [N, H, W, C] resampled along axis 1 or 2."""
    shape = n.op("ShapeOf", [x], output_type=_I64)
    index, weights = _taps(n, _dim(n, shape, axis), size_out, keys)
    spread = n.const([-1, 1, 1] if axis == 1 else [-1, 1], np.int64)  # over [H, W, C] or [W, C]
    total = None
    for i, w in zip(index, weights, strict=True):
        term = n.op("Multiply", [n.op("Gather", [x, i, n.const(axis, np.int64)], batch_dims=0),
                                 n.op("Reshape", [w, spread], special_zero=False)])
        total = term if total is None else n.op("Add", [total, term])
    return total


@tf_op("ResizeBicubic")
def resize_bicubic(n: TfNode):
    keys = bool(n.attr("half_pixel_centers", False))
    x = n.op("Convert", [n.input(0)], destination_type=_F32)
    size = n.op("Convert", [n.input(1)], destination_type=_I64)
    rows = _along(n, x, 1, _dim(n, size, 0), keys)
    return [_along(n, rows, 2, _dim(n, size, 1), keys)]
