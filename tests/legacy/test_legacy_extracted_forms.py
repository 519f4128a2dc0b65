"""ONNX ops of early opsets as MO's extractors held them, to legacy front passes: a Slice of opset
9 an `AttributedSlice` (starts, ends, axes attributes), a TopK of opset 9 MO's TopK-3 with `k` an
attribute (ports 1 and 2 unconnected), a Softmax or LogSoftmax MO's `SoftMaxONNX` or
`LogSoftmaxONNX`, a Resize of opset 10 an `ONNXResize10`; a TF ResizeBilinear or
ResizeNearestNeighbor a `TFResize` of the data and the sizes; and any Slice, to the front and
middle phases, MO's untyped Slice (axes input 3, steps 4) until SliceConverter; an Interpolate, to
the middle and back phases, MO's Interpolate-4 (sizes, scales and axes on inputs 1-3). MO's own
modules that lowered or fused them, copied unmodified, do so as in MO, with the model's
outputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import openvino as ov
import pytest
from onnx import TensorProto, helper

from converter.errors import ExtensionError
from converter.front.tf.writer import GraphBuilder
from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.conftest import make_model
from tests.legacy.conftest import LAYOUTS, checked_in, write_ext
from tests.legacy.mo_corpus import PREFIX, corpus

MO = LAYOUTS["openvino.tools.mo"]
X = np.random.default_rng(5).standard_normal((1, 4, 6, 6)).astype(np.float32)

SEES = """
import numpy as np
from {MO}.front.common.replacement import FrontReplacementPattern
from {MO}.middle.replacement import MiddleReplacementPattern


def _seen(graph, keys):
    return {n.name: [n.op, n.soft_get('type'), sorted(n.in_ports()),
                     [p for p in sorted(n.in_ports()) if not n.in_port(p).disconnected()],
                     {k: np.asarray(n[k]).tolist() for k in keys if n.has_valid(k)}]
            for n in graph.get_op_nodes() if n.name in WANT}


class Sees(FrontReplacementPattern):
    enabled = True

    def find_and_replace_pattern(self, graph):
        found = _seen(graph, ('starts', 'ends', 'axes', 'k', 'axis', 'mode'))
        if found != WANT:
            raise ValueError(f"the front pass saw {found}")


class SeesSliceInputs(MiddleReplacementPattern):
    enabled = True

    def find_and_replace_pattern(self, graph):
        for node in graph.get_op_nodes(op='Slice'):
            axes = node.in_port(3).data.get_value().tolist()
            if node.soft_get('type') is not None or axes != [2, 3]:
                raise ValueError(f"the middle pass saw type {node.soft_get('type')}, axes {axes}")
"""


def _model(tmp_path: Path, opset: int) -> Path:
    nodes = {9: [helper.make_node("Slice", ["x"], ["s"], name="slice", starts=[0, 1],
                                  ends=[4, 5], axes=[2, 3]),
                 helper.make_node("TopK", ["s"], ["t", "ti"], name="topk", k=2, axis=-1),
                 helper.make_node("Softmax", ["t"], ["sm"], name="softmax", axis=-1),
                 helper.make_node("LogSoftmax", ["sm"], ["y"], name="logsoftmax", axis=-1)],
             10: [helper.make_node("Resize", ["x", "scales"], ["r"], name="resize"),
                  helper.make_node("Slice", ["r", "st", "en", "ax", "steps"], ["y"],
                                   name="slice")]}[opset]
    inits = {"scales": np.array([1, 1, 2, 2], np.float32), "st": np.array([0, 1], np.int64),
             "en": np.array([8, 11], np.int64), "ax": np.array([2, 3], np.int64),
             "steps": np.array([2, 3], np.int64)} if opset == 10 else {}
    path = tmp_path / f"opset{opset}.onnx"
    model = make_model(nodes, [("x", TensorProto.FLOAT, list(X.shape))],
                       [("y", TensorProto.FLOAT, None)], inits, opset=opset)
    onnx.save(model, path)
    return path


def _outputs(xml: Path) -> np.ndarray:
    return ov.Core().compile_model(str(xml), "CPU")([X])[0]


def _copies(tmp_path: Path, rels: list[str]) -> Path:
    for rel in rels:
        ext = tmp_path / "ext" / Path(rel).parent
        ext.mkdir(parents=True, exist_ok=True)
        (ext / Path(rel).name).write_text((corpus() / PREFIX / rel).read_text())
    return tmp_path / "ext"


@pytest.mark.parametrize("opset", [9, 10])
def test_early_onnx_ops_as_mo_extracted_them(tmp_path: Path, opset: int) -> None:
    want = {9: {"slice": ["AttributedSlice", None, [0], [0],
                          {"starts": [0, 1], "ends": [4, 5], "axes": [2, 3]}],
                "topk": ["TopK", "TopK", [0, 1, 2], [0], {"k": 2, "axis": -1, "mode": "max"}],
                "softmax": ["SoftMaxONNX", None, [0], [0], {"axis": -1}],
                "logsoftmax": ["LogSoftmaxONNX", None, [0], [0], {"axis": -1}]},
            10: {"resize": ["ONNXResize10", None, [0, 1], [0, 1], {"mode": "nearest"}],
                 "slice": ["Slice", None, [0, 1, 2, 3, 4], [0, 1, 2, 3, 4], {}]}}[opset]
    text = SEES + f"\nWANT = {want!r}\n"
    ext = write_ext(tmp_path, "ext", {"front/sees.py": text}, MO)
    model = _model(tmp_path, opset)
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    plain = convert(ConvertOptions(model, output_dir=tmp_path / "plain")).xml
    np.testing.assert_array_equal(_outputs(xml), _outputs(plain))


LOWERINGS = ["front/TopKNormalize.py", "front/onnx/AttributedSliceToSlice.py",
             "front/onnx/softmaxONNX_to_softmax.py", "front/onnx/logsoftmaxONNX_to_logsoftmax.py",
             "front/onnx/flattenONNX_to_reshape.py", "front/onnx/ONNXResize10ToInterpolate.py",
             "middle/SliceConverter.py"]


@pytest.mark.parametrize("opset", [9, 10])
def test_copies_of_mo_s_lowerings_convert_as_mo(tmp_path: Path, opset: int) -> None:
    """MO's modules replace the ops (the Slices become MO's StridedSlices, the softmaxes run on
    a flattened input) and the outputs are the model's."""
    model = _model(tmp_path, opset)
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir",
                                 extensions=[_copies(tmp_path, LOWERINGS)])).xml
    plain = convert(ConvertOptions(model, output_dir=tmp_path / "plain")).xml
    types = [op.get_type_name() for op in ov.Core().read_model(str(xml)).get_ordered_ops()]
    assert "StridedSlice" in types and "Slice" not in types, types
    if opset == 9:
        assert types.count("Reshape") >= 2, types
    np.testing.assert_allclose(_outputs(xml), _outputs(plain), rtol=1e-6, atol=1e-6)


def test_a_middle_pass_sees_slice_inputs_in_mo_s_order(tmp_path: Path) -> None:
    """Axes on input 3 (extgen's Slice-8 has steps there), and no type, as MO's Slice."""
    ext = write_ext(tmp_path, "ext", {"middle/sees.py": SEES + "\nWANT = {}\n"}, MO)
    model = _model(tmp_path, 10)
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    plain = convert(ConvertOptions(model, output_dir=tmp_path / "plain")).xml
    np.testing.assert_array_equal(_outputs(xml), _outputs(plain))


def test_slices_of_shared_constants_keep_their_inputs_under_mo_s_copying(tmp_path: Path) -> None:
    """MO's SharedWeightsDuplication gives each Slice its own copies of the shared axes and
    steps (tensors without a producer until the pass ends): each keeps them on its own ports."""
    nodes = [helper.make_node("Slice", ["x", "st", "en", "ax", "steps"], [f"s{i}"],
                              name=f"slice{i}") for i in (0, 1)]
    nodes.append(helper.make_node("Add", ["s0", "s1"], ["y"]))
    inits = {"st": np.array([0, 1], np.int64), "en": np.array([4, 5], np.int64),
             "ax": np.array([2, 3], np.int64), "steps": np.array([2, 3], np.int64)}
    model = tmp_path / "shared.onnx"
    onnx.save(make_model(nodes, [("x", TensorProto.FLOAT, list(X.shape))],
                         [("y", TensorProto.FLOAT, None)], inits, opset=13), model)
    ext = _copies(tmp_path, ["middle/SharedWeightsDuplication.py"])
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    plain = convert(ConvertOptions(model, output_dir=tmp_path / "plain")).xml
    np.testing.assert_array_equal(_outputs(xml), _outputs(plain))


K_CHANGED = """
from {MO}.front.common.replacement import FrontReplacementPattern
from {MO}.ops.const import Const
from {MO}.front.common.partial_infer.utils import int64_array


class OtherK(FrontReplacementPattern):
    enabled = True

    def find_and_replace_pattern(self, graph):
        for node in graph.get_op_nodes(op='TopK'):
            k = Const(graph, {'value': int64_array(3)}).create_node()
            node.in_port(1).connect(k.out_port(0))
            del node['k']
"""


def test_a_pass_giving_topk_another_k_stops_in_one_line(tmp_path: Path) -> None:
    ext = write_ext(tmp_path, "ext", {"front/other_k.py": K_CHANGED}, MO)
    with pytest.raises(ExtensionError) as err:
        convert(ConvertOptions(_model(tmp_path, 9), output_dir=tmp_path / "ir",
                               extensions=[ext]))
    message = str(err.value)
    assert "other_k.py" in message and "TopK node 'topk'" in message, message
    assert "\n" not in message


def _tf_resize(tmp_path: Path) -> Path:
    g = GraphBuilder()
    x = g.placeholder("x", [1, 6, 6, 4])
    size = g.const("size", np.array([9, 12], np.int32))
    b = g.node("ResizeBilinear", "bilinear", [x, size], T=np.float32, align_corners=True)
    n = g.node("ResizeNearestNeighbor", "nearest", [x, size], T=np.float32,
               half_pixel_centers=True)
    g.node("AddV2", "y", [b, n], T=np.float32)
    return g.save(tmp_path / "resize.pb")


def test_tf_resizes_as_mo_extracted_them_and_mo_s_lowering(tmp_path: Path) -> None:
    want = {name: ["TFResize", None, [0, 1], [0, 1],
                   {"mode": mode, "align_corners": name == "bilinear",
                    "half_pixel_centers": name == "nearest"}]
            for name, mode in (("bilinear", "linear"), ("nearest", "nearest"))}
    sees = SEES.replace("('starts', 'ends', 'axes', 'k', 'axis', 'mode')",
                        "('mode', 'align_corners', 'half_pixel_centers')")
    sees += """

class SeesSizes(FrontReplacementPattern):
    enabled = True

    def find_and_replace_pattern(self, graph):
        for n in graph.get_op_nodes(op='TFResize'):
            if n.in_port(1).get_source().node.soft_get('value').dtype != np.int32:
                raise ValueError('sizes not as in the model')
"""
    model = _tf_resize(tmp_path)
    ext = write_ext(tmp_path, "ext", {"front/sees.py": sees + f"\nWANT = {want!r}\n"}, MO)
    seen = convert(ConvertOptions(model, output_dir=tmp_path / "seen", extensions=[ext])).xml
    lowered = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[
        _copies(tmp_path, ["front/tf/TFResizeToInterpolate.py"])])).xml
    plain = convert(ConvertOptions(model, output_dir=tmp_path / "plain")).xml
    x = np.random.default_rng(2).standard_normal((1, 6, 6, 4)).astype(np.float32)
    core = ov.Core()
    want_y = core.compile_model(str(plain), "CPU")([x])[0]
    names = [op.get_friendly_name() for op in core.read_model(str(lowered)).get_ordered_ops()]
    assert "bilinear/interpolate_4" not in names and "bilinear" in names, names
    for xml in (seen, lowered):
        np.testing.assert_allclose(core.compile_model(str(xml), "CPU")([x])[0], want_y,
                                   rtol=1e-5, atol=1e-5)


INTERPOLATE_4 = """
WANT = [[[12, 12], [2.0, 2.0], [2, 3]], [[24], [2.0], [2]]]


def check(graph, phase):
    for n in graph.get_op_nodes(type='Interpolate'):
        ports = [p for p in sorted(n.in_ports()) if n.is_in_port_connected(p)]
        seen = [n.soft_get('version'), ports]
        values = [n.in_port(p).data.get_value().tolist() for p in (1, 2, 3)]
        if seen != ['opset4', [0, 1, 2, 3]] or values not in WANT:
            raise ValueError(f"{phase}: {seen} {values}")
""" + checked_in(Middle="middle", Back="back")


def _two_resizes(tmp_path: Path, first: dict, second: dict) -> Path:
    """Two Resizes of opset 18 (`axes` attributes): each a dict of its inputs and attributes."""
    nodes, inits = [], {}
    for i, (x, y, given) in enumerate(((("x", "r", first), ("r", "y", second)))):
        inputs = [x, "", *(["", f"sizes{i}"] if "sizes" in given else [f"scales{i}"])]
        nodes.append(helper.make_node("Resize", inputs, [y], name=f"resize{i}", mode="nearest",
                                      **({"axes": given["axes"]} if "axes" in given else {})))
        inits.update({f"{k}{i}": v for k, v in given.items() if k != "axes"})
    path = tmp_path / "resizes.onnx"
    onnx.save(make_model(nodes, [("x", TensorProto.FLOAT, list(X.shape))],
                         [("y", TensorProto.FLOAT, None)], inits, opset=18), path)
    return path


def test_middle_and_back_passes_see_mo_s_interpolate_4(tmp_path: Path) -> None:
    ext = write_ext(tmp_path, "ext", {"middle/sees.py": INTERPOLATE_4}, MO)
    model = _two_resizes(tmp_path, {"scales": np.array([1, 1, 2, 2], np.float32)},
                         {"sizes": np.array([24], np.int64), "axes": [2]})
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    plain = convert(ConvertOptions(model, output_dir=tmp_path / "plain")).xml
    np.testing.assert_array_equal(_outputs(xml), _outputs(plain))


def test_mo_s_interpolate_sequence_fusion_fuses_extgen_s_resizes(tmp_path: Path) -> None:
    """One on the width, then one on the height, both by sizes: MO's pass makes them one."""
    model = _two_resizes(tmp_path, {"sizes": np.array([12], np.int64), "axes": [3]},
                         {"sizes": np.array([9], np.int64), "axes": [2]})
    ext = _copies(tmp_path, ["middle/InterpolateSequenceToInterpolate.py"])
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    plain = convert(ConvertOptions(model, output_dir=tmp_path / "plain")).xml
    types = [op.get_type_name() for op in ov.Core().read_model(str(xml)).get_ordered_ops()]
    assert types.count("Interpolate") == 1, types
    np.testing.assert_array_equal(_outputs(xml), _outputs(plain))


OTHER_SCALES = """
import numpy as np
from {MO}.middle.replacement import MiddleReplacementPattern


class OtherScales(MiddleReplacementPattern):
    enabled = True

    def find_and_replace_pattern(self, graph):
        for n in graph.get_op_nodes(type='Interpolate'):
            n.in_port(2).data.get_value()[:] = 3.0
"""


def test_a_pass_changing_computed_interpolate_inputs_stops_in_one_line(tmp_path: Path) -> None:
    """Extgen's Interpolate-11 by sizes has no scales; MO's scales shown are computed."""
    ext = write_ext(tmp_path, "ext", {"middle/other_scales.py": OTHER_SCALES}, MO)
    model = _two_resizes(tmp_path, {"sizes": np.array([12], np.int64), "axes": [3]},
                         {"sizes": np.array([9], np.int64), "axes": [2]})
    with pytest.raises(ExtensionError) as err:
        convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext]))
    message = str(err.value)
    assert "other_scales.py" in message and "input 2 of MO's Interpolate-4" in message, message
    assert "\n" not in message
