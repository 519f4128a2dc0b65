"""DeformablePSROIPooling-1: position-sensitive ROI pooling whose bins are shifted by learned
offsets (Deformable R-FCN). https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/detection/deformable-psroi-pooling-1.html

Inputs: data [N, C, H, W], rois [R, 5] (batch index, x1, y1, x2, y2), optional offsets
[R, 2 * classes, part_size, part_size]. Output [R, output_dim, group_size, group_size].
Shapes only: the shim runs no model holding it (OpenVINO does).
"""

from __future__ import annotations

from converter.graph.shape import DYN
from converter.ops.op import Op

__all__ = ["DeformablePSROIPooling"]


class DeformablePSROIPooling(Op):
    op = type = "DeformablePSROIPooling"
    version = "opset1"
    in_ports_count = 3
    attr_types = {"output_dim": "int", "spatial_scale": "float", "group_size": "int",
                  "mode": "str", "spatial_bins_x": "int", "spatial_bins_y": "int",
                  "trans_std": "float", "part_size": "int"}
    defaults = {"group_size": 1, "mode": "bilinear_deformable", "spatial_bins_x": 1,
                "spatial_bins_y": 1, "trans_std": 1.0}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        size = int(attrs["group_size"])
        rois = DYN if shapes[1] is None else shapes[1][0]
        return [(rois, attrs["output_dim"], size, size)]
