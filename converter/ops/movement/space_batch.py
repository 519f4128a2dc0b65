"""SpaceToBatch-2 and BatchToSpace-2: move spatial blocks into the batch and back, with zero
padding or cropping. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/space-to-batch-2.html"""

from __future__ import annotations

import math

import numpy as np

from converter.graph.shape import DYN
from converter.ops.op import Op

__all__ = ["BatchToSpace", "SpaceToBatch"]


def _ints(value: np.ndarray | None) -> list[int] | None:
    return None if value is None else [int(v) for v in np.asarray(value).reshape(-1)]


def _block_shapes(shapes: list, values: list, to_batch: bool) -> list:
    """The output shape: spatial dims padded and divided by their blocks, the batch times all
    blocks (to_batch), or the reverse with crops."""
    data, (block, begin, end) = shapes[0], (_ints(v) for v in values[1:4])
    if data is None or None in (block, begin, end):
        return [None if data is None else (DYN,) * len(data)]
    spatial = [DYN if d == DYN else (d + b + e) // k if to_batch else d * k - b - e
               for d, k, b, e in zip(data[1:], block[1:], begin[1:], end[1:], strict=True)]
    total = math.prod(block)
    batch = DYN if data[0] == DYN else data[0] * total if to_batch else data[0] // total
    return [(batch, *spatial)]


class SpaceToBatch(Op):
    """Inputs: data, block_shape, pads_begin, pads_end (one entry per data axis, block 1 on
    the batch axis)."""

    op = type = "SpaceToBatch"
    version = "opset2"
    in_ports_count = 4

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        return _block_shapes(shapes, values, to_batch=True)

    @classmethod
    def evaluate(cls, attrs, inputs):
        block, begin, end = (_ints(v) for v in inputs[1:4])
        x = np.pad(inputs[0], list(zip(begin, end, strict=True)))
        split = [x.shape[0]]
        for dim, k in zip(x.shape[1:], block[1:], strict=True):
            split += [dim // k, k]
        n = len(block)
        order = [2 * i for i in range(1, n)] + [0] + [2 * i - 1 for i in range(1, n)]
        moved = x.reshape(split).transpose(order)
        return [moved.reshape([x.shape[0] * math.prod(block)] + split[1::2])]


class BatchToSpace(Op):
    """Inputs: data, block_shape, crops_begin, crops_end (one entry per data axis)."""

    op = type = "BatchToSpace"
    version = "opset2"
    in_ports_count = 4

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        return _block_shapes(shapes, values, to_batch=False)

    @classmethod
    def evaluate(cls, attrs, inputs):
        x, (block, begin, end) = inputs[0], (_ints(v) for v in inputs[1:4])
        n, batch = len(block), x.shape[0] // math.prod(block)
        split = x.reshape(block[1:] + [batch] + list(x.shape[1:]))
        order = [n - 1]
        for i in range(1, n):
            order += [n - 1 + i, i - 1]
        merged = split.transpose(order).reshape(
            [batch] + [d * k for d, k in zip(x.shape[1:], block[1:], strict=True)])
        crop = tuple(slice(b, size - e) for b, e, size in zip(begin, end, merged.shape,
                                                                strict=True))
        return [merged[crop]]
