"""Rendering a checked expression tree (extgen.expression) into numpy, C++ and OpenCL C, and the
OpenCL helper functions a kernel needs. numpy calls the converter's shared function table
(`fn.<name>`, converter.ops.elementwise.functions); C++ calls std:: or the extgen::fn helpers
of the generated extgen_kernel.hpp; OpenCL calls its built-ins or the eg_* helpers below."""

from __future__ import annotations

import ast
from collections.abc import Callable

__all__ = ["FUNCTIONS", "LANGS", "opencl_helpers", "render"]

LANGS = ("numpy", "cpp", "opencl")
_STD = ("exp", "log", "sqrt", "log1p", "expm1", "sin", "cos", "tan", "sinh", "cosh",
        "asin", "acos", "atan", "asinh", "acosh", "atanh", "floor", "ceil", "erf", "pow")
_HELPERS = ("rsqrt", "sign", "sigmoid", "softplus", "softsign", "min", "max", "clamp",
            "hardsigmoid")
_ARITY = {"pow": 2, "min": 2, "max": 2, "clamp": 3, "hardsigmoid": 3, "where": 3}

# name -> (arity, result kind, C++, OpenCL C); numpy is always fn.<name>
FUNCTIONS: dict[str, tuple[int, str, str, str]] = {
    **{n: (_ARITY.get(n, 1), "num", f"std::{n}", n) for n in _STD},
    "tanh": (1, "num", "std::tanh", "eg_tanh"),
    "abs": (1, "num", "std::fabs", "fabs"),
    "round": (1, "num", "std::nearbyint", "rint"),  # half to even in the default rounding mode
    **{n: (_ARITY.get(n, 1), "num", f"extgen::fn::{n}", f"eg_{n}") for n in _HELPERS},
    **{n: (1, "bool", f"std::{n}", n) for n in ("isnan", "isinf", "isfinite")},
    "where": (3, "num", "", ""),  # rendered as a choice, like `a if c else b`
}
_ARITHMETIC = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
_COMPARE = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}

# OpenCL helpers (float): name -> (helpers it calls, body)
_CL_HELPERS: dict[str, tuple[tuple[str, ...], str]] = {
    **{n: ((), f"float eg_{n}(float a, float b) "
                f"{{ return isnan(a) || isnan(b) ? a + b : f{n}(a, b); }}")
       for n in ("min", "max")},
    "clamp": (("min", "max"),
              "float eg_clamp(float x, float lo, float hi) { return eg_min(eg_max(x, lo), hi); }"),
    "hardsigmoid": (("clamp",), "float eg_hardsigmoid(float x, float alpha, float beta) "
                                "{ return eg_clamp(alpha * x + beta, 0.0f, 1.0f); }"),
    "sigmoid": ((), "float eg_sigmoid(float x) { return 1.0f / (1.0f + exp(-x)); }"),
    "softplus": ((), "float eg_softplus(float x) "
                     "{ return x > 0.0f ? x + log1p(exp(-x)) : log1p(exp(x)); }"),
    "softsign": ((), "float eg_softsign(float x) { return x / (1.0f + fabs(x)); }"),
    "rsqrt": ((), "float eg_rsqrt(float x) { return 1.0f / sqrt(x); }"),
    # tanh rounds to +-1 in float from |x| = 9.1; some OpenCL tanh stop one ulp short of it
    "tanh": ((), "float eg_tanh(float x) "
                 "{ return fabs(x) >= 9.1f ? copysign(1.0f, x) : tanh(x); }"),
    "sign": ((), "float eg_sign(float x) { return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : x); }"),
}


def opencl_helpers(functions: set[str] | frozenset[str]) -> list[str]:
    """The eg_* helper definitions the functions need, callees first."""
    out: list[str] = []

    def add(name: str) -> None:
        if name in _CL_HELPERS and _CL_HELPERS[name][1] not in out:
            for dep in _CL_HELPERS[name][0]:
                add(dep)
            out.append(_CL_HELPERS[name][1])

    for name in sorted(functions):
        add(name)
    return out


def _number(value: float | int, lang: str) -> str:
    text = repr(float(value))
    return f"{text}f" if lang == "opencl" else text


def _all(parts: list[str], lang: str, op: str) -> str:
    """parts joined by a logical and/or."""
    if lang == "numpy":
        word = "and" if op == "&&" else "or"
        out = parts[0]
        for p in parts[1:]:
            out = f"np.logical_{word}({out}, {p})"
        return out
    return "(" + f" {op} ".join(parts) + ")"


def render(node: ast.expr, lang: str, names: Callable[[str], str]) -> str:  # noqa: C901
    """node (checked by extgen.expression) in lang, variables spelled by names."""
    if lang not in LANGS:
        msg = f"unknown language {lang}"
        raise ValueError(msg)
    r = lambda n: render(n, lang, names)  # noqa: E731
    if isinstance(node, ast.Constant):
        return _number(node.value, lang)
    if isinstance(node, ast.Name):
        return names(node.id)
    if isinstance(node, ast.UnaryOp):
        operand = r(node.operand)
        if isinstance(node.op, ast.Not):
            return f"np.logical_not({operand})" if lang == "numpy" else f"(!{operand})"
        return f"({'-' if isinstance(node.op, ast.USub) else '+'}{operand})"
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Pow):
            return _call("pow", [node.left, node.right], lang, r)
        return f"({r(node.left)} {_ARITHMETIC[type(node.op)]} {r(node.right)})"
    if isinstance(node, ast.BoolOp):
        op = "&&" if isinstance(node.op, ast.And) else "||"
        return _all([r(v) for v in node.values], lang, op)
    if isinstance(node, ast.Compare):
        operands = [node.left, *node.comparators]
        pairs = [f"({r(a)} {_COMPARE[type(op)]} {r(b)})"
                 for a, op, b in zip(operands, node.ops, operands[1:])]
        return pairs[0] if len(pairs) == 1 else _all(pairs, lang, "&&")
    if isinstance(node, ast.Call):
        return _call(node.func.id, node.args, lang, r)  # type: ignore[attr-defined]
    return _call("where", [node.test, node.body, node.orelse], lang, r)


def _call(name: str, args: list[ast.expr], lang: str, r: Callable[[ast.expr], str]) -> str:
    spelled = [r(a) for a in args]
    if lang == "numpy":
        return f"fn.{name}({', '.join(spelled)})"
    if name == "where":
        test = spelled[0]
        if lang == "opencl" and not _is_truth(args[0]):  # OpenCL's ?: takes no float condition
            test = f"({test} != 0.0f)"
        return f"({test} ? {spelled[1]} : {spelled[2]})"
    fn = FUNCTIONS[name][LANGS.index(lang) + 1]
    return f"{fn}({', '.join(spelled)})"


def _is_truth(node: ast.expr) -> bool:
    """Whether node is a true/false value (a comparison, and/or/not, isnan, ...), not a number."""
    if isinstance(node, (ast.Compare, ast.BoolOp)):
        return True
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, ast.Not)
    if isinstance(node, ast.IfExp):
        return _is_truth(node.body)
    if isinstance(node, ast.Call):
        name = node.func.id  # type: ignore[attr-defined]
        return _is_truth(node.args[1]) if name == "where" else FUNCTIONS[name][1] == "bool"
    return False
