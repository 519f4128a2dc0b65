"""IR attribute strings -> an op's typed values: the one parser the converter, the shim and
OpenVINO Python ops share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from converter.errors import ModelFormatError
from converter.ir.types import parse_attr

__all__ = ["AttrSchema", "typed_attrs"]


class AttrSchema(Protocol):
    """What an Op class declares about its attributes."""

    defaults: dict[str, Any]
    attr_types: dict[str, str]


def typed_attrs(schema: AttrSchema, values: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The schema's defaults updated with values: a string of an attribute whose kind is known
    is parsed to that kind, anything else is kept as given. A malformed string raises
    ModelFormatError naming `where` (a layer or node)."""
    out = dict(schema.defaults)
    for key, value in values.items():
        kind = schema.attr_types.get(key)
        if kind is None or not isinstance(value, str):
            out[key] = value
            continue
        try:
            out[key] = parse_attr(value, kind)
        except ValueError as err:
            msg = f"{where}: attribute {key}='{value}' is malformed ({err})"
            raise ModelFormatError(msg) from None
    return out
