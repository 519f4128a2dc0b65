"""The MYRIAD plugin's choice among bindings, its layouts by rank, work-groups and argument types,
as the shim emulates them.

Sources, openvinotoolkit/openvino tag 2022.3, src/plugins/intel_myriad/graph_transformer/src/:
frontend/frontend.cpp (getSuitableCustomLayer: <Where>, isLegalSizeRule against the layer's
params, then the first binding whose input formats match the inputs' layouts, else the first
suitable one), frontend/custom_layer.cpp (meetsWhereRestrictions compares a numeric param in
float32 after std::stof of the restriction; formatFromLayout knows NCHW, NHWC, CHW and NC only;
stages 0..N), stages/custom.cpp (formatsMap orders BFYX/BYXF as NCHW/NHWC and FYX/YXF as
CHW/HWC; gws[i] / lws[i] work-groups are serialized; serializeParamsImpl walks the kernel's own
parameters and writes int32 or float Scalars), model/data_desc.cpp (DataDesc::reorder asserts
the orders have the same dims). The bindings below rewrite forms of the plugin's shipped
custom_kernels/customLayerBindings.xml (ReorgYolo, RegionYolo, CTCGreedyDecoder)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from converter.runtime.ir_reader import IRLayer, OutPort
from converter.runtime.opencl import VpuDevice
from converter.runtime.opencl.vpu import _whole_groups
from converter.runtime.opencl.vpu_config import load_vpu
from converter.runtime.opencl.vpu_select import where_matches
from extgen.errors import KernelConfigError


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("EXTGEN_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "opencl-cache"))


# one work item copies the whole tensor, adding a tag that says which binding ran
TAGGED = """__kernel void {name}(__global const float* src, __global float* dst, int W, int H,
                          int C) {{
    if (get_global_id(0) + get_global_id(1) + get_global_id(2) != 0) return;
    for (int i = 0; i < W * H * C; ++i) dst[i] = src[i] + {tag};
}}
"""


def _binding(entry: str, fmt: str, work: str, where: str = "") -> str:
    return f"""<CustomLayer name="{{type}}" type="MVCL" version="1">{where}
  <Kernel entry="{entry}">
    <Source filename="{entry}.bin"/>
    <Parameters>
      <Tensor arg-name="src" type="input" port-index="0" format="{fmt}"/>
      <Tensor arg-name="dst" type="output" port-index="0" format="{fmt}"/>
      <Scalar arg-name="W" type="int" port-index="0" source="I.X"/>
      <Scalar arg-name="H" type="int" port-index="0" source="I.Y"/>
      <Scalar arg-name="C" type="int" port-index="0" source="I.F"/>
    </Parameters>
    <WorkSizes dim="input,0" {work}/>
  </Kernel>
</CustomLayer>
"""


def _config(tmp_path: Path, type_: str, *bindings: str) -> Path:
    for tag, entry in enumerate(("first", "second"), start=1):
        (tmp_path / f"{entry}.cl").write_text(TAGGED.format(name=entry, tag=tag))
        (tmp_path / f"{entry}.bin").write_bytes(b"\x7fELF")
    xml = tmp_path / "bindings.xml"
    xml.write_text("".join(bindings).replace("{type}", type_))
    return xml


def _layer(type_: str, shape: tuple[int, ...], **attrs: str) -> IRLayer:
    return IRLayer(1, "n", type_, "extension", attrs, [0], [OutPort(2, "FP32", ["y"], shape)])


# ReorgYolo's pair: an HWC kernel first, a CHW one second, sizes over the stride attribute
REORG = (_binding("first", "BYXF", 'global="F,1,1" local="stride*stride,1,1"'),
         _binding("second", "BFYX",
                  'global="Y*F/(stride*stride),stride*stride,1" local="stride,stride,1"'))


def test_the_binding_whose_input_format_matches_the_layout_wins(tmp_path) -> None:
    device = VpuDevice([_config(tmp_path, "Reorg", *REORG)])
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 2, 2)  # NCHW: BFYX, the second binding
    (y,) = device.kernel(_layer("Reorg", x.shape, stride="2"))([x])
    np.testing.assert_array_equal(y, x + 2)


def test_without_a_match_the_first_suitable_binding_is_taken(tmp_path) -> None:
    device = VpuDevice([_config(tmp_path, "Reorg", *REORG)])
    x = np.zeros((4, 2, 2), np.float32)  # CHW matches neither; BYXF (first) cannot order it
    with pytest.raises(KernelConfigError, match=r"bindings\.xml:2: input Tensor 'src': format "
                       r"BYXF orders a rank-4 tensor but this one has rank 3 .*DataDesc::reorder"):
        device.kernel(_layer("Reorg", x.shape, stride="2"))([x])


# RegionYolo's alternatives: chosen by <Where>, one sized by the num attribute
REGION = (_binding("first", "BFYX", 'global="((X*Y+7)/8)*8,num,1" local="((X*Y+7)/8)*8,1,1"',
                   '\n  <Where do_softmax="1"/>'),
          _binding("second", "BFYX", 'global="((X*Y+7)/8)*8,3,1" local="((X*Y+7)/8)*8,1,1"',
                   '\n  <Where do_softmax="0" mask="0,1,2"/>'))


@pytest.mark.parametrize(("attrs", "tag"), [
    ({"do_softmax": "0", "mask": "0,1,2"}, 2),
    ({"do_softmax": "1.0", "num": "5"}, 1),          # a number compares as a number
    ({"do_softmax": "0", "mask": "0,1,2", "num": "5"}, 2),
    ({"do_softmax": "1"}, None),                     # 'num' missing: the size rule is illegal
    ({"do_softmax": "0", "mask": "0, 1, 2"}, None),  # text compares whole (ignoring case)
])
def test_where_and_legal_sizes_choose_among_alternatives(tmp_path, attrs, tag) -> None:
    device = VpuDevice([_config(tmp_path, "Region", *REGION)])
    x = np.arange(2 * 3 * 5, dtype=np.float32).reshape(1, 2, 3, 5)
    kernel = device.kernel(_layer("Region", x.shape, **attrs))
    if tag is None:
        assert kernel is None
    else:
        np.testing.assert_array_equal(kernel([x])[0], x + tag)


def test_where_compares_numbers_in_float32_and_needs_a_number_to_compare() -> None:
    assert where_matches({"eps": "0.1"}, {"eps": "0.100000001"})  # equal as float32
    assert where_matches({"k": ">=2"}, {"k": "2"}) and not where_matches({"k": "!=2"}, {"k": "2"})
    with pytest.raises(KernelConfigError,
                       match="^<Where> value 'same' is no number, .*std::stof throws"):
        where_matches({"k": "same"}, {"k": "3"})


def test_rank_three_and_two_tensors_take_their_own_layouts(tmp_path) -> None:
    # CTCGreedyDecoder's forms: FYX and YXF for CHW tensors, BF for NC ones
    (tmp_path / "copy.cl").write_text(
        "__kernel void copy(__global const float* a, __global const float* b,"
        " __global float* out, int n) { int i = get_global_id(0);"
        " out[i] = a[i] + (i < n ? b[i] : 0.0f) * 1000.0f; }\n")
    (tmp_path / "copy.bin").write_bytes(b"\x7fELF")
    xml = tmp_path / "ctc.xml"
    xml.write_text("""<CustomLayer name="Ctc" type="MVCL" version="1">
  <Kernel entry="copy"><Source filename="copy.bin"/>
    <Parameters>
      <Tensor arg-name="a" type="input" port-index="0" format="YXF"/>
      <Tensor arg-name="b" type="input" port-index="1" format="BF"/>
      <Tensor arg-name="out" type="output" port-index="0" format="FYX"/>
      <Scalar arg-name="n" type="int" port-index="1" source="I.X"/>
    </Parameters>
    <WorkSizes dim="input,0" global="F*Y*X" local="1"/>
  </Kernel>
</CustomLayer>
""")
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)  # C, H, W
    b = np.array([[1, 2, 3]], np.float32)  # N, C: I.X is C = 3 (dims counted from the right)
    layer = IRLayer(1, "n", "Ctc", "extension", {}, [0, 1], [OutPort(2, "FP32", ["y"], a.shape)])
    (y,) = VpuDevice([xml]).kernel(layer)([a, b])
    want = a.transpose(1, 2, 0).reshape(-1)  # a read in HWC order, written back as CHW
    want[:3] += b[0] * 1000
    np.testing.assert_array_equal(y, want.reshape(a.shape))


@pytest.mark.parametrize("shape", [(7,), (1, 1, 2, 2, 2)])
def test_ranks_without_a_custom_layer_format_are_refused(tmp_path, shape) -> None:
    device = VpuDevice([_config(tmp_path, "Reorg", REORG[1])])
    with pytest.raises(KernelConfigError, match=f"input 0 has rank {len(shape)}; .*"
                       "formatFromLayout: Tensor node has an invalid format"):
        device.kernel(_layer("Reorg", shape, stride="1"))([np.zeros(shape, np.float32)])


def test_work_groups_are_whole_as_the_plugin_serializes_them(caplog) -> None:
    assert _whole_groups([10, 4], [4, 4], "k") == [8, 4]
    assert "global 10 is no multiple of local 4: the MYRIAD plugin runs 8 items" in caplog.text
    for gws, lws in (([3], [4]), ([4], [0])):
        with pytest.raises(KernelConfigError, match="is no work-group"):
            _whole_groups(gws, lws, "k")


def test_a_rule_the_plugin_parses_but_cannot_evaluate_fails_when_run(tmp_path) -> None:
    xml = _config(tmp_path, "Reorg", _binding("first", "BFYX", 'global="-X" local="1"'))
    x = np.zeros((1, 1, 1, 2), np.float32)
    with pytest.raises(KernelConfigError, match="invalid size '-X' .*not enough values for "
                       "operator evaluation"):
        VpuDevice([xml]).kernel(_layer("Reorg", x.shape))([x])


@pytest.mark.parametrize(("declared", "binding", "wanted"), [
    ("float W", 'arg-name="W" type="int"', "'W' must be an int or uint"),
    ("int W", 'arg-name="W" type="float"', "'W' must be a float"),
    ("half W", 'arg-name="W" type="float"', "'W' must be a float"),
])
def test_scalars_must_match_what_the_plugin_passes(tmp_path, declared, binding, wanted) -> None:
    (tmp_path / "k.cl").write_text(f"__kernel void k(__global float* dst, {declared}) {{}}\n")
    xml = tmp_path / "k.xml"
    xml.write_text(f"""<CustomLayer name="K" type="MVCL" version="1">
  <Kernel entry="k"><Source filename="k.cl"/>
    <Parameters><Tensor arg-name="dst" type="output" port-index="0"/>
      <Scalar {binding} source="1"/></Parameters>
    <WorkSizes dim="output,0" global="1" local="1"/></Kernel>
</CustomLayer>""")
    with pytest.raises(KernelConfigError, match=wanted):
        VpuDevice([xml]).kernel(_layer("K", (1, 1, 1, 1)))


def test_stages_are_read_with_std_stod_from_zero(tmp_path) -> None:
    kernel = ('<Kernel entry="k" stage="{}"><Source filename="k.cl"/><Parameters/>'
              '<WorkSizes dim="output,0" global="1" local="1"/></Kernel>')
    (tmp_path / "k.cl").write_text("__kernel void k() {}\n")
    xml = tmp_path / "k.xml"
    xml.write_text(f'<CustomLayer name="K" type="MVCL" version="1">'
                   f'{kernel.format("1.9")}{kernel.format("0")}</CustomLayer>')
    assert [st.stage for st in load_vpu(xml)] == [0, 1]  # 1.9 is stage 1
    xml.write_text(f'<CustomLayer name="K" type="MVCL" version="1">'
                   f'{kernel.format("1")}{kernel.format("2")}</CustomLayer>')
    with pytest.raises(KernelConfigError, match="K custom layer: Stage 0 is not found.$"):
        load_vpu(xml)


def test_the_shipped_files_quirks_load(tmp_path) -> None:
    # customLayerBindings.xml: text after a start tag, max-shaves on the CustomLayer (not read:
    # only the Kernel's is), comments between layers, several <Where> (the first one counts)
    bindings = REGION[1].replace('version="1">', 'version="1" max-shaves="1">-->')
    bindings = bindings.replace("</CustomLayer>", '<Where do_softmax="7"/></CustomLayer>')
    xml = _config(tmp_path, "Region", "<!-- a comment -->\n", bindings)
    (stage,) = load_vpu(xml)
    assert (stage.max_shaves, stage.where) == (0, {"do_softmax": "0", "mask": "0,1,2"})


def test_a_buffer_is_made_once_per_port_of_the_first_size(tmp_path) -> None:
    # parseCustom: tempBuffsMap keeps the first buffer of a port-index; a later, larger size
    # would overrun it on the device
    (tmp_path / "k.cl").write_text(
        "__kernel void put(__global const float* src, __global float* buf) {}\n"
        "__kernel void get(__global const float* buf, __global float* dst) {}\n")
    stage = """<Kernel entry="{e}" stage="{n}"><Source filename="k.cl"/><Parameters>
      <Tensor arg-name="{a}" type="{ta}" port-index="{pa}" dim="input,0" size="{s}"/>
      <Tensor arg-name="{b}" type="{tb}" port-index="{pb}" dim="input,0" size="{s}"/>
    </Parameters><WorkSizes dim="input,0" global="1" local="1"/></Kernel>"""
    xml = tmp_path / "k.xml"
    xml.write_text('<CustomLayer name="K" type="MVCL" version="1">' + stage.format(
        e="put", n=0, a="src", ta="input", pa=0, b="buf", tb="output_buffer", pb=3, s="X*2")
        + stage.format(e="get", n=1, a="buf", ta="input_buffer", pa=3, b="dst", tb="output",
                       pb=0, s="X*4") + "</CustomLayer>")
    x = np.zeros((1, 1, 1, 4), np.float32)
    with pytest.raises(KernelConfigError, match=r"'buf' has size 16, but the plugin makes it "
                       r"once, of the first size \(8\)"):
        VpuDevice([xml]).kernel(_layer("K", x.shape))([x])
