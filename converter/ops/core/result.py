"""Result-1: a model output. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/infrastructure/result-1.html"""

from __future__ import annotations

from converter.ops.op import Op


class Result(Op):
    op = type = "Result"
    version = "opset1"
    in_ports_count = 1
    out_ports_count = 0

    @classmethod
    def infer(cls, node) -> None:
        """A Result has no output tensor."""

    @classmethod
    def evaluate(cls, attrs, inputs):
        return [inputs[0]]
