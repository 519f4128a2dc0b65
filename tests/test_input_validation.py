"""Input that is wrong never becomes an IR: each framework loader's checks and the graph check
before emission (every framework) refuse it with one line, exit status 2, no .xml/.bin."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from converter.errors import ModelFormatError, ShapeInferenceError
from converter.extensions import extension_scope
from converter.front.tf.writer import GraphBuilder
from converter.graph.graph import Graph
from converter.ir.writer import emit_ir
from converter.options import ConvertOptions
from converter.pipeline import convert_to_graph
from extgen.cli import main
from tests.conftest import make_model

F32 = TensorProto.FLOAT


def convert_error(capsys, model: Path) -> str:
    """Convert `model`; assert exit 2, one stderr line, no traceback and nothing written."""
    out = model.parent / "ir"
    code = main(["convert", "--input_model", str(model), "--output_dir", str(out)])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("[ ERROR ] "), err
    assert "Traceback" not in err and "internal error" not in err
    assert not list(out.glob("*.xml")) and not list(out.glob("*.bin"))
    return lines[0]


def _save(tmp_path: Path, model: onnx.ModelProto, name: str = "m.onnx") -> Path:
    onnx.save(model, tmp_path / name)
    return tmp_path / name


def _relu(inputs=(("x", F32, [2, 3]),), outputs=(("y", F32, None),)) -> onnx.ModelProto:
    return make_model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                      list(inputs), list(outputs))


# -- the graph check before emission -----------------------------------------------------------

def _back_graph(tmp_path: Path, model: onnx.ModelProto) -> Graph:
    """The back-stage graph of model, as emission gets it."""
    opts = ConvertOptions(_save(tmp_path, model, "good.onnx"), output_dir=tmp_path / "ir")
    with extension_scope():
        return convert_to_graph(opts)[0]


def _emit_error(tmp_path: Path, graph: Graph, error: type[Exception]) -> str:
    with pytest.raises(error) as info:
        emit_ir(graph, tmp_path / "ir", "m", {})
    assert not (tmp_path / "ir").exists()
    return str(info.value)


def _param(graph: Graph, name: str = "x"):
    return next(p for p in graph.get_op_nodes(op="Parameter") if p.name == name)


@pytest.mark.parametrize(("shape", "needle"), [
    ((-5, 3), "has the dimension -5; a dimension is a size >= 0 (or -1: dynamic)"),
    ((1 << 41, 3), f"has the dimension {1 << 41}, more than any tensor holds (2^40)"),
    ((1 << 21, 1 << 21), f"has {1 << 42} elements, more than any tensor holds (2^40)"),
], ids=["negative", "huge-dim", "huge-count"])
def test_a_parameter_shape_no_tensor_has(tmp_path: Path, shape, needle: str) -> None:
    graph = _back_graph(tmp_path, _relu())
    _param(graph)["shape"] = shape
    msg = _emit_error(tmp_path, graph, ShapeInferenceError)
    assert msg.startswith("node 'x' (Parameter): the shape") and needle in msg
    assert msg.endswith("--input_shape")


def test_an_output_shape_no_tensor_has(tmp_path: Path) -> None:
    graph = _back_graph(tmp_path, _relu())
    _param(graph).out_port(0).get_destination().node.out_port(0).data.set_shape((2, -3))
    msg = _emit_error(tmp_path, graph, ShapeInferenceError)
    assert msg.startswith("node 'relu' (ReLU): output 0: the shape [2, -3]"), msg


def test_one_tensor_name_on_two_outputs(tmp_path: Path) -> None:
    graph = _back_graph(tmp_path, _relu())
    _param(graph).out_port(0).add_tensor_names(["y"])
    msg = _emit_error(tmp_path, graph, ModelFormatError)
    assert "tensor 'y' is written by both" in msg and "node 'x' (Parameter) output 0" in msg
    assert "node 'relu' (ReLU) output 0" in msg


@pytest.mark.parametrize(("op", "what"), [("Parameter", "input"), ("Result", "output")])
def test_two_inputs_or_outputs_of_one_name(tmp_path: Path, op: str, what: str) -> None:
    model = make_model(
        [helper.make_node("Add", ["a", "b"], ["y"], name="add"),
         helper.make_node("Neg", ["y"], ["z"], name="neg")],
        [("a", F32, [2]), ("b", F32, [2])], [("y", F32, None), ("z", F32, None)])
    graph = _back_graph(tmp_path, model)
    first, second = graph.get_op_nodes(op=op)
    second["name"] = first.name
    msg = _emit_error(tmp_path, graph, ModelFormatError)
    assert msg == (f"two model {what}s are named '{first.name}'; give each {what} of the model "
                   "its own name")


def test_dynamic_dimensions_are_written(tmp_path: Path) -> None:
    graph = _back_graph(tmp_path, _relu(inputs=(("x", F32, ["N", 3]),)))
    assert _param(graph).shape == (-1, 3)
    xml, _ = emit_ir(graph, tmp_path / "ir", "m", {})
    assert 'shape="?,3"' in xml.read_text()


def test_an_absurd_pooling_window_is_refused(tmp_path: Path, capsys) -> None:
    """No loader check knows the input is smaller than the window: the pooling's shape
    inference refuses it, as OpenVINO's does."""
    model = make_model(
        [helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[1 << 31] * 2)],
        [("x", F32, [1, 3, 8, 8])], [("y", F32, None)])
    line = convert_error(capsys, _save(tmp_path, model))
    assert "node 'pool' (MaxPool)" in line and "larger than the padded input (8)" in line


# -- ONNX: what the graph declares -------------------------------------------------------------

def _relu_pair(second_output: str = "y") -> onnx.ModelProto:
    return make_model([helper.make_node("Relu", ["x"], ["y"], name="a"),
                       helper.make_node("Sigmoid", ["x"], [second_output], name="b")],
                      [("x", F32, [2, 3])], [("y", F32, None)])


@pytest.mark.parametrize(("model", "needle"), [
    (_relu(inputs=(("x", F32, [-5, 3]),)),
     "graph input 'x' declares the dimension -5 in its shape [-5, 3]; a dimension is a size "
     ">= 0, or a symbolic name (dim_param) when dynamic: fix the model"),
    (_relu_pair(), "tensor 'y' is written by both node 'a' (Relu) and node 'b' (Sigmoid) "
                   "(corrupt model); give each tensor one producer"),
    (_relu_pair("x"), "tensor 'x' is written by both graph input 'x' and node 'b' (Sigmoid)"),
    (_relu(inputs=(("x", F32, [2, 3]), ("x", F32, [2, 3]))),
     "graph input 'x' is declared twice (corrupt model); give each its own name"),
    (_relu(outputs=(("y", F32, None), ("y", F32, None))),
     "graph output 'y' is declared twice (corrupt model); give each its own name"),
    (make_model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                [("x", F32, [2])], [("y", F32, None)], {"w": np.ones(2, np.float32)}),
     "initializer 'w' is declared twice"),
], ids=["negative-dim", "two-producers", "node-writes-input", "two-inputs", "two-outputs",
        "two-initializers"])
def test_onnx_declarations(tmp_path: Path, capsys, model: onnx.ModelProto, needle: str) -> None:
    if needle.startswith("initializer"):
        model.graph.initializer.append(model.graph.initializer[0])
    assert needle in convert_error(capsys, _save(tmp_path, model))


def test_onnx_dynamic_dimensions_convert(tmp_path: Path, capsys) -> None:
    """-1 (what some exporters write) and a symbolic name are dynamic, not wrong."""
    model = _relu(inputs=(("x", F32, ["batch", 3]),))
    model.graph.input[0].type.tensor_type.shape.dim.add().dim_value = -1
    code = main(["convert", "--input_model", str(_save(tmp_path, model)),
                 "--output_dir", str(tmp_path / "ir")])
    assert code == 0, capsys.readouterr().err
    assert 'shape="?,3,?"' in (tmp_path / "ir" / "m.xml").read_text()


def test_onnx_reshape_to_an_absurd_shape(tmp_path: Path, capsys) -> None:
    model = make_model([helper.make_node("Reshape", ["x", "s"], ["y"], name="rs")],
                       [("x", F32, [2, 2])], [("y", F32, None)],
                       {"s": np.array([1 << 40, 0], np.int64)})
    assert "node 'rs' (Reshape)" in convert_error(capsys, _save(tmp_path, model))


# -- ONNX: window attributes against the weights and the input ---------------------------------

def _window_model(op: str, weights: tuple[int, ...] | None = (4, 3, 3, 3), **attrs):
    inits = {} if weights is None else {"w": np.ones(weights, np.float32)}
    inputs = ["x", "w"] if weights is not None else ["x"]
    return make_model([helper.make_node(op, inputs, ["y"], name="n", **attrs)],
                      [("x", F32, [1, 3, 8, 8])], [("y", F32, None)], inits)


@pytest.mark.parametrize(("model", "needle"), [
    (_window_model("Conv", kernel_shape=[1 << 31] * 2),
     "Conv node 'n': attribute kernel_shape [2147483648, 2147483648] contradicts its weights of "
     "shape [4, 3, 3, 3] (kernel [3, 3]); fix kernel_shape or the weights in the model"),
    (_window_model("Conv", kernel_shape=[3, 3, 3]),
     "attribute kernel_shape [3, 3, 3] contradicts its weights"),
    (_window_model("ConvTranspose", (3, 4, 3, 3), kernel_shape=[5, 5]),
     "ConvTranspose node 'n': attribute kernel_shape [5, 5] contradicts its weights"),
    (_window_model("Conv", strides=[0, 0]), "attribute strides [0, 0] holds a value below 1"),
    (_window_model("Conv", strides=[1, 1], pads=[1, 1]),
     "attribute pads [1, 1] does not have the 4 values its 2 spatial axes need"),
    (_window_model("Conv", auto_pad="SIDEWAYS"), "attribute auto_pad is not one of"),
    (_window_model("Conv", (4, 3, 3)), "its input of shape [1, 3, 8, 8] has 2 spatial axes, "
                                     "its window attributes 1"),
    (_window_model("MaxPool", None), "MaxPool node 'n': attribute kernel_shape is missing"),
    (_window_model("MaxPool", None, kernel_shape=[0, 2]),
     "attribute kernel_shape [0, 2] holds a value below 1"),
    (_window_model("AveragePool", None, kernel_shape=[2, 2], strides=[1]),
     "attribute strides [1] does not have the 2 values its 2 spatial axes need"),
    (_window_model("MaxPool", None, kernel_shape=[2, 2], pads=[0, 0, -1, 0]),
     "attribute pads [0, 0, -1, 0] holds a value below 0"),
], ids=["conv-absurd-kernel", "conv-kernel-rank", "convtranspose-kernel", "zero-stride",
        "short-pads", "auto-pad", "input-rank", "pool-no-kernel", "pool-zero-kernel",
        "pool-short-strides", "pool-negative-pad"])
def test_onnx_window_attributes(tmp_path: Path, capsys, model, needle: str) -> None:
    assert needle in convert_error(capsys, _save(tmp_path, model))


# -- Caffe: input shapes -----------------------------------------------------------------------

_CAFFE_LAYERS = 'layer { name: "relu" type: "ReLU" bottom: "data" top: "out" }\n'


@pytest.mark.parametrize("declaration", [
    'input: "data"\ninput_dim: 1 input_dim: 1 input_dim: -28 input_dim: 28\n',
    'input: "data"\ninput_shape { dim: 1 dim: -1 dim: 28 dim: 28 }\n',
    'layer { name: "in" type: "Input" top: "data"\n'
    '  input_param { shape { dim: 1 dim: 1 dim: 28 dim: -28 } } }\n',
], ids=["input_dim", "input_shape", "Input-layer"])
def test_caffe_negative_input_dimension(tmp_path: Path, capsys, declaration: str) -> None:
    from tests.front.test_caffe import write_model

    model = write_model(tmp_path, "n", f'name: "n"\n{declaration}{_CAFFE_LAYERS}', {})
    line = convert_error(capsys, model)
    assert "n.prototxt: input 'data' has the shape [1, " in line
    assert "a Caffe dimension is a size >= 0 (Caffe has no dynamic one): fix the .prototxt" in line


# -- TensorFlow: attribute values TensorFlow does not define -----------------------------------

def _tf_relu(shape: list[int] | None = (1, 3)) -> GraphBuilder:
    g = GraphBuilder()
    x = g.placeholder("x", None if shape is None else list(shape))
    g.node("Relu", "relu", [x], T=np.float32)
    return g


def _tf_set(attr: str, field: str, value) -> Callable[[GraphBuilder], None]:
    def mutate(g: GraphBuilder) -> None:
        node = next(n for n in g.graph_def.node if n.name == ("x" if attr != "T" else "relu"))
        av = node.attr[attr]
        if field == "type":
            av.type = value
        elif field == "list.type":
            av.list.type.extend(value)
        elif field == "shape":
            av.shape.Clear()
            for d in value:
                av.shape.dim.add(size=d)
    return mutate


@pytest.mark.parametrize(("mutate", "needle"), [
    (_tf_set("dtype", "type", 999), "node 'x' (Placeholder): attribute 'dtype' holds the data "
                                    "type 999, which TensorFlow does not define"),
    (_tf_set("T", "type", 201), "node 'relu' (Relu): attribute 'T' holds the data type 201"),
    (_tf_set("Tlist", "list.type", [1, 77]), "node 'x' (Placeholder): attribute 'Tlist' holds the "
                                             "data type 77"),
    (_tf_set("shape", "shape", [1, -5]), "node 'x' (Placeholder): attribute 'shape' holds the "
                                         "shape [1, -5]; a dimension is a size >= 0 (or -1"),
], ids=["placeholder-dtype", "op-type-ref-past-enum", "type-list", "placeholder-shape"])
@pytest.mark.parametrize("suffix", [".pb", ".pbtxt"])
def test_tf_attribute_tensorflow_does_not_define(tmp_path: Path, capsys, mutate, needle: str,
                                                 suffix: str) -> None:
    g = _tf_relu()
    mutate(g)
    path = g.save(tmp_path / f"m{suffix}")
    line = convert_error(capsys, path)
    assert f"m{suffix}: {needle}" in line and line.endswith("(corrupt model): fix or re-export "
                                                            "the model")


def test_tf_function_library_attribute(tmp_path: Path, capsys) -> None:
    g = _tf_relu()
    body = g.graph_def.library.function.add()
    body.signature.name = "f"
    node = body.node_def.add(name="cast", op="Cast")
    node.attr["DstT"].type = 555
    line = convert_error(capsys, g.save(tmp_path / "m.pb"))
    assert "node 'cast' (Cast): attribute 'DstT' holds the data type 555" in line


def test_tf_unknown_dimensions_convert(tmp_path: Path, capsys) -> None:
    """-1 in a shape attribute is TensorFlow's unknown dimension, not a wrong one."""
    code = main(["convert", "--input_model", str(_tf_relu([-1, 3]).save(tmp_path / "m.pb")),
                 "--output_dir", str(tmp_path / "ir")])
    assert code == 0, capsys.readouterr().err
    assert 'shape="?,3"' in (tmp_path / "ir" / "m.xml").read_text()


# -- MXNet: input attributes -------------------------------------------------------------------

def _mxnet_model(folder: Path, **data_attrs: str) -> Path:
    from converter.front.mxnet.params import write_ndarray_file
    from converter.front.mxnet.symbol import SymbolBuilder

    sym = SymbolBuilder()
    sym.save(folder / "m-symbol.json",
             [sym.op("relu", "act", [sym.var("data", **data_attrs)])])
    write_ndarray_file(folder / "m-0000.params", {})
    return folder / "m-0000.params"


@pytest.mark.parametrize(("attrs", "needle"), [
    ({"__shape__": "(1, -5, 4)"}, "input 'data' has the __shape__ [1, -5, 4]; a dimension is a "
                                  "size >= 0 (0 or -1: unknown): fix the symbol file"),
    ({"__shape__": "(1, 4)", "__dtype__": "99"}, "input 'data' has the __dtype__ 99, not one of "
                                                 "MXNet's types the converter reads"),
], ids=["negative-dim", "unknown-dtype"])
def test_mxnet_input_attributes(tmp_path: Path, capsys, attrs: dict, needle: str) -> None:
    line = convert_error(capsys, _mxnet_model(tmp_path, **attrs))
    assert f"m-symbol.json: {needle}" in line


def test_mxnet_unknown_dimensions_still_ask_for_a_shape(tmp_path: Path, capsys) -> None:
    code = main(["convert", "--input_model", str(_mxnet_model(tmp_path, __shape__="(-1, 4)")),
                 "--output_dir", str(tmp_path / "ir"), "--input_shape", "[2,4]"])
    assert code == 0, capsys.readouterr().err


@pytest.mark.parametrize(("dim", "says"), [
    ("-1", "input 'input' has -1 features; a Kaldi input dim is a size >= 1"),
    ("0", "input 'input' has 0 features"),
    ("four", "nnet3 config node 'input': dim= is not a whole number"),
])
def test_kaldi_input_dims_are_sizes(tmp_path: Path, capsys, dim: str, says: str) -> None:
    """Kaldi has no dynamic dims: an nnet3 input-node of dim -1 became a dynamic IR input, and
    one that is no number an internal error."""
    text = (Path(__file__).parents[1] / "examples" / "kaldi" / "custom.raw").read_text()
    text = text.replace("input-node name=input dim=4", f"input-node name=input dim={dim}")
    text = text.replace("component-node name=scale1 component=scale1 input=affine1\n", "")
    text = text.replace("input=scale1", "input=affine1")
    (model := tmp_path / "m.raw").write_text(text)
    assert says in convert_error(capsys, model)
