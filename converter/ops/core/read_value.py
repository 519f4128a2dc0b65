"""ReadValue-6: a variable's value from the previous inference (its init input on the first, or
after a reset). https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/infrastructure/read-value-6.html

With no init input the variable starts as zeros (what OpenVINO's MakeStateful writes).
Stateful: the value is no function of the inputs, so there is no `evaluate` (never folded); the
shim keeps the variables (converter.runtime.executor)."""

from __future__ import annotations

from converter.ops.op import Op


class ReadValue(Op):
    op = type = "ReadValue"
    version = "opset6"
    in_ports_count = 1
    attr_types = {"variable_id": "str", "variable_type": "type", "variable_shape": "shape"}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        return [shapes[0] if shapes else tuple(attrs["variable_shape"])]

    @classmethod
    def infer_types(cls, attrs, types):
        return [types[0] if types else attrs["variable_type"]]
