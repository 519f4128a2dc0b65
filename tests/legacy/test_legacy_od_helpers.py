"""MO's Object Detection API graph helpers, behaving as MO's: an activation after a node, a
fake background box, and the nearest upstream ops of some kinds."""

from __future__ import annotations

import numpy as np
import onnx
import openvino as ov
import pytest
from onnx import TensorProto, helper

from converter.graph.graph import Graph, Node
from converter.legacy import legacy_imports
from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.conftest import make_model


def _front_graph(*ops: str) -> list[Node]:
    """A chain of ops (front stage: op -> op), the first feeding the second, ..."""
    graph = Graph()
    graph.stage = "front"
    nodes = []
    for i, op in enumerate(ops):
        graph.add_node(f"n{i}", kind="op", name=f"n{i}", op=op)
        nodes.append(Node(graph, f"n{i}"))
        if i:
            nodes[i - 1].out_port(0).connect(nodes[i].in_port(0))
    return nodes


@pytest.mark.parametrize(("function", "op"), [("SOFTMAX", "SoftMax"), ("SIGMOID", "Sigmoid")])
def test_activation_after_a_node(function: str, op: str) -> None:
    (x,) = _front_graph("Parameter")
    with legacy_imports():
        from mo.front.tf.graph_utils import add_activation_function_after_node

        act = add_activation_function_after_node(x.graph, x, function)
    assert act.op == op and act.name == f"n0/{function.lower()}"
    assert act.in_port(0).get_source().node.id == "n0"
    assert function == "SIGMOID" or act["axis"] == -1


def test_identity_activation_is_the_node_and_others_are_errors() -> None:
    (x,) = _front_graph("Parameter")
    with legacy_imports():
        from mo.front.tf.graph_utils import add_activation_function_after_node
        from mo.utils.error import Error

        assert add_activation_function_after_node(x.graph, x, "IDENTITY") is x
        with pytest.raises(Error, match='Unknown post-processing activation function "TANH"'):
            add_activation_function_after_node(x.graph, x, "TANH")


@pytest.mark.parametrize(("skip", "found"), [(None, ["n0", "n2"]), (["Relu"], ["n2"])])
def test_backward_bfs_finds_the_nearest_ops_of_a_kind(skip, found) -> None:
    """n0 Cast -> n1 Relu -> n2 Cast -> n3 Tanh: from n3, the Cast next to it stops the walk
    on that branch; a second branch reaches the first Cast through the Relu unless skipped."""
    nodes = _front_graph("Cast", "Relu", "Cast", "Tanh")
    nodes[1].out_port(0).connect(nodes[3].in_port(1))
    with legacy_imports():
        from mo.utils.graph import backward_bfs_for_operation

        got = backward_bfs_for_operation(nodes[3], ["Cast"], skip)
    assert sorted(n.id for n in got) == found


FAKE_BACKGROUND = """
from openvino.tools.mo.front.common.replacement import FrontReplacementOp
from openvino.tools.mo.front.tf.graph_utils import add_fake_background_loc


class Build(FrontReplacementOp):
    op = 'Build'
    enabled = True

    def replace_op(self, graph, node):
        return [add_fake_background_loc(graph, node.in_port(0).get_source().node).out_port(0)]
"""


def test_fake_background_box_comes_first(tmp_path) -> None:
    (tmp_path / "ext" / "front").mkdir(parents=True)
    (tmp_path / "ext" / "front" / "build.py").write_text(FAKE_BACKGROUND)
    onnx.save(make_model([helper.make_node("Build", ["x"], ["y"], domain="my.domain")],
                         [("x", TensorProto.FLOAT, [2, 3, 4])], [("y", TensorProto.FLOAT, None)],
                         domains=("my.domain",)), tmp_path / "m.onnx")
    xml = convert(ConvertOptions(tmp_path / "m.onnx", output_dir=tmp_path / "ir",
                                 extensions=[tmp_path / "ext"])).xml
    x = np.random.default_rng(1).standard_normal((2, 3, 4)).astype(np.float32)
    got = ov.Core().compile_model(str(xml), "CPU")([x])[0]
    np.testing.assert_array_equal(got, np.concatenate([x[:, :1], x], axis=1))
