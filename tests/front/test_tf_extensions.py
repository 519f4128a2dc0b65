"""TensorFlow extensions: a custom layer handled by a GENERATED extractor (`extgen new`), and
--transformations_config sub-graph replacement (scope, general, op) with a user extension."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import numpy as np
import pytest

from converter.errors import ModelFormatError
from converter.front.tf.replacement_config import load_transformations_config
from converter.front.tf.writer import GraphBuilder
from converter.options import ConvertOptions
from converter.pipeline import convert
from extgen.cli import main
from tests.front import test_tf_reference as ref

F32 = np.float32


def _generate(tmp_path: Path, parse_all: bool) -> Path:
    config = {"targets": ["mo-tf-ext", "mo-op"], "ops": [{
        "name": "ScaledCosh", "framework_types": {"tf": "MyCosh"},
        "attributes": [{"name": "scale", "type": "float", "default": 1.0, "tf_type": "f"},
                       {"name": "mode", "type": "string", "default": "fast", "in_ir": True},
                       {"name": "dims", "type": "int_list", "default": [],
                        "framework_name": "dims_tf"}],
        "expression": "scale * (exp(x) + exp(-x)) / 2", "tf": {"parse_all": parse_all}}]}
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(config))
    assert main(["new", "--config", str(cfg), "--output_dir", str(tmp_path / "gen")]) == 0
    return tmp_path / "gen" / "user_mo_extensions"


@pytest.mark.parametrize("parse_all", [True, False])
def test_generated_extractor_converts_custom_layer_in_conv_net(tmp_path: Path,
                                                               parse_all: bool) -> None:
    ext = _generate(tmp_path, parse_all)
    source = (ext / "front" / "tf" / "scaled_cosh_ext.py").read_text()
    assert 'op = "MyCosh"' in source and ("collect_tf_attrs(param)" in source) == parse_all
    w = np.random.default_rng(1).standard_normal((3, 3, 2, 3)).astype(F32) * 0.3
    g = GraphBuilder()
    x = g.placeholder("x", [1, 5, 5, 2])
    conv = g.node("Conv2D", "conv", [x, g.const("w", w)], T=F32, strides=[1, 1, 1, 1],
                  padding="SAME")
    g.node("MyCosh", "cosh", [conv], T=F32, scale=2.0, mode="exact", dims_tf=[1, 2])
    model = g.save(tmp_path / "custom.pb")
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    text = xml.read_text()
    assert 'type="ScaledCosh"' in text and 'scale="2"' in text and 'mode="exact"' in text
    assert 'dims="1,2"' in text
    xv = np.random.default_rng(2).standard_normal((1, 5, 5, 2)).astype(F32)
    # a custom op's layout semantics are unknown: it keeps TF's NHWC data (a Transpose to NCHW
    # after the NHWC input, one back before the custom op)
    assert text.count('type="Transpose"') == 2
    want = 2 * np.cosh(ref.conv2d(xv, w))
    got, real = ref.run_both(xml, {"x": xv}, extensions=[ext])
    np.testing.assert_allclose(real[next(iter(got))], next(iter(got.values())), rtol=1e-5)
    np.testing.assert_allclose(got["cosh"], want, rtol=1e-5, atol=1e-5)


def test_unsupported_layer_names_the_generator_command(tmp_path: Path, capsys) -> None:
    g = GraphBuilder()
    g.node("MyCosh", "cosh", [g.placeholder("x", [2, 3])], T=F32)
    model = g.save(tmp_path / "m.pb")
    code = main(["convert", "--input_model", str(model), "-o", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert "MyCosh (node cosh)" in err[0] and "extgen new --mo-tf-ext" in err[0]


# -- --transformations_config ------------------------------------------------------------------
_REPLACERS = '''
import numpy as np

from converter.front.tf.replacement import (
    FrontReplacementFromConfigFileGeneral, FrontReplacementFromConfigFileOp,
    FrontReplacementFromConfigFileSubGraph)
from converter.ops.op import Op


class SwishBlock(FrontReplacementFromConfigFileSubGraph):
    """The scope's unsupported ops become x * sigmoid(beta * x)."""

    replacement_id = "SwishBlock"

    def generate_sub_graph(self, graph, match):
        beta = match.custom_replacement_desc.custom_attributes["beta"]
        const = Op.builtin_ops["Const"](graph).create_node(
            attrs={"name": match.scope + "/beta", "value": np.array(beta, np.float32)})
        scaled = Op.builtin_ops["Multiply"](graph).create_node(
            attrs={"name": match.scope + "/scaled"})
        const.out_port(0).connect(scaled.in_port(1))
        sig = Op.builtin_ops["Sigmoid"](graph).create_node(
            [scaled], attrs={"name": match.scope + "/sig"})
        out = Op.builtin_ops["Multiply"](graph).create_node(attrs={"name": match.scope + "/out"})
        sig.out_port(0).connect(out.in_port(1))
        return {"scaled": scaled, "out": out}

    def input_edges_match(self, graph, match, new_sub_graph):
        (first, first_port), (last, last_port) = match.input_nodes(0)
        return {(first.id, first_port): (new_sub_graph["scaled"].id, 0),
                (last.id, last_port): (new_sub_graph["out"].id, 0)}

    def output_edges_match(self, graph, match, new_sub_graph):
        node, port = match.output_node(0)
        return {(node.id, port): (new_sub_graph["out"].id, 0)}


class ScaleOutputs(FrontReplacementFromConfigFileGeneral):
    replacement_id = "ScaleOutputs"

    def transform_graph(self, graph, replacement_descriptions):
        factor = replacement_descriptions["factor"]
        for result in graph.get_op_nodes(op="Result"):
            src = result.in_port(0).get_source()
            const = Op.builtin_ops["Const"](graph).create_node(
                attrs={"name": "factor", "value": np.array(factor, np.float32)})
            mul = Op.builtin_ops["Multiply"](graph).create_node(
                [src, const], attrs={"name": "scaled_output"})
            mul.out_port(0).connect(result.in_port(0))


class AsSigmoid(FrontReplacementFromConfigFileOp):
    replacement_id = "AsSigmoid"
'''

_CONFIG = [
    {"id": "SwishBlock", "match_kind": "scope", "instances": ["act_[0-9]+"],
     "custom_attributes": {"beta": 1.5}},
    {"id": "ScaleOutputs", "match_kind": "general", "custom_attributes": {"factor": 3.0}},
    {"id": "AsSigmoid", "match_kind": "scope", "instances": ["gate"], "op": "Sigmoid"},
]


def _swish_model(path: Path) -> Path:
    """x -> act_1 (FancyAct ops) -> act_2 (FancyAct ops) -> gate (FancyGate) -> relu."""
    g = GraphBuilder()
    h = g.placeholder("x", [2, 6])
    for i in (1, 2):
        a = g.node("FancyScale", f"act_{i}/scale", [h], T=F32)
        h = g.node("FancyMul", f"act_{i}/mul", [h, a], T=F32)
    gate = g.node("FancyGate", "gate", [h], T=F32)
    g.node("Relu", "y", [gate], T=F32)
    return g.save(path)


def test_transformations_config_scope_general_and_op(tmp_path: Path) -> None:
    ext = tmp_path / "ext"
    (ext / "front" / "tf").mkdir(parents=True)
    (ext / "front" / "tf" / "replacers.py").write_text(textwrap.dedent(_REPLACERS))
    cfg = tmp_path / "replace.json"
    cfg.write_text(json.dumps(_CONFIG, indent=2))
    model = _swish_model(tmp_path / "swish.pbtxt")
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext],
                                 transformations_config=cfg)).xml
    assert "Fancy" not in xml.read_text()
    xv = np.linspace(-2, 2, 12, dtype=F32).reshape(2, 6)
    h = xv
    for _ in range(2):
        h = h / (1 + np.exp(-1.5 * h))
    want = 3.0 * np.maximum(1 / (1 + np.exp(-h)), 0)
    for got in ref.run_both(xml, {"x": xv}):
        np.testing.assert_allclose(next(iter(got.values())), want, rtol=1e-5)


def test_transformations_config_without_its_extension_leaves_ops_unsupported(tmp_path: Path,
                                                                             capsys) -> None:
    cfg = tmp_path / "replace.json"
    cfg.write_text(json.dumps(_CONFIG))
    model = _swish_model(tmp_path / "swish.pb")
    code = main(["convert", "--input_model", str(model), "--transformations_config", str(cfg),
                 "-o", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "FancyGate" in err[0]


@pytest.mark.parametrize(("text", "needle"), [
    ('[\n  {"id": "A", "match_kind": "scope", "instances": ["a"]},\n  {"id": "B"}\n]',
     "replace.json:3: description 1: 'match_kind' is required"),
    ('[{"id": "A", "match_kind": "fuzzy"}]', "'match_kind' must be one of scope"),
    ('[{"id": "A", "match_kind": "scope"}]', "match_kind scope needs 'instances'"),
    ('[{"id": "A", "match_kind": "scope", "instances": ["(unclosed"]}]', "not a valid regex"),
    ('[{"id": "", "match_kind": "general"}]', "'id' must be a non-empty string"),
    ('[{"id": "A", "match_kind": "general", "colour": 1}]', "a key it does not know (known: id,"),
    ('[{"id": "A", "match_kind": "points", "instances": {"start_points": []}}]', "start_points"),
    ('[{"id": "A", "match_kind": "scope", "instances": ["a"], "outputs": [{"node": "x"}]}]',
     "outputs[0]: must be"),
    ('{"id": "A"}', "must be a JSON list"),
    ('[\n{"id": "A",,}\n]', "replace.json:2: not valid JSON"),
])
def test_bad_transformations_config_is_one_line(tmp_path: Path, capsys, text: str,
                                                needle: str) -> None:
    cfg = tmp_path / "replace.json"
    cfg.write_text(text)
    model = _swish_model(tmp_path / "swish.pb")
    code = main(["convert", "--input_model", str(model), "--transformations_config", str(cfg),
                 "-o", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert needle in err[0]
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


def test_points_match_becomes_one_op(tmp_path: Path) -> None:
    ext = tmp_path / "ext"
    (ext / "front" / "tf").mkdir(parents=True)
    (ext / "front" / "tf" / "replacers.py").write_text(textwrap.dedent(_REPLACERS))
    cfg = tmp_path / "points.json"
    cfg.write_text(json.dumps([{"id": "AsSigmoid", "match_kind": "points", "op": "Sigmoid",
                                "instances": {"start_points": ["a"], "end_points": ["b"]}}]))
    g = GraphBuilder()
    a = g.node("FancyA", "a", [g.placeholder("x", [3])], T=F32)
    b = g.node("FancyB", "b", [a, g.const("k", np.ones(3, F32))], T=F32)
    g.node("Relu", "y", [b], T=F32)
    xml = convert(ConvertOptions(g.save(tmp_path / "p.pb"), output_dir=tmp_path / "ir",
                                 extensions=[ext], transformations_config=cfg)).xml
    xv = np.array([-1.0, 0.0, 2.0], F32)
    for got in ref.run_both(xml, {"x": xv}):
        np.testing.assert_allclose(got["y"], 1 / (1 + np.exp(-xv)), rtol=1e-6)


def test_config_error_line_counts_escaped_quotes(tmp_path: Path) -> None:
    """The line of a bad description is found past strings holding escaped quotes."""
    path = tmp_path / "t.json"
    path.write_text('[\n {"id": "a\\\\\\"b", "match_kind": "general"},\n'
                    ' {"id": "c", "match_kind": "nope"}\n]\n')
    with pytest.raises(ModelFormatError, match=rf"{path.name}:3: description 1"):
        load_transformations_config(path)


def test_config_update_fills_in_scope_boundaries_as_mo_wrote_them(tmp_path: Path) -> None:
    """MO 2023.3 needs TensorFlow for this flag, so the expected file is MO's algorithm
    (TensorflowCustomOperationsConfigUpdate) worked by hand on this graph."""
    g = GraphBuilder()
    x = g.placeholder("x", [2, 3])
    mul = g.node("Mul", "block/mul", [x, g.const("block/w", np.full((2, 3), 2, F32))], T=F32)
    add = g.node("Add", "block/add", [mul, x], T=F32)
    g.node("Shape", "block/shape", [mul], T=F32, out_type=np.int32)
    g.node("Relu", "after", [add], T=F32)
    model = g.save(tmp_path / "m.pb")
    general = {"id": "G", "match_kind": "general", "custom_attributes": {"a": 1}}
    config = tmp_path / "config.json"
    config.write_text(json.dumps([
        {"id": "S", "match_kind": "scope", "instances": ["block/"], "op": "Block"},
        {"id": "P", "match_kind": "points",
         "instances": {"start_points": ["block/mul"], "end_points": ["block/add"]}},
        general]))
    assert main(["convert", str(model), "-o", str(tmp_path / "ir"),
                 "--tensorflow_custom_operations_config_update", str(config)]) == 0
    expected = [
        {"id": "S", "match_kind": "scope", "instances": ["block/"], "op": "Block",
         "custom_attributes": {},
         "inputs": [[{"node": "mul$", "port": 0}, {"node": "add$", "port": 1}]],  # edge order
         "outputs": [{"node": "add$", "port": 0}, {"node": "shape$", "port": 0}]},
        {"id": "P", "match_kind": "points", "custom_attributes": {},
         "instances": {"start_points": ["block/mul"], "end_points": ["block/add"]},
         "include_inputs_to_sub_graph": True, "include_outputs_to_sub_graph": True},
        general]
    assert config.read_text() == json.dumps(expected, indent=4, sort_keys=True)
    assert (tmp_path / "ir" / "m.xml").is_file()  # MO went on to write the IR as well
    assert [d.id for group in load_transformations_config(config).values() for d in group] == [
        "S", "P", "G"]


def test_config_update_is_for_tensorflow_and_needs_the_file(tmp_path: Path, capsys) -> None:
    g = GraphBuilder()
    g.node("Relu", "r", [g.placeholder("x", [2])], T=F32)
    model = g.save(tmp_path / "m.pb")
    flag = "--tensorflow_custom_operations_config_update"
    assert main(["convert", str(model), "-o", str(tmp_path / "ir"), flag, "no.json"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{flag} no.json: no such file" in err[0]
