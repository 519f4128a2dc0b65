"""If-8: run then_body or else_body by a boolean condition. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/condition/if-8.html"""

from __future__ import annotations

import numpy as np

from converter.ops.control._body import Spec
from converter.ops.control._subgraph_op import SubgraphOp, merge_shapes


def _taken(cond) -> str:
    return "then_body" if bool(np.asarray(cond).ravel()[0]) else "else_body"


def _feed(port_map, inputs):
    return {r.internal: inputs[r.external] for r in port_map.external_inputs()}


def _outputs(port_map, results):
    return [results[r.internal] for r in port_map.external_outputs()]


class If(SubgraphOp):
    op = type = "If"
    version = "opset8"
    body_names = ("then_body", "else_body")

    @classmethod
    def evaluate(cls, attrs, inputs):
        name = _taken(inputs[0])
        port_map = attrs["port_maps"][name]
        return _outputs(port_map, attrs["bodies"][name].run(_feed(port_map, inputs)))

    @classmethod
    def infer_outputs(cls, attrs, inputs):
        """A constant condition: the taken branch alone (the other may not even fit these
        inputs); else shapes that cover both."""
        cond = inputs[0].value
        names = cls.body_names if cond is None else (_taken(cond),)
        branches = [
            _outputs(attrs["port_maps"][name],
                     attrs["bodies"][name].infer(_feed(attrs["port_maps"][name], inputs)))
            for name in names
        ]
        if cond is not None:
            return branches[0]
        return [Spec(merge_shapes(t.shape, e.shape), t.dtype) for t, e in zip(*branches)]
