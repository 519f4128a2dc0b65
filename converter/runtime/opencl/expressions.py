"""Safe integer work-size expressions in B, F, Y, X (`(Y+7)/8*8`), parsed with `ast`, never eval."""

from __future__ import annotations

import ast
from collections.abc import Mapping

__all__ = ["Expression", "parse_list"]

_NAMES = frozenset("BFYX")
_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Mod)


def _check(node: ast.AST, text: str) -> None:
    if isinstance(node, ast.Expression):
        _check(node.body, text)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, _OPS):
        _check(node.left, text)
        _check(node.right, text)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        _check(node.operand, text)
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        pass
    elif isinstance(node, ast.Name) and node.id.upper() in _NAMES:
        pass
    else:
        bad = ast.get_source_segment(text, node) or type(node).__name__
        msg = f"'{bad}' is not allowed (use integers, B F Y X and + - * / % ( ))"
        raise ValueError(msg)


def _div(a: int, b: int) -> int:
    if b == 0:
        msg = "division by zero"
        raise ValueError(msg)
    q = abs(a) // abs(b)  # C integer division truncates toward zero
    return q if (a >= 0) == (b >= 0) else -q


def _eval(node: ast.AST, dims: Mapping[str, int]) -> int:
    if isinstance(node, ast.Constant):
        return int(node.value)
    if isinstance(node, ast.Name):
        return int(dims[node.id.upper()])
    if isinstance(node, ast.UnaryOp):
        v = _eval(node.operand, dims)
        return -v if isinstance(node.op, ast.USub) else v
    assert isinstance(node, ast.BinOp)  # guaranteed by _check
    a, b = _eval(node.left, dims), _eval(node.right, dims)
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
        return a - _div(a, b) * b
    return _div(a, b)


class Expression:
    """One validated integer expression; `evaluate({'B': 1, 'F': 3, 'Y': 4, 'X': 4})`."""

    def __init__(self, text: str) -> None:
        self.text = text.strip()
        if not self.text:
            msg = "empty expression"
            raise ValueError(msg)
        try:
            tree = ast.parse(self.text, mode="eval")
        except SyntaxError:
            msg = f"'{self.text}' is not an arithmetic expression"
            raise ValueError(msg) from None
        _check(tree, self.text)
        self._body = tree.body

    def evaluate(self, dims: Mapping[str, int]) -> int:
        return _eval(self._body, dims)

    def __repr__(self) -> str:
        return f"Expression({self.text!r})"


def parse_list(text: str | None) -> list[Expression]:
    """A comma-separated list of up to three expressions ('' or None -> [])."""
    if text is None or not text.strip():
        return []
    parts = [Expression(p) for p in text.split(",")]
    if len(parts) > 3:
        msg = f"'{text}' has {len(parts)} sizes, at most 3 are allowed"
        raise ValueError(msg)
    return parts
