"""Parse SimpleGPU (GPU) and MVCL (VPU/MYRIAD) custom-kernel XML into dataclasses."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

from converter.errors import KernelConfigError
from converter.runtime.opencl.contract import GPU_FORMATS, VPU_FORMATS, VpuScalar
from converter.runtime.opencl.expressions import Expression, parse_list

__all__ = [
    "GpuDefine", "GpuLayer", "GpuTensor", "VpuData", "VpuScalar", "VpuStage", "VpuTensor",
    "WorkSizes", "load_gpu", "load_vpu",
]

_DEFINE_TYPES = ("int", "float", "int[]", "float[]")
_VPU_TENSOR_TYPES = ("input", "output", "input_buffer", "output_buffer", "data")


@dataclass(frozen=True)
class WorkSizes:
    """`global`/`local` expressions and where B,F,Y,X come from: ('output'|'input', port)."""

    global_: tuple[Expression, ...]
    local: tuple[Expression, ...]
    dim: tuple[str, int] = ("output", 0)


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


@dataclass(frozen=True)
class VpuTensor:
    arg_name: str
    kind: str  # input | output | input_buffer | output_buffer | data
    port: int
    format: str
    dim: tuple[str, int] = ("input", 0)
    size: Expression | None = None


@dataclass(frozen=True)
class VpuData:
    arg_name: str
    kind: str  # local_data | data
    size: Expression | None
    dim: tuple[str, int]
    source: str


@dataclass
class VpuStage:
    """One `<CustomLayer type="MVCL">`: a single kernel stage of a layer."""

    name: str
    entry: str
    sources: list[Path]
    tensors: list[VpuTensor]
    scalars: list[VpuScalar]
    data: list[VpuData]
    work: WorkSizes
    stage: int
    where: dict[str, str]
    config: Path
    line: int
    max_shaves: int = 0


class _Element(ET.Element):
    line = 0


class _Builder(ET.TreeBuilder):
    """A TreeBuilder that records each element's source line."""

    def __init__(self) -> None:
        super().__init__(element_factory=_Element)
        self.parser: DefusedXMLParser | None = None

    def start(self, tag, attrs):  # type: ignore[override]
        el = super().start(tag, attrs)
        el.line = self.parser.parser.CurrentLineNumber if self.parser else 0
        return el


_WRAP = "extgen-config"


def _read(path: Path) -> list[_Element]:
    """All CustomLayer elements: at the top level (several roots, as pugixml allows) or one
    level down."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        msg = f"{path}: cannot read kernel config ({err})"
        raise KernelConfigError(msg) from None
    text = re.sub(r"^\s*<\?xml[^>]*\?>", lambda m: re.sub(r"[^\n]", " ", m.group()), text)
    builder = _Builder()
    parser = DefusedXMLParser(target=builder)
    builder.parser = parser
    try:
        parser.feed(f"<{_WRAP}>{text}</{_WRAP}>")
        root = parser.close()
    except ET.ParseError as err:
        line = err.position[0] if err.position else "?"
        reason = str(err).split(": line")[0]
        msg = f"{path}:{line}: malformed kernel XML ({reason})"
        raise KernelConfigError(msg) from None
    except DefusedXmlException as err:
        msg = f"{path}: kernel XML uses a forbidden construct ({type(err).__name__})"
        raise KernelConfigError(msg) from None
    return [*root.findall("CustomLayer"), *root.findall("*/CustomLayer")]


def _fail(path: Path, el: _Element, text: str) -> KernelConfigError:
    return KernelConfigError(f"{path}:{el.line}: {text}")


def _int(path: Path, el: _Element, key: str, default: int | None = None) -> int:
    raw = el.get(key)
    if raw is None or not raw.strip():
        if default is None:
            raise _fail(path, el, f"<{el.tag}> has no {key}")
        return default
    try:
        return int(raw)
    except ValueError:
        raise _fail(path, el, f"<{el.tag}> {key}='{raw}' is not an integer") from None


def _dim(path: Path, el: _Element, default: tuple[str, int]) -> tuple[str, int]:
    raw = (el.get("dim") or "").strip()
    if not raw:
        return default
    m = re.fullmatch(r"(input|output)\s*(?:[, ]\s*(\d+))?", raw, re.IGNORECASE)
    if not m:
        raise _fail(path, el, f"dim='{raw}' is invalid (use output, input,N or input N)")
    return m.group(1).lower(), int(m.group(2) or 0)


def _exprs(path: Path, el: _Element, key: str, default: str = "") -> tuple[Expression, ...]:
    raw = el.get(key, default)
    try:
        return tuple(parse_list(raw))
    except ValueError as err:
        raise _fail(path, el, f"invalid {el.tag} {key}='{raw}': {err}") from None


def _work(path: Path, el: _Element | None) -> WorkSizes:
    if el is None:
        return WorkSizes((Expression("B*F*Y*X"),), ())
    glob = _exprs(path, el, "global", "B*F*Y*X") or (Expression("B*F*Y*X"),)
    return WorkSizes(glob, _exprs(path, el, "local"), _dim(path, el, ("output", 0)))


def _sources(path: Path, kernel: _Element, vpu: bool) -> list[Path]:
    nodes = kernel.findall("Source")
    if not nodes:
        raise _fail(path, kernel, "<Kernel> has no <Source filename=...>")
    files = []
    for node in nodes:
        name = node.get("filename", "").strip()
        if not name:
            raise _fail(path, node, "<Source> has no filename")
        file = (path.parent / name).resolve()
        if vpu and file.suffix.lower() == ".bin":
            cl = file.with_suffix(".cl")
            hint = f"'{cl.name}' sits beside it, " if cl.is_file() else ""
            msg = (f"'{name}' is a Myriad binary compiled by clc and cannot run here; {hint}"
                   "point <Source> at the OpenCL C (.cl) file it was compiled from")
            raise _fail(path, node, msg)
        if not file.is_file():
            raise _fail(path, node, f"kernel source '{name}' not found (looked for {file})")
        _check_filled(file)
        files.append(file)
    return files


UNFILLED = "extgen:unfilled"  # marks the placeholder line of a kernel `extgen new` wrote


def _check_filled(file: Path) -> None:
    """Refuse a generated kernel whose computation was never written (it would output NaN)."""
    try:
        lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as err:
        msg = f"{file}: cannot read the kernel source ({err.strerror})"
        raise KernelConfigError(msg) from None
    line = next((i for i, text in enumerate(lines, 1) if UNFILLED in text), None)
    if line is not None:
        msg = (f"{file}:{line}: the kernel is still the stub `extgen new` wrote (it outputs NaN): "
               f"write the computation at its TODO(extgen) and delete the line marked {UNFILLED}")
        raise KernelConfigError(msg)


def _kernel(path: Path, layer: _Element, vpu: bool) -> tuple[_Element, str, list[Path]]:
    kernels = layer.findall("Kernel")
    if len(kernels) != 1:
        raise _fail(path, layer, f"CustomLayer '{layer.get('name')}' needs exactly one <Kernel>")
    entry = kernels[0].get("entry", "").strip()
    if not entry:
        raise _fail(path, kernels[0], "no Kernel entry in layer")
    return kernels[0], entry, _sources(path, kernels[0], vpu)


def _header(path: Path, el: _Element, want: str) -> str | None:
    """The layer name, or None for a CustomLayer of the other device's type (skipped)."""
    kind = el.get("type", "").strip().upper()
    if kind in ("SIMPLEGPU", "MVCL") and kind != want.upper():
        return None
    if kind != want.upper():
        raise _fail(path, el, f"CustomLayer type='{el.get('type', '')}' (expected {want})")
    if el.get("version", "").strip() != "1":
        raise _fail(path, el, f"CustomLayer version='{el.get('version', '')}' (expected 1)")
    name = el.get("name", "").strip()
    if not name:
        raise _fail(path, el, "CustomLayer has no name")
    return name


def _gpu_tensor(path: Path, el: _Element) -> GpuTensor:
    kind = el.get("type", "").strip().lower()
    if kind not in ("input", "output"):
        raise _fail(path, el, f"Tensor node has an invalid type '{el.get('type', '')}'")
    fmt = el.get("format", "BFYX").strip().upper()
    if fmt not in GPU_FORMATS:
        raise _fail(path, el, f"Tensor format '{fmt}' is not one of {', '.join(GPU_FORMATS)}")
    return GpuTensor(_int(path, el, "arg-index"), kind, _int(path, el, "port-index"), fmt)


def _gpu_layer(path: Path, el: _Element, name: str) -> GpuLayer:
    kernel, entry, sources = _kernel(path, el, vpu=False)
    defines = []
    for d in kernel.findall("Define"):
        kind = d.get("type", "").strip()
        if kind and kind not in _DEFINE_TYPES:
            raise _fail(path, d, f"Define type '{kind}' is not one of {', '.join(_DEFINE_TYPES)}")
        if not d.get("name", "").strip():
            raise _fail(path, d, "Define has no name")
        defines.append(GpuDefine(d.get("name").strip(), kind, d.get("param", ""),
                                 d.get("default", "")))
    buffers = el.findall("Buffers")
    if len(buffers) != 1:
        raise _fail(path, el, f"CustomLayer '{name}' needs exactly one <Buffers>")
    tensors = [_gpu_tensor(path, t) for t in buffers[0].findall("Tensor")]
    if not tensors:
        raise _fail(path, buffers[0], "<Buffers> has no <Tensor>")
    data = [(d.get("name", ""), _int(path, d, "arg-index")) for d in buffers[0].findall("Data")]
    options = el.findall("CompilerOptions")
    if len(options) > 1:
        raise _fail(path, options[1], "multiple definition of CompilerOptions")
    works = el.findall("WorkSizes")
    return GpuLayer(
        name, entry, sources, defines, tensors, data,
        options[0].get("options", "") if options else "",
        _work(path, works[0] if works else None), path, el.line,
    )


def load_gpu(path: str | Path) -> list[GpuLayer]:
    """The SimpleGPU layers of one config file (MVCL layers are skipped)."""
    path = Path(path).resolve()
    layers = []
    for el in _read(path):
        name = _header(path, el, "SimpleGPU")
        if name is not None:
            layers.append(_gpu_layer(path, el, name))
    return layers


def _vpu_tensor(path: Path, el: _Element) -> VpuTensor:
    kind = el.get("type", "").strip().lower()
    if kind not in _VPU_TENSOR_TYPES:
        raise _fail(path, el, f"Tensor node has an invalid type '{el.get('type', '')}'")
    fmt = VPU_FORMATS.get(el.get("format", "BFYX").strip().upper())
    if fmt is None:
        raise _fail(path, el, f"Tensor format '{el.get('format')}' is not one of BFYX, BYXF, ANY")
    arg = el.get("arg-name", "").strip()
    if not arg:
        raise _fail(path, el, "Tensor node has no arg-name")
    size = None
    if kind.endswith("_buffer"):
        sizes = _exprs(path, el, "size")
        if len(sizes) != 1:
            msg = f"buffer '{arg}' needs one size expression in bytes (size=\"Y*F*4\")"
            raise _fail(path, el, msg)
        size = sizes[0]
    port = _int(path, el, "port-index", -1 if kind == "data" else None)
    return VpuTensor(arg, kind, port, fmt, _dim(path, el, ("input", 0)), size)


def _vpu_params(path: Path, el: _Element) -> tuple[list[VpuTensor], list[VpuScalar], list[VpuData]]:
    params = el.findall("Parameters")
    if len(params) != 1:
        raise _fail(path, el, f"CustomLayer '{el.get('name')}' needs exactly one <Parameters>")
    tensors = [_vpu_tensor(path, t) for t in params[0].findall("Tensor")]
    scalars = []
    for s in params[0].findall("Scalar"):
        try:
            scalars.append(VpuScalar(
                name=s.get("arg-name", "").strip(), type=s.get("type", "").strip().lower(),
                source=s.get("source", "").strip(), port_index=_int(path, s, "port-index", 0)))
        except ValueError as err:
            raise _fail(path, s, f"Scalar node: {err}") from None
    data = []
    for d in params[0].findall("Data"):
        arg, kind = d.get("arg-name", "").strip(), (d.get("type") or "data").strip().lower()
        if not arg:
            raise _fail(path, d, "Data node has no arg-name")
        size = None
        if kind == "local_data":
            sizes = _exprs(path, d, "size")
            if len(sizes) != 1:
                raise _fail(path, d, f"local_data '{arg}' needs one size expression in bytes")
            size = sizes[0]
        elif kind != "data":
            raise _fail(path, d, f"Data node has an invalid type '{kind}' (local_data or data)")
        data.append(VpuData(arg, kind, size, _dim(path, d, ("input", 0)), d.get("source", "")))
    return tensors, scalars, data


def load_vpu(path: str | Path) -> list[VpuStage]:
    """The MVCL stages of one config file, in document order (SimpleGPU layers are skipped)."""
    path = Path(path).resolve()
    stages = []
    for el in _read(path):
        name = _header(path, el, "MVCL")
        if name is None:
            continue
        _, entry, sources = _kernel(path, el, vpu=True)
        tensors, scalars, data = _vpu_params(path, el)
        where: dict[str, str] = {}
        for w in el.findall("Where"):
            where.update(w.attrib)
        works = el.findall("WorkSizes")
        stages.append(VpuStage(
            name, entry, sources, tensors, scalars, data,
            _work(path, works[0] if works else None), _int(path, el, "stage", 0), where,
            path, el.line, _int(path, el, "max-shaves", 0),
        ))
    return stages
