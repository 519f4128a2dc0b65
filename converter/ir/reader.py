"""Read OpenVINO IR (v10/v11) .xml + .bin: layers, ports and edges, Consts mapped from the .bin."""

from __future__ import annotations

import math
import mmap
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element, ParseError

import numpy as np
from defusedxml import DefusedXmlException, ElementTree

from converter.errors import InputFileError, ModelFormatError
from converter.graph.shape import parse_shape
from converter.ir.packing import packed_size, unpack
from converter.ir.port_map import BODIES, map_tag, rule_of
from converter.ir.types import dtype_of, packed_bits
from converter.ops.control._body import PortMap

__all__ = ["IRLayer", "IRModel", "OutPort", "read_ir"]


@dataclass
class OutPort:
    id: int
    precision: str
    names: list[str]
    dims: tuple[int, ...]


@dataclass
class IRLayer:
    id: int
    name: str
    type: str
    version: str
    attrs: dict[str, str]
    inputs: list[int]  # port ids, in input order
    outputs: list[OutPort]
    rt_info: dict[str, dict[str, str]] = field(default_factory=dict)
    value: np.ndarray | None = None  # Const only
    bodies: dict[str, IRModel] = field(default_factory=dict)  # sub-graph ops: body, then_body..
    port_maps: dict[str, PortMap] = field(default_factory=dict)  # by body name


@dataclass
class IRModel:
    name: str
    version: int
    layers: dict[int, IRLayer]
    # (to_layer, to_port) -> (from_layer, from_port)
    edges: dict[tuple[int, int], tuple[int, int]]
    path: Path


def _dims(port: Element) -> tuple[int, ...]:
    return tuple(int(d.text or "-1") for d in port.findall("dim"))


def _names(text: str | None) -> list[str]:
    """Split a port's names on commas; the writer escapes a comma inside a name as \\,."""
    if not text:
        return []
    parts = re.split(r"(?<!\\),", text)
    return [p.replace("\\,", ",").strip() for p in parts if p.strip()]


def _layer_error(xml_path: Path, layer: IRLayer, what: str) -> ModelFormatError:
    """An error naming file:line of the layer (its first <layer id="N"> in the text)."""
    text = xml_path.read_text(errors="replace")
    found = re.search(rf'<layer\b[^>]*\bid="{layer.id}"', text)
    where = f"{xml_path}:{text.count(chr(10), 0, found.start()) + 1}" if found else str(xml_path)
    return ModelFormatError(f"{where}: layer {layer.id} '{layer.name}' ({layer.type}): {what}")


def _check_layer(layer: IRLayer, xml_path: Path) -> None:
    """Element types, shapes, offsets and sizes a layer's <data> must spell correctly."""
    a = layer.attrs
    if layer.type in ("Const", "Parameter") and "element_type" not in a:
        raise _layer_error(xml_path, layer, "has no element_type")
    try:
        if "element_type" in a:
            dtype_of(a["element_type"])
        if "shape" in a:
            parse_shape(a["shape"])
    except ValueError as err:
        raise _layer_error(xml_path, layer, str(err)) from None
    for key in ("offset", "size") if layer.type == "Const" else ():
        if not re.fullmatch(r"[0-9]+", a.get(key, "0")):
            raise _layer_error(xml_path, layer, f"{key} '{a[key]}' is not a non-negative integer")


def _const_value(layer: IRLayer, weights, bin_path: Path) -> np.ndarray:
    a = layer.attrs
    dtype = dtype_of(a["element_type"])
    shape = parse_shape(a.get("shape", ""))
    if any(d < 0 for d in shape):
        msg = f"{bin_path}: Const '{layer.name}' has a dynamic or negative shape {list(shape)}"
        raise ModelFormatError(msg)
    offset, size = int(a.get("offset", 0)), int(a.get("size", 0))
    count = math.prod(shape)
    if offset + size > len(weights):
        msg = (
            f"{bin_path}: the .bin is shorter than the IR's offsets (Const '{layer.name}' needs "
            f"bytes {offset}..{offset + size}, the file has {len(weights)}); regenerate the IR"
        )
        raise ModelFormatError(msg)
    bits = packed_bits(dtype)
    need = count * dtype.itemsize if bits is None else packed_size(count, bits)
    if size < need:
        msg = f"{bin_path}: Const '{layer.name}' has size {size} but shape {shape} needs {need}"
        raise ModelFormatError(msg)
    if bits is not None:
        data = np.frombuffer(weights, dtype=np.uint8, count=need, offset=offset)
        return unpack(data, bits, dtype, count).reshape(shape)
    return np.frombuffer(weights, dtype=dtype, count=count, offset=offset).reshape(shape)


def _layer(el: Element) -> IRLayer:
    data = el.find("data")
    rt = {
        a.get("name", ""): dict(a.attrib) for a in el.findall("rt_info/attribute")
    }
    return IRLayer(
        id=int(el.get("id")), name=el.get("name", ""), type=el.get("type", ""),
        version=el.get("version", ""), attrs=dict(data.attrib) if data is not None else {},
        inputs=[int(p.get("id")) for p in el.findall("input/port")],
        outputs=[
            OutPort(int(p.get("id")), p.get("precision", ""), _names(p.get("names")), _dims(p))
            for p in el.findall("output/port")
        ],
        rt_info=rt,
    )


def _check_edges(layers: dict[int, IRLayer], edges: dict, xml_path: Path) -> None:
    """Every edge joins an output port of one layer to an input port of another."""
    for (to_layer, to_port), (from_layer, from_port) in edges.items():
        src, dst = layers.get(from_layer), layers.get(to_layer)
        if src is None or from_port not in [p.id for p in src.outputs]:
            msg = (f"{xml_path}: an edge comes from layer {from_layer} port {from_port}, "
                   "which does not exist")
            raise ModelFormatError(msg)
        if dst is None or to_port not in dst.inputs:
            msg = (f"{xml_path}: an edge goes to layer {to_layer} port {to_port}, "
                   "which does not exist")
            raise ModelFormatError(msg)


def _layers(root: Element, xml_path: Path) -> dict[int, IRLayer]:
    layers: dict[int, IRLayer] = {}
    for el in root.findall("layers/layer"):
        layer = _layer(el)
        if layer.id in layers:
            first = layers[layer.id].name
            msg = f"{xml_path}: duplicate layer id {layer.id} ('{first}' and '{layer.name}')"
            raise ModelFormatError(msg)
        layers[layer.id] = layer
    return layers


def _map_weights(bin_path: Path) -> Any:
    """The .bin mapped read-only (no copy)."""
    try:
        with open(bin_path, "rb") as f:
            size = f.seek(0, 2)
            return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
    except OSError as err:
        msg = f"{bin_path}: cannot read the IR's weights ({err.strerror})"
        raise InputFileError(msg) from None


def _port_map(el: Element, layer: IRLayer, name: str, xml_path: Path) -> PortMap:
    """The port map of body `name` (op port ids as input/output indices, layer ids as is)."""
    tag = map_tag(name)
    ports = {"input": layer.inputs, "output": [p.id for p in layer.outputs]}
    inner = {"input": "Parameter", "output": "Result"}
    body = layer.bodies[name].layers
    port_map = PortMap()
    for kind, rules in (("input", port_map.inputs), ("output", port_map.outputs)):
        for entry in el.findall(f"{tag}/{kind}"):
            port, internal = int(entry.get("external_port_id")), int(entry.get("internal_layer_id"))
            if (port >= 0 and port not in ports[kind]) or getattr(
                    body.get(internal), "type", None) != inner[kind]:
                msg = (f"{xml_path}: layer '{layer.name}' ({layer.type}): {tag} joins "
                       f"port {port} to body layer {internal}; it takes one of the layer's "
                       f"{kind} ports (or -1) and a {inner[kind]} of the body")
                raise ModelFormatError(msg)
            external = ports[kind].index(port) if port >= 0 else -1
            rules.append(rule_of(entry.attrib, external, internal))
    if name == "body":
        port_map.back_edges = [(int(e.get("from-layer")), int(e.get("to-layer")))
                               for e in el.findall("back_edges/edge")]
    return port_map


class _Weights:
    """The .bin, mapped on first use (an IR without Consts needs none)."""

    def __init__(self, bin_path: Path) -> None:
        self.path, self._data = bin_path, None

    def get(self) -> Any:
        if self._data is None:
            if not self.path.is_file():
                msg = f"{self.path}: the IR's weights file is missing (it must sit beside the .xml)"
                raise InputFileError(msg)
            self._data = _map_weights(self.path)
        return self._data


MAX_BODY_DEPTH = 64  # sub-graph bodies within bodies


def _bodies(root: Element, layers: dict[int, IRLayer], xml_path: Path, weights: _Weights,
            version: int, depth: int) -> None:
    for el in root.findall("layers/layer"):
        layer = layers[int(el.get("id"))]
        for name in BODIES:
            sub = el.find(name)
            if sub is None:
                continue
            if depth >= MAX_BODY_DEPTH:
                msg = (f"{xml_path}: layer '{layer.name}' nests sub-graph bodies more than "
                       f"{MAX_BODY_DEPTH} deep")
                raise ModelFormatError(msg)
            layer.bodies[name] = _net(sub, xml_path, weights, layer.name, version, depth + 1)
            layer.port_maps[name] = _port_map(el, layer, name, xml_path)


def _net(root: Element, xml_path: Path, weights: _Weights, name: str, version: int,
         depth: int = 0) -> IRModel:
    """One <net> or sub-graph body: layers (bodies within), edges, Consts from the .bin."""
    try:
        layers = _layers(root, xml_path)
        edges = {
            (int(e.get("to-layer")), int(e.get("to-port"))):
            (int(e.get("from-layer")), int(e.get("from-port")))
            for e in root.findall("edges/edge")
        }
        _bodies(root, layers, xml_path, weights, version, depth)
    except (TypeError, ValueError) as err:
        msg = f"{xml_path}: malformed layer or edge ({err})"
        raise ModelFormatError(msg) from None
    for layer in layers.values():
        _check_layer(layer, xml_path)
    _check_edges(layers, edges, xml_path)
    for layer in (lay for lay in layers.values() if lay.type == "Const"):
        layer.value = _const_value(layer, weights.get(), weights.path)
    return IRModel(name, version, layers, edges, xml_path)


def read_ir(xml_path: str | Path, bin_path: str | Path | None = None) -> IRModel:
    """Parse the IR; one clear error for malformed XML, a missing or short .bin."""
    xml_path = Path(xml_path)
    bin_path = Path(bin_path) if bin_path else xml_path.with_suffix(".bin")
    if not xml_path.is_file():
        msg = f"{xml_path}: no such IR file"
        raise InputFileError(msg)
    try:
        root = ElementTree.parse(str(xml_path)).getroot()
    except ParseError as err:
        line = err.position[0] if err.position else "?"
        msg = f"{xml_path}:{line}: malformed IR XML ({err.msg if hasattr(err, 'msg') else err})"
        raise ModelFormatError(msg) from None
    except DefusedXmlException as err:
        msg = f"{xml_path}: IR XML must not declare a DTD or entities ({err})"
        raise ModelFormatError(msg) from None
    except OSError as err:
        msg = f"{xml_path}: cannot read the IR ({err.strerror})"
        raise InputFileError(msg) from None
    if root.tag != "net":
        msg = f"{xml_path}: not an OpenVINO IR (its root element is not <net>)"
        raise ModelFormatError(msg)
    version = root.get("version", "11")
    if not version.isdigit():
        raise ModelFormatError(f"{xml_path}: IR version '{version}' is not a number")
    return _net(root, xml_path, _Weights(bin_path), root.get("name", xml_path.stem), int(version))
