"""Tiny models of each framework holding one custom op (inputs in0.., outputs out0..), for
`extgen test`'s ovc rows: ONNX (onnx.helper), TensorFlow (a frozen GraphDef, with the
converter's own protos), TensorFlow Lite (TFLite's generated flatbuffer schema: a CUSTOM
operator whose options are a flexbuffer map), PaddlePaddle (a static program, its op retyped
through Paddle's OpDesc) and PyTorch (a torch.library op giving outputs of the reference's
shapes and types)."""

from __future__ import annotations

import functools
import importlib.util
import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from converter.errors import ExtgenError

__all__ = ["BUILDERS", "ModelOp", "ToolMissing"]


_TORCH_OUTPUTS: dict[str, list[np.ndarray]] = {}  # torch.library op -> what it gives now


class ToolMissing(Exception):
    """The framework's tools are not installed here: the message says what to install."""


@dataclass(frozen=True)
class ModelOp:
    """The op as a model holds it: its type there, port names and attributes (framework
    name, config type, value)."""

    type: str
    inputs: list[np.ndarray]
    outputs: list[np.ndarray]  # the reference's, for their shapes and types
    attrs: list[tuple[str, str, Any]]
    input_names: list[str]  # PaddlePaddle: the op's own input and output names
    output_names: list[str]


def _need(module: str, package: str):
    try:
        return importlib.import_module(module)
    except ImportError:
        msg = f"{package} is not installed in this Python: pip install {package}"
        raise ToolMissing(msg) from None


def _onnx(op: ModelOp, folder: Path) -> Path:
    onnx = _need("onnx", "onnx")
    from onnx import helper

    domain, _, name = op.type.rpartition("::")
    node = helper.make_node(name, [f"in{k}" for k in range(len(op.inputs))],
                            [f"out{k}" for k in range(len(op.outputs))], domain=domain,
                            **{n: int(v) if t == "bool" else v for n, t, v in op.attrs})
    inputs = [helper.make_tensor_value_info(f"in{k}", helper.np_dtype_to_tensor_dtype(x.dtype),
                                            x.shape) for k, x in enumerate(op.inputs)]
    outputs = [helper.make_tensor_value_info(f"out{k}", 0, None)
               for k in range(len(op.outputs))]
    imports = [helper.make_opsetid("", 17)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    model = helper.make_model(helper.make_graph([node], "extgen_test", inputs, outputs),
                              opset_imports=imports)
    onnx.save(model, folder / "model.onnx")
    return folder / "model.onnx"


def _tf_value(type_: str, value: Any) -> Any:
    """An attribute value typed as GraphBuilder stores it (a float list of whole numbers
    stays floats)."""
    if type_ == "float_list":
        return [float(v) for v in value]
    if type_ == "int_list":
        return [int(v) for v in value]
    return {"int": int, "float": float, "bool": bool, "string": str}[type_](value)


def _tf(op: ModelOp, folder: Path) -> Path:
    """A frozen GraphDef written with the converter's own protos: TensorFlow is not imported
    (its start-up lines, and its LLVM, which breaks PoCL's in the same process)."""
    from converter.front.tf.writer import GraphBuilder

    g = GraphBuilder()
    names = [g.placeholder(f"in{k}", list(x.shape), x.dtype) for k, x in enumerate(op.inputs)]
    g.node(op.type, "op", names, **{n: _tf_value(t, v) for n, t, v in op.attrs})
    for k in range(len(op.outputs)):
        g.node("Identity", f"out{k}", [f"op:{k}" if k else "op"])
    return g.save(folder / "model.pb")


@functools.cache
def _tflite_schema() -> Any:
    """TFLite's generated schema module, loaded from the tensorflow package's files without
    importing tensorflow itself (see _tf); read once per process, not once per model."""
    found = importlib.util.find_spec("tensorflow")
    path = None if found is None or found.origin is None else \
        Path(found.origin).parent / "lite" / "python" / "schema_py_generated.py"
    if path is None or not path.is_file():
        msg = "tensorflow is not installed in this Python: pip install tensorflow"
        raise ToolMissing(msg)
    spec = importlib.util.spec_from_file_location("_extgen_tflite_schema", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tflite(op: ModelOp, folder: Path) -> Path:
    flatbuffers = _need("flatbuffers", "flatbuffers")
    from flatbuffers import flexbuffers

    tfl = _tflite_schema()

    def tensor(name: str, shape: tuple[int, ...], dtype: np.dtype) -> Any:
        t = tfl.TensorT()
        t.name, t.shape, t.buffer = name.encode(), list(shape), 0
        t.type = getattr(tfl.TensorType, np.dtype(dtype).name.upper())
        return t

    code = tfl.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = tfl.BuiltinOperator.CUSTOM
    code.customCode = op.type.encode()
    n_in = len(op.inputs)
    graph = tfl.SubGraphT()
    graph.tensors = ([tensor(f"in{k}", x.shape, x.dtype) for k, x in enumerate(op.inputs)]
                     + [tensor(f"out{k}", y.shape, y.dtype) for k, y in enumerate(op.outputs)])
    graph.inputs = list(range(n_in))
    graph.outputs = list(range(n_in, len(graph.tensors)))
    node = tfl.OperatorT()
    node.opcodeIndex, node.inputs, node.outputs = 0, graph.inputs, graph.outputs
    node.customOptions = list(flexbuffers.Dumps({n: v for n, _, v in op.attrs}))
    node.customOptionsFormat = tfl.CustomOptionsFormat.FLEXBUFFERS
    graph.operators = [node]
    model = tfl.ModelT()
    model.version, model.operatorCodes, model.subgraphs = 3, [code], [graph]
    model.buffers = [tfl.BufferT()]
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    (folder / "model.tflite").write_bytes(builder.Output())
    return folder / "model.tflite"


def _paddle(op: ModelOp, folder: Path) -> Path:
    """In a Python of its own (paddle crashes when imported after tensorflow), every dim
    dynamic: one model serves every case of a rank."""
    if importlib.util.find_spec("paddle") is None:
        msg = "paddlepaddle is not installed in this Python: pip install paddlepaddle"
        raise ToolMissing(msg)
    spec = {"type": op.type, "input_names": op.input_names, "output_names": op.output_names,
            "inputs": [[x.ndim, str(x.dtype)] for x in op.inputs],
            "outputs": [[y.ndim, str(y.dtype)] for y in op.outputs],
            "attrs": [[n, v] for n, _, v in op.attrs]}
    (folder / "paddle_op.json").write_text(json.dumps(spec))
    done = subprocess.run([sys.executable, "-m", "extgen.paddle_model", str(folder)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        lines = (done.stderr.strip() or f"exit status {done.returncode}").splitlines()
        msg = f"PaddlePaddle could not build the model: {lines[-1]}"
        raise ExtgenError(msg)
    return folder / "model.pdmodel"


def _pytorch(op: ModelOp, folder: Path) -> Any:
    """A torch.nn.Module calling the torch.library op (defined here once, giving the
    reference's outputs: only their shapes and types matter when tracing); ov.convert_model
    traces it with the inputs."""
    torch = _need("torch", "torch")
    namespace, _, name = op.type.partition("::")
    if not hasattr(getattr(torch.ops, namespace), name):
        kinds = {"int": "int", "float": "float", "bool": "bool", "string": "str",
                 "int_list": "int[]", "float_list": "float[]"}
        args = [f"Tensor in{k}" for k in range(len(op.inputs))]
        args += [f"{kinds[t]} a{k}" for k, (_, t, _) in enumerate(op.attrs)]
        outs = "Tensor" if len(op.outputs) == 1 else f"({', '.join(['Tensor'] * len(op.outputs))})"
        torch.library.define(op.type, f"({', '.join(args)}) -> {outs}")

        def run(*_):
            ys = tuple(torch.from_numpy(np.zeros_like(y)) for y in _TORCH_OUTPUTS[op.type])
            return ys[0] if len(ys) == 1 else ys

        torch.library.impl(op.type, "CompositeExplicitAutograd", run)
    _TORCH_OUTPUTS[op.type] = op.outputs
    call = getattr(getattr(torch.ops, namespace), name)
    values = [v for _, _, v in op.attrs]

    class Net(torch.nn.Module):
        def forward(self, *xs):
            return call(*xs, *values)

    return Net()


BUILDERS: dict[str, Callable[[ModelOp, Path], Any]] = {
    "onnx": _onnx, "tf": _tf, "tflite": _tflite, "paddle": _paddle, "pytorch": _pytorch}
