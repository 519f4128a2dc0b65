"""torchvision with its `nms` and `roi_align` as Python ops when its C++ extension does not load
(a CUDA torchvision wheel beside a CPU torch, where no CPU wheel can be had). Tracing then
records `torch.ops.torchvision.nms`/`roi_align` as with the extension, so the TorchScript
exporter writes ONNX NonMaxSuppression and RoiAlign. The values only steer the trace: the
corpus's references come from onnxruntime.

    torchvision = import_torchvision()
"""

from __future__ import annotations

import sys
from importlib.util import find_spec
from pathlib import Path

__all__ = ["import_torchvision"]

_SCHEMAS = (
    "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
    "SymInt pooled_width, int sampling_ratio, bool aligned) -> Tensor",
)
_LIBRARIES: list = []  # torch drops a Library's definitions when it is garbage collected


def _extension_loads() -> bool:
    import torch

    spec = find_spec("torchvision")
    path = Path(next(iter(spec.submodule_search_locations))) / "_C.so"
    try:
        torch.ops.load_library(str(path))
    except OSError:
        return False
    return True


def _nms(boxes, scores, iou_threshold: float):
    import torch

    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    low = torch.maximum(boxes[:, None, :2], boxes[None, :, :2])
    high = torch.minimum(boxes[:, None, 2:], boxes[None, :, 2:])
    inter = (high - low).clamp(min=0).prod(-1)
    iou = inter / (area[:, None] + area[None, :] - inter)
    suppressed = torch.zeros(len(boxes), dtype=torch.bool)
    keep = []
    for i in scores.argsort(descending=True).tolist():
        if not suppressed[i]:
            keep.append(i)
            suppressed |= iou[i] > iou_threshold
    return torch.tensor(keep, dtype=torch.int64)


def _roi_align(*args):
    python_kernel = sys.modules["torchvision.ops.roi_align"]._roi_align
    return python_kernel.__wrapped__(*args)  # not torch.compile'd: that takes half a minute


def import_torchvision():
    """torchvision, its ops defined in Python first when its extension does not load."""
    if "torchvision" in sys.modules or _extension_loads():
        import torchvision

        return torchvision
    import torch

    lib = torch.library.Library("torchvision", "DEF")
    _LIBRARIES.append(lib)
    for schema in _SCHEMAS:
        lib.define(schema)
    lib.impl("nms", _nms, "CPU")
    lib.impl("roi_align", _roi_align, "CPU")
    import torchvision

    def has_ops() -> bool:
        return True

    torchvision.extension._has_ops = has_ops
    sys.modules["torchvision.ops.roi_align"]._has_ops = has_ops
    return torchvision
