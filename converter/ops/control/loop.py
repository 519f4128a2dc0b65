"""Loop-5: run a body while a trip count and a condition allow. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/infrastructure/loop-5.html"""

from __future__ import annotations

import numpy as np

from converter.ops.control._body import Spec
from converter.ops.control._iterate import infer_iterations, iterate
from converter.ops.control._subgraph_op import SubgraphOp

CURRENT_ITERATION = "current_iteration"
EXECUTION_CONDITION = "execution_condition"


def _scalar(x) -> np.generic:
    return np.asarray(x).ravel()[0]


class Loop(SubgraphOp):
    op = type = "Loop"
    version = "opset5"

    @classmethod
    def evaluate(cls, attrs, inputs):
        body, port_map = attrs["bodies"]["body"], attrs["port_maps"]["body"]
        trip = int(_scalar(inputs[0]))
        if not bool(_scalar(inputs[1])) or trip == 0:
            trip = 0
        iteration = port_map.special(CURRENT_ITERATION)
        condition = port_map.special(EXECUTION_CONDITION)
        return iterate(
            body, port_map, inputs, None if trip < 0 else trip,
            lambda i: {} if iteration is None else {iteration: np.array(i, np.int64)},
            lambda out: condition is None or bool(_scalar(out[condition])),
        )

    @classmethod
    def infer_outputs(cls, attrs, inputs):
        port_map = attrs["port_maps"]["body"]
        iteration = port_map.special(CURRENT_ITERATION)
        extra = {} if iteration is None else {iteration: Spec((), np.dtype(np.int64))}
        trip, run = inputs[0].value, inputs[1].value
        count = None
        if trip is not None and run is not None and not bool(_scalar(run)):
            count = 0
        return infer_iterations(attrs["bodies"]["body"], port_map, inputs, extra, count)
