"""Front-stage model edits from the command line: --input/--input_shape (new or reshaped
Parameters, frozen values), --output (cut), and mean/scale/reverse-channels preprocessing."""

from __future__ import annotations

import re

import numpy as np

from converter.errors import UsageError, not_in_model
from converter.front.layouts import apply_batch, apply_layouts
from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.graph.shape import Bounds, format_bounded
from converter.ops.op import Op
from converter.options import ConvertOptions, InputSpec

__all__ = ["apply_input_options"]


def _find_tensor(graph: Graph, name: str) -> Port | None:
    """The output port carrying tensor `name` (or the first output of node `name`), or None."""
    by_node = None
    for node in graph.get_op_nodes():
        for idx, info in node._ports("out").items():
            if any(t == name for _, t in info.get("fw_tensor_debug_info", [])):
                return node.out_port(idx)
        if by_node is None and node.soft_get("name") == name and node.soft_get("op") != "Result":
            by_node = node.out_port(0)
    return by_node


def _parameters(graph: Graph) -> list[Node]:
    order = graph.graph.get("input_order") or []
    params = graph.get_op_nodes(op="Parameter")
    rank = {n: i for i, n in enumerate(order)}
    return sorted(params, key=lambda p: rank.get(p.soft_get("name"), len(rank)))


def _cut_input(graph: Graph, spec: InputSpec, flag: str) -> Node:
    port = _find_tensor(graph, spec.name)
    if port is None:
        hint = ("; a shape goes in brackets: --input [1,3,224,224]"
                if re.fullmatch(r"-?\d+|\?", spec.name) else "")
        names = [p.soft_get("name") for p in _parameters(graph)]
        raise not_in_model(flag, spec.name, "input or tensor", names, hint)
    if port.node.soft_get("op") == "Parameter":
        return port.node
    names = port.get_tensor_names()
    param = Op.builtin_ops["Parameter"](graph).create_node(
        attrs={"name": spec.name, "shape": None, "element_type": np.dtype(np.float32)}
    )
    param.out_port(0).add_tensor_names(names or [spec.name])
    port.get_connection().set_source(param.out_port(0))
    graph.clean_up(keep_parameters=False)  # inputs above the cut go, as in MO
    return param


def _bounded_shape(param: Node) -> str:
    return format_bounded(param.shape, param.bounds)


def _apply_input(graph: Graph, spec: InputSpec, shape, bounds: Bounds | None,
                 flag: str = "--input") -> None:
    param = _cut_input(graph, spec, flag)
    if shape is not None:
        param["shape"] = tuple(shape)
    if bounds is not None and shape is not None:  # the IR keeps 1..4 as MO wrote it
        param["bounds"] = bounds
        param["IE"] = [("shape", _bounded_shape), "element_type"]
    if spec.dtype is not None:
        param["element_type"] = spec.dtype
    if spec.value is not None:
        dtype = spec.dtype or param.soft_get("element_type") or np.float32
        value = spec.value.astype(dtype)
        if param.has_valid("shape") and all(d >= 0 for d in param.shape):
            value = value.reshape(param.shape)
        const = Op.builtin_ops["Const"](graph).create_node(
            attrs={"name": param.soft_get("name"), "value": value}
        )
        param.out_port(0).get_connection().set_source(const.out_port(0))
        graph.remove_node(param.id)


def _apply_outputs(graph: Graph, names: list[str]) -> None:
    ports = [_find_tensor(graph, n) for n in names]
    for name, port in zip(names, ports):
        if port is None:
            msg = f"--output {name!r}: the model has no tensor or node of that name"
            raise UsageError(msg)
    for result in graph.get_op_nodes(op="Result"):
        graph.remove_node(result.id)
    for name, port in zip(names, ports):
        result = Op.builtin_ops["Result"](graph).create_node(attrs={"name": f"{name}/sink_port_0"})
        port.connect(result.in_port(0))
    graph.graph["output_order"] = names
    graph.clean_up()


def _mean_image(graph: Graph, param: Node, opts: ConvertOptions) -> np.ndarray | None:
    """--mean_file's (Caffe) image cropped at its centre to the input's height and width."""
    image = graph.graph.get("mean_image")
    if image is None:
        return None
    name, shape = param.soft_get("name"), param.soft_get("shape", None)
    if opts.mean_values:
        msg = "both --mean_file and --mean_values are given; give one of them (as MO required)"
        raise UsageError(msg)
    c, h, w = image.shape
    if shape is None or len(shape) != 4 or shape[1] != c or not 0 < shape[2] <= h \
            or not 0 < shape[3] <= w:
        msg = (f"--mean_file holds a {c}x{h}x{w} image; input '{name}' has shape "
               f"{list(shape or [])}: it needs [N,{c},H,W] with H <= {h}, W <= {w}")
        raise UsageError(msg)
    top, left = (h - shape[2]) // 2, (w - shape[3]) // 2
    return image[None, :, top:top + shape[2], left:left + shape[3]]


def _preprocess(graph: Graph, param: Node, opts: ConvertOptions, original: bool) -> None:
    name = param.soft_get("name")
    mean = opts.mean_values.get(name, opts.mean_values.get(None))
    scale = opts.scale_values.get(name, opts.scale_values.get(None))
    if opts.scale is not None and original:  # MO: --scale leaves inputs made by a cut alone
        scale = [opts.scale]
    image = _mean_image(graph, param, opts) if original else None
    shape = param.soft_get("shape", None)
    if not (mean or scale or opts.reverse_input_channels or image is not None):
        return
    axis = graph.graph.get("feature_dim", 1)
    if shape is None or len(shape) <= axis:
        msg = (f"input '{name}' needs a known rank for mean/scale/reverse channels; "
               "set --input_shape")
        raise UsageError(msg)
    channels = shape[axis]
    target = param.out_port(0).get_destinations()
    src = param.out_port(0)
    bshape = [1] * len(shape)

    def chain(type_name: str, value: np.ndarray, **attrs) -> Port:
        const = Op.builtin_ops["Const"](graph).create_node(
            attrs={"name": f"{name}/{type_name}_value", "value": value}
        )
        node = Op.builtin_ops[type_name](graph).create_node(
            [src, const.out_port(0)], attrs={"name": f"{name}/{type_name}", **attrs}
        )
        return node.out_port(0)

    dtype = np.dtype(param.soft_get("element_type", np.float32))
    for flag, values in (("--mean_values", mean), ("--scale_values", scale)):
        if values and channels >= 0 and len(values) not in (1, channels):
            msg = f"{flag} gives {len(values)} values but input '{name}' has {channels} channels"
            raise UsageError(msg)
    if opts.reverse_input_channels and channels == 3:
        src = chain("Gather", np.array([2, 1, 0], dtype=np.int64), batch_dims=0)
        gather = src.node
        axis_const = Op.builtin_ops["Const"](graph).create_node(
            attrs={"name": f"{name}/reverse_axis", "value": np.array(axis, dtype=np.int64)}
        )
        axis_const.out_port(0).connect(gather.in_port(2))
    if image is not None:
        src = chain("Subtract", image.astype(dtype))
    if mean and any(mean):
        bshape[axis] = len(mean)
        src = chain("Subtract", np.array(mean, dtype=dtype).reshape(bshape))
    if scale and any(s != 1 for s in scale):
        bshape[axis] = len(scale)
        inverse = 1.0 / np.array(scale, dtype=np.float64)
        src = chain("Multiply", inverse.astype(dtype).reshape(bshape))
    for dst in target:
        src.connect(dst)


def _check_value_names(params: list[Node], opts: ConvertOptions) -> None:
    """--mean_values/--scale_values may name only inputs the model has (as MO checks)."""
    names = [p.soft_get("name") for p in params]
    flags = (("--mean_values", opts.mean_values), ("--scale_values", opts.scale_values))
    for flag, values in flags:
        for name in values:
            if name is not None and name not in names:
                raise not_in_model(flag, name, "input", names)


def _named(specs: list[InputSpec], params: list[Node], shapes: bool) -> list[InputSpec]:
    """ovc's unnamed --input shapes ([1,3,224,224],[1,10]) for the model's inputs in order."""
    if not specs or specs[0].name is not None:
        return specs
    names = [p.soft_get("name") for p in params]
    if shapes:
        msg = "--input [shape] and --input_shape both give the input shapes; give them once"
        raise UsageError(msg)
    if len(specs) != len(names):
        shown = [format_bounded(s.shape, s.bounds or (None,) * len(s.shape)) for s in specs]
        example = ",".join(f"{n}[{shown[i] if i < len(shown) else '...'}]"
                           for i, n in enumerate(names))
        msg = (f"--input gives {len(specs)} shape(s) without names but the model has "
               f"{len(names)} inputs ({', '.join(names)}); name them: --input {example}")
        raise UsageError(msg)
    return [InputSpec(n, s.shape, s.dtype, s.value, s.bounds) for n, s in zip(names, specs)]


def apply_input_options(graph: Graph, opts: ConvertOptions) -> None:
    originals = {p.soft_get("name") for p in _parameters(graph)}
    shapes = list(opts.input_shape or [])
    specs = _named(list(opts.inputs or []), _parameters(graph), bool(shapes))
    if not specs and shapes:
        params = _parameters(graph)
        if len(shapes) != len(params):
            msg = (
                f"--input_shape gives {len(shapes)} shape(s) but the model has {len(params)} "
                "inputs; name them with --input"
            )
            raise UsageError(msg)
        specs = [InputSpec(p.soft_get("name")) for p in params]
    if shapes and len(shapes) != len(specs):
        msg = f"--input_shape gives {len(shapes)} shape(s) for {len(specs)} --input name(s)"
        raise UsageError(msg)
    bounds = opts.input_shape_bounds or [None] * len(shapes)
    for i, spec in enumerate(specs):
        if shapes:
            _apply_input(graph, spec, shapes[i], bounds[i])
        else:
            _apply_input(graph, spec, spec.shape, spec.bounds)
    for spec in opts.freeze:
        _apply_input(graph, spec, None, None, "--freeze_placeholder_with_value")
    if opts.outputs:
        _apply_outputs(graph, opts.outputs)
    params = _parameters(graph)
    apply_batch(params, opts)
    _check_value_names(params, opts)
    for param in params:
        _preprocess(graph, param, opts, param.soft_get("name") in originals)
    apply_layouts(graph, params, opts)
