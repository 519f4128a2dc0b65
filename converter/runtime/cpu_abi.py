"""The extgen C ABI of CPU extension libraries, defined once: the shim's ctypes loader
(converter.runtime.cpu) calls it and the generator renders `extgen_abi.h` and the C++ behind it
from `template_context()`.

    typedef struct { int32_t element_type; int32_t rank; int64_t shape[MAX_RANK]; void* data; }
        extgen_tensor;
    int32_t extgen_abi_version(void);
    int32_t extgen_op_count(void);
    const char* extgen_op_type(int32_t index);
    const char* extgen_op_version(int32_t index);  // the op's IR version (opset), "extension"..
    int32_t extgen_infer(const char* type, const char* attrs, int32_t n_in, const extgen_tensor* in,
                         int32_t n_out, extgen_tensor* out, char* error, int32_t error_size);
    int32_t extgen_execute(same arguments);

An op is its (type, version) pair, as in OpenVINO: the shim runs a library's kernel only for IR
layers of both that type and that version. `attrs` is the IR layer's attributes as "name=value"
lines. `extgen_infer` fills each output's element_type, rank and shape; the caller allocates the
data and calls `extgen_execute`.
A return other than STATUS_OK means failure, with a message in `error`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ELEMENT_TYPES", "FUNCTIONS", "MAX_RANK", "STATUS", "VERSION", "template_context"]

VERSION = 2  # 2: extgen_op_version
MAX_RANK = 8
# element_type code -> IR element type name (the code is the index)
ELEMENT_TYPES = ("f32", "f16", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
                 "boolean")
# role -> exported C function name
FUNCTIONS = {
    "version": "extgen_abi_version",
    "op_count": "extgen_op_count",
    "op_type": "extgen_op_type",
    "op_version": "extgen_op_version",
    "infer": "extgen_infer",
    "execute": "extgen_execute",
}
# what extgen_infer / extgen_execute return
STATUS = {"ok": 0, "exception": 1, "unknown_exception": 2}


def template_context() -> dict[str, Any]:
    """The ABI as the C/C++ templates see it (`abi.version`, `abi.functions.infer`, ...)."""
    return {"version": VERSION, "max_rank": MAX_RANK, "element_types": ELEMENT_TYPES,
            "functions": FUNCTIONS, "status": STATUS}
