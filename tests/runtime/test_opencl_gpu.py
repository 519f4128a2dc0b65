"""GpuDevice: SimpleGPU kernels run through pyopencl (PoCL on CI) and match numpy."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from converter.runtime.executor import Executor
from converter.runtime.ir_reader import IRLayer, OutPort, read_ir
from converter.runtime.opencl import GpuDevice, build
from converter.runtime.opencl.expressions import Expression
from converter.runtime.opencl.jit import TensorDesc, builtins, from_layout, pitches, to_layout
from converter.runtime.opencl.padding import Padding
from extgen.errors import ExtgenError, KernelBuildError, KernelConfigError
from tests.child_env import child_env

KERNELS = Path(__file__).parent / "kernels" / "gpu"
ROOT = Path(__file__).resolve().parents[2]


# a Parameter x [1,3,4,4] -> LeakyRelu (an extension op, negative_slope 0.2) -> Result y
TINY_IR = """<?xml version="1.0"?>
<net name="tiny" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="1,3,4,4" element_type="f32"/>
      <output><port id="0" precision="FP32" names="x">
        <dim>1</dim><dim>3</dim><dim>4</dim><dim>4</dim></port></output>
    </layer>
    <layer id="1" name="leaky" type="LeakyRelu" version="extension">
      <data negative_slope="0.2"/>
      <input><port id="0" precision="FP32">
        <dim>1</dim><dim>3</dim><dim>4</dim><dim>4</dim></port></input>
      <output><port id="1" precision="FP32" names="y">
        <dim>1</dim><dim>3</dim><dim>4</dim><dim>4</dim></port></output>
    </layer>
    <layer id="2" name="y/sink" type="Result" version="opset1">
      <input><port id="0" precision="FP32">
        <dim>1</dim><dim>3</dim><dim>4</dim><dim>4</dim></port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
    <edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
  </edges>
</net>
"""


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("EXTGEN_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "opencl-cache"))


def layer(type_: str, dims, n_inputs=1, precision="FP32", **attrs) -> IRLayer:
    return IRLayer(1, f"my_{type_.lower()}", type_, "extension",
                   {k: str(v) for k, v in attrs.items()},
                   list(range(n_inputs)), [OutPort(n_inputs, precision, ["y"], tuple(dims))])


def leaky(x, slope):
    return np.where(x < 0, x * np.float32(slope), x)


def test_define_from_attribute_and_default():
    dev = GpuDevice([KERNELS / "leaky_relu.xml"])
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype(np.float32)
    (y,) = dev.kernel(layer("LeakyRelu", x.shape, negative_slope=0.5))([x])
    np.testing.assert_allclose(y, leaky(x, 0.5), rtol=1e-6)
    (y,) = dev.kernel(layer("LeakyRelu", x.shape))([x])  # no attribute: default 0.0
    np.testing.assert_allclose(y, leaky(x, 0.0), rtol=1e-6)
    assert y.dtype == np.float32 and y.shape == x.shape


def test_byxf_format_and_pitches():
    assert pitches((2, 3, 4, 5), "BFYX") == [60, 20, 5, 1]
    assert pitches((2, 3, 4, 5), "BYXF") == [60, 1, 15, 3]
    x = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5) - 60
    for fmt in ("BYXF", "YXFB", "FYXB"):
        np.testing.assert_array_equal(from_layout(to_layout(x, fmt).ravel(), x.shape, fmt), x)
    assert to_layout(x, "BYXF").shape == (2, 4, 5, 3)
    dev = GpuDevice([KERNELS / "leaky_relu.xml"])
    # dynamic dims: input 0's shape
    (y,) = dev.kernel(layer("LeakyReluNHWC", [-1, -1, -1, -1]))([x])
    np.testing.assert_allclose(y, leaky(x, 0.25))


def test_two_inputs_array_define_and_worksize_dim():
    dev = GpuDevice([KERNELS / "scaled_add.xml"])
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal((1, 3, 2, 6)).astype(np.float32) for _ in range(2))
    (y,) = dev.kernel(layer("ScaledAdd", a.shape, 2, coeffs="2,0.5,-1"))([a, b])
    coeffs = np.array([2, 0.5, -1], np.float32).reshape(1, 3, 1, 1)
    np.testing.assert_allclose(y, a + b * coeffs, rtol=1e-6)
    (y,) = dev.kernel(layer("ScaledAdd", a.shape, 2))([a, b])  # default "1.0,1.0,1.0"
    np.testing.assert_allclose(y, a + b, rtol=1e-6)


def test_rank2_tensor_padded_to_bfyx():
    dev = GpuDevice([KERNELS / "leaky_relu.xml"])
    x = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)  # B=3, F=4, Y=X=1
    (y,) = dev.kernel(layer("LeakyRelu", x.shape, negative_slope=0.1))([x])
    np.testing.assert_allclose(y, leaky(x, 0.1), rtol=1e-6)


def test_half_kernel_runs_in_float(caplog):
    dev = GpuDevice([KERNELS / "half_scale.xml"])
    x = np.array([[1.5, -2.0, 0.25, 3.0]], dtype=np.float16)
    with caplog.at_level(logging.WARNING, logger="extgen"):
        (y,) = dev.kernel(layer("HalfScale", x.shape, precision="FP16"))([x])
    assert y.dtype == np.float16
    np.testing.assert_array_equal(y, x * 2)
    if not build.has_fp16():
        assert "no cl_khr_fp16" in caplog.text


def test_second_kernel_call_compiles_nothing():
    dev = GpuDevice([KERNELS / "leaky_relu.xml"])
    x = np.ones((1, 2, 3, 7), np.float32)
    lay = layer("LeakyRelu", x.shape, negative_slope=0.3)
    dev.kernel(lay)([x])
    before = build.compile_count()
    dev.kernel(lay)([x])
    GpuDevice([KERNELS / "leaky_relu.xml"]).kernel(lay)([-x])
    assert build.compile_count() == before


def test_disk_cache_used_by_fresh_process(tmp_path):
    script = (
        "import numpy as np\n"
        "from converter.runtime.ir_reader import IRLayer, OutPort\n"
        "from converter.runtime.opencl import GpuDevice, build\n"
        f"dev = GpuDevice([{str(KERNELS / 'leaky_relu.xml')!r}])\n"
        "lay = IRLayer(1, 'l', 'LeakyRelu', 'x', {'negative_slope': '0.75'}, [0],\n"
        "              [OutPort(1, 'FP32', [], (1, 1, 2, 9))])\n"
        "y = dev.kernel(lay)([-np.ones((1, 1, 2, 9), np.float32)])[0]\n"
        "assert np.allclose(y, -0.75)\n"
        "print(build.compile_count(), build.disk_hits())\n"
    )
    env = child_env(EXTGEN_CACHE_DIR=str(tmp_path / "cache"))
    runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                           cwd=ROOT, check=True).stdout.split() for _ in range(2)]
    assert runs == [["1", "0"], ["0", "1"]]


def test_tiny_ir_through_executor(tmp_path):
    xml = tmp_path / "model.xml"
    xml.write_text(TINY_IR)
    ex = Executor(read_ir(xml), [GpuDevice([KERNELS / "leaky_relu.xml"])])
    assert [s.device for s in ex.steps] == ["GPU", "CPU"]
    x = np.random.default_rng(2).standard_normal((1, 3, 4, 4)).astype(np.float32)
    y = ex.run({"x": x})["y"]
    np.testing.assert_allclose(y, leaky(x, 0.2), rtol=1e-6)
    before = build.compile_count()
    np.testing.assert_allclose(ex.run({"x": -x})["y"], leaky(-x, 0.2), rtol=1e-6)
    assert build.compile_count() == before  # the second run compiles nothing


def test_no_kernel_for_other_types():
    assert GpuDevice([KERNELS / "leaky_relu.xml"]).kernel(layer("Cosh", (1,))) is None


def test_expressions_are_safe():
    dims = {"B": 2, "F": 3, "Y": 7, "X": 5}
    assert Expression("(y+7)/8*8").evaluate(dims) == 8
    assert Expression("B*F*Y*X % 4").evaluate(dims) == 2
    assert Expression("(X-12)/2").evaluate(dims) == -3  # C division truncates
    for bad in ("__import__('os')", "X**2", "X//2", "1.5", "Z", "", "X;Y", "-7/2"):
        with pytest.raises(ValueError):
            Expression(bad)


def _config(tmp_path: Path, body: str, source: str | None = "k.cl") -> Path:
    if source:
        kernel = "__kernel void k(__global float* a, __global float* b) { }\n"
        (tmp_path / source).write_text(kernel)
    xml = tmp_path / "k.xml"
    xml.write_text(body)
    return xml


LAYER = """<CustomLayer name="K" type="SimpleGPU" version="1">
  <Kernel entry="k"><Source filename="{src}"/></Kernel>
  <Buffers><Tensor arg-index="0" type="input" port-index="0"/>
    <Tensor arg-index="1" type="output" port-index="0"/></Buffers>
  <WorkSizes global="{gws}"/>
</CustomLayer>
"""


def test_malformed_xml_names_file_and_line(tmp_path):
    xml = _config(tmp_path,
                  "<CustomLayer name='K' type='SimpleGPU' version='1'>\n<Kernel>\n</CustomLayer>\n")
    with pytest.raises(KernelConfigError, match=r"k\.xml:3: malformed kernel XML") as err:
        GpuDevice([xml])
    assert err.value.exit_code == 2 and isinstance(err.value, ExtgenError)


def test_missing_kernel_file_names_file_and_xml(tmp_path):
    xml = _config(tmp_path, LAYER.format(src="nope.cl", gws="X"), source=None)
    with pytest.raises(KernelConfigError, match=r"k\.xml:2: Couldn't open kernel file nope\.cl"):
        GpuDevice([xml])


def test_invalid_worksize(tmp_path):
    xml = _config(tmp_path, LAYER.format(src="k.cl", gws="X,Y+,B"))
    with pytest.raises(KernelConfigError, match=r"k\.xml:5: Invalid WorkSize global='X,Y\+,B'"):
        GpuDevice([xml])
    xml = _config(tmp_path, LAYER.format(src="k.cl", gws="X*W"))
    with pytest.raises(KernelConfigError, match="Unknown token W in X\\*W$"):
        GpuDevice([xml])


def test_build_error_carries_log_lines():
    dev = GpuDevice([KERNELS / "broken.xml"])
    with pytest.raises(KernelBuildError) as err:
        dev.kernel(layer("Broken", (4,)))([np.zeros(4, np.float32)])
    text = str(err.value)
    assert "kernel 'broken'" in text and "undeclared_value" in text and "broken.cl:3" in text
    assert "\n" not in text and err.value.exit_code == 2


def test_data_blobs_are_refused(tmp_path):
    xml = _config(tmp_path, LAYER.format(src="k.cl", gws="X").replace(
        "</Buffers>", '<Data name="weights" arg-index="2"/></Buffers>'))
    with pytest.raises(KernelConfigError, match="IR v7 weight blobs"):
        GpuDevice([xml]).kernel(layer("K", (4,)))


@pytest.mark.parametrize("value", ['0.5\n#include "/etc/hostname"', "0.5; x", "1e3e3", "", "nan"])
def test_define_values_are_numbers_before_any_source_is_built(value: str) -> None:
    dev = GpuDevice([KERNELS / "leaky_relu.xml"])
    before = build.compile_count()
    with pytest.raises(KernelConfigError) as err:
        dev.kernel(layer("LeakyRelu", (1, 2), negative_slope=value))([np.zeros((1, 2), np.float32)])
    text = str(err.value)
    assert "Define neg_slope" in text and "attribute 'negative_slope'" in text and "\n" not in text
    assert build.compile_count() == before  # nothing reached the compiler


@pytest.mark.parametrize("value", ["0.5", "-2", "+1.", ".25", "1e-3", "3E+2"])
def test_define_accepts_every_float_spelling(value: str) -> None:
    x = np.array([[-1.0, 2.0]], np.float32)
    (y,) = GpuDevice([KERNELS / "leaky_relu.xml"]).kernel(
        layer("LeakyRelu", x.shape, negative_slope=value))([x])
    np.testing.assert_allclose(y, leaky(x, float(value)), rtol=1e-6)


PAD = Padding(lower=(1, 2, 1, 3), upper=(2, 1, 3, 1))


def test_padded_tensors_get_their_pitches_offset_and_padding_macros():
    text = builtins([TensorDesc("INPUT0", (2, 3, 4, 5), np.dtype(np.float32), "BFYX",
                                PAD.lower, PAD.upper)], 1, [120], [])
    # padded dims 5, 6, 8, 9: the first valid element after 1*432 + 2*72 + 1*9 + 3
    for line in ("#define INPUT0_DIMS (int []){ 2,3,4,5, } ",
                 "#define INPUT0_PITCHES (int []){ 432,72,9,1, } ", "#define INPUT0_OFFSET 588",
                 "#define INPUT0_LOWER_PADDING (int []){ 1,2,1,3, } ",
                 "#define INPUT0_UPPER_PADDING (int []){ 2,1,3,1, } "):
        assert line in text.splitlines()
    x = np.arange(120, dtype=np.int32).reshape(2, 3, 4, 5)
    flat = PAD.layout(x, "BYXF").reshape(-1)
    assert flat.size == 5 * 6 * 8 * 9 and (flat == np.iinfo(np.int32).max).sum() == flat.size - 120
    assert np.isnan(PAD.layout(x.astype(np.float32), "BFYX")).sum() == flat.size - 120


@pytest.mark.parametrize("fmt", ["BFYX", "BYXF"])
def test_a_kernel_through_offset_and_pitches_runs_on_padded_tensors(tmp_path, fmt):
    xml = tmp_path / "leaky_relu.xml"
    xml.write_text((KERNELS / "leaky_relu.xml").read_text().replace(
        'format="BFYX"', f'format="{fmt}"'))
    (tmp_path / "leaky_relu.cl").write_text((KERNELS / "leaky_relu.cl").read_text())
    x = np.random.default_rng(3).standard_normal((2, 3, 4, 5)).astype(np.float32)
    (y,) = GpuDevice([xml], padding=PAD).kernel(layer("LeakyRelu", x.shape, negative_slope=.5))([x])
    np.testing.assert_allclose(y, leaky(x, 0.5), rtol=1e-6)  # NaN from the padding: none


@pytest.mark.parametrize(("edit", "symptom"), [
    ("+ INPUT0_OFFSET;", "NaN"),  # reads the input's padding
    ("+ OUTPUT0_OFFSET;", "wrote into the output's padding"),
])
def test_a_kernel_that_ignores_an_offset_fails_on_padded_tensors(tmp_path, edit, symptom):
    (tmp_path / "leaky_relu.xml").write_text((KERNELS / "leaky_relu.xml").read_text())
    source = (KERNELS / "leaky_relu.cl").read_text()
    assert edit in source
    (tmp_path / "leaky_relu.cl").write_text(source.replace(edit, ";"))
    x = np.random.default_rng(4).standard_normal((2, 3, 4, 5)).astype(np.float32)
    run = layer("LeakyRelu", x.shape, negative_slope=0.5)
    (y,) = GpuDevice([tmp_path / "leaky_relu.xml"]).kernel(run)([x])  # unpadded: no difference
    np.testing.assert_allclose(y, leaky(x, 0.5), rtol=1e-6)
    padded = GpuDevice([tmp_path / "leaky_relu.xml"], padding=PAD).kernel(run)
    if symptom == "NaN":
        assert np.isnan(padded([x])[0]).any()
    else:
        with pytest.raises(KernelConfigError, match=symptom):
            padded([x])


def test_a_config_replaces_standard_layers_of_its_type_and_says_so(tmp_path, caplog):
    """As in OpenVINO's GPU plugin, a CustomLayer binds by type alone: the config's LeakyRelu
    also runs a standard LeakyRelu layer; one warning line names it."""
    xml = tmp_path / "standard.xml"
    xml.write_text(TINY_IR.replace('version="extension"', 'version="opset1"'))
    with caplog.at_level(logging.WARNING, logger="extgen"):
        ex = Executor(read_ir(xml), [GpuDevice([KERNELS / "leaky_relu.xml"])])
    assert [s.device for s in ex.steps] == ["GPU", "CPU"]
    lines = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(lines) == 1 and "standard LeakyRelu-1 layer(s) 'leaky'" in lines[0], lines
    caplog.clear()
    (custom := tmp_path / "custom.xml").write_text(TINY_IR)  # version "extension": no warning
    with caplog.at_level(logging.WARNING, logger="extgen"):
        Executor(read_ir(custom), [GpuDevice([KERNELS / "leaky_relu.xml"])])
    assert not [r for r in caplog.records if r.levelname == "WARNING"]
