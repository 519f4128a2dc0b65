"""The shim's CPU device: a C library through the extgen C ABI, and a Python op class."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from converter.errors import InputFileError
from converter.options import ConvertOptions
from converter.pipeline import convert
from converter.runtime.cpu import CpuDevice
from converter.runtime.executor import Executor, KernelNotFoundError
from converter.runtime.ir_reader import read_ir
from tests.conftest import make_model

C_SOURCE = r"""
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef struct { int32_t element_type; int32_t rank; int64_t shape[8]; void* data; } extgen_tensor;
int32_t extgen_abi_version(void) { return 2; }
int32_t extgen_op_count(void) { return 1; }
const char* extgen_op_type(int32_t i) { return "ScaledCosh"; }
const char* extgen_op_version(int32_t i) { return "extension"; }
static float scale_of(const char* attrs) {
    const char* p = strstr(attrs, "scale=");
    return p ? (float)atof(p + 6) : 1.0f;
}
int32_t extgen_infer(const char* type, const char* attrs, int32_t n_in, const extgen_tensor* in,
                     int32_t n_out, extgen_tensor* out, char* err, int32_t err_size) {
    if (in[0].element_type != 0) { snprintf(err, err_size, "only f32 is supported"); return 1; }
    out[0] = in[0];
    out[0].data = 0;
    return 0;
}
int32_t extgen_execute(const char* type, const char* attrs, int32_t n_in, const extgen_tensor* in,
                       int32_t n_out, extgen_tensor* out, char* err, int32_t err_size) {
    int64_t n = 1;
    for (int i = 0; i < in[0].rank; ++i) n *= in[0].shape[i];
    const float* x = (const float*)in[0].data;
    float* y = (float*)out[0].data;
    float s = scale_of(attrs);
    for (int64_t i = 0; i < n; ++i) y[i] = s * coshf(x[i]);
    return 0;
}
"""

OP_CLASS = """
import numpy as np
from converter.ops.op import Op

class ScaledCosh(Op):
    op = type = "ScaledCosh"
    version = "extension"
    in_ports_count = 1
    attr_types = {"scale": "float"}

    @classmethod
    def evaluate(cls, attrs, inputs):
        return [attrs["scale"] * np.cosh(inputs[0])]
"""


@pytest.fixture
def scaled_cosh_ir(tmp_path: Path) -> Path:
    ext = tmp_path / "user_mo_extensions"
    (ext / "ops").mkdir(parents=True)
    (ext / "ops" / "scaled_cosh.py").write_text(textwrap.dedent(OP_CLASS))
    model = make_model(
        [helper.make_node("ScaledCosh", ["x"], ["y"], name="sc", domain="custom", scale=2.0)],
        [("x", TensorProto.FLOAT, [2, 3])], [("y", TensorProto.FLOAT, [2, 3])], domains=["custom"],
    )
    onnx.save(model, tmp_path / "m.onnx")
    # no extractor: the Op registered under the node's op name ("custom::ScaledCosh") is not it,
    # so map the domain-qualified type with a one-line extractor
    (ext / "front" / "onnx").mkdir(parents=True)
    (ext / "front" / "onnx" / "scaled_cosh_ext.py").write_text(textwrap.dedent("""
        from converter.front.extractor import FrontExtractorOp
        from converter.front.onnx.attrs import onnx_attr
        from user_mo_extensions.ops.scaled_cosh import ScaledCosh

        class ScaledCoshExtractor(FrontExtractorOp):
            op = "custom::ScaledCosh"

            @classmethod
            def extract(cls, node):
                ScaledCosh.update_node_stat(node, {"scale": onnx_attr(node, "scale", "f", 1.0)})
                return True
    """))
    result = convert(ConvertOptions(tmp_path / "m.onnx", output_dir=tmp_path / "ir",
                                    extensions=[ext]))
    return result.xml


def test_c_library_through_abi(tmp_path: Path, scaled_cosh_ir: Path) -> None:
    src = tmp_path / "scaled_cosh.c"
    src.write_text(C_SOURCE)
    lib = tmp_path / "libscaled_cosh.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", str(lib), str(src), "-lm"], check=True)
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    out = Executor(read_ir(scaled_cosh_ir), [CpuDevice([lib])]).run({"x": x})
    np.testing.assert_allclose(out["y"], 2 * np.cosh(x), rtol=1e-6)


def test_python_op_class_kernel(tmp_path: Path, scaled_cosh_ir: Path) -> None:
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    device = CpuDevice([tmp_path / "user_mo_extensions"])
    out = Executor(read_ir(scaled_cosh_ir), [device]).run({"x": x})
    np.testing.assert_allclose(out["y"], 2 * np.cosh(x), rtol=1e-6)


def test_custom_op_without_kernel_is_one_clear_error(scaled_cosh_ir: Path) -> None:
    with pytest.raises(KernelNotFoundError, match="ScaledCosh.*no kernel on CPU"):
        Executor(read_ir(scaled_cosh_ir), [CpuDevice([])])


def test_a_library_of_the_older_abi_is_told_to_rebuild(tmp_path: Path) -> None:
    """ABI 1 (no extgen_op_version, so no op versions) is named as such, not as a missing
    symbol."""
    src = tmp_path / "old.c"
    src.write_text(C_SOURCE.replace("{ return 2; }", "{ return 1; }")
                   .replace('const char* extgen_op_version(int32_t i) { return "extension"; }', ""))
    lib = tmp_path / "libold.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(lib), str(src), "-lm"], check=True)
    with pytest.raises(InputFileError, match="ABI version 1, this extgen speaks 2; rebuild it"):
        CpuDevice([lib])
