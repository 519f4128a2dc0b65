"""GatherTree-1: the full beam-search sequences, traced back from the last step through each
beam's parents. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/gather-tree-1.html"""

from __future__ import annotations

import numpy as np

from converter.ops.op import Op

__all__ = ["GatherTree"]


def _trace(steps: np.ndarray, parents: np.ndarray, length: int, beam: int) -> np.ndarray:
    """One beam's ids over `length` steps (steps/parents: [time, beam] of one batch item)."""
    out = np.empty(length, steps.dtype)
    parent = beam
    for t in range(length - 1, -1, -1):
        out[t] = steps[t, parent]
        parent = int(parents[t, parent])
    return out


class GatherTree(Op):
    """Inputs: step_ids and parent_ids [time, batch, beam], max_seq_len [batch], end_token."""

    op = type = "GatherTree"
    version = "opset1"
    in_ports_count = 4
    same_type_inputs = 4

    @classmethod
    def evaluate(cls, attrs, inputs):
        steps, parents, lengths, end = inputs
        end_token = np.asarray(end).reshape(()).astype(steps.dtype)
        out = np.full_like(steps, end_token)
        for b in range(steps.shape[1]):
            length = min(steps.shape[0], int(lengths[b]))
            for beam in range(steps.shape[2] if length > 0 else 0):
                ids = _trace(steps[:, b], parents[:, b], length, beam)
                ended = np.flatnonzero(ids == end_token)
                if ended.size:  # everything after the first end token is end tokens
                    ids[ended[0] + 1:] = end_token
                out[:length, b, beam] = ids
        return [out]
