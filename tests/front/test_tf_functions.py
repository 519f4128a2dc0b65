"""Function calls in a GraphDef (written here with the converter's own protos) are inlined:
PartitionedCall/StatefulPartitionedCall and a node whose op names the function, with body
inputs `node:out_arg:index` resolved to flat ports, nested calls, and a multi-output op; and the
small ops Keras graphs use (Erfc, SelectV2, ZerosLike/OnesLike, ReverseV2)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from converter.errors import ModelFormatError
from converter.front.tf.functions import inline_functions
from converter.front.tf.writer import GraphBuilder, set_attr
from converter.options import ConvertOptions
from converter.pipeline import convert
from converter.runtime.engines import open_engine

F32 = np.float32


def _function(g: GraphBuilder, name: str, args: list[str], body: list[tuple], ret: dict):
    """Add a FunctionDef: body items are (name, op, inputs, attrs)."""
    fdef = g.graph_def.library.function.add()
    fdef.signature.name = name
    for arg in args:
        fdef.signature.input_arg.add(name=arg, type=1)
    for out in ret:
        fdef.signature.output_arg.add(name=out, type=1)
    for node_name, op, inputs, attrs in body:
        node = fdef.node_def.add(name=node_name, op=op)
        node.input.extend(inputs)
        for key, value in attrs.items():
            set_attr(node.attr[key], value)
    for out, tensor in ret.items():
        fdef.ret[out] = tensor
    return fdef


def _model(path: Path) -> Path:
    """y = inner(x) * 3 + x through a StatefulPartitionedCall of `outer`, which calls `inner`
    by op name; inner is a Split (a list output) whose second half is doubled."""
    g = GraphBuilder()
    x = g.placeholder("x", [1, 4])
    _function(g, "inner", ["a"], [
        ("axis", "Const", [], {"dtype": np.dtype(np.int32), "value": np.array(1, np.int32)}),
        ("split", "Split", ["axis:output:0", "a"], {"T": F32, "num_split": 2}),
        ("two", "Const", [], {"dtype": np.dtype(F32), "value": np.array(2, F32)}),
        ("mul", "Mul", ["split:output:1", "two:output:0"], {"T": F32}),
        ("cat_axis", "Const", [], {"dtype": np.dtype(np.int32), "value": np.array(1, np.int32)}),
        ("cat", "ConcatV2", ["split:output:0", "mul:z:0", "cat_axis:output:0"],
         {"T": F32, "N": 2}),
    ], {"out": "cat:output:0"})
    _function(g, "outer", ["b"], [
        ("call", "inner", ["b"], {}),
        ("three", "Const", [], {"dtype": np.dtype(F32), "value": np.array(3, F32)}),
        ("scaled", "Mul", ["call:out:0", "three:output:0"], {"T": F32}),
    ], {"y": "scaled:z:0"})
    call = g.node("StatefulPartitionedCall", "model", [x], Tin=[], Tout=[])
    g.graph_def.node[-1].attr["f"].func.name = "outer"
    g.node("AddV2", "y", [call, x], T=F32)
    return g.save(path)


def test_calls_are_inlined_and_compute_the_body(tmp_path: Path) -> None:
    xml = convert(ConvertOptions(_model(tmp_path / "calls.pb"), output_dir=tmp_path)).xml
    x = np.array([[1, 2, 3, 4]], F32)
    want = np.concatenate([x[:, :2], 2 * x[:, 2:]], axis=1) * 3 + x
    for engine in ("shim", "openvino"):
        got = open_engine(engine, xml, "CPU").run({"x": x})["y"]
        np.testing.assert_allclose(got, want, err_msg=engine)


def test_call_with_wrong_arity_is_a_format_error(tmp_path: Path) -> None:
    from converter.front.tf.loader import load_graph_def

    graph_def = load_graph_def(_model(tmp_path / "calls.pb"))
    graph_def.node[1].input.append("x")  # the call now passes two inputs to one argument
    with pytest.raises(ModelFormatError, match="passes 2 inputs to function 'outer'"):
        inline_functions(graph_def)


# -- small ops Keras graphs use ------------------------------------------------------------------
def _run(g: GraphBuilder, tmp_path: Path, feed: dict) -> np.ndarray:
    xml = convert(ConvertOptions(g.save(tmp_path / "ops.pb"), output_dir=tmp_path)).xml
    outs = [open_engine(e, xml, "CPU").run(feed)["y"] for e in ("shim", "openvino")]
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-6, atol=1e-6)
    return outs[0]


def test_erfc_selectv2_zeros_like_reverse(tmp_path: Path) -> None:
    from math import erfc

    g = GraphBuilder()
    x = g.placeholder("x", [2, 3])
    e = g.node("Erfc", "erfc", [x], T=F32)
    cond = g.node("Greater", "pos", [x, g.const("zero", np.array(0, F32))], T=F32)
    s = g.node("SelectV2", "select", [cond, e, g.node("ZerosLike", "zeros", [x], T=F32)], T=F32)
    r = g.node("ReverseV2", "rev", [s, g.const("axis", np.array([1], np.int32))], T=F32,
               Tidx=np.int32)
    g.node("AddV2", "y", [r, g.node("OnesLike", "ones", [x], T=F32)], T=F32)
    x_val = np.array([[-1.0, 0.5, 2.0], [1.5, -0.2, 0.1]], F32)
    want = np.where(x_val > 0, np.vectorize(erfc)(x_val), 0)[:, ::-1] + 1
    np.testing.assert_allclose(_run(g, tmp_path, {"x": x_val}), want, rtol=1e-5, atol=1e-6)
