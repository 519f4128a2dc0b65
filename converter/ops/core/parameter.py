"""Parameter-1: a model input. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/infrastructure/parameter-1.html"""

from __future__ import annotations

from converter.ops.op import Op


class Parameter(Op):
    op = type = "Parameter"
    version = "opset1"
    in_ports_count = 0
    attr_types = {"shape": "shape", "element_type": "type"}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        return [attrs.get("shape")]

    @classmethod
    def infer_types(cls, attrs, types):
        return [attrs.get("element_type")]
