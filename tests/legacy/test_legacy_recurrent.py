"""Recurrent layers as MO's passes saw them: op `LSTM`/`GRU`/`RNN` in every phase, type
`RNNSequence` until the back phase (then the opset's type, as after MO's RNNSequenceTypeRename);
a front or middle pattern that matches one, which MO held in its own intermediate form, stops
with one line naming the pass; the IR is extgen's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import openvino as ov
import pytest
from onnx import TensorProto, helper

from converter.errors import ExtensionError
from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.conftest import make_model
from tests.legacy.conftest import LAYOUTS, write_ext

MO = LAYOUTS["openvino.tools.mo"]

SEES = """
    from {MO}.back.replacement import BackReplacementPattern
    from {MO}.middle.replacement import MiddleReplacementPattern


    def seen(graph):
        return sorted((n.op, n.type) for n in graph.get_op_nodes()
                      if n.soft_get('op') in ('LSTM', 'GRU', 'RNN'))


    class MiddleSees(MiddleReplacementPattern):
        enabled = True

        def find_and_replace_pattern(self, graph):
            if seen(graph) != [('GRU', 'RNNSequence'), ('LSTM', 'RNNSequence')]:
                raise ValueError(f"middle: {seen(graph)}")


    class BackSees(BackReplacementPattern):
        enabled = True

        def find_and_replace_pattern(self, graph):
            if seen(graph) != [('GRU', 'GRUSequence'), ('LSTM', 'LSTMSequence')]:
                raise ValueError(f"back: {seen(graph)}")
"""

MATCHES = """
    from {MO}.middle.replacement import MiddleReplacementPattern


    class Matches(MiddleReplacementPattern):
        enabled = True

        def pattern(self):
            return dict(nodes=[('rnn', dict(kind='op', type='RNNSequence'))], edges=[])

        def replace_pattern(self, graph, match):
            raise ValueError("ran on extgen's form")
"""


def _model(tmp_path: Path) -> Path:
    rng = np.random.default_rng(4)

    def w(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.3).astype(np.float32)

    nodes = [helper.make_node("LSTM", ["x", "lw", "lr", "lb", "", "h0", "c0"], ["ly"],
                              name="lstm", hidden_size=3),
             helper.make_node("Squeeze", ["ly", "one"], ["ls"], name="sq"),
             helper.make_node("GRU", ["ls", "gw", "gr", "gb"], ["gy"], name="gru", hidden_size=3),
             helper.make_node("Squeeze", ["gy", "one"], ["y"], name="sq2")]
    inits = {"lw": w(1, 12, 4), "lr": w(1, 12, 3), "lb": w(1, 24), "h0": w(1, 2, 3),
             "c0": w(1, 2, 3), "gw": w(1, 9, 3), "gr": w(1, 9, 3), "gb": w(1, 18),
             "one": np.array([1], np.int64)}
    onnx.save(make_model(nodes, [("x", TensorProto.FLOAT, [5, 2, 4])],
                         [("y", TensorProto.FLOAT, None)], inits), tmp_path / "m.onnx")
    return tmp_path / "m.onnx"


def test_passes_see_mo_s_recurrent_names_and_types(tmp_path: Path) -> None:
    ext = write_ext(tmp_path, "ext", {"middle/sees.py": SEES}, MO)
    model = _model(tmp_path)
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    plain = convert(ConvertOptions(model, output_dir=tmp_path / "plain")).xml
    x = np.random.default_rng(1).standard_normal((5, 2, 4)).astype(np.float32)
    ours, want = (ov.Core().compile_model(str(p), "CPU")([x])[0] for p in (xml, plain))
    np.testing.assert_array_equal(ours, want)


def test_a_middle_pattern_on_a_recurrent_layer_stops_naming_the_pass(tmp_path: Path) -> None:
    ext = write_ext(tmp_path, "ext", {"middle/matches.py": MATCHES}, MO)
    with pytest.raises(ExtensionError, match=r"matches\.py:\d+: the pattern matched (LSTM|GRU) "
                       r"node '.*', which MO held in its own recurrent form"):
        convert(ConvertOptions(_model(tmp_path), output_dir=tmp_path / "ir", extensions=[ext]))
