"""Parse SimpleGPU (GPU) and MVCL (VPU/MYRIAD) custom-kernel XML into dataclasses, accepting what
the plugins' parsers accept and refusing the rest with their reason, on one line.

GPU: OpenVINO's intel_gpu plugin, src/plugins/intel_gpu/src/plugin/custom_layer.cpp (2022.1 to
today). VPU: the MYRIAD plugin of 2022.3, src/plugins/intel_myriad/graph_transformer/src/
frontend/custom_layer.cpp and custom_kernel.cpp (the same rules as 2021.x)."""

from __future__ import annotations

import logging
import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

from converter.errors import KernelConfigError
from converter.runtime.opencl import launch
from converter.runtime.opencl.expressions import Expression, parse_list

__all__ = [
    "GpuDefine", "GpuLayer", "GpuTensor", "VpuData", "VpuScalarArg", "VpuStage", "VpuTensor",
    "WorkSizes", "load_gpu", "load_vpu", "merge_gpu", "other_device",
]

_DEFINE_TYPES = ("int", "float", "int[]", "float[]")
# the GPU parser's format table (FormatFromString): these spellings exactly
_GPU_FORMATS = {f: f.upper() for name in ("BFYX", "BYXF", "FYXB", "YXFB", "ANY")
                for f in (name, name.lower())}
_VPU_TENSOR_TYPES = ("input", "output", "input_buffer", "output_buffer", "data")
# the MYRIAD parser's formats (any case) and the layout the shim stores each in: FYX, YXF and BF
# are the 3D and 2D tensors' own orders (CHW, HWC, NC)
_VPU_FORMATS = {"BFYX": "BFYX", "BYXF": "BYXF", "FYX": "BFYX", "YXF": "BYXF", "BF": "BFYX",
                "ANY": "ANY"}


@dataclass(frozen=True)
class WorkSizes:
    """`global`/`local` expressions and where B,F,Y,X come from: ('output'|'input', port). An
    empty global is one work item per output element (the GPU plugin's default)."""

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
    """Every top-level element: the plugins read the document element and its siblings (pugixml
    takes several roots), each of which must be a CustomLayer."""
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
    return list(root)


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


def _exprs(path: Path, el: _Element, key: str, attributes: bool = False) -> tuple[Expression, ...]:
    raw = el.get(key, "")
    try:  # both parsers split on commas and drop a trailing empty rule
        return tuple(parse_list(raw.removesuffix(","), attributes))
    except ValueError as err:
        raise _fail(path, el, f"Invalid WorkSize {key}='{raw}': {err}") from None


def _source_files(path: Path, kernel: _Element, vpu: bool) -> list[Path]:
    nodes = kernel.findall("Source")
    if not nodes:
        what = "Required parameter Source is not found" if vpu else "<Kernel> has no <Source>"
        raise _fail(path, kernel, what)
    files = []
    for node in nodes:
        name = node.get("filename", "").strip()
        if not name:
            raise _fail(path, node, "<Source> has no filename")
        file = (path.parent / name).resolve()
        if vpu:
            file = _vpu_source(path, node, file)
        if not file.is_file():
            raise _fail(path, node, f"Couldn't open kernel file {name} (looked for {file})")
        _check_filled(file)
        files.append(file)
    return files


def _vpu_source(path: Path, node: _Element, file: Path) -> Path:
    """The OpenCL C the shim runs: the .cl beside a clc binary (.bin), which the MYRIAD plugin
    loads; a .cl named directly runs here but not on a Myriad."""
    where = f"{path.name}:{node.line}"
    if file.suffix.lower() == ".bin":
        cl = file.with_suffix(".cl")
        if not cl.is_file():
            msg = (f"'{file.name}' is a Myriad binary compiled by clc, which the shim cannot run; "
                   f"put the OpenCL C it was compiled from beside it as '{cl.name}'")
            raise _fail(path, node, msg)
        launch.warn_once(f"bin:{cl}", f"{where}: running {cl.name}, the OpenCL C beside "
                         f"{file.name} (the MYRIAD plugin loads the .bin)", logging.INFO)
        return cl
    launch.warn_once(f"cl:{file}", f"{where}: <Source> names OpenCL C ({file.name}); the shim "
                     "runs it, the MYRIAD plugin loads only a clc binary (.bin)")
    return file


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


# -- GPU: intel_gpu/src/plugin/custom_layer.cpp ----------------------------------------------


def _gpu_header(path: Path, el: _Element) -> str:
    if el.tag != "CustomLayer":
        raise _fail(path, el, f"Wrong node! expected: CustomLayer found: {el.tag}")
    if el.get("type", "") != "SimpleGPU":
        msg = f"Wrong attribute value! expected: SimpleGPU found: {el.get('type', '')}"
        raise _fail(path, el, msg)
    if el.get("version", "").strip() != "1":
        raise _fail(path, el, f"Wrong attribute value! expected: 1 found: {el.get('version', '')}")
    name = el.get("name", "")
    if not name:
        raise _fail(path, el, "Missing Layer name in CustomLayer")
    return name


def _child(path: Path, layer: _Element, tag: str) -> _Element:
    """The first `tag` child (the parser reads only the first)."""
    node = layer.find(tag)
    if node is None:
        raise _fail(path, layer, f"Wrong node! expected: {tag} found: (none)")
    return node


def _gpu_tensor(path: Path, el: _Element) -> GpuTensor:
    fmt = _GPU_FORMATS.get(el.get("format", "BFYX"))
    if fmt is None:
        raise _fail(path, el, f"Tensor node has an invalid format: {el.get('format')}")
    index, port = _int(path, el, "arg-index", -1), _int(path, el, "port-index", -1)
    if index == -1:
        raise _fail(path, el, "Tensor node has no arg-index")
    if port == -1:
        raise _fail(path, el, "Tensor node has no port-index")
    kind = el.get("type", "")
    if kind not in ("input", "output"):
        raise _fail(path, el, f"Tensor node has an invalid type: {kind}")
    return GpuTensor(index, kind, port, fmt)


def _gpu_dim(path: Path, el: _Element) -> tuple[str, int]:
    """`output` (or none), `input` or `input,N`: nothing else (ProcessWorkSizesNode)."""
    raw = el.get("dim", "")
    if raw in ("", "output"):
        return "output", 0
    flag, comma, index = raw.partition(",")
    if flag != "input":
        raise _fail(path, el, f"Invalid WG dim source: {flag}")
    m = re.match(r"\s*([+-]?\d+)", index)  # std::stoi: leading blanks, then digits
    if comma and not m:
        raise _fail(path, el, f"Invalid WG dim source index: '{index}' is not a number")
    port = int(m[1]) if m else 0
    if port < 0:
        raise _fail(path, el, f"Invalid input tensor index: {port}")
    return "input", port


def _gpu_work(path: Path, el: _Element | None) -> WorkSizes:
    if el is None:
        return WorkSizes((), ())
    return WorkSizes(_exprs(path, el, "global"), _exprs(path, el, "local"), _gpu_dim(path, el))


def _gpu_layer(path: Path, el: _Element, name: str) -> GpuLayer:
    kernel = _child(path, el, "Kernel")
    entry = kernel.get("entry", "")
    if not entry:
        raise _fail(path, kernel, f"No Kernel entry in layer: {name}")
    sources = _source_files(path, kernel, vpu=False)
    defines = []
    for d in kernel.findall("Define"):
        kind = d.get("type", "").strip()
        if kind and kind not in _DEFINE_TYPES:
            raise _fail(path, d, f"Define type '{kind}' is not one of {', '.join(_DEFINE_TYPES)}")
        if not d.get("name", ""):
            raise _fail(path, d, "Missing name for define node")
        defines.append(GpuDefine(d.get("name"), kind, d.get("param", ""), d.get("default", "")))
    buffers = _child(path, el, "Buffers")
    tensors = [_gpu_tensor(path, t) for t in buffers.findall("Tensor")]
    if not tensors:
        raise _fail(path, buffers, "<Buffers> has no <Tensor>")
    data = []
    for d in buffers.findall("Data"):
        index = _int(path, d, "arg-index", -1)
        if index == -1:
            raise _fail(path, d, "Data node has no arg-index")
        if not d.get("name", ""):
            raise _fail(path, d, "Data node has no name")
        data.append((d.get("name", ""), index))
    options = el.find("CompilerOptions")
    return GpuLayer(name, entry, sources, defines, tensors, data,
                    options.get("options", "") if options is not None else "",
                    _gpu_work(path, el.find("WorkSizes")), path, el.line)


def load_gpu(path: str | Path) -> list[GpuLayer]:
    """The SimpleGPU layers of one config file; any other top-level element fails, as in the
    plugin (a later layer of the same name replaces an earlier one)."""
    path = Path(path).resolve()
    return [_gpu_layer(path, el, _gpu_header(path, el)) for el in _read(path)]


# -- VPU: intel_myriad/graph_transformer/src/frontend/custom_layer.cpp, custom_kernel.cpp -----


def _vpu_header(path: Path, el: _Element) -> str:
    if el.tag.lower() != "customlayer":
        raise _fail(path, el, f"Wrong custom layer XML : Node is not CustomLayer, but {el.tag}")
    if el.get("type", "").lower() != "mvcl":
        raise _fail(path, el, f"Wrong custom layer XML : Type is not MVCL, but {el.get('type')}")
    if el.get("version", "").strip() != "1":
        raise _fail(path, el, "Wrong custom layer XML : only version 1 is supported")
    name = _required(path, el, "name")
    for node in el.iter():
        empty = next((k for k, v in node.attrib.items() if not v), None)
        if empty is not None:
            msg = (f"Wrong custom layer XML: Custom layer {name} has node <{node.tag}> with an "
                   f"empty attribute {empty}")
            raise _fail(path, node, msg)
    return name


def _required(path: Path, el: _Element, key: str) -> str:
    value = el.get(key)
    if value is None:
        raise _fail(path, el, f"node <{el.tag}> is missing the '{key}' attribute")
    return value


def _once(path: Path, parent: _Element, tag: str, hint: str = "") -> _Element:
    found = parent.findall(tag)
    if not found:
        raise _fail(path, parent, f"Required parameter {tag} is not found{hint}")
    if len(found) > 1:
        raise _fail(path, found[1], f"Found several definitions of the parameter {tag}")
    return found[0]


def _vpu_dim(path: Path, el: _Element) -> tuple[str, int]:
    """`input,N` or `output,N` in any case (parseDimSource); without N the plugin reads port -1."""
    raw = _required(path, el, "dim")
    source, comma, index = raw.partition(",")
    if source.lower() not in ("input", "output"):
        raise _fail(path, el, f"Invalid dim source argument{source}")
    m = re.match(r"\s*([+-]?\d+)", index)
    if not m or int(m[1]) < 0:
        msg = f"dim='{raw}' needs a port, '{source.lower()},0' (the plugin reads port -1)"
        raise _fail(path, el, msg)
    return source.lower(), int(m[1])


def _size(path: Path, el: _Element) -> Expression:
    raw = _required(path, el, "size").split(",")[0]  # parseSizeRule(size)[0]
    try:
        return Expression(raw, attributes=True)
    except ValueError as err:
        raise _fail(path, el, f"invalid size '{raw}': {err}") from None


def _vpu_tensor(path: Path, el: _Element) -> VpuTensor:
    kind = _required(path, el, "type").lower()
    if kind not in _VPU_TENSOR_TYPES:
        raise _fail(path, el, f"Tensor node has an invalid type '{el.get('type')}'")
    size, dim = None, ("input", 0)
    if kind.endswith("_buffer"):
        size, dim = _size(path, el), _vpu_dim(path, el)
    fmt = _VPU_FORMATS.get(el.get("format", "BFYX").upper())
    if fmt is None:
        raise _fail(path, el, f"Tensor node has an invalid format '{el.get('format')}'")
    arg = _required(path, el, "arg-name")
    _required(path, el, "port-index")
    return VpuTensor(arg, kind, _int(path, el, "port-index"), fmt, dim, size)


def _vpu_data(path: Path, el: _Element) -> VpuData:
    kind = _required(path, el, "type").lower()
    if kind not in ("data", "local_data"):
        raise _fail(path, el, f"Data node has an invalid type '{el.get('type')}'")
    arg, source = _required(path, el, "arg-name"), el.get("source", "")
    if bool(source) == ("dim" in el.attrib):
        what = "can only have source or dim" if source else "has no source or dim"
        raise _fail(path, el, f"Data node {what}")
    dim, size = ("input", 0), None
    if kind == "local_data":
        if source:
            raise _fail(path, el, f"local_data '{arg}' needs dim and size, not source")
        dim, size = _vpu_dim(path, el), _size(path, el)
    return VpuData(arg, kind, size, dim, source)


def _vpu_scalar(path: Path, el: _Element) -> VpuScalarArg:
    kind = _required(path, el, "type").lower()
    if kind not in ("int", "float"):
        raise _fail(path, el, f"Scalar node has an invalid type {el.get('type')}")
    return VpuScalarArg(_required(path, el, "arg-name"), kind, el.get("source", ""),
                        _int(path, el, "port-index", -1))


def _vpu_kernel(path: Path, kernel: _Element, layer: _Element) -> tuple:
    flat = " (it is beside <Kernel>; the plugin reads it inside <Kernel>)"
    params, works = (_once(path, kernel, tag, flat if layer.find(tag) is not None else "")
                     for tag in ("Parameters", "WorkSizes"))
    sources = _source_files(path, kernel, vpu=True)
    entry = _required(path, kernel, "entry")
    work = WorkSizes(_exprs(path, works, "global", True), _exprs(path, works, "local", True),
                     _vpu_dim(path, works))
    for key in ("global", "local"):
        _required(path, works, key)
    if len(work.local) < len(work.global_):
        msg = (f"WorkSizes local has {len(work.local)} size(s) for {len(work.global_)} global "
               "ones: the plugin divides each global size by its local size")
        raise _fail(path, works, msg)
    return (entry, sources, [_vpu_tensor(path, t) for t in params.findall("Tensor")],
            [_vpu_scalar(path, s) for s in params.findall("Scalar")],
            [_vpu_data(path, d) for d in params.findall("Data")], work,
            _int(path, kernel, "max-shaves", 0))


def _vpu_stages(path: Path, el: _Element, name: str) -> list[tuple[int, _Element]]:
    """(stage, Kernel) in stage order: one Kernel, or several each with stage 0..N-1."""
    kernels = el.findall("Kernel")
    if not kernels:
        raise _fail(path, el, "Required parameter Kernel is not found")
    if len(kernels) == 1:
        return [(0, kernels[0])]
    staged: dict[int, _Element] = {}
    for k in kernels:
        raw = k.get("stage")
        if raw is None:
            msg = (f"Error while binding {name} custom layer: for multi-kernel binding, each "
                   "kernel should be provided with 'stage' attribute.")
            raise _fail(path, k, msg)
        try:
            stage = int(float(raw))  # std::stod, then int
        except ValueError:
            raise _fail(path, k, f"<Kernel> stage='{raw}' is not a number") from None
        if stage in staged:
            msg = f"Error while binding {name} custom layer: found duplicating stage id."
            raise _fail(path, k, msg)
        staged[stage] = k
    if sorted(staged) != list(range(len(staged))):
        msg = (f"Error while binding {name} custom layer: Kernels should have stage id from 0 "
               "to N.")
        raise _fail(path, el, msg)
    return sorted(staged.items())


def load_vpu(path: str | Path) -> list[VpuStage]:
    """The MVCL kernels of one config file, in document order, each CustomLayer's in stage
    order; any other top-level element fails, as in the plugin."""
    path = Path(path).resolve()
    stages = []
    for binding, el in enumerate(_read(path)):
        name = _vpu_header(path, el)
        wheres = el.findall("Where")
        where = dict(wheres[0].attrib) if wheres else {}  # the plugin reads the first only
        for stage, kernel in _vpu_stages(path, el, name):
            entry, sources, tensors, scalars, data, work, shaves = _vpu_kernel(path, kernel, el)
            stages.append(VpuStage(name, entry, sources, tensors, scalars, data, work, stage,
                                   where, path, kernel.line, binding, shaves))
    return stages


def other_device(path: str | Path, kind: str) -> bool:
    """True when every CustomLayer of the file is of the other plugin's type than `kind`
    (SimpleGPU or MVCL): `--config` goes to every device, each plugin is given its own file."""
    types = {el.get("type", "").lower() for el in _read(Path(path).resolve())}
    return bool(types) and types <= ({"simplegpu", "mvcl"} - {kind.lower()})


def merge_gpu(paths: list[Path], folder: Path) -> Path:
    """One SimpleGPU file in folder holding the layers of every config in paths (a later one of
    the same name wins, as in GpuDevice): the GPU plugin takes one CONFIG_FILE. Each Source is
    rewritten relative to folder, where the plugin then looks for it."""
    parts = []
    for path in (Path(p).resolve() for p in paths):
        for el in _read(path):
            _gpu_header(path, el)
            for source in el.iter("Source"):
                target = path.parent / source.get("filename", "")
                source.set("filename", os.path.relpath(target, folder))
            parts.append(ET.tostring(el, encoding="unicode"))
    merged = folder / "custom_layers.xml"
    merged.write_text("".join(parts) + "\n", encoding="utf-8")
    return merged
