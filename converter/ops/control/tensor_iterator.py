"""TensorIterator-1: run a body once per part of its sliced inputs. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/infrastructure/tensor-iterator-1.html"""

from __future__ import annotations

from converter.ops.control._body import slice_bounds
from converter.ops.control._iterate import infer_iterations, iterate
from converter.ops.control._subgraph_op import SubgraphOp


def _count(port_map, shapes) -> int | None:
    """Iterations, from the first sliced input of a known dimension."""
    for rule in port_map.external_inputs():
        shape = shapes[rule.external]
        if rule.axis is not None and shape is not None and shape[rule.axis] >= 0:
            return slice_bounds(rule, shape[rule.axis])[1]
    return None


class TensorIterator(SubgraphOp):
    op = type = "TensorIterator"
    version = "opset1"

    @classmethod
    def evaluate(cls, attrs, inputs):
        port_map = attrs["port_maps"]["body"]
        if not any(r.axis is not None for r in port_map.external_inputs()):
            msg = "TensorIterator has no sliced input to count its iterations by"
            raise ValueError(msg)
        return iterate(attrs["bodies"]["body"], port_map, inputs, None,
                       lambda i: {}, lambda out: True)

    @classmethod
    def infer_outputs(cls, attrs, inputs):
        port_map = attrs["port_maps"]["body"]
        count = _count(port_map, [s.shape for s in inputs])
        return infer_iterations(attrs["bodies"]["body"], port_map, inputs, {}, count)
