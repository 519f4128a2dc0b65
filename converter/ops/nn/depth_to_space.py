"""DepthToSpace-1 and SpaceToDepth-1 (blocks_first / depth_first). https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/depth-to-space-1.html"""

from __future__ import annotations

from converter.graph.shape import DYN
from converter.ops.op import Op

__all__ = ["DepthToSpace", "SpaceToDepth"]


def _scaled(shape, block: int, up: bool):
    if shape is None:
        return None
    n = len(shape) - 2
    ch = shape[1]
    ch = DYN if ch < 0 else (ch // block**n if up else ch * block**n)
    sp = tuple(DYN if d < 0 else (d * block if up else d // block) for d in shape[2:])
    return (shape[0], ch) + sp


class DepthToSpace(Op):
    op = type = "DepthToSpace"
    version = "opset1"
    in_ports_count = 1
    attr_types = {"block_size": "int", "mode": "str"}
    defaults = {"block_size": 1, "mode": "blocks_first"}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        return [_scaled(shapes[0], attrs["block_size"], True)]

    @classmethod
    def evaluate(cls, attrs, inputs):
        x, bs = inputs[0], attrs["block_size"]
        n, sp = x.ndim - 2, x.shape[2:]
        c = x.shape[1] // bs**n
        if attrs["mode"] == "blocks_first":
            y = x.reshape(x.shape[0], *([bs] * n), c, *sp)
            order = [0, n + 1] + [i for j in range(n) for i in (n + 2 + j, 1 + j)]
        else:
            y = x.reshape(x.shape[0], c, *([bs] * n), *sp)
            order = [0, 1] + [i for j in range(n) for i in (n + 2 + j, 2 + j)]
        out = [x.shape[0], c] + [d * bs for d in sp]
        return [y.transpose(order).reshape(out)]


class SpaceToDepth(Op):
    """https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/space-to-depth-1.html"""

    op = type = "SpaceToDepth"
    version = "opset1"
    in_ports_count = 1
    attr_types = {"block_size": "int", "mode": "str"}
    defaults = {"block_size": 1, "mode": "blocks_first"}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        return [_scaled(shapes[0], attrs["block_size"], False)]

    @classmethod
    def evaluate(cls, attrs, inputs):
        x, bs = inputs[0], attrs["block_size"]
        n, c = x.ndim - 2, x.shape[1]
        split = [x.shape[0], c] + [v for d in x.shape[2:] for v in (d // bs, bs)]
        y = x.reshape(split)
        blocks = [3 + 2 * j for j in range(n)]
        spatial = [2 + 2 * j for j in range(n)]
        order = [0] + (blocks + [1] if attrs["mode"] == "blocks_first" else [1] + blocks) + spatial
        out = [x.shape[0], c * bs**n] + [d // bs for d in x.shape[2:]]
        return [y.transpose(order).reshape(out)]
