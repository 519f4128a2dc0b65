"""ONNX LinearAttention (opset 27) in opset ops: the recurrence over the sequence unrolled step by
step (the sequence length must be known at conversion), each step a few MatMuls on the state
S [B, H_kv, d_k, d_v]:

    linear        S = S + k v^T
    gated         S = exp(g) S + k v^T
    delta         S = S + k beta (v - S^T k)^T
    gated_delta   S' = exp(g) S;  S = S' + k beta (v - S'^T k)^T
    output        o = scale q^T S   (query heads in groups of H_q / H_kv per key/value head)
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from converter.front.onnx.ops.movement import known_dtype
from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port

I64 = np.dtype(np.int64)
F32 = np.dtype(np.float32)
_NARROW = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))
_RULES = ("linear", "gated", "delta", "gated_delta")
_MAX_STEPS = 1024


def _static_shape(port: Port) -> tuple[int, ...] | None:
    """A Parameter's declared or a Const's shape, when every dimension is known."""
    node = port.node
    if node.soft_get("op") == "Const":
        return np.shape(node.value)
    shape = node.soft_get("shape", None) if node.soft_get("op") == "Parameter" else None
    return None if shape is None or any(d < 0 for d in shape) else tuple(shape)


def _step(n: OnnxNode, x: Port, t: int, shape: list[int]) -> Port:
    """Step t of x [B, T, ...] reshaped to [B, *shape]."""
    return n.op("Reshape", [n.op("Gather", [x, np.int64(t), np.int64(1)]),
                            np.array([0, *shape], I64)], special_zero=True)


@onnx_op("LinearAttention")
def linear_attention(n: OnnxNode) -> list[Port]:
    rule = n.attr("update_rule", "gated_delta")
    if rule not in _RULES:
        n.reject(f"update_rule '{rule}' is not one of {', '.join(_RULES)}",
                 "use 'linear', 'gated', 'delta' or 'gated_delta'")
    query, key, value, past, decay, beta = (n.input(i) for i in range(6))
    q_heads, kv_heads = int(n.attr("q_num_heads")), int(n.attr("kv_num_heads"))
    q_shape, k_shape, v_shape = (_static_shape(p) for p in (query, key, value))
    if q_shape is None or k_shape is None or v_shape is None or q_shape[1] > _MAX_STEPS:
        n.reject("the sequence length and head sizes must be known at conversion (at most "
                 f"{_MAX_STEPS} steps), as the recurrence is unrolled",
                 "give the query, key and value inputs static shapes")
    if "gated" in rule and decay is None or "delta" in rule and beta is None:
        n.reject(f"update_rule '{rule}' needs its decay/beta input", "connect it")
    steps, d_k, d_v = q_shape[1], k_shape[2] // kv_heads, v_shape[2] // kv_heads
    narrow = known_dtype(query) in _NARROW
    if narrow:  # accumulate the state in f32, as a half-precision sum drifts
        query, key, value, past, decay, beta = (
            None if p is None else n.op("Convert", [p], destination_type=F32)
            for p in (query, key, value, past, decay, beta))
    scale = float(n.attr("scale", 0.0)) or 1.0 / np.sqrt(q_shape[2] // q_heads)
    if past is None:
        batch = n.op("Gather", [n.op("ShapeOf", [query], output_type=I64), np.array([0], I64),
                                np.int64(0)])
        shape = n.op("Concat", [batch, np.array([kv_heads, d_k, d_v], I64)], axis=0)
        past = n.op("Broadcast", [n.op("ConvertLike", [np.float32(0), query]), shape])
    state, outputs = past, []
    for t in range(steps):
        k = _step(n, key, t, [kv_heads, d_k, 1])
        v = _step(n, value, t, [kv_heads, 1, d_v])
        if decay is not None and "gated" in rule:
            state = n.op("Multiply", [n.op("Exp", [_step(n, decay, t, [kv_heads, -1, 1])]),
                                      state])
        if "delta" in rule:
            recalled = n.op("MatMul", [k, state], transpose_a=True)  # [B, H_kv, 1, d_v]
            rate = _step(n, beta, t, [-1, 1, 1])
            v = n.op("Multiply", [rate, n.op("Subtract", [v, recalled])])
        state = n.op("Add", [state, n.op("MatMul", [k, v])])
        q = _step(n, query, t, [kv_heads, q_heads // kv_heads, d_k])
        o = n.op("MatMul", [q, state])  # [B, H_kv, G, d_v]
        outputs.append(n.op("Reshape", [o, np.array([0, 1, -1], I64)], special_zero=True))
    output = outputs[0] if steps == 1 else n.op("Concat", outputs, axis=1)
    output = n.op("Multiply", [output, n.op("ConvertLike", [np.float32(scale), output])])
    if narrow:
        like = n.input(0)
        output = n.op("ConvertLike", [output, like])
        state = n.op("ConvertLike", [state, like if n.input(3) is None else n.input(3)])
    return [output, state]
