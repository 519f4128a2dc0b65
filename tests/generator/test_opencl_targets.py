"""`extgen new` for ie-gpu-ext and ie-vpu-ext: the generated kernels build on the OpenCL shim
(PoCL), their SimpleGPU and MVCL XML parse, and expression kernels match numpy."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from converter.errors import KernelConfigError
from converter.options import ConvertOptions
from converter.pipeline import convert
from converter.runtime.engines import open_engine
from converter.runtime.ir_reader import IRLayer, OutPort
from converter.runtime.opencl import GpuDevice, VpuDevice
from converter.runtime.opencl.gpu_config import load_gpu
from converter.runtime.opencl.vpu_config import load_vpu
from extgen.generator.generate import generate, validate_config
from tests.conftest import make_model

SHAPE = (2, 3, 4, 5)

# name -> (op config, the layer's IR attributes, numpy reference over the inputs and those strings)
OPS = {
    "float_attr": (
        {"name": "ScaledCosh", "attributes": [{"name": "scale", "type": "float", "default": 2.5}],
         "expression": "scale * (exp(x) + exp(-x)) / 2"},
        {"scale": "0.5"},
        lambda ins, a: float(a["scale"]) * np.cosh(ins[0]),
    ),
    "two_inputs": (
        {"name": "MulMax", "inputs": [{"name": "a"}, {"name": "b"}],
         "attributes": [{"name": "n", "type": "int", "default": 3}],
         "expression": "a * b + max(a, n)"},
        {"n": "1"},
        lambda ins, a: ins[0] * ins[1] + np.maximum(ins[0], int(a["n"])),
    ),
    "int_list_and_bool": (
        {"name": "PickScale", "attributes": [
            {"name": "axes", "type": "int_list", "default": [1, 2]},
            {"name": "flag", "type": "bool", "default": True}],
         "expression": "x * 2 + flag if x > 0 else x"},
        {"axes": "1,2", "flag": "true"},
        lambda ins, a: np.where(ins[0] > 0, ins[0] * 2 + 1, ins[0]),
    ),
    "string_attr": (
        {"name": "ModedAbs", "attributes": [{"name": "mode", "type": "string", "default": "fast"}],
         "expression": "abs(x) - 1"},
        {"mode": "fast"},
        lambda ins, a: np.abs(ins[0]) - 1,
    ),
    "no_expression": (
        {"name": "Custom", "inputs": [{"name": "a"}, {"name": "b"}],
         "outputs": [{"name": "y"}, {"name": "z"}],
         "attributes": [{"name": "alpha", "type": "float", "default": 1.0}]},
        {"alpha": "2"},
        None,
    ),
}


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("EXTGEN_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "opencl-cache"))


def _generate(tmp_path: Path, op: dict) -> tuple[Path, Path]:
    generate(validate_config({"targets": ["ie-gpu-ext", "ie-vpu-ext"], "ops": [op]}), tmp_path)
    snake = validate_config({"ops": [op]}).ops[0].snake
    gpu = tmp_path / "user_ie_extensions" / "gpu" / f"{snake}_kernel.xml"
    vpu = tmp_path / "user_ie_extensions" / "vpu" / f"{snake}_kernel.xml"
    assert gpu.with_suffix(".cl").is_file() and vpu.with_suffix(".cl").is_file()
    return gpu, vpu


def _layer(op: dict, attrs: dict[str, str], precision: str = "FP32") -> IRLayer:
    n = len(op.get("inputs", [None]))
    outs = [OutPort(n + k, precision, [f"y{k}"], SHAPE) for k in range(len(op.get("outputs", [0])))]
    return IRLayer(1, "node", op["name"], "extension", dict(attrs), list(range(n)), outs)


def _inputs(op: dict, dtype=np.float32) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.standard_normal(SHAPE).astype(dtype) for _ in op.get("inputs", [None])]


@pytest.mark.parametrize("case", list(OPS))
def test_generated_kernels_parse_build_and_compute(tmp_path: Path, case: str) -> None:
    op, attrs, reference = OPS[case]
    gpu_xml, vpu_xml = _generate(tmp_path, op)
    n_in = len(op.get("inputs", [None]))
    if reference is None:  # the stub is refused, naming the file and the line to finish
        for xml, load in ((gpu_xml, load_gpu), (vpu_xml, load_vpu)):
            cl = xml.with_suffix(".cl")
            with pytest.raises(KernelConfigError, match=rf"{cl.name}:\d+: the kernel is still"):
                load(xml)
            lines = cl.read_text().splitlines(keepends=True)
            marked = [ln for ln in lines if "extgen:unfilled" in ln]
            assert len(marked) == 1  # one line to delete, inside the kernel body
            cl.write_text("".join(ln for ln in lines if ln not in marked))

    (gpu,) = load_gpu(gpu_xml)
    assert (gpu.name, gpu.entry) == (op["name"], gpu_xml.stem)
    assert [(t.kind, t.arg_index, t.port) for t in gpu.tensors] == (
        [("input", i, i) for i in range(n_in)] + [("output", n_in, 0)])
    assert [d.param for d in gpu.defines] == [
        a["name"] for a in op.get("attributes", []) if a["type"] != "string"]
    assert [e.text for e in gpu.work.global_] == ["B*F*Y*X"] and gpu.options == "-cl-mad-enable"
    (vpu,) = load_vpu(vpu_xml)
    n_out = len(op.get("outputs", [None]))
    assert [t.arg_name for t in vpu.tensors] == (
        [f"in{i}" for i in range(n_in)] + [f"out{k}" for k in range(n_out)])
    assert [e.text for e in vpu.work.global_] == ["B*F*Y*X", "1", "1"]
    for text in (gpu_xml.read_text(), vpu_xml.read_text()):
        assert "<!--Tensor" not in text and "<!--WorkSizes" not in text

    ins = _inputs(op)
    layer = _layer(op, attrs)
    (y_gpu,) = GpuDevice([gpu_xml]).kernel(layer)(ins)  # SimpleGPU: output 0 only
    if n_out > 1:  # MYRIAD's parseCustom asserts one output: the shim refuses it too
        with pytest.raises(KernelConfigError, match="MYRIAD plugin runs a custom layer with one"):
            VpuDevice([vpu_xml]).kernel(layer)
        y_vpu = np.full(SHAPE, np.nan if reference is None else 0, np.float32)
    else:
        (y_vpu,) = VpuDevice([vpu_xml]).kernel(layer)(ins)
    assert y_gpu.shape == y_vpu.shape == SHAPE
    if reference is None:  # with the marker gone, the TODO kernel builds and runs: NaN
        assert np.isnan(y_gpu).all() and np.isnan(y_vpu).all()
        assert f"user_ie_extensions/gpu/{gpu_xml.stem}.cl" in gpu_xml.with_suffix(".cl").read_text()
        assert f"user_ie_extensions/vpu/{vpu_xml.stem}.cl" in vpu_xml.with_suffix(".cl").read_text()
        return
    want = reference(ins, attrs).astype(np.float32)
    np.testing.assert_allclose(y_gpu, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y_vpu, want, rtol=1e-5, atol=1e-5)


def test_gpu_define_default_when_the_layer_lacks_the_attribute(tmp_path: Path) -> None:
    op, _, reference = OPS["float_attr"]
    gpu_xml, _ = _generate(tmp_path, op)
    (x,) = _inputs(op)
    (y,) = GpuDevice([gpu_xml]).kernel(_layer(op, {}))([x])
    np.testing.assert_allclose(y, reference([x], {"scale": "2.5"}), rtol=1e-5)


def test_gpu_kernel_runs_fp16(tmp_path: Path) -> None:
    op, attrs, reference = OPS["two_inputs"]
    gpu_xml, _ = _generate(tmp_path, op)
    ins = _inputs(op, np.float16)
    (y,) = GpuDevice([gpu_xml]).kernel(_layer(op, attrs, "FP16"))(ins)
    want = reference([a.astype(np.float32) for a in ins], attrs)
    assert y.dtype == np.float16
    np.testing.assert_allclose(y.astype(np.float32), want, rtol=2e-3, atol=2e-3)


def _unmark(cl: Path, stub: str, body: str) -> None:
    text = "".join(ln for ln in cl.read_text().splitlines(keepends=True) if "unfilled" not in ln)
    assert stub in text
    cl.write_text(text.replace(stub, body))


@pytest.mark.parametrize("formats", [("BYXF", "BYXF"), ("BFYX", "YXFB"), ("FYXB", "BFYX")])
def test_filled_stub_kernel_indexes_through_the_pitches(tmp_path: Path, formats) -> None:
    """The hand-written (no expression) GPU kernel, filled in as its TODO says, reads and writes
    each tensor through IDX: right in whatever format each Tensor declares."""
    op = {"name": "Twice", "attributes": [{"name": "alpha", "type": "float", "default": 2.0}]}
    gpu_xml, _ = _generate(tmp_path, op)
    _unmark(gpu_xml.with_suffix(".cl"), "out0[IDX(OUTPUT0, b_, f_, y_, x_)] = (OUTPUT0_TYPE)NAN;",
            "out0[IDX(OUTPUT0, b_, f_, y_, x_)] = "
            "(OUTPUT0_TYPE)(ALPHA * in0[IDX(INPUT0, b_, f_, y_, x_)]);")
    xml = gpu_xml.read_text()
    for kind, fmt in zip(("input", "output"), formats):
        xml = re.sub(rf'(type="{kind}" port-index="0") format="BFYX"', rf'\1 format="{fmt}"', xml)
    gpu_xml.write_text(xml)
    (cfg,) = load_gpu(gpu_xml)
    assert [t.format for t in cfg.tensors] == list(formats)
    x = np.arange(np.prod(SHAPE), dtype=np.float32).reshape(SHAPE)
    (y,) = GpuDevice([gpu_xml]).kernel(_layer(op, {"alpha": "3"}))([x])
    np.testing.assert_array_equal(y, 3 * x)


def test_shape_formula_sets_the_work_sizes(tmp_path: Path) -> None:
    """An integer shape formula becomes WorkSizes over the input's dims: one work item per output
    element on both devices, checked by filled-in nearest-neighbour upsampling kernels."""
    op = {"name": "Up2", "shape": {"kind": "formula", "names": ["N", "C", "H", "W"],
                                   "dims": ["N", "C", "H * 2", "(W + 1) * 2 - 2"]}}
    gpu_xml, vpu_xml = _generate(tmp_path, op)
    assert '<WorkSizes dim="input,0" global="B*F*(Y*2)*(((X+1)*2)-2)"/>' in gpu_xml.read_text()
    assert 'dim="input,0" global="B*F*(Y*2)*(((X+1)*2)-2),1,1"' in vpu_xml.read_text()
    _unmark(gpu_xml.with_suffix(".cl"), "out0[IDX(OUTPUT0, b_, f_, y_, x_)] = (OUTPUT0_TYPE)NAN;",
            "out0[IDX(OUTPUT0, b_, f_, y_, x_)] = in0[IDX(INPUT0, b_, f_, y_ / 2, x_ / 2)];")
    _unmark(vpu_xml.with_suffix(".cl"), "out0[i] = (half)NAN;",
            "const int x = i % dim_x, y = i / dim_x % dim_y, bf = i / (dim_x * dim_y);\n"
            "    out0[i] = in0[(bf * (dim_y / 2) + y / 2) * (dim_x / 2) + x / 2];")
    (gpu,), (vpu,) = load_gpu(gpu_xml), load_vpu(vpu_xml)
    dims = dict(zip("BFYX", SHAPE))
    for work in (gpu.work, vpu.work):
        assert work.dim == ("input", 0)
        assert work.global_[0].evaluate(dims) == 2 * 3 * 8 * 10
    x = np.arange(np.prod(SHAPE), dtype=np.float32).reshape(SHAPE)
    want = x.repeat(2, axis=2).repeat(2, axis=3)
    layer = IRLayer(1, "node", "Up2", "extension", {}, [0],
                    [OutPort(1, "FP32", ["y"], want.shape)])
    for device in (GpuDevice([gpu_xml]), VpuDevice([vpu_xml])):
        (y,) = device.kernel(layer)([x])
        np.testing.assert_array_equal(y, want)


@pytest.mark.parametrize(("dims", "own", "gpu_work"), [
    (["N", "H * scale"], {}, 'dim="output" global="B*F*Y*X"'),  # an attribute
    (["N", "H / 2 * 4"], {}, 'dim="output" global="B*F*Y*X"'),  # a division inside
    (["N", "H * 2"], {"global_work_size": "B*F*Y*X"}, 'global="B*F*Y*X"'),  # the config's own
])
def test_work_sizes_stay_over_the_output_otherwise(tmp_path: Path, dims, own, gpu_work) -> None:
    op = {"name": "Scaled", "attributes": [{"name": "scale", "type": "int", "default": 2}],
          "shape": {"kind": "formula", "names": ["N", "H"], "dims": dims}, "gpu": own, "vpu": own,
          "expression": "x"}
    gpu_xml, vpu_xml = _generate(tmp_path, op)
    assert f"<WorkSizes {gpu_work}/>" in gpu_xml.read_text()
    assert 'dim="output,0" global="B*F*Y*X,1,1"' in vpu_xml.read_text()
    (gpu,), (vpu,) = load_gpu(gpu_xml), load_vpu(vpu_xml)
    assert gpu.work.dim == vpu.work.dim == ("output", 0)


def test_work_sizes_from_the_config(tmp_path: Path) -> None:
    op = {**OPS["float_attr"][0], "gpu": {"global_work_size": "X,Y,B*F", "format": "BYXF"},
          "vpu": {"global_work_size": "X*Y,B*F", "local_work_size": "1"}}
    gpu_xml, vpu_xml = _generate(tmp_path, op)
    (gpu,) = load_gpu(gpu_xml)
    assert [e.text for e in gpu.work.global_] == ["X", "Y", "B*F"] and not gpu.work.local
    assert {t.format for t in gpu.tensors} == {"BYXF"}
    (vpu,) = load_vpu(vpu_xml)
    assert [e.text for e in vpu.work.local] == ["1", "1"]  # padded to the global's length
    (x,) = _inputs(op)
    want = OPS["float_attr"][2]([x], {"scale": "0.5"})
    for device in (GpuDevice([gpu_xml]), VpuDevice([vpu_xml])):
        (y,) = device.kernel(_layer(op, {"scale": "0.5"}))([x])
        np.testing.assert_allclose(y, want, rtol=1e-5)


def test_user_strings_are_escaped_in_the_xml(tmp_path: Path) -> None:
    mode = 'a "b" & <c>'
    op = {"name": "Quoted", "framework_types": {"onnx": "my&co::Quoted"},
          "attributes": [{"name": "mode", "type": "string", "default": mode}],
          "gpu": {"global_work_size": "B*F*Y*X"}, "expression": "x + 1"}
    gpu_xml, vpu_xml = _generate(tmp_path, op)
    assert "&amp;" not in gpu_xml.read_text() and mode not in gpu_xml.read_text()
    assert load_gpu(gpu_xml)[0].defines == []
    assert 'mode="a &quot;b&quot; &amp; &lt;c&gt;"' in vpu_xml.read_text()
    (vpu,) = load_vpu(vpu_xml)
    assert vpu.where == {"mode": mode}
    (x,) = _inputs(op)
    device = VpuDevice([vpu_xml])
    (y,) = device.kernel(_layer(op, {"mode": mode}))([x])
    np.testing.assert_allclose(y, x + 1, rtol=1e-6)
    # the kernel cannot see the string: a layer with another value is not bound to it
    assert device.kernel(_layer(op, {"mode": "other"})) is None


def test_converted_model_runs_on_the_generated_kernels(tmp_path: Path) -> None:
    """ONNX model -> generated extractor and op -> IR -> the generated GPU and VPU kernels."""
    op = {"name": "Cosh", "framework_types": {"onnx": "my.domain::Cosh"},
          "attributes": [{"name": "scale", "type": "float", "default": 1.0},
                         {"name": "flag", "type": "bool", "default": False}],
          "expression": "scale * (exp(x) + exp(-x)) / 2 + flag"}
    config = {"targets": ["mo-onnx-ext", "mo-op", "ie-gpu-ext", "ie-vpu-ext"], "ops": [op]}
    generate(validate_config(config), tmp_path / "out")
    model = make_model(
        [helper.make_node("Cosh", ["x"], ["y"], domain="my.domain", scale=2.0, flag=0)],
        [("x", TensorProto.FLOAT, [1, 2, 1, 3])], [("y", TensorProto.FLOAT, [1, 2, 1, 3])],
        domains=["my.domain"],
    )
    onnx.save(model, tmp_path / "m.onnx")
    ext = tmp_path / "out" / "user_mo_extensions"
    options = ConvertOptions(tmp_path / "m.onnx", output_dir=tmp_path / "ir", extensions=[ext])
    xml = convert(options).xml
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(1, 2, 1, 3)  # MYRIAD: rank 4
    kernels = tmp_path / "out" / "user_ie_extensions"
    for device, cfg in (("GPU", kernels / "gpu" / "cosh_kernel.xml"),
                        ("VPU", kernels / "vpu" / "cosh_kernel.xml")):
        y = open_engine("shim", xml, device, configs=[cfg]).run({"x": x})["y"]
        np.testing.assert_allclose(y, 2 * np.cosh(x), rtol=1e-5, err_msg=device)


def test_vpu_scalars_from_the_config(tmp_path: Path) -> None:
    op = {"name": "Twice", "expression": "x * 2",
          "attributes": [{"name": "gain", "type": "float", "default": 1.0}],
          "vpu": {"scalars": [{"name": "width", "source": "I.X"},
                              {"name": "gain_copy", "type": "float", "source": "gain"}]}}
    _, vpu_xml = _generate(tmp_path, op)
    text = vpu_xml.read_text()
    assert '<Scalar arg-name="width" type="int" port-index="0" source="I.X"/>' in text
    # an attribute Scalar has no port-index: with one the plugin reads an item of a list
    assert '<Scalar arg-name="gain_copy" type="float" source="gain"/>' in text
    assert "int width" in vpu_xml.with_suffix(".cl").read_text()
    ins = _inputs(op)
    (y,) = VpuDevice([vpu_xml]).kernel(_layer(op, {"gain": "3"}))(ins)  # every argument bound
    np.testing.assert_allclose(y, ins[0] * 2, rtol=1e-6)


def test_vpu_scalar_name_clash_is_refused() -> None:
    from extgen.errors import ConfigError

    with pytest.raises(ConfigError, match="clashes"):
        validate_config({"targets": ["ie-vpu-ext"], "ops": [{
            "name": "Twice", "attributes": [{"name": "gain", "type": "float"}],
            "vpu": {"scalars": [{"name": "GAIN", "source": "gain"}]}}]})


def test_ops_from_separate_configs_share_the_one_combined_config(tmp_path, capsys) -> None:
    """`extgen check` writes a config per op and each goes through `extgen new` into one folder:
    custom_layers.xml (the one file the plugin loads) gains each op's CustomLayer in turn; once
    edited by hand it is the user's, and new refuses to overwrite it."""
    import json

    from extgen.cli import main

    for name in ("Alpha", "Beta", "Gamma"):
        (tmp_path / f"{name}.json").write_text(json.dumps(
            {"targets": ["mo-op", "ie-gpu-ext", "ie-vpu-ext"],
             "ops": [{"name": name, "expression": "x * 2"}]}))
    for name in ("Beta", "Alpha"):
        assert main(["new", "--config", str(tmp_path / f"{name}.json"),
                     "--output_dir", str(tmp_path / "ext")]) == 0
    for device in ("gpu", "vpu"):
        text = (tmp_path / "ext" / "user_ie_extensions" / device / "custom_layers.xml").read_text()
        assert re.findall(r'<CustomLayer name="(\w+)"', text) == ["Alpha", "Beta"], device
    combined = tmp_path / "ext" / "user_ie_extensions" / "gpu" / "custom_layers.xml"
    combined.write_text(combined.read_text() + "<!-- mine -->\n")
    capsys.readouterr()
    assert main(["new", "--config", str(tmp_path / "Gamma.json"),
                 "--output_dir", str(tmp_path / "ext")]) == 2
    assert "custom_layers.xml" in capsys.readouterr().err
