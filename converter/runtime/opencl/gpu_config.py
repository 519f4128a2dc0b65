"""SimpleGPU custom-kernel XML as OpenVINO's intel_gpu plugin reads it
(src/plugins/intel_gpu/src/plugin/custom_layer.cpp, 2022.1 to today): the layers of one config
file, and several files merged into the one CONFIG_FILE the plugin takes."""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from converter.runtime.opencl.config import (
    WorkSizes,
    XmlElement,
    fail,
    int_attr,
    read_elements,
    source_files,
    work_exprs,
)

__all__ = ["GpuDefine", "GpuLayer", "GpuTensor", "load_gpu", "merge_gpu"]

_DEFINE_TYPES = ("int", "float", "int[]", "float[]")
# the GPU parser's format table (FormatFromString): these spellings exactly
_GPU_FORMATS = {f: f.upper() for name in ("BFYX", "BYXF", "FYXB", "YXFB", "ANY")
                for f in (name, name.lower())}


@dataclass(frozen=True)
class GpuTensor:
    arg_index: int
    kind: str  # input | output
    port: int
    format: str


@dataclass(frozen=True)
class GpuDefine:
    name: str
    type: str
    param: str
    default: str


@dataclass
class GpuLayer:
    """One `<CustomLayer type="SimpleGPU">`."""

    name: str
    entry: str
    sources: list[Path]
    defines: list[GpuDefine]
    tensors: list[GpuTensor]
    data: list[tuple[str, int]]  # (blob name, arg-index)
    options: str
    work: WorkSizes
    config: Path
    line: int


def _gpu_header(path: Path, el: XmlElement) -> str:
    if el.tag != "CustomLayer":
        raise fail(path, el, f"Wrong node! expected: CustomLayer found: {el.tag}")
    if el.get("type", "") != "SimpleGPU":
        msg = f"Wrong attribute value! expected: SimpleGPU found: {el.get('type', '')}"
        raise fail(path, el, msg)
    if el.get("version", "").strip() != "1":
        raise fail(path, el, f"Wrong attribute value! expected: 1 found: {el.get('version', '')}")
    name = el.get("name", "")
    if not name:
        raise fail(path, el, "Missing Layer name in CustomLayer")
    return name


def _child(path: Path, layer: XmlElement, tag: str) -> XmlElement:
    """The first `tag` child (the parser reads only the first)."""
    node = layer.find(tag)
    if node is None:
        raise fail(path, layer, f"Wrong node! expected: {tag} found: (none)")
    return node


def _gpu_tensor(path: Path, el: XmlElement) -> GpuTensor:
    fmt = _GPU_FORMATS.get(el.get("format", "BFYX"))
    if fmt is None:
        raise fail(path, el, f"Tensor node has an invalid format: {el.get('format')}")
    index, port = int_attr(path, el, "arg-index", -1), int_attr(path, el, "port-index", -1)
    if index == -1:
        raise fail(path, el, "Tensor node has no arg-index")
    if port == -1:
        raise fail(path, el, "Tensor node has no port-index")
    kind = el.get("type", "")
    if kind not in ("input", "output"):
        raise fail(path, el, f"Tensor node has an invalid type: {kind}")
    return GpuTensor(index, kind, port, fmt)


def _gpu_dim(path: Path, el: XmlElement) -> tuple[str, int]:
    """`output` (or none), `input` or `input,N`: nothing else (ProcessWorkSizesNode)."""
    raw = el.get("dim", "")
    if raw in ("", "output"):
        return "output", 0
    flag, comma, index = raw.partition(",")
    if flag != "input":
        raise fail(path, el, f"Invalid WG dim source: {flag}")
    m = re.match(r"\s*([+-]?\d+)", index)  # std::stoi: leading blanks, then digits
    if comma and not m:
        raise fail(path, el, f"Invalid WG dim source index: '{index}' is not a number")
    port = int(m[1]) if m else 0
    if port < 0:
        raise fail(path, el, f"Invalid input tensor index: {port}")
    return "input", port


def _gpu_work(path: Path, el: XmlElement | None) -> WorkSizes:
    if el is None:
        return WorkSizes((), ())
    return WorkSizes(work_exprs(path, el, "global"), work_exprs(path, el, "local"),
                     _gpu_dim(path, el))


def _gpu_layer(path: Path, el: XmlElement, name: str) -> GpuLayer:
    kernel = _child(path, el, "Kernel")
    entry = kernel.get("entry", "")
    if not entry:
        raise fail(path, kernel, f"No Kernel entry in layer: {name}")
    sources = source_files(path, kernel, "<Kernel> has no <Source>")
    defines = []
    for d in kernel.findall("Define"):
        kind = d.get("type", "").strip()
        if kind and kind not in _DEFINE_TYPES:
            raise fail(path, d, f"Define type '{kind}' is not one of {', '.join(_DEFINE_TYPES)}")
        if not d.get("name", ""):
            raise fail(path, d, "Missing name for define node")
        defines.append(GpuDefine(d.get("name"), kind, d.get("param", ""), d.get("default", "")))
    buffers = _child(path, el, "Buffers")
    tensors = [_gpu_tensor(path, t) for t in buffers.findall("Tensor")]
    if not tensors:
        raise fail(path, buffers, "<Buffers> has no <Tensor>")
    data = []
    for d in buffers.findall("Data"):
        index = int_attr(path, d, "arg-index", -1)
        if index == -1:
            raise fail(path, d, "Data node has no arg-index")
        if not d.get("name", ""):
            raise fail(path, d, "Data node has no name")
        data.append((d.get("name", ""), index))
    options = el.find("CompilerOptions")
    return GpuLayer(name, entry, sources, defines, tensors, data,
                    options.get("options", "") if options is not None else "",
                    _gpu_work(path, el.find("WorkSizes")), path, el.line)


def load_gpu(path: str | Path) -> list[GpuLayer]:
    """The SimpleGPU layers of one config file; any other top-level element fails, as in the
    plugin (a later layer of the same name replaces an earlier one)."""
    path = Path(path).resolve()
    return [_gpu_layer(path, el, _gpu_header(path, el)) for el in read_elements(path)]


def merge_gpu(paths: list[Path], folder: Path) -> Path:
    """One SimpleGPU file in folder holding the layers of every config in paths (a later one of
    the same name wins, as in GpuDevice): the GPU plugin takes one CONFIG_FILE. Each Source is
    rewritten relative to folder, where the plugin then looks for it."""
    parts = []
    for path in (Path(p).resolve() for p in paths):
        for el in read_elements(path):
            _gpu_header(path, el)
            for source in el.iter("Source"):
                target = path.parent / source.get("filename", "")
                source.set("filename", os.path.relpath(target, folder))
            parts.append(ET.tostring(el, encoding="unicode"))
    merged = folder / "custom_layers.xml"
    merged.write_text("".join(parts) + "\n", encoding="utf-8")
    return merged
