"""Read an MXNet model (`<prefix>-symbol.json` + `<prefix>-<epoch>.params`) into a front-stage
Graph.

"null" nodes become Consts when the .params file holds them ("arg:"/"aux:" names) and Parameters
otherwise; the label inputs of the training heads (SoftmaxOutput, ...) are dropped, as MO did.
Every other node keeps its JSON dict as `node.symbol_dict` (and `node.pb`) for the extractors.
MXNet files hold no input shapes, so each input needs one from --input_shape or --input
(or a `__shape__` attribute in the symbol).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from converter.errors import InputFileError, ModelFormatError, UsageError
from converter.front.mxnet.attrs import get_mxnet_layer_attrs
from converter.front.mxnet.gluoncv_ssd import rewrite_gluoncv_ssd
from converter.front.mxnet.nd_params import nd_weights, uses_nd
from converter.front.mxnet.params import DTYPES, load_params
from converter.front.mxnet.symbol import Symbol, read_symbol
from converter.graph.graph import Graph, Node
from converter.ops.op import Op
from converter.options import ConvertOptions

__all__ = ["load", "model_files", "symbol_to_graph"]

# training heads whose inputs after the first are labels
_LABEL_OPS = {"SoftmaxOutput", "Softmax", "LinearRegressionOutput", "LogisticRegressionOutput",
              "MAERegressionOutput", "SVMOutput"}
_EPOCH = re.compile(r"^(?P<prefix>.+)-(?P<epoch>\d+)$")


def model_files(opts: ConvertOptions) -> tuple[Path, Path]:
    """(params, symbol): --input_model is the .params (or the -symbol.json); the other is
    derived from its name."""
    model = Path(opts.input_model)
    if not model.is_file():
        msg = f"{model}: no such model file"
        raise InputFileError(msg)
    if model.suffix.lower() == ".json":
        symbol = model
        name = model.name
        prefix = name[: -len("-symbol.json")] if name.endswith("-symbol.json") else model.stem
        epochs = {int(m["epoch"]): p for p in model.parent.glob("*.params")
                  if (m := _EPOCH.match(p.stem)) and m["prefix"] == prefix}
        found = [epochs[e] for e in sorted(epochs)]
        if not found:
            msg = (f"{model}: no {prefix}-<epoch>.params beside the symbol file; "
                   "pass the .params file as --input_model")
            raise InputFileError(msg)
        return found[-1], symbol
    if opts.input_symbol is not None:
        return model, Path(opts.input_symbol)
    match = _EPOCH.match(model.stem)
    if match is None:
        msg = (f"{model}: cannot derive the symbol file from this name (expected "
               "<prefix>-<epoch>.params, e.g. model-0000.params); pass --input_symbol")
        raise UsageError(msg)
    symbol = model.with_name(f"{match['prefix']}-symbol.json")
    if not symbol.is_file():
        msg = (f"{symbol}: no such MXNet symbol file (the companion of {model.name}); "
               "pass --input_symbol")
        raise InputFileError(msg)
    return model, symbol


def _labels(symbol: Symbol, stored: set[str]) -> set[int]:
    """Indices of the null nodes fed only into label inputs of training heads."""
    uses: dict[int, list[bool]] = {}
    for node in symbol.nodes:
        for port, entry in enumerate(node.get("inputs", [])):
            uses.setdefault(entry[0], []).append(node["op"] in _LABEL_OPS and port >= 1)
    return {
        i for i, flags in uses.items()
        if all(flags) and symbol.nodes[i]["op"] == "null" and symbol.nodes[i]["name"] not in stored
    }


def _output_counts(symbol: Symbol) -> list[int]:
    counts = [1] * len(symbol.nodes)
    for node in symbol.nodes:
        for entry in node.get("inputs", []):
            counts[entry[0]] = max(counts[entry[0]], entry[1] + 1)
    for src, out in symbol.heads:
        counts[src] = max(counts[src], out + 1)
    return counts


def _parameter(graph: Graph, node: dict, path: Path) -> Node:
    """The input `node`: its __shape__ (0 or -1: unknown, and then it has none) must be one
    MXNet can mean, its __dtype__ an mshadow type flag the converter reads."""
    attrs = get_mxnet_layer_attrs(node)
    shape = attrs.tuple("__shape__", int, None)
    flag = attrs.int("__dtype__", 0)
    where = f"{path}: input '{node['name']}'"
    if shape and any(d is not None and d < -1 for d in shape):
        msg = (f"{where} has the __shape__ {list(shape)}; a dimension is a size >= 0 "
               "(0 or -1: unknown): fix the symbol file")
        raise ModelFormatError(msg)
    if flag not in DTYPES:
        msg = (f"{where} has the __dtype__ {flag}, not one of MXNet's types the converter "
               f"reads ({', '.join(map(str, DTYPES))}): fix the symbol file")
        raise ModelFormatError(msg)
    return Op.builtin_ops["Parameter"](graph).create_node(attrs={
        "name": node["name"],
        "shape": tuple(shape) if shape and all(d is not None and d > 0 for d in shape) else None,
        "element_type": DTYPES[flag].newbyteorder("="),
    })


def _const(graph: Graph, name: str, value: np.ndarray) -> Node:
    if value.dtype.kind == "f":
        value = value.astype(np.float32, copy=False)  # as MO: weights become float32
    return Op.builtin_ops["Const"](graph).create_node(attrs={"name": name, "value": value})


def symbol_to_graph(symbol: Symbol, args: dict[str, np.ndarray], aux: dict[str, np.ndarray],
                    name: str = "model") -> Graph:
    """Front-stage graph: Parameter/Const/framework nodes/Result."""
    graph = Graph()
    graph.graph.update(fw="mxnet", layout="NCHW", feature_dim=1, name=name)
    stored = {**args, **aux}
    labels = _labels(symbol, set(stored))
    counts = _output_counts(symbol)
    producers: list[Node | None] = []
    inputs: list[str] = []
    for i, nd in enumerate(symbol.nodes):
        if nd["op"] == "null":
            if nd["name"] in stored:
                producers.append(_const(graph, nd["name"], stored[nd["name"]]))
            elif i in labels:
                producers.append(None)
                continue
            else:
                producers.append(_parameter(graph, nd, symbol.path))
                inputs.append(nd["name"])
            producers[-1].out_port(0).add_tensor_names([nd["name"]])
            continue
        op = nd["op"]
        if op == "Custom":
            op = get_mxnet_layer_attrs(nd).str("op_type", None) or "Custom"
        node_id = graph.unique_id(nd["name"])
        graph.add_node(node_id, kind="op", op=op, name=nd["name"], pb=nd, symbol_dict=nd,
                       in_ports_count=len(nd.get("inputs", [])), out_ports_count=counts[i])
        node = Node(graph, node_id)
        node.update_node()
        for port, entry in enumerate(nd.get("inputs", [])):
            src = producers[entry[0]]
            if src is not None:
                src.out_port(entry[1]).connect(node.in_port(port))
        for out in range(counts[i]):
            name = nd["name"]
            names = [name, f"{name}_output"] if out == 0 else [f"{name}_output{out}"]
            node.out_port(out).add_tensor_names(names)
        producers.append(node)
    order = []
    for src, out in symbol.heads:
        producer = producers[src]
        if producer is None:
            continue
        head = symbol.nodes[src]["name"]
        result = Op.builtin_ops["Result"](graph).create_node(
            attrs={"name": f"{head}/sink_port_{out}"})
        producer.out_port(out).connect(result.in_port(0))
        order.append(head if out == 0 else f"{head}_output{out}")
    graph.graph["output_order"] = order
    graph.graph["input_order"] = inputs
    return graph


def _check_input_shapes(graph: Graph, opts: ConvertOptions, symbol_path: Path) -> None:
    """MXNet stores no input shapes (MO FAQ #16): every input must get one."""
    params = graph.get_op_nodes(op="Parameter")
    names = {p.soft_get("name") for p in params}
    given: set[str] = set()
    specs = list(opts.inputs or [])
    if opts.input_shape:
        given |= {s.name for s in specs} if specs else names
    given |= {s.name for s in specs if s.shape is not None or s.value is not None}
    if any(s.name not in names for s in specs):
        return  # --input cuts the model at an inner tensor; the cut decides the inputs
    missing = [p.soft_get("name") for p in params if p.soft_get("shape", None) is None
               and p.soft_get("name") not in given]
    if missing:
        listed = ", ".join(f"'{m}'" for m in missing)
        many = len(missing) > 1
        msg = (f"{symbol_path.name}: MXNet models store no input shapes; "
               f"input{'s' if many else ''} {listed} need{'' if many else 's'} one: pass "
               f"--input_shape (e.g. [1,3,224,224]) or --input {missing[0]}[...]")
        raise UsageError(msg)


def load(opts: ConvertOptions) -> Graph:
    if uses_nd(opts):
        symbol_path, args, aux = nd_weights(opts)
        name = symbol_path.name.removesuffix(".json").removesuffix("-symbol")
    else:
        params_path, symbol_path = model_files(opts)
        args, aux = load_params(params_path)
        match = _EPOCH.match(params_path.stem)
        name = match["prefix"] if match else params_path.stem
    symbol = read_symbol(symbol_path)
    if opts.enable_ssd_gluoncv:
        symbol = rewrite_gluoncv_ssd(symbol)
    graph = symbol_to_graph(symbol, args, aux, name)
    _check_input_shapes(graph, opts, symbol_path)
    return graph
