"""TensorFlow's fake quantization (FakeQuantWithMinMaxArgs/Vars/VarsPerChannel) as
FakeQuantize-1: TF first nudges [min, max] so that zero is exactly representable, then
quantizes to 2^num_bits levels (one fewer with narrow_range)."""

from __future__ import annotations

import numpy as np

from converter.front.tf.translator import TfNode, tf_op


def _nudged(low: np.ndarray, high: np.ndarray, bits: int, narrow: bool):
    """TF's nudged [min, max]: the zero point rounded to an integer level, all in float32 as
    TF computes it (in float64, min=-1 max=1 would put the zero point on the other level)."""
    f32 = np.float32
    q_low, q_high = f32(int(narrow)), f32((1 << bits) - 1)
    scale = (high - low) / (q_high - q_low)
    zero = np.clip(q_low - low / scale, q_low, q_high)
    # std::round: halves away from zero (the zero point is clamped to levels >= 0 first)
    zero = np.where(zero - np.floor(zero) >= f32(0.5), np.ceil(zero), np.floor(zero))
    return (q_low - zero) * scale, (q_high - zero) * scale


@tf_op("FakeQuantWithMinMaxArgs", "FakeQuantWithMinMaxVars", "FakeQuantWithMinMaxVarsPerChannel")
def fake_quant(n: TfNode):
    bits, narrow = int(n.attr("num_bits", 8)), bool(n.attr("narrow_range", False))
    if n.op_type == "FakeQuantWithMinMaxArgs":
        low, high = np.float32(n.attr("min", -6.0)), np.float32(n.attr("max", 6.0))
    else:
        low, high = n.const_value(1), n.const_value(2)
        if low is None or high is None:
            n.reject("min and max (inputs 1 and 2) must be constants",
                     "freeze the graph so that they are Consts")
    low, high = _nudged(np.asarray(low, np.float32), np.asarray(high, np.float32), bits, narrow)
    levels = (1 << bits) - int(narrow)
    # the output bounds are Consts of their own, as in ovc's and MO's IR
    bounds = [n.const(low), n.const(high), n.const(low), n.const(high)]
    return [n.op("FakeQuantize", [n.input(0), *bounds], levels=levels,
                 auto_broadcast="numpy")]
