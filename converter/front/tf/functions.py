"""Inline the function calls of a GraphDef: `PartitionedCall`/`StatefulPartitionedCall` (attr
`f`), or a node whose op names a function of the graph's library. Keras 3 writes whole models
(SavedModel) and some layers (depthwise convolution) as such calls.

A call node `C` becomes: one Identity `C/<arg>` per input argument, the body's nodes renamed
`C/<node>`, and an IdentityN `C` over the body's results, so `C:k` still names output k.
Inside a body an input reads `node:out_arg:index`; it becomes the flat port `C/node:k`
(the out_arg's position among the op's output arguments, for the few ops with several).
"""

from __future__ import annotations

from converter.errors import ModelFormatError

__all__ = ["CALL_OPS", "function_nodes", "inline_calls", "inline_functions"]

CALL_OPS = {"PartitionedCall", "StatefulPartitionedCall"}
_MAX_DEPTH = 64  # nested calls deeper than this are a corrupt (recursive) library
# ops with several output arguments: their names, in port order (TF's op registry)
_OUTPUT_ARGS = {
    "FusedBatchNorm": ("y", "batch_mean", "batch_variance", "reserve_space_1",
                       "reserve_space_2"),
    "FusedBatchNormV3": ("y", "batch_mean", "batch_variance", "reserve_space_1",
                         "reserve_space_2", "reserve_space_3"),
    "Unique": ("y", "idx"),
    "TopKV2": ("values", "indices"),
    "Switch": ("output_false", "output_true"),
    "Merge": ("output", "value_index"),
    "NonMaxSuppressionV4": ("selected_indices", "valid_outputs"),
    "NonMaxSuppressionV5": ("selected_indices", "selected_scores", "valid_outputs"),
    "CombinedNonMaxSuppression": ("nmsed_boxes", "nmsed_scores", "nmsed_classes",
                                  "valid_detections"),
    "MaxPoolWithArgmax": ("output", "argmax"),
    "UniqueWithCounts": ("y", "idx", "count"),
    "BroadcastGradientArgs": ("r0", "r1"),
}
_OUTPUT_ARGS["FusedBatchNormV2"] = _OUTPUT_ARGS["FusedBatchNorm"]


def _callee(node, functions: dict) -> str | None:
    if node.op in CALL_OPS and "f" in node.attr:
        return node.attr["f"].func.name
    return node.op if node.op in functions else None


def _port(ops: dict[str, str], functions: dict, node: str, arg: str, index: int) -> int:
    """The flat output port of `node:arg:index` in a function body."""
    op = ops.get(node, "")
    if op in functions:
        names = [a.name for a in functions[op].signature.output_arg]
        return names.index(arg) if arg in names else index
    names = _OUTPUT_ARGS.get(op, ())
    return names.index(arg) + index if arg in names else index


def _body_input(ref: str, prefix: str, ops: dict[str, str], functions: dict) -> str:
    """A body input reference, renamed into the caller's graph."""
    control = ref.startswith("^")
    name = ref.lstrip("^")
    parts = name.split(":")
    if len(parts) == 3:
        port = _port(ops, functions, parts[0], parts[1], int(parts[2]))
        name = f"{parts[0]}:{port}" if port else parts[0]
    elif len(parts) == 2 and parts[1] == "0":
        name = parts[0]
    return ("^" if control else "") + prefix + name


def function_nodes(fdef, functions: dict, prefix: str,
                   args: dict[str, str] | None = None) -> tuple[list, list[str]]:
    """fdef's nodes renamed `prefix<node>` with GraphDef-style inputs, and its results as
    GraphDef tensor names. An input argument `a` reads `args[a]` when given, else `prefix<a>`."""
    args = args or {}
    ops = {n.name: n.op for n in fdef.node_def}

    def ref(tensor: str) -> str:
        bare = tensor.lstrip("^")
        if bare in args:
            return ("^" if tensor.startswith("^") else "") + args[bare]
        return _body_input(tensor, prefix, ops, functions)

    nodes = []
    for body in fdef.node_def:
        node = type(body)()
        node.CopyFrom(body)
        node.name = prefix + body.name
        del node.input[:]
        node.input.extend(ref(i) for i in body.input)
        nodes.append(node)
    return nodes, [ref(fdef.ret[a.name]) for a in fdef.signature.output_arg]


def _expand(call, fdef, functions: dict, node_class) -> list:
    """The nodes that replace one call."""
    prefix = call.name + "/"
    args = [a.name for a in fdef.signature.input_arg]
    data_inputs = [i for i in call.input if not i.startswith("^")]
    if len(data_inputs) != len(args):
        msg = (f"call '{call.name}' passes {len(data_inputs)} inputs to function "
               f"'{fdef.signature.name}', which takes {len(args)} (corrupt model)")
        raise ModelFormatError(msg)
    out = [node_class(name=prefix + arg, op="Identity", input=[src])
           for arg, src in zip(args, data_inputs, strict=True)]
    nodes, results = function_nodes(fdef, functions, prefix)
    out.extend(nodes)
    out.append(node_class(name=call.name, op="IdentityN", input=results))
    return out


def inline_calls(nodes: list, functions: dict) -> list:
    """nodes with every call of a function of `functions` replaced by the function's body."""
    for _ in range(_MAX_DEPTH):
        if not any(_callee(n, functions) in functions for n in nodes):
            return nodes
        out = []
        for node in nodes:
            name = _callee(node, functions)
            out.extend(_expand(node, functions[name], functions, type(node))
                       if name in functions else [node])
        nodes = out
    msg = f"function calls nest deeper than {_MAX_DEPTH} levels (recursive function library)"
    raise ModelFormatError(msg)


def inline_functions(graph_def) -> None:
    """Replace every call of a library function in graph_def.node by the function's body."""
    functions = {f.signature.name: f for f in graph_def.library.function}
    if functions:
        nodes = inline_calls(list(graph_def.node), functions)
        del graph_def.node[:]
        graph_def.node.extend(nodes)
