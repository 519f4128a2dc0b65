"""What the SimpleGPU (GPU) and MVCL (VPU/MYRIAD) custom-kernel XML readers share (gpu_config and
vpu_config hold each plugin's rules): the document read with each element's line, errors on
one line naming file and line, and the kernel sources.

GPU: OpenVINO's intel_gpu plugin, src/plugins/intel_gpu/src/plugin/custom_layer.cpp (2022.1 to
today). VPU: the MYRIAD plugin of 2022.3, src/plugins/intel_myriad/graph_transformer/src/
frontend/custom_layer.cpp and custom_kernel.cpp (the same rules as 2021.x)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

from converter.errors import KernelConfigError
from converter.runtime.opencl.expressions import Expression, parse_list

__all__ = ["UNFILLED", "WorkSizes", "XmlElement", "check_filled", "fail", "int_attr",
           "other_device", "read_elements", "source_files", "work_exprs"]


@dataclass(frozen=True)
class WorkSizes:
    """`global`/`local` expressions and where B,F,Y,X come from: ('output'|'input', port). An
    empty global is one work item per output element (the GPU plugin's default)."""

    global_: tuple[Expression, ...]
    local: tuple[Expression, ...]
    dim: tuple[str, int] = ("output", 0)


class XmlElement(ET.Element):
    line = 0


class _Builder(ET.TreeBuilder):
    """A TreeBuilder that records each element's source line."""

    def __init__(self) -> None:
        super().__init__(element_factory=XmlElement)
        self.parser: DefusedXMLParser | None = None

    def start(self, tag, attrs):  # type: ignore[override]
        el = super().start(tag, attrs)
        el.line = self.parser.parser.CurrentLineNumber if self.parser else 0
        return el


_WRAP = "extgen-config"


def read_elements(path: Path) -> list[XmlElement]:
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


def fail(path: Path, el: XmlElement, text: str) -> KernelConfigError:
    return KernelConfigError(f"{path}:{el.line}: {text}")


def int_attr(path: Path, el: XmlElement, key: str, default: int | None = None) -> int:
    raw = el.get(key)
    if raw is None or not raw.strip():
        if default is None:
            raise fail(path, el, f"<{el.tag}> has no {key}")
        return default
    try:
        return int(raw)
    except ValueError:
        raise fail(path, el, f"<{el.tag}> {key}='{raw}' is not an integer") from None


def work_exprs(path: Path, el: XmlElement, key: str,
               attributes: bool = False) -> tuple[Expression, ...]:
    raw = el.get(key, "")
    try:  # both parsers split on commas and drop a trailing empty rule
        return tuple(parse_list(raw.removesuffix(","), attributes))
    except ValueError as err:
        raise fail(path, el, f"Invalid WorkSize {key}='{raw}': {err}") from None


def source_files(path: Path, kernel: XmlElement, missing: str,
                 resolve: Callable[[Path, XmlElement, Path], Path] | None = None) -> list[Path]:
    """The files of a Kernel's <Source>s (resolve: the file the shim runs for one, the VPU's
    .cl beside its .bin); `missing`: the plugin's words when there is none."""
    nodes = kernel.findall("Source")
    if not nodes:
        raise fail(path, kernel, missing)
    files = []
    for node in nodes:
        name = node.get("filename", "").strip()
        if not name:
            raise fail(path, node, "<Source> has no filename")
        file = (path.parent / name).resolve()
        if resolve is not None:
            file = resolve(path, node, file)
        if not file.is_file():
            raise fail(path, node, f"Couldn't open kernel file {name} (looked for {file})")
        check_filled(file)
        files.append(file)
    return files


UNFILLED = "extgen:unfilled"  # marks the placeholder line of a kernel `extgen new` wrote


def check_filled(file: Path) -> None:
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


def other_device(path: str | Path, kind: str) -> bool:
    """True when every CustomLayer of the file is of the other plugin's type than `kind`
    (SimpleGPU or MVCL): `--config` goes to every device, each plugin is given its own file."""
    types = {el.get("type", "").lower() for el in read_elements(Path(path).resolve())}
    return bool(types) and types <= ({"simplegpu", "mvcl"} - {kind.lower()})
