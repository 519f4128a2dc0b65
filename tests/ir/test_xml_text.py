"""The IR writer's own XML serializer writes what ElementTree's indent + tostring wrote."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from converter.ir import writer


def _tree() -> ET.Element:
    layer = ET.Element("layer", id="3", name='a&b <"c">\n\t\rz', type="Add")
    ET.SubElement(layer, "data", {"note": "x > y & 'q'"})
    port = ET.SubElement(ET.SubElement(layer, "input"), "port", id="0")
    for dim in ("1", "16", "a<b&c>"):
        ET.SubElement(port, "dim").text = dim
    ET.SubElement(layer, "empty")
    ET.SubElement(layer, "rt_info")
    return layer


def test_serialize_matches_elementtree() -> None:
    for level in (0, 2):
        lines: list[str] = []
        writer._serialize(_tree(), level, lines.append)
        expected = _tree()
        ET.indent(expected, space="  ", level=level)
        assert "".join(lines) == f"{'  ' * level}{ET.tostring(expected, encoding='unicode')}\n"
