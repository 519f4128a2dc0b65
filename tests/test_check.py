"""`extgen check` lists unknown ops (0, 1 and 3 types) with their attributes, and the configs it
writes generate extensions that convert the model; `extgen new --from-model` pre-fills prompts."""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from extgen.cli import main
from tests.conftest import make_model

F = TensorProto.FLOAT


def _model(tmp_path: Path, unknown: int) -> Path:
    nodes = [helper.make_node("Relu", ["x"], ["a0"], name="relu")]
    customs = [
        helper.make_node("Blur", ["a0"], ["a1"], name="blur1", domain="my.domain", sigma=1.5,
                         mode="fast"),
        helper.make_node("Pick", ["a1"], ["a2"], name="pick1", domain="my.domain", idx=[1, 2]),
        helper.make_node("Mix", ["a2", "x"], ["a3"], name="mix1", domain="my.domain", k=3),
    ][:unknown]
    nodes += customs
    if unknown == 3:
        nodes.append(helper.make_node("Blur", [f"a{unknown}"], ["y"], name="blur2",
                                      domain="my.domain", sigma=1.5, mode="fast"))
    elif unknown:
        nodes.append(helper.make_node("Identity", [f"a{unknown}"], ["y"]))
    else:
        nodes.append(helper.make_node("Identity", ["a0"], ["y"]))
    model = make_model(nodes, [("x", F, [1, 4])], [("y", F, [1, 4])], domains=["my.domain"])
    path = tmp_path / f"m{unknown}.onnx"
    onnx.save(model, path)
    return path


def test_no_unknown_ops(tmp_path: Path, capsys) -> None:
    assert main(["check", str(_model(tmp_path, 0)), "--output_dir", str(tmp_path / "cfg")]) == 0
    assert "every op is supported" in capsys.readouterr().out
    assert not (tmp_path / "cfg").exists()


@pytest.mark.parametrize("count", [1, 3])
def test_unknown_ops_listed_and_configs_convert(tmp_path: Path, capsys, count: int) -> None:
    model = _model(tmp_path, count)
    assert main(["check", str(model), "--output_dir", str(tmp_path / "cfg")]) == 1  # gaps
    out = capsys.readouterr().out
    assert f"{count} op type(s) need an extension" in out
    blur_nodes = "2 node(s) (blur1, blur2)" if count == 3 else "1 node(s) (blur1)"
    assert "- my.domain::Blur: " + blur_nodes in out
    assert "sigma: float = 1.5" in out and "mode: str = 'fast'" in out
    if count == 3:
        assert "- my.domain::Mix: 1 node(s) (mix1); 2 input(s), 1 output(s)" in out
        assert "idx: list = [1, 2]" in out
    configs = sorted((tmp_path / "cfg").glob("*.extgen.json"))
    assert len(configs) == count
    for cfg in configs:
        assert main(["new", "--config", str(cfg), "--output_dir", str(tmp_path / "ext")]) == 0
    capsys.readouterr()
    ext = tmp_path / "ext" / "user_mo_extensions"
    assert main(["convert", "--input_model", str(model), "--extensions", str(ext),
                 "--output_dir", str(tmp_path / "ir")]) == 0
    xml = (tmp_path / "ir" / model.with_suffix(".xml").name).read_text()
    assert 'type="Blur" version="extension"' in xml
    assert 'sigma="1.5"' in xml and 'mode="fast"' in xml
    # with the extensions, nothing is unknown any more
    assert main(["check", str(model), "--extensions", str(ext)]) == 0
    assert "every op is supported" in capsys.readouterr().out


def test_new_from_model_prefills_the_prompts(tmp_path: Path, capsys) -> None:
    from tests.prompts import typed

    model = _model(tmp_path, 1)
    with typed("\r" * 6 + "\r" * 4):  # accept every pre-filled answer, then generate
        code = main(["new", "--from-model", str(model), "--op", "my.domain::Blur", "--mo-onnx-ext",
                     "--mo-op", "--output_dir", str(tmp_path / "out")])
    assert code == 0, capsys.readouterr().err
    op = (tmp_path / "out" / "user_mo_extensions" / "ops" / "blur.py").read_text()
    assert '"sigma": 1.5' in op and '"mode": \'fast\'' in op
    ext = (tmp_path / "out" / "user_mo_extensions" / "front" / "onnx" / "blur_ext.py").read_text()
    assert 'op = "my.domain::Blur"' in ext


def test_from_model_with_an_op_it_does_not_hold(tmp_path: Path, capsys) -> None:
    code = main(["new", "--from-model", str(_model(tmp_path, 1)), "--op", "Nope", "--mo-op"])
    err = capsys.readouterr().err
    assert code == 2 and "--op Nope" in err and "my.domain::Blur" in err


def test_every_op_type_gets_its_own_config_that_new_accepts(tmp_path: Path, capsys) -> None:
    """Same type in two domains, a non-ASCII type and a type that is no identifier."""
    types = [("a.one", "Foo"), ("b.two", "Foo"), ("", "C\u00f6sh"), ("", "_"), ("c", "FOO")]
    nodes = [helper.make_node(t, [f"a{i}"], [f"a{i + 1}"], name=f"n{i}", domain=d,
                              **({"scale": 1.0, "SCALE": 2, "nan": 1} if i == 0 else {}))
             for i, (d, t) in enumerate(types)]
    model = make_model(nodes, [("a0", F, [1, 4])], [(f"a{len(types)}", F, [1, 4])],
                       domains=["a.one", "b.two", "c"])
    onnx.save(model, tmp_path / "m.onnx")
    assert main(["check", str(tmp_path / "m.onnx"), "--output_dir", str(tmp_path / "cfg")]) == 1
    configs = sorted((tmp_path / "cfg").glob("*.extgen.json"))
    assert len(configs) == len(types), configs
    for cfg in configs:
        assert main(["new", "--config", str(cfg), "--output_dir", str(tmp_path / "ext")]) == 0, cfg
    assert "[ ERROR ]" not in capsys.readouterr().err


def test_op_type_no_config_can_declare_gets_a_line_not_a_config(tmp_path: Path, capsys) -> None:
    """A domain with a path in it, a quote in a type: check says `new` would refuse the
    config and writes none for it; the other op still gets its config, which `new` takes."""
    types = [("../../etc", "Foo"), ("my.domain", 'a"b'), ("my.domain", "Fine")]
    nodes = [helper.make_node(t, [f"a{i}"], [f"a{i + 1}"], name=f"n{i}", domain=d)
             for i, (d, t) in enumerate(types)]
    model = make_model(nodes, [("a0", F, [1, 4])], [(f"a{len(types)}", F, [1, 4])],
                       domains=["../../etc", "my.domain"])
    onnx.save(model, tmp_path / "m.onnx")
    assert main(["check", str(tmp_path / "m.onnx"), "--output_dir", str(tmp_path / "cfg")]) == 1
    out = capsys.readouterr().out
    assert out.count("no config written: `extgen new` would refuse it") == 2, out
    configs = sorted((tmp_path / "cfg").glob("*.extgen.json"))
    assert [c.name for c in configs] == ["fine.extgen.json"]
    assert main(["new", "--config", str(configs[0]), "--output_dir", str(tmp_path / "ext")]) == 0


def test_node_without_an_op_type_is_a_corrupt_model(tmp_path: Path, capsys) -> None:
    model = make_model([helper.make_node("", ["x"], ["y"], name="n")], [("x", F, [1, 4])],
                       [("y", F, [1, 4])])
    onnx.save(model, tmp_path / "m.onnx")
    assert main(["check", str(tmp_path / "m.onnx"), "--output_dir", str(tmp_path / "cfg")]) == 2
    err = capsys.readouterr().err
    assert err == "[ ERROR ] node 'n' has no op_type (corrupt model)\n"
    assert not (tmp_path / "cfg").exists()


def test_several_models_and_a_folder_give_one_merged_report(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    one, three, none = (_model(folder, n) for n in (1, 3, 0))
    assert main(["check", str(none), "--output_dir", str(tmp_path / "c0")]) == 0
    capsys.readouterr()
    assert main(["check", str(one), str(three), "--output_dir", str(tmp_path / "c1")]) == 1
    out = capsys.readouterr().out
    assert f"{one}: 1 op type(s) need an extension" in out and "2 models: 3 op type(s)" in out
    assert "- my.domain::Blur: 3 node(s) (m1.onnx:blur1, m3.onnx:blur1, m3.onnx:blur2)" in out
    assert len(list((tmp_path / "c1").glob("*.extgen.json"))) == 3
    assert main(["check", str(folder), "--output_dir", str(tmp_path / "c2")]) == 1
    out = capsys.readouterr().out
    assert f"{none}: every op is supported" in out and "3 models: 3 op type(s)" in out
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["check", str(empty)]) == 2
    assert "no model files in this folder" in capsys.readouterr().err


def test_check_takes_the_model_flags_of_convert(tmp_path: Path, capsys) -> None:
    """A Caffe model whose prototxt is not named after it (--input_proto), with --input_shape."""
    from tests.front.test_caffe import write_model

    net = ('name: "m"\ninput: "data"\ninput_shape { dim: 1 dim: 2 }\n'
           'layer { name: "odd" type: "Wobble" bottom: "data" top: "out" }\n')
    model = write_model(tmp_path, "weights", net, {})
    (tmp_path / "weights.prototxt").rename(tmp_path / "deploy.prototxt")
    code = main(["check", str(model), "--input_proto", str(tmp_path / "deploy.prototxt"),
                 "--input_shape", "[1,2]", "--output_dir", str(tmp_path / "cfg")])
    assert code == 1 and "- Wobble: 1 node(s) (odd)" in capsys.readouterr().out


def test_declared_output_shape_becomes_the_shape_formula(tmp_path: Path) -> None:
    """mmdeploy::grid_sampler declares its output [1,3,8,8] from x [1,3,16,16] and grid
    [1,8,8,2]: the config's formula takes the grid's dims (it explains the 8s), and the
    generated extension converts the model to that shape."""
    import json
    from xml.etree import ElementTree

    model = make_model(
        [helper.make_node("grid_sampler", ["x", "grid"], ["y"], name="gs", domain="mmdeploy")],
        [("x", F, [1, 3, 16, 16]), ("grid", F, [1, 8, 8, 2])], [("y", F, [1, 3, 8, 8])],
        domains=["mmdeploy"],
    )
    path = tmp_path / "gs.onnx"
    onnx.save(model, path)
    ext = tmp_path / "ext"
    assert main(["check", str(path), "--output_dir", str(ext)]) == 1
    config = ext / "grid_sampler.extgen.json"
    assert json.loads(config.read_text())["ops"][0]["shape"] == {
        "kind": "formula", "input": 1, "names": ["D0", "D1", "D2", "D3"],
        "dims": ["D0", "3", "D1", "D2"]}
    assert main(["new", "--config", str(config), "--output_dir", str(ext), "--mo-onnx-ext",
                 "--mo-op"]) == 0
    assert main(["convert", "--input_model", str(path), "-o", str(tmp_path / "o"),
                 "--extensions", str(ext / "user_mo_extensions")]) == 0
    layers = ElementTree.parse(tmp_path / "o" / "gs.xml").iter("layer")
    result = next(layer for layer in layers if layer.get("type") == "Result")
    assert [int(d.text) for d in result.iter("dim")] == [1, 3, 8, 8]


def test_shape_formula_needs_static_declared_shapes() -> None:
    from extgen.shape_formula import declared_formula

    taken = {"x", "d0"}
    assert declared_formula([(2, 5)], (5, 2, 7), taken) == {
        "kind": "formula", "input": 0, "names": ["D0_2", "D1"], "dims": ["D1", "D0_2", "7"]}
    assert declared_formula([(2, 5)], (-1, 2), set()) is None  # a dynamic output dim
    assert declared_formula([None, (2, -1)], (2, 2), set()) is None  # no static input
    assert declared_formula([(3, 4)], None, set()) is None
