"""MO's FakeOutput through the front and middle phases and its FakeOutputResolver Add in the
back phase (converter.legacy.fake_outputs, converter.legacy.fake_output_resolver): legacy
passes see MO's graph, and the IR is the one converted without extension folders, but where
OpenVINO kept MO's Add (an output of an op with several); a Result a pass adds on a tensor MO
held unnamed gets MO's names (converter.legacy.result_names)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import onnx
import openvino as ov
import pytest
from onnx import TensorProto, helper

from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.conftest import make_model
from tests.legacy import mo_corpus
from tests.legacy.conftest import LAYOUTS, write_ext

SHAPE = [1, 2, 3, 3]
F32 = TensorProto.FLOAT


def _save(folder: Path, name: str, nodes: list, outputs: list[str], inits: dict) -> Path:
    model = make_model(nodes, [("x", F32, SHAPE)], [(o, F32, None) for o in outputs], inits,
                       opset=13)
    path = folder / f"{name}.onnx"
    onnx.save(model, path)
    return path


def _hswish(folder: Path) -> Path:
    """x * Clip(x + 3, 0, 6) / 6 ending in a Mul named as the output (MO renames it)."""
    f = np.float32
    return _save(folder, "hswish", [
        helper.make_node("Add", ["x", "three"], ["a"], name="a"),
        helper.make_node("Clip", ["a", "zero", "six"], ["c"], name="c"),
        helper.make_node("Mul", ["x", "c"], ["m"], name="m"),
        helper.make_node("Mul", ["m", "sixth"], ["y"], name="y")], ["y"],
        {"three": f(3), "zero": f(0), "six": f(6), "sixth": f(1 / 6)})


def _models(folder: Path) -> list[Path]:
    """Outputs named as their op or not, read inside the model too, and fused after the back
    passes (GELU, a Conv's bias and scale)."""
    f = np.float32
    w = np.random.default_rng(0).standard_normal((2, 2, 1, 1)).astype(f)
    gelu = _save(folder, "gelu", [
        helper.make_node("Div", ["x", "root2"], ["d"], name="d"),
        helper.make_node("Erf", ["d"], ["e"], name="e"),
        helper.make_node("Add", ["e", "one"], ["a"], name="a"),
        helper.make_node("Mul", ["x", "a"], ["m"], name="m"),
        helper.make_node("Mul", ["m", "half"], ["y"], name="y")], ["y"],
        {"root2": f(np.sqrt(2)), "one": f(1), "half": f(0.5)})
    two = _save(folder, "two", [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv"),
        helper.make_node("Mul", ["c", "k"], ["y"], name="y"),
        helper.make_node("Relu", ["y"], ["r"], name="r"),
        helper.make_node("Sigmoid", ["r"], ["z"], name="sigmoid")], ["z", "y"],
        {"w": w, "b": np.ones(2, f), "k": np.full((1, 2, 1, 1), 2, f)})
    return [_hswish(folder), gelu, two]


def _ir(xml: Path) -> dict:
    """Layers (name, type, version, output tensor names), edges and the weights of an IR."""
    root = ET.parse(xml).getroot()
    layers = [(layer.get("id"), layer.get("name"), layer.get("type"), layer.get("version"),
               [port.get("names") for port in layer.iterfind("output/port")])
              for layer in root.iter("layer")]
    edges = sorted(tuple(edge.attrib.items()) for edge in root.iter("edge"))
    return {"layers": layers, "edges": edges, "bin": xml.with_suffix(".bin").read_bytes()}


UNRELATED = {
    "front/nothing.py": """
        from {MO}.front.common.replacement import FrontReplacementPattern


        class Nothing(FrontReplacementPattern):
            enabled = True

            def find_and_replace_pattern(self, graph):
                pass
    """,
}


def test_an_extension_folder_leaves_the_ir_as_without_one(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    unrelated = write_ext(tmp_path, "unrelated", UNRELATED, LAYOUTS["openvino.tools.mo"])
    for model in _models(tmp_path):
        irs = [_ir(convert(ConvertOptions(model, output_dir=tmp_path / f"{model.stem}-{i}",
                                          extensions=exts)).xml)
               for i, exts in enumerate([[], [empty], [unrelated]])]
        assert irs[1] == irs[0] and irs[2] == irs[0], model.stem
        names = {name for _, name, *_ in irs[0]["layers"]}
        assert "y" in names and not any(n[0] == "y" and n[1:].isdigit() for n in names)


RECORD = """
    import json
    import os


    def record(graph, where):
        nodes = {}
        for node in graph.get_op_nodes():
            facts = {'op': node.soft_get('op'), 'ins': []}
            for port in node.in_ports().values():
                source = port.get_source()
                value = source.data.get_value()
                facts['ins'].append([source.node.soft_get('name'), None if value is None
                                     else [str(value.dtype), value.tolist()]])
            if node.soft_get('op') == 'Add':
                facts['can_be_fused'] = node.soft_get('can_be_fused', True)
                facts['names'] = node.out_port(0).get_tensor_names()
            nodes[node.soft_get('name', node.id)] = facts
        with open(os.path.join(os.environ['EXTGEN_WATCH'], where + '.json'), 'w') as file:
            json.dump(nodes, file)
"""
WATCHERS = {
    "middle/watch_middle.py": RECORD + """
    from {MO}.middle.replacement import MiddleReplacementPattern


    class WatchMiddle(MiddleReplacementPattern):
        enabled = True

        def find_and_replace_pattern(self, graph):
            record(graph, 'middle')
""",
    "back/watch_back.py": RECORD + """
    from {MO}.back.replacement import BackReplacementPattern
    from {EXT}.back.FakeOutputResolver import FakeOutputResolver


    class BeforeResolver(BackReplacementPattern):
        enabled = True

        def run_before(self):
            return [FakeOutputResolver]

        def find_and_replace_pattern(self, graph):
            record(graph, 'before')


    class AfterResolver(BackReplacementPattern):
        enabled = True

        def run_after(self):
            return [FakeOutputResolver]

        def find_and_replace_pattern(self, graph):
            record(graph, 'after')
""",
}


def test_legacy_passes_see_mo_s_fake_output_then_its_add(tmp_path: Path, monkeypatch) -> None:
    """A middle pass and a back pass before MO's FakeOutputResolver see the FakeOutput named as
    the output; a back pass after it sees MO's Add(x, int64 0) in its place, with the output's
    name and tensor names, fed by the renamed op."""
    ext = write_ext(tmp_path, "ext", WATCHERS, LAYOUTS["openvino.tools.mo"])
    monkeypatch.setenv("EXTGEN_WATCH", str(tmp_path))
    model = _hswish(tmp_path)
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    seen = {where: json.loads((tmp_path / f"{where}.json").read_text())
            for where in ("middle", "before", "after")}
    for where in ("middle", "before"):
        fake = seen[where]["y"]
        assert fake["op"] == "FakeOutput" and len(fake["ins"]) == 1, where
        assert fake["ins"][0][0].startswith("y") and fake["ins"][0][0] != "y"
    add = seen["after"]["y"]
    assert (add["op"], add["can_be_fused"], add["names"]) == ("Add", False, ["y"])
    assert add["ins"][0][0] == seen["before"]["y"]["ins"][0][0]
    assert add["ins"][1][1] == ["int64", 0]
    assert not any(node["op"] == "FakeOutput" for node in seen["after"].values())
    plain = convert(ConvertOptions(model, output_dir=tmp_path / "plain")).xml
    assert _ir(xml) == _ir(plain)


CHANGES_THE_ADD = {
    "back/one_more.py": """
        import numpy as np
        from {MO}.back.replacement import BackReplacementPattern
        from {EXT}.back.FakeOutputResolver import FakeOutputResolver


        class OneMore(BackReplacementPattern):
            enabled = True

            def run_after(self):
                return [FakeOutputResolver]

            def find_and_replace_pattern(self, graph):
                const = graph.get_op_nodes(name='y')[0].in_port(1).get_source().node
                const.value = np.array(1, np.int64)
                const.out_port(0).data.set_value(const.value)
    """,
}


@pytest.mark.parametrize("layout", [LAYOUTS["openvino.tools.mo"]])
def test_an_add_a_pass_changed_stays_as_in_mo_s_ir(tmp_path: Path, layout) -> None:
    """MO's IR kept an Add that no longer adds zero (the op before it keeps MO's name)."""
    ext = write_ext(tmp_path, "ext", CHANGES_THE_ADD, layout)
    model = _hswish(tmp_path)
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    layers = {layer.get("name"): layer.get("type") for layer in ET.parse(xml).iter("layer")}
    assert layers["y"] == "Add" and any(n.startswith("y") and n[1:].isdigit() for n in layers)
    x = np.random.default_rng(1).standard_normal(SHAPE).astype(np.float32)
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    want = x * np.clip(x + 3, 0, 6) / 6 + 1
    np.testing.assert_allclose(compiled([x])[compiled.output(0)], want, rtol=1e-5, atol=1e-5)


def test_a_copy_of_mo_s_resolver_in_an_extension_folder_finds_nothing(tmp_path: Path) -> None:
    """MO's own back/FakeOutputResolver.py in an extension folder (its module sorting before
    extgen's) runs after extgen's resolver, as MO ran only one: the IR is the plain one."""
    rel = "back/FakeOutputResolver.py"
    ext = tmp_path / "aaa"
    (ext / "back").mkdir(parents=True)
    (ext / rel).write_text((mo_corpus.corpus() / mo_corpus.PREFIX / rel).read_text())
    model = _hswish(tmp_path)
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    plain = convert(ConvertOptions(model, output_dir=tmp_path / "plain")).xml
    assert _ir(xml) == _ir(plain)


RESULT_ON_INDICES = {
    "back/indices_out.py": """
        from {MO}.back.replacement import BackReplacementPattern
        from {MO}.ops.result import Result


        class IndicesOut(BackReplacementPattern):
            enabled = True

            def find_and_replace_pattern(self, graph):
                for node in graph.get_op_nodes(type='TopK'):
                    if node.out_port(1).disconnected():
                        result = Result(graph, {'name': node.name + '/indices'}).create_node()
                        node.out_port(1).connect(result.in_port(0))
    """,
}


def test_an_output_of_an_op_of_several_keeps_mo_s_add_and_names(tmp_path: Path) -> None:
    """An output computed by TopK: MO's IR kept its resolver's Add (OpenVINO drops it only
    after an op of one output), with or without passes; the indices, which ONNX named but
    nothing read, are `<op>:1` and `<op>` on the Result a pass puts there, as in MO's IR."""
    model = _save(tmp_path, "topk", [
        helper.make_node("TopK", ["x", "k"], ["y", "idx"], name="top", axis=-1)], ["y"],
        {"k": np.array([2], np.int64)})
    plain = _ir(convert(ConvertOptions(model, output_dir=tmp_path / "plain")).xml)
    assert [t for _, _, t, *_ in plain["layers"]] == ["Parameter", "Const", "TopK", "Result"]
    unrelated = write_ext(tmp_path, "unrelated", UNRELATED, LAYOUTS["openvino.tools.mo"])
    indices = write_ext(tmp_path, "indices", RESULT_ON_INDICES, LAYOUTS["openvino.tools.mo"])
    for ext in (unrelated, indices):
        ir = _ir(convert(ConvertOptions(model, output_dir=tmp_path / ext.name,
                                        extensions=[ext])).xml)
        layers = {name: (kind, names) for _, name, kind, _, names in ir["layers"]}
        assert layers["y"] == ("Add", ["y"]) and layers["top"][0] == "TopK", ext.name
    assert layers["top"][1] == [None, "top,top:1"]
