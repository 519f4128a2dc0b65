"""Reading TensorFlow NodeDef attributes and tensors, under the Model Optimizer's helper names
(what MO-style extractors and the generated `front/tf/*_ext.py` call):

    attrs = collect_tf_attrs(node.pb.attr)                      # every attribute, decoded
    dtype = tf_dtype_extractor(node.pb.attr["T"].type)          # numpy dtype
    shape = tf_tensor_shape(node.pb.attr["shape"].shape)        # int64 array, -1 = unknown
    pad = convert_tf_padding_to_str(node.pb.attr["padding"].s)  # 'same_upper' | 'valid'
    spatial = tf_data_format_spatial(node.pb.attr["data_format"])  # [1, 2] for NHWC
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import numpy as np

from converter.errors import ModelFormatError

__all__ = [
    "TF_DTYPES",
    "VAL_FIELDS",
    "attr_value",
    "collect_tf_attrs",
    "convert_tf_padding_to_str",
    "defined_dtype",
    "get_tf_node_port",
    "tf_data_format_batch",
    "tf_data_format_channel",
    "tf_data_format_spatial",
    "tf_dtype_extractor",
    "tf_int_list",
    "tf_tensor_content",
    "tf_tensor_shape",
]

# DataType enum value -> numpy dtype (the *_REF variants are value + 100)
TF_DTYPES: dict[int, np.dtype] = {
    1: np.dtype(np.float32), 2: np.dtype(np.float64), 3: np.dtype(np.int32),
    4: np.dtype(np.uint8), 5: np.dtype(np.int16), 6: np.dtype(np.int8),
    7: np.dtype(object), 8: np.dtype(np.complex64), 9: np.dtype(np.int64), 10: np.dtype(np.bool_),
    18: np.dtype(np.complex128),
    17: np.dtype(np.uint16), 19: np.dtype(np.float16), 22: np.dtype(np.uint32),
    23: np.dtype(np.uint64),
}
# numpy dtype -> the TensorProto field holding typed values
VAL_FIELDS = {
    "float32": "float_val", "float64": "double_val", "int32": "int_val", "uint8": "int_val",
    "int16": "int_val", "int8": "int_val", "uint16": "int_val", "int64": "int64_val",
    "bool": "bool_val", "float16": "half_val", "uint32": "uint32_val", "uint64": "uint64_val",
    "object": "string_val", "complex64": "scomplex_val", "complex128": "dcomplex_val",
}
_PADDING = {"SAME": "same_upper", "VALID": "valid", "EXPLICIT": "explicit"}
# the most bytes a tensor stored as a few values filling its shape may grow to in memory
MAX_FILLED_BYTES = 1 << 30


@cache
def _defined_dtypes() -> frozenset[int]:
    from converter.front.tf.loader import graph_def_class  # the loader reads these attributes

    enum = graph_def_class().DESCRIPTOR.file.pool.FindEnumTypeByName("tensorflow.DataType")
    return frozenset(enum.values_by_number)


def defined_dtype(pb_dtype: int) -> bool:
    """Whether TensorFlow's DataType enum has the value (0, DT_INVALID: not set)."""
    return int(pb_dtype) in _defined_dtypes()


def tf_dtype_extractor(pb_dtype: int, default: Any = None) -> np.dtype:
    """A DataType enum value as a numpy dtype (default when it is not set or has none); a
    value TensorFlow does not define is a ModelFormatError."""
    code = int(pb_dtype)
    if not defined_dtype(code):
        msg = f"{code} is not a TensorFlow data type (corrupt model)"
        raise ModelFormatError(msg)
    dtype = TF_DTYPES.get(code - 100 if code > 100 else code)  # *_REF: the type + 100
    if dtype is None:
        if default is not None:
            return np.dtype(default)
        msg = f"TensorFlow data type {code} is not supported"
        raise ModelFormatError(msg)
    return dtype


def tf_tensor_shape(pb) -> np.ndarray:
    """A TensorShapeProto as an int64 array (-1 for an unknown dimension)."""
    return np.array([dim.size for dim in pb.dim], dtype=np.int64)


def tf_int_list(pb_list) -> np.ndarray:
    return np.array(pb_list.i, dtype=np.int64)


def _element_count(shape: tuple[int, ...]) -> int:
    """The number of elements of a tensor's declared shape; refuses one no array can have."""
    if any(d < 0 for d in shape):
        msg = f"tensor shape {list(shape)} has a negative (unknown) dimension"
        raise ModelFormatError(msg)
    if len(shape) > 32:
        msg = f"tensor shape has {len(shape)} dimensions, more than a tensor may have (32)"
        raise ModelFormatError(msg)
    return math.prod(shape)


def tf_tensor_content(tf_dtype: int, shape, pb_tensor) -> np.ndarray:
    """A TensorProto's value: raw tensor_content, or the typed *_val field; a few typed values
    fill the whole shape (TF's broadcast form of constants) up to MAX_FILLED_BYTES."""
    dtype = tf_dtype_extractor(tf_dtype)
    shape = tuple(int(d) for d in shape)
    count = _element_count(shape)
    if pb_tensor.tensor_content:
        raw = pb_tensor.tensor_content
        if dtype == np.dtype(object) or len(raw) != count * dtype.itemsize:
            msg = (f"tensor of shape {list(shape)} ({dtype}) holds {len(raw)} bytes of content, "
                   f"expected {count * dtype.itemsize}")
            raise ModelFormatError(msg)
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    values = list(getattr(pb_tensor, VAL_FIELDS[dtype.name]))
    if dtype == np.float16:
        array = np.array(values, dtype=np.uint16).view(np.float16)
    elif dtype.kind == "c":  # (re, im) pairs of floats
        array = np.array(values, dtype=np.float32 if dtype.itemsize == 8 else np.float64)
        array = array.view(dtype)
    elif dtype == np.dtype(object):
        array = np.array([v.decode("utf-8", "replace") for v in values], dtype=object)
    else:
        array = np.array(values, dtype=dtype)
    if array.size == count:
        return array.reshape(shape)
    if array.size > count:
        msg = f"tensor of shape {list(shape)} holds {array.size} values, expected {count}"
        raise ModelFormatError(msg)
    if count * dtype.itemsize > MAX_FILLED_BYTES:
        msg = (f"tensor of shape {list(shape)} ({dtype}) is given by {array.size} value(s) and "
               f"would fill {count * dtype.itemsize / 2**30:.1f} GiB; the converter fills at "
               f"most {MAX_FILLED_BYTES >> 30} GiB")
        raise ModelFormatError(msg)
    if array.size == 0:
        return np.zeros(shape, dtype=dtype)
    # TF fills the rest with the last value given
    full = np.empty(count, dtype=dtype)
    full[: array.size] = array
    full[array.size:] = array[-1]
    return full.reshape(shape)


def convert_tf_padding_to_str(padding: str | bytes) -> str:
    """TF padding ('SAME' | 'VALID' | 'EXPLICIT') as the IR's auto_pad value (SAME puts the odd
    padding at the end: same_upper)."""
    text = padding.decode("utf-8") if isinstance(padding, bytes) else str(padding)
    try:
        return _PADDING[text]
    except KeyError:
        msg = f"padding '{text}' is not one of SAME, VALID, EXPLICIT"
        raise ModelFormatError(msg) from None


def _format(pb) -> str:
    s = pb.s if hasattr(pb, "s") else pb
    return s.decode("utf-8") if isinstance(s, bytes) else str(s)


def tf_data_format_spatial(pb) -> list[int]:
    """Axes of the spatial dimensions for a data_format attribute ('NHWC' -> [1, 2])."""
    fmt = _format(pb) or "NHWC"
    return [fmt.index(c) for c in ("DHW" if "D" in fmt else "HW")]


def tf_data_format_channel(pb) -> list[int]:
    return [(_format(pb) or "NHWC").index("C")]


def tf_data_format_batch(pb) -> list[int]:
    return [(_format(pb) or "NHWC").index("N")]


def get_tf_node_port(tensor: str) -> tuple[str, int]:
    """'name:1' -> ('name', 1); 'name' -> ('name', 0)."""
    name, sep, port = tensor.rpartition(":")
    if sep and port.isdigit():
        return name, int(port)
    return tensor, 0


def _tensor(pb) -> np.ndarray:
    return tf_tensor_content(pb.dtype, tf_tensor_shape(pb.tensor_shape), pb)


def attr_value(av) -> Any:
    """One AttrValue decoded: str, int, float, bool, numpy dtype, shape (int64 array),
    tensor (numpy) or a list of those; None when unset."""
    kind = av.WhichOneof("value")
    if kind is None:
        return None
    if kind == "s":
        return av.s.decode("utf-8", "replace")
    if kind == "type":
        return tf_dtype_extractor(av.type, np.float32)
    if kind == "shape":
        return None if av.shape.unknown_rank else tf_tensor_shape(av.shape)
    if kind == "tensor":
        return _tensor(av.tensor)
    if kind == "func":
        return av.func.name
    if kind == "list":
        lst = av.list
        for field, conv in (("s", lambda v: v.decode("utf-8", "replace")), ("i", int),
                            ("f", float), ("b", bool), ("type", tf_dtype_extractor),
                            ("shape", tf_tensor_shape), ("tensor", _tensor)):
            items = getattr(lst, field)
            if len(items):
                return [conv(v) for v in items]
        return []
    return getattr(av, kind)


def collect_tf_attrs(attrs) -> dict[str, Any]:
    """Every attribute of a NodeDef's attr map, decoded (MO's collect_tf_attrs)."""
    return {key: attr_value(attrs[key]) for key in sorted(attrs)}
