"""Small legacy helpers: MO's Error classes, refer_to_faq_msg, rename_node, ONNX, layout and
attribute helpers that have no equivalent elsewhere in the converter."""

from __future__ import annotations

import functools
import logging
import warnings
from typing import Any

import numpy as np

from converter.errors import ConversionError
from converter.graph.graph import Node
from converter.legacy.shapes import shape_array

__all__ = [
    "Error", "FrameworkError", "InternalError", "NamedAttrsClass", "add_or_override_extractor",
    "array_to_str", "attr_getter", "get_dim_from_layout", "group_by_with_binary_predicate",
    "indices_mapping", "shrink_str_value", "unique_by",
    "bool_to_str", "check_for_duplicates", "deprecated_api", "dict_includes",
    "extension_op_extractor", "get_onnx_datatype_as_numpy", "log",
    "get_backend_pad", "get_batch_dim", "get_canonical_axis_index", "get_depth_dim",
    "get_features_dim", "get_height_dim", "get_onnx_autopad", "get_onnx_opset_version",
    "get_width_dim", "layout_attrs", "onnx_get_num_outputs", "parse_custom_replacement_config_file",
    "parse_transform",
    "refer_to_faq_msg",
    "register_caffe_python_extractor", "rename_node", "rename_nodes", "shape_for_layout",
]


log = logging  # mo.utils.logger.log: MO's extension code logs through the logging module


class Error(ConversionError):
    """mo.utils.error.Error: `Error(message, *args)` formats message with args; one line."""

    def __init__(self, message: Any = "", *args: Any) -> None:
        text = str(message)
        if args:
            try:
                text = text.format(*args)
            except (IndexError, KeyError, ValueError):
                text = " ".join([text, *map(str, args)])
        super().__init__(" ".join(text.split()))


class FrameworkError(Error):
    """mo.utils.error.FrameworkError."""


class InternalError(Error):
    """mo.utils.error.InternalError."""


def deprecated_api(class_name: Any = None, new_method_name: str | None = None) -> Any:
    """Decorator: calling the function warns (DeprecationWarning) that it is deprecated,
    naming `class_name.new_method_name` (default: the function's name) to use instead."""
    def wrap(func: Any) -> Any:
        @functools.wraps(func)
        def call(*args: Any, **kwargs: Any) -> Any:
            text = f"Call to deprecated function {func.__name__}."
            if class_name is not None:
                owner = class_name if isinstance(class_name, str) else class_name.__name__
                text += f" Please use {owner}.{new_method_name or func.__name__} method"
            warnings.warn(text, DeprecationWarning, stacklevel=2)
            return func(*args, **kwargs)
        return call
    return wrap


def parse_custom_replacement_config_file(file_name: str) -> list:
    """The descriptions of a --transformations_config JSON file, in file order."""
    from converter.front.tf.replacement_config import load_transformations_config

    return [d for group in load_transformations_config(file_name).values() for d in group]


def get_onnx_datatype_as_numpy(value: int) -> Any:
    """The numpy type of an ONNX TensorProto data type number."""
    import onnx

    try:
        return onnx.helper.tensor_dtype_to_np_dtype(value).type
    except (KeyError, ValueError, TypeError) as err:
        msg = f"Incorrect value {value} for Datatype enum"
        raise Error(msg) from err


def check_for_duplicates(extractors_collection: dict) -> dict:
    """{lowercase name: name} of an extractor table; Error when two names differ by case only."""
    groups: dict[str, list] = {}
    for name in extractors_collection:
        groups.setdefault(name.lower(), []).append(name)
    twins = [names for names in groups.values() if len(names) > 1]
    if twins:
        msg = f"Extractors collection have case insensitive duplicates {twins}."
        raise Error(msg)
    return {low: names[0] for low, names in groups.items()}


def add_or_override_extractor(extractors: dict, keys: dict, name: str, extractor: Any,
                              extractor_desc: str = "") -> None:
    """Put extractor under name, replacing an entry whose name differs only by case."""
    old = keys.get(name.lower())
    if old is not None:
        extractors.pop(old, None)
    extractors[name] = extractor
    keys[name.lower()] = name


def extension_op_extractor(node: Node, op_cls: Any) -> dict:
    """Give node op_cls's attributes (an op class bound without an extractor); its attrs."""
    op_cls.update_node_stat(node)
    return node.attrs()


def refer_to_faq_msg(question_num: int) -> str:
    return f" (legacy Model Optimizer FAQ #{question_num})"


def rename_node(node: Node, name: str) -> None:
    node["name"] = name


def rename_nodes(pairs: list[tuple[Node, str]]) -> None:
    """Set `name` on each node (MO's rename_nodes)."""
    for node, name in pairs:
        rename_node(node, name)


def get_onnx_opset_version(node: Node) -> int:
    return node.graph.graph.get("fw_opset_version", 0)


def onnx_get_num_outputs(node: Node) -> int:
    return len(node.pb.output)


def get_onnx_autopad(auto_pad: bytes | str) -> str | None:
    text = (auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad).lower()
    return None if text == "notset" else text


def get_backend_pad(pads: Any, spatial_dims: Any, axis: int) -> list:
    """Side `axis` (0 begin, 1 end) of MO's per-dimension [[begin, end], ...] pads, for the
    spatial dimensions."""
    return [p[axis] for p in np.asarray(pads)[spatial_dims]]


def _dim(layout: str, ndim: int, letter: str) -> int:
    """Index of N, C, D (5-D only), H or W in a 4-D or 5-D NCHW/NHWC shape."""
    if layout == "NCHW":
        return {"N": 0, "C": 1, "D": 2, "H": ndim - 2, "W": ndim - 1}[letter]
    return {"N": 0, "C": ndim - 1, "D": 1, "H": ndim - 3, "W": ndim - 2}[letter]


def get_batch_dim(layout: str, ndim: int) -> int:
    return _dim(layout, ndim, "N")


def get_features_dim(layout: str, ndim: int) -> int:
    return _dim(layout, ndim, "C")


def get_height_dim(layout: str, ndim: int) -> int:
    return _dim(layout, ndim, "H")


def get_width_dim(layout: str, ndim: int) -> int:
    return _dim(layout, ndim, "W")


def get_depth_dim(layout: str, ndim: int) -> int:
    return _dim(layout, ndim, "D")


_LAYOUT_KEYS = {"batch": "N", "features": "C", "depth": "D", "height": "H", "width": "W"}


def shape_for_layout(layout: str, **dims: Any) -> np.ma.MaskedArray:
    """A 4-D (5-D with depth=) shape in layout from batch=, features=, height=, width=."""
    missing = [k for k in ("batch", "features", "height", "width") if k not in dims]
    unknown = [k for k in dims if k not in _LAYOUT_KEYS]
    if missing or unknown or layout not in ("NCHW", "NHWC"):
        msg = (f"shape_for_layout({layout!r}): give batch, features, height and width (and "
               f"optionally depth); missing {missing}, unknown {unknown}")
        raise Error(msg)
    ndim = 5 if "depth" in dims else 4
    shape: list[Any] = [None] * ndim
    for key, value in dims.items():
        shape[_dim(layout, ndim, _LAYOUT_KEYS[key])] = value
    return shape_array(shape)


def layout_attrs() -> dict[str, Any]:
    """mo.front.common.extractors.utils.layout_attrs: the NCHW layout attributes of an op."""
    return {"spatial_dims": np.array([2, 3], np.int64), "channel_dims": np.array([1], np.int64),
            "batch_dims": np.array([0], np.int64), "layout": "NCHW"}


def get_canonical_axis_index(shape: Any, axis: int) -> int:
    """A negative axis counted from the end of shape."""
    return len(shape) + axis if axis < 0 else axis


def bool_to_str(node: Node, attr: str) -> str | None:
    """The IR spelling ('true'/'false') of a bool, 0/1 or '0'/'1' attribute; None if unset."""
    value = node.soft_get(attr, None)
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value)).lower()
    if isinstance(value, (str, int, np.integer)) and str(value) in ("0", "1"):
        return str(bool(int(value))).lower()
    return None


def attr_getter(node: Node, name: str) -> str | None:
    """An attribute as the IR writes it: lists and arrays comma-joined; None if absent."""
    if not node.has(name):
        return None
    value = node[name]
    return ",".join(map(str, value)) if isinstance(value, (list, np.ndarray)) else str(value)


def dict_includes(big: dict, sub_dict: dict, skip_attr_names: Any = ()) -> bool:
    """Every entry of sub_dict matches big: a callable probe is called with big's value, any
    other value compared with ==."""
    def matches(have: Any, want: Any) -> bool:
        if callable(want) and not isinstance(want, type):
            return bool(want(have))
        return bool(np.all(have == want))

    return all(matches(big.get(k), v) for k, v in sub_dict.items() if k not in skip_attr_names)


def register_caffe_python_extractor(op: Any, name: str | None = None) -> None:
    """MO's helper for Caffe Python layers: op's update_node_stat, with param_str's values, is the
    extractor of layers `name` ('module.layer'; default op.op)."""
    from converter.front.caffe.extractor import CaffePythonFrontExtractorOp

    name = name or getattr(op, "op", None)
    if not name:
        msg = f"register_caffe_python_extractor({op.__name__}): give the 'module.layer' name"
        raise Error(msg)

    def extract(cls, node: Node) -> bool:
        op.update_node_stat(node, cls.get_attrs(node))
        return True

    type(f"{op.__name__}PythonExtractor", (CaffePythonFrontExtractorOp,), {
        "op": name, "enabled": True, "extract": classmethod(extract), "__module__": op.__module__,
    })


# mo.front.common.layout: 4-D and 5-D layout names by rank
indices_mapping = {4: {"NCHW": "NCHW", "NHWC": "NHWC"}, 5: {"NCHW": "NCDHW", "NHWC": "NDHWC"}}


def _layout_names(layout: str) -> list[str]:
    """'NCHW', '[N,C,H,W]' or 'N...C' as dimension names ('...' kept as one name)."""
    if layout.startswith("["):
        return [d.strip() for d in layout.strip("[]").split(",")]
    return layout.replace("...", ".").replace(".", " ... ").split()


def get_dim_from_layout(node: Node, dim: str) -> tuple[int | None, bool]:
    """(index of dim in the layout given for node, whether a layout was given): MO's
    --layout values, read from graph.graph['cmd_params'].layout_values ({name: {'source_layout':
    layout}}; the '' key means the only Parameter)."""
    params = node.graph.graph.get("cmd_params")
    values = dict(getattr(params, "layout_values", None) or {})
    inputs = node.graph.get_op_nodes(op="Parameter")
    if "" in values and len(inputs) == 1:
        values[inputs[0].soft_get("name", inputs[0].id)] = values.pop("")
    layout = (values.get(node.soft_get("name", node.id)) or {}).get("source_layout")
    if not layout:
        return None, False
    names = _layout_names(layout)
    if dim not in names:
        return None, True
    idx = names.index(dim)
    if "..." in names and idx > names.index("..."):
        idx = len(node.shape) - (len(names) - idx)
    return idx, True


class NamedAttrsClass:
    """An object whose attributes are the given dict's items."""

    def __init__(self, class_attrs: dict) -> None:
        for key, val in class_attrs.items():
            setattr(self, key, val)


def array_to_str(node: Node, attr: str) -> str | None:
    return ",".join(map(str, node[attr])) if node.has_valid(attr) else None


def shrink_str_value(value: Any, max_symbols: int = 100) -> str:
    """str(value), cut to max_symbols with '...' at the end."""
    text = str(value)
    return text.strip("\n")[:max_symbols - 3] + "..." if len(text) > max_symbols else text


def group_by_with_binary_predicate(xs: list, predicate: Any) -> list[list]:
    """Runs of xs in which predicate(previous, next) holds, as lists."""
    groups: list[list] = []
    for x in xs:
        if groups and predicate(groups[-1][-1], x):
            groups[-1].append(x)
        else:
            groups.append([x])
    return groups


def unique_by(xs: list, predicate: Any) -> list:
    """The first element of each group_by_with_binary_predicate run."""
    return [group[0] for group in group_by_with_binary_predicate(xs, predicate)]


def parse_transform(transform: str) -> list[tuple[str, dict[str, Any]]]:
    """MO's --transform value 'Name[key=value;key=v1,v2],Other' -> [(name, {key: value})],
    values typed as MO typed them (a dict literal; else ints, floats, booleans as 1/0, a list
    where comma-separated); a malformed value raises Error."""
    import re

    items = re.findall(r"([a-zA-Z0-9]+)(\[([^\]]+)\])*(,|$)", transform)
    if sum(len(name) + len(bracket) + len(end) for name, bracket, _, end in items) \
            != len(transform):
        raise Error(f"Unexpected transform key structure: {transform}")
    out = []
    for name, _, args, _ in items:
        typed = {}
        for arg in args.split(";") if args else []:
            m = re.match(r"^([_a-zA-Z]+)=(.+)$", arg)
            if m is None:
                raise Error(f"Unrecognized attributes for transform key: {arg}")
            typed[m.group(1)] = _typed_value(m.group(2))
        out.append((name, typed))
    return out


_BOOLS = {**dict.fromkeys(("y", "yes", "t", "true", "on", "1"), 1),
          **dict.fromkeys(("n", "no", "f", "false", "off", "0"), 0)}


def _typed_value(text: str) -> Any:
    import ast

    try:
        value = ast.literal_eval(text)
        if isinstance(value, dict):
            return value
    except (ValueError, SyntaxError):
        pass
    values: list[Any] = text.split(",")
    for i, item in enumerate(values):
        if item.isdigit():
            values[i] = int(item)
        elif _is_float(item):
            values[i] = float(item)
        elif item.lower() in _BOOLS:
            values[i] = _BOOLS[item.lower()]
    return values[0] if len(values) == 1 else values


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
