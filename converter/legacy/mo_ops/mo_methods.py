"""Static methods of MO's op classes that MO's own modules call by class name
(`Loop.pull_constant_inputs_into_body`, `RNN.reverse_infer`, `ProposalOp.proposal_infer`,
`StridedSlice.align_mask_with_slice_rank`):
MO_METHODS says which class gets which; each behaves as MO's or refuses in one line."""

from __future__ import annotations

from typing import Any

from converter.errors import ExtensionError
from converter.graph.graph import Node
from converter.legacy.mo_ops import loop_body, strided_slice_masks

__all__ = ["MO_METHODS", "proposal_infer", "rnn_reverse_infer"]


def proposal_infer(node: Node) -> None:
    """MO's Proposal shapes: [batch * post_nms_topn, 5] rois, and as many scores when the
    second output is used."""
    rows = node.in_port(0).data.get_shape()[0] * node.post_nms_topn
    node.out_port(0).data.set_shape((rows, 5))
    if len(node.out_ports()) == 2 and not node.out_port(1).disconnected():
        node.out_port(1).data.set_shape((rows,))


def rnn_reverse_infer(node: Node) -> None:
    """MO's reverse inference of an RNN's input shape: nothing to do when it is known (always,
    in extgen: it infers forward from the model's inputs); refuses otherwise."""
    if node.in_port(0).data.get_shape() is not None:
        return
    from converter.legacy.importer import caller

    msg = (f"{caller()}calls MO's RNN.reverse_infer on '{node.soft_get('name', node.id)}', whose "
           "input shape is unknown: extgen does not implement reverse shape inference; give the "
           "model's input shapes (--input_shape)")
    raise ExtensionError(msg)


MO_METHODS: dict[str, dict[str, Any]] = {
    "ProposalOp": {"proposal_infer": proposal_infer},
    "RNN": {"reverse_infer": rnn_reverse_infer},
    "Loop": {name: getattr(loop_body, name) for name in loop_body.__all__},
    "StridedSlice": {name: getattr(strided_slice_masks, name) for name in (
        "get_mask_names", "get_slices", "align_mask_with_slice_rank")},
}
