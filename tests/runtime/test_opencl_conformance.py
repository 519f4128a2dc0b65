"""A kernel tested here runs there: the plugins' parser rules, stated as facts, hold for every
config `extgen new` writes for the examples, and the shim loads the forms of the MYRIAD plugin's
shipped bindings and emulates the GPU plugin's JIT.

Sources (facts only): GPU, openvinotoolkit/openvino src/plugins/intel_gpu/src/plugin/
custom_layer.cpp (parser), plugin/ops/custom.cpp (Defines, outputs), graph/impls/ocl/
custom_primitive.cpp (built-ins), include/intel_gpu/primitives/custom_gpu_primitive.hpp (work
sizes), plugin/simple_math.cpp (size grammar). VPU, tag 2022.3: src/plugins/intel_myriad/
graph_transformer/src/frontend/custom_layer.cpp, custom_kernel.cpp, stages/custom.cpp, and
common/src/utils/simple_math.cpp (size grammar). The size grammars themselves are stated as
facts in test_opencl_size_grammar.py; here every generated rule must be legal in them."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from converter.runtime.ir_reader import IRLayer, OutPort
from converter.runtime.opencl import GpuDevice, VpuDevice
from converter.runtime.opencl.expressions import Expression
from converter.runtime.opencl.gpu import plugin_float, work_dims
from converter.runtime.opencl.gpu_config import load_gpu, merge_gpu
from converter.runtime.opencl.jit import TensorDesc, builtins
from extgen.errors import KernelConfigError
from extgen.generator.config import snake_case
from extgen.generator.generate import generate, validate_config

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# custom_layer.cpp FormatFromString: exactly these spellings
GPU_FORMATS = {"BFYX", "bfyx", "BYXF", "byxf", "FYXB", "fyxb", "YXFB", "yxfb", "ANY", "any"}
# simple_math.cpp: integers, B F Y X in either case, + - * / % and parentheses, blanks
GPU_SIZE = re.compile(r"[0-9BFYXbfyx+\-*/%() \t]+")
# custom_kernel.cpp formatFromString (caseless); parseDimSource: input|output, then ",<port>"
VPU_FORMATS = {"BFYX", "BYXF", "FYX", "YXF", "BF", "ANY"}
VPU_DIM = re.compile(r"(?i:input|output),\d+")


def _roots(path: Path) -> list[ET.Element]:
    """The top-level elements (pugixml reads several roots)."""
    text = re.sub(r"^\s*<\?xml[^>]*\?>", "", path.read_text())
    return list(ET.fromstring(f"<all>{text}</all>"))


def gpu_violations(path: Path) -> list[str]:
    bad = []
    for layer in _roots(path):
        if (layer.tag, layer.get("type"), layer.get("version")) != ("CustomLayer", "SimpleGPU",
                                                                    "1") or not layer.get("name"):
            bad.append("not a named CustomLayer type=SimpleGPU version=1")
        kernel, buffers = layer.find("Kernel"), layer.find("Buffers")
        if kernel is None or not kernel.get("entry") or buffers is None:
            bad.append("needs <Kernel entry> and <Buffers>")
            continue
        for source in kernel.iter("Source"):
            if not (path.parent / source.get("filename", "")).is_file():
                bad.append(f"Couldn't open kernel file {source.get('filename')}")
        tensors = buffers.findall("Tensor")
        if any(t.get("format", "BFYX") not in GPU_FORMATS or t.get("type") not in (
                "input", "output") or not t.get("arg-index") or not t.get("port-index")
               for t in tensors):
            bad.append("Tensor needs arg-index, port-index, type input|output, a format")
        if sum(t.get("type") == "output" for t in tensors) != 1:  # ops/custom.cpp: OUTPUT0
            bad.append("one output Tensor")
        work = layer.find("WorkSizes")
        if work is not None:
            if not re.fullmatch(r"|output|input(,\d+)?", work.get("dim", "")):
                bad.append(f"Invalid WG dim source {work.get('dim')}")
            rules = [r for key in ("global", "local") for r in work.get(key, "").split(",") if r]
            bad += [f"Invalid WorkSize: {r}" for r in rules
                    if not GPU_SIZE.fullmatch(r) or _illegal(r, myriad=False)]
    return bad


def _illegal(rule: str, myriad: bool) -> str | None:
    """Why a rule fails the plugin's size grammar (IsLegalSizeRule / isLegalSizeRule with no
    attributes: generated rules use B, F, Y, X only) or its evaluation, else None."""
    try:
        expr = Expression(rule, attributes=myriad)
        expr.evaluate(dict.fromkeys("BFYX", 1), {})
    except ValueError as err:
        return str(err)
    return None


@pytest.mark.parametrize(("rule", "myriad"), [
    ("-X", True), ("X ", False), ("2X", True), ("floor(X)", False), ("X/(Y-1)", True),
    ("X Y", True), ("stride", True), ("1.5%2", True)])
def test_the_rule_checks_bite(rule: str, myriad: bool) -> None:
    assert _illegal(rule, myriad=False)
    assert bool(_illegal(rule, myriad=True)) == myriad


def vpu_violations(path: Path) -> list[str]:
    bad = []
    for layer in _roots(path):
        if layer.tag.lower() != "customlayer" or layer.get("type", "").lower() != "mvcl" \
                or layer.get("version") != "1" or not layer.get("name"):
            bad.append("not a named CustomLayer type=MVCL version=1")
        if any(v == "" for node in layer.iter() for v in node.attrib.values()):
            bad.append("an empty attribute")
        kernels = layer.findall("Kernel")
        if not kernels or (len(kernels) > 1 and sorted(int(k.get("stage", -1)) for k in kernels)
                           != list(range(len(kernels)))):
            bad.append("Kernels, with stage 0..N-1 when several")
        for kernel in kernels:
            if [len(kernel.findall(t)) for t in ("Parameters", "WorkSizes")] != [1, 1] or \
                    not kernel.findall("Source") or not kernel.get("entry"):
                bad.append("Required parameter Parameters/WorkSizes/Source inside <Kernel>")
                continue
            bad += [f"Source {s.get('filename')} is not a clc binary"
                    for s in kernel.iter("Source") if not s.get("filename", "").endswith(".bin")]
            work = kernel.find("WorkSizes")
            if not VPU_DIM.fullmatch(work.get("dim", "")) or work.get("local") is None or len(
                    work.get("local").split(",")) < len(work.get("global", "").split(",")):
                bad.append("WorkSizes needs dim=<input|output>,<port>, global and local")
            rules = [r for key in ("global", "local") for r in work.get(key, "").split(",")]
            bad += [f"Invalid WorkSize {r}: {_illegal(r, True)}" for r in rules
                    if _illegal(r, myriad=True)]
            params = kernel.find("Parameters")
            tensors = params.findall("Tensor")
            if any(t.get("format", "BFYX").upper() not in VPU_FORMATS for t in tensors):
                bad.append("Tensor format")
            if sum(t.get("type", "").lower() == "output" for t in tensors) != 1:  # parseCustom
                bad.append("one output Tensor")
            for s in params.findall("Scalar"):  # stages/custom.cpp: blob I is an input, else output
                blob, dot, _ = s.get("source", "").partition(".")
                port = int(s.get("port-index", -1))
                if dot and (blob not in ("I", "O") or port < 0 or (blob == "O" and port != 0)):
                    bad.append(f"Scalar {s.get('source')} port-index={port}")
    return bad


def _example_ops() -> list[tuple[str, dict]]:
    found = []
    for name in ("activations/activations.extgen.json", "cosh/cosh.extgen.json"):
        found += [(op["name"], op) for op in json.loads((EXAMPLES / name).read_text())["ops"]]
    return found


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("examples")
    ops = [op for _, op in _example_ops()]
    generate(validate_config({"targets": ["ie-gpu-ext", "ie-vpu-ext"], "ops": ops}), out)
    return out / "user_ie_extensions"


def test_every_generated_gpu_config_passes_the_gpu_parser_rules(generated: Path) -> None:
    xmls = sorted((generated / "gpu").glob("*.xml"))
    assert len(xmls) == len(_example_ops()) + 1  # one per op, and custom_layers.xml
    for xml in xmls:
        assert gpu_violations(xml) == [], xml.name
    names = [layer.get("name") for layer in _roots(generated / "gpu" / "custom_layers.xml")]
    # one CONFIG_FILE binds them all, in the order of their per-op files' names
    assert names == sorted((name for name, _ in _example_ops()), key=snake_case)


def test_every_generated_vpu_config_passes_the_myriad_parser_rules(generated: Path) -> None:
    for xml in sorted((generated / "vpu").glob("*.xml")):
        violations = vpu_violations(xml)
        if xml.name in ("custom_layers.xml", "split_sign_kernel.xml"):  # `new` warns for it
            violations = [v for v in violations if v != "one output Tensor"]
        assert violations == [], xml.name


def test_the_flat_vpu_form_is_refused_with_the_plugins_reason(tmp_path: Path) -> None:
    (tmp_path / "k.cl").write_text("__kernel void k(__global const half* a, __global half* b) {}")
    xml = tmp_path / "k.xml"
    xml.write_text('<CustomLayer name="K" type="MVCL" version="1">\n'
                   '  <Kernel entry="k"><Source filename="k.cl"/></Kernel>\n'
                   '  <Parameters/><WorkSizes dim="input,0" global="X" local="1"/>\n'
                   '</CustomLayer>\n')
    with pytest.raises(KernelConfigError, match=r"k\.xml:2: Required parameter Parameters is not "
                       r"found \(it is beside <Kernel>; the plugin reads it inside <Kernel>\)$"):
        VpuDevice([xml])


# Forms of the MYRIAD plugin's shipped customLayerBindings.xml (rewritten, not copied):
# alternatives chosen by <Where>, IR attributes in sizes, list items by port-index, a number
# as source, dims of I / O by port-index, and I1.X, which the plugin reads as output 0's X.
BINDINGS = """<CustomLayer name="Shuffle" type="MVCL" version="1">
  <Where mode="0"/>
  <Kernel entry="k"><Source filename="k.bin"/>
    <Parameters><Tensor arg-name="src" type="input" port-index="0" format="BFYX"/></Parameters>
    <WorkSizes dim="input,0" global="X" local="1"/></Kernel>
</CustomLayer>
<CustomLayer name="Shuffle" type="MVCL" version="1">
  <Where mode="&gt;=1"/>
  <Kernel entry="k">
    <Source filename="k.bin"/>
    <Parameters>
      <Tensor arg-name="src" type="input" port-index="0" format="BFYX"/>
      <Tensor arg-name="dst" type="output" port-index="0" format="BFYX"/>
      <Scalar arg-name="w" type="int" port-index="0" source="I.X"/>
      <Scalar arg-name="c" type="int" port-index="0" source="I.F"/>
      <Scalar arg-name="stride" type="int" source="stride"/>
      <Scalar arg-name="mask" type="int" source="3"/>
      <Scalar arg-name="kh" type="int" port-index="1" source="kernel"/>
      <Scalar arg-name="w1" type="int" port-index="0" source="I1.X"/>
    </Parameters>
    <WorkSizes dim="input,0" global="F*Y*X*stride*stride/4" local="stride*stride/2"/>
  </Kernel>
</CustomLayer>
"""
KERNEL = """__kernel void k(__global const float* src, __global float* dst, int w, int c,
                int stride, int mask, int kh, int w1) {
    const int i = get_global_id(0);
    dst[i] = src[i] + w * 100000 + c * 10000 + stride * 1000 + mask * 100 + kh * 10 + w1;
}
"""


def test_the_shipped_bindings_forms_load_and_run_as_the_plugin_reads_them(tmp_path) -> None:
    (tmp_path / "k.cl").write_text(KERNEL)
    (tmp_path / "k.bin").write_bytes(b"\x7fELF")
    (tmp_path / "b.xml").write_text(BINDINGS)
    device = VpuDevice([tmp_path / "b.xml"])
    x, other = np.zeros((1, 2, 1, 3), np.float32), np.zeros((1, 1, 1, 7), np.float32)
    attrs = {"mode": "2", "stride": "2", "kernel": "4,5"}
    layer = IRLayer(1, "s", "Shuffle", "extension", attrs, [0, 1],
                    [OutPort(2, "FP32", ["y"], x.shape)])
    with pytest.raises(KernelConfigError, match="no definition for 'dst'"):  # mode 0: the first
        device.kernel(IRLayer(1, "s", "Shuffle", "extension", {**attrs, "mode": "0"}, [0, 1],
                              layer.outputs))
    (y,) = device.kernel(layer)([x, other])
    # w=3 c=2 stride=2 mask=3 kh=5, w1=3: output 0's X, not input 1's 7
    np.testing.assert_array_equal(y, np.full(x.shape, 322353, np.float32))


def test_dim_scalars_count_from_the_right(tmp_path) -> None:
    (tmp_path / "k.cl").write_text(KERNEL)
    (tmp_path / "k.bin").write_bytes(b"\x7fELF")
    rank3 = BINDINGS.replace('source="I.F"', 'source="I.B"').replace('"BFYX"', '"FYX"')
    (tmp_path / "b.xml").write_text(rank3)
    x = np.zeros((2, 1, 3), np.float32)  # rank 3: F, Y, X; the plugin's dims.at(-1) throws for B
    layer = IRLayer(1, "s", "Shuffle", "extension", {"mode": "1", "stride": "2", "kernel": "4,5"},
                    [0, 1], [OutPort(2, "FP32", ["y"], x.shape)])
    with pytest.raises(KernelConfigError, match="rank 3 has no B$"):
        VpuDevice([tmp_path / "b.xml"]).kernel(layer)([x, x])


def test_float_defines_have_six_decimals_as_std_to_string_writes_them() -> None:
    assert plugin_float("1.6732632") == "1.673263"  # Selu's alpha
    assert plugin_float("4e-7") == "0.000000"
    assert plugin_float("2") == "2.000000"


def test_input_work_dims_align_right_and_fill_with_zero() -> None:
    # update_work_group_size: X is the input's last dim; Y, F, B only as far as the output's rank
    assert work_dims("input", (6, 5), (1, 2, 6, 5)) == {"B": 0, "F": 0, "Y": 6, "X": 5}
    assert work_dims("input", (1, 2, 6, 5), (1, 2, 6, 5)) == {"B": 1, "F": 2, "Y": 6, "X": 5}
    assert work_dims("output", (6, 5), ()) == {"B": 6, "F": 5, "Y": 1, "X": 1}
    with pytest.raises(KernelConfigError, match="reads 4 dim"):
        work_dims("input", (1, 2, 6, 5), (6, 5))


def test_builtins_are_spelled_as_the_plugin_writes_them() -> None:
    text = builtins([TensorDesc("INPUT0", (1, 2, 3, 4), np.dtype(np.float32), "BFYX")], 1,
                    [24], [])
    lines = text.splitlines()
    assert lines[:2] == ["// Custom Layer Built-ins", ""]
    for line in ("#define GLOBAL_WORKSIZE_SIZE 1", "#define GLOBAL_WORKSIZE_INIT { 24, } ",
                 "#define GLOBAL_WORKSIZE (ulong []){ 24, } ", "#define LOCAL_WORKSIZE_SIZE 0",
                 "#define LOCAL_WORKSIZE (ulong []){  } ", "#define INPUT0_FORMAT_BFYX ",
                 "#define INPUT0_DIMS_INIT { 1,2,3,4, } "):
        assert line in lines


def test_several_gpu_configs_merge_into_the_one_config_file(generated, tmp_path) -> None:
    gpu = generated / "gpu"
    merged = merge_gpu([gpu / "swish_kernel.xml", gpu / "selu_kernel.xml"], tmp_path)
    layers = load_gpu(merged)
    assert [(c.name, c.sources) for c in layers] == [
        ("Swish", [gpu / "swish_kernel.cl"]), ("Selu", [gpu / "selu_kernel.cl"])]
    assert gpu_violations(merged) == []
    assert GpuDevice([merged]).kernel(IRLayer(1, "s", "Selu", "extension", {}, [0], [])) is not None


@pytest.fixture(scope="module")
def activations(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("activations")
    ops = json.loads((EXAMPLES / "activations" / "activations.extgen.json").read_text())["ops"]
    generate(validate_config({"targets": ["mo-op", "ie-gpu-ext", "ie-vpu-ext"], "ops": ops}),
             out)
    return out


def test_the_activations_agree_on_gpu_gpu_pad_and_vpu_as_the_plugins_read_them(
        activations: Path) -> None:
    # what `extgen test` runs for these targets (the CPU ones are test_activation_set's)
    from converter.ops.loader import python_op_classes
    from extgen.target_check import _opencl_targets, check_ops

    targets, load_rows = _opencl_targets(activations)
    assert load_rows == [] and [t.name for t in targets] == ["gpu", "gpu-pad", "vpu"]
    rows = check_ops(python_op_classes(activations / "user_mo_extensions"), targets)
    assert {r.target for r in rows} == {"gpu", "gpu-pad", "vpu"}
    bad = [r for r in rows if not r.ok or (r.diff is None) != (r.op == "SplitSign")]
    assert bad == []  # SplitSign (two outputs) is the only skip: neither plugin runs it
    # the IR's alpha reaches the kernel with std::to_string's six decimals
    gpu = GpuDevice([activations / "user_ie_extensions" / "gpu" / "selu_kernel.xml"])
    selu = gpu.kernel(IRLayer(1, "s", "Selu", "extension",
                              {"alpha": "1.6732632", "lambda_": "1.0507009"}, [0],
                              [OutPort(1, "FP32", ["y"], (1, 1, 1, 2))]))
    x = np.zeros((1, 1, 1, 2), np.float32)
    text, _ = selu.source([x], x.shape, x.dtype, [2], [])
    assert "#define ALPHA 1.673263\n" in text and "#define LAMBDA_ 1.050701\n" in text
