"""MXNet node attributes as MO's extractors read them: `get_mxnet_layer_attrs(node.symbol_dict)`
returns an AttrDictionary with typed getters over the strings the symbol JSON holds
("(3, 3)", "True", "0.001", "None").

    attrs = get_mxnet_layer_attrs(node.symbol_dict)
    kernel = attrs.tuple("kernel", int, (1, 1))
    eps = attrs.float("eps", 1e-3)
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

__all__ = ["AttrDictionary", "get_mxnet_layer_attrs", "parse_tuple"]

_TRUE = {"true", "1", "yes"}
_FALSE = {"false", "0", "no"}
_NONE = {"none", "null", ""}


def parse_tuple(text: str, valtype: type = str) -> tuple:
    """'(3, 3)', '[2,2]', '(2,)', '3', '()' -> a tuple of valtype; 'None' -> ()."""
    body = text.strip()
    if body.lower() in _NONE:
        return ()
    if body[:1] in "([" and body[-1:] in ")]":
        body = body[1:-1]
    items = [p.strip() for p in body.split(",")]
    items = [p for p in items if p]
    if valtype is int:
        return tuple(int(float(p)) if p.lower() not in _NONE else None for p in items)
    if valtype is bool:
        return tuple(p.lower() in _TRUE for p in items)
    return tuple(valtype(p) if p.lower() not in _NONE else None for p in items)


class AttrDictionary:
    """Typed reads of one node's attribute strings; a missing or "None" value gives default."""

    def __init__(self, attrs: dict[str, Any] | None) -> None:
        self._dict = dict(attrs or {})

    def dict(self) -> dict[str, Any]:
        return self._dict

    def has(self, key: str) -> bool:
        return key in self._dict

    def set(self, key: str, value: Any) -> None:
        self._dict[key] = value

    def remove(self, key: str) -> None:
        self._dict.pop(key, None)

    def _raw(self, key: str) -> Any:
        value = self._dict.get(key)
        if isinstance(value, str) and value.strip().lower() in ("none", "null"):
            return None
        return value

    def str(self, key: str, default: Any = None) -> Any:
        value = self._dict.get(key)
        return default if value is None else value

    def val(self, key: str, valtype: type, default: Any = None) -> Any:
        value = self._raw(key)
        if value is None or value == "":
            return default
        if valtype is builtins.int and isinstance(value, builtins.str):
            return builtins.int(builtins.float(value))
        return valtype(value)

    def int(self, key: str, default: Any = None) -> Any:
        return self.val(key, builtins.int, default)

    def float(self, key: str, default: Any = None) -> Any:
        return self.val(key, builtins.float, default)

    def bool(self, key: str, default: Any = None) -> Any:
        value = self._raw(key)
        if value is None:
            return default
        if isinstance(value, builtins.str):
            text = value.strip().lower()
            if text in _TRUE:
                return True
            if text in _FALSE:
                return False
            msg = f"attribute '{key}': '{value}' is not a boolean"
            raise ValueError(msg)
        return builtins.bool(value)

    def tuple(self, key: str, valtype: type = builtins.str, default: Any = None) -> Any:
        value = self._raw(key)
        if value is None:
            return default
        if isinstance(value, builtins.str):
            parsed = parse_tuple(value, valtype)
            if not parsed and default is not None:
                return builtins.tuple(valtype(v) for v in default)
            return parsed
        if isinstance(value, (builtins.list, builtins.tuple)):
            return builtins.tuple(valtype(v) for v in value)
        return (valtype(value),)

    def list(self, key: str, valtype: type = builtins.str, default: Any = None,
             sep: str = ",") -> Any:
        value = self._raw(key)
        if value is None:
            return default
        if isinstance(value, builtins.str):
            body = value.strip().strip("()[]")
            return [valtype(p.strip()) for p in body.split(sep) if p.strip()]
        return [valtype(v) for v in value]

    def dtype(self, key: str, default: Any = None) -> Any:
        value = self._raw(key)
        if value is None:
            return default
        return np.dtype(value)


def get_mxnet_layer_attrs(json_dic: dict) -> AttrDictionary:
    """The attributes of a symbol-JSON node: 'attrs' (MXNet >= 1.0), 'attr' or 'param' (older)."""
    for key in ("attrs", "attr", "param"):
        if key in json_dic:
            return AttrDictionary(json_dic.get(key) or {})
    return AttrDictionary({})
