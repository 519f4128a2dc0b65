"""Layouts, the SimpleGPU built-in JIT macros, and running `half` kernels in float32.

The macros are spelled as OpenVINO's GPU plugin writes them (graph/impls/ocl/custom_primitive.cpp
get_jit_constant and add_layout_to_jit, with kernel_selector jitter.h's vector constants): each
array NAME comes with NAME_SIZE and NAME_INIT, `<T>_FORMAT_<F>` is defined empty."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from converter.errors import KernelConfigError

__all__ = [
    "PLUGIN_TYPES", "TensorDesc", "bfyx", "builtins", "cl_type", "from_layout", "map_half",
    "padded", "pitches", "to_layout",
]

# Axis order in memory (outermost first) of each format, as positions in B,F,Y,X.
# ANY means "whatever the plugin has", which here is always plain BFYX.
_ORDER = {"BFYX": (0, 1, 2, 3), "ANY": (0, 1, 2, 3), "BYXF": (0, 2, 3, 1),
          "YXFB": (2, 3, 1, 0), "FYXB": (1, 2, 3, 0)}
_CL_TYPES = {
    "float32": "float", "float16": "half", "float64": "double", "int8": "char", "uint8": "uchar",
    "int16": "short", "uint16": "ushort", "int32": "int", "uint32": "uint", "int64": "long",
    "uint64": "ulong", "bool": "uchar",
}
# the tensor types the GPU plugin's add_layout_to_jit knows (i8 u8 i32 i64 f16 f32): it asserts
# on any other ("unhandled data type in layout")
PLUGIN_TYPES = frozenset({"int8", "uint8", "int32", "int64", "float16", "float32"})


def bfyx(shape: Sequence[int]) -> tuple[int, int, int, int]:
    """A shape as 4D B,F,Y,X: rank < 4 fills the missing trailing dims with 1 ([N,C] -> N,C,1,1)."""
    if len(shape) > 4:
        msg = f"a rank-{len(shape)} tensor {list(shape)} cannot bind to a 4D BFYX kernel tensor"
        raise KernelConfigError(msg)
    dims = (*(int(d) for d in shape), *(1,) * (4 - len(shape)))
    return dims[0], dims[1], dims[2], dims[3]


def padded(shape: Sequence[int], lower: Sequence[int],
           upper: Sequence[int]) -> tuple[int, int, int, int]:
    """The B,F,Y,X dims of a tensor of shape with lower and upper padding on each."""
    d = bfyx(shape)
    return d[0] + lower[0] + upper[0], d[1] + lower[1] + upper[1], \
        d[2] + lower[2] + upper[2], d[3] + lower[3] + upper[3]


def pitches(dims: Sequence[int], fmt: str) -> list[int]:
    """Element strides of a 4D tensor stored in `fmt`, listed in B,F,Y,X order."""
    out, step = [0] * 4, 1
    for axis in reversed(_ORDER[fmt]):
        out[axis] = step
        step *= dims[axis]
    return out


def to_layout(a: np.ndarray, fmt: str) -> np.ndarray:
    """A contiguous copy of `a` (any rank <= 4) laid out as `fmt`."""
    return np.ascontiguousarray(a.reshape(bfyx(a.shape)).transpose(_ORDER[fmt]))


def from_layout(flat: np.ndarray, shape: Sequence[int], fmt: str) -> np.ndarray:
    """Undo `to_layout`: a flat buffer in `fmt` back to a plain array of `shape`."""
    dims = bfyx(shape)
    stored = flat.reshape([dims[a] for a in _ORDER[fmt]])
    return np.ascontiguousarray(stored.transpose(np.argsort(_ORDER[fmt]))).reshape(tuple(shape))


def cl_type(dtype: np.dtype) -> str:
    return _CL_TYPES[np.dtype(dtype).name]


@dataclass(frozen=True)
class TensorDesc:
    """What a SimpleGPU kernel is told about one tensor."""

    prefix: str  # INPUT0, OUTPUT0, ...
    shape: tuple[int, ...]
    dtype: np.dtype
    format: str
    lower: tuple[int, ...] = (0, 0, 0, 0)  # padding before each of B,F,Y,X
    upper: tuple[int, ...] = (0, 0, 0, 0)  # and after


def _vector(name: str, kind: str, values: Sequence[int]) -> list[str]:
    """NAME_SIZE, NAME_INIT and NAME of an array constant, as jitter.h's VectorDataJitConstant
    writes them: `(int []){ 1,2, } `; an empty array is `(ulong []){  } `."""
    init = f"{{ {''.join(f'{v},' for v in values)} }} "
    return [f"#define {name}_SIZE {len(values)}", f"#define {name}_INIT {init}",
            f"#define {name} ({kind} []){init}"]


def _tensor_macros(t: TensorDesc) -> list[str]:
    fmt = "BFYX" if t.format == "ANY" else t.format
    steps = pitches(padded(t.shape, t.lower, t.upper), fmt)
    p = t.prefix
    return [
        *_vector(f"{p}_DIMS", "int", bfyx(t.shape)), f"#define {p}_TYPE {cl_type(t.dtype)}",
        f"#define {p}_FORMAT_{fmt} ",
        *_vector(f"{p}_LOWER_PADDING", "int", t.lower),
        *_vector(f"{p}_UPPER_PADDING", "int", t.upper),
        *_vector(f"{p}_PITCHES", "int", steps),
        f"#define {p}_OFFSET {sum(n * s for n, s in zip(t.lower, steps))}",
    ]


def builtins(tensors: Sequence[TensorDesc], num_inputs: int, gws: Sequence[int],
             lws: Sequence[int]) -> str:
    """The '// Custom Layer Built-ins' header of a SimpleGPU kernel (work sizes are size_t
    vectors, which jitter.h names ulong)."""
    lines = [
        "// Custom Layer Built-ins", "", f"#define NUM_INPUTS {num_inputs}",
        *_vector("GLOBAL_WORKSIZE", "ulong", gws), *_vector("LOCAL_WORKSIZE", "ulong", lws),
    ]
    for t in tensors:
        lines += _tensor_macros(t)
    return "\n".join(lines) + "\n"


_HALF_WORD = re.compile(r"\bhalf(2|3|4|8|16)?\b|cl_khr_fp16|vload_half|vstore_half")
_FP16_PRAGMA = re.compile(
    r"^[ \t]*#[ \t]*pragma[ \t]+OPENCL[ \t]+EXTENSION[ \t]+cl_khr_fp16\b.*$", re.M)
_HALF_PRELUDE = "\n".join([
    "// extgen: this device has no cl_khr_fp16, so half runs as float",
    "#define half float", *(f"#define half{n} float{n}" for n in (2, 3, 4, 8, 16)),
    "#define convert_half convert_float",
    *(f"#define convert_half{n} convert_float{n}" for n in (2, 3, 4, 8, 16)),
    *(f"#undef v{op}_half{n}" for op in ("load", "store") for n in ("", 2, 4, 8, 16)),
    "#define vload_half(i, p) ((p)[i])", "#define vstore_half(v, i, p) ((p)[i] = (v))",
    *(f"#define vload_half{n} vload{n}" for n in (2, 4, 8, 16)),
    *(f"#define vstore_half{n} vstore{n}" for n in (2, 4, 8, 16)),
    "#ifndef HALF_MAX", "#define HALF_MAX 65504.0f", "#define HALF_MIN 6.103515625e-05f",
    "#define HALF_EPSILON 9.765625e-04f", "#endif", "",
])


_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def map_half(source: str, has_fp16: bool) -> tuple[str, bool]:
    """(source, mapped): on a device without cl_khr_fp16 a source that uses half gets half
    #defined as float and its cl_khr_fp16 pragma blanked (line numbers kept)."""
    code = _FP16_PRAGMA.sub("", _COMMENTS.sub("", source))
    if has_fp16 or not _HALF_WORD.search(code):  # only real uses, not the pragma or comments
        return source, False
    return _HALF_PRELUDE + _FP16_PRAGMA.sub("", source), True
