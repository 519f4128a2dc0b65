"""Movement ops: evaluate vs numpy, shape inference (dynamic dims too), ONNX -> IR -> OpenVINO."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from converter.ops import Op
from tests.conftest import make_model

OPS = Op.registered_ops
RNG = np.random.default_rng(0)


def run(op: str, *inputs, **attrs) -> list[np.ndarray]:
    cls = OPS[op]
    return cls.compute({**cls.defaults, **attrs}, [np.asarray(x) for x in inputs])


def shapes(op: str, in_shapes: list, values: list, **attrs) -> list:
    cls = OPS[op]
    return cls.infer_shapes({**cls.defaults, **attrs}, in_shapes, values)


# -- evaluate ------------------------------------------------------------------------------------
def test_reshape_special_zero_and_minus_one():
    x = np.arange(24).reshape(2, 3, 4)
    assert run("Reshape", x, [0, -1], special_zero=True)[0].shape == (2, 12)
    assert run("Reshape", x, [-1, 4], special_zero=False)[0].shape == (6, 4)
    assert shapes("Reshape", [(-1, 3, 4), (2,)], [None, np.array([0, -1])], special_zero=True) \
        == [(-1, 12)]
    assert shapes("Reshape", [(-1, 3, 4), (3,)], [None, None]) == [(-1, -1, -1)]


def test_transpose_concat_split():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    np.testing.assert_array_equal(run("Transpose", x, [2, 0, 1])[0], x.transpose(2, 0, 1))
    np.testing.assert_array_equal(run("Transpose", x, np.zeros(0, np.int64))[0], x.T)
    np.testing.assert_array_equal(run("Concat", x, x, axis=-1)[0], np.concatenate([x, x], -1))
    assert shapes("Concat", [(2, -1), (2, 3)], [None, None], axis=1) == [(2, -1)]
    parts = run("Split", x, 2, num_splits=2)
    np.testing.assert_array_equal(parts[1], x[:, :, 2:])
    parts = run("VariadicSplit", x, 1, [1, -1])
    assert [p.shape for p in parts] == [(2, 1, 4), (2, 2, 4)]
    assert shapes("VariadicSplit", [(2, -1, 4), (), (2,)], [None, 1, np.array([1, -1])]) \
        == [(2, 1, 4), (2, -1, 4)]


def test_strided_slice_masks():
    x = np.arange(60).reshape(3, 4, 5)
    attrs = {"begin_mask": [0, 1], "end_mask": [0, 1], "new_axis_mask": [0, 0, 1],
             "shrink_axis_mask": [1], "ellipsis_mask": []}
    out = run("StridedSlice", x, [1, 0, 0], [2, 0, 0], [1, 1, 1], **attrs)[0]
    np.testing.assert_array_equal(out, x[1, :, None])
    ell = {"begin_mask": [], "end_mask": [], "ellipsis_mask": [1, 0], "new_axis_mask": [],
           "shrink_axis_mask": []}
    np.testing.assert_array_equal(run("StridedSlice", x, [0, 1], [0, -1], [1, 2], **ell)[0],
                                  x[..., 1:-1:2])
    assert shapes("StridedSlice", [(-1, 4, 5), (3,), (3,), (3,)],
                  [None, np.array([0, 1, 0]), np.array([0, 3, 5]), np.array([1, 1, 2])],
                  **{**ell, "ellipsis_mask": []}) == [(-1, 2, 3)]


def test_strided_slice_shrinking_every_axis_gives_a_scalar():
    # tf.shape(x)[0] (Keras Flatten/Reshape): folded to [1] it broke the Pack that follows
    shrink = {"begin_mask": [0], "end_mask": [0], "new_axis_mask": [0], "shrink_axis_mask": [1],
              "ellipsis_mask": []}
    out = run("StridedSlice", np.array([1, 16, 16, 8]), [0], [1], [1], **shrink)[0]
    assert out.shape == () and out == 1
    assert shapes("StridedSlice", [(4,), (1,), (1,), (1,)],
                  [None, np.array([0]), np.array([1]), np.array([1])], **shrink) == [()]


def test_strided_slice_with_unknown_bounds_keeps_its_rank():
    # x[:, i] in a loop body: the rank and the whole dims are known, the sliced ones are not
    attrs = {"begin_mask": [1, 0, 1], "end_mask": [1, 0, 1], "new_axis_mask": [0, 0, 0],
             "shrink_axis_mask": [0, 1, 0], "ellipsis_mask": []}
    assert shapes("StridedSlice", [(2, 5, 3), (3,), (3,), (3,)], [None] * 4,
                  **attrs) == [(2, 3)]
    sliced = {**attrs, "shrink_axis_mask": [0, 0, 0], "new_axis_mask": [0, 0, 1]}
    assert shapes("StridedSlice", [(2, 5, 3), (3,), (3,), (3,)], [None] * 4,
                  **sliced) == [(2, -1, 1, 3)]


def test_slice_negative_steps_and_axes():
    x = np.arange(20).reshape(4, 5)
    big = np.iinfo(np.int64).max
    out = run("Slice", x, [-1, big], [-big, 0], [-1, -2], [0, 1])[0]
    np.testing.assert_array_equal(out, x[::-1, :0:-2])
    assert shapes("Slice", [(-1, 5), (1,), (1,), (1,), (1,)],
                  [None, np.array([1]), np.array([4]), np.array([1]), np.array([1])]) == [(-1, 3)]


def test_gather_family():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    idx = np.array([[0, -1], [2, 1]])
    np.testing.assert_array_equal(run("Gather", x, idx, 1)[0], np.take(x, idx % 3, axis=1))
    batched = run("Gather", x, np.array([[3, 0], [1, 1]]), 2, batch_dims=1)[0]
    np.testing.assert_array_equal(batched[1], x[1][:, [1, 1]])
    assert batched.shape == (2, 3, 2)
    assert run("Gather", x, [5], 1)[0].sum() == 0  # out of range reads zeros
    el = np.array([[[0, 2, 1, 0]] * 3] * 2)
    np.testing.assert_array_equal(run("GatherElements", x, el, axis=1)[0],
                                  np.take_along_axis(x, el, 1))
    nd = run("GatherND", x, np.array([[[1], [0]], [[2], [2]]]), batch_dims=1)[0]
    np.testing.assert_array_equal(nd, np.stack([x[0, [1, 0]], x[1, [2, 2]]]))
    assert shapes("Gather", [(-1, 3, 4), (5,), ()], [None, None, np.int64(2)]) == [(-1, 3, 5)]


def test_scatter_family():
    data = np.zeros((3, 4), np.float32)
    upd = np.ones((3, 2), np.float32)
    out = run("ScatterUpdate", data, [3, -4], upd, 1)[0]
    np.testing.assert_array_equal(out[:, [0, 3]], upd)
    idx = np.array([[1, 1], [0, 2], [3, 3]])
    summed = run("ScatterElementsUpdate", data + 1, idx, upd, 1, reduction="sum")[0]
    np.testing.assert_array_equal(summed[0], [1, 3, 1, 1])
    mean = run("ScatterElementsUpdate", data + 1, idx, upd * 4, 1, reduction="mean",
               use_init_val=False)[0]
    np.testing.assert_array_equal(mean[1], [4, 1, 4, 1])
    nd = run("ScatterNDUpdate", data, [[0, 1], [0, 1]], [2.0, 5.0], reduction="max")[0]
    assert nd[0, 1] == 5 and nd.sum() == 5


def test_pad_modes_and_negative_pads():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = run("Pad", x, [1, -1], [2, 1], np.float32(9), pad_mode="constant")[0]
    np.testing.assert_array_equal(out, np.pad(x[:, 1:], ((1, 2), (0, 1)), constant_values=9))
    for mode in ("edge", "reflect", "symmetric"):
        np.testing.assert_array_equal(run("Pad", x, [1, 2], [0, 1], pad_mode=mode)[0],
                                      np.pad(x, ((1, 0), (2, 1)), mode=mode))
    assert shapes("Pad", [(-1, 4), (2,), (2,)], [None, np.array([1, 1]), np.array([0, 2])]) \
        == [(-1, 7)]


def test_tile_broadcast_range_eye():
    x = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(run("Tile", x, [2, 1, 2])[0], np.tile(x, [2, 1, 2]))
    np.testing.assert_array_equal(run("Broadcast", x, [4, 2, 3])[0], np.broadcast_to(x, (4, 2, 3)))
    bi = run("Broadcast", x[:, :1], [1, 5], mode="bidirectional")[0]
    assert bi.shape == (2, 5)
    ex = run("Broadcast", np.arange(3), [2, 3, 4], [1], mode="explicit")[0]
    np.testing.assert_array_equal(ex[1, :, 2], np.arange(3))
    assert shapes("Broadcast", [(1, 3), (2,)], [None, None], mode="bidirectional") == [(-1, -1)]
    assert run("Broadcast", np.float32(2), np.zeros(0, np.int64))[0].shape == ()  # to a scalar
    r = run("Range", 5, 1, -1.5, output_type=np.dtype(np.float32))[0]
    np.testing.assert_allclose(r, np.arange(5, 1, -1.5))
    assert run("Range", 0, 7, 2, output_type=np.dtype(np.int32))[0].dtype == np.int32
    eye = run("Eye", 3, 4, -1, [2], output_type=np.dtype(np.int32))[0]
    np.testing.assert_array_equal(eye[1], np.eye(3, 4, -1))


def test_sequence_one_hot_nonzero_roll_shuffle():
    x = np.arange(12).reshape(3, 4)
    rev = run("ReverseSequence", x, [4, 1, 2], batch_axis=0, seq_axis=1)[0]
    np.testing.assert_array_equal(rev, [[3, 2, 1, 0], [4, 5, 6, 7], [9, 8, 10, 11]])
    hot = run("OneHot", np.array([0, 2, 5]), 3, np.float32(7), np.float32(1), axis=0)[0]
    np.testing.assert_array_equal(hot, [[7, 1, 1], [1, 1, 1], [1, 7, 1]])
    hot = run("OneHot", np.array([-1, 2, -4]), 3, np.float32(7), np.float32(1), axis=0,
              negative_indices_mode="normalize")[0]  # OneHot-16: -1 is depth - 1
    np.testing.assert_array_equal(hot, [[1, 1, 1], [1, 1, 1], [7, 7, 1]])
    nz = run("NonZero", np.array([[0, 1], [2, 0]]), output_type=np.dtype(np.int32))[0]
    assert nz.dtype == np.int32
    np.testing.assert_array_equal(nz, [[0, 1], [1, 0]])
    np.testing.assert_array_equal(run("Roll", x, [1, -1], [0, 1])[0], np.roll(x, (1, -1), (0, 1)))
    sc = run("ShuffleChannels", np.arange(6).reshape(1, 6), axis=1, group=2)[0]
    np.testing.assert_array_equal(sc, [[0, 3, 1, 4, 2, 5]])
    assert shapes("NonZero", [(2, -1)], [None]) == [(2, -1)]


def test_squeeze_unsqueeze_shapes():
    x = np.zeros((1, 3, 1))
    assert run("Squeeze", x)[0].shape == (3,)
    assert run("Squeeze", x, [-1])[0].shape == (1, 3)
    assert run("Unsqueeze", x, [0, -1])[0].shape == (1, 1, 3, 1, 1)
    assert shapes("Squeeze", [(1, -1)], [None]) == [None]
    assert shapes("Unsqueeze", [(-1, 3), (2,)], [None, None]) == [(-1, -1, -1, -1)]


# -- ONNX -> IR -> OpenVINO ----------------------------------------------------------------------
def _check(model: onnx.ModelProto, feeds: list[np.ndarray]) -> None:
    from converter.onnx_backend import ExtgenBackend

    expected = ReferenceEvaluator(model).run(None, dict(zip(
        [i.name for i in model.graph.input], feeds, strict=False)))
    got = ExtgenBackend.prepare(model, engine="openvino").run(feeds)
    for e, g in zip(expected, got, strict=True):
        assert e.shape == g.shape
        np.testing.assert_allclose(g, e, rtol=1e-5)


def test_roundtrip_shape_subgraph_folds(tmp_path: Path):
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "i"], ["d"], axis=0),
        helper.make_node("Concat", ["d", "m"], ["t"], axis=0),
        helper.make_node("Reshape", ["x", "t"], ["y"]),
        helper.make_node("Flatten", ["x"], ["f"], axis=-1),
    ]
    model = make_model(nodes, [("x", TensorProto.FLOAT, [2, 3, 4])],
                       [("y", TensorProto.FLOAT, None), ("f", TensorProto.FLOAT, None)],
                       {"i": np.array([0], np.int64), "m": np.array([-1], np.int64)}, opset=13)
    _check(model, [RNG.standard_normal((2, 3, 4)).astype(np.float32)])
    from converter.options import ConvertOptions
    from converter.pipeline import convert

    onnx.save(model, tmp_path / "m.onnx")
    xml = convert(ConvertOptions(tmp_path / "m.onnx", output_dir=tmp_path)).xml.read_text()
    assert 'type="ShapeOf"' not in xml and 'type="Gather"' not in xml


@pytest.mark.parametrize("opset", [11, 13, 18])
def test_roundtrip_split_slice_pad(opset: int):
    x = RNG.standard_normal((2, 7, 4)).astype(np.float32)
    split = {"num_outputs": 3} if opset >= 18 else {"split": [2, 2, 3]} if opset < 13 else {}
    nodes = [
        helper.make_node("Split", ["x", "sl"] if opset == 13 else ["x"], ["a", "b", "c"], axis=1,
                         **split),
        helper.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["s"]),
        helper.make_node("Pad", ["x", "p"], ["p_out"], mode="reflect"),
    ]
    inits = {"st": np.array([-1, 0], np.int64), "en": np.array([-8, 9], np.int64),
             "ax": np.array([1, 2], np.int64), "sp": np.array([-2, 3], np.int64),
             "p": np.array([0, 1, 2, 0, 2, 1], np.int64), "sl": np.array([2, 2, 3], np.int64)}
    outs = [(o, TensorProto.FLOAT, None) for o in ("a", "b", "c", "s", "p_out")]
    _check(make_model(nodes, [("x", TensorProto.FLOAT, x.shape)], outs, inits, opset=opset), [x])


def test_roundtrip_gather_scatter_onehot_trilu():
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    nodes = [
        helper.make_node("Gather", ["x", "gi"], ["g"], axis=1),
        helper.make_node("ScatterElements", ["x", "si", "su"], ["s"], axis=1, reduction="add"),
        helper.make_node("OneHot", ["oi", "depth", "vals"], ["o"], axis=0),
        helper.make_node("Trilu", ["x", "k"], ["t"], upper=0),
        helper.make_node("Expand", ["x", "shape"], ["e"]),
        helper.make_node("Unsqueeze", ["x", "uax"], ["u"]),
    ]
    inits = {"gi": np.array([[0, -1]], np.int64), "si": np.array([[1, 1], [0, 3], [2, 0]]),
             "su": np.ones((3, 2), np.float32), "oi": np.array([1, -1, 4], np.int64),
             "depth": np.array(3, np.int64), "vals": np.array([0, 5], np.float32),
             "k": np.array(1, np.int64), "shape": np.array([2, 1, 1], np.int64),
             "uax": np.array([-1, 0], np.int64)}
    outs = [(o, TensorProto.FLOAT, None) for o in ("g", "s", "o", "t", "e", "u")]
    _check(make_model(nodes, [("x", TensorProto.FLOAT, x.shape)], outs, inits, opset=18), [x])


@pytest.mark.parametrize(("axes", "wanted"), [(None, [3, 7, 2]), ([1, 2], [2, 5]),
                                              ([-1], [6])])
def test_onnx_center_crop_pad_against_onnxruntime(axes, wanted):
    """Crops and pads about the centre, odd sizes included, in both engines."""
    import onnxruntime as ort

    from converter.onnx_backend import ExtgenBackend

    attrs = {} if axes is None else {"axes": axes}
    node = helper.make_node("CenterCropPad", ["x", "shape"], ["y"], **attrs)
    model = make_model([node], [("x", TensorProto.FLOAT, [4, 4, 3]),
                                ("shape", TensorProto.INT64, [len(wanted)])],
                       [("y", TensorProto.FLOAT, None)], opset=18)
    feeds = {"x": np.random.default_rng(3).standard_normal((4, 4, 3)).astype(np.float32),
             "shape": np.array(wanted, np.int64)}
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, feeds)[0]
    for engine in ("openvino", "shim"):
        got = ExtgenBackend.prepare(model, engine=engine).run(list(feeds.values()))[0]
        np.testing.assert_array_equal(got, expected, err_msg=engine)
