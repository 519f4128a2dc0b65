"""TensorFlow's fake quantization (FakeQuantWithMinMaxArgs/Vars/VarsPerChannel) as
FakeQuantize-1: TF first nudges [min, max] so that zero is exactly representable, then
quantizes to 2^num_bits levels (one fewer with narrow_range)."""

from __future__ import annotations

import numpy as np

from converter.front.tf.translator import TfNode, tf_op


def _nudged(low: np.ndarray, high: np.ndarray, bits: int, narrow: bool):
    """TF's nudged [min, max]: the zero point rounded to an integer level."""
    q_low, q_high = float(int(narrow)), float((1 << bits) - 1)
    scale = (high - low) / (q_high - q_low)
    zero = q_low - low / scale
    # std::round: halves away from zero (the zero point is clamped to levels >= 0 first)
    zero = np.floor(np.clip(zero, q_low, q_high) + 0.5)
    return (q_low - zero) * scale, (q_high - zero) * scale


@tf_op("FakeQuantWithMinMaxArgs", "FakeQuantWithMinMaxVars", "FakeQuantWithMinMaxVarsPerChannel")
def fake_quant(n: TfNode):
    bits, narrow = int(n.attr("num_bits", 8)), bool(n.attr("narrow_range", False))
    if n.op_type == "FakeQuantWithMinMaxArgs":
        low, high = np.float64(n.attr("min", -6.0)), np.float64(n.attr("max", 6.0))
    else:
        low, high = n.const_value(1), n.const_value(2)
        if low is None or high is None:
            n.reject("min and max (inputs 1 and 2) must be constants",
                     "freeze the graph so that they are Consts")
    low, high = _nudged(np.asarray(low, np.float64), np.asarray(high, np.float64), bits, narrow)
    low, high = n.const(low.astype(np.float32)), n.const(high.astype(np.float32))
    levels = (1 << bits) - int(narrow)
    return [n.op("FakeQuantize", [n.input(0), low, high, low, high], levels=levels,
                 auto_broadcast="numpy")]
