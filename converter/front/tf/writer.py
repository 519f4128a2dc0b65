"""Build and save frozen GraphDefs with the converter's own protos (no TensorFlow): what the
tests and examples use to write small .pb/.pbtxt models.

    g = GraphBuilder()
    x = g.placeholder("x", [1, 28, 28, 1])
    w = g.const("w", np.ones((3, 3, 1, 8), np.float32))
    y = g.node("Conv2D", "conv", [x, w], T=np.float32, strides=[1, 1, 1, 1], padding="SAME")
    g.save("model.pb")  # or .pbtxt
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from google.protobuf import text_format

from converter.front.tf.attrs import TF_DTYPES
from converter.front.tf.loader import graph_def_class

__all__ = ["GraphBuilder", "set_attr", "tf_dtype"]

_DTYPE_CODES = {dt: code for code, dt in TF_DTYPES.items() if dt != np.dtype(object)}


def tf_dtype(dtype: Any) -> int:
    return _DTYPE_CODES[np.dtype(dtype)]


def _fill_tensor(pb, value: np.ndarray) -> None:
    value = np.asarray(value)
    pb.dtype = tf_dtype(value.dtype)
    for d in value.shape:
        pb.tensor_shape.dim.add(size=int(d))
    pb.tensor_content = np.ascontiguousarray(value).tobytes()


def set_attr(av, value: Any) -> None:
    """Set an AttrValue from a Python value: str/bytes, bool, int, float, numpy dtype or type,
    ('shape', dims), numpy array (tensor), or a list of ints/floats/strings/dtypes."""
    if isinstance(value, tuple) and value and value[0] == "shape":
        if value[1] is None:
            av.shape.unknown_rank = True
        else:
            for d in value[1]:
                av.shape.dim.add(size=int(d))
            if not value[1]:
                av.shape.SetInParent()
    elif isinstance(value, bytes):
        av.s = value
    elif isinstance(value, str):
        av.s = value.encode()
    elif isinstance(value, bool):
        av.b = value
    elif isinstance(value, (int, np.integer)):
        av.i = int(value)
    elif isinstance(value, (float, np.floating)):
        av.f = float(value)
    elif isinstance(value, np.ndarray):
        _fill_tensor(av.tensor, value)
    elif isinstance(value, (np.dtype, type)):
        av.type = tf_dtype(value)
    elif isinstance(value, list):
        av.list.SetInParent()
        for v in value:
            if isinstance(v, (str, bytes)):
                av.list.s.append(v.encode() if isinstance(v, str) else v)
            elif isinstance(v, (float, np.floating)):
                av.list.f.append(float(v))
            elif isinstance(v, (np.dtype, type)):
                av.list.type.append(tf_dtype(v))
            else:
                av.list.i.append(int(v))
    else:
        msg = f"cannot store {value!r} as a TF attribute"
        raise TypeError(msg)


class GraphBuilder:
    """A GraphDef under construction; node() returns the output tensor name."""

    def __init__(self) -> None:
        self.graph_def = graph_def_class()()
        self.graph_def.versions.producer = 1087

    def node(self, op: str, name: str, inputs: list[str] = (), **attrs: Any) -> str:
        pb = self.graph_def.node.add(name=name, op=op)
        pb.input.extend(inputs)
        for key, value in attrs.items():
            set_attr(pb.attr[key], value)
        return name

    def placeholder(self, name: str, shape: list[int] | None, dtype: Any = np.float32) -> str:
        return self.node("Placeholder", name, dtype=np.dtype(dtype), shape=("shape", shape))

    def const(self, name: str, value: Any, dtype: Any = None) -> str:
        value = np.asarray(value, dtype=dtype)
        return self.node("Const", name, dtype=value.dtype, value=value)

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        if path.suffix == ".pbtxt":
            path.write_text(text_format.MessageToString(self.graph_def))
        else:
            path.write_bytes(self.graph_def.SerializeToString(deterministic=True))
        return path
