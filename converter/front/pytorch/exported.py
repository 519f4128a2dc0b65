"""A torch.export program as a front-stage graph: as exported when every op it calls has a
translator (flatten and the like then keep following their input's shape, where core ATen writes
the traced sizes into a view), else decomposed to the core ATen op set; its parameters, buffers
and constants made Consts, its user inputs Parameters of the example shapes, and one framework
node per op call (getitem reads a call's outputs; an in-place call's result is what later calls
read of the tensor it wrote)."""

from __future__ import annotations

import operator
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from converter.errors import ConversionError, InputFileError, ModelFormatError
from converter.front.pytorch.builder import GraphBuilder, Number, Source, numpy_dtype
from converter.front.pytorch.stub_ops import register_missing_ops
from converter.front.pytorch.torch_module import import_torch, quiet_torch
from converter.front.pytorch.translator import REGISTRY
from converter.graph.graph import Graph
from converter.graph.shape import DYN

__all__ = ["load_exported", "program_to_graph", "read_archive", "tensor_value"]


# Python's arithmetic on symbolic sizes (a dynamic dim), as the ATen ops that compute it
_SYMBOLIC = {operator.add: "aten::add", operator.sub: "aten::sub", operator.mul: "aten::mul",
             operator.floordiv: "aten::floordiv"}


def read_archive(path: Path, reader: str, read: Callable[[Any], Any], advice: str) -> Any:
    """read(torch) on the archive at path, with torch imported, the file's torch.library ops
    registered and torch's chatter quiet; a file torch cannot read is one line naming the
    reader and what to do (`advice`)."""
    torch = import_torch(str(path))
    if not path.is_file():
        raise InputFileError(f"{path}: no such model file")
    register_missing_ops(torch, path)
    try:
        with quiet_torch():
            return read(torch)
    except Exception as err:  # noqa: BLE001  (torch raises many kinds for a bad archive)
        text = str(err).strip()
        why = text.splitlines()[0][:160] if text else type(err).__name__
        msg = (f"{path}: {reader} cannot read it ({why}); {advice}, and import the module "
               "defining any torch.library op first")
        raise ModelFormatError(msg) from None


def load_exported(path: Path) -> Any:
    """torch.export.load(path), a file it cannot read being one line."""
    return read_archive(path, "torch.export.load", lambda torch: torch.export.load(str(path)),
                        "save the program with torch.export.save")


def tensor_value(tensor: Any) -> np.ndarray:
    """A torch tensor's values as numpy (bfloat16 as ml_dtypes' bfloat16)."""
    tensor = tensor.detach().cpu().contiguous()
    if str(tensor.dtype) == "torch.bfloat16":
        return tensor.float().numpy().astype(numpy_dtype("bfloat16"))
    return tensor.numpy().copy()


def _shape(value: Any) -> tuple[int, ...]:
    return tuple(int(d) if isinstance(d, int) or str(d).isdigit() else DYN for d in value.shape)


def _plain(torch: Any, value: Any, values: dict[str, Any]) -> Any:
    """An FX argument as the builder takes it: nodes as their Sources, dtypes as numpy's."""
    if isinstance(value, torch.fx.Node):
        found = values[value.name]
        symbolic = not isinstance(value.meta.get("val"), torch.Tensor)
        return Number(found) if symbolic and isinstance(found, tuple) else found
    if isinstance(value, (list, tuple)):
        return [_plain(torch, v, values) for v in value]
    if isinstance(value, torch.dtype):
        return numpy_dtype(value)
    if isinstance(value, (torch.device, torch.layout, torch.memory_format)):
        return str(value)
    return value


def _arguments(torch: Any, node: Any, values: dict[str, Any]) -> list[tuple[str, Any]]:
    """The call's arguments by schema name, in schema order, defaults filled in."""
    out = []
    for i, arg in enumerate(node.target._schema.arguments):
        if not arg.kwarg_only and i < len(node.args):
            value = node.args[i]
        elif arg.name in node.kwargs:
            value = node.kwargs[arg.name]
        else:
            value = arg.default_value if arg.has_default_value() else None
        out.append((arg.name, _plain(torch, value, values)))
    return out


def _outputs(node: Any) -> int:
    val = node.meta.get("val")
    return len(val) if isinstance(val, (list, tuple)) else 1


def _op_name(node: Any) -> str:
    """The ATen name a call translates by (an in-place op by its functional twin)."""
    name = node.target._schema.name
    return name[:-1] if name.endswith("_") and not name.endswith("__") else name


def _translatable(torch: Any, program: Any) -> bool:
    """Every ATen call has a translator (other namespaces' ops, which decomposing keeps, are
    left to the extensions)."""
    names = {_op_name(n) for n in program.graph.nodes
             if n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload)}
    return all(REGISTRY.find(n) is not None for n in names if n.startswith("aten::"))


def program_to_graph(program: Any, name: str) -> Graph:
    """The front-stage graph of an ExportedProgram."""
    torch = import_torch(name)
    if not _translatable(torch, program):
        with quiet_torch():
            program = program.run_decompositions()
    specs = {s.arg.name: s for s in program.graph_signature.input_specs
             if hasattr(s.arg, "name")}
    state = {**program.state_dict, **program.constants}
    build = GraphBuilder(name)
    values: dict[str, Any] = {}
    for node in program.graph.nodes:
        if node.op == "placeholder":
            values[node.name] = _placeholder(build, node, specs.get(node.name), state)
        elif node.op == "call_function" and node.target is operator.getitem:
            values[node.name] = values[node.args[0].name][node.args[1]]
        elif node.op == "call_function" and node.target in _SYMBOLIC:
            args = [("self", _plain(torch, node.args[0], values)),
                    ("other", _plain(torch, node.args[1], values))]
            values[node.name] = (build.call(_SYMBOLIC[node.target], node.name, args, 1), 0)
        elif node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload):
            call = build.call(_op_name(node), node.name, _arguments(torch, node, values),
                              _outputs(node))
            call["overload"] = node.target._schema.overload_name
            outputs = [(call, k) for k in range(_outputs(node))]
            values[node.name] = outputs if isinstance(node.meta.get("val"), (list, tuple)) \
                else outputs[0]
            if _op_name(node) != node.target._schema.name:  # in place: later reads see it
                values[node.args[0].name] = outputs[0]
        elif node.op == "output":
            _results(build, program, node, values)
        else:
            msg = (f"{node.target} node '{node.name}': {node.op} {node.target} is not supported; "
                   "change the model")
            raise ConversionError(msg)
    return build.graph


def _placeholder(build: GraphBuilder, node: Any, spec: Any, state: dict[str, Any]) -> Source:
    kind = getattr(getattr(spec, "kind", None), "name", "USER_INPUT")
    if kind == "USER_INPUT":
        val = node.meta.get("val")
        if val is None or not hasattr(val, "shape"):
            msg = f"input '{node.name}' is not a tensor; give the model tensor inputs only"
            raise ConversionError(msg)
        return build.parameter(node.name, _shape(val), numpy_dtype(val.dtype))
    return build.constant(spec.target or node.name, tensor_value(state[spec.target]))


def _results(build: GraphBuilder, program: Any, node: Any, values: dict[str, Any]) -> None:
    """The user outputs (buffer mutations are dropped: inference does not write state)."""
    specs = program.graph_signature.output_specs
    for spec, value in zip(specs, node.args[0], strict=True):
        if spec.kind.name != "USER_OUTPUT":
            continue
        if value is None or not hasattr(value, "name"):
            msg = f"output '{spec.arg}' is not a tensor of the graph; return tensors only"
            raise ConversionError(msg)
        build.result(values[value.name])
