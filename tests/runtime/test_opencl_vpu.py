"""VpuDevice: MVCL kernels (scalars, stages, buffers, local data, Where) run through pyopencl."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from converter.runtime.ir_reader import IRLayer, OutPort
from converter.runtime.opencl import GpuDevice, VpuDevice, build
from converter.runtime.opencl.signature import kernel_params
from extgen.errors import KernelConfigError

KERNELS = Path(__file__).parent / "kernels" / "vpu"


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("EXTGEN_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "opencl-cache"))


def layer(type_: str, dims, precision="FP32", **attrs) -> IRLayer:
    return IRLayer(3, f"my_{type_.lower()}", type_, "extension",
                   {k: str(v) for k, v in attrs.items()},
                   [0], [OutPort(1, precision, ["y"], tuple(dims))])


def test_scalars_from_dims_and_attribute():
    dev = VpuDevice([KERNELS / "scale_rows.xml"])
    x = np.random.default_rng(0).standard_normal((1, 2, 3, 5)).astype(np.float32)
    (y,) = dev.kernel(layer("ScaleRows", x.shape, alpha=0.5))([x])  # half kernel, f32 IR
    want = x * 0.5 + np.arange(5, dtype=np.float32)
    np.testing.assert_allclose(y, want, rtol=1e-3, atol=1e-3)
    assert y.dtype == np.float32


def test_missing_scalar_attribute():
    dev = VpuDevice([KERNELS / "scale_rows.xml"])
    with pytest.raises(KernelConfigError, match="source 'alpha' is neither"):
        dev.kernel(layer("ScaleRows", (1, 1, 1, 4)))([np.zeros((1, 1, 1, 4), np.float32)])


def test_two_stages_chained_by_buffer():
    dev = VpuDevice([KERNELS / "center.xml"])
    x = np.random.default_rng(1).standard_normal((2, 3, 4, 5)).astype(np.float32)
    (y,) = dev.kernel(layer("Center", x.shape, plane=20))([x])
    np.testing.assert_allclose(y, x - x.mean(axis=(2, 3), keepdims=True), atol=1e-5)
    before = build.compile_count()
    dev.kernel(layer("Center", x.shape, plane=20))([x])
    assert build.compile_count() == before  # both stages cached


def test_local_data_and_where():
    dev = VpuDevice([KERNELS / "reverse.xml"])
    x = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
    (y,) = dev.kernel(layer("ReverseRows", x.shape, mode="rows"))([x])
    np.testing.assert_array_equal(y, x[..., ::-1])
    assert dev.kernel(layer("ReverseRows", x.shape, mode="cols")) is None
    assert dev.kernel(layer("ReverseRows", x.shape)) is None


def test_devices_skip_the_other_plugins_file_but_refuse_a_mixed_one(tmp_path):
    assert GpuDevice([KERNELS / "center.xml"]).kernel(layer("Center", (1, 1, 1, 1))) is None
    mixed = tmp_path / "mixed.xml"  # intel_gpu custom_layer.cpp: every layer must be SimpleGPU
    mixed.write_text((KERNELS / "center.xml").read_text().replace(
        "</CustomLayer>", '</CustomLayer>\n<CustomLayer name="G" type="SimpleGPU" version="1"/>'))
    with pytest.raises(KernelConfigError, match=r"mixed\.xml:4: Wrong attribute value! "
                       "expected: SimpleGPU found: MVCL$"):
        GpuDevice([mixed])


def test_signature_parsing():
    src = """/* c */ __kernel __attribute__((reqd_work_group_size(8, 1, 1)))
    void k(__global const half8 *src, // x
           __global unsigned int* idx, __local float* tmp, int w, float alpha) {}"""
    params = kernel_params(src, "k")
    assert [p.name for p in params] == ["src", "idx", "tmp", "w", "alpha"]
    assert [p.dtype.name for p in params] == ["float16", "uint32", "float32", "int32", "float32"]
    assert [p.pointer for p in params] == [True, True, True, False, False]
    assert params[2].local and not params[0].local
    assert kernel_params(src, "other") is None


def _write(tmp_path: Path, params: str, source: str = "k.cl", stage2: str = "") -> Path:
    (tmp_path / "k.cl").write_text(
        "__kernel void k(__global const float* src, __global float* dst) {}\n")
    xml = tmp_path / "k.xml"
    xml.write_text(f"""<CustomLayer name="K" type="MVCL" version="1">
  <Kernel entry="k"{' stage="0"' if stage2 else ""}><Source filename="{source}"/>
  <Parameters>{params}</Parameters>
  <WorkSizes dim="output,0" global="B*F*Y*X" local="1"/></Kernel>
{stage2}</CustomLayer>""")
    return xml


IO = ('<Tensor arg-name="src" type="input" port-index="0"/>'
      '<Tensor arg-name="dst" type="output" port-index="0"/>')


def test_a_binary_source_runs_the_cl_beside_it_and_says_so(tmp_path, caplog):
    caplog.set_level("INFO", "extgen")
    (tmp_path / "k.bin").write_bytes(b"\x7fELF")
    xml = _write(tmp_path, IO, source="k.bin")
    assert VpuDevice([xml]).bindings[0][0].sources == [tmp_path / "k.cl"]
    assert "running k.cl, the OpenCL C beside k.bin (the MYRIAD plugin loads the .bin)" \
        in caplog.text
    (tmp_path / "k.cl").unlink()
    with pytest.raises(KernelConfigError,
                       match=r"k\.xml:2: 'k\.bin' is a Myriad binary .* beside it as 'k\.cl'"):
        VpuDevice([xml])


def test_unknown_arg_name_and_unbound_param(tmp_path, caplog):
    # stages/custom.cpp serializeParamsImpl walks the kernel's parameters: an unbound one fails,
    # a binding of no parameter is never read
    xml = _write(tmp_path, IO.replace('"dst"', '"out"'))
    with pytest.raises(KernelConfigError, match=r"XML specification for K layer has no "
                       r"definition for 'dst' parameter of k\(src, dst\)$"):
        VpuDevice([xml]).kernel(layer("K", (4,)))
    assert "arg-name 'out' is no parameter of k: the MYRIAD plugin ignores it" in caplog.text
    xml = _write(tmp_path, IO.split("/>")[0] + "/>")
    with pytest.raises(KernelConfigError, match="no definition for 'dst' parameter"):
        VpuDevice([xml]).kernel(layer("K", (4,)))


def test_weight_data_is_not_supported(tmp_path):
    xml = _write(tmp_path, IO + '<Data arg-name="dst2" type="data" source="weights"/>')
    (tmp_path / "k.cl").write_text(
        "__kernel void k(__global const float* src, __global float* dst, "
        "__global float* dst2) {}\n")
    with pytest.raises(KernelConfigError, match="weight blob"):
        VpuDevice([xml]).kernel(layer("K", (4,)))


def test_duplicate_stage_and_bad_buffer_size(tmp_path):
    dup = ('<Kernel entry="k" stage="0"><Source filename="k.cl"/><Parameters/>'
           '<WorkSizes dim="output,0" global="1" local="1"/></Kernel>')
    with pytest.raises(KernelConfigError, match="K custom layer: found duplicating stage id"):
        VpuDevice([_write(tmp_path, IO, stage2=dup)])
    bad = IO + '<Tensor arg-name="b" type="output_buffer" port-index="1" dim="input,0" size="F*?"/>'
    with pytest.raises(KernelConfigError, match=r"k\.xml:3: invalid size 'F\*\?'"):
        VpuDevice([_write(tmp_path, bad)])
