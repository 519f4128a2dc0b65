"""EmbeddingBag*/EmbeddingSegmentsSum, SpaceToBatch/BatchToSpace, GatherTree and
ExtractImagePatches against OpenVINO's CPU plugin running the same op, and their shapes."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset8 as ops
import pytest

from converter.graph.shape import DYN
from converter.ops.op import Op

RNG = np.random.default_rng(3)
OPS = Op.registered_ops


def _openvino(build, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Run build(*parameters) in OpenVINO with inputs fed as parameters (nothing folded)."""
    params = [ops.parameter(x.shape, x.dtype) for x in inputs]
    node = build(*params)
    compiled = ov.Core().compile_model(ov.Model(node.outputs(), params), "CPU",
                                       {"INFERENCE_PRECISION_HINT": "f32"})
    result = compiled(inputs)
    return [result[out] for out in compiled.outputs]


def _ours(op: str, inputs: list[np.ndarray], **attrs) -> np.ndarray:
    cls = OPS[op]
    full = {**cls.defaults, **attrs}
    out = cls.compute(full, inputs)[0]
    shape = cls.infer_shapes(full, [x.shape for x in inputs], inputs)[0]
    assert tuple(shape) == out.shape
    return out


TABLE = RNG.standard_normal((10, 3, 2)).astype(np.float32)
INDICES = np.array([0, 2, 3, 4, 9, 1, 7], np.int64)
WEIGHTS = RNG.standard_normal(7).astype(np.float32)


@pytest.mark.parametrize("extra", [[], [np.int64(5)], [np.int64(-1), WEIGHTS],
                                   [np.int64(8), WEIGHTS]])
def test_embedding_bag_offsets_sum(extra):
    offsets = np.array([0, 2, 2, 6], np.int64)  # bag 1 is empty
    inputs = [TABLE, INDICES, offsets, *[np.asarray(x) for x in extra]]
    ref = _openvino(lambda *p: ov.opset3.embedding_bag_offsets_sum(*p), inputs)[0]
    np.testing.assert_allclose(_ours("EmbeddingBagOffsetsSum", inputs), ref, atol=1e-6)


@pytest.mark.parametrize("weighted", [False, True])
def test_embedding_bag_packed_sum(weighted):
    indices = np.array([[0, 2, 2], [9, 1, 4]], np.int64)
    inputs = [TABLE, indices] + ([RNG.standard_normal((2, 3)).astype(np.float32)]
                                 if weighted else [])
    ref = _openvino(lambda *p: ov.opset3.embedding_bag_packed_sum(*p), inputs)[0]
    np.testing.assert_allclose(_ours("EmbeddingBagPackedSum", inputs), ref, atol=1e-6)


@pytest.mark.parametrize("extra", [[], [np.int64(3)], [np.int64(6), WEIGHTS]])
def test_embedding_segments_sum(extra):
    segments = np.array([0, 0, 2, 2, 2, 4, 4], np.int64)  # segments 1 and 3 are empty
    inputs = [TABLE, INDICES, segments, np.int64(5), *[np.asarray(x) for x in extra]]
    inputs = [np.asarray(x) for x in inputs]
    ref = _openvino(lambda *p: ov.opset3.embedding_segments_sum(*p), inputs)[0]
    np.testing.assert_allclose(_ours("EmbeddingSegmentsSum", inputs), ref, atol=1e-6)


@pytest.mark.parametrize(("shape", "block", "begin", "end"), [
    ((2, 3, 4, 5), [1, 1, 2, 3], [0, 0, 1, 0], [0, 0, 1, 1]),
    ((1, 2, 6), [1, 2, 3], [0, 0, 0], [0, 2, 0]),
])
def test_space_to_batch_and_back(shape, block, begin, end):
    x = RNG.standard_normal(shape).astype(np.float32)
    consts = [np.array(v, np.int64) for v in (block, begin, end)]
    ref = _openvino(lambda d, *c: ov.opset2.space_to_batch(d, *c), [x, *consts])[0]
    ours = _ours("SpaceToBatch", [x, *consts])
    np.testing.assert_array_equal(ours, ref)
    back = _openvino(lambda d, *c: ov.opset2.batch_to_space(d, *c), [ref, *consts])[0]
    np.testing.assert_array_equal(_ours("BatchToSpace", [ref, *consts]), back)
    np.testing.assert_array_equal(back, x)
    assert OPS["SpaceToBatch"].infer_shapes({}, [(DYN, *shape[1:]), (len(shape),)] * 2,
                                            [None, *consts])[0][0] == DYN


def test_gather_tree():
    steps = RNG.integers(1, 6, (5, 3, 4)).astype(np.int32)
    parents = RNG.integers(0, 4, (5, 3, 4)).astype(np.int32)
    inputs = [steps, parents, np.array([5, 3, 1], np.int32), np.array(2, np.int32)]
    ref = _openvino(lambda *p: ov.opset1.gather_tree(*p), inputs)[0]
    np.testing.assert_array_equal(_ours("GatherTree", inputs), ref)


@pytest.mark.parametrize("auto_pad", ["valid", "same_upper", "same_lower"])
@pytest.mark.parametrize(("sizes", "strides", "rates"), [
    ([2, 2], [1, 1], [1, 1]), ([3, 2], [2, 3], [1, 2]), ([2, 3], [3, 2], [2, 1])])
def test_extract_image_patches(auto_pad, sizes, strides, rates):
    x = RNG.standard_normal((2, 3, 7, 8)).astype(np.float32)
    ref = _openvino(lambda p: ov.opset3.extract_image_patches(p, sizes, strides, rates,
                                                              auto_pad), [x])[0]
    ours = _ours("ExtractImagePatches", [x], sizes=sizes, strides=strides, rates=rates,
                 auto_pad=auto_pad)
    np.testing.assert_allclose(ours, ref, atol=1e-6)


@pytest.mark.parametrize("collapse", [False, True])
@pytest.mark.parametrize("merge", [False, True])
@pytest.mark.parametrize("unique", [False, True])
@pytest.mark.parametrize("blank", [None, 0])
def test_ctc_loss(collapse, merge, unique, blank):
    logits = RNG.standard_normal((3, 8, 5)).astype(np.float32)
    labels = np.array([[1, 1, 2, 3, 3, 0, 0, 0], [2, 3, 2, 2, 1, 1, 0, 0],
                       [1, 2, 1, 0, 0, 0, 0, 0]], np.int32)
    if blank == 0:
        labels = labels + (labels > 0)
    inputs = [logits, np.array([8, 7, 5], np.int32), labels, np.array([5, 4, 3], np.int32)]
    inputs += [] if blank is None else [np.array(blank, np.int32)]
    attrs = {"preprocess_collapse_repeated": collapse, "ctc_merge_repeated": merge,
             "unique": unique}
    ref = _openvino(lambda *p: ov.opset4.ctc_loss(*p, **attrs), inputs)[0]
    np.testing.assert_allclose(_ours("CTCLoss", inputs, **attrs), ref, rtol=1e-5)
