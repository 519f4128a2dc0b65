"""Activations written out in elementwise ops become one op as ovc's offline transformations
make them (converter/back/activation_fusion.py, hswish_fusion.py, mvn_fusion.py): per form, a
tiny ONNX model converted by extgen and by ovc has the same op types in the IR, and the two IRs (in
OpenVINO at f32, and extgen's in the shim) give the same outputs; the variants ovc leaves
written out stay written out."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import onnx
import openvino as ov
import pytest
from onnx import TensorProto
from onnx import helper as h

from converter.options import ConvertOptions
from converter.pipeline import convert
from converter.runtime.engines import open_engine
from tests.conftest import make_model
from tests.legacy.mo_pass_onnx import write_onnx

SHAPE = [1, 4, 6, 6]
X = (np.random.default_rng(3).standard_normal(SHAPE) * 4).astype(np.float32)


def _f(value: float, shape: tuple[int, ...] = ()) -> np.ndarray:
    return np.full(shape, value, np.float32)


def _n(op: str, ins: list[str], out: str, **attrs) -> onnx.NodeProto:
    return h.make_node(op, ins, [out], **attrs)


_ADD3 = _n("Add", ["x", "three"], "a")
_RELU6 = [_ADD3, _n("Relu", ["a"], "r"), _n("Min", ["r", "six"], "mn")]
_CLIP6 = [_ADD3, _n("Clip", ["a", "zero", "six"], "c")]
_SOFTPLUS_TANH = [_n("Softplus", ["x"], "sp"), _n("Tanh", ["sp"], "t")]
_CENTER = [_n("ReduceMean", ["x"], "mean", axes=[-1], keepdims=1), _n("Sub", ["x", "mean"], "c")]


def _var(square: str, axes: list[int] | None = None) -> list[onnx.NodeProto]:
    """var = ReduceMean(c ** 2) or ReduceMean(c * c) over axes (the last one)."""
    sq = _n("Pow", ["c", "two"], "sq") if square == "pow" else _n("Mul", ["c", "c"], "sq")
    return [*_CENTER, sq, _n("ReduceMean", ["sq"], "var", axes=axes or [-1], keepdims=1)]


_STD = [_n("Add", ["var", "eps"], "ve"), _n("Sqrt", ["ve"], "std")]
_CONSTS = {"three": _f(3), "six": _f(6), "zero": _f(0), "sixth": _f(1 / 6), "one": _f(1)}

# name: (nodes over "x" -> "y", the op ovc fuses them to or None)
CASES: dict[str, tuple[list[onnx.NodeProto], str | None]] = {
    "clamp min(max(x, lo), hi)": ([
        _n("Max", ["x", "minus_one"], "m"), _n("Min", ["m", "one"], "y")], "Clamp"),
    "clamp max(min(x, hi), lo)": ([
        _n("Min", ["one", "x"], "m"), _n("Max", ["m", "minus_one"], "y")], "Clamp"),
    "no clamp, lo above hi": ([
        _n("Max", ["x", "one"], "m"), _n("Min", ["m", "minus_one"], "y")], None),
    "no clamp, the inner op used again": ([
        _n("Max", ["x", "minus_one"], "m"), _n("Min", ["m", "one"], "n"),
        _n("Add", ["m", "n"], "y")], None),
    "prelu relu(x) + (-relu(-x)) * c": ([
        _n("Relu", ["x"], "r"), _n("Neg", ["x"], "n"), _n("Relu", ["n"], "rn"),
        _n("Neg", ["rn"], "nrn"), _n("Mul", ["alpha4", "nrn"], "m"), _n("Add", ["m", "r"], "y")],
        "PRelu"),
    "prelu relu(x) - relu(-x) * c": ([
        _n("Relu", ["x"], "r"), _n("Neg", ["x"], "n"), _n("Relu", ["n"], "rn"),
        _n("Mul", ["rn", "alpha"], "m"), _n("Sub", ["r", "m"], "y")], "PRelu"),
    "prelu relu(x) + relu(-x) * c": ([
        _n("Relu", ["x"], "r"), _n("Neg", ["x"], "n"), _n("Relu", ["n"], "rn"),
        _n("Mul", ["rn", "minus"], "m"), _n("Add", ["r", "m"], "y")], "PRelu"),
    "prelu relu(x) + relu(x * -1) * c": ([
        _n("Relu", ["x"], "r"), _n("Mul", ["x", "minus_one"], "n"), _n("Relu", ["n"], "rn"),
        _n("Mul", ["rn", "minus"], "m"), _n("Add", ["r", "m"], "y")], "PRelu"),
    "prelu relu(x) - relu(x * -1) * c": ([
        _n("Relu", ["x"], "r"), _n("Mul", ["minus_one", "x"], "n"), _n("Relu", ["n"], "rn"),
        _n("Mul", ["rn", "alpha4"], "m"), _n("Sub", ["r", "m"], "y")], "PRelu"),
    "prelu relu(x) + (x - abs(x)) * c * 0.5": ([
        _n("Relu", ["x"], "r"), _n("Abs", ["x"], "a"), _n("Sub", ["x", "a"], "d"),
        _n("Mul", ["d", "alpha"], "m"), _n("Mul", ["m", "half"], "h"), _n("Add", ["r", "h"], "y")],
        "PRelu"),
    "no prelu, relu(x) - relu(x * -0.5) * c": ([
        _n("Relu", ["x"], "r"), _n("Mul", ["x", "minus"], "n"), _n("Relu", ["n"], "rn"),
        _n("Mul", ["rn", "alpha"], "m"), _n("Sub", ["r", "m"], "y")], None),
    "no prelu, relu(x * -1) * c - relu(x)": ([
        _n("Relu", ["x"], "r"), _n("Mul", ["x", "minus_one"], "n"), _n("Relu", ["n"], "rn"),
        _n("Mul", ["rn", "alpha"], "m"), _n("Sub", ["m", "r"], "y")], None),
    "swish x * sigmoid(x)": ([_n("Sigmoid", ["x"], "s"), _n("Mul", ["s", "x"], "y")], "Swish"),
    "swish, the sigmoid used again": ([
        _n("Sigmoid", ["x"], "s"), _n("Mul", ["x", "s"], "m"), _n("Add", ["m", "s"], "y")],
        "Swish"),
    "swish x * sigmoid(x * 1.5)": ([
        _n("Mul", ["x", "b"], "xb"), _n("Sigmoid", ["xb"], "s"), _n("Mul", ["x", "s"], "y")],
        "Swish"),
    "swish beta per channel, one value": ([
        _n("Mul", ["x", "b4"], "xb"), _n("Sigmoid", ["xb"], "s"), _n("Mul", ["x", "s"], "y")],
        "Swish"),
    "not swish: beta per channel, four values": ([
        _n("Mul", ["x", "ramp"], "xb"), _n("Sigmoid", ["xb"], "s"), _n("Mul", ["x", "s"], "y")],
        None),
    "swish x / (1 + exp(-x))": ([
        _n("Neg", ["x"], "ng"), _n("Exp", ["ng"], "e"), _n("Add", ["e", "one"], "a"),
        _n("Div", ["x", "a"], "y")], "Swish"),
    "swish x / (1 + exp(-x * 1.5))": ([
        _n("Mul", ["x", "b"], "xb"), _n("Neg", ["xb"], "ng"), _n("Exp", ["ng"], "e"),
        _n("Add", ["e", "one"], "a"), _n("Div", ["x", "a"], "y")], "Swish"),
    "hswish x * clip(x + 3, 0, 6) * 1/6": ([
        *_CLIP6, _n("Mul", ["x", "c"], "m"), _n("Mul", ["m", "sixth"], "y")], "HSwish"),
    "hswish x * clip(x + 3, 0, 6) / 6": ([
        *_CLIP6, _n("Mul", ["x", "c"], "m"), _n("Div", ["m", "six"], "y")], "HSwish"),
    "hswish x * clip(x + 3, 0, 6) (HSwish * 6)": ([*_CLIP6, _n("Mul", ["c", "x"], "y")],
                                                  "HSwish"),
    "hswish x * clip(x + 3, 0, 6) * 0.2": ([
        *_CLIP6, _n("Mul", ["x", "c"], "m"), _n("Mul", ["m", "fifth"], "y")], "HSwish"),
    "hswish, x * clip used twice": ([
        *_CLIP6, _n("Mul", ["c", "x"], "m"), _n("Mul", ["m", "sixth"], "y0"),
        _n("Add", ["y0", "m"], "y")], "HSwish"),
    "not hswish: clip(x + 3, 0, 5)": ([
        _ADD3, _n("Clip", ["a", "zero", "five"], "c"), _n("Mul", ["x", "c"], "m"),
        _n("Mul", ["m", "sixth"], "y")], None),
    "hswish x * min(relu(x + 3), 6) / 6": ([
        *_RELU6, _n("Mul", ["x", "mn"], "m"), _n("Div", ["m", "six"], "y")], "HSwish"),
    "hswish x * min(relu(x + 3), 6) * 1/6": ([
        *_RELU6, _n("Mul", ["mn", "x"], "m"), _n("Mul", ["sixth", "m"], "y")], "HSwish"),
    "hswish x * hsigmoid(x)": ([
        *_RELU6, _n("Div", ["mn", "six"], "hs"), _n("Mul", ["x", "hs"], "y")], "HSwish"),
    "not hswish: the hsigmoid used again": ([
        *_RELU6, _n("Div", ["mn", "six"], "hs"), _n("Mul", ["x", "hs"], "m"),
        _n("Add", ["m", "hs"], "y")], "HSigmoid"),
    "hsigmoid min(relu(x + 3), 6) / 6": ([*_RELU6, _n("Div", ["mn", "six"], "y")], "HSigmoid"),
    "hsigmoid min(relu(x + 3), 6) * 1/6": ([*_RELU6, _n("Mul", ["mn", "sixth"], "y")],
                                           "HSigmoid"),
    "hsigmoid min(max(x + 3, 0), 6) / 6": ([
        _ADD3, _n("Max", ["a", "zero"], "r"), _n("Min", ["r", "six"], "mn"),
        _n("Div", ["mn", "six"], "y")], "HSigmoid"),
    "hsigmoid clip(x + 3, 0, 6) * 1/6": ([*_CLIP6, _n("Mul", ["c", "sixth"], "y")], "HSigmoid"),
    "hsigmoid clip(x + 3, 0, 6) / 6": ([*_CLIP6, _n("Div", ["c", "six"], "y")], "HSigmoid"),
    "hsigmoid, the relu used again": ([
        *_RELU6, _n("Div", ["mn", "six"], "d"), _n("Add", ["d", "r"], "y")], "HSigmoid"),
    "mish x * tanh(softplus(x))": ([*_SOFTPLUS_TANH, _n("Mul", ["t", "x"], "y")], "Mish"),
    "mish x * tanh(ln(exp(x) + 1))": ([
        _n("Exp", ["x"], "e"), _n("Add", ["e", "one"], "a"), _n("Log", ["a"], "sp"),
        _n("Tanh", ["sp"], "t"), _n("Mul", ["x", "t"], "y")], "Mish"),
    "not mish: the softplus used again": ([
        *_SOFTPLUS_TANH, _n("Mul", ["x", "t"], "m"), _n("Add", ["m", "sp"], "y")], None),
    "not mish: the tanh used again": ([
        *_SOFTPLUS_TANH, _n("Mul", ["x", "t"], "m"), _n("Add", ["m", "t"], "y")], None),
    "prelu max(x, 0.1 x)": ([_n("Mul", ["alpha", "x"], "ax"), _n("Max", ["ax", "x"], "y")],
                            "PRelu"),
    "prelu max(x, -0.5 x)": ([_n("Mul", ["x", "minus"], "ax"), _n("Max", ["x", "ax"], "y")],
                             "PRelu"),
    "not prelu: alpha 1.5": ([_n("Mul", ["x", "b"], "ax"), _n("Max", ["x", "ax"], "y")], None),
    "not prelu: alpha per channel": ([
        _n("Mul", ["x", "alpha4"], "ax"), _n("Max", ["x", "ax"], "y")], None),
    "not prelu: the multiply used again": ([
        _n("Mul", ["x", "alpha"], "ax"), _n("Max", ["x", "ax"], "m"),
        _n("Add", ["m", "ax"], "y")], None),
    "softmax exp(x) / sum(exp(x), -1)": ([
        _n("Exp", ["x"], "e"), _n("ReduceSum", ["e", "last"], "s", keepdims=1),
        _n("Div", ["e", "s"], "y")], "Softmax"),
    "softmax over axis 1, exp used again": ([
        _n("Exp", ["x"], "e"), _n("ReduceSum", ["e", "ax1"], "s", keepdims=1),
        _n("Div", ["e", "s"], "d"), _n("Add", ["d", "e"], "y")], "Softmax"),
    "softmax of x - max(x)": ([
        _n("ReduceMax", ["x"], "mx", axes=[-1], keepdims=1), _n("Sub", ["x", "mx"], "d"),
        _n("Exp", ["d"], "e"), _n("ReduceSum", ["e", "last"], "s", keepdims=1),
        _n("Div", ["e", "s"], "y")], "Softmax"),
    "not softmax: max and sum over other axes": ([
        _n("ReduceMax", ["x"], "mx", axes=[2], keepdims=1), _n("Sub", ["x", "mx"], "d"),
        _n("Exp", ["d"], "e"), _n("ReduceSum", ["e", "last"], "s", keepdims=1),
        _n("Div", ["e", "s"], "y")], None),
    "not softmax: a sum over two axes": ([
        _n("Exp", ["x"], "e"), _n("ReduceSum", ["e", "ax23"], "s", keepdims=1),
        _n("Div", ["e", "s"], "y")], None),
    "mvn (x - mean) / sqrt(var + eps)": ([
        *_var("pow"), *_STD, _n("Div", ["c", "std"], "y")], "MVN"),
    "mvn (x - mean) / (sqrt(var) + eps), c * c": ([
        *_var("mul"), _n("Sqrt", ["var"], "sv"), _n("Add", ["sv", "eps"], "std"),
        _n("Div", ["c", "std"], "y")], "MVN"),
    "mvn (x - mean) * (var + eps) ** -0.5 as ** 0.5 ** -1": ([
        *_var("pow"), _n("Add", ["var", "eps"], "ve"), _n("Pow", ["ve", "half"], "std"),
        _n("Pow", ["std", "minus_one"], "r"), _n("Mul", ["c", "r"], "y")], "MVN"),
    "mvn, x - mean used again": ([
        *_var("pow"), *_STD, _n("Div", ["c", "std"], "d"), _n("Add", ["d", "c"], "y")], "MVN"),
    "not mvn: (x - mean) * reciprocal(std)": ([
        *_var("pow"), *_STD, _n("Reciprocal", ["std"], "r"), _n("Mul", ["c", "r"], "y")], None),
    "not mvn: the variance over other axes": ([
        *_var("pow", [2, 3]), *_STD, _n("Div", ["c", "std"], "y")], None),
}
INITS = {**_CONSTS, "b": _f(1.5), "b4": _f(1.5, (1, 4, 1, 1)), "five": _f(5), "fifth": _f(0.2),
         "ramp": np.arange(4, dtype=np.float32).reshape(1, 4, 1, 1), "alpha": _f(0.1),
         "minus": _f(-0.5), "alpha4": _f(0.1, (1, 4, 1, 1)), "last": np.array([-1], np.int64),
         "ax1": np.array([1], np.int64), "ax23": np.array([2, 3], np.int64),
         "two": _f(2), "eps": _f(1e-5), "half": _f(0.5), "minus_one": _f(-1)}


def _op_types(xml: Path) -> Counter:
    return Counter(op.get_type_name() for op in ov.Core().read_model(str(xml)).get_ordered_ops())


def _run(xml: Path, x: np.ndarray) -> np.ndarray:
    model = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    return model({"x": x})[0]


def _both(path: Path, tmp_path: Path) -> tuple[Path, Path]:
    """extgen's IR and ovc's IR of the ONNX model at path."""
    ours = convert(ConvertOptions(path, output_dir=tmp_path / "extgen")).xml
    theirs = tmp_path / "ovc" / "model.xml"
    ov.save_model(ov.convert_model(str(path)), str(theirs), compress_to_fp16=False)
    return ours, theirs


def _check_as_ovc(path: Path, tmp_path: Path, x: np.ndarray) -> Counter:
    ours, theirs = _both(path, tmp_path)
    assert _op_types(ours) == _op_types(theirs)
    want = _run(theirs, x)
    shim = next(iter(open_engine("shim", ours, "CPU").run({"x": x}).values()))
    for got in (_run(ours, x), shim):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    return _op_types(ours)


def _model(tmp_path: Path, nodes: list[onnx.NodeProto], shape: list[int] = SHAPE) -> Path:
    used = {name for node in nodes for name in node.input}
    model = make_model(nodes, [("x", TensorProto.FLOAT, shape)], [("y", TensorProto.FLOAT, None)],
                       {k: v for k, v in INITS.items() if k in used}, opset=13)
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    return path


@pytest.mark.parametrize("name", CASES)
def test_a_written_out_activation_has_ovcs_ops(tmp_path, name) -> None:
    nodes, fused = CASES[name]
    ops = _check_as_ovc(_model(tmp_path, nodes), tmp_path, X)
    written = {"Sigmoid", "Clamp", "Minimum", "Tanh", "Maximum", "Exp", "ReduceSum", "Sqrt",
               "Relu"}
    if fused is None:
        assert written & set(ops), ops
    else:
        assert ops[fused] >= 1, ops


@pytest.mark.parametrize("name", ["activations", "hswish", "softmax"])
def test_the_mo_pass_models_have_ovcs_ops(tmp_path, name) -> None:
    path = write_onnx(tmp_path, name, np.random.default_rng(0))
    x = (np.random.default_rng(1).standard_normal(SHAPE) * 2).astype(np.float32)
    ops = _check_as_ovc(path, tmp_path, x)
    want = {"activations": {"Swish", "Mish", "HSigmoid", "PRelu"}, "hswish": {"HSwish"},
            "softmax": {"Softmax"}}
    assert want[name] <= set(ops)


def test_the_layer_norm_of_the_norms_model_is_an_mvn_as_in_ovc(tmp_path) -> None:
    """The norms model's written-out layer norm is one more MVN, beside its
    MeanVarianceNormalization's, and the IR is ovc's op for op."""
    ours, theirs = _both(write_onnx(tmp_path, "norms", np.random.default_rng(0)), tmp_path)
    assert _op_types(ours)["MVN"] == 2
    assert _op_types(ours) == _op_types(theirs)
    x = (np.random.default_rng(1).standard_normal(SHAPE)).astype(np.float32)
    np.testing.assert_allclose(_run(ours, x), _run(theirs, x), rtol=1e-5, atol=1e-5)


def test_a_sum_not_keeping_its_axis_is_no_softmax(tmp_path) -> None:
    """ovc fuses exp(x) / ReduceSum(exp(x), -1, keepdims=0), whose sums broadcast along the
    last axis and not the reduced one: that Divide is no softmax, and it stays (OpenVINO's CPU
    plugin fuses it again when it compiles the IR, so only the shim gives the model's values)."""
    nodes = [_n("Exp", ["x"], "e"), _n("ReduceSum", ["e", "last"], "s", keepdims=0),
             _n("Div", ["e", "s"], "y")]
    x = np.random.default_rng(5).standard_normal((6, 6)).astype(np.float32)
    ours = convert(ConvertOptions(_model(tmp_path, nodes, [6, 6]),
                                  output_dir=tmp_path / "extgen")).xml
    assert "Softmax" not in _op_types(ours)
    e = np.exp(x.astype(np.float64))
    shim = next(iter(open_engine("shim", ours, "CPU").run({"x": x}).values()))
    np.testing.assert_allclose(shim, e / e.sum(-1), rtol=1e-5)
