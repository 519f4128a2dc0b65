"""A small math language for elementwise ops, e.g. `(exp(x) + exp(-x)) / 2`, parsed with `ast`
against a whitelist and rendered into numpy, C++ and OpenCL C. Nothing is ever pasted as text:
every name, number and operator is checked and re-emitted."""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from dataclasses import dataclass

from extgen.errors import ConfigError

__all__ = ["FUNCTIONS", "Expression", "parse_expression"]

# name -> (arity, numpy, C++, OpenCL C)
FUNCTIONS: dict[str, tuple[int, str, str, str]] = {
    "exp": (1, "np.exp", "std::exp", "exp"),
    "log": (1, "np.log", "std::log", "log"),
    "sqrt": (1, "np.sqrt", "std::sqrt", "sqrt"),
    "sin": (1, "np.sin", "std::sin", "sin"),
    "cos": (1, "np.cos", "std::cos", "cos"),
    "tan": (1, "np.tan", "std::tan", "tan"),
    "sinh": (1, "np.sinh", "std::sinh", "sinh"),
    "cosh": (1, "np.cosh", "std::cosh", "cosh"),
    "tanh": (1, "np.tanh", "std::tanh", "tanh"),
    "asin": (1, "np.arcsin", "std::asin", "asin"),
    "acos": (1, "np.arccos", "std::acos", "acos"),
    "atan": (1, "np.arctan", "std::atan", "atan"),
    "abs": (1, "np.abs", "std::fabs", "fabs"),
    "floor": (1, "np.floor", "std::floor", "floor"),
    "ceil": (1, "np.ceil", "std::ceil", "ceil"),
    "erf": (1, "_erf", "std::erf", "erf"),
    "min": (2, "np.minimum", "std::fmin", "fmin"),
    "max": (2, "np.maximum", "std::fmax", "fmax"),
    "pow": (2, "np.power", "std::pow", "pow"),
}
_BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
_COMPARE = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_LANGS = ("numpy", "cpp", "opencl")


@dataclass(frozen=True)
class Expression:
    """A checked expression; render(lang, names) maps each variable to that language's spelling."""

    text: str
    tree: ast.expr
    variables: frozenset[str]

    def render(self, lang: str, names: Callable[[str], str] | None = None) -> str:
        if lang not in _LANGS:
            msg = f"unknown language {lang}"
            raise ValueError(msg)
        return _render(self.tree, lang, names or (lambda v: v))


def _shown(text: str) -> str:
    """The expression as errors quote it: escaped, and cut short when long."""
    return repr(text if len(text) <= 60 else text[:57] + "...")


def _fail(text: str, node: ast.AST, what: str) -> ConfigError:
    col = getattr(node, "col_offset", 0) + 1
    return ConfigError(f"expression {_shown(text)}, column {col}: {what}")


def _check(node: ast.AST, text: str, allowed: set[str], used: set[str]) -> None:
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise _fail(text, node, f"only numbers are allowed, not {node.value!r}")
        if not _finite(node.value):
            raise _fail(text, node, "a number beyond the float range (about 1.8e308)")
    elif isinstance(node, ast.Name):
        if node.id not in allowed:
            known = ", ".join(sorted(allowed)) or "none"
            raise _fail(text, node, f"unknown name '{node.id}' (inputs and attributes: {known})")
        used.add(node.id)
    elif isinstance(node, ast.BinOp) and (type(node.op) in _BINARY or isinstance(node.op, ast.Pow)):
        _check(node.left, text, allowed, used)
        _check(node.right, text, allowed, used)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        _check(node.operand, text, allowed, used)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        spec = FUNCTIONS.get(node.func.id)
        if spec is None:
            allowed_names = ", ".join(FUNCTIONS)
            raise _fail(text, node, f"unknown function '{node.func.id}' (allowed: {allowed_names})")
        if len(node.args) != spec[0]:
            raise _fail(text, node, f"{node.func.id}() takes {spec[0]} argument(s)")
        for arg in node.args:
            _check(arg, text, allowed, used)
    elif isinstance(node, ast.IfExp) and isinstance(node.test, ast.Compare):
        test = node.test
        if len(test.ops) != 1 or type(test.ops[0]) not in _COMPARE:
            raise _fail(text, test, "conditions compare two values with <, <=, > or >=")
        for part in (test.left, test.comparators[0], node.body, node.orelse):
            _check(part, text, allowed, used)
    else:
        raise _fail(text, node, f"'{ast.unparse(node)}' is not allowed here")


MAX_DEPTH = 200  # nesting levels; deeper expressions are refused before any recursion


def _finite(value: float | int) -> bool:
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def _depth(tree: ast.AST) -> int:
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


def parse_expression(text: str, names: set[str]) -> Expression:
    """Parse and check text; names are the inputs and attributes it may use."""
    shown = _shown(text)
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as err:
        msg = f"expression {shown}: syntax error at column {err.offset or 0} ({err.msg})"
        raise ConfigError(msg) from None
    except (RecursionError, MemoryError):
        msg = f"expression {shown}: nested too deeply to parse"
        raise ConfigError(msg) from None
    if _depth(tree) > MAX_DEPTH:
        msg = f"expression {shown}: nested more than {MAX_DEPTH} levels deep; split it up"
        raise ConfigError(msg)
    used: set[str] = set()
    _check(tree, text, set(names), used)
    return Expression(text, tree, frozenset(used))


def _number(value: float | int, lang: str) -> str:
    text = repr(float(value))
    return f"{text}f" if lang == "opencl" else text


def _render(node: ast.expr, lang: str, names: Callable[[str], str]) -> str:
    r = lambda n: _render(n, lang, names)  # noqa: E731
    if isinstance(node, ast.Constant):
        return _number(node.value, lang)
    if isinstance(node, ast.Name):
        return names(node.id)
    if isinstance(node, ast.UnaryOp):
        return f"({'-' if isinstance(node.op, ast.USub) else '+'}{r(node.operand)})"
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Pow):
            fn = FUNCTIONS["pow"][_LANGS.index(lang) + 1]
            return f"{fn}({r(node.left)}, {r(node.right)})"
        return f"({r(node.left)} {_BINARY[type(node.op)]} {r(node.right)})"
    if isinstance(node, ast.Call):
        fn = FUNCTIONS[node.func.id][_LANGS.index(lang) + 1]
        return f"{fn}({', '.join(r(a) for a in node.args)})"
    test = node.test
    cond = f"{r(test.left)} {_COMPARE[type(test.ops[0])]} {r(test.comparators[0])}"
    if lang == "numpy":
        return f"np.where({cond}, {r(node.body)}, {r(node.orelse)})"
    return f"(({cond}) ? {r(node.body)} : {r(node.orelse)})"
