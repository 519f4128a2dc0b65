"""MO's mo.utils.runtime_info: a node's runtime-info attributes as objects (RTInfo holds
(name, version) -> element). The IR writer reads a node's 'rt_info' as name -> attributes, which
RTInfo also answers (items())."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import numpy as np

from converter.legacy.datatypes import np_data_type_to_destination_type

__all__ = ["OldAPIMapElementType", "OldAPIMapOrder", "RTInfo", "RTInfoElement"]


class RTInfoElement:
    """One runtime-info attribute: a name, a version and what it serializes to."""

    name = ""

    def __init__(self, version: int = 0) -> None:
        self.info: dict[str, Any] = defaultdict(dict)
        self.version = version

    def serialize(self, node: Any = None) -> dict[str, str]:
        return {}

    def get_version(self) -> int:
        return self.version

    def get_name(self) -> str:
        return self.name


def _joined(values: Any) -> dict[str, str]:
    return {"value": ",".join(str(v) for v in values)}


class OldAPIMapOrder(RTInfoElement):
    """The transpose that gives the old API's layout: inverse order at a Parameter, order at a
    Result."""

    name = "old_api_map_order"

    def old_api_transpose_parameter(self, inv: Any) -> None:
        self.info["inverse_order"] = inv

    def old_api_transpose_result(self, order: Any) -> None:
        self.info["order"] = order

    def serialize(self, node: Any = None) -> dict[str, str]:
        kind = node.soft_get("type") if node is not None else None
        for key, owner in (("inverse_order", "Parameter"), ("order", "Result")):
            if key in self.info and kind in (None, owner):
                return _joined(self.info[key])
        return {}


class OldAPIMapElementType(RTInfoElement):
    """The element type the old API saw."""

    name = "old_api_map_element_type"

    def set_legacy_type(self, legacy_type: np.dtype) -> None:
        self.info["legacy_type"] = legacy_type

    def serialize(self, node: Any = None) -> dict[str, str]:
        if "legacy_type" not in self.info:
            return {}
        return {"value": np_data_type_to_destination_type(self.info["legacy_type"])}


class RTInfo:
    """A node's runtime info: info[(name, version)] = RTInfoElement."""

    def __init__(self) -> None:
        self.info: dict[tuple[str, int], Any] = defaultdict(dict)

    def contains(self, attribute_name: str) -> bool:
        count = [name for name, _ in self.info].count(attribute_name)
        assert count <= 1, f"Incorrect rt_info attribute, got more than one {attribute_name}."
        return count > 0

    def get_attribute_version(self, attribute_name: str) -> int:
        for name, version in self.info:
            if name == attribute_name:
                return version
        msg = f"rt_info does not contain attribute with name {attribute_name}"
        raise Exception(msg)  # noqa: TRY002  (MO's own exception type)

    def items(self) -> Iterator[tuple[str, dict[str, str]]]:
        """name -> serialized attributes, as the IR writer reads a node's rt_info."""
        for (name, _), element in self.info.items():
            attrs = element.serialize() if isinstance(element, RTInfoElement) else element
            if attrs:
                yield name, attrs

    def __bool__(self) -> bool:
        return any(True for _ in self.items())
