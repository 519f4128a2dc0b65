"""onnx.backend.base.Backend over extgen: convert with our converter, run the IR in an engine.

    rep = ExtgenBackend.prepare(model, device="CPU", engine="openvino")
    outputs = rep.run([x])

engine="openvino" runs our IR in the real OpenVINO runtime (Core.read_model on our .xml/.bin);
engine="shim" runs it in extgen's own numpy runtime (converter/runtime).

Inputs may be TensorProtos, as the node suite gives types numpy lacks (bf16, float8, int4).
Outputs come back in the form the inputs came: TensorProtos named for the graph outputs when
every input was one, or when some was and numpy lacks the output's type (stored as raw bytes when
the input TensorProtos were, else in their typed fields); otherwise numpy arrays (ml_dtypes for
the types numpy lacks). A type the IR carries in another (converter.ir.carried: float8 fnuz,
int2) goes in as its carrier and comes back as the graph output declares it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper
from onnx.backend.base import Backend, BackendRep

from converter.ir.carried import carrier, is_carried
from converter.ir.types import numpy_lacks
from converter.options import ConvertOptions
from converter.pipeline import convert
from converter.runtime.ov_tensors import from_ov, to_ov

__all__ = ["ExtgenBackend", "ExtgenRep"]


class ExtgenRep(BackendRep):
    def __init__(self, runner, input_names: list[str], output_names: list[str],
                 output_types: list[np.dtype | None] | None = None) -> None:
        self.runner, self.input_names, self.output_names = runner, input_names, output_names
        self.output_types = output_types or [None] * len(output_names)

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:
        if isinstance(inputs, dict):
            feed = dict(inputs)
        else:
            arrays = [inputs] if isinstance(inputs, np.ndarray) else list(inputs)
            feed = dict(zip(self.input_names, arrays))
        protos = [v for v in feed.values() if isinstance(v, onnx.TensorProto)]
        every_proto = bool(feed) and len(protos) == len(feed)
        raw = all(p.HasField("raw_data") or 0 in p.dims for p in protos)
        feed = {k: _carried(_array(v)) for k, v in feed.items()}
        outputs = [
            v.astype(t) if t is not None and is_carried(t) else v
            for v, t in zip(self.runner(feed, self.output_names), self.output_types)
        ]
        return tuple(
            _proto(v, name, raw) if every_proto or (protos and _numpy_lacks(v.dtype)) else v
            for name, v in zip(self.output_names, outputs)
        )


def _numpy_lacks(dtype: np.dtype) -> bool:
    return numpy_lacks(dtype) or is_carried(dtype)


def _array(value: Any) -> Any:
    return numpy_helper.to_array(value) if isinstance(value, onnx.TensorProto) else value


def _carried(value: Any) -> Any:
    """A value of a type the IR carries in another type (converter.ir.carried), in its carrier."""
    dtype = getattr(value, "dtype", None)
    return value.astype(carrier(dtype)) if dtype is not None and is_carried(dtype) else value


def _proto(value: np.ndarray, name: str, raw: bool) -> onnx.TensorProto:
    """An output as a TensorProto, its values stored as the caller stored its inputs' (raw bytes,
    or the typed fields, as onnx.helper.make_tensor writes them)."""
    if raw:
        return numpy_helper.from_array(value, name)
    data_type = onnx.helper.np_dtype_to_tensor_dtype(value.dtype)
    return onnx.helper.make_tensor(name, data_type, value.shape, value.reshape(-1))


def _openvino_runner(xml: Path):
    import openvino as ov

    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(xml)), "CPU",
                                  {"INFERENCE_PRECISION_HINT": "f32"})
    ports = {name: port for port in compiled.inputs for name in port.get_names()}

    def run(feed: dict[str, np.ndarray], outputs: list[str]) -> list[np.ndarray]:
        request = compiled.create_infer_request()
        request.infer({ports[k]: to_ov(v) for k, v in feed.items() if k in ports})
        return [from_ov(request.get_tensor(compiled.output(name))) for name in outputs]

    return run


def _shim_runner(xml: Path):
    from converter.ir.reader import read_ir
    from converter.runtime.executor import Executor

    executor = Executor(read_ir(xml), [])

    def run(feed: dict[str, np.ndarray], outputs: list[str]) -> list[np.ndarray]:
        result = executor.run(feed)
        return [result[name] for name in outputs]

    return run


_ENGINES = {"openvino": _openvino_runner, "shim": _shim_runner}


def _declared_type(value_info: onnx.ValueInfoProto) -> np.dtype | None:
    elem = value_info.type.tensor_type.elem_type
    return np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem)) if elem else None


class ExtgenBackend(Backend):
    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", engine: str = "openvino",
                **kwargs: Any) -> ExtgenRep:
        if engine not in _ENGINES:
            msg = f"engine '{engine}' is not available; choose one of {', '.join(_ENGINES)}"
            raise ValueError(msg)
        inits = {t.name for t in model.graph.initializer}
        input_names = [i.name for i in model.graph.input if i.name not in inits]
        output_names = [o.name for o in model.graph.output]
        output_types = [_declared_type(o) for o in model.graph.output]
        with tempfile.TemporaryDirectory(prefix="extgen-") as tmp:
            path = Path(tmp) / "model.onnx"
            onnx.save(model, path)
            result = convert(ConvertOptions(path, output_dir=Path(tmp)))
            runner = _ENGINES[engine](result.xml)
        return ExtgenRep(runner, input_names, output_names, output_types)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device == "CPU"
