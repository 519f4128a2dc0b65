"""The shim's CPU device for custom ops: libraries built from the generated C++ (the extgen C ABI
of converter.runtime.cpu_abi, called through ctypes) and Python Op classes with a numpy evaluate
(an extensions folder)."""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np

from converter.errors import ExtgenError, InputFileError
from converter.ir.reader import IRLayer
from converter.ir.types import dtype_of
from converter.ops.loader import python_op_classes
from converter.ops.op import Op
from converter.runtime import cpu_abi
from converter.runtime.executor import Device, Kernel, op_kernel

__all__ = ["CpuDevice", "CpuLibrary", "ELEMENT_TYPES"]

ELEMENT_TYPES = [dtype_of(name) for name in cpu_abi.ELEMENT_TYPES]  # by element_type code
_CODE = {t: i for i, t in enumerate(ELEMENT_TYPES)}


class _Tensor(ctypes.Structure):
    _fields_ = [("element_type", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("shape", ctypes.c_int64 * cpu_abi.MAX_RANK), ("data", ctypes.c_void_p)]


def _tensor(array: np.ndarray) -> _Tensor:
    if array.ndim > cpu_abi.MAX_RANK or array.dtype not in _CODE:
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
            msg = (f"--extension {path}: no such library "
                   "(build the generated user_ie_extensions/cpu first)")
            raise InputFileError(msg)
        try:
            self.lib = ctypes.CDLL(str(path.resolve()))
            version = getattr(self.lib, cpu_abi.FUNCTIONS["version"])()
        except (OSError, AttributeError) as err:
            msg = f"--extension {path}: not an extgen CPU extension library ({err})"
            raise InputFileError(msg) from None
        if version != cpu_abi.VERSION:  # before the other symbols: an older ABI lacks some
            msg = (f"--extension {path}: ABI version {version}, this extgen speaks "
                   f"{cpu_abi.VERSION}; rebuild it from the generated user_ie_extensions/cpu")
            raise InputFileError(msg)
        try:
            fn = {role: getattr(self.lib, name) for role, name in cpu_abi.FUNCTIONS.items()}
        except AttributeError as err:
            msg = f"--extension {path}: not an extgen CPU extension library ({err})"
            raise InputFileError(msg) from None
        fn["op_type"].restype = fn["op_version"].restype = ctypes.c_char_p
        self.fn = fn
        self.path = path
        # an op is its (type, version), as in OpenVINO: a custom Cosh never runs a standard one
        self.ops = {(fn["op_type"](i).decode(), fn["op_version"](i).decode())
                    for i in range(fn["op_count"]())}

    def implements(self, layer: IRLayer) -> bool:
        return (layer.type, layer.version) in self.ops

    def _call(self, fn, op: tuple[str, str, dict[str, str]], inputs: list[np.ndarray],
              outs: ctypes.Array) -> None:
        """fn (infer or execute) on op = (type, node name, IR attribute strings)."""
        kind, name, attrs = op
        ins = (_Tensor * max(1, len(inputs)))(*[_tensor(x) for x in inputs])
        text = "\n".join(f"{k}={v}" for k, v in attrs.items()).encode()
        error = ctypes.create_string_buffer(1024)
        status = fn(kind.encode(), text, len(inputs), ins, len(outs), outs, error, len(error))
        if status != cpu_abi.STATUS["ok"]:
            detail = error.value.decode(errors="replace") or f"status {status}"
            msg = f"{self.path.name}: {kind} '{name}': {detail}"
            raise ExtgenError(msg)

    def infer(self, op: tuple[str, str, dict[str, str]], inputs: list[np.ndarray],
              n_out: int) -> list[tuple[tuple[int, ...], np.dtype]]:
        """The (shape, element type) of each of n_out outputs, from the library's infer."""
        inputs = [np.ascontiguousarray(x) for x in inputs]
        outs = (_Tensor * max(1, n_out))()
        self._call(self.fn["infer"], op, inputs, outs)
        return [(tuple(o.shape[: o.rank]), ELEMENT_TYPES[o.element_type]) for o in outs[:n_out]]

    def kernel(self, layer: IRLayer) -> Kernel:
        op = (layer.type, layer.name, layer.attrs)

        def run(inputs: list[np.ndarray]) -> list[np.ndarray]:
            inputs = [np.ascontiguousarray(x) for x in inputs]
            outs = (_Tensor * max(1, len(layer.outputs)))()
            self._call(self.fn["infer"], op, inputs, outs)
            arrays = [
                np.empty(tuple(o.shape[: o.rank]), dtype=ELEMENT_TYPES[o.element_type])
                for o in outs[: len(layer.outputs)]
            ]
            for o, a in zip(outs, arrays):
                o.data = a.ctypes.data
            self._call(self.fn["execute"], op, inputs, outs)
            return arrays

        return run


class CpuDevice(Device):
    """Custom-op kernels from --extension: .so libraries and extension folders (ops/*.py)."""

    name = "CPU"

    def __init__(self, extensions: list[Path]) -> None:
        self.libraries: list[CpuLibrary] = []
        self.op_classes: dict[tuple[str, str], type[Op]] = {}  # by (type, version)
        for path in map(Path, extensions):
            if path.is_dir():
                self.op_classes.update({cls.ir_identity(): cls
                                        for cls in python_op_classes(path).values()})
            else:
                self.libraries.append(CpuLibrary(path))

    def kernel(self, layer: IRLayer) -> Kernel | None:
        """The extension kernel of the layer's (type, version), or None (then the built-in
        op of that type and version runs)."""
        for lib in self.libraries:
            if lib.implements(layer):
                return lib.kernel(layer)
        cls = self.op_classes.get((layer.type, layer.version))
        return op_kernel(cls, layer) if cls is not None else None
