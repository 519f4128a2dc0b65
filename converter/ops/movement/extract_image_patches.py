"""ExtractImagePatches-3: each sizes[0] x sizes[1] patch (taken every `strides`, its pixels
`rates` apart) laid out along the channel axis. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/extract-image-patches-3.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import DYN
from converter.ops.op import Op

__all__ = ["ExtractImagePatches"]


def _axis(size: int, patch: int, stride: int, rate: int, auto_pad: str) -> tuple[int, int]:
    """(output length, padding before) along one spatial axis."""
    reach = (patch - 1) * rate + 1
    if auto_pad == "valid":
        return max((size - reach) // stride + 1, 0), 0
    out = -(-size // stride)
    total = max((out - 1) * stride + reach - size, 0)
    return out, total // 2 if auto_pad == "same_upper" else total - total // 2


class ExtractImagePatches(Op):
    op = type = "ExtractImagePatches"
    version = "opset3"
    in_ports_count = 1
    attr_types = {"sizes": "ints", "strides": "ints", "rates": "ints", "auto_pad": "str"}
    defaults = {"sizes": [1, 1], "strides": [1, 1], "rates": [1, 1], "auto_pad": "valid"}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        x = shapes[0]
        if x is None:
            return [None]
        depth = DYN if x[1] == DYN else x[1] * attrs["sizes"][0] * attrs["sizes"][1]
        spatial = [DYN if d == DYN else _axis(d, *a, attrs["auto_pad"])[0] for d, *a in zip(
            x[2:], attrs["sizes"], attrs["strides"], attrs["rates"], strict=True)]
        return [(x[0], depth, *spatial)]

    @classmethod
    def evaluate(cls, attrs, inputs):
        x = inputs[0]
        (kh, kw), (sh, sw), (rh, rw) = attrs["sizes"], attrs["strides"], attrs["rates"]
        (oh, ph), (ow, pw) = (_axis(d, *a, attrs["auto_pad"]) for d, *a in zip(
            x.shape[2:], attrs["sizes"], attrs["strides"], attrs["rates"], strict=True))
        padded = np.pad(x, [(0, 0), (0, 0), (ph, max((oh - 1) * sh + (kh - 1) * rh + 1 - ph
                                                        - x.shape[2], 0)),
                            (pw, max((ow - 1) * sw + (kw - 1) * rw + 1 - pw - x.shape[3], 0))])
        patches = [padded[:, :, i * rh:i * rh + (oh - 1) * sh + 1:sh,
                          j * rw:j * rw + (ow - 1) * sw + 1:sw]
                   for i in range(kh) for j in range(kw)]
        return [np.concatenate(patches, axis=1)]
