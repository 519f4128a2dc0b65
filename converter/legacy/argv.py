"""MO's command line and graph-level facts as MO 2023.3's own passes read them:
graph.graph['cmd_params'] is an argparse.Namespace (so `'name' in argv` works) holding MO's
post-parsing fields (data_type, input, placeholder_shapes, output, layout_values, ...) beside
extgen's own options, and graph.graph holds what MO's UserDataRepack, TF loader and
AddIsCyclicAttribute set (user_shapes, packed_outputs, freeze_placeholder, inputs,
variables_values, is_cyclic).

extgen applies --input/--output/--freeze_placeholder_with_value itself before the front passes,
so the repacked inputs describe the Parameters that cut left, each marked as MO marks an input
its InputCut already made ('added'): MO's add_input_ops leaves them as they are.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

import numpy as np

from converter.graph.graph import Graph
from converter.options import ConvertOptions, InputSpec

__all__ = ["mo_argv", "set_graph_facts", "set_is_cyclic"]


def _partial_shape(shape: tuple, bounds: tuple | None = None) -> Any:
    """An extgen shape (-1 dynamic; bounds per dimension) as MO's openvino PartialShape; without
    openvino (not an extgen dependency), the int64 array older MO releases held."""
    try:
        from openvino import Dimension, PartialShape
    except ImportError:
        return np.array(shape, dtype=np.int64)

    dims = []
    for i, d in enumerate(shape):
        bound = bounds[i] if bounds and i < len(bounds) else None
        dims.append(Dimension(*bound) if bound else Dimension(int(d)))
    return PartialShape(dims)


def _shape_text(shape: tuple) -> str:
    return "[" + ",".join("?" if d < 0 else str(d) for d in shape) + "]"


def _named(specs: list[InputSpec]) -> list[InputSpec]:
    return [s for s in specs if s.name is not None]


def _placeholders(opts: ConvertOptions) -> tuple[list, Any, dict]:
    """MO's (inputs_list, placeholder_shapes, placeholder_data_types) for --input/--input_shape:
    ([], None, {}) without either; a PartialShape (a list for several) for --input_shape alone;
    {name: PartialShape or None} when --input names the inputs."""
    specs, shapes = _named(list(opts.inputs or [])), list(opts.input_shape or [])
    bounds = list(opts.input_shape_bounds or [None] * len(shapes))
    types = {s.name: s.dtype.type for s in specs if s.dtype is not None}
    if any(s.shape is not None for s in specs):
        return ([s.name for s in specs],
                {s.name: None if s.shape is None else _partial_shape(s.shape, s.bounds)
                 for s in specs}, types)
    if specs:
        given = [_partial_shape(s, b) for s, b in zip(shapes, bounds)]
        return ([s.name for s in specs],
                {s.name: given[i] if i < len(given) else None for i, s in enumerate(specs)},
                types)
    if shapes:
        given = [_partial_shape(s, b) for s, b in zip(shapes, bounds)]
        return [], given[0] if len(given) == 1 else given, types
    return [], None, types


def _layout_values(opts: ConvertOptions) -> dict:
    """MO's {name ('' for the only input): {'source_layout', 'target_layout'}}."""
    def text(dims: list[str] | None) -> str | None:
        return None if dims is None else "[" + ",".join(dims) + "]"

    return {spec.name or "": {"source_layout": text(spec.source),
                              "target_layout": text(spec.target)} for spec in opts.layouts}


def _mean_scale(opts: ConvertOptions) -> dict:
    names = list(opts.mean_values) + [n for n in opts.scale_values if n not in opts.mean_values]
    return {name or "": {"mean": opts.mean_values.get(name), "scale": opts.scale_values.get(name)}
            for name in names}


def mo_argv(opts: ConvertOptions) -> argparse.Namespace:
    """extgen's options as MO's argv after its argument post-parsing: every ConvertOptions field
    under its own name, plus MO's names and forms for the same flags."""
    argv = argparse.Namespace(**{f.name: getattr(opts, f.name)
                                 for f in dataclasses.fields(opts)})
    specs = _named(list(opts.inputs or []))
    inputs_list, shapes, types = _placeholders(opts)
    shape_text = ",".join(map(_shape_text, opts.input_shape or [])) or None
    vars(argv).update(
        data_type="FP32",  # MO's fp16 compression happens after its passes, as extgen's does
        input=",".join(s.name for s in specs) or None,
        input_shape=shape_text,
        inputs_list=inputs_list, placeholder_shapes=shapes, placeholder_data_types=types,
        freeze_placeholder_with_value={s.name: s.value for s in list(opts.freeze) + specs
                                       if s.value is not None},
        unnamed_freeze_placeholder_with_value={},
        output=list(opts.outputs) if opts.outputs else None,
        layout_values=_layout_values(opts),
        mean_scale_values=_mean_scale(opts),
        transform=opts.transforms,
        input_model=str(opts.input_model), output_dir=str(opts.output_dir),
        silent=True, use_legacy_frontend=True, use_new_frontend=False,
        is_python_api_used=False)
    return argv


def _repacked_inputs(graph: Graph, argv: argparse.Namespace) -> dict | None:
    """MO's user_shapes once its InputCut ran: {Parameter id: [{'shape', 'port': None,
    'added': True (, 'data_type')}]} for the inputs the user named or shaped; None when neither
    --input nor --input_shape was given."""
    given = argv.placeholder_shapes
    if given is None and not argv.inputs_list:
        return None
    params = {p.soft_get("name", p.id): p for p in graph.get_op_nodes(op="Parameter")}
    if isinstance(given, dict) or given is None:
        shapes = {name: (given or {}).get(name) for name in argv.inputs_list}
    else:  # --input_shape alone: the model's inputs in order
        listed = given if isinstance(given, list) else [given]
        shapes = dict(zip(params, listed))
    packed: dict[str, list[dict]] = {}
    for name, shape in shapes.items():
        if name not in params:
            continue
        info = {"shape": shape, "port": None, "added": True}
        if name in argv.placeholder_data_types:
            info["data_type"] = argv.placeholder_data_types[name]
        packed[params[name].id] = [info]
    return packed


def _repacked_outputs(graph: Graph, argv: argparse.Namespace) -> dict | None:
    """MO's packed_outputs: {node id: [{'out': port}]} of the tensors extgen's --output cut made
    outputs; None without --output."""
    if argv.output is None:
        return None
    packed: dict[str, list[dict]] = {}
    for result in graph.get_op_nodes(op="Result"):
        source = result.in_port(0).get_source()
        packed.setdefault(source.node.id, []).append({"out": source.idx})
    return packed


def set_graph_facts(graph: Graph, argv: argparse.Namespace, fw: str) -> None:
    """What MO's UserDataRepack (and, for TensorFlow, its loader) leave in graph.graph."""
    user_shapes = _repacked_inputs(graph, argv)
    graph.graph["user_shapes"] = user_shapes
    graph.graph["packed_outputs"] = _repacked_outputs(graph, argv)
    graph.graph["freeze_placeholder"] = dict(argv.freeze_placeholder_with_value)
    graph.graph["inputs"] = list(user_shapes) if user_shapes is not None else None
    argv.packed_user_shapes = user_shapes
    if fw == "tf":  # extgen's TF loader already froze the variables
        graph.graph.setdefault("variables_values", {})


def set_is_cyclic(graph: Graph) -> None:
    """MO's AddIsCyclicAttribute: whether the graph has a cycle."""
    graph.graph["is_cyclic"] = graph.has_cycle()
