"""The elementwise math language: rendering agrees across numpy, C++ and OpenCL; bad input is
refused."""

from __future__ import annotations

import numpy as np
import pytest

from converter.ops.elementwise.functions import fn, result
from extgen.errors import ConfigError
from extgen.expression import parse_expression


def _numpy(text: str, **values):
    expr = parse_expression(text, set(values))
    return eval(expr.render("numpy"), {"np": np, "fn": fn}, values)  # noqa: S307  (checked)


@pytest.mark.parametrize(("text", "expected"), [
    ("(exp(x) + exp(-x)) / 2", lambda x, a: np.cosh(x)),
    ("x if x > 0 else a * (exp(x) - 1)", lambda x, a: np.where(x > 0, x, a * np.expm1(x))),
    ("max(x, 0) + min(x, 0) * a", lambda x, a: np.maximum(x, 0) + np.minimum(x, 0) * a),
    ("x ** 2 - abs(x)", lambda x, a: x**2 - np.abs(x)),
    ("where(x > 0 and not x > 1, 1, 0) + (x if 0 < x <= 1 else a)",
     lambda x, a: ((x > 0) & (x <= 1)) * 1 + np.where((x > 0) & (x <= 1), x, a)),
    ("clamp(x, -a, a) + hardsigmoid(x, a, 0.5)",
     lambda x, a: np.clip(x, -a, a) + np.clip(a * x + 0.5, 0, 1)),
    ("sign(x) * rsqrt(abs(x) + 1) + round(x * 2) + log1p(abs(x)) - expm1(x)",
     lambda x, a: (np.sign(x) / np.sqrt(np.abs(x) + 1) + np.rint(x * 2) + np.log1p(np.abs(x))
                   - np.expm1(x))),
    ("softplus(x) - sigmoid(x) + asinh(x) + where(x != 0 or x == 0, 0, 1) + where(isnan(x), 1, 0)",
     lambda x, a: np.logaddexp(0, x) - 1 / (1 + np.exp(-x)) + np.arcsinh(x)),
])
def test_numpy_rendering_computes_the_math(text, expected) -> None:
    x = np.linspace(-2, 2, 9, dtype=np.float32)
    got = _numpy(text, x=x, a=np.float32(0.5))
    np.testing.assert_allclose(got, expected(x, np.float32(0.5)), rtol=1e-6, atol=1e-6)


def test_c_languages_use_their_spelling() -> None:
    expr = parse_expression("pow(x, 2) + erf(x) if x >= 1 else sqrt(x)", {"x"})
    assert expr.render("cpp") == "((x >= 1.0) ? (std::pow(x, 2.0) + std::erf(x)) : std::sqrt(x))"
    assert expr.render("opencl") == "((x >= 1.0f) ? (pow(x, 2.0f) + erf(x)) : sqrt(x))"
    assert expr.render("cpp", lambda v: f"in[{v}]") == (
        "((in[x] >= 1.0) ? (std::pow(in[x], 2.0) + std::erf(in[x])) : std::sqrt(in[x]))"
    )
    logic = parse_expression("round(x) if not (0 < x < 1 or x != x) else min(x, 1)", {"x"})
    assert logic.render("cpp") == (
        "((!(((0.0 < x) && (x < 1.0)) || (x != x))) ? std::nearbyint(x) : extgen::fn::min(x, 1.0))")
    assert logic.render("opencl") == (
        "((!(((0.0f < x) && (x < 1.0f)) || (x != x))) ? rint(x) : eg_min(x, 1.0f))")
    assert logic.functions == {"round", "min"}


def test_nan_and_rounding_are_the_same_in_every_target() -> None:
    """numpy's rendering: NaN propagates through min/max/clamp/sign; comparisons with NaN are
    false (but !=); round is half to even. The C++ and OpenCL kernels are checked against it."""
    x = np.array([np.nan, 0.5, 1.5, 2.5, -0.5, -2.5], np.float32)
    assert np.array_equal(_numpy("round(x)", x=x), [np.nan, 0, 2, 2, -0, -2], equal_nan=True)
    for text in ("min(x, 1)", "max(1, x)", "clamp(x, 0, 1)", "sign(x)", "hardsigmoid(x, 1, 0)"):
        assert np.isnan(_numpy(text, x=x)[0]), text
    flags = _numpy("where(x < 1, 1, 0) + where(x >= 1, 2, 0) + where(x != x, 4, 0)", x=x)
    assert flags[0] == 4 and list(flags[1:]) == [1, 2, 2, 1, 1]


@pytest.mark.parametrize(("text", "message"), [
    ('__import__("os")', "unknown function '__import__'"),
    ("x.real", "'x.real' is not allowed"),
    ("y + 1", "unknown name 'y'"),
    ("exp(x, 2)", "takes 1 argument"),
    ("x +", "syntax error"),
    ("'text'", "only numbers"),
    ("exp(x > 0)", "'x > 0' is true/false, not a number"),
    ("-(x > 0)", "is true/false, not a number"),
    ("x if x > 0 else x > 1", "both choices must be numbers"),
    ("clamp(x, 1)", "clamp\\(\\) takes 3 argument"),
    ("x if x is 0 else 1", "is not allowed here"),
    ("x; import os", "syntax error"),
])
def test_bad_expressions_are_refused(text, message) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_expression(text, {"x"})


@pytest.mark.parametrize(("text", "needle"), [
    ("+".join(["x"] * 3000), "nested more than 200 levels"),
    ("+".join(["x"] * 300), "nested more than 200 levels"),
    ("(" * 3000 + "x" + ")" * 3000, "too many nested parentheses"),
    ("-" * 3000 + "x", "nested more than 200 levels"),
    ("x * 1" + "0" * 400, "beyond the float range"),
    ("x * 1e400", "beyond the float range"),
])
def test_huge_or_deep_expressions_are_one_config_error(text: str, needle: str) -> None:
    with pytest.raises(ConfigError, match=needle) as err:
        parse_expression(text, {"x"})
    assert "\n" not in str(err.value) and len(str(err.value)) < 200


def test_a_newline_in_an_expression_is_escaped_in_errors() -> None:
    with pytest.raises(ConfigError) as err:
        parse_expression("x +\ny(", {"x"})
    assert "\n" not in str(err.value) and "\\n" in str(err.value)


def test_generated_erf_is_the_built_in_erf(tmp_path) -> None:
    """One evaluator: a generated op's erf is the one the built-in Erf op uses."""
    import importlib.util

    from converter.ops.elementwise.unary import Erf
    from extgen.generator.config import GeneratorConfig
    from extgen.generator.generate import generate

    config = GeneratorConfig.model_validate({"targets": ["mo-op"], "ops": [{
        "name": "GeluErf", "framework_types": {"onnx": "GeluErf"},
        "expression": "0.5 * x * (1 + erf(x / sqrt(2)))"}]})
    generate(config, tmp_path)
    path = tmp_path / "user_mo_extensions" / "ops" / "gelu_erf.py"
    spec = importlib.util.spec_from_file_location("gelu_erf_generated", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.fn.erf is Erf.fn
    x = np.linspace(-4, 4, 17, dtype=np.float32)
    (y,) = module.GeluErf.evaluate({}, [x])
    np.testing.assert_allclose(y, 0.5 * x * (1 + Erf.fn(x / np.sqrt(2))), rtol=1e-6)


def test_result_keeps_the_output_shape_scalar_included() -> None:
    assert result(np.float64(2.5), (), np.dtype(np.float32)).shape == ()
    out = result(np.array([1.7, -1.7]), (3, 2), np.dtype(np.int32))
    assert out.flags["C_CONTIGUOUS"] and out.tolist() == [[1, -1]] * 3  # truncated, as in C
