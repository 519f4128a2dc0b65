"""MO's node-building API of Op (create_node_with_data, get_opset) and the base contract, as
extension code uses them."""

from __future__ import annotations

import numpy as np
import pytest

import converter.ops  # noqa: F401  (registers the built-in ops)
from converter.errors import ExtensionError
from converter.graph.graph import Node
from converter.ops.loader import op_scope
from converter.ops.op import Op
from tests.graph.conftest import chain

Relu = Op.get_op_class_by_name("ReLU")


def _x_data() -> Node:
    graph = chain("middle")
    port = Node(graph, "x").out_port(0).data
    port.set_shape((1, 3))
    port.set_data_type(np.float32)
    return Node(graph, "x").out_port(0).data_node()


def test_get_opset_is_the_version_or_extension() -> None:
    graph = chain("front")
    assert Relu(graph).get_opset() == "opset1"
    with op_scope():
        class Custom(Op):
            op = "MyCustom"
        assert Custom(graph).get_opset() == "extension"


def test_create_node_with_data_infers_and_returns_the_output_data_node() -> None:
    x = _x_data()
    out = Relu(x.graph, {"name": "relu2"}).create_node_with_data([x])
    assert out.kind == "data" and out.shape == (1, 3) and out.data_type == np.float32
    producer = out.in_node(0)
    assert (producer.name, producer.op) == ("relu2", "ReLU")
    assert producer.in_port(0).get_source() == Node(x.graph, "x").out_port(0)


def test_create_node_with_data_writes_to_the_data_nodes_given() -> None:
    x = _x_data()
    given = Node(x.graph, x.graph.add_data_node("relu", 7))
    x.graph.remove_edge("relu", given.id)  # a free data node, as MO's extensions make them
    out = Relu(x.graph).create_node_with_data([x], data_nodes=given)
    assert out == given and given.shape == (1, 3)


def test_create_node_with_data_of_several_outputs_returns_them_all() -> None:
    x = _x_data()
    with op_scope():
        class Twins(Op):
            op = "Twins"
            out_ports_count = 2

            @classmethod
            def infer_shapes(cls, attrs, shapes, values):
                return [shapes[0], shapes[0]]

        outs = Twins(x.graph).create_node_with_data([x])
    assert [o.shape for o in outs] == [(1, 3), (1, 3)]


def test_base_evaluate_is_left_to_subclasses() -> None:
    with pytest.raises(NotImplementedError):
        Op.evaluate({}, [np.zeros(1)])
    assert not Op.has_evaluate() and Relu.has_evaluate()


def test_infer_falls_back_to_shapes_when_evaluate_is_not_written_yet() -> None:
    x = _x_data()
    Node(x.graph, "x").out_port(0).data.set_value(np.ones((1, 3), np.float32))
    with op_scope():
        class Todo(Op):
            op = "Todo"

            @classmethod
            def evaluate(cls, attrs, inputs):
                raise NotImplementedError

        out = Todo(x.graph).create_node_with_data([x])
    assert out.shape == (1, 3) and out.value is None


def test_an_unknown_op_name_is_an_extension_error() -> None:
    with pytest.raises(ExtensionError, match="no Op class is registered for op 'NoSuchOp'"):
        Op.get_op_class_by_name("NoSuchOp")


def test_nodes_of_one_class_share_its_infer_until_it_is_replaced(monkeypatch) -> None:
    graph = chain("front")
    a, b = (Relu(graph, {"name": n}).create_node() for n in ("r1", "r2"))
    assert a["infer"] is b["infer"] and a["infer"] == Relu.infer

    def other(node: Node) -> None:
        pass

    monkeypatch.setattr(Relu, "infer", staticmethod(other))
    assert Relu(graph, {"name": "r3"}).create_node()["infer"] is other
    assert a["infer"] != other  # nodes made before keep theirs


def test_nodes_of_one_op_share_a_read_only_ie_list() -> None:
    import copy
    import pickle

    graph = chain("front")
    a, b = Relu(graph, {"name": "a"}).create_node(), Relu(graph, {"name": "b"}).create_node()
    assert a["IE"] is b["IE"] and a["IE"] == list(Relu.attr_types)
    with pytest.raises(TypeError, match="assign a new list"):
        a["IE"].append("extra")
    a["IE"] = [*a["IE"], "extra"]
    assert a["IE"][-1] == "extra" and "extra" not in b["IE"]
    assert copy.deepcopy(b["IE"]) == pickle.loads(pickle.dumps(b["IE"])) == b["IE"]
