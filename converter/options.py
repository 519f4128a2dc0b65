"""Conversion options (MO's flags) and the parsers for their textual forms."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from converter.errors import UsageError
from converter.graph.shape import Bounds, Shape, parse_bounds, parse_shape
from converter.ir.types import dtype_of

__all__ = [
    "ConvertOptions",
    "InputSpec",
    "parse_input",
    "parse_input_shape",
    "parse_input_shape_bounds",
    "parse_per_input_values",
]


@dataclass
class InputSpec:
    """One item of --input: name[shape]{type}->value."""

    name: str
    shape: Shape | None = None
    dtype: np.dtype | None = None
    value: np.ndarray | None = None
    bounds: Bounds | None = None  # '1..4' dimensions, kept in the IR's Parameter


@dataclass
class ConvertOptions:
    input_model: Path
    framework: str | None = None
    output_dir: Path = Path(".")
    model_name: str | None = None
    extensions: list[Path] = field(default_factory=list)
    input_shape: list[Shape] | None = None
    input_shape_bounds: list[Bounds | None] | None = None  # '1..4' dimensions of input_shape
    inputs: list[InputSpec] | None = None
    outputs: list[str] | None = None
    mean_values: dict[str | None, list[float]] = field(default_factory=dict)
    scale_values: dict[str | None, list[float]] = field(default_factory=dict)
    reverse_input_channels: bool = False
    compress_to_fp16: bool = False
    # framework-specific (MO's names)
    input_proto: Path | None = None  # Caffe .prototxt (default: derived from the model name)
    caffe_parser_path: Path | None = None  # a user caffe.proto, or a folder holding one
    custom_layers_mapping: Path | None = None  # Caffe CustomLayersMapping.xml (-k)
    transformations_config: Path | None = None  # TF sub-graph replacement JSON
    input_symbol: Path | None = None  # MXNet *-symbol.json (default: derived from the .params)
    extra: dict[str, str] = field(default_factory=dict)

    def check_framework_flags(self, framework: str) -> None:
        """Refuse a framework-specific flag given for another framework's model (MO did): it
        would otherwise be ignored without a word."""
        for attr, (owner, flag) in _FRAMEWORK_FLAGS.items():
            if getattr(self, attr) is not None and owner != framework:
                msg = (f"{flag} is for {owner} models, but {self.input_model} is read as "
                       f"{framework}; drop it (or pass --framework if that guess is wrong)")
                raise UsageError(msg)


_FRAMEWORK_FLAGS = {
    "input_proto": ("caffe", "--input_proto"),
    "caffe_parser_path": ("caffe", "--caffe_parser_path"),
    "custom_layers_mapping": ("caffe", "-k/--custom_layers_mapping"),
    "transformations_config": ("tf", "--transformations_config"),
    "input_symbol": ("mxnet", "--input_symbol"),
}


def _split_top(text: str) -> list[str]:
    """Split on commas that are not inside [], {} or ()."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


_SHAPE_LIST_RE = re.compile(r"^\s*\[[^\[\]]*\](\s*,\s*\[[^\[\]]*\])*\s*$")


def _shape_groups(text: str) -> list[str]:
    if _SHAPE_LIST_RE.match(text):
        return re.findall(r"\[([^\]]*)\]", text)
    if "[" in text or "]" in text or not text:
        raise ValueError("brackets do not pair up")
    return [text]


def parse_input_shape(text: str) -> list[Shape]:
    """'[1,3,224,224]' or '[1,3,224,224],[1,10]' (or bare '1,3,224,224') -> shapes."""
    text = text.strip()
    try:
        groups = _shape_groups(text)
        for group in groups:
            parse_bounds(group)
        return [parse_shape(g) for g in groups]
    except ValueError as err:
        msg = (
            f"--input_shape '{text}' is malformed: {err}; write it as [1,3,224,224] "
            "(several inputs: [1,3,224,224],[1,10]; dynamic dimension: -1 or ?)"
        )
        raise UsageError(msg) from None


def parse_input_shape_bounds(text: str) -> list[Bounds | None]:
    """The bounded ('1..4') dimensions of each shape of a valid --input_shape."""
    return [parse_bounds(g) for g in _shape_groups(text.strip())]


_INPUT_RE = re.compile(
    r"^(?P<name>[^\[{]+?)\s*(\[(?P<shape>[^\]]*)\])?\s*(\{(?P<type>[^}]*)\})?\s*"
    r"(->\s*(?P<value>.+))?$"
)


def parse_input(text: str) -> list[InputSpec]:
    """'data[1,3,224,224]{f32},mask{i64}->[1,0]' -> InputSpecs."""
    specs = []
    for item in _split_top(text):
        m = _INPUT_RE.match(item)
        if not m:
            msg = f"--input item '{item}' is malformed; write name[shape]{{type}}->value"
            raise UsageError(msg)
        try:
            shape = parse_shape(m["shape"]) if m["shape"] is not None else None
            bounds = parse_bounds(m["shape"]) if m["shape"] is not None else None
            dtype = dtype_of(m["type"]) if m["type"] else None
            value = None
            if m["value"]:
                raw = m["value"].strip().strip("[]").replace(",", " ").split()
                value = np.array([float(v) for v in raw], dtype=dtype or np.float32)
        except ValueError as err:
            msg = f"--input item '{item}' is malformed: {err}"
            raise UsageError(msg) from None
        specs.append(InputSpec(m["name"].strip(), shape, dtype, value, bounds))
    return specs


def parse_per_input_values(flag: str, text: str) -> dict[str | None, list[float]]:
    """--mean_values / --scale_values: '[1,2,3]' (all inputs) or 'data[1,2,3],info[4]'."""
    out: dict[str | None, list[float]] = {}
    for m in re.finditer(r"([^\[\],]*)\[([^\]]*)\]", text):
        name = m.group(1).strip() or None
        try:
            out[name] = [float(v) for v in m.group(2).replace(",", " ").split()]
        except ValueError:
            out = {}
            break
    if not out:
        try:
            out[None] = [float(v) for v in text.strip("[] ").replace(",", " ").split()]
        except ValueError:
            msg = f"{flag} '{text}' is malformed; write [123.7,116.3,103.5] or data[1,2,3]"
            raise UsageError(msg) from None
    return out
