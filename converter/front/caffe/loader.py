"""Read a Caffe model (.prototxt + .caffemodel) into a front-stage Graph.

Layers come from the .prototxt (`layer`, or the V1 `layers`); their weights from the
.caffemodel layer of the same name. Each kept layer becomes a framework node with `pb` (the
.prototxt LayerParameter), `model_pb` (the .caffemodel one, blobs included) and `op` = the
layer type (`module.layer` for Python layers). Edges follow bottom/top blob names; a layer that
writes its input blob in place becomes that blob's new producer. TRAIN-only layers are dropped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from converter.errors import InputFileError, ModelFormatError, UsageError
from converter.front.caffe.proto import (
    net_class,
    read_caffemodel,
    read_mean_file,
    read_prototxt,
)
from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.ops.op import Op
from converter.options import ConvertOptions

__all__ = ["V1_TYPES", "load", "net_to_graph"]

# V1LayerParameter.LayerType -> the layer type string of the current format
V1_TYPES = {
    "ABSVAL": "AbsVal", "ACCURACY": "Accuracy", "ARGMAX": "ArgMax", "BNLL": "BNLL",
    "CONCAT": "Concat", "CONTRASTIVE_LOSS": "ContrastiveLoss", "CONVOLUTION": "Convolution",
    "DATA": "Data", "DECONVOLUTION": "Deconvolution", "DROPOUT": "Dropout",
    "DUMMY_DATA": "DummyData", "EUCLIDEAN_LOSS": "EuclideanLoss", "ELTWISE": "Eltwise",
    "EXP": "Exp", "FLATTEN": "Flatten", "HDF5_DATA": "HDF5Data", "HDF5_OUTPUT": "HDF5Output",
    "HINGE_LOSS": "HingeLoss", "IM2COL": "Im2col", "IMAGE_DATA": "ImageData",
    "INFOGAIN_LOSS": "InfogainLoss", "INNER_PRODUCT": "InnerProduct", "LRN": "LRN",
    "MEMORY_DATA": "MemoryData", "MULTINOMIAL_LOGISTIC_LOSS": "MultinomialLogisticLoss",
    "MVN": "MVN", "POOLING": "Pooling", "POWER": "Power", "RELU": "ReLU", "SIGMOID": "Sigmoid",
    "SIGMOID_CROSS_ENTROPY_LOSS": "SigmoidCrossEntropyLoss", "SILENCE": "Silence",
    "SOFTMAX": "Softmax", "SOFTMAX_LOSS": "SoftmaxWithLoss", "SPLIT": "Split", "SLICE": "Slice",
    "TANH": "TanH", "WINDOW_DATA": "WindowData", "THRESHOLD": "Threshold",
}
_TRAIN, _TEST = 0, 1


def _paths(opts: ConvertOptions) -> tuple[Path, Path]:
    model = Path(opts.input_model)
    if model.suffix.lower() == ".prototxt" and opts.input_proto is None:
        weights = model.with_suffix(".caffemodel")
        if not weights.is_file():
            msg = (f"{model}: a .prototxt holds no weights; pass the .caffemodel as --input_model "
                   "(and the .prototxt with --input_proto)")
            raise UsageError(msg)
        return weights, model
    proto = Path(opts.input_proto) if opts.input_proto else model.with_suffix(".prototxt")
    if not proto.is_file():
        how = ("--input_proto" if opts.input_proto
               else f"derived from {model.name}; pass --input_proto")
        msg = f"{proto}: no such .prototxt ({how})"
        raise InputFileError(msg)
    return model, proto


def layer_type(layer: Any) -> str:
    """The layer's type string (V1 enum values mapped to the current names)."""
    value = layer.type
    if isinstance(value, str):
        return value
    name = layer.DESCRIPTOR.fields_by_name["type"].enum_type.values_by_number[value].name
    return V1_TYPES.get(name, name)


def _in_test_phase(layer: Any) -> bool:
    if ("phase" in layer.DESCRIPTOR.fields_by_name and layer.HasField("phase")
            and layer.phase == _TRAIN):
        return False
    rules = list(layer.include)
    if rules and not any(not r.HasField("phase") or r.phase == _TEST for r in rules):
        return False
    return not any(r.HasField("phase") and r.phase == _TEST for r in layer.exclude)


def _add_op(graph: Graph, op: str, name: str, **attrs: Any) -> Node:
    return Op.builtin_ops[op](graph).create_node(attrs={"name": name, **attrs})


def _net_inputs(net: Any, path: Path) -> list[tuple[str, tuple[int, ...] | None]]:
    names = list(net.input)
    if not names:
        return []
    if len(net.input_shape):
        shapes = [tuple(int(d) for d in s.dim) for s in net.input_shape]
    elif len(net.input_dim):
        dims = [int(d) for d in net.input_dim]
        if len(names) == 1:
            shapes = [tuple(dims)]
        elif len(dims) == 4 * len(names):
            shapes = [tuple(dims[4 * i: 4 * i + 4]) for i in range(len(names))]
        else:
            msg = (f"{path}: {len(names)} inputs but {len(dims)} input_dim values "
                   "(4 per input expected)")
            raise ModelFormatError(msg)
    else:
        shapes = []
    return [(n, shapes[i] if i < len(shapes) else None) for i, n in enumerate(names)]


class _Builder:
    """The graph under construction: the port producing each blob, the inputs in order."""

    def __init__(self, graph: Graph, proto_path: Path) -> None:
        self.graph, self.proto_path = graph, proto_path
        self.producers: dict[str, Port] = {}
        self.inputs: list[str] = []

    def add_input(self, name: str, shape: tuple[int, ...] | None) -> None:
        if shape is not None and any(d < 0 for d in shape):
            msg = (f"{self.proto_path}: input '{name}' has the shape {list(shape)}; a Caffe "
                   "dimension is a size >= 0 (Caffe has no dynamic one): fix the .prototxt")
            raise ModelFormatError(msg)
        param = _add_op(self.graph, "Parameter", name, shape=shape,
                        element_type=np.dtype(np.float32))
        param.out_port(0).add_tensor_names([name])
        self.producers[name] = param.out_port(0)
        self.inputs.append(name)

    def add_layer(self, layer: Any, ltype: str, name: str, weights: Any) -> Node:
        op = ltype
        if ltype == "Python":
            op = f"{layer.python_param.module}.{layer.python_param.layer}"
        node_id = self.graph.unique_id(name)
        self.graph.add_node(
            node_id, kind="op", op=op, name=name, pb=layer, model_pb=weights, caffe_type=ltype,
            in_ports_count=len(layer.bottom), out_ports_count=len(layer.top),
        )
        node = Node(self.graph, node_id)
        node.update_node()
        for port, blob in enumerate(layer.bottom):
            if blob not in self.producers:
                msg = (f"{self.proto_path}: layer '{name}' ({ltype}) reads blob '{blob}' "
                       "that no earlier layer or input produces")
                raise ModelFormatError(msg)
            self.producers[blob].connect(node.in_port(port))
        for port, blob in enumerate(layer.top):
            previous = self.producers.get(blob)
            if previous is None or previous.node.soft_get("op") != "Parameter":
                if previous is not None:  # in place: the blob now names this layer's output
                    previous.remove_tensor_names()
                node.out_port(port).add_tensor_names([blob])
            self.producers[blob] = node.out_port(port)
        return node

    def add_results(self) -> list[str]:
        """A Result for every blob no layer reads; the blobs, in order."""
        outputs = []
        for blob, port in self.producers.items():
            if port.node.soft_get("op") == "Parameter" or port.get_destinations():
                continue
            result = _add_op(self.graph, "Result", f"{blob}/sink_port_0")
            port.connect(result.in_port(0))
            outputs.append(blob)
        return outputs


def net_to_graph(net: Any, model: Any, proto_path: Path, mapping: dict | None = None) -> Graph:
    """Front-stage graph from the parsed .prototxt (net) and .caffemodel (model)."""
    graph = Graph()
    graph.graph.update(fw="caffe", layout="NCHW", feature_dim=1, name=net.name or "model")
    layers = list(net.layer) or list(net.layers)
    if not layers:
        msg = f"{proto_path}: no layers (neither 'layer' nor 'layers'); is it a Caffe network?"
        raise ModelFormatError(msg)
    weights: dict[str, Any] = {}
    if model is not None:
        weights = {layer.name: layer for layer in (list(model.layer) or list(model.layers))}
    build = _Builder(graph, proto_path)
    for name, shape in _net_inputs(net, proto_path):
        build.add_input(name, shape)
    for index, layer in enumerate(layers):
        if not _in_test_phase(layer):
            continue
        ltype = layer_type(layer)
        name = layer.name or f"{ltype}_{index}"
        if ltype == "Input":
            shapes = [tuple(int(d) for d in s.dim) for s in layer.input_param.shape]
            for j, top in enumerate(layer.top):
                fallback = shapes[0] if len(shapes) == 1 else None
                build.add_input(top, shapes[j] if j < len(shapes) else fallback)
            continue
        node = build.add_layer(layer, ltype, name, weights.get(layer.name))
        if mapping and ltype in mapping:
            from converter.front.caffe.custom_layers_mapping import apply_mapping

            apply_mapping(node, mapping[ltype])
    if not build.inputs:
        msg = (f"{proto_path}: the network has no inputs (no 'input' fields and no Input layer); "
               "add an Input layer or an input/input_shape")
        raise ModelFormatError(msg)
    graph.graph["output_order"] = build.add_results()
    graph.graph["input_order"] = build.inputs
    return graph


def load(opts: ConvertOptions) -> Graph:
    """The front-stage graph of opts' Caffe model (CustomLayersMapping.xml applied)."""
    model_path, proto_path = _paths(opts)
    cls = net_class(opts.caffe_parser_path)
    net = read_prototxt(proto_path, cls, custom_parser=opts.caffe_parser_path is not None)
    model = read_caffemodel(model_path, cls)
    mapping = None
    if opts.custom_layers_mapping is not None:
        from converter.front.caffe.custom_layers_mapping import read_mapping

        mapping = read_mapping(Path(opts.custom_layers_mapping),
                               bool(opts.disable_omitting_optional),
                               bool(opts.enable_flattening_nested_params))
    graph = net_to_graph(net, model, proto_path, mapping)
    if opts.mean_file is not None:
        graph.graph["mean_image"] = read_mean_file(Path(opts.mean_file), opts.caffe_parser_path)
    return graph

