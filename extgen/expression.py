"""A small math language for elementwise ops, e.g. `x * sigmoid(beta * x)` or
`x if x > 0 else alpha * expm1(x)`, parsed with `ast` against a whitelist and rendered into
numpy, C++ and OpenCL C. Nothing is ever pasted as text: every name, number and operator is
checked and re-emitted.

The same semantics in every target: the math runs in floating point; NaN propagates through
every function (min, max, clamp, sign, round, ...); comparisons with NaN are false except `!=`;
`round` is half to even; a condition is true when nonzero (NaN included)."""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from dataclasses import dataclass

from extgen.errors import ConfigError
from extgen.expression_render import FUNCTIONS, render

__all__ = ["FUNCTIONS", "LANGUAGE", "Expression", "parse_expression"]

_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)
_COMPARE = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)
_PARAMS = {"clamp": "x, lo, hi", "hardsigmoid": "x, alpha, beta", "where": "cond, a, b"}
_BOOLEAN = "a true/false value (a comparison, and/or/not, isnan, ...)"
LANGUAGE = (
    "numbers, the op's inputs and int/float/bool attributes; + - * / ** and unary -; "
    "comparisons < <= > >= == != (chains like 0 < x < 1 too); and, or, not; "
    "a if cond else b; functions: " + ", ".join(
        f"{name}({_PARAMS.get(name, 'x' if spec[0] == 1 else 'a, b')})"
        for name, spec in FUNCTIONS.items()))


@dataclass(frozen=True)
class Expression:
    """A checked expression; render(lang, names) maps each variable to that language's spelling.
    `functions` are the function names it calls (OpenCL helpers are emitted only for those)."""

    text: str
    tree: ast.expr
    variables: frozenset[str]
    functions: frozenset[str]

    def render(self, lang: str, names: Callable[[str], str] | None = None) -> str:
        return render(self.tree, lang, names or (lambda v: v))


def _shown(text: str) -> str:
    """The expression as errors quote it: escaped, and cut short when long."""
    return repr(text if len(text) <= 60 else text[:57] + "...")


def _fail(text: str, node: ast.AST, what: str) -> ConfigError:
    col = getattr(node, "col_offset", 0) + 1
    return ConfigError(f"expression {_shown(text)}, column {col}: {what}")


@dataclass
class _Checker:
    """Walks the tree; returns each node's kind: 'num' or 'bool'. A true/false value may be a
    condition or the whole result, never an operand of arithmetic or of a math function."""

    text: str
    allowed: set[str]
    used: set[str]
    calls: set[str]

    def number(self, node: ast.AST) -> None:
        if self.kind(node) == "bool":
            raise _fail(self.text, node, f"'{ast.unparse(node)}' is true/false, not a number "
                        "(write where(cond, 1, 0) for one)")

    def kind(self, node: ast.AST) -> str:  # noqa: C901  (one branch per node type)
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                raise _fail(self.text, node, f"only numbers are allowed, not {node.value!r}")
            if not _finite(node.value):
                raise _fail(self.text, node, "a number beyond the float range (about 1.8e308)")
            return "num"
        if isinstance(node, ast.Name):
            if node.id not in self.allowed:
                known = ", ".join(sorted(self.allowed)) or "none"
                raise _fail(self.text, node,
                            f"unknown name '{node.id}' (inputs and attributes: {known})")
            self.used.add(node.id)
            return "num"
        if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
            self.number(node.left)
            self.number(node.right)
            return "num"
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            self.number(node.operand)
            return "num"
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            self.kind(node.operand)
            return "bool"
        if isinstance(node, ast.BoolOp):
            for value in node.values:
                self.kind(value)
            return "bool"
        if isinstance(node, ast.Compare) and all(isinstance(op, _COMPARE) for op in node.ops):
            for part in (node.left, *node.comparators):
                self.number(part)
            return "bool"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            return self.call(node)
        if isinstance(node, ast.IfExp):
            return self.choice(node, node.test, node.body, node.orelse)
        raise _fail(self.text, node, f"'{ast.unparse(node)}' is not allowed here")

    def call(self, node: ast.Call) -> str:
        name = node.func.id  # type: ignore[attr-defined]
        spec = FUNCTIONS.get(name)
        if spec is None:
            raise _fail(self.text, node,
                        f"unknown function '{name}' (allowed: {', '.join(FUNCTIONS)})")
        if len(node.args) != spec[0] or any(isinstance(a, ast.Starred) for a in node.args):
            raise _fail(self.text, node, f"{name}() takes {spec[0]} argument(s)")
        self.calls.add(name)
        if name == "where":
            return self.choice(node, *node.args)
        for arg in node.args:
            self.number(arg)
        return spec[1]

    def choice(self, node: ast.AST, test: ast.AST, body: ast.AST, orelse: ast.AST) -> str:
        self.kind(test)
        kinds = {self.kind(body), self.kind(orelse)}
        if len(kinds) > 1:
            raise _fail(self.text, node, "both choices must be numbers, or both " + _BOOLEAN)
        return kinds.pop()


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
    except (RecursionError, MemoryError):  # Python's parser gives up, before 3.13 on less
        tree = None
    if tree is None or _depth(tree) > MAX_DEPTH:
        msg = f"expression {shown}: nested more than {MAX_DEPTH} levels deep; split it up"
        raise ConfigError(msg)
    checker = _Checker(text, set(names), set(), set())
    checker.kind(tree)
    return Expression(text, tree, frozenset(checker.used), frozenset(checker.calls))
