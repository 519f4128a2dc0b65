"""Work-size expressions read as OpenVINO's plugins read them (a shunting-yard port), never eval.

GPU, `Expression(text)` (intel_gpu src/plugin/simple_math.cpp): decimal integers, the letters
B F Y X in either case, + - * / % (* / % bind tighter; all left-associative), parentheses and
blanks (space, tab) before a token, none at the end. No unary sign, no functions. int
arithmetic as in C: / truncates toward zero, % takes the dividend's sign, overflow wraps. The
parser calls a rule legal when it evaluates with B=F=Y=X=1 (custom_layer.cpp IsLegalSizeRule).

MYRIAD, `Expression(text, attributes=True)` (2022.3 common/src/utils/simple_math.cpp and
include/vpu/utils/simple_math.hpp): also decimal floats, blanks anywhere, every IR attribute
whose value is one number (`stride*stride`), and floor ceil round abs sqrt, which take one value
(parentheses optional) and give a float. An operation with a float is float32; % of a float
fails. The result is truncated to int. The plugin checks only that a rule parses, against the
layer's attributes (CustomLayer::isLegalSizeRule): `legal(attrs)`."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping

import numpy as np

__all__ = ["Expression", "parse_list", "plugin_number"]

Number = int | float
_PRIORITY = {"+": 0, "-": 0, "*": 1, "/": 1, "%": 1}
_LETTERS = frozenset("bBfFyYxX")
_FUNCTIONS: dict[str, Callable[[float], float]] = {
    "floor": math.floor, "ceil": math.ceil, "abs": abs, "sqrt": math.sqrt,
    "round": lambda v: math.copysign(math.floor(abs(v) + 0.5), v),  # std::round: half away
}
_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_DIGITS = frozenset("0123456789")
_GPU_NUMBER = re.compile(r"[0-9]+")  # std::stoi at a digit
_FLOAT_TOKEN = re.compile(r"[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?")  # std::stof at a digit
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")  # isalpha, then isalnum or _


def _f32(v: float) -> float:
    with np.errstate(over="ignore", invalid="ignore"):
        return float(np.float32(v))


def _wrap(v: int) -> int:
    """C int overflow as the hardware does it (two's complement, 32 bits)."""
    return (v + 2**31) % 2**32 - 2**31


def plugin_number(text: str) -> Number | None:
    """The value of a MYRIAD variable (parseNumber: the whole text, blanks around it allowed):
    an int when it reads as a 32-bit int, else a float32, else None."""
    text = text.strip()
    if _INT.fullmatch(text) and -2**31 <= int(text) < 2**31:
        return int(text)
    if _FLOAT.fullmatch(text) and math.isfinite(_f32(float(text))):
        return _f32(float(text))
    return None


def _div(a: int, b: int) -> int:
    q = abs(a) // abs(b)  # C truncates toward zero
    return q if (a >= 0) == (b >= 0) else -q


def _apply(op: str, a: Number, b: Number) -> Number:
    if isinstance(a, int) and isinstance(b, int):
        if op in "/%" and b == 0:
            msg = "integer division by zero (the plugin would crash)"
            raise ValueError(msg)
        if op == "/":
            return _wrap(_div(a, b))
        if op == "%":
            return _wrap(a - _div(a, b) * b)
        return _wrap(a + b if op == "+" else a - b if op == "-" else a * b)
    if op == "%":
        msg = "Can't apply modulus operation to floating point value"
        raise ValueError(msg)
    x, y = np.float32(a), np.float32(b)
    with np.errstate(all="ignore"):  # IEEE float32: x/0 is inf, 0/0 NaN
        return float(x + y if op == "+" else x - y if op == "-" else x * y if op == "*" else x / y)


class Expression:
    """One work-size rule; `evaluate({'B': 1, 'F': 3, 'Y': 4, 'X': 4})` gives its int value.
    The constructor raises ValueError with the plugin's reason for a rule it never accepts."""

    def __init__(self, text: str, attributes: bool = False) -> None:
        self.text, self.myriad = text, attributes
        self._rpn = self._parse()
        if not attributes:  # IsLegalSizeRule: it must evaluate with every dim 1
            self.evaluate(dict.fromkeys("BFYX", 1))

    def _tokens(self) -> list[tuple[str, str]]:
        """(kind, text): kind is num, name, op, fn, ( or )."""
        text, i, out = self.text, 0, []
        number = _FLOAT_TOKEN if self.myriad else _GPU_NUMBER
        while i < len(text):
            c = text[i]
            if c in " \t":
                i += 1
                if i == len(text) and not self.myriad:
                    msg = ("a blank at the end, past which the GPU plugin's parser reads "
                           "(std::out_of_range)")
                    raise ValueError(msg)
                continue
            m = number.match(text, i) if c in _DIGITS else None
            m = m or (_NAME.match(text, i) if self.myriad else None)
            if m:
                word = m.group()
                out.append(("num" if c in _DIGITS else "fn" if word in _FUNCTIONS else "name",
                            word))
                i = m.end()
                continue
            if not self.myriad and c in _LETTERS:
                out.append(("name", c.upper()))
            elif c in _PRIORITY or c in "()":
                out.append(("op" if c in _PRIORITY else c, c))
            else:
                msg = f"Unknown token {c} in {text}"
                raise ValueError(msg)
            i += 1
        return out

    def _parse(self) -> list[tuple[str, Number | str]]:
        """The shunting-yard output, in postfix order; numbers already converted."""
        out: list[tuple[str, Number | str]] = []
        stack: list[tuple[str, str]] = []
        for kind, tok in self._tokens():
            if kind in ("num", "name"):
                out.append((kind, self._literal(tok) if kind == "num" else tok))
            elif kind in ("fn", "("):
                stack.append((kind, tok))
            elif kind == "op":
                while stack and (stack[-1][0] == "fn" or stack[-1][0] == "op"
                                 and _PRIORITY[stack[-1][1]] >= _PRIORITY[tok]):
                    out.append(stack.pop())
                stack.append((kind, tok))
            else:
                while stack and stack[-1][0] != "(":
                    out.append(stack.pop())
                if not stack:
                    raise ValueError(f"Mismatched parentheses in {self.text}")
                stack.pop()
        while stack:
            if stack[-1][0] == "(":
                raise ValueError(f"Mismatched parentheses in {self.text}")
            out.append(stack.pop())
        return out

    def _literal(self, tok: str) -> Number:
        if not self.myriad:
            if int(tok) >= 2**31:
                raise ValueError(f"{tok} is out of int range (std::stoi throws)")
            return int(tok)
        value = plugin_number(tok)
        if value is None:
            raise ValueError(f"Failed to convert string to number: '{tok}'")
        return value

    def names(self) -> set[str]:
        return {str(v) for kind, v in self._rpn if kind == "name"}

    def legal(self, attrs: Mapping[str, str]) -> str | None:
        """None when every name is B, F, Y, X or a numeric attribute in attrs (the MYRIAD
        plugin then may choose the binding), else why not."""
        unknown = sorted(n for n in self.names() if self._variable(n, {}, attrs) is None)
        if unknown:
            return (f"'{unknown[0]}' in '{self.text}' is neither B, F, Y, X nor an attribute of "
                    f"the layer holding a number (the plugin: Unknown token {unknown[0][-1]})")
        return None

    def _variable(self, name: str, dims: Mapping[str, int],
                  attrs: Mapping[str, str]) -> Number | None:
        if name in attrs:  # an attribute named like a dim wins, as in calcSizesFromParams
            return plugin_number(attrs[name])
        if name.upper() in "BFYX" and len(name) == 1:
            return int(dims.get(name.upper(), 1))
        return None

    def evaluate(self, dims: Mapping[str, int], attrs: Mapping[str, str] | None = None) -> int:
        """The value as an int; names other than B F Y X are IR attributes (MYRIAD only)."""
        values: list[Number] = []
        for kind, tok in self._rpn:
            if kind == "num":
                values.append(tok)  # type: ignore[arg-type]
            elif kind == "name":
                value = self._variable(str(tok), dims, (attrs or {}) if self.myriad else {})
                if value is None:
                    raise ValueError(self.legal(attrs or {}))
                values.append(value)
            elif kind == "fn":
                if not values:
                    raise ValueError("Illegal expression: not enough values for function "
                                     "evaluation")
                values.append(_f32(_FUNCTIONS[str(tok)](_f32(values.pop()))))
            else:
                if len(values) < 2:
                    raise ValueError("Illegal expression: not enough values for operator "
                                     "evaluation (there is no unary + or -)")
                b, a = values.pop(), values.pop()
                values.append(_apply(str(tok), a, b))
        if len(values) != 1:
            raise ValueError("Illegal expression: not enough operators (a value next to a "
                             "value, or an empty rule)")
        result = values[0]
        if isinstance(result, float):
            if not math.isfinite(result) or abs(result) >= 2**31:
                raise ValueError(f"{result} is no int (the plugin's conversion is undefined)")
            return int(result)
        return result

    def __repr__(self) -> str:
        return f"Expression({self.text!r})"


def parse_list(text: str | None, attributes: bool = False) -> list[Expression]:
    """A comma-separated list of up to three rules ('' or None -> [])."""
    if text is None or not text:
        return []
    parts = [Expression(p, attributes) for p in text.split(",")]
    if len(parts) > 3:
        msg = f"'{text}' has {len(parts)} sizes, at most 3 (OpenCL's work dimensions)"
        raise ValueError(msg)
    return parts
