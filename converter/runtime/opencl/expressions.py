"""Safe integer work-size expressions in B, F, Y, X (`(Y+7)/8*8`), parsed with `ast`, never eval.

The GPU plugin's grammar (plugin/simple_math.cpp) knows B F Y X only; the MYRIAD plugin's
(common/src/utils/simple_math.cpp, 2022.3) also IR attributes (`stride*stride`) and the
functions floor, ceil, round, abs and sqrt: `Expression(text, attributes=True)`."""

from __future__ import annotations

import ast
import math
from collections.abc import Mapping

__all__ = ["Expression", "parse_list"]

_NAMES = frozenset("BFYX")
_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Mod)
_FUNCTIONS = {"floor": math.floor, "ceil": math.ceil, "round": round, "abs": abs,
              "sqrt": math.sqrt}


def _check(node: ast.AST, text: str, attributes: bool) -> None:
    if isinstance(node, ast.Expression):
        _check(node.body, text, attributes)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, _OPS):
        _check(node.left, text, attributes)
        _check(node.right, text, attributes)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        _check(node.operand, text, attributes)
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        pass
    elif isinstance(node, ast.Name) and (attributes or node.id.upper() in _NAMES):
        pass
    elif (attributes and isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
          and node.func.id in _FUNCTIONS and len(node.args) == 1 and not node.keywords):
        _check(node.args[0], text, attributes)
    else:
        bad = ast.get_source_segment(text, node) or type(node).__name__
        msg = f"'{bad}' is not allowed (use integers, B F Y X and + - * / % ( ))"
        raise ValueError(msg)


Number = int | float


def _div(a: Number, b: Number) -> Number:
    if b == 0:
        msg = "division by zero"
        raise ValueError(msg)
    if isinstance(a, float) or isinstance(b, float):
        return a / b
    q = abs(a) // abs(b)  # C integer division truncates toward zero
    return q if (a >= 0) == (b >= 0) else -q


def _name(name: str, dims: Mapping[str, int], attrs: Mapping[str, str]) -> Number:
    if name.upper() in _NAMES and len(name) == 1:
        return int(dims[name.upper()])
    if name not in attrs:
        msg = f"'{name}' is neither B, F, Y, X nor an attribute of the layer"
        raise ValueError(msg)
    raw = attrs[name].strip()
    try:
        return int(raw)
    except ValueError:
        try:
            return float(raw)
        except ValueError:
            msg = f"attribute {name}='{raw}' is not a number"
            raise ValueError(msg) from None


def _eval(node: ast.AST, dims: Mapping[str, int], attrs: Mapping[str, str]) -> Number:
    if isinstance(node, ast.Constant):
        return int(node.value)
    if isinstance(node, ast.Name):
        return _name(node.id, dims, attrs)
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)  # guaranteed by _check
        return float(_FUNCTIONS[node.func.id](float(_eval(node.args[0], dims, attrs))))
    if isinstance(node, ast.UnaryOp):
        v = _eval(node.operand, dims, attrs)
        return -v if isinstance(node.op, ast.USub) else v
    assert isinstance(node, ast.BinOp)  # guaranteed by _check
    a, b = _eval(node.left, dims, attrs), _eval(node.right, dims, attrs)
    if isinstance(node.op, ast.Add):
        return a + b
    if isinstance(node.op, ast.Sub):
        return a - b
    if isinstance(node.op, ast.Mult):
        return a * b
    if isinstance(node.op, ast.Mod):
        if b == 0:
            msg = "modulo by zero"
            raise ValueError(msg)
        return math.fmod(a, b) if isinstance(a - b, float) else a - _div(a, b) * b
    return _div(a, b)


class Expression:
    """One validated integer expression; `evaluate({'B': 1, 'F': 3, 'Y': 4, 'X': 4})`."""

    def __init__(self, text: str, attributes: bool = False) -> None:
        self.text = text.strip()
        if not self.text:
            msg = "empty expression"
            raise ValueError(msg)
        try:
            tree = ast.parse(self.text, mode="eval")
        except SyntaxError:
            msg = f"'{self.text}' is not an arithmetic expression"
            raise ValueError(msg) from None
        _check(tree, self.text, attributes)
        self._body = tree.body

    def evaluate(self, dims: Mapping[str, int], attrs: Mapping[str, str] | None = None) -> int:
        """The value, truncated to an integer; names other than B F Y X are IR attributes."""
        return int(_eval(self._body, dims, attrs or {}))

    def __repr__(self) -> str:
        return f"Expression({self.text!r})"


def parse_list(text: str | None, attributes: bool = False) -> list[Expression]:
    """A comma-separated list of up to three expressions ('' or None -> [])."""
    if text is None or not text.strip():
        return []
    parts = [Expression(p, attributes) for p in text.split(",")]
    if len(parts) > 3:
        msg = f"'{text}' has {len(parts)} sizes, at most 3 are allowed"
        raise ValueError(msg)
    return parts
