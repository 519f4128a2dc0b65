"""Reading Caffe layer parameters the way Model Optimizer extractors did.

    param = node.pb.cosh_param
    attrs = collect_attributes(param)              # every field: {'alpha': 0.5, 'mode': 'FAST'}
    attrs = merge_attrs(param, {"alpha": param.alpha})

Values keep their Python types (bool, int, float, str, lists), so they reach an op's `evaluate`
as numbers; the IR writer turns them into text. Enum fields give the value's name.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from converter.errors import ModelFormatError
from converter.graph.graph import Node
from converter.ops.op import Op

__all__ = [
    "blob_array", "cast_attr", "collect_attributes", "embed_blobs", "get_layer_blobs", "get_param",
    "is_repeated", "merge_attrs",
]

_MESSAGE, _ENUM = 11, 14


def is_repeated(field) -> bool:
    """Whether a field descriptor is repeated (protobuf 6+ has no `label`)."""
    flag = getattr(field, "is_repeated", None)
    return bool(flag) if flag is not None else field.label == 3


def _scalar(field, value: Any) -> Any:
    if field.type == _ENUM:
        item = field.enum_type.values_by_number.get(value)
        return item.name if item is not None else int(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value


def collect_attributes(obj: Any, prefix: str = "", disable_omitting_optional: bool = False,
                       enable_flattening_nested_params: bool = False) -> dict[str, Any]:
    """Every field of a parameter message as {name: value}.

    Optional fields are kept when set, when the .proto gives them a default, or always with
    disable_omitting_optional; empty repeated fields are left out. Nested messages are walked:
    their fields are named `outer__inner` with enable_flattening_nested_params, else by their
    own name (the outer name is added only where two would collide)."""
    attrs: dict[str, Any] = {}
    if obj is None:
        return attrs
    for field in obj.DESCRIPTOR.fields:
        name = field.name
        if is_repeated(field):
            values = list(getattr(obj, name))
            if not values:
                continue
            if field.type == _MESSAGE:
                for i, sub in enumerate(values):
                    sub_prefix = f"{prefix}{name}_{i}__"
                    nested = collect_attributes(sub, sub_prefix, disable_omitting_optional,
                                                enable_flattening_nested_params)
                    _merge_nested(attrs, nested, sub_prefix, enable_flattening_nested_params)
                continue
            attrs[prefix + name] = [_scalar(field, v) for v in values]
            continue
        if field.type == _MESSAGE:
            if obj.HasField(name):
                inner = f"{prefix}{name}__"
                nested = collect_attributes(getattr(obj, name), inner, disable_omitting_optional,
                                            enable_flattening_nested_params)
                _merge_nested(attrs, nested, inner, enable_flattening_nested_params)
            continue
        if obj.HasField(name) or field.has_default_value or disable_omitting_optional:
            attrs[prefix + name] = _scalar(field, getattr(obj, name))
    return attrs


def _merge_nested(attrs: dict[str, Any], nested: dict[str, Any], prefix: str,
                  flatten: bool) -> None:
    for key, value in nested.items():
        short = key if flatten else key[len(prefix):] if key.startswith(prefix) else key
        attrs[key if short in attrs else short] = value


def merge_attrs(param: Any, update_attrs: dict[str, Any]) -> dict[str, Any]:
    """The entries of update_attrs whose keys are fields of param (MO's merge_attrs)."""
    known = collect_attributes(param, disable_omitting_optional=True)
    return {k: v for k, v in update_attrs.items() if k in known}


def blob_array(blob: Any, owner: str = "a weights blob") -> np.ndarray:
    """A BlobProto as a float32 array (legacy num/channels/height/width shapes kept 4-D); an
    error names owner ("layer 'conv' weights blob 0")."""
    if blob.HasField("shape"):
        shape = tuple(int(d) for d in blob.shape.dim)
    else:
        shape = (blob.num, blob.channels, blob.height, blob.width)
    data = blob.data if len(blob.data) else blob.double_data
    value = np.asarray(data, dtype=np.float32)
    if any(d < 0 for d in shape) or len(shape) > 32:
        msg = (f"{owner} has the shape {list(shape)}, which no array has "
               "(corrupt .caffemodel?)")
        raise ModelFormatError(msg)
    if value.size != math.prod(shape):
        if not blob.HasField("shape") and value.size and shape == (0, 0, 0, 0):
            return value
        msg = (f"{owner} holds {value.size} values for the shape {list(shape)} "
               "(corrupt .caffemodel?)")
        raise ModelFormatError(msg)
    return value.reshape(shape)


def get_layer_blobs(node: Node) -> list[np.ndarray]:
    """The layer's weights from the .caffemodel (node.model_pb), as arrays."""
    model = node.soft_get("model_pb", None)
    if model is None:
        return []
    name = node.soft_get("name", node.id)
    return [blob_array(b, f"layer '{name}' weights blob {i}") for i, b in enumerate(model.blobs)]


def embed_blobs(node: Node) -> int:
    """Connect the layer's .caffemodel blobs as Const inputs after its bottoms (MO's embed_input
    for `weights`, `biases`, `custom_2`, ...); returns how many were added."""
    blobs = get_layer_blobs(node)
    first = len(node.in_ports())
    for i, value in enumerate(blobs):
        name = ("weights", "biases")[i] if i < 2 else f"custom_{i}"
        const = Op.builtin_ops["Const"](node.graph).create_node(
            attrs={"name": f"{node.soft_get('name', node.id)}/{name}", "value": value}
        )
        node.add_input_port(first + i, skip_if_exist=True)
        const.out_port(0).connect(node.in_port(first + i))
    return len(blobs)


_CASTS = {
    "int": int, "float": float,
    "bool": lambda v: v.lower() in ("1", "true") if isinstance(v, str) else bool(v),
    "string": str,
    "int_list": lambda v: [int(x) for x in (v if isinstance(v, (list, tuple)) else [v])],
    "float_list": lambda v: [float(x) for x in (v if isinstance(v, (list, tuple)) else [v])],
}


def cast_attr(value: Any, kind: str) -> Any:
    """A parameter value as the attribute type a generated op declares (int, float, bool,
    string, int_list, float_list)."""
    return _CASTS[kind](value)


def get_param(param: Any, name: str, default: Any, kind: str | None = None) -> Any:
    """Field `name` of a parameter message when the model sets it, else default (also when the
    caffe.proto in use has no such field); cast to kind when given."""
    if param is None or name not in param.DESCRIPTOR.fields_by_name:
        return default
    field = param.DESCRIPTOR.fields_by_name[name]
    if is_repeated(field):
        values = [_scalar(field, v) for v in getattr(param, name)]
        if not values:
            return default
        value: Any = values
    elif field.type == _MESSAGE or not param.HasField(name):
        return default
    else:
        value = _scalar(field, getattr(param, name))
    return cast_attr(value, kind) if kind else value
