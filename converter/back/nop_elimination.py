"""Ops that change nothing, gone as ovc's NopElimination, TransposeFuse and
ReshapeSequenceFusion make them go: a Pad whose pads are all zero, an Add or Subtract of 0 and
a Multiply or Divide by 1 that keep their input's shape and type, a Convert to its input's
type, a Concat of one input or of Kaldi dim ranges that rebuild their input (MO's
RemoveUselessCrops), a Split into one part, a Transpose fed only by another (one
Transpose of both orders, none where they cancel; MO's FuseTransposesSequence did the same),
and a Reshape with a constant target fed only by another Reshape (the second reads the first's
input; a target copying dimensions of the first's output, special_zero's 0, becomes the static
output shape first; for Caffe, MXNet and Kaldi, as MO fused them, only a target of positive
values). A Pad's or Concat's output names stay on the tensor that takes its place (one between
a Parameter and a Result stays, as in ovc, and one between an op of several outputs and a
Result); the names of the first Reshape's output go with
it."""

from __future__ import annotations

import numpy as np

from converter.back._fusion_ports import new_const
from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.middle.subgraphs import bodies_of
from converter.ops.movement.strided_slice import MO_CROP

__all__ = ["eliminate_nops"]

_MO_ONLY = {"caffe", "mxnet", "kaldi"}  # frameworks MO read and ovc does not


def _const_value(node: Node, port: int) -> np.ndarray | None:
    if port not in node.in_ports() or not node.is_in_port_connected(port):
        return None
    return node.in_port(port).data.get_value()


def _feeds_result(port: Port) -> bool:
    return any(d.node.soft_get("type") == "Result" for d in port.get_destinations())


def _bypass(node: Node, source: Port) -> bool:
    """What node's output fed now reads source, which takes node's output tensor names (only
    those, and node's name, where node's output is a model output: ovc's
    replace_output_update_name); not between a Parameter and a Result, nor between an op of
    several outputs and a Result (that op cannot take the Result's name), as in ovc."""
    if _feeds_result(node.out_port(0)):
        if source.node.soft_get("type") == "Parameter" or len(source.node.out_ports()) > 1:
            return False
        source.remove_tensor_names()
        source.node["name"] = node.soft_get("name", node.id)
    node.out_port(0).get_connection().set_source(source)
    return True


def _zero_pad(node: Node) -> bool:
    begin, end = _const_value(node, 1), _const_value(node, 2)
    if begin is None or end is None or np.any(begin != 0) or np.any(end != 0):
        return False
    return _bypass(node, node.in_port(0).get_source())


def _own_target(node: Node, target: np.ndarray) -> bool:
    """Whether the target stands without the Reshape before node: all positive, or (from the
    frameworks ovc reads, whose ReshapeSequenceFusion uses shapes) node's output shape is
    static; a target copying dimensions of node's input (special_zero's 0) then becomes it.
    MO read Caffe, MXNet and Kaldi, and fused only targets of positive values."""
    if np.all(target > 0):
        return True
    shape = node.out_port(0).data.get_shape()
    if (node.graph.graph.get("fw") in _MO_ONLY or shape is None
            or any(int(d) < 0 for d in shape)):
        return False
    if node.soft_get("special_zero", False) and np.any(target == 0):
        const = new_const(node.graph, np.array(shape, np.int64),
                          f"{node.soft_get('name')}/shape")
        node.in_port(1).disconnect()
        const.connect(node.in_port(1))
        node["special_zero"] = False
    return True


def _reshape_of_reshape(node: Node) -> bool:
    """node (a Reshape with a constant target) reads the input of the Reshape feeding it, when
    nothing else reads that Reshape."""
    target = _const_value(node, 1)
    first = node.in_port(0).get_source()
    if (target is None or first.node.soft_get("type") != "Reshape"
            or len(first.get_destinations()) != 1 or not _own_target(node, target)):
        return False
    # the first Reshape's output names go with it, as in ovc
    node.in_port(0).get_connection().set_source(first.node.in_port(0).get_source(),
                                                attributes_save_mode="dest")
    return True


def _same_type_convert(node: Node) -> bool:
    """A Convert to its input's element type is that input (ovc's EliminateConvert)."""
    source = node.in_port(0).get_source()
    dtype = source.data.get_data_type()
    return (dtype is not None and np.dtype(dtype) == np.dtype(node.soft_get("destination_type"))
            and _bypass(node, source))


def _single_concat(node: Node) -> bool:
    """A Concat of one input is that input (ovc's EliminateConcat)."""
    inputs = [p for p in node.in_ports().values() if not p.disconnected()]
    return len(inputs) == 1 and _bypass(node, inputs[0].get_source())


def _rebuilt_input(node: Node) -> bool:
    """A Concat on axis 1 of Kaldi dim ranges (MO's Crops) of one tensor, each read by it only,
    in order and covering the tensor whole, is that tensor (MO's RemoveUselessCrops)."""
    ports = [node.in_port(i) for i in sorted(node.in_ports()) if node.is_in_port_connected(i)]
    crops = [p.get_source().node for p in ports]
    if node.soft_get("axis") != 1 or len(crops) < 2 or any(
            c.soft_get(MO_CROP, None) is None or len(c.out_port(0).get_destinations()) != 1
            for c in crops):
        return False
    source = crops[0].in_port(0).get_source()
    end = 0
    for crop in crops:
        start, dim = crop[MO_CROP]
        if start != end or crop.in_port(0).get_source() != source:
            return False
        end += dim
    shape = source.data.get_shape()
    return shape is not None and len(shape) == 2 and shape[1] == end and _bypass(node, source)


def _single_split(node: Node) -> bool:
    """A Split into one part is its input (ovc's EliminateSplit)."""
    return (node.soft_get("num_splits", 1) == 1
            and _bypass(node, node.in_port(0).get_source()))


def _transpose_of_transpose(node: Node) -> bool:
    """node (a Transpose with a constant order) fed only by another such Transpose: one
    Transpose of the input with both orders, or the input itself where they cancel."""
    order, first = _const_value(node, 1), node.in_port(0).get_source()
    if (order is None or first.node.soft_get("type") != "Transpose"
            or len(first.get_destinations()) != 1):
        return False
    first_order = _const_value(first.node, 1)
    if first_order is None or first_order.shape != order.shape:
        return False
    combined = np.asarray(first_order)[np.asarray(order, np.int64)]
    source = first.node.in_port(0).get_source()
    if np.array_equal(combined, np.arange(combined.size)):
        return _bypass(node, source)
    const = new_const(node.graph, combined.astype(np.asarray(order).dtype),
                      f"{node.soft_get('name')}/order")
    node.in_port(1).disconnect()
    const.connect(node.in_port(1))
    node.in_port(0).get_connection().set_source(source, attributes_save_mode="dest")
    return True


# op -> (the constant that leaves the other input as it is, whether it may come first)
_NEUTRAL = {"Add": (0, True), "Subtract": (0, False), "Multiply": (1, True),
            "Divide": (1, False)}


def _neutral_operand(node: Node) -> bool:
    """x + 0, x - 0, x * 1, x / 1 (either order where the op commutes), the constant of one
    element: the output is x, when the constant changes neither its shape nor its type (ovc's
    EliminateEltwise; it keeps a constant of zeros or ones in any other shape)."""
    value, commutes = _NEUTRAL[node.soft_get("type")]
    for var, const in ((0, 1), (1, 0)) if commutes else ((0, 1),):
        constant = _const_value(node, const)
        if (constant is None or constant.size != 1 or _const_value(node, var) is not None
                or np.any(constant != value)):
            continue
        source = node.in_port(var).get_source()
        same = (tuple(source.data.get_shape() or ()) == tuple(node.out_port(0).data.get_shape()
                                                             or (None,))
                and source.data.get_data_type() == node.out_port(0).data.get_data_type())
        return same and _bypass(node, source)
    return False


_RULES = {"Pad": _zero_pad, "Reshape": _reshape_of_reshape,
          "Concat": lambda node: _single_concat(node) or _rebuilt_input(node),
          "Convert": _same_type_convert, "Split": _single_split,
          "Transpose": _transpose_of_transpose,
          **{op: _neutral_operand for op in _NEUTRAL}}


def eliminate_nops(graph: Graph) -> None:
    changed = False
    nodes = graph._node
    for nid in graph.topological_ids():  # a chain of Transposes folds from its start
        rule = _RULES.get(nodes[nid].get("type")) if nid in nodes else None
        if rule is not None and rule(Node(graph, nid)):
            changed = True
    if changed:
        graph.clean_up()
    for body in bodies_of(graph):
        eliminate_nops(body)
