"""Sub-graph layers in our IR: the reader gives back the port maps the writer wrote (Loop special
ports and back edges included), and a malformed port map or an absurdly deep nesting is one
ModelFormatError line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from converter.errors import ModelFormatError
from converter.ir.reader import MAX_BODY_DEPTH, read_ir
from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.front.test_onnx_control_flow import _loop_model


@pytest.fixture
def loop_ir(tmp_path: Path) -> Path:
    import onnx

    onnx.save(_loop_model(), tmp_path / "loop.onnx")
    return convert(ConvertOptions(tmp_path / "loop.onnx", output_dir=tmp_path)).xml


def test_port_maps_round_trip(loop_ir: Path) -> None:
    (loop,) = [layer for layer in read_ir(loop_ir).layers.values() if layer.type == "Loop"]
    body, port_map = loop.bodies["body"], loop.port_maps["body"]
    kinds = {lid: layer.type for lid, layer in body.layers.items()}
    iteration = port_map.special("current_iteration")
    condition = port_map.special("execution_condition")
    assert kinds[iteration] == "Parameter" and kinds[condition] == "Result"
    assert {r.external for r in port_map.external_inputs()} == {1, 2, 3}  # cond, h0, captured x
    assert [(r.external, r.axis) for r in port_map.external_outputs()] == [(0, None), (1, 0)]
    assert len(port_map.back_edges) == 2
    assert all(kinds[res] == "Result" and kinds[par] == "Parameter"
               for res, par in port_map.back_edges)


@pytest.mark.parametrize(("pattern", "repl", "needle"), [
    (r'(<output external_port_id=")\d+(" internal_layer_id="\d+" />)', r"\g<1>99\g<2>",
     "port 99"),
    (r'(<input external_port_id="2" internal_layer_id=")\d+', r"\g<1>77", "body layer 77"),
])
def test_bad_port_map(loop_ir: Path, pattern: str, repl: str, needle: str) -> None:
    text = loop_ir.read_text()
    loop_ir.write_text(re.sub(pattern, repl, text, count=1))
    with pytest.raises(ModelFormatError, match=needle):
        read_ir(loop_ir)


def test_deep_nesting_is_refused(tmp_path: Path) -> None:
    layer = '<layer id="0" name="l" type="Loop" version="opset5"><body><layers>{}</layers></body>' \
        '</layer>'
    inner = ""
    for _ in range(MAX_BODY_DEPTH + 2):
        inner = layer.format(inner)
    xml = tmp_path / "deep.xml"
    xml.write_text(f'<net name="n" version="11"><layers>{inner}</layers><edges/></net>')
    with pytest.raises(ModelFormatError, match="more than 64 deep"):
        read_ir(xml)
