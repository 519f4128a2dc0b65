"""Six op configs x all eight targets generated into one folder: every Python artifact imports
and registers with the converter, and models of each framework holding the ops convert with
them and run (the C++ and OpenCL artifacts of the same kinds of ops are built and run in
test_cpu_target.py and test_opencl_targets.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from converter.extensions import extension_scope, load_extension_dirs
from converter.front.extractor import FrontExtractorOp
from converter.ops.op import Op
from converter.options import ConvertOptions
from converter.pipeline import convert
from converter.runtime.engines import open_engine
from extgen.cli import main
from extgen.generator.targets import TARGETS
from tests.conftest import make_model

OPS = [
    {"name": "ScaledCosh", "attributes": [{"name": "scale", "type": "float", "default": 1.0}],
     "expression": "scale * (exp(x) + exp(-x)) / 2"},
    {"name": "WeightedSum", "inputs": [{"name": "a"}, {"name": "b"}],
     "attributes": [{"name": "alpha", "type": "float", "default": 0.5}],
     "expression": "alpha * a + b"},
    {"name": "Pick", "attributes": [{"name": "idx", "type": "int_list", "default": [0, 1]}],
     "expression": "x * 2"},
    {"name": "Collapse", "shape": {"kind": "custom"}},
    {"name": "Tagged", "attributes": [{"name": "mode", "type": "string", "default": "fast"}],
     "expression": "x - 1"},
    {"name": "Softy", "framework_types": {"onnx": "com.example::Softy"},
     "expression": "x / (1 + abs(x))"},
]
REFERENCE = {
    "ScaledCosh": lambda x, **a: a.get("scale", 1.0) * np.cosh(x),
    "Pick": lambda x, **a: x * 2,
    "Tagged": lambda x, **a: x - 1,
    "Softy": lambda x, **a: x / (1 + np.abs(x)),
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("matrix")
    config = out / "matrix.json"
    # a PyTorch extractor matches 'namespace::op' only: each op names its torch.library op
    ops = [{**op, "framework_types": {**op.get("framework_types", {}),
                                      "pytorch": f"matrix::{op['name'].lower()}"}} for op in OPS]
    config.write_text(json.dumps({"targets": list(TARGETS), "ops": ops}))
    assert main(["new", "--config", str(config), "--output_dir", str(out)]) == 0
    # the user's part for the shape-changing op: sum over the last axis
    op_file = out / "user_mo_extensions" / "ops" / "collapse.py"
    text = op_file.read_text()
    text = re.sub(r"        # TODO\(extgen\): return the output shape"
                  r".*?raise NotImplementedError\(msg\)\n",
                  "        return [None if shapes[0] is None else shapes[0][:-1]]\n",
                  text, flags=re.S)
    text = re.sub(r"        # TODO\(extgen\): compute the outputs"
                  r".*?raise NotImplementedError\(msg\)\n",
                  "        return [inputs[0].sum(axis=-1)]\n", text, flags=re.S)
    op_file.write_text(text)
    return out


def test_every_target_of_every_op_is_written(generated: Path) -> None:
    snakes = ["scaled_cosh", "weighted_sum", "pick", "collapse", "tagged", "softy"]
    for snake in snakes:
        assert (generated / "user_mo_extensions" / "ops" / f"{snake}.py").is_file()
        for fw in ("onnx", "tf", "caffe", "mxnet"):
            assert (generated / "user_mo_extensions" / "front" / fw / f"{snake}_ext.py").is_file()
        for part in ("_kernel.hpp", "_kernel.cpp", "_op.hpp", "_op.cpp"):
            assert (generated / "user_ie_extensions" / "cpu" / f"{snake}{part}").is_file()
        for dev in ("gpu", "vpu"):
            for ext in (".cl", ".xml"):
                assert (generated / "user_ie_extensions" / dev / f"{snake}_kernel{ext}").is_file()


@pytest.mark.parametrize("framework", ["onnx", "tf", "caffe", "mxnet"])
def test_python_modules_import_and_register(generated: Path, framework: str) -> None:
    keys = {
        "onnx": {"ScaledCosh", "WeightedSum", "Pick", "Collapse", "Tagged", "com.example::Softy"},
    }
    with extension_scope():
        load_extension_dirs([generated / "user_mo_extensions"], framework)
        assert {o["name"] for o in OPS} <= set(Op.registered_ops)
        registered = set(FrontExtractorOp.registered_ops)
        assert keys.get(framework, {o["name"] for o in OPS}) <= registered
    assert "ScaledCosh" not in Op.registered_ops  # the scope is gone


def test_onnx_model_with_all_six_converts_and_runs(generated: Path, tmp_path: Path) -> None:
    ext = generated / "user_mo_extensions"
    nodes = [
        helper.make_node("ScaledCosh", ["x"], ["t1"], scale=2.0),
        helper.make_node("WeightedSum", ["t1", "x"], ["t2"], alpha=0.25),
        helper.make_node("Pick", ["t2"], ["t3"], idx=[1, 2, 3]),
        helper.make_node("Tagged", ["t3"], ["t4"], mode="slow"),
        helper.make_node("Softy", ["t4"], ["t5"], domain="com.example"),
        helper.make_node("Collapse", ["t5"], ["y"]),
    ]
    model = make_model(nodes, [("x", TensorProto.FLOAT, [2, 3])], [("y", TensorProto.FLOAT, [2])],
                       domains=["com.example"])
    onnx.save(model, tmp_path / "all.onnx")
    xml = convert(ConvertOptions(tmp_path / "all.onnx", output_dir=tmp_path / "ir",
                                 extensions=[ext])).xml
    text = xml.read_text()
    for want in ('type="Pick"', 'idx="1,2,3"', 'mode="slow"', 'type="Softy"', 'alpha="0.25"'):
        assert want in text
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    got = open_engine("shim", xml, "CPU", extensions=[ext]).run({"x": x})["y"]
    t = 0.25 * (2 * np.cosh(x)) + x
    np.testing.assert_allclose(got, (((t * 2) - 1) / (1 + np.abs(t * 2 - 1))).sum(-1), rtol=1e-6)


def test_tf_model_converts_with_the_generated_extractors(generated: Path, tmp_path: Path) -> None:
    from converter.front.tf.writer import GraphBuilder

    g = GraphBuilder()
    x = g.placeholder("x", [2, 3])
    a = g.node("ScaledCosh", "sc", [x], scale=3.0)
    g.node("Tagged", "tag", [g.node("Pick", "pick", [a], idx=[4, 5])], mode="exact")
    model = g.save(tmp_path / "m.pb")
    ext = generated / "user_mo_extensions"
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    assert 'idx="4,5"' in xml.read_text() and 'mode="exact"' in xml.read_text()
    xv = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    got = open_engine("shim", xml, "CPU", extensions=[ext]).run({"x": xv})
    np.testing.assert_allclose(next(iter(got.values())), 3 * np.cosh(xv) * 2 - 1, rtol=1e-6)


def test_mxnet_model_converts_with_the_generated_extractors(generated: Path,
                                                             tmp_path: Path) -> None:
    from converter.front.mxnet.params import write_ndarray_file
    from converter.front.mxnet.symbol import SymbolBuilder

    sym = SymbolBuilder()
    data = sym.var("data")
    out = sym.op("Softy", "soft", [sym.op("ScaledCosh", "sc", [data], scale="0.5")])
    sym.save(tmp_path / "net-symbol.json", [out])
    write_ndarray_file(tmp_path / "net-0000.params", {})
    ext = generated / "user_mo_extensions"
    xml = convert(ConvertOptions(tmp_path / "net-0000.params", output_dir=tmp_path / "ir",
                                 extensions=[ext], input_shape=[(2, 3)])).xml
    xv = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    got = next(iter(open_engine("shim", xml, "CPU", extensions=[ext]).run({"data": xv}).values()))
    c = 0.5 * np.cosh(xv)
    np.testing.assert_allclose(got, c / (1 + np.abs(c)), rtol=1e-6)


def test_caffe_model_converts_with_the_generated_extractors(generated: Path,
                                                             tmp_path: Path) -> None:
    from tests.front.test_caffe import convert_model, user_proto, write_model

    proto = user_proto(tmp_path / "proto",
                       "message ScaledCoshParameter {\n  optional float scale = 1;\n}",
                       "  optional ScaledCoshParameter scaled_cosh_param = 6000;")
    net = ('name: "m"\ninput: "data"\ninput_shape { dim: 2 dim: 3 }\n'
           'layer { name: "sc" type: "ScaledCosh" bottom: "data" top: "y" '
           'scaled_cosh_param { scale: 4 } }\n')
    model = write_model(tmp_path, "m", net, {}, proto=proto)
    ext = generated / "user_mo_extensions"
    xml = convert_model(model, tmp_path / "ir", extensions=[ext], caffe_parser_path=proto.parent)
    xv = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    got = open_engine("shim", xml, "CPU", extensions=[ext]).run({"data": xv})["y"]
    np.testing.assert_allclose(got, 4 * np.cosh(xv), rtol=1e-6)
