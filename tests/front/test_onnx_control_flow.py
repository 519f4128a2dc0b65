"""ONNX If, Loop and Scan (sub-graphs reading outer values by name) converted to If-8, Loop-5 and
TensorIterator-1: each model runs in OpenVINO (our IR) and in the shim, and matches onnxruntime;
the IR round-trips through our reader, and through OpenVINO's own writer back into the shim."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import openvino as ov
import pytest
from onnx import TensorProto as T
from onnx import helper as h

from converter.ir.reader import read_ir
from converter.options import ConvertOptions
from converter.pipeline import convert
from converter.runtime.executor import Executor
from tests.conftest import make_model

RNG = np.random.default_rng(16)
F = T.FLOAT


def _graph(nodes, name, inputs, outputs):
    info = h.make_tensor_value_info
    return h.make_graph(nodes, name, [info(*i) for i in inputs], [info(*o) for o in outputs])


def _if_model() -> onnx.ModelProto:
    """out = x + w if sum(x) > 0 else x * y: both branches read outer values (w a weight)."""
    then = _graph([h.make_node("Add", ["x", "w"], ["t"])], "then", [], [("t", F, [2, 3])])
    other = _graph([h.make_node("Mul", ["x", "y"], ["e"]), h.make_node("Neg", ["e"], ["n"])],
                   "else", [], [("n", F, [2, 3])])
    return make_model(
        [h.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
         h.make_node("Greater", ["s", "zero"], ["c"]),
         h.make_node("If", ["c"], ["out"], then_branch=then, else_branch=other)],
        [("x", F, [2, 3]), ("y", F, [2, 3])], [("out", F, [2, 3])],
        {"w": RNG.standard_normal(3).astype(np.float32), "zero": np.array(0, np.float32)},
    )


def _static_if_model() -> onnx.ModelProto:
    """As exporters write a shape test: the condition (x has 6 elements) is known at conversion."""
    then = _graph([h.make_node("Relu", ["x"], ["t"])], "then", [], [("t", F, [2, 3])])
    other = _graph([h.make_node("Neg", ["x"], ["e"])], "else", [], [("e", F, [2, 3])])
    return make_model(
        [h.make_node("Size", ["x"], ["size"]),
         h.make_node("Equal", ["size", "six"], ["c"]),
         h.make_node("If", ["c"], ["out"], then_branch=then, else_branch=other)],
        [("x", F, [2, 3])], [("out", F, [2, 3])], {"six": np.array(6, np.int64)},
    )


def _empty_guard_model() -> onnx.ModelProto:
    """As detection heads guard empty boxes: a 1-node then-branch (no boxes: an empty
    constant) and a longer else-branch of another shape, on a dynamic input."""
    empty = onnx.numpy_helper.from_array(np.zeros((0, 4), np.float32))
    then = _graph([h.make_node("Constant", [], ["none"], value=empty)], "then", [],
                  [("none", F, [0, 4])])
    other = _graph(
        [h.make_node("Sigmoid", ["boxes"], ["s"]),
         h.make_node("Mul", ["s", "scale"], ["scaled"]),
         h.make_node("Slice", ["scaled", "zero1", "two1"], ["top"]),
         h.make_node("Relu", ["top"], ["kept"])],
        "else", [], [("kept", F, ["k", 4])])
    return make_model(
        [h.make_node("Size", ["boxes"], ["size"]),
         h.make_node("Equal", ["size", "zero"], ["c"]),
         h.make_node("If", ["c"], ["out"], then_branch=then, else_branch=other)],
        [("boxes", F, ["n", 4])], [("out", F, ["k", 4])],
        {"zero": np.array(0, np.int64), "zero1": np.array([0], np.int64),
         "two1": np.array([2], np.int64), "scale": np.array([1, 2, 3, 4], np.float32)},
    )


def _loop_model() -> onnx.ModelProto:
    """A for loop of n steps carrying h = tanh(h @ w + x * i), scanning each h out."""
    body = _graph(
        [h.make_node("Cast", ["i"], ["fi"], to=F),
         h.make_node("Mul", ["x", "fi"], ["xi"]),
         h.make_node("MatMul", ["h_in", "w"], ["hw"]),
         h.make_node("Add", ["hw", "xi"], ["pre"]),
         h.make_node("Tanh", ["pre"], ["h_out"]),
         h.make_node("Identity", ["cond_in"], ["cond_out"]),
         h.make_node("Identity", ["h_out"], ["scan"])],
        "body", [("i", T.INT64, []), ("cond_in", T.BOOL, []), ("h_in", F, [1, 4])],
        [("cond_out", T.BOOL, []), ("h_out", F, [1, 4]), ("scan", F, [1, 4])],
    )
    return make_model(
        [h.make_node("Loop", ["n", "", "h0"], ["h", "hs"], body=body)],
        [("x", F, [1, 4]), ("h0", F, [1, 4]), ("n", T.INT64, [])],
        [("h", F, [1, 4]), ("hs", F, ["n", 1, 4])],
        {"w": RNG.standard_normal((4, 4)).astype(np.float32)},
    )


def _while_model() -> onnx.ModelProto:
    """A while loop: double s until its sum passes a limit, at most 20 times."""
    body = _graph(
        [h.make_node("Add", ["s_in", "s_in"], ["s_out"]),
         h.make_node("ReduceSum", ["s_out"], ["total"], keepdims=0),
         h.make_node("Less", ["total", "limit"], ["cond_out"])],
        "body", [("i", T.INT64, []), ("cond_in", T.BOOL, []), ("s_in", F, [3])],
        [("cond_out", T.BOOL, []), ("s_out", F, [3])],
    )
    return make_model(
        [h.make_node("Loop", ["m", "go", "s0"], ["s"], body=body)],
        [("s0", F, [3]), ("go", T.BOOL, []), ("limit", F, [])], [("s", F, [3])],
        {"m": np.array(20, np.int64)},
    )


def _nested_model() -> onnx.ModelProto:
    """A Loop whose body holds an If: odd steps add the model input x (read two scopes up),
    even steps scale by a weight; the Scan beside it reads x from its body too."""
    then = _graph([h.make_node("Add", ["s_in", "x"], ["t"])], "then", [], [("t", F, [3])])
    other = _graph([h.make_node("Mul", ["s_in", "w"], ["e"])], "else", [], [("e", F, [3])])
    body = _graph(
        [h.make_node("Mod", ["i", "two"], ["odd"]),
         h.make_node("Cast", ["odd"], ["c"], to=T.BOOL),
         h.make_node("If", ["c"], ["s_out"], then_branch=then, else_branch=other),
         h.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body", [("i", T.INT64, []), ("cond_in", T.BOOL, []), ("s_in", F, [3])],
        [("cond_out", T.BOOL, []), ("s_out", F, [3])],
    )
    scan_body = _graph([h.make_node("Sub", ["a", "x"], ["y"])], "scan",
                       [("a", F, [3])], [("y", F, [3])])
    return make_model(
        [h.make_node("Loop", ["n", "", "x"], ["s"], body=body),
         h.make_node("Scan", ["xs"], ["ys"], body=scan_body, num_scan_inputs=1)],
        [("x", F, [3]), ("xs", F, [4, 3])], [("s", F, [3]), ("ys", F, [4, 3])],
        {"n": np.array([6], np.int64), "two": np.array(2, np.int64),
         "w": RNG.standard_normal(3).astype(np.float32)},
    )


def _scan_model() -> onnx.ModelProto:
    """A cumulative sum over axis 0 forwards and a product with a weight over axis 1 backwards."""
    body = _graph(
        [h.make_node("Add", ["acc_in", "a"], ["acc_out"]),
         h.make_node("Mul", ["b", "v"], ["bv"]),
         h.make_node("Add", ["bv", "acc_out"], ["y"])],
        "body", [("acc_in", F, [3]), ("a", F, [3]), ("b", F, [3])],
        [("acc_out", F, [3]), ("y", F, [3])],
    )
    return make_model(
        [h.make_node("Scan", ["acc0", "xa", "xb"], ["acc", "ys"], body=body, num_scan_inputs=2,
                     scan_input_axes=[0, 1], scan_input_directions=[0, 1],
                     scan_output_directions=[1])],
        [("acc0", F, [3]), ("xa", F, [5, 3]), ("xb", F, [3, 5])],
        [("acc", F, [3]), ("ys", F, [5, 3])],
        {"v": RNG.standard_normal(3).astype(np.float32)},
    )


def _batched_scan_model() -> onnx.ModelProto:
    """Opset 8's Scan: a batch axis first, the sequence second, scanned backwards."""
    body = _graph(
        [h.make_node("Add", ["acc_in", "a"], ["acc_out"]),
         h.make_node("Mul", ["acc_out", "v"], ["y"])],
        "body", [("acc_in", F, [3]), ("a", F, [3])], [("acc_out", F, [3]), ("y", F, [3])],
    )
    return make_model(
        [h.make_node("Scan", ["", "acc0", "xs"], ["acc", "ys"], body=body, num_scan_inputs=1,
                     directions=[1])],
        [("acc0", F, [2, 3]), ("xs", F, [2, 5, 3])], [("acc", F, [2, 3]), ("ys", F, [2, 5, 3])],
        {"v": RNG.standard_normal(3).astype(np.float32)}, opset=8,
    )


CASES = {
    "if_then": (_if_model, {"x": np.abs(RNG.standard_normal((2, 3))) + 0.1,
                            "y": RNG.standard_normal((2, 3))}),
    "if_else": (_if_model, {"x": -np.abs(RNG.standard_normal((2, 3))) - 0.1,
                            "y": RNG.standard_normal((2, 3))}),
    "if_static": (_static_if_model, {"x": RNG.standard_normal((2, 3))}),
    "if_dynamic_boxes": (_empty_guard_model, {"boxes": RNG.standard_normal((5, 4))}),
    "if_dynamic_empty": (_empty_guard_model, {"boxes": np.zeros((0, 4))}),
    "loop_for": (_loop_model, {"x": RNG.standard_normal((1, 4)), "h0": RNG.standard_normal((1, 4)),
                               "n": np.array(5, np.int64)}),
    "loop_none": (_loop_model, {"x": RNG.standard_normal((1, 4)),
                                "h0": RNG.standard_normal((1, 4)), "n": np.array(0, np.int64)}),
    "loop_while": (_while_model, {"s0": np.array([0.5, 1, 1.5]), "go": np.array(True),
                                  "limit": np.array(100.0)}),
    "loop_not_run": (_while_model, {"s0": np.array([0.5, 1, 1.5]), "go": np.array(False),
                                    "limit": np.array(100.0)}),
    "nested": (_nested_model, {"x": RNG.standard_normal(3), "xs": RNG.standard_normal((4, 3))}),
    "scan_batched": (_batched_scan_model, {"acc0": RNG.standard_normal((2, 3)),
                                           "xs": RNG.standard_normal((2, 5, 3))}),
    "scan": (_scan_model, {"acc0": RNG.standard_normal(3), "xa": RNG.standard_normal((5, 3)),
                           "xb": RNG.standard_normal((3, 5))}),
}


def _feed(model: onnx.ModelProto, values: dict) -> dict[str, np.ndarray]:
    types = {i.name: i.type.tensor_type.elem_type for i in model.graph.input}
    return {k: np.asarray(v).astype(onnx.helper.tensor_dtype_to_np_dtype(types[k]))
            for k, v in values.items()}


def _openvino(xml: Path, feed: dict, names: list[str]) -> list[np.ndarray]:
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    result = compiled.create_infer_request().infer(feed)
    return [np.asarray(result[compiled.output(n)]) for n in names]


def _shim(xml: Path, feed: dict, names: list[str]) -> list[np.ndarray]:
    result = Executor(read_ir(xml), []).run(feed)
    return [result[n] for n in names]


def check_against_onnxruntime(tmp_path: Path, model: onnx.ModelProto, feed: dict) -> None:
    """Convert model; our IR in OpenVINO, in the shim, and resaved by OpenVINO in the shim,
    each match onnxruntime within 1e-5."""
    onnx.save(model, tmp_path / "m.onnx")
    names = [o.name for o in model.graph.output]
    want = ort.InferenceSession(str(tmp_path / "m.onnx")).run(names, feed)
    xml = convert(ConvertOptions(tmp_path / "m.onnx", output_dir=tmp_path)).xml
    resaved = tmp_path / "ov" / "m.xml"
    ov.save_model(ov.Core().read_model(str(xml)), str(resaved), compress_to_fp16=False)
    for run, path in ((_openvino, xml), (_shim, xml), (_shim, resaved)):
        got = run(path, feed, names)
        for w, g in zip(want, got):
            assert g.shape == w.shape, (run.__name__, path)
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=f"{run.__name__} {path}")


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_onnxruntime(tmp_path: Path, case: str) -> None:
    make, values = CASES[case]
    model = make()
    onnx.checker.check_model(model, full_check=True)
    check_against_onnxruntime(tmp_path, model, _feed(model, values))


def test_an_if_on_a_constant_condition_becomes_its_branch(tmp_path: Path) -> None:
    onnx.save(_static_if_model(), tmp_path / "m.onnx")
    xml = convert(ConvertOptions(tmp_path / "m.onnx", output_dir=tmp_path)).xml
    layers = {layer.type for layer in read_ir(xml).layers.values()}
    assert "If" not in layers and "ReLU" in layers and "Negative" not in layers


def test_a_custom_op_inside_a_body_is_reported_as_custom(tmp_path: Path, capsys) -> None:
    from extgen.cli import main

    body = _graph([h.make_node("Cosh", ["s_in"], ["s_out"], domain="org.example"),
                   h.make_node("Identity", ["cond_in"], ["cond_out"])],
                  "body", [("i", T.INT64, []), ("cond_in", T.BOOL, []), ("s_in", F, [3])],
                  [("cond_out", T.BOOL, []), ("s_out", F, [3])])
    model = make_model([h.make_node("Loop", ["n", "", "x"], ["y"], body=body)],
                       [("x", F, [3])], [("y", F, [3])], {"n": np.array(3, np.int64)},
                       domains=["org.example"])
    onnx.save(model, tmp_path / "m.onnx")
    assert main(["check", str(tmp_path / "m.onnx"), "--output_dir", str(tmp_path)]) == 1
    assert "org.example::Cosh: 1 node(s) (s_out)" in capsys.readouterr().out
    assert main(["convert", "--input_model", str(tmp_path / "m.onnx"), "-o", str(tmp_path)]) == 2
    assert "not supported: org.example::Cosh (node s_out)" in capsys.readouterr().err


def test_compress_to_fp16_reaches_into_bodies(tmp_path: Path) -> None:
    model = _loop_model()
    onnx.save(model, tmp_path / "m.onnx")
    xml = convert(ConvertOptions(tmp_path / "m.onnx", output_dir=tmp_path,
                                 compress_to_fp16=True)).xml
    (loop,) = [layer for layer in read_ir(xml).layers.values() if layer.type == "Loop"]
    weights = [layer for layer in loop.bodies["body"].layers.values() if layer.type == "Const"
               and layer.value.size > 1]
    assert weights and all(layer.value.dtype == np.float16 for layer in weights)
    _, values = CASES["loop_for"]
    feed = _feed(model, values)
    want = ort.InferenceSession(str(tmp_path / "m.onnx")).run(["hs"], feed)[0]
    for run in (_openvino, _shim):
        np.testing.assert_allclose(run(xml, feed, ["hs"])[0], want, rtol=1e-2, atol=1e-2)
