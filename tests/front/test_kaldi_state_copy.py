"""A Kaldi state whose stored value OpenVINO reduces to the input itself is still delayed right.

OpenVINO 2026's CPU plugin stores the wrong value when an Assign is fed by a Parameter
(test_kaldi_openvino_bug.py), and also when it is fed by an op its transformations remove,
leaving the Parameter: a Reshape, a StridedSlice or Slice over the whole tensor, a Multiply by
ones (while a StridedSlice of part of it, a ReLU, a ReadValue are stored right). A Kaldi
net's IR that stores such a chain (a dim-range over all of the input, delayed) must still
delay it right: the frontend's copy (converter/front/kaldi/builder.py, DelayLines._store)
is what keeps it so where OpenVINO does not."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset6 as op6
import openvino.opset8 as op8
import pytest
from openvino.op.util import Variable, VariableInfo

from tests.front import kaldi_nets as kn
from tests.front import kaldi_writer as kw
from tests.front.test_kaldi import convert, run_frames

_STORED = {
    "parameter": lambda x: x,
    "reshape": lambda x: op8.reshape(x, np.array([1, 3]), False),
    "whole_strided_slice": lambda x: op8.strided_slice(
        x, np.array([0, 0]), np.array([0, 3]), np.array([1, 1]), [1, 0], [1, 0]),
    "multiply_by_ones": lambda x: op8.multiply(x, np.ones((1, 3), np.float32)),
}


def _previous(stored) -> np.ndarray:
    info = VariableInfo()
    info.data_shape, info.data_type, info.variable_id = ov.PartialShape([1, 3]), ov.Type.f32, "v"
    var = Variable(info)
    x = op8.parameter([1, 3], np.float32)
    read = op6.read_value(op8.constant(np.zeros((1, 3), np.float32)), var)
    model = ov.Model([op8.result(read)], [op6.assign(stored(x), var)], [x])
    compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    frames = np.arange(12, dtype=np.float32).reshape(4, 3) + 1
    got = np.stack([request.infer([f[None]])[compiled.output(0)][0] for f in frames])
    return np.array_equal(got, np.concatenate([np.zeros((1, 3)), frames[:-1]]))


@pytest.mark.parametrize("stored", list(_STORED))
def test_openvino_stores_wrong_values_fed_by_the_input_through_removable_ops(stored):
    assert not _previous(_STORED[stored]), (
        f"OpenVINO now delays {stored} of a Parameter right: see DelayLines._store")


@pytest.mark.parametrize("reads", ["Append(input, IfDefined(Offset(whole, -1)))",
                                   "Append(whole, IfDefined(Offset(whole, -2)))"])
def test_a_whole_dim_range_of_the_input_is_delayed(tmp_path, reads):
    """dim-range-node over all of the input's features, read frames back: the delay line
    stores a StridedSlice OpenVINO may remove."""
    aff = kn.affine(8, 3)
    config = ["input-node name=input dim=4",
              "dim-range-node name=whole input-node=input dim-offset=0 dim=4",
              f"component-node name=a component=a input={reads}",
              "output-node name=output input=a objective=linear"]
    (model := tmp_path / "whole.raw").write_bytes(kw.nnet3(config, [("a", *aff[:2])], True))
    xml = convert(model, tmp_path, "--framework", "kaldi")
    X = kn.RNG.standard_normal((8, 4)).astype(np.float32)
    k = 1 if "-1" in reads else 2
    previous = np.concatenate([np.zeros((k, 4), np.float32), X[:-k]])
    expected = aff[2](np.concatenate([X, previous], axis=1).astype(np.float64))
    for got in run_frames(xml, X):
        np.testing.assert_allclose(got.reshape(expected.shape), expected, rtol=1e-4, atol=1e-5)
