"""The shim's CPU device for custom ops: libraries built from the generated C++ (extgen C ABI,
called through ctypes) and Python Op classes with a numpy evaluate (an extensions folder).

C ABI, version 1 (the generator's `extgen_abi.h` declares the same):
    typedef struct { int32_t element_type; int32_t rank; int64_t shape[8]; void* data; } extgen_tensor;
    int32_t extgen_abi_version(void);
    int32_t extgen_op_count(void);
    const char* extgen_op_type(int32_t index);
    int32_t extgen_infer(const char* type, const char* attrs, int32_t n_in, const extgen_tensor* in,
                         int32_t n_out, extgen_tensor* out, char* error, int32_t error_size);
    int32_t extgen_execute(same arguments);
`attrs` is the IR layer's attributes as "name=value" lines. `extgen_infer` fills each output's
element_type, rank and shape; the caller allocates the data and calls `extgen_execute`.
A non-zero return means failure, with a message in `error`.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np

from converter.errors import ExtgenError, InputFileError
from converter.ir.reader import IRLayer
from converter.ops.loader import python_op_classes
from converter.ops.op import Op
from converter.runtime.executor import Device, Kernel, op_kernel

__all__ = ["ABI_VERSION", "CpuDevice", "CpuLibrary", "ELEMENT_TYPES"]

ABI_VERSION = 1
MAX_RANK = 8
ELEMENT_TYPES = [np.float32, np.float16, np.float64, np.int8, np.int16, np.int32, np.int64,
                 np.uint8, np.uint16, np.uint32, np.uint64, np.bool_]
_CODE = {np.dtype(t): i for i, t in enumerate(ELEMENT_TYPES)}


class _Tensor(ctypes.Structure):
    _fields_ = [("element_type", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("shape", ctypes.c_int64 * MAX_RANK), ("data", ctypes.c_void_p)]


def _tensor(array: np.ndarray) -> _Tensor:
    if array.ndim > MAX_RANK or array.dtype not in _CODE:
        msg = f"the CPU extension ABI cannot pass a {array.dtype} tensor of rank {array.ndim}"
        raise ExtgenError(msg)
    t = _Tensor(_CODE[array.dtype], array.ndim)
    t.shape[: array.ndim] = array.shape
    t.data = array.ctypes.data
    return t


class CpuLibrary:
    """One shared library and the op types it implements."""

    def __init__(self, path: Path) -> None:
        if not path.is_file():
            msg = f"--extension {path}: no such library (build the generated user_ie_extensions/cpu first)"
            raise InputFileError(msg)
        try:
            self.lib = ctypes.CDLL(str(path.resolve()))
            version = self.lib.extgen_abi_version()
        except (OSError, AttributeError) as err:
            msg = f"--extension {path}: not an extgen CPU extension library ({err})"
            raise ExtgenError(msg) from None
        if version != ABI_VERSION:
            msg = f"--extension {path}: ABI version {version}, this extgen speaks {ABI_VERSION}; rebuild it"
            raise ExtgenError(msg)
        self.lib.extgen_op_type.restype = ctypes.c_char_p
        self.path = path
        self.types = {self.lib.extgen_op_type(i).decode() for i in range(self.lib.extgen_op_count())}

    def _call(self, fn, layer: IRLayer, inputs: list[np.ndarray], outs: ctypes.Array) -> None:
        ins = (_Tensor * max(1, len(inputs)))(*[_tensor(x) for x in inputs])
        attrs = "\n".join(f"{k}={v}" for k, v in layer.attrs.items()).encode()
        error = ctypes.create_string_buffer(1024)
        status = fn(layer.type.encode(), attrs, len(inputs), ins, len(outs), outs, error, len(error))
        if status != 0:
            msg = f"{self.path.name}: {layer.type} '{layer.name}': {error.value.decode(errors='replace') or f'status {status}'}"
            raise ExtgenError(msg)

    def kernel(self, layer: IRLayer) -> Kernel:
        def run(inputs: list[np.ndarray]) -> list[np.ndarray]:
            inputs = [np.ascontiguousarray(x) for x in inputs]
            outs = (_Tensor * max(1, len(layer.outputs)))()
            self._call(self.lib.extgen_infer, layer, inputs, outs)
            arrays = [
                np.empty(tuple(o.shape[: o.rank]), dtype=ELEMENT_TYPES[o.element_type])
                for o in outs[: len(layer.outputs)]
            ]
            for o, a in zip(outs, arrays):
                o.data = a.ctypes.data
            self._call(self.lib.extgen_execute, layer, inputs, outs)
            return arrays

        return run


class CpuDevice(Device):
    """Custom-op kernels from --extension: .so libraries and extension folders (ops/*.py)."""

    name = "CPU"

    def __init__(self, extensions: list[Path]) -> None:
        self.libraries: list[CpuLibrary] = []
        self.op_classes: dict[str, type[Op]] = {}
        for path in map(Path, extensions):
            if path.is_dir():
                self.op_classes.update(python_op_classes(path))
            else:
                self.libraries.append(CpuLibrary(path))

    def kernel(self, layer: IRLayer) -> Kernel | None:
        for lib in self.libraries:
            if layer.type in lib.types:
                return lib.kernel(layer)
        cls = self.op_classes.get(layer.type)
        return op_kernel(cls, layer) if cls is not None else None
