"""TensorFlow models with their variables apart, made into one frozen GraphDef: a SavedModel
folder (saved_model.pb + variables/), a MetaGraphDef (.meta) with its checkpoint, or a GraphDef
with --input_checkpoint.

Functions are inlined first (Keras 3 keeps the whole model in the library). The checkpoint key
of each variable: in a TF 2.x SavedModel, a function call's captured inputs are objects of the
object graph (`bound_inputs`), whose keys the checkpoint's own object graph lists; in TF 1.x,
the graph's restore code, `Assign(variable, RestoreV2:k)` with `tensor_names[k]`, else the
variable's node name. Variables become Consts, and only what the outputs need is kept: the
signature's outputs for a SavedModel, else everything but the saver and the initializers.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from converter.errors import InputFileError, ModelFormatError, UsageError
from converter.front.proto import load_proto
from converter.front.tf.attrs import get_tf_node_port, tf_tensor_content, tf_tensor_shape
from converter.front.tf.checkpoint import object_graph_keys, read_checkpoint
from converter.front.tf.functions import inline_functions
from converter.front.tf.loader import PROTO_DIR
from converter.front.tf.writer import set_attr

__all__ = ["freeze", "load_meta_graph", "load_saved_model"]

_VARIABLES = {"VarHandleOp", "VariableV2", "Variable"}
_ASSIGNS = {"Assign", "AssignVariableOp"}
_PASS = {"Identity", "IdentityN", "ReadVariableOp"}
_SAVER = {"SaveV2", "RestoreV2", "Save", "Restore", "MergeV2Checkpoints"}


def _parse(path: Path, message: str):
    if not path.is_file():
        msg = f"{path}: no such file"
        raise InputFileError(msg)
    pb = load_proto(PROTO_DIR / "saved_model.proto")[f"tensorflow.{message}"]()
    try:
        pb.ParseFromString(path.read_bytes())
    except Exception:  # noqa: BLE001 - protobuf raises several kinds for corrupt bytes
        msg = f"{path}: not a valid TensorFlow {message} (truncated or corrupt protobuf)"
        raise ModelFormatError(msg) from None
    return pb


def _source(nodes: dict, tensor: str) -> tuple[str, int]:
    """The tensor behind a chain of Identity nodes."""
    name, port = get_tf_node_port(tensor.lstrip("^"))
    while name in nodes and nodes[name].op in _PASS:
        data = [i for i in nodes[name].input if not i.startswith("^")]
        if nodes[name].op != "IdentityN":
            port = 0
        if port >= len(data):
            break
        name, port = get_tf_node_port(data[port])
    return name, port


def _restore_keys(nodes: dict) -> dict[str, str]:
    """Variable node name -> checkpoint key, from the restore code's assignments."""
    keys = {}
    for node in nodes.values():
        if node.op not in _ASSIGNS or len(node.input) < 2:
            continue
        var, _ = _source(nodes, node.input[0])
        restore, port = _source(nodes, node.input[1])
        if restore in nodes and nodes[restore].op in ("RestoreV2", "Restore"):
            names_node = nodes.get(_source(nodes, nodes[restore].input[1])[0])
            if names_node is not None and names_node.op == "Const":
                tensor = names_node.attr["value"].tensor
                names = tf_tensor_content(tensor.dtype, tf_tensor_shape(tensor.tensor_shape),
                                          tensor).reshape(-1)
                if port < names.size:
                    keys[var] = str(names[port])
    return keys


def _capture_keys(nodes: dict, bound: dict[str, list[int]], ids: list[str | None]):
    """Variable node name -> checkpoint key for the captured inputs of calls (TF 2.x)."""
    keys = {}
    for node in nodes.values():
        fn = node.attr["f"].func.name if "f" in node.attr else node.op
        objects = bound.get(fn, [])
        data = [i for i in node.input if not i.startswith("^")]
        if not objects or len(objects) > len(data):
            continue
        for tensor, obj in zip(data[-len(objects):], objects, strict=True):
            var, _ = _source(nodes, tensor)
            if 0 <= obj < len(ids) and ids[obj] is not None:
                keys.setdefault(var, ids[obj])
    return keys


def _needed(nodes: dict, outputs: list[str]) -> set[str]:
    """The nodes the outputs depend on (data inputs only)."""
    keep, stack = set(), [get_tf_node_port(o)[0] for o in outputs]
    while stack:
        name = stack.pop()
        if name in keep or name not in nodes:
            continue
        keep.add(name)
        stack.extend(get_tf_node_port(i)[0] for i in nodes[name].input if not i.startswith("^"))
    return keep


def _without_saver(nodes: dict, filename: str | None) -> set[str]:
    """Every node but the saver (what depends on its filename tensor), the assignments and
    what feeds only those."""
    consumers: dict[str, list[str]] = {n: [] for n in nodes}
    for node in nodes.values():
        for i in node.input:
            src = get_tf_node_port(i.lstrip("^"))[0]
            if src in consumers:
                consumers[src].append(node.name)
    drop = {n for n, node in nodes.items() if node.op in _ASSIGNS | {"VarIsInitializedOp"}}
    stack = [get_tf_node_port(filename)[0]] if filename else []
    stack += [get_tf_node_port(n.input[0])[0] for n in nodes.values()
              if n.op in _SAVER and n.input]  # the saver's filename, when no MetaGraph says
    while stack:
        name = stack.pop()
        if name in nodes and name not in drop:
            drop.add(name)
            stack.extend(consumers[name])
    changed = True
    while changed:
        changed = False
        for name in nodes:
            if name not in drop and consumers[name] and all(c in drop for c in consumers[name]):
                drop.add(name)
                changed = True
    return set(nodes) - drop


def freeze(graph_def, prefix: Path, filename: str | None = None,
           outputs: list[str] | None = None, bound: dict[str, list[int]] | None = None):
    """graph_def with its functions inlined, variables read from the checkpoint at prefix, and
    only the nodes the outputs (default: all but saver and initializers) need; bound: the
    object ids each function captures (a SavedModel's)."""
    nodes = {n.name: n for n in graph_def.node}
    keep = None if outputs else _without_saver(nodes, filename)
    values = read_checkpoint(prefix) if _VARIABLES & {n.op for n in graph_def.node} else {}
    keys = _capture_keys(nodes, bound or {}, object_graph_keys(values))
    inline_functions(graph_def)
    nodes = {n.name: n for n in graph_def.node}
    keys = {**_restore_keys(nodes), **keys}
    keep = _needed(nodes, outputs) if outputs else keep
    kept = [nodes[n] for n in nodes if n in keep]
    for node in kept:
        if node.op in _VARIABLES:
            key = keys.get(node.name, node.name)
            if key not in values:
                msg = (f"variable '{node.name}' has no value in the checkpoint {prefix} "
                       f"(key '{key}'); give the checkpoint saved with this graph")
                raise ModelFormatError(msg)
            _make_const(node, values[key])
    del graph_def.node[:]
    graph_def.node.extend(kept)
    return graph_def


def _make_const(node, value: np.ndarray) -> None:
    node.op = "Const"
    del node.input[:]
    node.attr.clear()
    set_attr(node.attr["dtype"], value.dtype)
    set_attr(node.attr["value"], np.ascontiguousarray(value))


def _outputs(graph_def, signature) -> list[str]:
    """The node of each signature output: an Identity named after its key, or, where the graph
    already has a node of that name (TF1's simple_save keys name the output ops themselves),
    that node when it is the output, else an Identity named `<key>/output`; their names."""
    existing = {n.name for n in graph_def.node}
    names = []
    for key in sorted(signature.outputs):
        tensor = signature.outputs[key].name
        if key in existing and get_tf_node_port(tensor) == (key, 0):
            names.append(key)
            continue
        name = key if key not in existing else f"{key}/output"
        node = graph_def.node.add(name=name, op="Identity")
        node.input.append(tensor)
        names.append(name)
    return names


def load_saved_model(folder: Path, tags: list[str] | None = None,
                     signature: str = "serving_default"):
    """The frozen GraphDef of a SavedModel folder's meta graph (tags, default 'serve')."""
    model = _parse(folder / "saved_model.pb", "SavedModel")
    want = set(tags or ["serve"])
    graphs = [m for m in model.meta_graphs if set(m.meta_info_def.tags) == want]
    if not graphs:
        have = "; ".join(",".join(m.meta_info_def.tags) for m in model.meta_graphs)
        msg = (f"{folder}: no meta graph with tags {','.join(sorted(want))} (it has: {have}); "
               "choose them with --saved_model_tags")
        raise UsageError(msg)
    meta = graphs[0]
    if signature not in meta.signature_def:
        msg = (f"{folder}: no signature '{signature}' (it has: "
               f"{', '.join(sorted(meta.signature_def))})")
        raise ModelFormatError(msg)
    graph_def = meta.graph_def
    outputs = _outputs(graph_def, meta.signature_def[signature])
    bound = {name: list(fn.bound_inputs)
             for name, fn in meta.object_graph_def.concrete_functions.items()}
    return freeze(graph_def, folder / "variables" / "variables", outputs=outputs, bound=bound)


def load_meta_graph(path: Path, checkpoint: Path | None = None):
    """The frozen GraphDef of a .meta file and its checkpoint (default: the .meta's prefix)."""
    meta = _parse(path, "MetaGraphDef")
    prefix = checkpoint or path.with_suffix("")
    return freeze(meta.graph_def, prefix, meta.saver_def.filename_tensor_name or None)
