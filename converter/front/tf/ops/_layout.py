"""Channels-last ops in the front phase: an NHWC op is built as its NCHW opset op between two
Transposes marked `layout_transpose`; the middle phase (converter.middle.layout) moves and
cancels those pairs so that only the IR's edges keep any."""

from __future__ import annotations

import numpy as np

from converter.front.tf.translator import TfNode
from converter.graph.port import Port

__all__ = ["TO_NCHW", "TO_NHWC", "channels_last", "permuted", "to_nchw", "to_nhwc"]

TO_NCHW = {4: [0, 3, 1, 2], 5: [0, 4, 1, 2, 3]}
TO_NHWC = {4: [0, 2, 3, 1], 5: [0, 2, 3, 4, 1]}


def channels_last(n: TfNode) -> bool:
    return n.data_format() in ("NHWC", "NDHWC")


def _transpose(n: TfNode, x: Port, perm: list[int]) -> Port:
    return n.op("Transpose", [x, n.const(perm, np.int64)], layout_transpose=True)


def to_nchw(n: TfNode, x: Port, rank: int) -> Port:
    return _transpose(n, x, TO_NCHW[rank])


def to_nhwc(n: TfNode, y: Port, rank: int) -> Port:
    return _transpose(n, y, TO_NHWC[rank])


def permuted(n: TfNode, w: Port, perm: list[int]) -> Port:
    """w transposed by perm: computed at once for a Const (weights), else a Transpose."""
    return n.folded("Transpose", [w, np.array(perm, np.int64)])
