"""CTCGreedyDecoderSeqLen-6 and CTCGreedyDecoder-1 (converter.ops.reduce.ctc_greedy_decoder)
against OpenVINO's CPU plugin, with and without a blank_index input and merge_repeated."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset6 as ops
import pytest

from converter.ops.op import Op

Decoder = Op.registered_ops["CTCGreedyDecoderSeqLen"]


def _openvino(data, lengths, blank, merge: bool) -> list[np.ndarray]:
    inputs = [ops.parameter(data.shape, np.float32), ops.constant(lengths)]
    if blank is not None:
        inputs.append(ops.constant(np.array([blank], np.int32)))
    node = ops.ctc_greedy_decoder_seq_len(*inputs, merge_repeated=merge)
    compiled = ov.Core().compile_model(ov.Model(node.outputs(), inputs[:1]), "CPU")
    result = compiled({0: data})
    return [result[compiled.output(0)], result[compiled.output(1)]]


@pytest.mark.parametrize("merge", [True, False])
@pytest.mark.parametrize("blank", [None, 0, 2])
def test_ctc_greedy_decoder_matches_openvino(merge: bool, blank):
    # few classes over many steps, so repeats and blanks are common
    data = np.random.default_rng(5).standard_normal((3, 9, 4)).astype(np.float32)
    lengths = np.array([9, 4, 0], np.int32)
    attrs = {**Decoder.defaults, "merge_repeated": merge}
    ours = Decoder.compute(attrs, [data, lengths] + ([] if blank is None else [np.int32(blank)]))
    want = _openvino(data, lengths, blank, merge)
    for got, ref in zip(ours, want):
        assert got.dtype == ref.dtype
        np.testing.assert_array_equal(got, ref)


def test_ctc_greedy_decoder_shapes_and_types():
    attrs = {**Decoder.defaults, "classes_index_type": np.dtype(np.int64)}
    assert Decoder.infer_shapes(attrs, [(2, 7, 5), (2,)], [None, None]) == [(2, 7), (2,)]
    assert Decoder.infer_types(attrs, [np.dtype(np.float32)] * 2) == [
        np.dtype(np.int64), np.dtype(np.int32)]


@pytest.mark.parametrize("merge", [True, False])
def test_ctc_greedy_decoder_v1_matches_openvino(merge: bool):
    data = np.random.default_rng(6).standard_normal((9, 3, 4)).astype(np.float32)  # [T, N, C]
    mask = np.ones((9, 3), np.float32)
    mask[4:, 1], mask[:, 2] = 0, 0  # row 1 ends after 4 steps, row 2 is empty
    decoder = Op.registered_ops["CTCGreedyDecoder"]
    (ours,) = decoder.compute({"ctc_merge_repeated": merge}, [data, mask])
    param = ops1.parameter(data.shape, np.float32)
    node = ops1.ctc_greedy_decoder(param, ops1.constant(mask), merge_repeated=merge)
    compiled = ov.Core().compile_model(ov.Model([node], [param]), "CPU")
    want = compiled({0: data})[compiled.output(0)]
    assert ours.shape == want.shape == (3, 9, 1, 1)
    np.testing.assert_array_equal(ours, want)
