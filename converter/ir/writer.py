"""Write the back-stage graph as OpenVINO IR v11: model.xml + model.bin, never mixed.

Layer ids follow a topological order; each layer numbers its input ports first and its output
ports after them; Const values go to the .bin once per distinct content.
"""

from __future__ import annotations

import hashlib
import io
import mmap
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO
from xml.sax.saxutils import quoteattr

import numpy as np

from converter.errors import ConversionError, OutputError, UnsupportedOpError
from converter.files import write_pair
from converter.graph.graph import Graph, Node
from converter.graph.shape import as_shape
from converter.ir.lock import ir_name_lock
from converter.ir.packing import pack
from converter.ir.port_map import map_tag, rule_attrs
from converter.ir.types import element_type, format_attr, packed_bits, precision
from converter.ir.validate import validate_graph
from converter.ops.op import Op

__all__ = ["emit_ir"]

_F16_MAX = float(np.finfo(np.float16).max)


_CHUNK = 1 << 22  # elements converted and written at a time


def _release(value: np.ndarray) -> None:
    """Drop the pages of the file a memory-mapped value came from (ONNX external data) from
    this process's memory: each is read once, and a model's weights may not fit twice."""
    base = value
    while base is not None:
        mapping = getattr(base, "_mmap", None)
        if mapping is not None and hasattr(mapping, "madvise"):
            mapping.madvise(mmap.MADV_DONTNEED)
            return
        base = getattr(base, "base", None)


class _BinWriter:
    """Appends constant blobs to the .bin, each distinct content once, streamed in chunks
    (with the float16 conversion of --compress_to_fp16 done chunk by chunk)."""

    def __init__(self, f: BinaryIO) -> None:
        self.f, self.offset, self.seen = f, 0, {}

    def add(self, value: np.ndarray, as_f16: bool = False) -> tuple[int, int]:
        bits = packed_bits(value.dtype)
        flat = np.ascontiguousarray(value if bits is None else pack(value, bits)).reshape(-1)
        digest, size = hashlib.sha256(), 0
        for start in range(0, flat.size, _CHUNK):
            chunk = flat[start:start + _CHUNK]
            if as_f16:
                chunk = np.clip(chunk, -_F16_MAX, _F16_MAX).astype(np.float16)
            view = memoryview(chunk.view(np.uint8))  # bytes of any dtype (bfloat16 too)
            digest.update(view)
            self.f.write(view)
            size += chunk.nbytes
        _release(value)
        key = (digest.digest(), size)
        if key in self.seen:  # the same bytes are already in the .bin: take them back
            self.f.seek(self.offset)
            self.f.truncate()
        else:
            self.seen[key] = self.offset
            self.offset += size
        return self.seen[key], size


def _dims(parent: ET.Element, shape: Any) -> None:
    for d in as_shape(shape) or ():  # as_shape: MO's masked shapes from legacy extensions too
        ET.SubElement(parent, "dim").text = str(d)




def _data_attrs(node: Node, bin_writer: _BinWriter) -> dict[str, str]:
    if node.soft_get("type") == "Const":
        value = np.asarray(node.value)
        as_f16 = bool(node.soft_get("store_as_f16", False))  # --compress_to_fp16
        offset, size = bin_writer.add(value, as_f16)
        return {
            "element_type": element_type(np.dtype(np.float16) if as_f16 else value.dtype),
            "shape": ",".join(str(d) for d in value.shape),
            "offset": str(offset),
            "size": str(size),
        }
    cls = Op.of_node(node)
    kinds = cls.attr_types if cls is not None else {}
    spec = node.soft_get("IE", None)
    if spec is None:
        spec = list(kinds)
    out: dict[str, str] = {}
    for item in spec:
        if isinstance(item, str):
            name, value = item, node.soft_get(item, None)
        else:
            name, getter = item
            value = getter(node) if callable(getter) else node.soft_get(getter, None)
        if value is None:
            continue
        out[name] = value if isinstance(value, str) else format_attr(value, kinds.get(name))
    return out


def _rt_info(parent: ET.Element, info: dict[str, Any]) -> None:
    if not info:
        return
    rt = ET.SubElement(parent, "rt_info")
    for name, attrs in info.items():
        ET.SubElement(rt, "attribute", name=name, version="0", **{
            k: str(v) for k, v in (attrs or {}).items()
        })


def _version(node: Node) -> str:
    """The node's version; a built-in op's as its attributes now have it (a pass may have set
    one that only the newer version has)."""
    cls = Op.of_node(node)
    if cls is not None and cls.version is not None:
        return str(cls.version_for(node.attrs()))
    return str(node.soft_get("version", None) or "extension")


def _layer(node: Node, lid: int, bin_writer: _BinWriter, sources: dict) -> ET.Element:
    """The <layer> of node; records (lid, port id) of each output under its data node id in
    sources."""
    graph = node.graph
    layer = ET.Element("layer", id=str(lid), name=str(node.soft_get("name", node.id)),
                       type=str(node.type),
                       version=_version(node))
    attrs = _data_attrs(node, bin_writer)
    if attrs:
        ET.SubElement(layer, "data", attrs)
    _rt_info(layer, node.soft_get("rt_info", None) or {})
    ins = _inputs(graph, node.id)
    outs = sorted(((d["out"], v) for _, v, d in graph.out_data(node.id)))
    port_ids: dict[tuple[str, int], int] = {}
    pid = 0
    if ins:
        inp = ET.SubElement(layer, "input")
        for idx, data in ins:
            port = ET.SubElement(inp, "port", id=str(pid))
            _dims(port, graph.nodes[data].get("shape"))
            port_ids["in", idx] = pid
            pid += 1
    if outs:
        out = ET.SubElement(layer, "output")
        for idx, data in outs:
            d = graph.nodes[data]
            dtype = d.get("data_type")
            if dtype is None and d.get("value") is not None:
                dtype = np.asarray(d["value"]).dtype
            if dtype is None:
                msg = f"no element type known for output {idx} of '{node.soft_get('name')}'"
                raise ConversionError(msg)
            port = ET.SubElement(out, "port", id=str(pid), precision=precision(dtype))
            names = node._port_view("out").get(idx, {}).get("fw_tensor_debug_info", [])
            if names:
                port.set("names", ",".join(t.replace(",", "\\,") for _, t in names))
            shape = d.get("shape")
            if shape is None and d.get("value") is not None:
                shape = np.asarray(d["value"]).shape
            _dims(port, shape)
            _rt_info(port, node._port_view("out").get(idx, {}).get("rt_info"))  # e.g. layout
            port_ids["out", idx] = pid
            sources[data] = (lid, pid)
            pid += 1
    if node.has_valid("bodies"):
        _bodies(layer, node, bin_writer, port_ids)
    return layer


def _inputs(graph: Graph, nid: str) -> list[tuple[int, str]]:
    """(input index, data node) of each input of op nid, by index: input port ids count up."""
    return sorted((d["in"], u) for u, _, d in graph.in_data(nid))


def _check_supported(graph: Graph, ops: list[str]) -> None:
    bad: dict[str, list[str]] = {}
    for node in (Node(graph, nid) for nid in ops):
        if not node.has_valid("type"):
            bad.setdefault(node.soft_get("op", "?"), []).append(node.soft_get("name", node.id))
    if bad:
        listed = "; ".join(f"{op} ({', '.join(names[:5])})" for op, names in sorted(bad.items()))
        msg = (f"these ops have no IR type and cannot be written to the IR: {listed}; give their "
               "Op class a 'type' (and 'version')")
        raise UnsupportedOpError(msg, bad)


_ATTR_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\r": "&#13;",
                 "\n": "&#10;", "\t": "&#09;"}
_ATTR_TABLE = str.maketrans(_ATTR_ESCAPES)
_TEXT_TABLE = str.maketrans({k: _ATTR_ESCAPES[k] for k in "&<>"})
_SPECIAL = re.compile('[&<>"\r\n\t]')


def _escape(text: str, table: dict) -> str:
    return text.translate(table) if _SPECIAL.search(text) else text


def _serialize(element: ET.Element, level: int, write: Callable[[str], Any]) -> None:
    """Write element `level` deep, two spaces a level, as ET.indent and ET.tostring would
    (an element holds text or children): straight to the file, one line at a time."""
    pad, tag, attrib = "  " * level, element.tag, element.attrib
    attrs = ""
    if attrib:  # <dim>s have none
        attrs = "".join([f' {k}="{_escape(v, _ATTR_TABLE)}"' for k, v in attrib.items()])
    if len(element):
        write(f"{pad}<{tag}{attrs}>\n")
        for child in element:
            _serialize(child, level + 1, write)
        write(f"{pad}</{tag}>\n")
    elif element.text:
        write(f"{pad}<{tag}{attrs}>{_escape(element.text, _TEXT_TABLE)}</{tag}>\n")
    else:
        write(f"{pad}<{tag}{attrs} />\n")


def _ops(graph: Graph) -> list[str]:
    """The op node ids in layer id order (ids, not Nodes: 5 MiB on 100k nodes): topological,
    with the Results last, those of the model's outputs in its output order (OpenVINO numbers
    a model's outputs by their layers' ids) after any others (Kaldi's state outputs, first as
    MO put them)."""
    ops = [n for n in graph.topological_ids() if graph.nodes[n].get("kind") == "op"]
    _check_supported(graph, ops)
    order = {name: i for i, name in enumerate(graph.graph.get("output_order") or [])}
    if not order:
        return ops
    results = [n for n in ops if graph.nodes[n].get("op") == "Result"]

    def position(nid: str) -> int:
        source = Node(graph, nid).in_port(0).get_source()
        names = source.get_tensor_names() if source is not None else []
        return min((order[n] for n in names if n in order), default=-1)

    kept = set(results)
    return [n for n in ops if n not in kept] + sorted(results, key=position)


def _edges(graph: Graph, ops: list[str], sources: dict) -> Iterator[dict[str, str]]:
    """The <edge> attributes of graph, by destination layer and port: each op's inputs (ops
    in layer id order) from the output port that produced their data."""
    for lid, nid in enumerate(ops):
        for pid, (_, data) in enumerate(_inputs(graph, nid)):
            if data in sources:
                src_lid, src_pid = sources[data]
                yield {"from-layer": str(src_lid), "from-port": str(src_pid),
                       "to-layer": str(lid), "to-port": str(pid)}


def _fill(parent: ET.Element, graph: Graph, bin_writer: _BinWriter) -> dict[str, int]:
    """<layers> and <edges> of a body graph under parent; returns the layer id of each op."""
    layers = ET.SubElement(parent, "layers")
    ops = _ops(graph)
    sources: dict[str, tuple[int, int]] = {}
    for lid, nid in enumerate(ops):
        layers.append(_layer(Node(graph, nid), lid, bin_writer, sources))
    edges = ET.SubElement(parent, "edges")
    for attrs in _edges(graph, ops, sources):
        ET.SubElement(edges, "edge", attrs)
    return {nid: lid for lid, nid in enumerate(ops)}


def _bodies(layer: ET.Element, node: Node, bin_writer: _BinWriter, port_ids: dict) -> None:
    """A sub-graph op's port maps (IR port ids, body layer ids), back edges and bodies."""
    for name, body in node["bodies"].items():
        element = ET.Element(name)
        ids = _fill(element, body.graph, bin_writer)
        port_map = node["port_maps"][name]
        mapping = ET.SubElement(layer, map_tag(name))
        for kind, side, rules in (("input", "in", port_map.inputs),
                                  ("output", "out", port_map.outputs)):
            for rule in rules:
                port = -1 if rule.purpose else port_ids[side, rule.external]
                ET.SubElement(mapping, kind, rule_attrs(rule, port, ids[rule.internal]))
        if port_map.back_edges:
            back = ET.SubElement(layer, "back_edges")
            for res, param in port_map.back_edges:
                ET.SubElement(back, "edge", {"from-layer": str(ids[res]), "from-port": "0",
                                             "to-layer": str(ids[param]), "to-port": "0"})
        layer.append(element)


def build_xml(graph: Graph, bin_writer: _BinWriter, rt_info: dict[str, Any],
              write: Callable[[str], Any]) -> None:
    """Write the .xml text, each layer as soon as it is built: neither the tree nor the text
    ever sits in memory whole (on a 100k-node graph either would cost more than the graph)."""
    name = quoteattr(str(graph.graph.get("name", "model")))
    write(f"<?xml version='1.0' encoding='utf-8'?>\n<net name={name} version=\"11\">\n")
    write("  <layers>\n")
    ops = _ops(graph)
    sources: dict[str, tuple[int, int]] = {}
    for lid, nid in enumerate(ops):
        _serialize(_layer(Node(graph, nid), lid, bin_writer, sources), 2, write)
    write("  </layers>\n  <edges>\n")
    for attrs in _edges(graph, ops, sources):
        _serialize(ET.Element("edge", attrs), 2, write)
    write("  </edges>\n")
    _serialize(_net_rt_info(rt_info), 1, write)
    write("</net>")


def _net_rt_info(rt_info: dict[str, Any]) -> ET.Element:
    rt = ET.Element("rt_info")
    for key, value in rt_info.items():
        if isinstance(value, dict):
            group = ET.SubElement(rt, key)
            for k, v in value.items():
                ET.SubElement(group, k, value=str(v))
        else:
            ET.SubElement(rt, key, value=str(value))
    return rt


def emit_ir(
    graph: Graph, output_dir: Path, model_name: str, rt_info: dict[str, Any]
) -> tuple[Path, Path]:
    """Write <output_dir>/<model_name>.xml/.bin under the name's lock; a graph validate_graph
    refuses writes nothing. A failure while building or writing leaves the old pair untouched
    and no temporary file; once the renames start (the old .xml goes first, then the new .bin,
    the new .xml last) no failure or kill leaves an .xml beside a .bin other than its own."""
    validate_graph(graph)  # nothing the IR cannot state truthfully is written
    xml_path, bin_path = output_dir / f"{model_name}.xml", output_dir / f"{model_name}.bin"

    def write(bin_f: BinaryIO, xml_f: BinaryIO) -> None:
        text = io.TextIOWrapper(xml_f, encoding="utf-8", newline="\n")
        try:
            build_xml(graph, _BinWriter(bin_f), rt_info, text.write)
        finally:
            text.detach()  # flushed; xml_f stays open for write_pair to close

    try:
        with ir_name_lock(output_dir, model_name):
            write_pair(bin_path, xml_path, write)
    except OSError as err:
        msg = f"cannot write the IR to {output_dir}: {err.strerror or err}"
        raise OutputError(msg) from err
    return xml_path, bin_path
