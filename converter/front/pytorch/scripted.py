"""A TorchScript archive as a front-stage graph: loaded, frozen (weights become constants,
calls inlined), and walked node by node. prim:: constants, lists and tuples become Python
values (lists of tensors feed the op reading them); every other node is one framework node,
its arguments named by its schema, as a torch.export call's are. TorchScript keeps no input
shapes: --input_shape or --input gives them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from converter.errors import ConversionError, UsageError
from converter.front.pytorch.builder import GraphBuilder, Number, numpy_dtype
from converter.front.pytorch.exported import read_archive, tensor_value
from converter.front.pytorch.torch_module import import_torch
from converter.graph.graph import Graph
from converter.options import ConvertOptions

__all__ = ["load_scripted", "script_to_graph"]

# TorchScript passes a dtype as its c10::ScalarType number
_SCALAR_TYPES = {0: "uint8", 1: "int8", 2: "int16", 3: "int32", 4: "int64", 5: "float16",
                 6: "float32", 7: "float64", 11: "bool", 15: "bfloat16"}
# TorchScript's element type names (TensorType.scalarType()) in torch.dtype's spelling
_TYPE_NAMES = {"Float": "float32", "Double": "float64", "Half": "float16", "Long": "int64",
               "Int": "int32", "Bool": "bool", "Byte": "uint8", "Char": "int8",
               "BFloat16": "bfloat16"}
_LISTS = ("prim::ListConstruct", "prim::TupleConstruct")
_NUMBERS = ("int", "float", "bool", "number", "Scalar")  # TorchScript's number types
_UNPACKS = ("prim::ListUnpack", "prim::TupleUnpack")


def load_scripted(path: Path, opts: ConvertOptions) -> Any:
    """The frozen, inlined graph of a torch.jit.save archive."""
    torch = import_torch(str(path))
    module = read_archive(path, "torch.jit.load",
                          lambda torch: torch.jit.load(str(path), map_location="cpu"),
                          "save the model with torch.jit.save (or torch.jit.trace(...).save)")
    if not opts.input_shape and not any(s.shape is not None for s in opts.inputs or []):
        msg = (f"{path}: a TorchScript model keeps no input shapes; give them with "
               "--input_shape (for instance [1,3,224,224]) or --input name[shape]")
        raise UsageError(msg)
    module.eval()
    graph = torch.jit.freeze(module).graph
    torch._C._jit_pass_inline(graph)
    torch._C._jit_pass_remove_mutation(graph)  # in-place ops made functional where it can
    return graph


def _dtype(value: Any) -> np.dtype:
    name = getattr(value.type(), "scalarType", lambda: None)()
    return numpy_dtype(_TYPE_NAMES.get(name, "float32"))


def _outputs(node: Any) -> int:
    """The node's tensor outputs; a list output counts the items its ListUnpack reads."""
    outs = list(node.outputs())
    if len(outs) == 1 and str(outs[0].type()).startswith("List["):
        unpacks = [u.user for u in outs[0].uses() if u.user.kind() == "prim::ListUnpack"]
        return len(list(unpacks[0].outputs())) if unpacks else 1
    return len(outs)


def script_to_graph(graph: Any, name: str) -> Graph:
    """The front-stage graph of a frozen TorchScript graph."""
    torch = import_torch(name)
    build = GraphBuilder(name)
    values: dict[Any, Any] = {}
    for value in graph.inputs():
        if str(value.type()).startswith("__torch__"):  # the module itself (self)
            continue
        values[value] = build.parameter(value.debugName().split(".")[0], None, _dtype(value))
    for node in graph.nodes():
        kind, outs = node.kind(), list(node.outputs())
        if kind == "prim::Constant":
            values[outs[0]] = _constant(build, torch, outs[0].toIValue(), outs[0].debugName())
        elif kind in _LISTS:
            values[outs[0]] = [values[v] for v in node.inputs()]
        elif kind in _UNPACKS:
            values.update(zip(outs, values[node.input()], strict=True))
        elif kind == "prim::ConstantChunk":
            call = build.call("aten::chunk", outs[0].debugName(), [
                ("self", values[node.input()]), ("chunks", node.i("chunks")),
                ("dim", node.i("dim"))], len(outs))
            values.update({v: (call, k) for k, v in enumerate(outs)})
        else:
            _call(build, node, values, torch)
    for value in graph.outputs():
        items = values[value] if isinstance(values[value], list) else [values[value]]
        for item in items:
            build.result(item)
    return build.graph


def _constant(build: GraphBuilder, torch: Any, value: Any, name: str) -> Any:
    """A prim::Constant's value: tensors (in lists too, as frozen weights) as Consts."""
    if isinstance(value, torch.Tensor):
        return build.constant(name, tensor_value(value))
    if isinstance(value, (list, tuple)):
        return [_constant(build, torch, v, f"{name}.{k}") for k, v in enumerate(value)]
    if isinstance(value, (type(None), bool, int, float, str)):
        return value
    return str(value)  # a device, layout or memory format


def _call(build: GraphBuilder, node: Any, values: dict[Any, Any], torch: Any) -> None:
    outs = list(node.outputs())
    label = outs[0].debugName() if outs else node.kind()
    text = node.schema()
    if text == "(no schema)":
        msg = (f"{node.kind()} node '{label}': TorchScript op {node.kind()} is not supported; "
               "change the model")
        raise ConversionError(msg)
    schema = torch._C.parse_schema(text)
    args = []
    for arg, value in zip(schema.arguments, node.inputs(), strict=False):
        item = values.get(value)
        if arg.name == "dtype" and isinstance(item, int):
            item = numpy_dtype(_SCALAR_TYPES[item])
        elif isinstance(item, tuple) and str(value.type()) in _NUMBERS:
            item = Number(item)
        args.append((arg.name, item))
    count = _outputs(node)
    kind = node.kind()
    inplace = kind.endswith("_") and not kind.endswith("__")
    call = build.call(kind[:-1] if inplace else kind, label, args, count)
    call["overload"] = schema.overload_name
    if outs and str(outs[0].type()).startswith("List["):
        values[outs[0]] = [(call, k) for k in range(count)]
    else:
        values.update({v: (call, k) for k, v in enumerate(outs)})
    if inplace:  # later reads of the tensor it wrote read its result
        values[next(node.inputs())] = (call, 0)
