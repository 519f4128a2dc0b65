"""Conversion options (MO's flags) and the parsers for their textual forms."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from pathlib import Path

import numpy as np

from converter.errors import UsageError
from converter.graph.shape import Bounds, Shape, parse_bounds, parse_shape
from converter.ir.types import dtype_of

__all__ = [
    "ConvertOptions",
    "InputSpec",
    "LayoutSpec",
    "parse_freeze",
    "parse_input",
    "parse_input_shape",
    "parse_input_shape_bounds",
    "parse_layouts",
    "parse_per_input_values",
    "parse_transforms",
]


@dataclass
class InputSpec:
    """One item of --input: name[shape]{type}->value; name None: ovc's unnamed [shape], for the
    model's inputs in order."""

    name: str | None
    shape: Shape | None = None
    dtype: np.dtype | None = None
    value: np.ndarray | None = None
    bounds: Bounds | None = None  # '1..4' dimensions, kept in the IR's Parameter


@dataclass
class LayoutSpec:
    """One item of --layout: name(source->target); name None means the only input. Layouts are
    lists of dimension names (N, C, H, W, ?, ...)."""

    name: str | None
    source: list[str] | None = None
    target: list[str] | None = None


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
    tensorflow_custom_operations_config_update: Path | None = None  # TF: such a JSON to fill in
    # TF models with their variables apart (the folder or file is also opts.input_model)
    saved_model_dir: Path | None = None  # a SavedModel folder (saved_model.pb + variables/)
    saved_model_tags: list[str] | None = None  # its meta graph's tags (default: serve)
    input_meta_graph: Path | None = None  # a MetaGraphDef (.meta)
    input_checkpoint: Path | None = None  # the variables' checkpoint prefix
    input_symbol: Path | None = None  # MXNet *-symbol.json (default: derived from the .params)
    # Kaldi
    counts: str | None = None  # class counts file; "" for an nnet3 .mdl's <Priors>
    remove_output_softmax: bool | None = None  # None: not asked
    remove_memory: bool | None = None  # state as extra inputs/outputs, not ReadValue/Assign
    extra: dict[str, str] = field(default_factory=dict)
    # more MO flags (issue 18): common ones, then framework-specific ones
    scale: float | None = None  # --scale: every original input divided by it
    batch: int | None = None
    layouts: list[LayoutSpec] = field(default_factory=list)  # --layout/--source_/--target_layout
    static_shape: bool = False
    transforms: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    freeze: list[InputSpec] = field(default_factory=list)  # --freeze_placeholder_with_value
    input_model_is_text: bool | None = None  # TF
    mean_file: Path | None = None  # Caffe .binaryproto mean image
    disable_omitting_optional: bool | None = None  # Caffe, -k layers: every optional field
    enable_flattening_nested_params: bool | None = None  # Caffe, -k layers: outer__inner names
    legacy_mxnet_model: bool | None = None  # MXNet
    nd_prefix_name: str | None = None  # MXNet: weights from <prefix>_args.nd/_auxs.nd
    pretrained_model_name: Path | None = None  # MXNet: the checkpoint .nd files complete
    save_params_from_nd: bool | None = None  # MXNet: write the merged weights as .params
    enable_ssd_gluoncv: bool | None = None  # MXNet: GluonCV SSD anchors and box_nms

    def __post_init__(self) -> None:
        """Paths given as str (as from Python code) become Paths."""
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, str) and "Path" in str(f.type):
                setattr(self, f.name, Path(value))
        self.extensions = [Path(p) for p in self.extensions]

    def check_framework_flags(self, framework: str) -> None:
        """Refuse a framework-specific flag given for another framework's model (MO did): it
        would otherwise be ignored without a word."""
        for attr, (owner, flag) in _FRAMEWORK_FLAGS.items():
            if getattr(self, attr) not in (None, False) and owner != framework:
                msg = (f"{flag} is for {owner} models, but {self.input_model} is read as "
                       f"{framework}; drop it (or pass --framework if that guess is wrong)")
                raise UsageError(msg)


_FRAMEWORK_FLAGS = {
    "input_proto": ("caffe", "--input_proto"),
    "caffe_parser_path": ("caffe", "--caffe_parser_path"),
    "custom_layers_mapping": ("caffe", "-k/--custom_layers_mapping"),
    "transformations_config": ("tf", "--transformations_config"),
    "tensorflow_custom_operations_config_update": (
        "tf", "--tensorflow_custom_operations_config_update"),
    "saved_model_dir": ("tf", "--saved_model_dir"),
    "saved_model_tags": ("tf", "--saved_model_tags"),
    "input_meta_graph": ("tf", "--input_meta_graph"),
    "input_checkpoint": ("tf", "--input_checkpoint"),
    "input_symbol": ("mxnet", "--input_symbol"),
    "counts": ("kaldi", "--counts"),
    "remove_output_softmax": ("kaldi", "--remove_output_softmax"),
    "remove_memory": ("kaldi", "--remove_memory"),
    "input_model_is_text": ("tf", "--input_model_is_text"),
    "mean_file": ("caffe", "--mean_file"),
    "disable_omitting_optional": ("caffe", "--disable_omitting_optional"),
    "enable_flattening_nested_params": ("caffe", "--enable_flattening_nested_params"),
    "legacy_mxnet_model": ("mxnet", "--legacy_mxnet_model"),
    "nd_prefix_name": ("mxnet", "--nd_prefix_name"),
    "pretrained_model_name": ("mxnet", "--pretrained_model_name"),
    "save_params_from_nd": ("mxnet", "--save_params_from_nd"),
    "enable_ssd_gluoncv": ("mxnet", "--enable_ssd_gluoncv"),
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
    r"^(?P<name>[^\[{]*?)\s*(\[(?P<shape>[^\]]*)\])?\s*(\{(?P<type>[^}]*)\})?\s*"
    r"(->\s*(?P<value>.+))?$"
)


def parse_input(text: str) -> list[InputSpec]:
    """'data[1,3,224,224]{f32},mask{i64}->[1,0]' -> InputSpecs; '[1,3,224,224],[1,10]' (ovc):
    unnamed ones."""
    specs = []
    for item in _split_top(text):
        m = _INPUT_RE.match(item)
        if not m or not (m["name"].strip() or m["shape"] is not None):
            msg = f"--input item '{item}' is malformed; write name[shape]{{type}}->value"
            raise UsageError(msg)
        if not m["name"].strip() and (m["type"] or m["value"]):
            msg = (f"--input item '{item}': a type or value needs the input's name "
                   "(name[shape]{type}->value); a shape alone may go without: [1,3,224,224]")
            raise UsageError(msg)
        try:
            shape = parse_shape(m["shape"]) if m["shape"] is not None else None
            bounds = parse_bounds(m["shape"]) if m["shape"] is not None else None
            dtype = dtype_of(m["type"]) if m["type"] else None
            value = None
            if m["value"]:
                value = _value(m["value"], dtype)
        except ValueError as err:
            msg = f"--input item '{item}' is malformed: {err}"
            raise UsageError(msg) from None
        specs.append(InputSpec(m["name"].strip() or None, shape, dtype, value, bounds))
    if 0 < sum(s.name is None for s in specs) < len(specs):
        msg = f"--input '{text}': name every input or none (ovc's [1,3,224,224],[1,10])"
        raise UsageError(msg)
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


def _value(text: str, dtype: np.dtype | None) -> np.ndarray:
    """'[1 2 3]', '1,2', 'True': the value of a frozen input."""
    raw = text.strip().strip("[]").replace(",", " ").split()
    if raw and all(v.lower() in ("true", "false") for v in raw):
        return np.array([v.lower() == "true" for v in raw], dtype=dtype or np.bool_)
    return np.array([float(v) for v in raw], dtype=dtype or np.float32)


def parse_freeze(text: str) -> list[InputSpec]:
    """--freeze_placeholder_with_value 'name->value,name2->[1 2]' (MO's older --input ->value)."""
    specs = parse_input(text)
    bad = [s.name or text for s in specs if s.value is None]
    if bad:
        msg = (f"--freeze_placeholder_with_value: '{bad[0]}' has no value; "
               "write name->value, e.g. is_training->False")
        raise UsageError(msg)
    return specs


_DIMS = re.compile(r"\.\.\.|\?|[A-Za-z]")


def _layout(text: str, flag: str) -> list[str]:
    """'nchw', 'NC...', '[n,c,h,w]', '[n,?,c]' -> ['N', 'C', 'H', 'W']."""
    body = text.strip()
    if body.startswith("["):
        dims = [d.strip().upper() for d in body.strip("[]").split(",")]
    else:
        dims = [d.upper() for d in _DIMS.findall(body)]
        if "".join(dims) != body.upper():
            dims = []
    if not dims or any(not (d in ("?", "...") or d.isalpha()) for d in dims):
        msg = f"{flag} '{text}' is malformed; write nchw, [n,c,h,w] or name(nhwc->nchw)"
        raise UsageError(msg)
    return dims


def parse_layouts(flag: str, text: str) -> list[LayoutSpec]:
    """--layout 'nchw' | 'nhwc->nchw' | 'in1(nchw),in2(nhwc->nchw)'; --source_layout and
    --target_layout take the same without '->'."""
    specs = []
    for item in _split_top(text):
        m = re.match(r"^(?P<name>[^()\[\]]+?)?\s*\((?P<body>.*)\)$", item)
        name, body = (m["name"], m["body"]) if m else (None, item)
        source, arrow, target = body.partition("->")
        if arrow and flag != "--layout":
            msg = f"{flag} '{text}': '->' belongs in --layout (source->target)"
            raise UsageError(msg)
        spec = LayoutSpec(name.strip() if name else None)
        if flag == "--target_layout":
            spec.target = _layout(source, flag)
        else:
            spec.source = _layout(source, flag) if source.strip() else None
            spec.target = _layout(target, flag) if arrow else None
        specs.append(spec)
    return specs


_TRANSFORMS = ("LowLatency2", "MakeStateful", "Pruning")


def parse_transforms(text: str) -> list[tuple[str, dict[str, str]]]:
    """--transform 'LowLatency2[use_const_initializer=False],Pruning' -> [(name, args)]."""
    out = []
    for item in _split_top(text):
        m = re.match(r"^(?P<name>\w+)\s*(\[(?P<args>.*)\])?$", item)
        if m is None or m["name"] not in _TRANSFORMS:
            msg = (f"--transform {item}: unknown transformation; "
                   f"choose from {', '.join(_TRANSFORMS)}")
            raise UsageError(msg)
        args = dict(kv.split("=", 1) for kv in (m["args"] or "").split(";") if "=" in kv)
        out.append((m["name"], {k.strip(): v.strip() for k, v in args.items()}))
    return out
