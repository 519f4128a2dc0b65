"""ONNX Flatten and the global poolings as MO's front passes saw them: MO's FlattenONNX (an
`axis`, one input, no type) and a global Pooling (one input); a pass that leaves the node alone
gets the opset op back, a copy of MO's own lowering replaces it as MO's did, and a pass that
changes a shown attribute on the node stops with one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import openvino as ov
import pytest
from onnx import TensorProto, helper

from converter.errors import ExtensionError
from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.conftest import make_model
from tests.legacy.conftest import LAYOUTS, before_front_start, write_ext
from tests.legacy.mo_corpus import PREFIX, corpus

MO = LAYOUTS["openvino.tools.mo"]
X = np.random.default_rng(7).standard_normal((1, 3, 4, 4)).astype(np.float32)

SEES = """
    from {MO}.front.common.replacement import FrontReplacementPattern


    class Sees(FrontReplacementPattern):
        enabled = True

        def find_and_replace_pattern(self, graph):
            found = {n.soft_get('name'): (n.op, n.soft_get('type'), len(n.in_ports()),
                                          n.soft_get('global_pool', None))
                     for n in graph.get_op_nodes() if n.soft_get('name') in ('gap', 'flat')}
            if found != WANT:
                raise ValueError(f"the pass saw {found}")
"""


def _model(tmp_path: Path, axis: int = 1) -> Path:
    nodes = [helper.make_node("GlobalAveragePool", ["x"], ["gap"], name="gap"),
             helper.make_node("Flatten", ["gap"], ["flat"], name="flat", axis=axis),
             helper.make_node("Relu", ["flat"], ["y"], name="y")]
    model = make_model(nodes, [("x", TensorProto.FLOAT, list(X.shape))],
                       [("y", TensorProto.FLOAT, None)], opset=13)
    onnx.save(model, tmp_path / "m.onnx")
    return tmp_path / "m.onnx"


def _types(xml: Path) -> list[str]:
    return sorted(op.get_type_name() for op in ov.Core().read_model(str(xml)).get_ordered_ops())


def _run(xml: Path) -> np.ndarray:
    config = {"INFERENCE_PRECISION_HINT": "f32"}
    return ov.Core().compile_model(str(xml), "CPU", config)([X])[0]


def _check(xml: Path, model: Path) -> None:
    want = ort.InferenceSession(str(model)).run(None, {"x": X})[0]
    np.testing.assert_allclose(_run(xml), want, rtol=1e-5)


@pytest.mark.parametrize("axis", [1, 2])
def test_front_passes_see_mo_s_front_ops(tmp_path: Path, axis: int) -> None:
    """The pass sees one input on each (axis 2: the shape's computation set aside too); the
    IR is extgen's, and computes what onnxruntime does."""
    want = {"gap": ("GlobalAveragePool", "Pooling", 1, True),
            "flat": ("FlattenONNX", None, 1, None)}
    ext = write_ext(tmp_path, "ext", {"front/sees.py": SEES + f"\n    WANT = {want!r}\n"}, MO)
    model = _model(tmp_path, axis)
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    plain = convert(ConvertOptions(model, output_dir=tmp_path / "plain")).xml
    assert _types(xml) == _types(plain)
    _check(xml, model)


@pytest.mark.parametrize("rel", ["front/onnx/flattenONNX_to_reshape.py",
                                 "front/global_pooling_to_reduce.py"])
def test_copies_of_mo_s_lowerings_replace_the_shown_ops(tmp_path: Path, rel: str) -> None:
    """MO's own modules, unmodified, find the node they lower and replace it as MO did."""
    ext = tmp_path / "ext" / Path(rel).parent
    ext.mkdir(parents=True)
    (ext / Path(rel).name).write_text((corpus() / PREFIX / rel).read_text())
    model = _model(tmp_path, 2)
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir",
                                 extensions=[tmp_path / "ext"])).xml
    names = [op.get_friendly_name() for op in ov.Core().read_model(str(xml)).get_ordered_ops()]
    made = "gap/reduce" if "pooling" in rel else "flat/first_dims"
    assert any(name.startswith(made) for name in names), names
    _check(xml, model)


CHANGES = """
    from {MO}.front.common.replacement import FrontReplacementPattern


    class Changes(FrontReplacementPattern):
        enabled = True

        def find_and_replace_pattern(self, graph):
            for node in graph.get_op_nodes(op='FlattenONNX'):
                node['axis'] = 0
"""


def test_a_changed_attribute_of_a_shown_op_is_one_line(tmp_path: Path) -> None:
    ext = write_ext(tmp_path, "ext", {"front/changes.py": CHANGES}, MO)
    with pytest.raises(ExtensionError) as err:
        convert(ConvertOptions(_model(tmp_path), output_dir=tmp_path / "ir", extensions=[ext]))
    text = str(err.value)
    assert "\n" not in text and text.startswith(str(ext / "front" / "changes.py") + ":")
    assert "changed axis of MO's FlattenONNX node 'flat'" in text


CONV_SEES = before_front_start("""
    if seen(graph) != {'conv': ('Conv', 'Convolution', 3), 'gemm': ('Gemm', None, 3)}:
        raise ValueError(f"before FrontStart: {seen(graph)}")
""") + """

def seen(graph):
    return {n.soft_get('name'): (n.op, n.soft_get('type'), len(n.in_ports()))
            for n in graph.get_op_nodes() if n.soft_get('name') in ('conv', 'gemm')}


class Late(FrontReplacementPattern):
    enabled = True

    def find_and_replace_pattern(self, graph):
        if seen(graph) != {'conv': ('Conv', 'Convolution', 3), 'gemm': ('Add', 'Add', 2)}:
            raise ValueError(f"after FrontStart: {seen(graph)}")
"""

ZERO_WEIGHTS = """
    import numpy as np

    from {MO}.front.common.replacement import FrontReplacementPattern
    from {MO}.ops.const import Const


    class ZeroWeights(FrontReplacementPattern):
        enabled = True

        def find_and_replace_pattern(self, graph):
            for conv in graph.get_op_nodes(op='Conv'):
                weights = conv.in_port(1).get_source().node.value
                zero = Const(graph, {'value': np.zeros_like(weights)}).create_node()
                conv.in_port(1).get_connection().set_source(zero.out_port(0))
"""


def _conv_model(tmp_path: Path) -> Path:
    rng = np.random.default_rng(3)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["conv"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("Flatten", ["conv"], ["flat"], name="flat"),
             helper.make_node("Gemm", ["flat", "g", "gb"], ["gemm"], name="gemm", transB=1),
             helper.make_node("Relu", ["gemm"], ["y"], name="y")]
    inits = {"w": rng.standard_normal((2, 3, 3, 3)).astype(np.float32),
             "b": np.float32([1, -1]), "g": rng.standard_normal((4, 32)).astype(np.float32),
             "gb": rng.standard_normal(4).astype(np.float32)}
    model = make_model(nodes, [("x", TensorProto.FLOAT, list(X.shape))],
                       [("y", TensorProto.FLOAT, None)], inits, opset=13)
    onnx.save(model, tmp_path / "conv.onnx")
    return tmp_path / "conv.onnx"


def test_a_biased_conv_and_a_gemm_show_as_mo_s_one_node(tmp_path: Path) -> None:
    """The Conv with its bias as input 2 through the front phase; the Gemm (which MO's front
    passes lowered early) only to passes ordered before FrontStart. The IR is extgen's."""
    ext = write_ext(tmp_path, "ext", {"front/sees.py": CONV_SEES}, MO)
    model = _conv_model(tmp_path)
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    plain = convert(ConvertOptions(model, output_dir=tmp_path / "plain")).xml
    assert _types(xml) == _types(plain)
    _check(xml, model)


def test_weights_a_pass_gives_the_shown_conv_are_the_convolution_s(tmp_path: Path) -> None:
    """A pass that rewires input 1 of MO's Conv: extgen's convolution takes the new weights
    (all zero: the output is the bias through the flatten and the Gemm)."""
    ext = write_ext(tmp_path, "ext", {"front/zero.py": ZERO_WEIGHTS}, MO)
    model = _conv_model(tmp_path)
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    graph = onnx.load(model).graph
    inits = {t.name: onnx.numpy_helper.to_array(t) for t in graph.initializer}
    conv = np.broadcast_to(inits["b"].reshape(1, 2, 1, 1), (1, 2, 4, 4)).reshape(1, 32)
    want = np.maximum(conv @ inits["g"].T + inits["gb"], 0)
    np.testing.assert_allclose(_run(xml), want, rtol=1e-5)


CAFFE = """
input: "x"
input_shape { dim: 1 dim: 3 dim: 4 dim: 4 }
layer { name: "conv" type: "Convolution" bottom: "x" top: "conv"
  convolution_param { num_output: 2 kernel_size: 3 pad: 1 } }
layer { name: "scale" type: "Scale" bottom: "conv" top: "scale" scale_param { bias_term: true } }
layer { name: "lrn" type: "LRN" bottom: "scale" top: "lrn" lrn_param { local_size: 3 } }
layer { name: "fc" type: "InnerProduct" bottom: "lrn" top: "fc"
  inner_product_param { num_output: 5 } }
"""


def _dump(tmp_path: Path, model: Path) -> dict[str, dict[str, dict]]:
    """The phase dumper's view (tests/data/mo_phase_dump): phase -> name -> its fields."""
    import json
    import os

    dumper = Path(__file__).resolve().parents[1] / "data" / "mo_phase_dump"
    out = tmp_path / "dump"
    out.mkdir()
    os.environ["EXTGEN_PHASE_DUMP"] = str(out)
    try:
        convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[dumper]))
    finally:
        del os.environ["EXTGEN_PHASE_DUMP"]
    return {phase: {n["name"]: n for n in json.loads((out / f"{phase}.json").read_text())}
            for phase in ("extract", "front")}


def test_caffe_layers_show_mo_s_nodes(tmp_path: Path) -> None:
    """A Caffe convolution with its bias is MO's Conv2D of three inputs, a Scale with a bias a
    ScaleShift, an LRN an AttributedLRN, through the front phase; an InnerProduct is a
    FullyConnected only before FrontStart."""
    from tests.front.test_caffe import write_model

    rng = np.random.default_rng(5)
    weights = {"conv": [rng.standard_normal((2, 3, 3, 3)), rng.standard_normal(2)],
               "scale": [rng.standard_normal(2), rng.standard_normal(2)],
               "fc": [rng.standard_normal((5, 32)), rng.standard_normal(5)]}
    seen = _dump(tmp_path, write_model(tmp_path, "net", CAFFE, weights).with_suffix(
        ".caffemodel"))
    facts = {phase: {name: (n["op"], n["type"], n["in"]) for name, n in nodes.items()
                     if name in ("conv", "scale", "lrn", "fc")} for phase, nodes in seen.items()}
    assert facts["extract"] == {"conv": ("Conv2D", "Convolution", 3),
                                "scale": ("ScaleShift", "ScaleShift", 3),
                                "lrn": ("AttributedLRN", "Norm", 1),
                                "fc": ("FullyConnected", "FullyConnected", 3)}
    assert facts["front"] == {**facts["extract"], "fc": ("Add", "Add", 2)}
