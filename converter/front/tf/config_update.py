"""--tensorflow_custom_operations_config_update FILE (MO's TensorflowCustomOperationsConfigUpdate):
fill in a transformations config's sub-graph boundaries from the model, and rewrite the file.

A `scope` description without `inputs`/`outputs` (or with empty lists) gets them: each tensor
entering the scope is one input, listing its consumers inside as {node, port}; each tensor
leaving it, and each scope node nobody reads (Consts aside), is an output. Node patterns are
relative to the scope, as short as still names one node (`conv/Conv2D$`). A `points`
description is rewritten in MO's form (the include_*_to_sub_graph flags written out; MO wrote
no inputs/outputs for it either). `general` descriptions are kept as they are (MO stopped on
them). The file is written as MO wrote it: 4-space indent, keys sorted."""

from __future__ import annotations

import json
import re
from pathlib import Path

from converter.errors import ConversionError, OutputError
from converter.front.tf.replacement_config import CustomReplacementDescriptor, load_descriptions
from converter.graph.graph import Graph

__all__ = ["update_config_file"]

FLAG = "--tensorflow_custom_operations_config_update"


def _relative(names: list[str], scope: str, name: str) -> str:
    """The shortest pattern of name below the scope that matches it alone (MO's
    generate_pattern_for_node)."""
    parts = name.split("/")
    cut = next((i for i in range(len(parts))
                if re.match(scope, "/".join(parts[:i + 1]) + "/")), None)
    if cut is None:
        msg = f"{FLAG}: node '{name}' does not match scope '{scope}'"
        raise ConversionError(msg)
    prefix = scope if scope.endswith("/") else scope + "/"
    suffix = "/".join(parts[cut + 1:]) + "$"
    if sum(1 for n in names if re.match(prefix + suffix, n)) != 1:
        msg = f"{FLAG}: no pattern under scope '{scope}' names node '{name}' alone"
        raise ConversionError(msg)
    return suffix


def _scope_ports(graph: Graph, scope: str) -> tuple[list, list]:
    """MO's inputs (one list of {node, port} per tensor entering) and outputs of a scope."""
    ops = {nid: d for nid, d in graph.nodes(data=True)
           if d.get("kind") == "op" and d.get("op") != "Result"}
    names = [d["name"] for d in ops.values()]
    inside = {nid for nid, d in ops.items() if re.match(scope, d["name"])}
    entering: dict[str, list[tuple[str, int]]] = {}
    leaving: set[tuple[str, int]] = set()
    for u, v, d in graph.edges(data=True):
        if u not in ops or v not in ops:
            continue
        if u not in inside and v in inside:
            entering.setdefault(f"{ops[u]['name']}:{d['out']}", []).append(
                (_relative(names, scope, ops[v]["name"]), d["in"]))
        elif u in inside and v not in inside:
            leaving.add((_relative(names, scope, ops[u]["name"]), d["out"]))
    for nid in inside:
        read = any(v in ops for v in graph.successors(nid))
        if not read and ops[nid].get("op") != "Const":
            leaving.add((_relative(names, scope, ops[nid]["name"]), 0))
    inputs = [[{"node": n, "port": p} for n, p in group] for group in sorted(entering.values())]
    return inputs, [{"node": n, "port": p} for n, p in sorted(leaving)]


def _written(raw: dict, desc: CustomReplacementDescriptor, graph: Graph) -> dict:
    """The description as MO's get_config_file_representation wrote it."""
    if desc.match_kind == "general":
        return raw
    out = {"match_kind": desc.match_kind, "instances": desc.instances, "id": desc.id,
           "custom_attributes": desc.custom_attributes}
    if desc.op is not None:
        out["op"] = desc.op
    if desc.match_kind == "points":
        out["include_inputs_to_sub_graph"] = desc.include_inputs_to_sub_graph
        out["include_outputs_to_sub_graph"] = desc.include_outputs_to_sub_graph
        return out
    inputs, outputs = _scope_ports(graph, desc.instances[0])
    out["inputs"] = desc.inputs or inputs
    out["outputs"] = desc.outputs or outputs
    return out


def update_config_file(graph: Graph, path: Path) -> None:
    """Rewrite the config at path with each description's boundaries filled in from graph
    (the front-stage TF graph, node names as in the GraphDef)."""
    written = [_written(raw, desc, graph) for raw, desc in load_descriptions(path, FLAG)]
    try:
        Path(path).write_text(json.dumps(written, indent=4, sort_keys=True))
    except OSError as err:
        msg = f"{FLAG} {path}: cannot write it ({err})"
        raise OutputError(msg) from None
