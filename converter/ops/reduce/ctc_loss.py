"""CTCLoss-4: the negative log-likelihood of each target label sequence under CTC, from
unnormalized logits. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/sequence/ctc-loss-4.html

Inputs: logits [N, T, C], logit_length [N], labels [N, T], label_length [N] and optionally
blank_index (C - 1 without it). A path of T' = logit_length classes reads as its labels by
dropping blanks, after merging repeats first when ctc_merge_repeated. The target is
labels[:label_length], with repeats collapsed first (preprocess_collapse_repeated) and then
only each label's first occurrence kept (unique).
"""

from __future__ import annotations

import numpy as np

from converter.ops.op import Op

__all__ = ["CTCLoss"]


def _target(labels: np.ndarray, attrs: dict) -> list[int]:
    target = [int(v) for v in labels]
    if attrs["preprocess_collapse_repeated"]:
        target = [v for i, v in enumerate(target) if i == 0 or v != target[i - 1]]
    if attrs["unique"]:
        target = list(dict.fromkeys(target))
    return target


def _log_likelihood(logp: np.ndarray, target: list[int], blank: int, merge: bool) -> float:
    """log p(target | logp [T, C]) over the extended sequence blank, l1, blank, l2, ... blank."""
    ext = [blank]
    for label in target:
        ext += [label, blank]
    alpha = np.full(len(ext), -np.inf)
    alpha[:2] = logp[0, ext[:2]]
    for frame in logp[1:]:
        stay = alpha.copy()
        if not merge:  # a repeated frame of a label is another label: only blanks may stay
            stay[1::2] = -np.inf
        step = np.concatenate(([-np.inf], alpha[:-1]))
        skip = np.concatenate(([-np.inf] * 2, alpha[:-2]))
        allowed = np.array([s % 2 == 1 and s >= 2 and (ext[s] != ext[s - 2] or not merge)
                            for s in range(len(ext))])
        skip = np.where(allowed, skip, -np.inf)
        alpha = np.logaddexp(np.logaddexp(stay, step), skip) + frame[ext]
    return float(np.logaddexp(alpha[-1], alpha[-2]) if len(ext) > 1 else alpha[-1])


class CTCLoss(Op):
    op = type = "CTCLoss"
    version = "opset4"
    in_ports_count = 5
    attr_types = {"preprocess_collapse_repeated": "bool", "ctc_merge_repeated": "bool",
                  "unique": "bool"}
    defaults = {"preprocess_collapse_repeated": False, "ctc_merge_repeated": True,
                "unique": False}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        return [None if shapes[0] is None else shapes[0][:1]]

    @classmethod
    def evaluate(cls, attrs, inputs):
        logits, lengths, labels, label_lengths = inputs[:4]
        blank = int(np.asarray(inputs[4])) if len(inputs) > 4 else logits.shape[2] - 1
        shifted = logits - logits.max(axis=2, keepdims=True)
        logp = shifted - np.log(np.exp(shifted).sum(axis=2, keepdims=True))
        loss = [-_log_likelihood(logp[b, :int(lengths[b])].astype(np.float64),
                                 _target(labels[b, :int(label_lengths[b])], attrs), blank,
                                 attrs["ctc_merge_repeated"])
                for b in range(logits.shape[0])]
        return [np.asarray(loss, logits.dtype)]
