"""TensorFlow Lite op translators: functions that turn one operator into opset ops.

    @tflite_op("ADD")
    def add(n: TfliteNode) -> list[Port]:
        return [n.op("Add", [n.input(0), n.input(1)])]

`n.attr("stride_w")` reads the operator's builtin options (converter.front.tflite.schema).
What every builtin shares is done once, after the translator: the options' fused activation
(RELU, RELU6, ...) on output 0, then, for each quantized integer output, the rounding onto its
quantization grid (a multiply, round, clamp and multiply back), so that float32 ops give what
TFLite's integer kernels do.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from converter.front.tflite.loader import quantized_range
from converter.front.tflite.model import Operator, TensorInfo
from converter.front.tflite.schema import ACTIVATIONS
from converter.front.translator import NodeContext, Translator, TranslatorRegistry
from converter.graph.graph import Node
from converter.graph.port import Port

__all__ = ["REGISTRY", "TfliteNode", "tflite_op"]

# ops whose output holds some of their input's values unchanged: with the input's quantization
# their output needs no rounding
_SAME_VALUES = {"RESHAPE", "SQUEEZE", "EXPAND_DIMS", "TRANSPOSE", "MAX_POOL_2D", "GATHER",
                "STRIDED_SLICE", "SLICE", "SPACE_TO_DEPTH", "DEPTH_TO_SPACE", "PAD",
                "REDUCE_MAX", "REDUCE_MIN", "SPLIT", "SPLIT_V", "UNPACK", "TILE",
                "BROADCAST_TO", "RESIZE_NEAREST_NEIGHBOR", "SPACE_TO_BATCH_ND", "BATCH_TO_SPACE_ND"}


class TfliteNode(NodeContext):
    """What a TFLite translator sees: the operator's options, tensors, inputs and op builder."""

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.pb: Operator = node.pb

    @classmethod
    def key(cls, node: Node) -> tuple[str | None, int]:
        return node.pb.op, node.pb.version

    @classmethod
    def standard_op(cls, node: Node) -> str | None:
        """'TensorFlow Lite builtin op LSTM (operator 12)' for a builtin the converter lacks."""
        op: Operator = node.pb
        return f"TensorFlow Lite builtin op {op.op} (operator {op.index})" if op.builtin else None

    @property
    def op_type(self) -> str:
        return self.pb.op

    def attr(self, name: str, default: Any = None) -> Any:
        return self.pb.options.get(name, default)

    def tensor(self, i: int) -> TensorInfo | None:
        """The file's record of input i."""
        return self.pb.inputs[i] if i < len(self.pb.inputs) else None

    def rank(self, i: int) -> int:
        return len(self.pb.inputs[i].shape)

    def out_tensor(self, i: int = 0) -> TensorInfo:
        return self.pb.outputs[i]

    def fused_activation(self, y: Port) -> Port:
        kind = ACTIVATIONS.get(self.attr("fused_activation_function", 0), "?")
        if kind is None:
            return y
        if kind == "RELU":
            return self.op("ReLU", [y])
        if kind in ("RELU6", "RELU_N1_TO_1"):
            lo, hi = (0.0, 6.0) if kind == "RELU6" else (-1.0, 1.0)
            return self.op("Clamp", [y], min=lo, max=hi)
        if kind == "TANH":
            return self.op("Tanh", [y])
        if kind == "SIGN_BIT":  # 1 where y is negative, else 0
            return self.op("Convert", [self.op("Less", [y, np.float32(0)])],
                           destination_type=np.dtype(np.float32))
        self.reject(f"fused activation {self.attr('fused_activation_function')} is unknown",
                    "export the model again")

    def requantized(self, y: Port, t: TensorInfo) -> Port:
        """y rounded onto t's quantization grid, within its integer range, as TFLite rounds:
        QUANTIZE multiplies by the scale's float32 reciprocal and rounds ties to even; the
        integer kernels round ties away from zero, and y's float32 error may put an exact tie
        (an average of integers) a hair either side, so there y / scale is first enlarged by
        2^-20 of itself, which moves only values that close to a tie."""
        q = t.quantization
        lo, hi = quantized_range(t.dtype)
        scale, zero = float(q.scale[0]), int(q.zero_point[0])
        if self.op_type == "QUANTIZE":
            steps = self.op("Multiply", [y, np.float32(1 / np.float32(scale))])
            steps = self.op("Round", [steps], mode="half_to_even")
        else:
            steps = self.op("Multiply", [y, np.float32((1 + 2.0**-20) / scale)])
            steps = self.op("Round", [steps], mode="half_away_from_zero")
        steps = self.op("Clamp", [steps], min=float(lo - zero), max=float(hi - zero))
        return self.op("Multiply", [steps, np.float32(scale)])

    def finish(self, outputs: list[Port | None]) -> list[Port | None]:
        """The translator's outputs with the fused activation and the requantization."""
        if outputs and outputs[0] is not None:
            outputs[0] = self.fused_activation(outputs[0])
        for i, port in enumerate(outputs):
            t = self.pb.outputs[i] if i < len(self.pb.outputs) else None
            if port is None or t is None or not t.quantized or self._keeps_grid(t):
                continue
            outputs[i] = self.requantized(port, t)
        return outputs

    def _keeps_grid(self, out: TensorInfo) -> bool:
        src = self.tensor(0)
        if self.op_type not in _SAME_VALUES or src is None or not src.quantized:
            return False
        a, b = src.quantization, out.quantization
        return (src.dtype == out.dtype and a.scale.size == b.scale.size == 1
                and a.scale[0] == b.scale[0] and a.zero_point[0] == b.zero_point[0])


REGISTRY = TranslatorRegistry(TfliteNode, ["converter.front.tflite.ops"])


def tflite_op(*names: str) -> Callable[[Translator], Translator]:
    """Register a translator for builtin ops; its outputs get the shared finish."""
    def register(fn: Translator) -> Translator:
        @functools.wraps(fn)
        def translate(n: TfliteNode) -> list[Port | None]:
            return n.finish(list(fn(n)))

        REGISTRY.op(*names)(translate)
        return fn

    return register
