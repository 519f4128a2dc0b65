"""--layout / --source_layout / --target_layout and --batch, as MO applied them: a layout is
metadata on the input's (or output's) tensor in the IR (rt_info `layout`), and source->target
inserts a Transpose so that the IR's input (output) has the target layout."""

from __future__ import annotations

import numpy as np

from converter.errors import UsageError
from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.ops.op import Op
from converter.options import ConvertOptions, LayoutSpec

__all__ = ["apply_batch", "apply_layouts", "merged_layouts"]


def merged_layouts(specs: list[LayoutSpec]) -> dict[str | None, LayoutSpec]:
    """One spec per name: --source_layout, --target_layout and --layout items combined."""
    out: dict[str | None, LayoutSpec] = {}
    for spec in specs:
        have = out.setdefault(spec.name, LayoutSpec(spec.name))
        have.source = spec.source or have.source
        have.target = spec.target or have.target
    return out


def _param_for(params: list[Node], name: str | None) -> Node | None:
    if name is None:
        if len(params) != 1:
            names = ", ".join(p.soft_get("name") for p in params)
            msg = (f"a layout without a name fits a model with one input; this one has "
                   f"{len(params)} ({names}): write name(nchw)")
            raise UsageError(msg)
        return params[0]
    for p in params:
        if p.soft_get("name") == name or name in p.out_port(0).get_tensor_names():
            return p
    return None


def apply_batch(params: list[Node], opts: ConvertOptions) -> None:
    """--batch: the N dimension (from the source layout, else the first) of every input."""
    if opts.batch is None:
        return
    layouts = merged_layouts(opts.layouts)
    for param in params:
        name = param.soft_get("name")
        shape = param.soft_get("shape", None)
        if shape is None:
            msg = f"--batch: input '{name}' has an unknown rank; set its shape with --input"
            raise UsageError(msg)
        if not shape:
            continue
        spec = layouts.get(name) or (layouts.get(None) if len(params) == 1 else None)
        layout = spec.source if spec and spec.source else None
        axis = layout.index("N") if layout and "N" in layout and "..." not in layout else 0
        param["shape"] = tuple(opts.batch if i == axis else d for i, d in enumerate(shape))


def _set_layout(port: Port, dims: list[str]) -> None:
    info = port.node._ports("out").setdefault(port.idx, {}).setdefault("rt_info", {})
    info["layout"] = {"layout": "[" + ",".join(dims) + "]"}


def _perm(source: list[str], target: list[str], where: str) -> list[int]:
    """perm with target[perm[i]] == source[i]: Transpose(x in target) is x in source."""
    if sorted(source) != sorted(target) or len(set(source)) != len(source) or "?" in source \
            or "..." in source:
        msg = (f"layout of {where}: {''.join(source)}->{''.join(target)} must name the same "
               "dimensions, each once, with no ? or ...")
        raise UsageError(msg)
    return [target.index(d) for d in source]


def _transpose(graph: Graph, src: Port, perm: list[int], name: str) -> Port:
    """Marked `layout_transpose`: the middle layout pass of a channels-last model cancels it
    against the Transposes around the model's channels-last ops."""
    const = Op.builtin_ops["Const"](graph).create_node(
        attrs={"name": f"{name}/layout_order", "value": np.array(perm, np.int64)})
    node = Op.builtin_ops["Transpose"](graph).create_node(
        [src, const.out_port(0)],
        attrs={"name": f"{name}/layout_transpose", "layout_transpose": True})
    return node.out_port(0)


def _input_layout(graph: Graph, param: Node, spec: LayoutSpec) -> None:
    name = param.soft_get("name")
    source, target = spec.source, spec.target
    shape = param.soft_get("shape", None)
    given = source or target
    if shape is not None and "..." not in given and len(given) != len(shape):
        msg = (f"layout {''.join(given)} has {len(given)} dimensions; "
               f"input '{name}' has {len(shape)}")
        raise UsageError(msg)
    if source and target and source != target:
        perm = _perm(source, target, f"input '{name}'")
        to_target = [source.index(d) for d in target]
        if shape is not None:
            param["shape"] = tuple(shape[i] for i in to_target)
        if param.soft_get("bounds", None) is not None:
            param["bounds"] = tuple(param.bounds[i] for i in to_target)
        dests = param.out_port(0).get_destinations()
        out = _transpose(graph, param.out_port(0), perm, name)
        for dst in dests:
            out.connect(dst)
    _set_layout(param.out_port(0), target or source)


def _output_layout(graph: Graph, port: Port, spec: LayoutSpec) -> None:
    source, target = spec.source, spec.target
    if source and target and source != target:
        name = spec.name or port.node.soft_get("name")
        dests = port.get_destinations()
        out = _transpose(graph, port, _perm(target, source, f"output '{name}'"), name)
        info = port.node._ports("out").get(port.idx, {})
        names = [t for _, t in info.pop("fw_tensor_debug_info", [])]
        out.add_tensor_names(names)
        for dst in dests:
            out.connect(dst)
        port = out
    _set_layout(port, target or source)


def _output_port(graph: Graph, name: str) -> Port | None:
    for result in graph.get_op_nodes(op="Result"):
        port = result.in_port(0).get_source()
        if name in port.get_tensor_names() or port.node.soft_get("name") == name:
            return port
    return None


def apply_layouts(graph: Graph, params: list[Node], opts: ConvertOptions) -> None:
    for name, spec in merged_layouts(opts.layouts).items():
        param = _param_for(params, name)
        if param is not None:
            _input_layout(graph, param, spec)
            continue
        port = _output_port(graph, name)
        if port is None:
            msg = f"layout for '{name}': no input or output of the model has that name"
            raise UsageError(msg)
        _output_layout(graph, port, spec)
