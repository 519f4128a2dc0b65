"""EmbeddingBagOffsetsSum-3, EmbeddingBagPackedSum-3 and EmbeddingSegmentsSum-3: sums of
embedding-table rows, one sum per bag, optionally weighted per index.
https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/sparse/embedding-bag-offsets-sum-3.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import DYN
from converter.ops.op import Op

__all__ = ["EmbeddingBagOffsetsSum", "EmbeddingBagPackedSum", "EmbeddingSegmentsSum"]


def _bag_sums(table: np.ndarray, bags: list[tuple[np.ndarray, np.ndarray]],
              weights: np.ndarray | None,
              default: int) -> np.ndarray:
    """Row sums of table over each bag (positions into the index/weight arrays, already
    resolved to rows); an empty bag takes row `default`, or zeros when it is -1."""
    out = np.zeros((len(bags),) + table.shape[1:], table.dtype)
    for b, (rows, where) in enumerate(bags):
        if rows.size == 0:
            if default >= 0:
                out[b] = table[default]
            continue
        picked = table[rows]
        if weights is not None:
            picked = picked * weights[where].reshape((-1,) + (1,) * (table.ndim - 1))
        out[b] = picked.sum(axis=0)
    return out


def _default(inputs: list[np.ndarray], port: int) -> int:
    return int(np.asarray(inputs[port])) if len(inputs) > port else -1


def _weights(inputs: list[np.ndarray], port: int) -> np.ndarray | None:
    return np.asarray(inputs[port]) if len(inputs) > port else None


def _one_row_per(shapes: list, port: int) -> list:
    """[bags, ...table rows' shape], a bag per entry of input `port`'s first axis."""
    table, bags = shapes[0], shapes[port]
    if table is None:
        return [None]
    return [(bags[0] if bags else DYN,) + tuple(table[1:])]


class EmbeddingBagOffsetsSum(Op):
    """Inputs: table, indices [M], offsets [B] (bag b starts at offsets[b]), default_index,
    per_sample_weights [M]."""

    op = type = "EmbeddingBagOffsetsSum"
    version = "opset3"
    in_ports_count = 5

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        return _one_row_per(shapes, 2)

    @classmethod
    def evaluate(cls, attrs, inputs):
        table, indices = inputs[0], np.asarray(inputs[1]).astype(np.int64)
        offsets = np.asarray(inputs[2]).astype(np.int64)
        ends = np.append(offsets[1:], indices.size)
        bags = [(indices[s:e], np.arange(s, e)) for s, e in zip(offsets, ends, strict=True)]
        return [_bag_sums(table, bags, _weights(inputs, 4), _default(inputs, 3))]


class EmbeddingBagPackedSum(Op):
    """Inputs: table, indices [B, L] (one bag per row), per_sample_weights [B, L]."""

    op = type = "EmbeddingBagPackedSum"
    version = "opset3"
    in_ports_count = 3

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        return _one_row_per(shapes, 1)

    @classmethod
    def evaluate(cls, attrs, inputs):
        table, indices = inputs[0], np.asarray(inputs[1]).astype(np.int64)
        weights = _weights(inputs, 2)
        flat = None if weights is None else weights.reshape(-1)
        length = indices.shape[1]
        bags = [(row, np.arange(b * length, (b + 1) * length)) for b, row in enumerate(indices)]
        return [_bag_sums(table, bags, flat, -1)]


class EmbeddingSegmentsSum(Op):
    """Inputs: table, indices [M], segment_ids [M], num_segments, default_index,
    per_sample_weights [M]."""

    op = type = "EmbeddingSegmentsSum"
    version = "opset3"
    in_ports_count = 6

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        table, count = shapes[0], values[3]
        if table is None:
            return [None]
        return [(DYN if count is None else int(count),) + tuple(table[1:])]

    @classmethod
    def evaluate(cls, attrs, inputs):
        table, indices = inputs[0], np.asarray(inputs[1]).astype(np.int64)
        segments = np.asarray(inputs[2]).astype(np.int64)
        positions = [np.flatnonzero(segments == s) for s in range(int(inputs[3]))]
        bags = [(indices[where], where) for where in positions]
        return [_bag_sums(table, bags, _weights(inputs, 5), _default(inputs, 4))]
