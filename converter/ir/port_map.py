"""A sub-graph op's port_map entries <-> PortRules: the IR names an op port by its port id
(inputs first, then outputs) and a body Parameter/Result by its layer id."""

from __future__ import annotations

from collections.abc import Hashable

from converter.ops.control._body import PortRule

__all__ = ["BODIES", "map_tag", "rule_attrs", "rule_of"]

BODIES = ("body", "then_body", "else_body")  # the element names of sub-graph bodies
_SLICING = ("axis", "start", "end", "stride", "part_size")


def map_tag(body: str) -> str:
    """The port map element of a body: port_map, then_port_map, else_port_map."""
    return "port_map" if body == "body" else body.replace("_body", "_port_map")


def rule_attrs(rule: PortRule, port: int, layer: int) -> dict[str, str]:
    """The attributes of one <input>/<output> entry of a port map."""
    attrs = {"external_port_id": str(port), "internal_layer_id": str(layer)}
    if rule.axis is not None:
        attrs.update({key: str(getattr(rule, key)) for key in _SLICING})
    if rule.purpose:
        attrs["purpose"] = rule.purpose
    return attrs


def rule_of(attrs: dict[str, str], external: int, internal: Hashable) -> PortRule:
    """The PortRule of an entry, given the op input/output index its port id stands for."""
    slicing = {key: int(attrs[key]) for key in _SLICING if key in attrs}
    return PortRule(external, internal, purpose=attrs.get("purpose"), **slicing)
