"""Assign-6: stores its input into a variable for the next inference's ReadValue; a sink of
the model (kept with no consumer). https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/infrastructure/assign-6.html

Stateful: no `evaluate` (the shim writes the variable, converter.runtime.executor)."""

from __future__ import annotations

from converter.ops.op import Op


class Assign(Op):
    op = type = "Assign"
    version = "opset6"
    in_ports_count = 1
    attr_types = {"variable_id": "str"}
