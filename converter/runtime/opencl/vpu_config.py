"""MVCL custom-kernel XML as OpenVINO's MYRIAD plugin read it (2022.3:
src/plugins/intel_myriad/graph_transformer/src/frontend/custom_layer.cpp and custom_kernel.cpp,
the same rules as 2021.x): the kernels of one config file, each CustomLayer's in stage order."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from converter.runtime.opencl import launch
from converter.runtime.opencl.config import (
    WorkSizes,
    XmlElement,
    fail,
    int_attr,
    read_elements,
    source_files,
    work_exprs,
)
from converter.runtime.opencl.contract import VPU_FORMATS
from converter.runtime.opencl.expressions import Expression

__all__ = ["VpuData", "VpuScalarArg", "VpuStage", "VpuTensor", "load_vpu"]

_VPU_TENSOR_TYPES = ("input", "output", "input_buffer", "output_buffer", "data")


@dataclass(frozen=True)
class VpuTensor:
    arg_name: str
    kind: str  # input | output | input_buffer | output_buffer | data
    port: int
    format: str  # as the plugin names it: BFYX BYXF FYX YXF BF ANY
    dim: tuple[str, int] = ("input", 0)
    size: Expression | None = None


@dataclass(frozen=True)
class VpuData:
    arg_name: str
    kind: str  # local_data | data
    size: Expression | None
    dim: tuple[str, int]
    source: str


@dataclass(frozen=True)
class VpuScalarArg:
    """A <Scalar>: `source` is an IR attribute, `I.X`-like dims or a number; port -1 if unset."""

    name: str
    type: str  # int | float
    source: str
    port: int = -1


@dataclass
class VpuStage:
    """One `<Kernel>` of a `<CustomLayer type="MVCL">`; `binding` numbers the CustomLayer in its
    file (several of one name are alternatives, chosen by their <Where>)."""

    name: str
    entry: str
    sources: list[Path]
    tensors: list[VpuTensor]
    scalars: list[VpuScalarArg]
    data: list[VpuData]
    work: WorkSizes
    stage: int
    where: dict[str, str]
    config: Path
    line: int
    binding: int = 0
    max_shaves: int = 0


def _vpu_source(path: Path, node: XmlElement, file: Path) -> Path:
    """The OpenCL C the shim runs: the .cl beside a clc binary (.bin), which the MYRIAD plugin
    loads; a .cl named directly runs here but not on a Myriad."""
    where = f"{path.name}:{node.line}"
    if file.suffix.lower() == ".bin":
        cl = file.with_suffix(".cl")
        if not cl.is_file():
            msg = (f"'{file.name}' is a Myriad binary compiled by clc, which the shim cannot run; "
                   f"put the OpenCL C it was compiled from beside it as '{cl.name}'")
            raise fail(path, node, msg)
        launch.warn_once(f"bin:{cl}", f"{where}: running {cl.name}, the OpenCL C beside "
                         f"{file.name} (the MYRIAD plugin loads the .bin)", logging.INFO)
        return cl
    launch.warn_once(f"cl:{file}", f"{where}: <Source> names OpenCL C ({file.name}); the shim "
                     "runs it, the MYRIAD plugin loads only a clc binary (.bin)")
    return file


def _vpu_header(path: Path, el: XmlElement) -> str:
    if el.tag.lower() != "customlayer":
        raise fail(path, el, f"Wrong custom layer XML : Node is not CustomLayer, but {el.tag}")
    if el.get("type", "").lower() != "mvcl":
        raise fail(path, el, f"Wrong custom layer XML : Type is not MVCL, but {el.get('type')}")
    if el.get("version", "").strip() != "1":
        raise fail(path, el, "Wrong custom layer XML : only version 1 is supported")
    name = _required(path, el, "name")
    for node in el.iter():
        empty = next((k for k, v in node.attrib.items() if not v), None)
        if empty is not None:
            msg = (f"Wrong custom layer XML: Custom layer {name} has node <{node.tag}> with an "
                   f"empty attribute {empty}")
            raise fail(path, node, msg)
    return name


def _required(path: Path, el: XmlElement, key: str) -> str:
    value = el.get(key)
    if value is None:
        raise fail(path, el, f"node <{el.tag}> is missing the '{key}' attribute")
    return value


def _once(path: Path, parent: XmlElement, tag: str, hint: str = "") -> XmlElement:
    found = parent.findall(tag)
    if not found:
        raise fail(path, parent, f"Required parameter {tag} is not found{hint}")
    if len(found) > 1:
        raise fail(path, found[1], f"Found several definitions of the parameter {tag}")
    return found[0]


def _vpu_dim(path: Path, el: XmlElement) -> tuple[str, int]:
    """`input,N` or `output,N` in any case (parseDimSource); without N the plugin reads port -1."""
    raw = _required(path, el, "dim")
    source, comma, index = raw.partition(",")
    if source.lower() not in ("input", "output"):
        raise fail(path, el, f"Invalid dim source argument{source}")
    m = re.match(r"\s*([+-]?\d+)", index)
    if not m or int(m[1]) < 0:
        msg = f"dim='{raw}' needs a port, '{source.lower()},0' (the plugin reads port -1)"
        raise fail(path, el, msg)
    return source.lower(), int(m[1])


def _size(path: Path, el: XmlElement) -> Expression:
    raw = _required(path, el, "size").split(",")[0]  # parseSizeRule(size)[0]
    try:
        return Expression(raw, attributes=True)
    except ValueError as err:
        raise fail(path, el, f"invalid size '{raw}': {err}") from None


def _vpu_tensor(path: Path, el: XmlElement) -> VpuTensor:
    kind = _required(path, el, "type").lower()
    if kind not in _VPU_TENSOR_TYPES:
        raise fail(path, el, f"Tensor node has an invalid type '{el.get('type')}'")
    size, dim = None, ("input", 0)
    if kind.endswith("_buffer"):
        size, dim = _size(path, el), _vpu_dim(path, el)
    fmt = el.get("format", "BFYX").upper()
    if fmt not in VPU_FORMATS:
        raise fail(path, el, f"Tensor node has an invalid format '{el.get('format')}'")
    arg = _required(path, el, "arg-name")
    _required(path, el, "port-index")
    return VpuTensor(arg, kind, int_attr(path, el, "port-index"), fmt, dim, size)


def _vpu_data(path: Path, el: XmlElement) -> VpuData:
    kind = _required(path, el, "type").lower()
    if kind not in ("data", "local_data"):
        raise fail(path, el, f"Data node has an invalid type '{el.get('type')}'")
    arg, source = _required(path, el, "arg-name"), el.get("source", "")
    if bool(source) == ("dim" in el.attrib):
        what = "can only have source or dim" if source else "has no source or dim"
        raise fail(path, el, f"Data node {what}")
    dim, size = ("input", 0), None
    if kind == "local_data":
        if source:
            raise fail(path, el, f"local_data '{arg}' needs dim and size, not source")
        dim, size = _vpu_dim(path, el), _size(path, el)
    return VpuData(arg, kind, size, dim, source)


def _vpu_scalar(path: Path, el: XmlElement) -> VpuScalarArg:
    kind = _required(path, el, "type").lower()
    if kind not in ("int", "float"):
        raise fail(path, el, f"Scalar node has an invalid type {el.get('type')}")
    return VpuScalarArg(_required(path, el, "arg-name"), kind, el.get("source", ""),
                        int_attr(path, el, "port-index", -1))


def _vpu_kernel(path: Path, kernel: XmlElement, layer: XmlElement) -> tuple:
    flat = " (it is beside <Kernel>; the plugin reads it inside <Kernel>)"
    params, works = (_once(path, kernel, tag, flat if layer.find(tag) is not None else "")
                     for tag in ("Parameters", "WorkSizes"))
    sources = source_files(path, kernel, "Required parameter Source is not found", _vpu_source)
    entry = _required(path, kernel, "entry")
    work = WorkSizes(work_exprs(path, works, "global", True),
                     work_exprs(path, works, "local", True), _vpu_dim(path, works))
    for key in ("global", "local"):
        _required(path, works, key)
    if len(work.local) < len(work.global_):
        msg = (f"WorkSizes local has {len(work.local)} size(s) for {len(work.global_)} global "
               "ones: the plugin divides each global size by its local size")
        raise fail(path, works, msg)
    return (entry, sources, [_vpu_tensor(path, t) for t in params.findall("Tensor")],
            [_vpu_scalar(path, s) for s in params.findall("Scalar")],
            [_vpu_data(path, d) for d in params.findall("Data")], work,
            int_attr(path, kernel, "max-shaves", 0))


def _vpu_stages(path: Path, el: XmlElement, name: str) -> list[tuple[int, XmlElement]]:
    """(stage, Kernel) in stage order: one Kernel, or several each with stage 0..N-1."""
    kernels = el.findall("Kernel")
    if not kernels:
        raise fail(path, el, "Required parameter Kernel is not found")
    if len(kernels) == 1:
        return [(0, kernels[0])]
    staged: dict[int, XmlElement] = {}
    for k in kernels:
        raw = k.get("stage")
        if raw is None:
            msg = (f"Error while binding {name} custom layer: for multi-kernel binding, each "
                   "kernel should be provided with 'stage' attribute.")
            raise fail(path, k, msg)
        m = re.match(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", raw)  # std::stod's prefix
        if m is None:
            raise fail(path, k, f"<Kernel> stage='{raw}' is not a number (std::stod throws)")
        stage = int(float(m.group()))
        if stage in staged:
            msg = f"Error while binding {name} custom layer: found duplicating stage id."
            raise fail(path, k, msg)
        staged[stage] = k
    if min(staged) != 0:
        raise fail(path, el, f"Error while binding {name} custom layer: Stage 0 is not found.")
    if sorted(staged) != list(range(len(staged))):
        msg = (f"Error while binding {name} custom layer: Kernels should have stage id from 0 "
               "to N.")
        raise fail(path, el, msg)
    return sorted(staged.items())


def load_vpu(path: str | Path) -> list[VpuStage]:
    """The MVCL kernels of one config file, in document order, each CustomLayer's in stage
    order; any other top-level element fails, as in the plugin."""
    path = Path(path).resolve()
    stages = []
    for binding, el in enumerate(read_elements(path)):
        name = _vpu_header(path, el)
        wheres = el.findall("Where")
        where = dict(wheres[0].attrib) if wheres else {}  # the plugin reads the first only
        for stage, kernel in _vpu_stages(path, el, name):
            entry, sources, tensors, scalars, data, work, shaves = _vpu_kernel(path, kernel, el)
            stages.append(VpuStage(name, entry, sources, tensors, scalars, data, work, stage,
                                   where, path, kernel.line, binding, shaves))
    return stages
