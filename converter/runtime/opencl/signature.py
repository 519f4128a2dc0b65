"""Parse the parameter list of `__kernel void <entry>(...)` from OpenCL C source."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

__all__ = ["Param", "kernel_params"]

_SCALARS = {
    "half": np.float16, "float": np.float32, "double": np.float64, "char": np.int8,
    "uchar": np.uint8, "short": np.int16, "ushort": np.uint16, "int": np.int32, "uint": np.uint32,
    "long": np.int64, "ulong": np.uint64, "size_t": np.uint64, "bool": np.uint8,
}
_UNSIGNED = {"char": "uchar", "short": "ushort", "int": "uint", "long": "ulong"}


@dataclass(frozen=True)
class Param:
    name: str
    dtype: np.dtype | None  # element type (pointee for pointers); None when not a known type
    pointer: bool
    local: bool


def _strip_comments(src: str) -> str:
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    return re.sub(r"//[^\n]*", "", src)


def _param(text: str) -> Param:
    tokens = re.findall(r"[A-Za-z_]\w*|\*", re.sub(r"__attribute__\s*\(\(.*?\)\)", " ", text))
    words = [t for t in tokens if t != "*"]
    dtype = None
    for w in words[:-1]:
        base = re.sub(r"(2|3|4|8|16)$", "", w)
        if base in _SCALARS:
            if "unsigned" in words:
                base = _UNSIGNED.get(base, base)
            dtype = np.dtype(_SCALARS[base])
            break
    else:
        if "unsigned" in words[:-1]:
            dtype = np.dtype(np.uint32)
    return Param(words[-1], dtype, "*" in tokens, bool({"__local", "local"} & set(words)))


def kernel_params(source: str, entry: str) -> list[Param] | None:
    """The parameters of kernel `entry`, in order; None when the source defines no such kernel."""
    src = _strip_comments(source)
    pat = rf"\b(?:__)?kernel\b[^;{{}}]*?\b{re.escape(entry)}\s*\("
    m = re.search(pat, src)
    if m is None:
        return None
    depth, start, parts = 1, m.end(), []
    i = start
    while i < len(src) and depth:
        ch = src[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if (ch == "," and depth == 1) or depth == 0:
            parts.append(src[start:i])
            start = i + 1
        i += 1
    parts = [p.strip() for p in parts if p.strip() and p.strip() != "void"]
    return [_param(p) for p in parts]
