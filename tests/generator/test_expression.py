"""The elementwise math language: rendering agrees across numpy, C++ and OpenCL; bad input is
refused."""

from __future__ import annotations

import numpy as np
import pytest

from extgen.errors import ConfigError
from extgen.expression import parse_expression


def _numpy(text: str, **values):
    expr = parse_expression(text, set(values))
    return eval(expr.render("numpy"), {"np": np}, values)  # noqa: S307  (checked expression)


@pytest.mark.parametrize(("text", "expected"), [
    ("(exp(x) + exp(-x)) / 2", lambda x, a: np.cosh(x)),
    ("x if x > 0 else a * (exp(x) - 1)", lambda x, a: np.where(x > 0, x, a * np.expm1(x))),
    ("max(x, 0) + min(x, 0) * a", lambda x, a: np.maximum(x, 0) + np.minimum(x, 0) * a),
    ("x ** 2 - abs(x)", lambda x, a: x**2 - np.abs(x)),
])
def test_numpy_rendering_computes_the_math(text, expected) -> None:
    x = np.linspace(-2, 2, 9, dtype=np.float32)
    got = _numpy(text, x=x, a=np.float32(0.5))
    np.testing.assert_allclose(got, expected(x, np.float32(0.5)), rtol=1e-6, atol=1e-6)
    assert got.dtype == np.float32


def test_c_languages_use_their_spelling() -> None:
    expr = parse_expression("pow(x, 2) + erf(x) if x >= 1 else sqrt(x)", {"x"})
    assert expr.render("cpp") == "((x >= 1.0) ? (std::pow(x, 2.0) + std::erf(x)) : std::sqrt(x))"
    assert expr.render("opencl") == "((x >= 1.0f) ? (pow(x, 2.0f) + erf(x)) : sqrt(x))"
    assert expr.render("cpp", lambda v: f"in[{v}]") == (
        "((in[x] >= 1.0) ? (std::pow(in[x], 2.0) + std::erf(in[x])) : std::sqrt(in[x]))"
    )


@pytest.mark.parametrize(("text", "message"), [
    ('__import__("os")', "unknown function '__import__'"),
    ("x.real", "'x.real' is not allowed"),
    ("y + 1", "unknown name 'y'"),
    ("exp(x, 2)", "takes 1 argument"),
    ("x +", "syntax error"),
    ("'text'", "only numbers"),
    ("x if x == 0 else 1", "compare two values"),
    ("x; import os", "syntax error"),
])
def test_bad_expressions_are_refused(text, message) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_expression(text, {"x"})


@pytest.mark.parametrize(("text", "needle"), [
    ("+".join(["x"] * 3000), "nested too deeply"),
    ("+".join(["x"] * 300), "nested more than 200 levels"),
    ("(" * 3000 + "x" + ")" * 3000, "too many nested parentheses"),
    ("-" * 3000 + "x", "nested too deeply"),
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
    assert module._erf is Erf.fn
    x = np.linspace(-4, 4, 17, dtype=np.float32)
    (y,) = module.GeluErf.evaluate({}, [x])
    np.testing.assert_allclose(y, 0.5 * x * (1 + Erf.fn(x / np.sqrt(2))), rtol=1e-6)
