"""Reduce-family ops: evaluate vs numpy, shape/type inference, ONNX -> IR -> OpenVINO round
trips."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper

from converter.graph.shape import DYN
from converter.ops import Op

OPS = Op.registered_ops
RNG = np.random.default_rng(0)


def run(op: str, *inputs, **attrs) -> list[np.ndarray]:
    cls = OPS[op]
    return cls.compute({**cls.defaults, **attrs}, [np.asarray(x) for x in inputs])


def shapes(op: str, in_shapes, values, **attrs):
    cls = OPS[op]
    return cls.infer_shapes({**cls.defaults, **attrs}, list(in_shapes), list(values))


# -- evaluate ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("op", "ref"), [
    ("ReduceSum", np.sum), ("ReduceMean", np.mean), ("ReduceMax", np.max),
    ("ReduceMin", np.min), ("ReduceProd", np.prod),
    ("ReduceL1", lambda x, axis, keepdims: np.sum(np.abs(x), axis=axis, keepdims=keepdims)),
    ("ReduceL2", lambda x, axis, keepdims: np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdims))),
])
@pytest.mark.parametrize("keep", [False, True])
def test_reductions_match_numpy(op, ref, keep):
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    out = run(op, x, np.array([0, -1]), keep_dims=keep)[0]
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, ref(x, axis=(0, 2), keepdims=keep), rtol=1e-5)


def test_empty_axes_is_identity_and_empty_sets_give_identities():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    np.testing.assert_array_equal(run("ReduceSum", x, np.zeros(0, np.int64))[0], x)
    empty = np.zeros((2, 0), np.float32)
    np.testing.assert_array_equal(run("ReduceMax", empty, [1])[0], [-np.inf, -np.inf])
    np.testing.assert_array_equal(run("ReduceProd", empty, [1])[0], [1, 1])
    b = np.array([[True, False], [True, True]])
    np.testing.assert_array_equal(run("ReduceLogicalAnd", b, [1])[0], [False, True])
    np.testing.assert_array_equal(run("ReduceLogicalOr", b, [0], keep_dims=True)[0], [[True, True]])


def test_integer_mean_truncates():
    out = run("ReduceMean", np.array([[1, 2], [-1, -2]], np.int32), [1])[0]
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [1, -1])


def test_top_k_modes_sorts_and_stable_ties():
    x = np.array([[3, 5, 5, 1, 5]], np.float32)
    values, idx = run("TopK", x, 2, axis=1, mode="max", sort="value", stable=True)
    np.testing.assert_array_equal(values, [[5, 5]])
    np.testing.assert_array_equal(idx, [[1, 2]])
    assert idx.dtype == np.int32
    values, idx = run("TopK", x, 3, axis=-1, mode="min", sort="index", stable=True,
                      index_element_type=np.dtype(np.int64))
    np.testing.assert_array_equal(idx, [[0, 1, 3]])
    np.testing.assert_array_equal(values, [[3, 5, 1]])
    assert idx.dtype == np.int64


def test_cum_sum_exclusive_reverse():
    x = np.array([1, 2, 3, 4], np.int32)
    np.testing.assert_array_equal(run("CumSum", x, 0)[0], [1, 3, 6, 10])
    np.testing.assert_array_equal(run("CumSum", x, 0, exclusive=True)[0], [0, 1, 3, 6])
    np.testing.assert_array_equal(run("CumSum", x, 0, reverse=True)[0], [10, 9, 7, 4])
    np.testing.assert_array_equal(run("CumSum", x, 0, exclusive=True, reverse=True)[0],
                                  [9, 7, 4, 0])


def test_einsum_explicit_implicit_and_ellipsis():
    a = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    b = RNG.standard_normal((2, 4, 5)).astype(np.float32)
    np.testing.assert_allclose(run("Einsum", a, b, equation="bij,bjk->bik")[0], a @ b, rtol=1e-5)
    np.testing.assert_allclose(run("Einsum", a, equation="ijk")[0], a)
    np.testing.assert_allclose(run("Einsum", a, equation="...j->...")[0], a.sum(-1), rtol=1e-5)
    assert shapes("Einsum", [(2, 3, 4), (2, 4, 5)], [None, None], equation="bij,bjk->bik") == [
        (2, 3, 5)]
    assert shapes("Einsum", [(DYN, 3, 4)], [None], equation="...ij->...ji") == [(DYN, 4, 3)]
    assert shapes("Einsum", [(3, 4)], [None], equation="ji") == [(4, 3)]


def test_fft_family_matches_numpy():
    x = RNG.standard_normal((3, 8)).astype(np.float32)
    c = np.stack([x, np.flip(x, 1)], axis=-1)
    z = c[..., 0] + 1j * c[..., 1]
    dft = run("DFT", c, [1])[0]
    np.testing.assert_allclose(dft[..., 0] + 1j * dft[..., 1], np.fft.fft(z, axis=1), atol=1e-4)
    idft = run("IDFT", c, [-1], [4])[0]
    np.testing.assert_allclose(idft[..., 0] + 1j * idft[..., 1], np.fft.ifft(z, 4), atol=1e-5)
    rdft = run("RDFT", x, [1])[0]
    assert rdft.shape == (3, 5, 2)
    np.testing.assert_allclose(rdft[..., 0] + 1j * rdft[..., 1], np.fft.rfft(x), atol=1e-4)
    back = run("IRDFT", rdft, [1])[0]
    np.testing.assert_allclose(back, x, atol=1e-5)
    assert shapes("RDFT", [(3, 8), (1,)], [None, np.array([1])]) == [(3, 5, 2)]
    assert shapes("IRDFT", [(3, 5, 2), (1,)], [None, np.array([1])]) == [(3, 8)]
    assert shapes("DFT", [(3, DYN, 2), (1,), (1,)], [None, np.array([1]), None]) == [(3, DYN, 2)]


def test_non_max_suppression_per_class_and_center_boxes():
    boxes = np.array([[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 10, 1, 11]]], np.float32)
    scores = np.array([[[0.9, 0.8, 0.7]]], np.float32)
    idx, sel, valid = run("NonMaxSuppression", boxes, scores, 3, 0.5, 0.0,
                          sort_result_descending=False)
    np.testing.assert_array_equal(idx, [[0, 0, 0], [0, 0, 2]])
    np.testing.assert_allclose(sel[:, 2], [0.9, 0.7])
    assert valid.tolist() == [2]
    center = np.array([[[0.5, 0.5, 1, 1], [0.5, 0.6, 1, 1], [0.5, 10.5, 1, 1]]], np.float32)
    idx2 = run("NonMaxSuppression", center, scores, 3, 0.5, 0.0, box_encoding="center")[0]
    np.testing.assert_array_equal(idx2, idx)


def test_bucketize_and_unique():
    x = np.array([1.0, 2.0, 2.5, 5.0], np.float32)
    edges = np.array([2.0, 4.0], np.float32)
    np.testing.assert_array_equal(run("Bucketize", x, edges)[0], [0, 0, 1, 2])
    np.testing.assert_array_equal(run("Bucketize", x, edges, with_right_bound=False)[0],
                                  [0, 1, 1, 2])
    y, first, inverse, counts = run("Unique", np.array([2, 1, 1, 3, 4, 3]), sorted=False)
    np.testing.assert_array_equal(y, [2, 1, 3, 4])
    np.testing.assert_array_equal(first, [0, 1, 3, 4])
    np.testing.assert_array_equal(inverse, [0, 1, 1, 2, 3, 2])
    np.testing.assert_array_equal(counts, [1, 2, 2, 1])


# -- shape inference -----------------------------------------------------------------------------
def test_reduce_shapes_with_dynamic_dims_and_unknown_axes():
    assert shapes("ReduceSum", [(DYN, 3, 4), (1,)], [None, np.array([1])]) == [(DYN, 4)]
    assert shapes("ReduceMax", [(DYN, 3, 4), (2,)], [None, np.array([0, 2])], keep_dims=True) == [
        (1, 3, 1)]
    assert shapes("ReduceSum", [(2, 3, 4), (2,)], [None, None]) == [(DYN,)]
    assert shapes("ReduceSum", [(2, 3, 4), (DYN,)], [None, None], keep_dims=True) == [
        (DYN, DYN, DYN)]
    assert shapes("ReduceSum", [(2, 3, 4), (DYN,)], [None, None]) == [None]


def test_top_k_shapes():
    assert shapes("TopK", [(DYN, 10), ()], [None, np.array(3)], axis=1) == [(DYN, 3), (DYN, 3)]
    assert shapes("TopK", [(4, 10), ()], [None, None], axis=0) == [(DYN, 10), (DYN, 10)]
    assert OPS["TopK"].infer_types(
        {"index_element_type": np.dtype(np.int64)}, [np.dtype(np.float16)]
    ) == [np.float16, np.int64]


# -- ONNX -> IR -> OpenVINO ----------------------------------------------------------------------
def _model(nodes, inputs: dict, outputs: list[str], opset: int, inits=()) -> onnx.ModelProto:
    def info(name, value):
        return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(value.dtype),
                                             value.shape)

    graph = helper.make_graph(
        nodes, "g", [info(k, v) for k, v in inputs.items()],
        [helper.make_empty_tensor_value_info(o) for o in outputs],
        initializer=list(inits),
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def _run_model(nodes, inputs: dict, outputs: list[str], opset: int = 18, inits=()):
    from converter.onnx_backend import ExtgenBackend

    model = _model(nodes, inputs, outputs, opset, inits)
    return ExtgenBackend.prepare(model, engine="openvino").run(list(inputs.values()))


def _ort(nodes, inputs: dict, outputs: list[str], opset: int = 18, inits=()):
    import onnxruntime as ort

    model = _model(nodes, inputs, outputs, opset, inits)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, inputs)


@pytest.mark.parametrize("opset", [11, 18])
def test_onnx_reduce_all_axes_and_log_sum_exp(opset):
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    nodes = [
        helper.make_node("ReduceMean", ["x"], ["mean"], keepdims=0),
        helper.make_node("ReduceLogSumExp", ["x"], ["lse"], keepdims=1),
        helper.make_node("ReduceSumSquare", ["x"], ["ssq"], keepdims=0,
                         **({"axes": [1]} if opset < 18 else {})),
    ]
    inits = []
    if opset >= 18:
        nodes[2].input.append("axes")
        inits = [onnx.numpy_helper.from_array(np.array([1], np.int64), "axes")]
    got = _run_model(nodes, {"x": x}, ["mean", "lse", "ssq"], opset, inits)
    want = _ort(nodes, {"x": x}, ["mean", "lse", "ssq"], opset, inits)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_onnx_argmax_last_index_and_top_k():
    x = np.array([[1, 5, 5, 2], [7, 0, 7, 7]], np.float32)
    k = np.array([2], np.int64)
    nodes = [
        helper.make_node("ArgMax", ["x"], ["am"], axis=1, keepdims=0, select_last_index=1),
        helper.make_node("ArgMin", ["x"], ["an"], axis=-1),
        helper.make_node("TopK", ["x", "k"], ["v", "i"], largest=1),
    ]
    got = _run_model(nodes, {"x": x, "k": k}, ["am", "an", "v", "i"], 13)
    np.testing.assert_array_equal(got[0], [2, 3])
    np.testing.assert_array_equal(got[1], [[0], [1]])
    np.testing.assert_array_equal(got[2], [[5, 5], [7, 7]])
    np.testing.assert_array_equal(got[3], [[1, 2], [0, 2]])


def test_onnx_cumsum_and_einsum():
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    y = RNG.standard_normal((4, 2)).astype(np.float32)
    nodes = [
        helper.make_node("CumSum", ["x", "axis"], ["c"], exclusive=1, reverse=1),
        helper.make_node("Einsum", ["x", "y"], ["e"], equation="ij, jk -> ik"),
    ]
    inits = [onnx.numpy_helper.from_array(np.array(1, np.int64), "axis")]
    got = _run_model(nodes, {"x": x, "y": y}, ["c", "e"], 14, inits)
    want = _ort(nodes, {"x": x, "y": y}, ["c", "e"], 14, inits)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def _cumprod(x: np.ndarray, axis: int, exclusive: int, reverse: int) -> np.ndarray:
    y = np.flip(x, axis) if reverse else x
    if exclusive:
        ones = np.ones_like(np.take(y, [0], axis))
        y = np.concatenate([ones, np.delete(y, -1, axis)], axis)
    y = np.cumprod(y, axis)
    return np.flip(y, axis) if reverse else y


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize(("exclusive", "reverse"), [(0, 0), (1, 0), (0, 1), (1, 1)])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_onnx_cum_prod_in_both_engines(axis, exclusive, reverse, dtype):
    """ONNX CumProd (axis an input) against numpy's cumprod, zeros and negatives included."""
    from converter.onnx_backend import ExtgenBackend
    from tests.conftest import make_model

    elem = onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    node = helper.make_node("CumProd", ["x", "axis"], ["y"], exclusive=exclusive,
                            reverse=reverse)
    model = make_model([node], [("x", elem, [2, 3, 4]), ("axis", onnx.TensorProto.INT64, [])],
                       [("y", elem, None)], opset=26)
    x = RNG.integers(-3, 4, [2, 3, 4]).astype(dtype)
    expected = _cumprod(x, axis, exclusive, reverse)
    for engine in ("openvino", "shim"):
        got = ExtgenBackend.prepare(model, engine=engine).run([x, np.array(axis, np.int64)])[0]
        np.testing.assert_allclose(got, expected, rtol=1e-6, err_msg=engine)
