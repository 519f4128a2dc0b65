"""MO's Caffe extractor helpers (mo.front.caffe.extractors.utils): constants an extractor
embeds in the attributes it returns (the extractor driver turns `embedded_inputs` into Const
inputs), a layer's weights and biases from the .caffemodel, a Const on an input port, and the
convolution attributes of mo.front.caffe.conv_ext."""

from __future__ import annotations

from typing import Any

import numpy as np

from converter.graph.graph import Node
from converter.legacy.build import const_into

__all__ = [
    "conv_create_attrs", "conv_set_params", "dim_to_shape", "embed_input",
    "get_list_from_container", "get_spatial_attr", "input_as_const", "node_pb_arg",
    "weights_biases",
]


def dim_to_shape(dim: Any) -> np.ndarray:
    """A BlobShape's dims as an int64 shape."""
    return np.array(dim, np.int64)


def embed_input(attrs: dict, port: int, name: str, value: Any, bin_name: str | None = None
                ) -> None:
    """Add value (flattened, float32) to attrs as `name`, to become a Const on input `port`
    whose edge is marked bin_name (default name)."""
    if name in attrs:
        msg = f"embed_input: the attributes already hold '{name}'"
        raise ValueError(msg)
    attrs[name] = np.asarray(value, np.float32).reshape(-1)
    attrs.setdefault("embedded_inputs", []).append((port, name, {"bin": bin_name or name}))


def _diagonal(proto: Any, bias_term: bool, start_index: int) -> dict:
    """A layer without stored weights but a 'diagonal' weight_filler: identity-like weights."""
    filler = getattr(proto, "weight_filler", None)
    if not filler or filler.type != "diagonal":
        return {}
    size = proto.kernel_size[0] * proto.kernel_size[0] * proto.num_output
    weights = np.zeros(size * size, np.float32)
    weights[np.arange(size) * (size + 1)] = list(filler.diag_val)[:size]
    attrs: dict = {}
    embed_input(attrs, start_index, "weights", weights)
    if bias_term:
        embed_input(attrs, start_index + 1, "biases", np.zeros(proto.num_output, np.float32))
    return attrs


def weights_biases(bias_term: bool, model_layer: Any, start_index: int = 1,
                   proto: Any = None) -> dict:
    """The layer's blobs as embedded inputs: weights on port start_index, biases (bias_term)
    on the next; without stored blobs, a diagonal weight_filler in proto, else nothing."""
    if not model_layer:
        return _diagonal(proto, bias_term, start_index) if proto else {}
    attrs: dict = {}
    embed_input(attrs, start_index, "weights", model_layer.blobs[0].data)
    if bias_term:
        embed_input(attrs, start_index + 1, "biases", model_layer.blobs[1].data)
    return attrs


def input_as_const(node: Node, attrs: dict, port: int, bin: str, value: Any) -> Node:
    """A Const (with attrs) on node's input port, the edge marked with `bin`."""
    const = const_into(node, port, value, attrs.get("name") or
                       f"{node.soft_get('name', node.id)}/{bin}", attrs)
    for u, v, key, data in list(node.graph.in_edges(node.id, keys=True, data=True)):
        if data.get("in") == port:
            node.graph.add_edge(u, v, key, bin=bin)
    return const


def get_list_from_container(param: Any, prop: str, t: type) -> list:
    """A proto field as a list: [] when unset or empty, [value] for a single value of type t."""
    value = getattr(param, prop, None) if param else None
    if not value:
        return []
    return [value] if isinstance(value, t) else list(value)


def get_spatial_attr(default: list, single_name: str, name: str, param: Any) -> tuple:
    """(w, h) of a Caffe window attribute: `<name>_w`/`<name>_h` when set (not 0 nor the
    default), else the first value of the repeated `single_name` field, else default."""
    w, h = default[0], default[1]
    given_h, given_w = getattr(param, f"{name}_h", 0), getattr(param, f"{name}_w", 0)
    if given_h not in (0, default[1]):
        h = given_h
    if given_w not in (0, default[0]):
        w = given_w
    if not h or not w or h == w == default[0]:
        values = get_list_from_container(param, single_name, int)
        if values and list(values) != list(default):
            w = h = values[0]
    return w, h


def node_pb_arg(pb_extractor: Any) -> Any:
    """An extractor of (layer proto, model layer) as one of the node (mo.front.caffe.extractor)."""
    return lambda node: pb_extractor(node.pb, node.model_pb)


def conv_set_params(conv_param: Any, conv_type: str) -> dict:
    """A Caffe convolution_param's window (w, h pairs), group, num_output and bias_term."""
    dilates = get_list_from_container(conv_param, "dilation", int)
    groups = get_list_from_container(conv_param, "group", int)
    return {
        "type_str": conv_type,
        "padding": list(get_spatial_attr([0, 0], "pad", "pad", conv_param)),
        "dilate": [dilates[0]] * 2 if dilates else [1, 1],
        "stride": list(get_spatial_attr([1, 1], "stride", "stride", conv_param)),
        "kernel": list(get_spatial_attr([0, 0], "kernel_size", "kernel", conv_param)),
        "group": groups[0] if groups and groups[0] != 1 else 1,
        "output": conv_param.num_output,
        "bias_term": conv_param.bias_term,
    }


def conv_create_attrs(params: dict) -> dict:
    """MO's NCHW convolution attributes from conv_set_params' (w, h) pairs."""
    (pad_w, pad_h), (dil_w, dil_h) = params["padding"], params["dilate"]
    (stride_w, stride_h), (kernel_w, kernel_h) = params["stride"], params["kernel"]
    spatial_pad = np.array([[pad_h, pad_h], [pad_w, pad_w]], np.int64)
    return {
        "bias_addable": True, "bias_term": params["bias_term"],
        "pad": np.concatenate([np.zeros((2, 2), np.int64), spatial_pad]),
        "pad_spatial_shape": spatial_pad,
        "dilation": np.array([1, 1, dil_h, dil_w], np.int64),
        "output_spatial_shape": None, "output_shape": None,
        "stride": np.array([1, 1, stride_h, stride_w], np.int64),
        "group": params["group"], "output": params["output"],
        "kernel_spatial": np.array([kernel_h, kernel_w], np.int64),
        "kernel_spatial_idx": np.array([2, 3], np.int64), "reshape_kernel": True,
        "input_feature_channel": 1, "output_feature_channel": 0,
    }
