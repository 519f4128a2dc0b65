"""Activations written as expressions alone (issue 19): each generated op agrees with the
converter's built-in op of the same name (numpy), and one op set covering every construct of
the language runs the same in the generated numpy, C++ (built with CMake) and OpenCL kernels."""

from __future__ import annotations

import math
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from converter.errors import KernelConfigError
from converter.ops import Op
from converter.ops.loader import python_op_classes
from converter.runtime.cpu import CpuLibrary
from converter.runtime.ir_reader import IRLayer, OutPort
from converter.runtime.opencl import GpuDevice, VpuDevice
from converter.runtime.opencl.padding import NO_PADDING
from extgen.cli import main
from extgen.target_check import GPU_PADDING
from tests.generator._cpu_build import build, generate_ops, tools_missing

SHAPE = (2, 3, 4, 5)
_GELU = "0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))"
# generated op -> (config extras, built-in op and how to call it)
ACTIVATIONS = {
    "Swish": ("x * sigmoid(x)", "Swish", lambda x: [x]),
    "Mish": ("x * tanh(softplus(x))", "Mish", lambda x: [x]),
    "HSwish": ("x * clamp(x + 3, 0, 6) / 6", "HSwish", lambda x: [x]),
    "GeluTanh": (_GELU, "Gelu", lambda x: [x]),
    "SoftPlus": ("softplus(x)", "SoftPlus", lambda x: [x]),
    "Elu": ("x if x > 0 else alpha * expm1(x)", "Elu", lambda x: [x]),
    "Selu": ("lambda_ * (x if x > 0 else alpha * expm1(x))", "Selu",
             lambda x: [x, np.float32(1.67326), np.float32(1.0507)]),
    "Clamp": ("clamp(x, lo, hi)", "Clamp", lambda x: [x]),
    "HardSigmoid": ("hardsigmoid(x, alpha, 0.5)", "HardSigmoid",
                    lambda x: [x, np.float32(0.2), np.float32(0.5)]),
    "LeakyRelu": ("x if x >= 0 else 0.01 * x", "PReLU", lambda x: [x, np.float32(0.01)]),
}
_ATTRS = {
    "Elu": [("alpha", 1.0)], "Selu": [("alpha", 1.67326), ("lambda_", 1.0507)],
    "Clamp": [("lo", -0.5), ("hi", 2.0)], "HardSigmoid": [("alpha", 0.2)],
}
_BUILTIN_ATTRS = {"Gelu": {"approximation_mode": "tanh"}, "Elu": {"alpha": 1.0},
                  "Clamp": {"min": -0.5, "max": 2.0}}


def _op(name: str, expression, **extra) -> dict:
    attrs = [{"name": n, "type": "float", "default": v} for n, v in _ATTRS.get(name, [])]
    return {"name": f"My{name}", "attributes": attrs, "expression": expression, **extra}


# one op set covering every construct: broadcasting, two outputs, logic, integers and booleans
MIXED = [
    {"name": "PRelu", "inputs": [{"name": "x"}, {"name": "slope"}],
     "expression": "x if x >= 0 else slope * x"},
    {"name": "Split", "outputs": [{"name": "neg"}, {"name": "pos"}],
     "attributes": [{"name": "beta", "type": "float", "default": 1.5}],
     "expression": ["min(x, 0) * rsqrt(abs(x) + 1)", "max(x, 0) * sigmoid(beta * x)"]},
    {"name": "Logic", "attributes": [{"name": "flag", "type": "bool", "default": True}],
     "expression": "where(isnan(x), -7, round(x * 2) + sign(x)) if flag and not 0 < x <= 0.25 "
                   "or x != x else hardsigmoid(x, 0.2, 0.5) + log1p(abs(x)) - expm1(-abs(x))"},
    {"name": "IsBig", "dtype": {"kind": "fixed", "type": "boolean"},
     "expression": "abs(x) > 1 or isinf(x)"},
    {"name": "ToInt", "dtype": {"kind": "fixed", "type": "i32"}, "expression": "x * 10"},
    {"name": "Gate", "inputs": [{"name": "x"}, {"name": "k", "type": "i32"},
                                {"name": "on", "type": "boolean"}],
     "expression": "x * k if on else -x"},  # a number as the condition, integer and bool inputs
    {"name": "GeluTanh", "expression": _GELU},  # -inf gives NaN everywhere (tanh is -1 exactly)
]


UPSAMPLE = {"name": "Upsample", "attributes": [{"name": "scale", "type": "float", "default": 2.0}],
            "shape": {"kind": "formula", "names": ["N", "C", "H", "W"],
                      "dims": ["N", "C", "H * scale", "W * scale + 0.5"]}}


def _load(out: Path) -> dict:
    """The generated op classes by type, loaded without touching the built-in op registry."""
    return python_op_classes(out / "user_mo_extensions")


def _edge_values(shape=SHAPE, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    flat = x.reshape(-1)
    flat[:8] = [0.0, -0.0, 0.25, -2.5, 2.5, 60.0, -60.0, 1.0]
    return x


# PReLU with its slope as a second input, per channel ([1, C, 1, 1]: numpy broadcasting)
PRELU = {"name": "MyPRelu", "inputs": [{"name": "x"}, {"name": "slope"}],
         "expression": "x if x >= 0 else slope * x"}


@pytest.fixture(scope="module")
def activations(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("activations")
    ops = [_op(name, expr) for name, (expr, _, _) in ACTIVATIONS.items()]
    generate_ops([*ops, PRELU], out, ["mo-op"])
    ops = _load(out)
    return {name: ops[f"My{name}"] for name in [*ACTIVATIONS, "PRelu"]}


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activation_as_an_expression_matches_the_built_in_op(activations, name) -> None:
    _, builtin, args = ACTIVATIONS[name]
    cls = Op.registered_ops[builtin]
    x = _edge_values()
    want = cls.evaluate({**cls.defaults, **_BUILTIN_ATTRS.get(builtin, {})}, args(x))[0]
    op = activations[name]
    (got,) = op.evaluate(dict(op.defaults), [x])
    assert got.dtype == np.float32 and got.shape == SHAPE
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6)
    nan = np.array([np.nan], np.float32)
    assert np.isnan(op.evaluate(dict(op.defaults), [nan])[0]).all()  # NaN in, NaN out


@pytest.fixture(scope="module")
def mixed(tmp_path_factory) -> SimpleNamespace:
    out = tmp_path_factory.mktemp("mixed")
    generate_ops([*MIXED, UPSAMPLE], out, ["mo-op", "ie-cpu-ext", "ie-gpu-ext", "ie-vpu-ext"])
    ops = _load(out)
    return SimpleNamespace(out=out, ops=ops)


def _inputs(name: str) -> list[np.ndarray]:
    x = _edge_values()
    x.reshape(-1)[8:11] = [np.nan, np.inf, -np.inf]
    if name == "PRelu":  # a per-channel slope, broadcast
        return [x, np.linspace(0.1, 0.3, SHAPE[1], dtype=np.float32).reshape(1, -1, 1, 1)]
    if name == "Gate":
        k = np.arange(-2, 3, dtype=np.int32).reshape(1, 1, 1, -1)
        return [x, k, np.arange(np.prod(SHAPE)).reshape(SHAPE) % 3 == 0]
    return [x]


def _reference(mixed, name: str, ins: list[np.ndarray]) -> list[np.ndarray]:
    op = mixed.ops[name]
    return op.evaluate(dict(op.defaults), ins)


def test_mixed_op_set_numpy_semantics(mixed) -> None:
    ins = _inputs("PRelu")
    (y,) = _reference(mixed, "PRelu", ins)
    np.testing.assert_array_equal(y, np.where(ins[0] >= 0, ins[0], ins[1] * ins[0]))
    x = ins[0]
    neg, pos = _reference(mixed, "Split", [x])
    with np.errstate(over="ignore"):
        np.testing.assert_allclose(pos, np.maximum(x, 0) / (1 + np.exp(-1.5 * x)), rtol=1e-6)
    assert neg.shape == pos.shape == SHAPE
    (big,) = _reference(mixed, "IsBig", [x])
    assert big.dtype == np.bool_ and np.array_equal(big, (np.abs(x) > 1) | np.isinf(x))
    (ints,) = _reference(mixed, "ToInt", [np.array([0.26, -0.26, 1.0], np.float32)])
    assert ints.dtype == np.int32 and list(ints) == [2, -2, 10]  # truncated toward zero
    (logic,) = _reference(mixed, "Logic", [np.array([np.nan, 0.25, 1.25, -2.5], np.float32)])
    assert logic[0] == -7 and logic[2] == 2 + 1 and logic[3] == -6  # round(2.5) is 2: half to even
    assert math.isclose(logic[1], 0.55 + math.log1p(0.25) - math.expm1(-0.25), rel_tol=1e-6)


def test_output_shape_formula_in_python(mixed) -> None:
    op = mixed.ops["Upsample"]
    attrs = dict(op.defaults)
    assert op.infer_shapes(attrs, [(2, 3, 4, 5)], [None]) == [(2, 3, 8, 10)]
    assert op.infer_shapes({"scale": 1.5}, [(2, 3, 3, 5)], [None]) == [(2, 3, 4, 8)]  # floor
    assert op.infer_shapes(attrs, [(-1, 3, -1, 5)], [None]) == [(-1, 3, -1, 10)]  # dynamic
    with pytest.raises(ValueError, match="input 0 has rank 3, the shape formula names 4 dims"):
        op.infer_shapes(attrs, [(2, 3, 4)], [None])


def _ir_layer(name: str, n_in: int, n_out: int, precision: str = "FP32") -> IRLayer:
    """The op's layer with its default attributes, as the IR writes them."""
    op = next(op for op in [*MIXED, UPSAMPLE] if op["name"] == name)
    attrs = {a["name"]: str(a["default"]).lower() for a in op.get("attributes", [])}
    outs = [OutPort(n_in + k, precision, [f"y{k}"], SHAPE) for k in range(n_out)]
    return IRLayer(1, "node", name, "extension", attrs, list(range(n_in)), outs)


def _close(got: np.ndarray, want: np.ndarray, tol: float) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.slow
def test_mixed_op_set_cpp_matches_numpy(mixed, capsys) -> None:
    if tools_missing():
        pytest.fail(tools_missing())
    cpu = mixed.out / "user_ie_extensions" / "cpu"
    kernel = cpu / "upsample_kernel.hpp"  # the user's part: fill the output with 7
    todo = r"throw extgen::KernelError\(std::string\(type\) \+ \": the kernel.*?;"
    fill = "for (size_t i = 0; i < out[0].size(); ++i) out[0].as<float>()[i] = 7;"
    kernel.write_text(re.sub(todo, fill, kernel.read_text(), flags=re.S))
    built = build(cpu, mixed.out / "build", openvino=False)
    lib = CpuLibrary(built.abi_library)
    (y,) = lib.kernel(_ir_layer("Upsample", 1, 1))([np.ones(SHAPE, np.float32)])
    assert y.shape == (2, 3, 8, 10) and (y == 7).all()  # infer() from the formula
    for op in MIXED:
        ins = _inputs(op["name"])
        want = _reference(mixed, op["name"], ins)
        got = lib.kernel(_ir_layer(op["name"], len(ins), len(want)))(ins)
        for g, w in zip(got, want):
            _close(g, w, 1e-5)
    assert main(["test", str(mixed.out)]) == 0  # every target of every op, edge values too
    table = capsys.readouterr().out
    for op in MIXED:
        for target in ("cpu", "gpu"):
            assert f"{op['name']:20} {target:13} 2x3x4x5" in table, (op, target)


def test_mixed_op_set_opencl_matches_numpy(mixed) -> None:
    """GPU (every tensor through its own offset and pitches: BYXF and padded too) and VPU (half)
    kernels."""
    for op in MIXED:
        if op.get("dtype"):  # MVCL tensors are half; SimpleGPU integer outputs are covered below
            continue
        ins = _inputs(op["name"])
        want = _reference(mixed, op["name"], ins)
        snake = _snake(op["name"])
        gpu_xml = mixed.out / "user_ie_extensions" / "gpu" / f"{snake}_kernel.xml"
        vpu_xml = mixed.out / "user_ie_extensions" / "vpu" / f"{snake}_kernel.xml"
        layer = _ir_layer(op["name"], len(ins), len(want))
        (y_gpu,) = GpuDevice([gpu_xml]).kernel(layer)(ins)  # SimpleGPU: output 0 only
        _close(y_gpu, want[0], 1e-5)
        text = gpu_xml.read_text()
        byxf = gpu_xml.with_name(f"{snake}_byxf.xml")
        byxf.write_text(text.replace('format="BFYX"', 'format="BYXF"'))
        assert 'format="BYXF"' in byxf.read_text()
        for padding in (NO_PADDING, GPU_PADDING):  # padded as the plugin may hand them over
            (y_byxf,) = GpuDevice([byxf], padding=padding).kernel(layer)(ins)
            _close(y_byxf, want[0], 1e-5)
        half = [v.astype(np.float16) for v in ins]
        want_half = _reference(mixed, op["name"], half)
        vpu_layer = _ir_layer(op["name"], len(ins), len(want), "FP16")
        if len(want) > 1:  # the MYRIAD plugin asserts one output: the shim refuses as it does
            with pytest.raises(KernelConfigError, match="with one output only"):
                VpuDevice([vpu_xml]).kernel(vpu_layer)(half)
            continue
        got = VpuDevice([vpu_xml]).kernel(vpu_layer)(half)
        for g, w in zip(got, want_half):
            np.testing.assert_allclose(g.astype(np.float32), w.astype(np.float32),
                                       rtol=2e-3, atol=2e-3, equal_nan=True)


@pytest.mark.parametrize(("change", "message"), [
    ({"shape": {"kind": "formula"}}, "kind formula goes with a non-empty dims list"),
    ({"shape": {"kind": "formula", "names": ["N", "scale"], "dims": ["N"]}},
     "'scale' is used twice"),
    ({"shape": {"kind": "formula", "names": ["N"], "dims": ["N * k"]}},
     "shape.dims.0: expression 'N \\* k', column 5: unknown name 'k'"),
    ({"expression": ["x", "x"]}, "one expression per output \\(1\\)"),
    ({"expression": "x", "shape": {"kind": "custom"}}, "the inputs' broadcast shape"),
    ({"outputs": [{"name": "y", "type": "i32"}]}, "output 'y': an output's element type comes "
     "from `dtype`, not `type`"),
])
def test_bad_shape_formulas_and_expressions_are_one_line(change, message) -> None:
    from extgen.errors import ConfigError
    from extgen.generator.generate import validate_config

    with pytest.raises(ConfigError, match=message) as err:
        validate_config({"ops": [{**UPSAMPLE, **change}]})
    assert "\n" not in str(err.value)


def _openvino_op(name: str, x, o):
    """The OpenVINO opset op that ACTIVATIONS[name] is written after, on parameter x."""
    c = lambda v: o.constant(np.float32(v))  # noqa: E731
    return {
        "Swish": lambda: o.swish(x), "Mish": lambda: o.mish(x), "HSwish": lambda: o.hswish(x),
        "GeluTanh": lambda: o.gelu(x, "tanh"), "SoftPlus": lambda: o.softplus(x),
        "Elu": lambda: o.elu(x, 1.0), "Selu": lambda: o.selu(x, c(1.67326), c(1.0507)),
        "Clamp": lambda: o.clamp(x, -0.5, 2.0),
        "HardSigmoid": lambda: o.hard_sigmoid(x, c(0.2), c(0.5)),
        "LeakyRelu": lambda: o.prelu(x, c(0.01)),
    }[name]()


def test_activations_match_the_openvino_opset_ops(activations) -> None:
    """The oracle: OpenVINO's own ops of the same name, on the CPU plugin (finite inputs)."""
    import openvino as ov
    import openvino.opset13 as o

    x = (np.random.default_rng(1).standard_normal(SHAPE) * 3).astype(np.float32)
    core = ov.Core()
    for name, op in activations.items():
        if name == "PRelu":
            continue  # below: its slope is an input
        param = o.parameter(SHAPE, np.float32, name="x")
        model = ov.Model([_openvino_op(name, param, o)], [param])
        want = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})([x])[0]
        (got,) = op.evaluate(dict(op.defaults), [x])
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=name)


def test_prelu_with_a_per_channel_slope_input_matches_openvino(activations) -> None:
    """OpenVINO's PReLU takes a slope of C values along the channel axis; the expression op
    broadcasts it numpy-style as [1, C, 1, 1]: the same values either way."""
    import openvino as ov
    import openvino.opset13 as o

    x = _edge_values(seed=2)
    slope = np.array([0.1, -0.5, 2.0], np.float32)
    params = [o.parameter(SHAPE, np.float32), o.parameter([SHAPE[1]], np.float32)]
    model = ov.Model([o.prelu(*params)], params)
    want = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})(
        [x, slope])[0]
    op = activations["PRelu"]
    (got,) = op.evaluate({}, [x, slope.reshape(1, -1, 1, 1)])
    assert got.shape == SHAPE
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
